//! Lowering: the typed spec becomes the IR of [`crate::ir`].
//!
//! All decisions happen here: which schema becomes which Rust type and under what name,
//! where a `$ref` leads, how a parameter is encoded, which responses are successes.
//! Problems are reported with the JSON pointer of the node at fault.

mod business;
mod examples;
mod formats;
mod merged;
mod multipart;
mod operation;
mod pattern;
mod prose;
mod refs;
mod schema;
mod security;
mod status;
mod union;

pub use refs::free_dangling_schema_refs;
pub(crate) use schema::inner_named;

use indexmap::IndexMap;

use crate::error::{Located, push_pointer};
use crate::ir::{Api, LengthUnit, TypeDef};
use crate::names::{Scope, pascal};
use crate::warning::{Warning, WarningKind};
use spec_model::model::{OpenApi, Text};

/// Lowers a parsed spec into the IR. Problems that still allow a correct client (a node
/// the generator tolerates or leaves out) come back as warnings beside the IR, each with
/// the kind its site gave it; problems that make a correct client impossible are the
/// error: every `$ref` that points at nothing (all of them, found first), else the first
/// other problem met.
pub fn lower(spec: &OpenApi) -> Result<(Api, Vec<Warning<Located>>), Vec<Located>> {
    lower_with(spec, &crate::Options::default())
}

/// [`lower`] with the choices of [`crate::Options`] that bear on the IR
/// ([`crate::Options::string_formats`]).
///
/// The walk for dangling references reads the whole document and decides nothing the
/// lowering needs, so it runs on a second thread beside it (the lowering is on the one
/// core the printing waits for); its finding still comes first, the lowering's result
/// thrown away, as when it ran before the lowering. The lowering reads a dangling
/// reference as an error of its own; were it to panic on such a document, the panic is
/// not raised when the walk has found one (the panic hook would still print it: no
/// document of the tests, the dangling ones among them, makes it panic).
pub fn lower_with(
    spec: &OpenApi,
    options: &crate::Options,
) -> Result<(Api, Vec<Warning<Located>>), Vec<Located>> {
    std::thread::scope(|scope| {
        let dangling = scope.spawn(|| refs::dangling(spec));
        let lowered = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            lower_resolved(spec, options)
        }));
        let dangling = dangling
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        if !dangling.is_empty() {
            return Err(dangling);
        }
        lowered
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            .map_err(|problem| vec![problem])
    })
}

/// [`lower`] once every reference is known to lead somewhere.
fn lower_resolved(
    spec: &OpenApi,
    options: &crate::Options,
) -> Result<(Api, Vec<Warning<Located>>), Located> {
    let unit = match spec.length_unit.as_deref() {
        None => LengthUnit::Scalar,
        Some(u) => parse_unit(u)
            .ok_or_else(|| Located::new("/x-length-unit", format!("unknown length unit `{u}`")))?,
    };
    let mut lowerer = Lowerer {
        spec,
        unit,
        type_names: TypeNames::default(),
        journal: Journal::default(),
        components: IndexMap::new(),
        types: Vec::new(),
        warnings: Vec::new(),
        absorbed: std::collections::BTreeSet::new(),
        absorbed_emitted: std::collections::BTreeSet::new(),
        tagged_branches: std::collections::BTreeMap::new(),
        inline_types: std::collections::HashMap::new(),
        inline_in_progress: std::collections::HashMap::new(),
        inline_titles: std::collections::HashMap::new(),
        refs_in_progress: std::collections::HashSet::new(),
        merged: std::collections::BTreeMap::new(),
        left_out: Vec::new(),
        string_formats: options.string_formats,
        server: options.server,
    };
    // Names the generated modules use themselves: a schema of that name gets a suffix
    // rather than shadowing them.
    for reserved in RESERVED_TYPE_NAMES {
        lowerer.type_names.claim((*reserved).to_owned());
    }
    for key in spec.components.schemas.keys() {
        let name = lowerer.type_names.claim(pascal(key));
        lowerer.components.insert(key.clone(), name);
    }
    lowerer.absorbed = lowerer.absorbed_components()?;
    lowerer.check_prose();
    for (key, schema) in &spec.components.schemas {
        if lowerer.absorbed.contains(key) {
            continue;
        }
        let pointer = push_pointer("/components/schemas", key);
        let name = lowerer.components[key].clone();
        lowerer.component(&name, schema, &pointer)?;
    }
    let server_path = lowerer.server_path();
    let (operations, schemes) = lowerer.operations()?;
    let left_out = std::mem::take(&mut lowerer.left_out);
    let mut operations = operations;
    let mut types = std::mem::take(&mut lowerer.types);
    merged::name(&mut lowerer, &mut types, &mut operations);
    schema::box_cycles(&mut types);
    if !options.server_only {
        // `validate` checks a request before the client sends it: a server-only crate
        // judges requests by the spec's schemas instead.
        schema::mark_validating(&mut types);
    }
    schema::mark_request(&mut types, &operations);
    let api = Api {
        doc: crate_doc(spec, !options.server_only),
        types,
        operations,
        schemes,
        left_out,
        server_path,
        tolerant: options.tolerant,
        server_url: absolute_server(spec),
        crate_name: options.crate_name.clone(),
        server_document: None,
        client: !options.server_only,
        components: lowerer.components.into_iter().collect(),
    };
    Ok((api, lowerer.warnings))
}

/// The first server's URL when it is an absolute `http(s)` URL without `{variables}`.
fn absolute_server(spec: &OpenApi) -> Option<String> {
    let url = spec.servers.first()?.url.as_ref()?.as_str()?;
    let absolute = url.starts_with("https://") || url.starts_with("http://");
    (absolute && !url.contains(['{', '}', '"', '\\']) && !url.chars().any(char::is_whitespace))
        .then(|| url.trim_end_matches('/').to_owned())
}

/// Names the models module must not shadow: the whole Rust 2021 prelude (the emitted
/// code names `From`, `Into`, `Default`, `Option` and others unqualified, and a user's
/// hand-written impls in the same crate may name any of them), the derives, and the
/// helper types the models module defines itself.
const RESERVED_TYPE_NAMES: &[&str] = &[
    // Types and variants of the prelude.
    "Option",
    "Some",
    "None",
    "Result",
    "Ok",
    "Err",
    "String",
    "Vec",
    "Box",
    // Traits of the prelude (and the derives of the same name).
    "AsMut",
    "AsRef",
    "Clone",
    "Copy",
    "Debug",
    "Default",
    "DoubleEndedIterator",
    "Drop",
    "Eq",
    "ExactSizeIterator",
    "Extend",
    "Fn",
    "FnMut",
    "FnOnce",
    "From",
    "FromIterator",
    "Hash",
    "Into",
    "IntoIterator",
    "Iterator",
    "Ord",
    "PartialEq",
    "PartialOrd",
    "Send",
    "Sized",
    "Sync",
    "ToOwned",
    "ToString",
    "TryFrom",
    "TryInto",
    "Unpin",
    // Defined by the generated crate itself.
    "Redacted",
    "FilePart",
    "Self_",
];

/// Reads an `x-length-unit` / `unit` value.
fn parse_unit(unit: &str) -> Option<LengthUnit> {
    match unit {
        "unicode-scalar" | "code-point" | "char" => Some(LengthUnit::Scalar),
        "utf-16" | "utf16" => Some(LengthUnit::Utf16),
        "byte" | "utf-8" | "utf8" => Some(LengthUnit::Byte),
        _ => None,
    }
}

/// The crate's rustdoc: title, version and description of the API; `client`: whether the
/// crate has its client (else its server alone).
fn crate_doc(spec: &OpenApi, client: bool) -> String {
    let info = &spec.info;
    let mut doc = format!(
        "{} (version {}): models and {}.",
        info.title.as_ref().and_then(Text::as_str).unwrap_or("API"),
        info.version.as_deref().unwrap_or("unknown"),
        if client {
            "async client"
        } else {
            "axum server"
        }
    );
    for prose in [&info.summary, &info.description] {
        if let Some(text) = prose.as_ref().and_then(Text::as_str) {
            doc.push_str("\n\n");
            doc.push_str(text.trim());
        }
    }
    doc
}

/// The lowerer's type names: a [`Scope`], and every name claimed in it, in order, so that
/// the names a dropped lowering claimed can be given back (see [`Journal`]).
#[derive(Default)]
struct TypeNames {
    scope: Scope,
    claimed: Vec<String>,
}

impl TypeNames {
    /// [`Scope::claim`], kept in the order of claims.
    fn claim(&mut self, name: String) -> String {
        let name = self.scope.claim(name);
        self.claimed.push(name.clone());
        name
    }
}

/// What the lowering added, insertion by insertion, to the caches a repeated inline
/// schema's copy must not keep (see `Lowerer::ty`): the copy is lowered for its own
/// warnings, then everything it added is taken out again. Each of these caches only
/// gains keys it did not hold, so taking out the keys added after a [`Mark`] leaves it
/// as it was at the mark; cloning the caches to put them back (what this replaces) was a
/// tenth of the lowering on Prefect's spec, the copies being many and the caches large.
#[derive(Default)]
struct Journal {
    absorbed_emitted: Vec<String>,
    tagged_branches: Vec<(String, String)>,
    inline_types: Vec<schema::InlineKey>,
    inline_titles: Vec<String>,
}

/// How long each cache's journal was (and how many types there were) at some point.
struct Mark {
    names: usize,
    types: usize,
    absorbed_emitted: usize,
    tagged_branches: usize,
    inline_types: usize,
    inline_titles: usize,
}

impl Lowerer<'_> {
    /// Where the caches stand now.
    fn mark(&self) -> Mark {
        Mark {
            names: self.type_names.claimed.len(),
            types: self.types.len(),
            absorbed_emitted: self.journal.absorbed_emitted.len(),
            tagged_branches: self.journal.tagged_branches.len(),
            inline_types: self.journal.inline_types.len(),
            inline_titles: self.journal.inline_titles.len(),
        }
    }

    /// Takes out of the caches everything added since `mark`, and the types made since.
    fn roll_back(&mut self, mark: &Mark) {
        for name in self.type_names.claimed.drain(mark.names..) {
            self.type_names.scope.release(&name);
        }
        self.types.truncate(mark.types);
        for key in self.journal.absorbed_emitted.drain(mark.absorbed_emitted..) {
            self.absorbed_emitted.remove(&key);
        }
        for key in self.journal.tagged_branches.drain(mark.tagged_branches..) {
            self.tagged_branches.remove(&key);
        }
        for key in self.journal.inline_types.drain(mark.inline_types..) {
            self.inline_types.remove(&key);
        }
        for key in self.journal.inline_titles.drain(mark.inline_titles..) {
            self.inline_titles.remove(&key);
        }
    }
}

/// Lowering state: the spec, the names handed out and the types made so far.
struct Lowerer<'a> {
    spec: &'a OpenApi,
    unit: LengthUnit,
    type_names: TypeNames,
    /// The insertions into the caches below, for [`Lowerer::roll_back`].
    journal: Journal,
    components: IndexMap<String, String>,
    types: Vec<TypeDef>,
    /// Tolerated problems, each at its node with its kind: reported, never silently
    /// dropped.
    warnings: Vec<Warning<Located>>,
    /// Components emitted only as a tagged union's variant (without the tag), under
    /// their own name, because nothing else references them.
    absorbed: std::collections::BTreeSet<String>,
    /// Absorbed components already emitted (or being emitted): a component that holds the
    /// very union it is a branch of (Prefect's compound trigger lists triggers) reaches
    /// its own branch again while its fields are lowered.
    absorbed_emitted: std::collections::BTreeSet<String>,
    /// The struct each `$ref` branch of a tagged union became without its tag, by
    /// (reference, tag): named before its fields are lowered, so that a branch whose fields
    /// hold the same union again reuses it instead of lowering itself forever.
    tagged_branches: std::collections::BTreeMap<(String, String), String>,
    /// The type each inline schema that makes a named type became, by its structure
    /// ([`schema::inline_key`]): an identical inline schema met again is that type, so a
    /// value read in one place can be written in the other.
    inline_types: std::collections::HashMap<schema::InlineKey, (crate::ir::Ty, bool)>,
    /// The pointers of the schemas reached by a `$ref` to no component (see `ref_ty`)
    /// being lowered: one met again is a cycle.
    refs_in_progress: std::collections::HashSet<String>,
    /// The `title` of the inline schema each inline type was made from, by type name: a
    /// merged type's name (see `merged`).
    inline_titles: std::collections::HashMap<String, Option<String>>,
    /// The inline types met again as an identical schema elsewhere, by type name, with
    /// the names those other places would have given their own type (claimed for the
    /// aliases, in spec order; see `merged`).
    merged: std::collections::BTreeMap<String, Vec<String>>,
    /// The inline structs whose fields are being lowered, by their place: an inline schema
    /// that holds itself again (through a `$ref` in its `allOf`) is met at the same place.
    inline_in_progress: std::collections::HashMap<String, String>,
    /// Operations left out of the client, for the summary (see [`Api::left_out`]).
    left_out: Vec<String>,
    /// `date-time`, `date` and `uuid` strings stay `String` ([`crate::Options`]).
    string_formats: bool,
    /// [`crate::Options::server`]: the answers' headers are lowered (the server writes
    /// them; the client reads none of its own).
    server: bool,
}

impl Lowerer<'_> {
    /// The path of the first server when its URL is relative (`/api`, `v1`, `./api`), its
    /// `{variables}` replaced by their defaults: an application served under a prefix
    /// (FastAPI's `root_path`) writes it so, and the user gives the host. An absolute URL
    /// (`https://api.example.com/v1`) names a host the user may not want, so the base URL
    /// the user gives stays whole, as before. One that cannot be used (a variable without
    /// a default, a query) is a warning.
    fn server_path(&mut self) -> Option<String> {
        let server = self.spec.servers.first()?;
        let url = server.url.as_ref()?;
        let Some(url) = url.as_str() else {
            self.warn(
                WarningKind::ServerUrl,
                "/servers/0/url",
                "not a string; the server is not used",
            );
            return None;
        };
        if url.contains("://") || url.starts_with("//") {
            return None;
        }
        let mut path = String::new();
        let mut rest = url;
        while let Some(open) = rest.find('{') {
            path.push_str(&rest[..open]);
            let Some(close) = rest[open..].find('}').map(|c| open + c) else {
                self.warn(
                    WarningKind::ServerUrl,
                    "/servers/0/url",
                    "unclosed `{` in the server URL; it is not used",
                );
                return None;
            };
            let name = &rest[open + 1..close];
            match server
                .variables
                .get(name)
                .and_then(|v| v.default.as_ref())
                .and_then(Text::as_str)
            {
                Some(value) => path.push_str(value),
                None => {
                    self.warn(
                        WarningKind::ServerUrl,
                        "/servers/0/url",
                        format!(
                            "server variable `{name}` has no `default`; the relative server \
                             URL is not joined to the base URL"
                        ),
                    );
                    return None;
                }
            }
            rest = &rest[close + 1..];
        }
        path.push_str(rest);
        if path.contains(['?', '#']) {
            self.warn(
                WarningKind::ServerUrl,
                "/servers/0/url",
                "a relative server URL with a query or fragment is not joined to the base URL",
            );
            return None;
        }
        let path = path.trim_start_matches("./").trim_matches('/');
        if path.split('/').any(|segment| matches!(segment, "." | "..")) {
            self.warn(
                WarningKind::ServerUrl,
                "/servers/0/url",
                "a relative server URL with a `.` or `..` segment is not joined to the base URL",
            );
            return None;
        }
        (!path.is_empty()).then(|| format!("/{path}"))
    }

    /// Notes a tolerated problem of `kind` at `pointer`, once (a shared node, such as a
    /// component parameter, is met by every operation that uses it).
    fn warn(&mut self, kind: WarningKind, pointer: impl Into<String>, message: impl Into<String>) {
        let warning = Located::new(pointer, message);
        if !self
            .warnings
            .iter()
            .any(|w| w.problem.pointer == warning.pointer && w.problem.message == warning.message)
        {
            self.warnings.push(Warning {
                kind,
                problem: warning,
            });
        }
    }
}
