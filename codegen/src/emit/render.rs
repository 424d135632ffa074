//! Turning one file's tokens into formatted text, a few items at a time.
//!
//! Parsing a whole file into one `syn::File` converted every token into one `syn` token
//! buffer and held every item's syntax tree at once: on GitHub's description hundreds of
//! megabytes of fresh pages that the kernel had to zero (a quarter of the processor
//! time). Here the top-level items are cut apart on their token trees, and a large `impl`
//! block (the client's methods) into groups of members; each piece is parsed, printed
//! and dropped before the next, so the memory is reused. `prettyplease` prints a file as
//! its inner attributes then each item ending on a hard line break, and an `impl`'s
//! members each on their own lines, so the pieces put together are the text a whole-file
//! print gives (the generator's tests compare the generated crates byte for byte).

use proc_macro2::{Delimiter, Group, TokenStream, TokenTree};
use syn::parse::{ParseStream, Parser};

use crate::error::Error;

/// How many members of an `impl` block are parsed and printed together: enough to keep
/// the per-piece overhead small, few enough to keep the memory of a piece small.
const MEMBERS_PER_PIECE: usize = 16;

/// Parses and pretty-prints one file's tokens.
pub(super) fn render(path: &str, tokens: TokenStream) -> Result<String, Error> {
    Ok(space(&unspaced(path, tokens)?))
}

/// [`render`] without the blank lines between items: what a part of a file prints as, so
/// that parts printed apart (on other threads) and put together, then given to [`space`],
/// are the text [`render`] gives of the whole.
pub(super) fn unspaced(path: &str, tokens: TokenStream) -> Result<String, Error> {
    let mut text = String::new();
    for item in split_items(tokens) {
        let printed = match print_impl_in_pieces(&item) {
            Some(printed) => printed,
            None => print(item.into_iter().collect()).map_err(|e| internal(path, e))?,
        };
        text.push_str(&printed);
    }
    Ok(text)
}

/// The printed members of the block `header { members }`, without its header line and
/// its closing brace (an `impl` printed in parts: the header's line, the parts' members
/// in order, and `}`); empty when there are none.
pub(super) fn members(
    path: &str,
    header: &TokenStream,
    members: TokenStream,
) -> Result<String, Error> {
    let header: Vec<TokenTree> = header.clone().into_iter().collect();
    let members = split_items(members);
    if members.is_empty() {
        return Ok(String::new());
    }
    let mut text = String::new();
    // The members' tokens moved into each piece, not cloned (an identifier's clone is an
    // allocation).
    let mut members = members.into_iter().peekable();
    while members.peek().is_some() {
        let group = members.by_ref().take(MEMBERS_PER_PIECE).flatten();
        let printed = print_members(&header, group).map_err(|e| internal(path, e))?;
        let body = header_len(&printed)
            .and_then(|at| printed[at..].strip_suffix("}\n"))
            .ok_or_else(|| Error::Internal {
                file: path.to_owned(),
                message: format!("a block's members printed unlike a block: {printed}"),
            })?;
        text.push_str(body);
    }
    Ok(text)
}

/// How the block `header { … }` prints around its members' printed parts (see
/// [`members`]), as a whole print of it would be.
pub(super) struct BlockEnds {
    /// The block with no members.
    pub(super) empty: String,
    /// The header's lines, up to the one that opens the body.
    pub(super) open: String,
    /// The closing `}` line.
    pub(super) close: String,
}

/// The [`BlockEnds`] of `header { … }`.
pub(super) fn block_ends(path: &str, header: &TokenStream) -> Result<BlockEnds, Error> {
    let header: Vec<TokenTree> = header.clone().into_iter().collect();
    let empty = print_members(&header, []).map_err(|e| internal(path, e))?;
    let open = empty.strip_suffix("}\n").ok_or_else(|| Error::Internal {
        file: path.to_owned(),
        message: format!("an empty block printed unlike one: {empty}"),
    })?;
    Ok(BlockEnds {
        open: format!("{open}\n"),
        close: "}\n".to_owned(),
        empty,
    })
}

/// Puts the blank lines between items (see [`space_items`]).
pub(super) fn space(text: &str) -> String {
    space_items(text)
}

/// Pieces of a file, each spaced on its own ([`space`], on the thread that printed it),
/// put together as [`space`] spaces the whole: whether a blank line goes after a line
/// depends on that line and the next alone, so only the last line of one piece and the
/// first of the next are left to decide here. Each piece must be the spacing of a text
/// that ends its last line (or is empty): one that does not would run on into the next
/// piece's first line, which spacing it alone could not see.
pub(super) fn join_spaced(pieces: Vec<&str>) -> String {
    let mut text = String::with_capacity(pieces.iter().map(|p| p.len() + 1).sum());
    for piece in pieces {
        if let Some(next) = piece.lines().next()
            && let Some(done) = text.strip_suffix('\n')
            && blank_between(done.rsplit('\n').next().unwrap_or(done), next)
        {
            text.push('\n');
        }
        text.push_str(piece);
    }
    text
}

fn internal(path: &str, e: syn::Error) -> Error {
    Error::Internal {
        file: path.to_owned(),
        message: e.to_string(),
    }
}

/// Prints `header { members }`.
fn print_members(
    header: &[TokenTree],
    members: impl IntoIterator<Item = TokenTree>,
) -> syn::Result<String> {
    let inner: TokenStream = members.into_iter().collect();
    let mut tokens: TokenStream = header.iter().cloned().collect();
    tokens.extend([TokenTree::Group(Group::new(Delimiter::Brace, inner))]);
    print(tokens)
}

/// One file's tokens as unformatted text, in pieces that each parse as a file: every
/// top-level item, except that an `impl` block becomes one piece per member, each inside
/// the block's header (`impl X { member }`). Two versions of a crate are compared piece by
/// piece without printing either (printing is most of the generator's time), and a change
/// to one method of the client's thousand-method `impl` is one piece, not the whole block.
pub(super) fn pieces(tokens: TokenStream) -> Vec<String> {
    let text = |trees: Vec<TokenTree>| trees.into_iter().collect::<TokenStream>().to_string();
    let mut out = Vec::new();
    for item in split_every_item(tokens) {
        let Some((header, body)) = as_impl(&item) else {
            out.push(text(item));
            continue;
        };
        if body.stream().is_empty() {
            out.push(text(item));
            continue;
        }
        // The header printed once; the body's tokens taken over, not copied, once the
        // item that shares them is dropped.
        let (header, body) = (text(header.to_vec()), body.stream());
        drop(item);
        for member in split_every_item(body) {
            out.push(format!("{header} {{ {} }}", text(member)));
        }
    }
    out
}

/// Parses tokens as a file (inner attributes, then items) and prints it.
fn print(tokens: TokenStream) -> syn::Result<String> {
    let parse = |input: ParseStream<'_>| -> syn::Result<syn::File> {
        let attrs = input.call(syn::Attribute::parse_inner)?;
        let mut items = Vec::new();
        while !input.is_empty() {
            items.push(input.parse()?);
        }
        Ok(syn::File {
            shebang: None,
            frontmatter: None,
            attrs,
            items,
        })
    };
    Ok(prettyplease::unparse(&parse.parse2(tokens)?))
}

/// Cuts a token stream into items: a new item begins at a `#` (its first outer
/// attribute, which every generated item has: its rustdoc) right after a `;` or a braced
/// block, where one item always ends. Items without attributes stay with the one before;
/// a piece may hold several items, never part of one.
fn split_items(tokens: TokenStream) -> Vec<Vec<TokenTree>> {
    split_where(tokens, is_hash)
}

/// [`split_items`], also cutting before an item with no attribute (`impl X {`, the
/// client's, has none): a new item begins at a `#` or at a keyword only an item starts
/// with, right after a `;` or a braced block.
fn split_every_item(tokens: TokenStream) -> Vec<Vec<TokenTree>> {
    const STARTS: [&str; 13] = [
        "pub", "impl", "fn", "struct", "enum", "type", "const", "static", "use", "mod", "trait",
        "unsafe", "async",
    ];
    split_where(tokens, |tree| {
        is_hash(tree) || STARTS.iter().any(|word| is_word(Some(tree), word))
    })
}

fn is_hash(tree: &TokenTree) -> bool {
    matches!(tree, TokenTree::Punct(p) if p.as_char() == '#')
}

/// Cuts a token stream before each token `starts` accepts that comes right after a `;` or
/// a braced block.
fn split_where(tokens: TokenStream, starts: impl Fn(&TokenTree) -> bool) -> Vec<Vec<TokenTree>> {
    let mut items = Vec::new();
    let mut current: Vec<TokenTree> = Vec::new();
    let mut after_item_end = false;
    for tree in tokens {
        if starts(&tree) && after_item_end && !current.is_empty() {
            items.push(std::mem::take(&mut current));
        }
        after_item_end = match &tree {
            TokenTree::Punct(p) => p.as_char() == ';',
            TokenTree::Group(g) => g.delimiter() == Delimiter::Brace,
            _ => false,
        };
        current.push(tree);
    }
    if !current.is_empty() {
        items.push(current);
    }
    items
}

/// The header (attributes, `impl ... for ...`) and braced body of an `impl` item.
fn as_impl(item: &[TokenTree]) -> Option<(&[TokenTree], &Group)> {
    let (TokenTree::Group(body), header) = item.split_last()? else {
        return None;
    };
    if body.delimiter() != Delimiter::Brace {
        return None;
    }
    // After the outer attributes (`#` and a bracketed group each): `impl` or
    // `unsafe impl`. Anything else (a `fn` returning `impl Trait`, a `mod`) is not cut.
    let mut rest = header;
    while let [TokenTree::Punct(p), TokenTree::Group(g), tail @ ..] = rest
        && p.as_char() == '#'
        && g.delimiter() == Delimiter::Bracket
    {
        rest = tail;
    }
    let is_impl = is_word(rest.first(), "impl")
        || (is_word(rest.first(), "unsafe") && is_word(rest.get(1), "impl"));
    is_impl.then_some((header, body))
}

/// Whether a token is the identifier (or keyword) `word`.
fn is_word(tree: Option<&TokenTree>, word: &str) -> bool {
    matches!(tree, Some(TokenTree::Ident(i)) if i == word)
}

/// Prints a large `impl` block a group of members at a time, each group as the same
/// header around a part of the body, and joins the bodies; `None` (print it whole) when
/// it is not a large `impl`, or when a printed piece is not shaped as expected.
fn print_impl_in_pieces(item: &[TokenTree]) -> Option<String> {
    let (header, body) = as_impl(item)?;
    let members = split_items(body.stream());
    if members.len() <= MEMBERS_PER_PIECE {
        return None;
    }
    let mut pieces = Vec::new();
    for group in members.chunks(MEMBERS_PER_PIECE) {
        pieces.push(print_members(header, group.iter().flatten().cloned()).ok()?);
    }
    // Each piece prints as the header's lines, its members indented, and a last `}`.
    let head_len = header_len(&pieces[0])?;
    let head = &pieces[0][..head_len];
    let mut text = String::from(head);
    for piece in &pieces {
        let members = piece.strip_prefix(head)?.strip_suffix("}\n")?;
        if !members.starts_with("    ") || !members.ends_with('\n') {
            return None;
        }
        text.push_str(members);
    }
    text.push_str("}\n");
    Some(text)
}

/// The length of a printed `impl`'s header: up to and including the line that opens its
/// body (`impl X {`, or a lone `{` after a `where` clause).
fn header_len(printed: &str) -> Option<usize> {
    let mut at = 0;
    for line in printed.split_inclusive('\n') {
        at += line.len();
        let line = line.trim_end_matches('\n');
        let continuation = line.starts_with([' ', '/', '#', ')', ']']);
        if !continuation && line.ends_with('{') {
            return Some(at);
        }
    }
    None
}

/// Puts a blank line between top-level items and between the items of an `impl`, which
/// `prettyplease` prints back to back; the generated files are read by people too.
///
/// The tests that decide on a blank line come first, since most lines (indented code)
/// fail the first of them, and the look at the next line is made only for the few that
/// pass.
fn space_items(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 16);
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        out.push_str(line);
        out.push('\n');
        if lines.peek().is_some_and(|next| blank_between(line, next)) {
            out.push('\n');
        }
    }
    out
}

/// Whether [`space_items`] puts a blank line between `line` and the `next`.
fn blank_between(line: &str, next: &str) -> bool {
    let top_level_end =
        line == "}" || (!line.starts_with(' ') && !line.starts_with("//") && line.ends_with(';'));
    let module_doc_end = line.starts_with("//!") && !next.starts_with("//!");
    let member_end = line == "    }"
        && ["///", "pub ", "fn ", "#[", "async ", "type ", "const "]
            .iter()
            .any(|p| next.strip_prefix("    ").is_some_and(|n| n.starts_with(p)));
    if !(top_level_end || module_doc_end || member_end) {
        return false;
    }
    !(next.is_empty() || next.starts_with('}') || next.trim_start().starts_with('}'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    /// What a whole-file parse and print gives, to compare the pieces with.
    fn whole(tokens: TokenStream) -> String {
        let file: syn::File = syn::parse2(tokens).unwrap();
        space_items(&prettyplease::unparse(&file))
    }

    #[test]
    fn pieces_print_as_the_whole_file() {
        let methods = (0..40).map(|i| {
            let name = quote::format_ident!("method_{i}");
            quote! {
                #[doc = "A method."]
                pub async fn #name(&self, x: u32) -> Result<u32, String> {
                    match x { 0 => Err("zero".into()), n => Ok(n * #i) }
                }
                #[doc = "A constant."]
                const X: u32 = 1;
            }
        });
        let tokens = quote! {
            #![doc = "A module."]
            #[doc = "A type."]
            pub struct Client { inner: u32 }
            #[doc = "Its methods."]
            impl<T> Client where T: Clone { #(#methods)* }
            #[doc = "A short impl."]
            impl Client { #[doc = "one"] fn one() {} }
            #[doc = "A constant."]
            pub const C: Client = Client { inner: 1 };
            use std::fmt;
            impl fmt::Debug for Client {
                fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result { f.write_str("Client") }
            }
            #[doc = "A function returning an impl."]
            pub fn f() -> impl Fn() { || {} }
        };
        let cut = split_items(tokens.clone())
            .iter()
            .filter_map(|item| print_impl_in_pieces(item))
            .count();
        assert_eq!(
            cut, 1,
            "the long impl is printed in pieces, the short ones whole"
        );
        let pieces = render("t.rs", tokens.clone()).unwrap();
        assert_eq!(pieces, whole(tokens));
        assert!(pieces.contains("fn method_39"), "{pieces}");
    }

    #[test]
    fn an_impl_is_cut_into_its_members() {
        let tokens = quote! {
            #![doc = "A module."]
            #[doc = "A type."]
            pub struct S;
            #[doc = "Its methods."]
            impl S { #[doc = "a"] pub fn a() {} #[doc = "b"] pub fn b(x: u32) {} }
            impl Empty {}
        };
        let pieces = pieces(tokens);
        assert_eq!(pieces.len(), 4, "{pieces:#?}");
        assert!(pieces[1].contains("impl S {") && pieces[1].contains("fn a"));
        assert!(pieces[2].contains("impl S {") && pieces[2].contains("fn b"));
        assert!(!pieces[1].contains("fn b") && pieces[3].contains("impl Empty"));
        for piece in &pieces {
            syn::parse_file(piece).unwrap();
        }
    }

    #[test]
    fn items_are_cut_only_where_one_ends() {
        let tokens = quote! {
            #[doc = "a"] pub const A: S = S { x: 1 };
            #[doc = "b"] struct B;
            impl B {} impl S {}
            #[doc = "c"] fn c() {}
        };
        let items = split_items(tokens);
        assert_eq!(items.len(), 3);
        assert_eq!(
            items[1].len(),
            11,
            "B and the two impls without docs stay together"
        );
    }

    /// Cut anywhere between lines, the pieces spaced apart and joined are the whole spaced.
    #[test]
    fn pieces_spaced_apart_join_as_the_whole() {
        let text = "//! Module.\n//! More.\nuse x;\npub struct A;\nimpl A {\n    fn a() {}\n    }\n    /// b\n    fn b() {}\n}\n}\n\nconst C: u8 = 1;\n";
        let whole = space(text);
        let ends: Vec<usize> = text.match_indices('\n').map(|(i, _)| i + 1).collect();
        for &a in &ends {
            for &b in ends.iter().filter(|&&b| b >= a) {
                let spaced = [&text[..a], &text[a..b], &text[b..]].map(space);
                assert_eq!(
                    join_spaced(spaced.iter().map(String::as_str).collect()),
                    whole
                );
            }
        }
    }

    #[test]
    fn invalid_tokens_are_an_internal_error() {
        let err = render("bad.rs", quote! { #[doc = "x"] fn }).unwrap_err();
        assert!(err.to_string().contains("bad.rs"), "{err}");
    }
}
