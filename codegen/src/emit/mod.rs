//! Emitting: the IR becomes Rust tokens (`quote!`), then formatted text (`prettyplease`).
//!
//! Each output file is built as a token stream, parsed a few items at a time (which also
//! proves the tokens are valid Rust) and pretty-printed (see `render.rs`); the two large
//! files are cut into parts that every core emits and prints (`parallel.rs`); the
//! `@generated` header is put on top afterwards because the printer drops comments.
//! [`emit_pieces`] gives the same files cut into items and not printed, for a comparison
//! of two generated crates (`spec-diff`), which needs their tokens, not their layout.

mod auth;
mod builders;
mod checks;
mod client;
mod docs;
pub mod example;
pub mod json_calls;
mod lib_rs;
pub mod manifest;
mod models;
mod multipart;
mod object_reads;
mod parallel;
mod render;
mod requests;
mod runtime;
mod server;
mod types;

pub use models::JSON_FALLBACK_DOCS;

use proc_macro2::TokenStream;

use crate::error::Error;
use crate::ir::Api;

/// The line of a generated `client.rs` after which the text is the runtime's (the
/// `Client`, its send path and token sources), the same in every crate but for the
/// parts its spec needs.
pub const RUNTIME_CLIENT: &str = "// The client runtime: the same in every generated crate, but for the parts its spec needs.\n\n";

/// One generated file: path relative to the crate's `src/`, and its full text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct File {
    /// File name under `src/` (`models.rs`).
    pub path: String,
    /// The complete contents.
    pub contents: String,
}

/// One generated file before printing, as [`render::pieces`] cuts it: each piece is the
/// unformatted text of one top-level item (or of one member of an `impl`, inside its
/// header) and parses as a file on its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pieces {
    /// File name under `src/`, as in [`File`].
    pub path: String,
    /// The file's items, in order.
    pub pieces: Vec<String>,
}

/// The files of [`emit`], unprinted and without the header: what a comparison of two
/// generated crates reads (`spec-diff`), at a fraction of the cost of printing them.
/// Holds the same files as [`emit`] (a test keeps the two lists in step).
pub fn emit_pieces(api: &Api) -> Vec<Pieces> {
    let (client, parts) = client::emit(api);
    let mut needs = runtime::Needs::of(api);
    for part in parts {
        needs.add(part);
    }
    // The runtime is Rust text copied in (its parts the spec needs): cut the same way once
    // read as tokens. It is the workspace's own code, compiled there, so it parses.
    let of_text = |text: &str| -> Vec<String> {
        text.parse::<TokenStream>()
            .map(render::pieces)
            .unwrap_or_default()
    };
    let mut client = render::pieces(client);
    client.extend(of_text(&runtime::client_part(&needs)));
    let mut out = vec![
        Pieces {
            path: "lib.rs".to_owned(),
            pieces: render::pieces(lib_rs::emit(api, &needs.modules())),
        },
        Pieces {
            path: "models.rs".to_owned(),
            pieces: render::pieces(models::emit(api)),
        },
    ];
    if api.client {
        out.push(Pieces {
            path: "client.rs".to_owned(),
            pieces: client,
        });
        out.extend(runtime::files(&needs, "").into_iter().map(|f| Pieces {
            pieces: of_text(&f.contents),
            path: f.path,
        }));
    }
    if let Some(document) = &api.server_document {
        let has = has_schema(document);
        out.push(Pieces {
            path: "server.rs".to_owned(),
            pieces: render::pieces(server::emit(api, &*has)),
        });
        for f in server_files(document, server::reads_forms(api), "") {
            out.push(Pieces {
                pieces: vec![f.contents],
                path: f.path,
            });
        }
    }
    out
}

/// Whether a schema pointer is a node of the server's document.
fn has_schema(document: &str) -> Box<dyn Fn(&str) -> bool> {
    let doc: serde_json::Value = serde_json::from_str(document).unwrap_or_default();
    Box::new(move |pointer: &str| doc.pointer(pointer).is_some())
}

/// The server's files that are not printed from tokens: its runtime (with its multipart
/// reader when `multipart`) and its document.
fn server_files(document: &str, multipart: bool, header: &str) -> Vec<File> {
    // As many `#` as the longest run after a `"` in the text, plus one, so the raw string
    // cannot end early.
    let mut hashes = 1;
    for (i, _) in document.match_indices('"') {
        let run = document[i + 1..].bytes().take_while(|b| *b == b'#').count();
        hashes = hashes.max(run + 1);
    }
    let fence = "#".repeat(hashes);
    vec![
        File {
            path: "server_runtime.rs".to_owned(),
            contents: format!("{header}{}", runtime::server(multipart)),
        },
        File {
            path: "server_document.rs".to_owned(),
            contents: format!(
                "{header}//! The spec's schemas as JSON Schema 2020-12: what the server judges requests against.\n\n\
                 /// The document's JSON text.\n\
                 pub(crate) const DOCUMENT: &str = r{fence}\"{document}\"{fence};\n"
            ),
        },
    ]
}

/// Prints every file of the generated crate. `spec_name` is how the header names the
/// spec (`spec/openapi.yaml`).
pub fn emit(api: &Api, spec_name: &str) -> Result<Vec<File>, Error> {
    let header =
        format!("// @generated by `cargo xtask codegen` from {spec_name}. Do not edit.\n\n");
    let file = |path: &str, text: String| File {
        path: path.to_owned(),
        contents: format!("{header}{text}"),
    };
    let parts = parallel::print(api)?;
    let mut needs = runtime::Needs::of(api);
    for part in &parts.client_runtime {
        needs.add(part);
    }
    let mut client = parts.client;
    client.push('\n');
    client.push_str(RUNTIME_CLIENT);
    client.push_str(&runtime::client_part(&needs));
    let lib = render::render("lib.rs", lib_rs::emit(api, &needs.modules()))?;
    let mut files = vec![file("lib.rs", lib), file("models.rs", parts.models)];
    // A server-only crate: the client was printed beside the models (the parts share the
    // threads) and is left out here, with its runtime.
    if api.client {
        files.push(file("client.rs", client));
        files.extend(runtime::files(&needs, &header));
    }
    if let Some(document) = &api.server_document {
        let has = has_schema(document);
        files.push(file(
            "server.rs",
            render::render("server.rs", server::emit(api, &*has))?,
        ));
        files.extend(server_files(document, server::reads_forms(api), &header));
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_are_the_printed_files_unprinted() {
        let text = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/specs/security.yaml"),
        )
        .unwrap();
        let source = spec_model::Source {
            name: "security.yaml".into(),
            text,
        };
        let api = crate::lower::lower(&spec_model::parse(&source).unwrap())
            .unwrap()
            .0;
        let printed = emit(&api, "x").unwrap();
        let pieces = emit_pieces(&api);
        let paths = |p: Vec<&str>| p.join(" ");
        assert_eq!(
            paths(printed.iter().map(|f| f.path.as_str()).collect()),
            paths(pieces.iter().map(|f| f.path.as_str()).collect()),
            "emit_pieces must hold the files emit prints"
        );
        for file in &pieces {
            for piece in &file.pieces {
                syn::parse_file(piece).unwrap_or_else(|e| {
                    panic!("{}: {e}: a piece must parse alone: {piece}", file.path)
                });
            }
        }
        let client = &pieces
            .iter()
            .find(|f| f.path == "client.rs")
            .unwrap()
            .pieces;
        assert!(
            client
                .iter()
                .filter(|p| p.contains("impl Client {"))
                .count()
                > 1,
            "the client's methods are pieces of their own"
        );
    }
}
