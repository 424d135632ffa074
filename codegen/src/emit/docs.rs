//! Rustdoc attributes from spec prose.
//!
//! Spec descriptions are Markdown written for other tools, so they are made safe for
//! rustdoc: leading indentation is removed (an indented block would become a doctest)
//! and fences without a language are marked `text` (so no prose is compiled as Rust), and
//! a tab becomes four spaces (rustdoc's width for it, and clippy's `tabs_in_doc_comments`).

use proc_macro2::{Delimiter, Group, Ident, Literal, Punct, Spacing, Span, TokenStream, TokenTree};
use quote::quote;

/// `#[doc]` attributes, one per line, for an item.
///
/// Docs are four tenths of a large crate's text, and a plain string literal is walked
/// character by character four times on its way out (escaped into the token, unescaped
/// by `syn` to check it, then again by `prettyplease` to print it as `///`): a tenth of
/// the generator's instructions on nexus. A raw literal is copied, not walked, and
/// prints as the same `///` line. The attributes are built as tokens directly, not
/// cloned out of a `quote!` repetition.
pub fn outer(text: &str) -> TokenStream {
    let mut tokens = TokenStream::new();
    for line in prepare(text) {
        tokens.extend([
            TokenTree::Punct(Punct::new('#', Spacing::Alone)),
            TokenTree::Group(Group::new(
                Delimiter::Bracket,
                TokenStream::from_iter([
                    TokenTree::Ident(Ident::new("doc", Span::call_site())),
                    TokenTree::Punct(Punct::new('=', Spacing::Alone)),
                    TokenTree::Literal(doc_literal(&line)),
                ]),
            )),
        ]);
    }
    tokens
}

/// `line` as a raw string literal (`r"…"`, with as many `#` as its quotes need), which
/// `prettyplease` prints as the `///` line it prints for the plain literal; a plain one
/// where it would not (a line `prettyplease` prints another way, starting with `/`, or
/// one a raw literal cannot hold: a carriage return).
fn doc_literal(line: &str) -> Literal {
    let bytes = line.as_bytes();
    if bytes.first() == Some(&b'/') || bytes.contains(&b'\r') || bytes.contains(&b'\n') {
        return Literal::string(line);
    }
    // The longest run of `#` after a `"`: the raw literal needs one more.
    let mut hashes = 0;
    if bytes.contains(&b'"') {
        for (at, _) in line.match_indices('"') {
            let run = bytes[at + 1..].iter().take_while(|&&b| b == b'#').count();
            hashes = hashes.max(run + 1);
        }
    }
    let mut repr = String::with_capacity(line.len() + 3 + 2 * hashes);
    repr.push('r');
    (0..hashes).for_each(|_| repr.push('#'));
    repr.push('"');
    repr.push_str(line);
    repr.push('"');
    (0..hashes).for_each(|_| repr.push('#'));
    repr.parse().unwrap_or_else(|_| Literal::string(line))
}

/// `#![doc]` attributes, one per line, for a module or crate.
pub fn inner(text: &str) -> TokenStream {
    let lines = prepare(text);
    quote! { #( #![doc = #lines] )* }
}

pub(super) fn prepare(text: &str) -> Vec<String> {
    let mut in_fence = false;
    text.trim()
        .lines()
        .map(|line| {
            let untabbed;
            let line = if line.contains('\t') {
                untabbed = line.replace('\t', "    ");
                untabbed.as_str()
            } else {
                line
            };
            let trimmed = line.trim();
            if let Some(lang) = trimmed.strip_prefix("```") {
                let opening = !in_fence;
                in_fence = !in_fence;
                if opening && (lang.trim().is_empty() || lang.trim() == "rust") {
                    return " ```text".to_owned();
                }
            }
            if trimmed.is_empty() {
                String::new()
            } else {
                let mut out = String::with_capacity(trimmed.len() + 1);
                out.push(' ');
                out.push_str(trimmed);
                out
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::ToTokens;

    /// Each line's raw literal holds the line as it is, whatever quotes and hashes it has.
    #[test]
    fn a_doc_line_reads_back_as_written() {
        for line in [
            "",
            " plain",
            " a \"quote\" and \\ backslash",
            " ends with \"#",
            " \"## twice\"###",
            " tab\there é ✓",
            "/ starts with a slash",
            " carriage\rreturn",
        ] {
            let lit: syn::LitStr = syn::parse2(doc_literal(line).into_token_stream()).unwrap();
            assert_eq!(lit.value(), line);
        }
    }

    #[test]
    fn tabs_become_spaces_and_indentation_goes() {
        assert_eq!(
            prepare("\tCode:\tvalue\n  next"),
            [" Code:    value", " next"]
        );
    }
}
