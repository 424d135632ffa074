//! Rustdoc attributes from spec prose.
//!
//! Spec descriptions are Markdown written for other tools, so they are made safe for
//! rustdoc: leading indentation is removed (an indented block would become a doctest)
//! and fences without a language are marked `text` (so no prose is compiled as Rust), and
//! a tab becomes four spaces (rustdoc's width for it, and clippy's `tabs_in_doc_comments`).

use proc_macro2::TokenStream;
use quote::quote;

/// `#[doc]` attributes, one per line, for an item.
pub fn outer(text: &str) -> TokenStream {
    let lines = prepare(text);
    quote! { #( #[doc = #lines] )* }
}

/// `#![doc]` attributes, one per line, for a module or crate.
pub fn inner(text: &str) -> TokenStream {
    let lines = prepare(text);
    quote! { #( #![doc = #lines] )* }
}

fn prepare(text: &str) -> Vec<String> {
    let mut in_fence = false;
    text.trim()
        .lines()
        .map(|line| {
            let line = line.replace('\t', "    ");
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
                format!(" {trimmed}")
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tabs_become_spaces_and_indentation_goes() {
        assert_eq!(
            prepare("\tCode:\tvalue\n  next"),
            [" Code:    value", " next"]
        );
    }
}
