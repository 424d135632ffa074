//! The names `Client` keeps for itself are one list, [`codegen::names::CLIENT_METHODS`],
//! that lowering reserves before it names operations. This test keeps the list honest:
//! it parses the client of every focused spec and of the project's own spec, and every
//! method of an `impl … Client` block that is neither an operation method nor a
//! credential accessor of a scheme must be in the list. A helper added to the emitter
//! without adding it there fails here, before an operationId of that name breaks a crate.
//! (A request builder's private `send_<operation>` is the exception: the emitter picks
//! its name around every method of the client.)

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Every spec whose client is checked: the focused specs (warning specs included) and
/// `spec/openapi.yaml`.
fn specs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = vec![root.join("../spec/openapi.yaml")];
    for dir in ["tests/specs", "tests/specs/warn"] {
        let mut found: Vec<PathBuf> = std::fs::read_dir(root.join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_file())
            .collect();
        found.sort();
        out.extend(found);
    }
    out
}

/// Names of the methods of the `impl` blocks (inherent or of a trait) for `Client`.
fn client_impl_methods(client_rs: &str) -> BTreeSet<String> {
    let file = syn::parse_file(client_rs).unwrap();
    let mut out = BTreeSet::new();
    for item in file.items {
        let syn::Item::Impl(block) = item else {
            continue;
        };
        let syn::Type::Path(ty) = &*block.self_ty else {
            continue;
        };
        if !ty.path.is_ident("Client") {
            continue;
        }
        for member in block.items {
            if let syn::ImplItem::Fn(f) = member {
                out.insert(f.sig.ident.to_string());
            }
        }
    }
    out
}

#[test]
fn client_methods_are_reserved() {
    let reserved: BTreeSet<&str> = codegen::names::CLIENT_METHODS.iter().copied().collect();
    let mut seen_fixed = BTreeSet::new();
    for path in specs() {
        let text = std::fs::read_to_string(&path).unwrap();
        let name = path.display().to_string();
        let source = spec_model::Source {
            name: name.clone(),
            text: text.clone(),
        };
        let spec = spec_model::parse(&source).unwrap();
        let (api, _) = codegen::lower::lower(&spec).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        let mut own: BTreeSet<String> = BTreeSet::new();
        for op in &api.operations {
            own.insert(op.name.clone());
            own.extend(op.other_bodies.iter().map(|(n, _)| n.clone()));
            own.extend(op.stream.clone());
            own.extend(op.negotiated.iter().map(|n| n.name.clone()));
        }
        for scheme in &api.schemes {
            own.extend(codegen::names::credential_accessors(&scheme.stem));
        }
        for op in &own {
            assert!(
                !reserved.contains(op.as_str()),
                "{name}: `{op}` is an operation or accessor named like a client method"
            );
        }
        let generated = codegen::generate_str(&name, &text, &name).unwrap();
        let client = &generated
            .files
            .iter()
            .find(|f| f.path == "client.rs")
            .unwrap()
            .contents;
        for method in client_impl_methods(client) {
            if own.contains(&method) {
                continue;
            }
            // The private method a request builder's `send` calls (`send_<operation>`):
            // the emitter names it around every method name, adding `_` on a clash.
            if method
                .strip_prefix("send_")
                .is_some_and(|rest| own.contains(rest.trim_end_matches('_')))
            {
                continue;
            }
            assert!(
                reserved.contains(method.as_str()),
                "{name}: `Client::{method}` is a method of the client that \
                 codegen::names::CLIENT_METHODS does not reserve, so an operationId \
                 `{method}` would clash with it"
            );
            seen_fixed.insert(method);
        }
    }
    // A name no spec's client prints is likely stale; `clone_from` is `Clone`'s provided
    // method, there without being printed.
    let unseen: Vec<&&str> = reserved
        .iter()
        .filter(|r| !seen_fixed.contains(**r) && **r != "clone_from")
        .collect();
    assert!(unseen.is_empty(), "reserved but never emitted: {unseen:?}");
}

/// The hygiene spec names operations after the client's methods: each gets a suffix
/// instead of a duplicate method (the compile test proves the crate builds).
#[test]
fn operations_named_like_client_methods_take_a_suffix() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/specs/hygiene.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    let generated = codegen::generate_str("hygiene.yaml", &text, "hygiene.yaml").unwrap();
    let client = &generated
        .files
        .iter()
        .find(|f| f.path == "client.rs")
        .unwrap()
        .contents;
    for name in [
        "send2",
        "new2",
        "clone2",
        "builder2",
        "timeout2",
        "exchange2",
        "fmt2",
    ] {
        assert!(client.contains(&format!("pub async fn {name}(")), "{name}");
    }
    // `Send` follows `send2`; its twins carry its name.
    assert!(client.contains("pub async fn send3("));
    assert!(client.contains("pub async fn send3_text("));
    assert!(client.contains("pub async fn send3_stream("));
    // An operation took `set_auth`: the scheme's accessors take the next free stem.
    assert!(client.contains("pub async fn set_auth("));
    assert!(client.contains("pub fn set_auth2(&self"));
}
