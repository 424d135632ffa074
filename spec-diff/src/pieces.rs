//! Which parts of two generated crates to read for their public items.
//!
//! Reading the public API of a whole crate is most of a comparison's time on a large spec,
//! and most of a large crate is the same on both sides. The crates are compared as the
//! generator's unprinted pieces ([`codegen::emit::emit_pieces`]: each top-level item, each
//! member of an `impl` inside its header, as token text): a piece with the same text has
//! the same public items on both sides, so only the pieces found on one side alone are
//! parsed. Printing the crates (`prettyplease`) is skipped altogether: the text users
//! read is not what the comparison needs, and a test checks that the pieces of a crate
//! hold the public items of its printed files.

use std::collections::{HashMap, HashSet};

use codegen::emit::Pieces;

use crate::surface::{self, Public, Surface};

/// The public items of the pieces of `old` and `new` that differ (per side), and of the
/// pieces that name a type a differing alias points at (on both sides), so that an enum
/// that became an alias of an identical one is still seen through it.
pub(crate) fn surfaces(old: &[Pieces], new: &[Pieces]) -> Result<(Surface, Surface), String> {
    let mut paths: Vec<&str> = old.iter().chain(new).map(|f| f.path.as_str()).collect();
    paths.sort_unstable();
    paths.dedup();
    let (mut a, mut b) = (Surface::new(), Surface::new());
    for path in paths {
        let (pa, pb) = (of(old, path), of(new, path));
        if pa == pb {
            continue;
        }
        let (only_a, only_b, shared) = split(pa, pb);
        let read = |pieces: &[&str]| surface::surface(pieces.iter().map(|p| (path, *p)));
        let (sa, sb) = (read(&only_a)?, read(&only_b)?);
        let targets: HashSet<&str> = sa
            .values()
            .chain(sb.values())
            .filter_map(plain_alias)
            .collect();
        let named: Vec<&str> = match targets.is_empty() {
            true => Vec::new(),
            false => shared
                .into_iter()
                .filter(|p| identifiers(p).any(|word| targets.contains(word)))
                .collect(),
        };
        // The same text on both sides: read once.
        let named = read(&named)?;
        a.extend(sa);
        a.extend(named.clone());
        b.extend(sb);
        b.extend(named);
    }
    Ok((a, b))
}

/// The pieces of the file at `path` (none when the crate has no such file).
fn of<'a>(files: &'a [Pieces], path: &str) -> &'a [String] {
    files
        .iter()
        .find(|f| f.path == path)
        .map_or(&[], |f| f.pieces.as_slice())
}

/// The pieces only in `a`, only in `b`, and in both (as sets: the order of the pieces
/// does not matter, each is read for its own items). Each piece is hashed once.
fn split<'a>(a: &'a [String], b: &'a [String]) -> (Vec<&'a str>, Vec<&'a str>, Vec<&'a str>) {
    let mut index: HashMap<&str, usize> = HashMap::with_capacity(b.len());
    // The index of each piece of `b`'s first copy, so a copy is matched as the first is.
    let first: Vec<usize> = b
        .iter()
        .enumerate()
        .map(|(i, p)| *index.entry(p.as_str()).or_insert(i))
        .collect();
    let mut matched = vec![false; b.len()];
    let (mut only_a, mut shared) = (Vec::new(), Vec::new());
    for piece in a {
        match index.get(piece.as_str()) {
            Some(&i) => {
                matched[i] = true;
                shared.push(piece.as_str());
            }
            None => only_a.push(piece.as_str()),
        }
    }
    let only_b = b
        .iter()
        .zip(first)
        .filter(|(_, i)| !matched[*i])
        .map(|(p, _)| p.as_str())
        .collect();
    (only_a, only_b, shared)
}

/// The identifiers (and numbers) in a piece's text.
fn identifiers(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
}

/// The target of an alias when it is a plain name (`pub type E = BadRequest;`).
fn plain_alias(item: &Public) -> Option<&str> {
    let Public::Alias(target) = item else {
        return None;
    };
    (!target.is_empty() && target.chars().all(|c| c.is_alphanumeric() || c == '_'))
        .then_some(target.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(pieces: &[&str]) -> Vec<Pieces> {
        vec![Pieces {
            path: "client.rs".into(),
            pieces: pieces.iter().map(|p| p.to_string()).collect(),
        }]
    }

    #[test]
    fn only_differing_pieces_and_alias_targets_are_read() {
        let old = file(&[
            "pub struct Client ;",
            "impl Client { pub fn a (& self) { } }",
            "pub enum GetPetError { NotFound }",
            "pub enum NoDocumentedError { NotFound }",
            "impl std :: fmt :: Debug for NoDocumentedError { }",
        ]);
        let new = file(&[
            "pub struct Client ;",
            "impl Client { pub fn a (& self , x : u32) { } }",
            "pub type GetPetError = NoDocumentedError ;",
            "pub enum NoDocumentedError { NotFound }",
            "impl std :: fmt :: Debug for NoDocumentedError { }",
        ]);
        let (a, b) = surfaces(&old, &new).unwrap();
        assert!(!a.contains_key("client::Client") && !b.contains_key("client::Client"));
        assert!(a.contains_key("client::Client::a") && b.contains_key("client::Client::a"));
        for side in [&a, &b] {
            assert!(side.contains_key("client::NoDocumentedError"), "{side:?}");
            assert!(side.contains_key("impl Debug for client::NoDocumentedError"));
        }
        assert_eq!(surfaces(&old, &old).unwrap(), Default::default());
    }

    /// The whole surface of a spec's crate, read from its printed files and from its
    /// pieces.
    fn both_ways(path: &std::path::Path) -> (Surface, Surface) {
        let source = spec_model::Source {
            name: path.display().to_string(),
            text: std::fs::read_to_string(path).unwrap(),
        };
        let spec = spec_model::parse(&source).unwrap();
        let api = codegen::lower::lower(&spec).unwrap().0;
        let printed = codegen::emit::emit(&api, "x").unwrap();
        let printed = surface::surface(
            printed
                .iter()
                .map(|f| (f.path.as_str(), f.contents.as_str())),
        );
        let pieces = codegen::emit::emit_pieces(&api);
        let pieces = surface::surface(
            pieces
                .iter()
                .flat_map(|f| f.pieces.iter().map(|p| (f.path.as_str(), p.as_str()))),
        );
        (printed.unwrap(), pieces.unwrap())
    }

    #[test]
    fn pieces_hold_the_public_items_of_the_printed_crate() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut specs = vec![
            root.join("codegen/tests/corpus/buildomat.json"),
            root.join("codegen/tests/corpus/keeper.json"),
            root.join("spec/openapi.yaml"),
        ];
        for pair in std::fs::read_dir(root.join("spec-diff/tests/pairs")).unwrap() {
            let pair = pair.unwrap().path();
            specs.extend([pair.join("old.yaml"), pair.join("new.yaml")]);
        }
        for spec in specs {
            let (printed, pieces) = both_ways(&spec);
            assert!(!printed.is_empty());
            let differ: Vec<_> = printed
                .iter()
                .filter(|(k, v)| pieces.get(*k) != Some(v))
                .map(|(k, v)| format!("{k}: {v:?} / {:?}", pieces.get(k)))
                .chain(
                    pieces
                        .keys()
                        .filter(|k| !printed.contains_key(*k))
                        .map(|k| format!("{k}: only in the pieces")),
                )
                .collect();
            assert!(
                differ.is_empty(),
                "{}:\n{}",
                spec.display(),
                differ.join("\n")
            );
        }
    }

    #[test]
    fn pieces_are_split_as_sets() {
        let list = |l: &[&str]| l.iter().map(|p| p.to_string()).collect::<Vec<_>>();
        let (a, b) = (list(&["x", "y", "z"]), list(&["z", "w", "w", "x"]));
        let (only_a, only_b, shared) = split(&a, &b);
        assert_eq!(
            (only_a, only_b, shared),
            (vec!["y"], vec!["w", "w"], vec!["x", "z"])
        );
        let words: Vec<&str> = identifiers("impl Debug for Vec < BadRequest > { }").collect();
        assert_eq!(words, ["impl", "Debug", "for", "Vec", "BadRequest"]);
    }
}
