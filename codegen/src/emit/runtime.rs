//! The runtime of the generated crate (`error.rs`, the `Client` part of `client.rs`, and
//! `penalty.rs`, `business.rs` and `encode.rs` when the spec needs them, and a server's
//! `server_runtime.rs`): copied as text from
//! `codegen/runtime/src`, where they are ordinary Rust that is compiled, linted and
//! tested as the `codegen-runtime` crate. Nothing here depends on the spec but which
//! parts are copied; the crate needs no support library.
//!
//! A runtime file marks a part that not every crate needs with a line `// @if NAME`
//! before it and `// @end` after it (regions may nest). [`reduce`] keeps the part when
//! [`Needs`] holds `NAME`, and drops the marker lines: a crate carries neither the
//! variants of an extension its spec does not declare (`x-penalty`, `x-business-error`)
//! nor a private helper none of its operations calls (which would fail
//! `clippy -D warnings`).

use std::collections::BTreeSet;

use super::File;
use crate::ir::{Api, Payload, StatusMatch};

/// `codegen/runtime/src/error.rs`: responses, errors, hooks, retries, decoders.
const ERROR: &str = include_str!("../../runtime/src/error.rs");
/// `codegen/runtime/src/client.rs`: the `Client`, its send path and token sources,
/// appended to the generated `client.rs` after the operations.
const CLIENT: &str = include_str!("../../runtime/src/client.rs");
/// `codegen/runtime/src/penalty.rs`: `x-penalty` answers and their resend.
const PENALTY: &str = include_str!("../../runtime/src/penalty.rs");
/// `codegen/runtime/src/business.rs`: `x-business-error` rejections.
const BUSINESS: &str = include_str!("../../runtime/src/business.rs");
/// `codegen/runtime/src/encode.rs`: percent-encoding and parameter styles.
const ENCODE: &str = include_str!("../../runtime/src/encode.rs");
/// `codegen/runtime/src/server.rs`: what a generated server reads and judges requests
/// with.
const SERVER: &str = include_str!("../../runtime/src/server.rs");

/// Every region name the runtime files may use but those of `encode.rs`
/// ([`ENCODE_NAMES`]), so that a misspelt one is caught by a test instead of silently
/// dropping code.
const NAMES: &[&str] = &[
    // server.rs: multipart bodies read into their parts (and `multer` a dependency).
    "multipart",
    // error.rs
    "answer",
    "business",
    "bytes",
    "captcha",
    "date_time",
    "date_time_list",
    "date_time_list_option",
    "date_time_optional",
    "date_time_required",
    "documented",
    "empty",
    "json",
    "only",
    "penalty",
    "success",
    "success_with",
    "text",
    "tolerant",
    "tolerant_default",
    "tolerant_item",
    "tolerant_list",
    "tolerant_list_option",
    "tolerant_null",
    "tolerant_optional",
    "tolerant_required",
    "undecodable",
    "unexpected",
    // client.rs
    "anonymous",
    "bearer",
    "credentials",
    "file_part",
    "json_part",
    "refreshing",
    "secret_fields",
    "server_path",
    // Never copied: what the runtime crate needs in place of the generated part.
    "workspace",
];

/// What a part of the runtime calls of another part.
const REQUIRES: &[(&str, &str)] = &[
    ("success", "undecodable"),
    ("success_with", "undecodable"),
    ("business", "undecodable"),
    ("documented", "undecodable"),
    ("only", "undecodable"),
    // The date-time readers share `DateTimeText`.
    ("date_time_required", "date_time"),
    ("date_time_optional", "date_time"),
    ("date_time_list", "date_time"),
    ("date_time_list_option", "date_time"),
    // The lenient readers share the `Lenient` scalars.
    ("tolerant_required", "tolerant"),
    ("tolerant_optional", "tolerant"),
    ("tolerant_default", "tolerant"),
    ("tolerant_list", "tolerant_item"),
    ("tolerant_list_option", "tolerant_item"),
    ("tolerant_item", "tolerant"),
    // A penalty's ticket goes back percent-encoded in a form body.
    ("penalty", "path"),
    ("object_style", "path"),
    ("object_style", "object_pairs"),
    ("joined_query", "path"),
    ("deep_list", "path"),
    ("object_query", "path"),
    ("object_query", "object_pairs"),
];

/// The parts of the runtime a crate needs: the region names [`reduce`] keeps.
#[derive(Debug, Default, Clone)]
pub struct Needs(BTreeSet<&'static str>);

impl Needs {
    /// What the operations of `api` need of `error.rs`, `penalty.rs` and `business.rs`.
    pub fn of(api: &Api) -> Self {
        let uses = Uses::of(api);
        let mut needs = Needs::default();
        for (name, used) in [
            ("answer", uses.any),
            ("json", uses.json),
            ("text", uses.text),
            ("bytes", uses.bytes),
            ("empty", uses.empty),
            ("success", uses.success),
            ("success_with", uses.success_with),
            ("business", uses.success_unless),
            ("documented", uses.documented),
            ("unexpected", uses.unexpected),
            ("only", uses.only),
            ("penalty", uses.penalty),
            ("captcha", uses.captcha),
        ] {
            if used {
                needs.add(name);
            }
        }
        let bearer = super::auth::bearer(api);
        for (name, used) in [
            ("credentials", super::auth::any(api)),
            ("anonymous", !super::auth::any(api)),
            ("bearer", bearer),
            ("refreshing", !super::auth::refreshing(api).is_empty()),
            ("server_path", api.server_path.is_some()),
            (
                "secret_fields",
                !super::client::secret_fields(api).is_empty(),
            ),
        ] {
            if used {
                needs.add(name);
            }
        }
        for part in super::multipart::runtime_parts(api) {
            needs.add(part);
        }
        for part in super::models::reader_parts(api) {
            needs.add(part);
        }
        needs
    }

    /// Adds a part (a helper of `encode.rs` that an operation calls), and the parts it
    /// calls itself.
    pub fn add(&mut self, name: &'static str) {
        debug_assert!(known(name), "unknown runtime part {name}");
        if self.0.insert(name) {
            for (_, called) in REQUIRES.iter().filter(|(part, _)| *part == name) {
                self.add(called);
            }
        }
    }

    fn has(&self, name: &str) -> bool {
        self.0.contains(name)
    }

    /// Whether `encode.rs` is copied: some helper of it is called.
    pub fn encode(&self) -> bool {
        ENCODE_NAMES.iter().any(|name| self.has(name))
    }

    /// The private modules beside `error.rs` that the crate holds, for `lib.rs`.
    pub fn modules(&self) -> Vec<&'static str> {
        let mut modules = Vec::new();
        if self.has("business") {
            modules.push("business");
        }
        if self.encode() {
            modules.push("encode");
        }
        if self.has("penalty") {
            modules.push("penalty");
        }
        modules
    }
}

/// Whether `name` is a region of some runtime file.
fn known(name: &str) -> bool {
    NAMES.contains(&name) || ENCODE_NAMES.contains(&name)
}

/// The parts of `encode.rs`.
const ENCODE_NAMES: &[&str] = &[
    "deep_list",
    "dots",
    "joined_query",
    "json_text",
    "label",
    "matrix",
    "object_pairs",
    "object_query",
    "object_style",
    "path",
];

/// The runtime files `needs` asks for, each under `header`.
pub fn files(needs: &Needs, header: &str) -> Vec<File> {
    let mut files = vec![("error.rs", ERROR)];
    if needs.has("business") {
        files.push(("business.rs", BUSINESS));
    }
    if needs.encode() {
        files.push(("encode.rs", ENCODE));
    }
    if needs.has("penalty") {
        files.push(("penalty.rs", PENALTY));
    }
    files
        .into_iter()
        .map(|(path, text)| File {
            path: path.to_owned(),
            contents: format!("{header}{}", reduce(text, needs)),
        })
        .collect()
}

/// The server runtime (`server_runtime.rs` of a crate with a server): its multipart
/// reader only where some operation takes a multipart body with named parts.
pub fn server(multipart: bool) -> String {
    let mut needs = Needs::default();
    if multipart {
        needs.add("multipart");
    }
    reduce(SERVER, &needs)
}

/// The runtime's part of `client.rs`, to follow the generated operations.
pub fn client_part(needs: &Needs) -> String {
    reduce(CLIENT, needs)
}

/// `text` without the regions `needs` does not hold and without the marker lines. A
/// blank line left at the start or end of a block, or beside another, is dropped too,
/// so the copy reads as if written that way.
fn reduce(text: &str, needs: &Needs) -> String {
    let mut kept: Vec<&str> = Vec::new();
    let mut open: Vec<bool> = Vec::new();
    for line in text.lines() {
        let marker = line.trim();
        if let Some(name) = marker.strip_prefix("// @if ") {
            open.push(needs.has(name.trim()));
        } else if marker == "// @end" {
            open.pop()
                .expect("`// @end` without `// @if` in a runtime file");
        } else if open.iter().all(|keep| *keep) {
            kept.push(line);
        }
    }
    assert!(
        open.is_empty(),
        "`// @if` without `// @end` in a runtime file"
    );
    let mut out = String::with_capacity(text.len());
    let mut previous = "";
    for (i, line) in kept.iter().enumerate() {
        if line.is_empty() {
            let next = kept[i + 1..].iter().find(|l| !l.is_empty());
            let closes = next.is_none_or(|l| l.trim_start().starts_with('}'));
            if previous.is_empty() || previous.ends_with('{') || closes {
                continue;
            }
        }
        out.push_str(line);
        out.push('\n');
        previous = line;
    }
    out
}

/// Which parts of the runtime the client's operations call or return, so that only those
/// are copied (an unused private helper would fail `clippy -D warnings` in the generated
/// crate).
#[derive(Default)]
struct Uses {
    any: bool,
    json: bool,
    text: bool,
    bytes: bool,
    empty: bool,
    success: bool,
    success_with: bool,
    success_unless: bool,
    documented: bool,
    unexpected: bool,
    only: bool,
    penalty: bool,
    captcha: bool,
}

impl Uses {
    fn of(api: &Api) -> Self {
        let mut uses = Uses::default();
        let with_twins = api.operations.iter().flat_map(|op| {
            std::iter::once(std::borrow::Cow::Borrowed(op)).chain(
                super::client::twins(op)
                    .into_iter()
                    .map(std::borrow::Cow::Owned),
            )
        });
        for op in with_twins {
            let op = op.as_ref();
            uses.any = true;
            uses.penalty |= op.penalty.is_some();
            uses.captcha |= op.penalty.as_ref().is_some_and(|p| p.captcha.is_some());
            for r in &op.responses {
                match r.payload {
                    Payload::None => uses.empty = true,
                    Payload::Json(_) => uses.json = true,
                    Payload::Text => uses.text = true,
                    Payload::Bytes => uses.bytes = true,
                }
                if !r.status.is_success() {
                    uses.documented = true;
                }
            }
            if super::client::simple_success(op).is_some() {
                uses.only = true;
                // The streaming twin's error path.
                uses.unexpected |= op.stream.is_some();
                continue;
            }
            let ok: Vec<_> = op
                .responses
                .iter()
                .filter(|r| r.status.is_success())
                .collect();
            match ok.as_slice() {
                [] => {}
                [one] if matches!(one.status, StatusMatch::Code(_)) => {
                    if op.business.is_empty() {
                        uses.success = true;
                    } else {
                        uses.success_unless = true;
                    }
                }
                _ => uses.success_with = true,
            }
            if !op
                .responses
                .iter()
                .any(|r| r.status == StatusMatch::Default)
            {
                uses.unexpected = true;
            }
        }
        uses
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every region of every runtime file is balanced and named in [`NAMES`].
    #[test]
    fn regions_are_balanced_and_known() {
        for text in [ERROR, CLIENT, PENALTY, BUSINESS, ENCODE, SERVER] {
            let mut depth = 0usize;
            for line in text.lines() {
                let line = line.trim();
                if let Some(name) = line.strip_prefix("// @if ") {
                    assert!(known(name.trim()), "unknown region {name}");
                    depth += 1;
                } else if line == "// @end" {
                    depth = depth.checked_sub(1).expect("`// @end` without `// @if`");
                } else {
                    assert!(!line.starts_with("// @"), "not a marker: {line}");
                }
            }
            assert_eq!(depth, 0);
        }
    }

    #[test]
    fn regions_are_kept_only_when_needed() {
        let text = "fn a() {\n    // @if json\n    json();\n    // @end\n\n    // @if text\n    text();\n    // @end\n}\n\n// @if penalty\nfn p() {}\n// @end\n\nfn b() {}\n";
        let mut needs = Needs::default();
        assert_eq!(reduce(text, &needs), "fn a() {\n}\n\nfn b() {}\n");
        needs.add("text");
        needs.add("penalty");
        assert_eq!(
            reduce(text, &needs),
            "fn a() {\n    text();\n}\n\nfn p() {}\n\nfn b() {}\n"
        );
    }

    /// A crate of a spec without extensions carries none of their variants or files.
    #[test]
    fn extensions_are_copied_only_when_declared() {
        let plain = files(&Needs::default(), "");
        assert_eq!(plain.len(), 1);
        for word in [
            "Penalty",
            "LoginRequired",
            "Business",
            "PenaltyShape",
            "@if",
            "@end",
        ] {
            assert!(!plain[0].contents.contains(word), "{word}");
        }
        let mut needs = Needs::default();
        for name in ["answer", "penalty", "captcha", "business", "path"] {
            needs.add(name);
        }
        let all = files(&needs, "");
        let names: Vec<&str> = all.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(
            names,
            ["error.rs", "business.rs", "encode.rs", "penalty.rs"]
        );
        for word in ["Error::Penalty", "Error::LoginRequired", "Error::Business"] {
            assert!(all[0].contents.contains(word), "{word}");
        }
    }
}
