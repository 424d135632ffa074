//! The house has floors: no file of a crate imports, through any chain of others, a file
//! that imports it back. Each crate's `src/` is read with `syn`; a file's imports are the
//! `crate::`, `super::` and `self::` paths of its `use` items and of its code (and the
//! plain paths a module gives its own children), each going to the file of the longest
//! module path it names: an item the crate root defines goes to the root file, a name the
//! root re-exports goes to the file it comes from. A module naming what lies below it (a
//! `mod.rs` re-exporting its children, the root wiring its modules) lays out its own
//! rooms and is not counted; its children naming it are. Circles are the strongly
//! connected parts of that graph. A `#[cfg(test)]` module's paths are not counted: tests
//! may reach anywhere.
//!
//! A ratchet: the circles the house still has are listed in [`KNOWN`] with their size; a
//! new circle, or a known one that grows, fails the test, and a known one that shrinks or
//! goes asks for the list to be lowered, so it only ever goes down.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use syn::visit::Visit;

mod common;
use common::{files, root};

/// The circles the house still has: the crate's folder, the file the circle is named by
/// (its first in path order), and how many files it holds.
const KNOWN: &[(&str, &str, usize)] = &[];

const CRATES: &[&str] = &[
    "spec",
    "codegen",
    "codegen/runtime",
    "spec-diff",
    "generated",
    "conformance",
    "conformance/reference-server",
    "conformance/values",
    "conformance/mock",
    "xtask",
];

/// The module path of a file of `src/`: `a/b.rs` and `a/b/mod.rs` are `["a", "b"]`, the
/// root (`lib.rs`, else `main.rs`) is `[]`.
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap();
    let mut parts: Vec<String> = rel
        .iter()
        .map(|s| s.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().unwrap();
    match last.as_str() {
        "mod.rs" | "lib.rs" | "main.rs" if parts.is_empty() || last == "mod.rs" => {}
        other => parts.push(other.trim_end_matches(".rs").to_string()),
    }
    parts
}

/// The paths a file names, as module-relative segment lists, `crate::` resolved.
struct Paths<'a> {
    here: &'a [String],
    /// The modules declared under this one, which its code may name without `self::`.
    children: BTreeSet<String>,
    found: Vec<Vec<String>>,
}

impl Paths<'_> {
    /// `segments` as an absolute module path, when it starts at `crate`, `super` or `self`.
    fn absolute(&self, segments: &[String]) -> Option<Vec<String>> {
        let mut base: Vec<String> = self.here.to_vec();
        let mut rest = segments;
        match rest.first().map(String::as_str) {
            Some("crate") => {
                base.clear();
                rest = &rest[1..];
            }
            Some("super") => {
                while rest.first().map(String::as_str) == Some("super") {
                    base.pop();
                    rest = &rest[1..];
                }
            }
            Some("self") => rest = &rest[1..],
            Some(first) if self.children.contains(first) => {}
            _ => return None,
        }
        base.extend(rest.iter().cloned());
        Some(base)
    }

    fn tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.tree(prefix, &p.tree);
                prefix.pop();
            }
            syn::UseTree::Name(n) => {
                let mut full = prefix.clone();
                if n.ident != "self" {
                    full.push(n.ident.to_string());
                }
                self.push(&full);
            }
            syn::UseTree::Rename(r) => {
                let mut full = prefix.clone();
                full.push(r.ident.to_string());
                self.push(&full);
            }
            syn::UseTree::Glob(_) => self.push(&prefix.clone()),
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    self.tree(prefix, t);
                }
            }
        }
    }

    fn push(&mut self, segments: &[String]) {
        if let Some(abs) = self.absolute(segments) {
            self.found.push(abs);
        }
    }
}

impl<'ast> Visit<'ast> for Paths<'_> {
    /// A file's tests may reach anywhere in the crate: `#[cfg(test)]` code is not a floor.
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        let test_only = m.attrs.iter().any(|a| {
            a.path().is_ident("cfg") && a.parse_args::<syn::Ident>().is_ok_and(|i| i == "test")
        });
        if !test_only {
            syn::visit::visit_item_mod(self, m);
        }
    }

    /// `pub(crate)` and `pub(super)` say who may see an item, not what it uses.
    fn visit_visibility(&mut self, _: &'ast syn::Visibility) {}

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        self.tree(&mut Vec::new(), &u.tree);
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        let segments: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
        self.push(&segments);
        syn::visit::visit_path(self, p);
    }
}

/// The names of the modules declared directly under `module`.
fn children_of(modules: &BTreeMap<Vec<String>, usize>, module: &[String]) -> BTreeSet<String> {
    modules
        .keys()
        .filter(|m| m.len() == module.len() + 1 && m.starts_with(module))
        .map(|m| m[module.len()].clone())
        .collect()
}

/// One crate's files and the imports between them.
struct Graph {
    files: Vec<PathBuf>,
    edges: BTreeMap<usize, BTreeSet<usize>>,
}

fn graph(krate: &Path) -> Graph {
    let src = krate.join("src");
    let mut list = Vec::new();
    files(&src, &mut list);
    // A crate with a library: its binary root is another crate.
    if src.join("lib.rs").exists() {
        list.retain(|f| f != &src.join("main.rs") && !f.starts_with(src.join("bin")));
    }
    let modules: BTreeMap<Vec<String>, usize> = list
        .iter()
        .enumerate()
        .map(|(i, f)| (module_of(&src, f), i))
        .collect();
    let parsed: Vec<Option<syn::File>> = list
        .iter()
        .map(|f| syn::parse_file(&std::fs::read_to_string(f).unwrap()).ok())
        .collect();
    // What the root defines, and what it re-exports from where.
    let root = modules.get(&Vec::new()).copied();
    let mut defined = BTreeSet::new();
    let mut reexported: BTreeMap<String, Vec<String>> = BTreeMap::new();
    if let Some(Some(file)) = root.map(|r| &parsed[r]) {
        for item in &file.items {
            let name = match item {
                syn::Item::Fn(i) => Some(i.sig.ident.to_string()),
                syn::Item::Struct(i) => Some(i.ident.to_string()),
                syn::Item::Enum(i) => Some(i.ident.to_string()),
                syn::Item::Const(i) => Some(i.ident.to_string()),
                syn::Item::Static(i) => Some(i.ident.to_string()),
                syn::Item::Type(i) => Some(i.ident.to_string()),
                syn::Item::Trait(i) => Some(i.ident.to_string()),
                syn::Item::Use(u) => {
                    let mut p = Paths {
                        here: &[],
                        children: children_of(&modules, &[]),
                        found: Vec::new(),
                    };
                    p.tree(&mut Vec::new(), &u.tree);
                    for target in p.found {
                        if let Some(last) = target.last() {
                            reexported.insert(last.clone(), target.clone());
                        }
                    }
                    None
                }
                _ => None,
            };
            defined.extend(name);
        }
    }
    let mut edges: BTreeMap<usize, BTreeSet<usize>> = BTreeMap::new();
    for (i, file) in list.iter().enumerate() {
        let Some(ast) = &parsed[i] else { continue };
        let here = module_of(&src, file);
        let mut paths = Paths {
            here: &here,
            children: children_of(&modules, &here),
            found: Vec::new(),
        };
        paths.visit_file(ast);
        for target in paths.found {
            // An item of the root: the root when it defines it, the file it comes from
            // when it re-exports it.
            let target = match target.as_slice() {
                [_] if modules.contains_key(&target) => target,
                [one] if defined.contains(one) => Vec::new(),
                [one] => match reexported.get(one) {
                    Some(from) => from.clone(),
                    None => continue,
                },
                _ => target,
            };
            // The file of the longest module path named; a path that names no module below
            // the root is an item of the root only when the root defines it (above).
            let to = (0..=target.len())
                .rev()
                .find_map(|n| modules.get(&target[..n]).map(|to| (n, *to)));
            // A module naming what lies below it (`mod.rs` re-exporting its children, the
            // root wiring its modules) is a folder laying out its own rooms, not an import.
            let below = |to: usize| {
                let m = module_of(&src, &list[to]);
                m.len() > here.len() && m.starts_with(&here)
            };
            if let Some((n, to)) = to
                && to != i
                && (n > 0 || target.is_empty())
                && !below(to)
            {
                edges.entry(i).or_default().insert(to);
            }
        }
    }
    Graph { files: list, edges }
}

/// The strongly connected parts of more than one file (Tarjan's algorithm).
fn circles(g: &Graph) -> Vec<Vec<usize>> {
    struct State<'a> {
        g: &'a Graph,
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    fn visit(s: &mut State<'_>, v: usize) {
        s.index[v] = Some(s.next);
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on[v] = true;
        let next: Vec<usize> = s.g.edges.get(&v).into_iter().flatten().copied().collect();
        for w in next {
            match s.index[w] {
                None => {
                    visit(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(iw) if s.on[w] => s.low[v] = s.low[v].min(iw),
                Some(_) => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut part = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on[w] = false;
                part.push(w);
                if w == v {
                    break;
                }
            }
            if part.len() > 1 {
                part.sort();
                s.out.push(part);
            }
        }
    }
    let n = g.files.len();
    let mut s = State {
        g,
        index: vec![None; n],
        low: vec![0; n],
        on: vec![false; n],
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if s.index[v].is_none() {
            visit(&mut s, v);
        }
    }
    s.out
}

#[test]
fn no_crate_has_an_import_circle_beyond_the_known_ones() {
    let mut problems = Vec::new();
    let mut seen = BTreeSet::new();
    for krate in CRATES {
        let dir = root().join(krate);
        let src = dir.join("src");
        let g = graph(&dir);
        for part in circles(&g) {
            let names: Vec<String> = part
                .iter()
                .map(|i| {
                    g.files[*i]
                        .strip_prefix(&src)
                        .unwrap()
                        .to_string_lossy()
                        .into_owned()
                })
                .collect();
            let known = KNOWN.iter().find(|(k, first, _)| {
                k == krate && names.first().map(String::as_str) == Some(first)
            });
            match known {
                Some((_, first, size)) => {
                    seen.insert((*krate, *first));
                    if names.len() > *size {
                        problems.push(format!(
                            "{krate}: the circle of {first} grew from {size} to {} files: {}",
                            names.len(),
                            names.join(", ")
                        ));
                    } else if names.len() < *size {
                        problems.push(format!(
                            "{krate}: the circle of {first} shrank to {} files: lower KNOWN",
                            names.len()
                        ));
                    }
                }
                None => problems.push(format!(
                    "{krate}: a new import circle of {} files: {}",
                    names.len(),
                    names.join(", ")
                )),
            }
        }
    }
    for (krate, first, _) in KNOWN {
        if !seen.contains(&(*krate, *first)) {
            problems.push(format!(
                "{krate}: the circle of {first} is gone: take it out of KNOWN"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The reading finds a circle it is shown, and none where there is none.
#[test]
fn a_circle_of_two_files_is_found() {
    let dir = tempfile_dir();
    let src = dir.join("src");
    std::fs::create_dir_all(src.join("b")).unwrap();
    std::fs::write(src.join("lib.rs"), "mod a;\nmod b;\npub struct Shared;\n").unwrap();
    std::fs::write(
        src.join("a.rs"),
        "use crate::b::c::f;\npub fn g() { f() }\n",
    )
    .unwrap();
    std::fs::write(src.join("b/mod.rs"), "pub mod c;\n").unwrap();
    std::fs::write(
        src.join("b/c.rs"),
        "use crate::Shared;\npub(crate) fn f() { let _ = Shared; }\npub(super) fn h() {}\n",
    )
    .unwrap();
    // The root's own item, and visibilities naming `crate` and `super`: no import back.
    assert!(circles(&graph(&dir)).is_empty());
    std::fs::write(src.join("b/c.rs"), "pub fn f() { super::super::a::g() }\n").unwrap();
    assert_eq!(circles(&graph(&dir)).len(), 1);
    // A module imported by its name alone is the same import.
    std::fs::write(src.join("b/c.rs"), "use crate::a;\npub fn f() { a::g() }\n").unwrap();
    let g = graph(&dir);
    let found: Vec<Vec<String>> = circles(&g)
        .into_iter()
        .map(|p| {
            p.iter()
                .map(|i| {
                    g.files[*i]
                        .strip_prefix(&src)
                        .unwrap()
                        .to_string_lossy()
                        .into_owned()
                })
                .collect()
        })
        .collect();
    assert_eq!(found, [["a.rs", "b/c.rs"]]);
    std::fs::remove_dir_all(&dir).ok();
}

fn tempfile_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("imports-test-{}", std::process::id()));
    std::fs::remove_dir_all(&dir).ok();
    dir
}
