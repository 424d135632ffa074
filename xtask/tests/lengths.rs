//! Functions stay short enough to read at once: at most [`ALLOWED`] functions in the
//! workspace run over [`LIMIT`] lines, and each of those says why it is one piece with a
//! comment starting `// One piece:` right above it (among its doc comments and
//! attributes) or as the first line of its body.
//!
//! Every `.rs` file outside `generated/` (written by the generator, which is measured
//! instead) and build output is read with `syn`: free functions, methods of impls and
//! traits, and functions nested in them. A function's length runs from the line of its
//! signature (its visibility or `fn`, not its doc comments or attributes) to the line of
//! its closing brace. Functions a macro writes are not seen; a file that does not parse
//! fails the test rather than pass unread.

use std::path::Path;

use syn::spanned::Spanned;
use syn::visit::Visit;

mod common;
use common::{files_except, root};

/// Lines a function may run to without explaining itself.
const LIMIT: usize = 150;

/// How many functions may run longer, each saying why.
const ALLOWED: usize = 3;

/// What a function over [`LIMIT`] lines must open its explanation with.
const MARK: &str = "// One piece:";

/// One function: where it starts, what it is called, how many lines it spans.
#[derive(Debug, PartialEq)]
struct Function {
    line: usize,
    name: String,
    length: usize,
    /// Whether it carries a [`MARK`] comment above it or as its first line.
    explained: bool,
}

/// The functions of one parsed file, found with their source text at hand.
struct Lengths<'a> {
    lines: Vec<&'a str>,
    found: Vec<Function>,
}

impl Lengths<'_> {
    /// Records the function whose signature starts at `start` (a span's first token)
    /// and whose body is `block`.
    fn record(
        &mut self,
        attrs: &[syn::Attribute],
        start: proc_macro2::Span,
        name: &syn::Ident,
        block: &syn::Block,
    ) {
        let line = start.start().line;
        let close = block.brace_token.span.close().end().line;
        let open = block.brace_token.span.open().start().line;
        let first_attr = attrs
            .iter()
            .map(|a| a.span().start().line)
            .min()
            .unwrap_or(line);
        self.found.push(Function {
            line,
            name: name.to_string(),
            length: close + 1 - line,
            explained: self.marked_above(first_attr.min(line), line)
                || self.marked_first(open, close),
        });
    }

    /// The 1-based source line `n`, trimmed.
    fn text(&self, n: usize) -> &str {
        self.lines.get(n.wrapping_sub(1)).map_or("", |l| l.trim())
    }

    /// A [`MARK`] among the attribute lines `from..line`, or in the comments right above
    /// them (a run of `//` lines, ending at the first line that is not one).
    fn marked_above(&self, from: usize, line: usize) -> bool {
        if (from..line).any(|n| self.text(n).starts_with(MARK)) {
            return true;
        }
        let mut n = from;
        while n > 1 && self.text(n - 1).starts_with("//") {
            n -= 1;
            if self.text(n).starts_with(MARK) {
                return true;
            }
        }
        false
    }

    /// A [`MARK`] as the first non-blank line inside the body opened on line `open`.
    fn marked_first(&self, open: usize, close: usize) -> bool {
        (open + 1..close)
            .map(|n| self.text(n))
            .find(|t| !t.is_empty())
            .is_some_and(|t| t.starts_with(MARK))
    }
}

impl<'ast> Visit<'ast> for Lengths<'_> {
    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        let start = match &f.vis {
            syn::Visibility::Inherited => f.sig.span(),
            vis => vis.span(),
        };
        self.record(&f.attrs, start, &f.sig.ident, &f.block);
        syn::visit::visit_item_fn(self, f);
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        let start = match &f.vis {
            syn::Visibility::Inherited => f.sig.span(),
            vis => vis.span(),
        };
        self.record(&f.attrs, start, &f.sig.ident, &f.block);
        syn::visit::visit_impl_item_fn(self, f);
    }

    fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
        if let Some(block) = &f.default {
            self.record(&f.attrs, f.sig.span(), &f.sig.ident, block);
        }
        syn::visit::visit_trait_item_fn(self, f);
    }
}

/// The functions of a source file's text.
fn functions(source: &str) -> syn::Result<Vec<Function>> {
    let file = syn::parse_file(source)?;
    let mut lengths = Lengths {
        lines: source.lines().collect(),
        found: Vec::new(),
    };
    lengths.visit_file(&file);
    Ok(lengths.found)
}

/// Folders that hold no hand-written source: the generated crate, build output, and
/// the repository's own (`.git`, `.cargo`, ...).
fn skipped(root: &Path, dir: &Path) -> bool {
    let name = dir.file_name().map(|n| n.to_string_lossy().into_owned());
    let name = name.as_deref().unwrap_or("");
    name == "target" || name.starts_with('.') || dir == root.join("generated")
}

#[test]
fn at_most_three_functions_run_long_and_each_says_why() {
    let root = root();
    let mut list = Vec::new();
    files_except(&root, &|d| skipped(&root, d), &mut list);
    let mut long = Vec::new();
    let mut problems = Vec::new();
    for file in &list {
        let rel = file
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let source = std::fs::read_to_string(file).unwrap();
        match functions(&source) {
            Ok(found) => long.extend(
                found
                    .into_iter()
                    .filter(|f| f.length > LIMIT)
                    .map(|f| (rel.clone(), f)),
            ),
            Err(e) => problems.push(format!("{rel}: does not parse: {e}")),
        }
    }
    long.sort_by_key(|(_, f)| std::cmp::Reverse(f.length));
    for (file, f) in &long {
        let why = if f.explained {
            ""
        } else {
            "  (no `// One piece:` comment)"
        };
        println!("{file}:{} {} {}{why}", f.line, f.name, f.length);
    }
    if long.len() > ALLOWED {
        problems.push(format!(
            "{} functions run over {LIMIT} lines (at most {ALLOWED} may): {}",
            long.len(),
            long.iter()
                .map(|(file, f)| format!("{file}:{} {} ({})", f.line, f.name, f.length))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    for (file, f) in long.iter().filter(|(_, f)| !f.explained) {
        problems.push(format!(
            "{file}:{} {} runs {} lines without a `{MARK}` comment saying why",
            f.line, f.name, f.length
        ));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// A body of `n` statement lines, inside a function of `n + 2` lines.
fn body(n: usize) -> String {
    "    let _ = 0;\n".repeat(n)
}

/// The count runs from the signature to the closing brace, for every kind of function.
#[test]
fn lengths_are_counted_from_signature_to_closing_brace() {
    let source = format!(
        "/// Doc.\n#[inline]\npub fn free() {{\n{}}}\n\
         struct S;\nimpl S {{\n    fn method(&self) {{\n        fn nested() {{}}\n    }}\n}}\n\
         trait T {{\n    fn provided() {{\n{}    }}\n    fn required();\n}}\n",
        body(3),
        body(1),
    );
    let found = functions(&source).unwrap();
    let got: Vec<(usize, &str, usize)> = found
        .iter()
        .map(|f| (f.line, f.name.as_str(), f.length))
        .collect();
    assert_eq!(
        got,
        [
            (3, "free", 5),
            (10, "method", 3),
            (11, "nested", 1),
            (15, "provided", 3)
        ]
    );
}

/// A long function is explained by the mark above it (past its doc comments and
/// attributes) or as its first line, and by nothing else.
#[test]
fn the_mark_is_found_above_or_first_and_nowhere_else() {
    let above = format!(
        "// One piece: a table read top to bottom.\n/// Doc.\n#[allow(\n    dead_code\n)]\nfn a() {{\n{}}}\n",
        body(LIMIT)
    );
    let first = format!(
        "fn b() {{\n\n    // One piece: one match.\n{}}}\n",
        body(LIMIT)
    );
    let later = format!(
        "fn c() {{\n{}    // One piece: too late.\n}}\n",
        body(LIMIT)
    );
    let apart = format!(
        "// One piece: about something else.\n\nfn d() {{\n{}}}\n",
        body(LIMIT)
    );
    for (source, explained) in [(above, true), (first, true), (later, false), (apart, false)] {
        let found = functions(&source).unwrap();
        assert_eq!(found.len(), 1);
        assert!(found[0].length > LIMIT, "{source}");
        assert_eq!(found[0].explained, explained, "{source}");
    }
}
