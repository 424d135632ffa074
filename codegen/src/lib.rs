//! An OpenAPI 3.0/3.1 to Rust generator: models with serde and an async `reqwest`
//! client. Swagger 2.0 documents are read as their OpenAPI 3.0 equivalent (by
//! [`spec_model`], with a `swagger2` warning saying what became what).
//!
//! The pipeline runs one way: [`spec_model`] (the workspace's one spec reader) reads YAML
//! or JSON into typed spec structs,
//! [`lower`] resolves references, names, Rust types and parameter encodings into the
//! [`ir`], and [`emit`] prints the IR with `quote!` and `prettyplease`; what does not
//! depend on the spec (the generated crate's runtime) is ordinary Rust in
//! `codegen/runtime`, copied into each crate with the parts its spec needs. The generator
//! knows no API of its own; anything specific comes from the spec, as standard OpenAPI or
//! as `x-` extensions:
//!
//! - `x-secret: true` (or `format: password`, as Pydantic writes `SecretStr`) on a
//!   property: redacted in the model's `Debug` and masked in the body an error's
//!   `Display` shows.
//! - `x-combined-max-length` on an object schema: a limit on the summed lengths of
//!   several string fields, checked by the model's `validate()` and before sending.
//! - `x-length-unit` (document) and `unit` (rule): how lengths count (`unicode-scalar`
//!   by default, `utf-16`, `byte`).
//! - `x-level` / `x-decision` on a response, `x-alternate-encodings` on a parameter: noted
//!   in the rustdoc of the response variant and of the argument.
//!
//! ```no_run
//! let generated = codegen::generate_file(std::path::Path::new("spec/openapi.yaml"), "spec/openapi.yaml")?;
//! let report = codegen::sync(std::path::Path::new("generated/src"), &generated.files, codegen::Mode::Check)?;
//! assert!(report.is_clean());
//! # Ok::<(), codegen::Error>(())
//! ```

#![warn(missing_docs)]

pub mod emit;
mod error;
pub mod ir;
pub mod lower;
mod server_document;
pub mod warning;
mod write;

use std::path::Path;

pub use emit::File;
pub use emit::manifest::{CrateInfo, root_files};
pub use error::{Error, SpecError};
/// Naming rules shared with the conformance harness; kept at `codegen::names` for callers.
pub use spec_model::names;
pub use warning::{Warning, WarningKind};
pub use write::{GENERATED_MARKERS, Mode, SyncReport, sync};

/// The percent-encoding of a path segment, kept at `codegen::percent_encode` for the
/// emitters; it lives in [`spec_model::encode`] so the conformance harness shares it
/// without linking the generator.
pub use spec_model::encode::percent_encode;

/// What one generation produced: the files, and the problems it tolerated (each with the
/// pointer and line of its node) that a caller shows, or refuses with `--deny-warnings`.
#[derive(Debug)]
pub struct Generated {
    /// The crate's source files.
    pub files: Vec<File>,
    /// Tolerated problems, in spec order, each with its kind.
    pub warnings: Vec<Warning>,
    /// What the files need in the crate's `Cargo.toml` (see [`emit::manifest`]).
    pub dependencies: Vec<emit::manifest::Dependency>,
    /// The operations left out of the client (`operationId (METHOD /path)`), each also
    /// one of the warnings.
    pub left_out: Vec<String>,
    /// The usage example's code (the root rustdoc's doctest), for the README
    /// [`root_files`] writes; `None` without [`Options::crate_name`].
    pub example: Option<String>,
}

impl Generated {
    /// The line that closes a run's warnings: how many there were and, by name, every
    /// operation the client leaves out, so that none goes unnoticed among the rest.
    /// `None` when there is no warning.
    pub fn summary(&self) -> Option<String> {
        if self.warnings.is_empty() {
            return None;
        }
        let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
        let mut line = plural(self.warnings.len(), "warning");
        if !self.left_out.is_empty() {
            line.push_str(&format!(
                "; {} left out of the client: {}",
                plural(self.left_out.len(), "operation"),
                self.left_out.join(", ")
            ));
        }
        Some(line)
    }
}

impl Generated {
    /// The warnings whose kind is not in `allowed`: what `--deny-warnings` refuses the
    /// spec for when `--allow-warning` names `allowed`.
    pub fn denied(&self, allowed: &[WarningKind]) -> Vec<&Warning> {
        self.warnings
            .iter()
            .filter(|w| !allowed.contains(&w.kind))
            .collect()
    }
}

/// Choices of a generation run beyond the spec itself.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Read a schema `$ref` that points at nothing as any JSON value
    /// (`serde_json::Value`), with a warning each, instead of refusing the spec: to go on
    /// with a spec whose author has not fixed its references yet (`--dangling-refs-as-any`).
    pub dangling_refs_as_any: bool,
    /// Keep `format: date-time`, `date` and `uuid` strings as `String` instead of
    /// `chrono::DateTime<chrono::FixedOffset>`, `chrono::NaiveDate` and `uuid::Uuid`
    /// (`--string-formats`): for a server that sends values those types refuse (a
    /// date-time without its offset), or a crate that must not depend on `chrono` and
    /// `uuid`.
    pub string_formats: bool,
    /// Decode answers tolerantly (`--tolerant`): the models read the scalar mismatches
    /// real servers commonly make into the declared type where no data is lost (a
    /// number where a string is declared, as its decimal text; a string holding exactly
    /// an integer or a number where one is declared; `null` in a field with a default,
    /// as the default; a `format: date-time` without its UTC offset, as UTC, which
    /// assumes the server means UTC). Off by default: a strict client reports such a
    /// server at once (`Error::Decode` names the field, and for a date-time the value).
    pub tolerant: bool,
    /// The package name the crate is built under (`trading-api`): the usage example of
    /// the crate's root rustdoc (a doctest) names the crate by it, and
    /// [`Generated::example`] is made for it. `None` leaves the example out, since a
    /// doctest naming another crate would not compile (`cargo xtask codegen` always
    /// gives the name).
    pub crate_name: Option<String>,
    /// Generate the server half too (`--server`): a `server` module, behind the crate
    /// feature of that name, with a typed request and answer per operation, a
    /// `trait Api` and an axum `router` that judges every request against the spec.
    pub server: bool,
    /// Generate the server half alone (`--server-only`; implies [`Options::server`]): the
    /// models and the server, no client, so a service built on the crate compiles neither
    /// `reqwest` nor the client's runtime. The `server` feature is on by default there.
    pub server_only: bool,
}

/// Generates the crate's source files from spec text. `source_name` names the file in
/// error messages; `header_name` is how the `@generated` header names the spec.
pub fn generate_str(source_name: &str, text: &str, header_name: &str) -> Result<Generated, Error> {
    generate_str_with(source_name, text, header_name, &Options::default())
}

/// [`generate_str`] with [`Options`].
pub fn generate_str_with(
    source_name: &str,
    text: &str,
    header_name: &str,
    options: &Options,
) -> Result<Generated, Error> {
    let source = spec_model::Source {
        name: source_name.to_owned(),
        text: text.to_owned(),
    };
    let mut spec = spec_model::parse(&source)?;
    // What reading the document changed (a Swagger 2.0 conversion): warnings first.
    let read_notes: Vec<Warning<error::Located>> = std::mem::take(&mut spec.notes)
        .into_iter()
        .map(|problem| Warning {
            kind: WarningKind::Swagger2,
            problem,
        })
        .collect();
    let (freed_warnings, freed) = if options.dangling_refs_as_any {
        lower::free_dangling_schema_refs(&mut spec)
    } else {
        Default::default()
    };
    let (mut api, mut warnings) = lower::lower_with(&spec, options).map_err(|mut problems| {
        if problems.len() == 1 {
            Error::Spec(source.error(problems.remove(0)))
        } else {
            Error::Specs(source.errors(problems))
        }
    })?;
    if options.server || options.server_only {
        api.server_document = Some(server_document::text(&source)?.to_string());
    }
    if !freed.is_empty() {
        // The freed schema's own warning (untyped: nothing but its description is left)
        // says less than the reference's.
        warnings.retain(|w| {
            !(w.kind == WarningKind::UntypedSchema && freed.contains(&w.problem.pointer))
        });
        warnings.splice(0..0, freed_warnings);
    }
    warnings.splice(0..0, read_notes);
    // Locating the warnings in the text and freeing the parsed document need nothing
    // that printing does: they run beside it, on the core the smaller files leave idle.
    let (files, warnings) = std::thread::scope(|scope| {
        let located = scope.spawn(|| {
            drop(spec);
            let (kinds, located): (Vec<_>, Vec<_>) =
                warnings.into_iter().map(|w| (w.kind, w.problem)).unzip();
            source
                .errors(located)
                .into_iter()
                .zip(kinds)
                .map(|(problem, kind)| Warning { kind, problem })
                .collect::<Vec<_>>()
        });
        let files = emit::emit(&api, header_name);
        let warnings = located
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (files, warnings)
    });
    let files = files?;
    let dependencies = emit::manifest::dependencies(&api, &files);
    let example = api
        .crate_name
        .as_deref()
        .map(|name| emit::example::code(&api, &emit::example::lib_name(name)));
    Ok(Generated {
        files,
        warnings,
        dependencies,
        left_out: api.left_out,
        example,
    })
}

/// Generates the crate's source files from a spec file, with every other file its
/// `$ref`s name brought in ([`spec_model::bundle`]).
pub fn generate_file(path: &Path, header_name: &str) -> Result<Generated, Error> {
    let text = std::fs::read_to_string(path).map_err(|source| Error::Read {
        path: path.to_owned(),
        source,
    })?;
    let source = spec_model::bundle::bundle(
        path,
        spec_model::Source {
            name: path.display().to_string(),
            text,
        },
    )?;
    generate_str(&source.name, &source.text, header_name)
}
