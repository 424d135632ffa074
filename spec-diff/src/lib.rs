//! What changed between two versions of an OpenAPI spec, said three ways at once: on the
//! wire (which requests existing clients send may now be refused, which answers they may
//! no longer read, and whether the clients this generator emits read through it), in the
//! public API of the Rust crate `cargo xtask codegen` emits (major, minor or patch under
//! Cargo's semver rules, and the version the crate should get), and in the project's own
//! decisions (a MUST loosened, a decision row changed).
//!
//! Both specs are read by [`spec_model`], the generator's reader, so whatever the
//! generator reads can be compared, OpenAPI 3.0 against 3.1 included. The Rust verdict
//! comes from generating both crates with [`codegen`] and comparing their public items
//! ([`surface`]). Every finding is made under a rule of [`rules::RULES`].
//!
//! This is a crate of its own, not a module of codegen: it is a user of the generator
//! (it runs it twice), and the generator has no reason to know about comparisons; xtask
//! only reads files and prints.

#![warn(missing_docs)]

mod decisions;
pub mod finding;
pub mod ignore;
mod pieces;
mod probe;
mod reads;
pub mod render;
pub mod rules;
mod shape;
pub mod surface;
mod wire;

use std::collections::HashMap;

use serde::Serialize;
use spec_model::Source;

pub use finding::Finding;
pub use ignore::Ignore;
use rules::{Kind, Level, Semver};

/// What the comparison needs besides the two specs.
#[derive(Debug, Clone)]
pub struct Options {
    /// The version of the crate generated from the old spec (codegen writes `0.1.0`).
    pub crate_version: String,
    /// Known changes accepted with a reason.
    pub ignore: Ignore,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            crate_version: "0.1.0".to_owned(),
            ignore: Ignore::default(),
        }
    }
}

/// Why no comparison could be made.
#[derive(Debug)]
pub enum Error {
    /// A spec could not be read (the spec model refused it).
    Spec(spec_model::SpecError),
    /// The generator could not make a crate of a spec, so its Rust API is unknown.
    Generate(String),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Spec(e) => write!(f, "{e}"),
            Error::Generate(e) => write!(f, "cannot generate the crate: {e}"),
        }
    }
}

impl std::error::Error for Error {}

/// One side of the comparison.
#[derive(Debug, Clone, Serialize)]
pub struct Side {
    /// The file as named on the command line.
    pub name: String,
    /// `openapi`.
    pub openapi: String,
    /// `info.version`.
    pub version: Option<String>,
}

/// The verdict on the generated crate.
#[derive(Debug, Clone, Serialize)]
pub struct RustVerdict {
    /// The largest change (`None`: the emitted code is the same).
    pub bump: Option<Semver>,
    /// The crate's version before.
    pub current: String,
    /// The version it should get.
    pub next: String,
    /// Why the generated crates could not be compared (a spec the generator refuses): the
    /// wire and the decisions are still judged, the Rust side is not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unjudged: Option<String>,
}

/// Everything found.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// The old spec.
    pub old: Side,
    /// The new spec.
    pub new: Side,
    /// The Rust verdict.
    pub rust: RustVerdict,
    /// Every change, in the order found (wire, Rust, decisions, version).
    pub findings: Vec<Finding>,
    /// `--ignore` entries that accepted nothing (stale: remove them).
    pub unused_ignores: Vec<ignore::Entry>,
}

/// Which findings make `--fail-on` exit 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailOn {
    /// A wire change at level ERR.
    Wire,
    /// A major change of the generated crate.
    Major,
    /// A major or minor change of the generated crate.
    Minor,
    /// A decision of the project loosened, tightened or changed, or a rule of it changed
    /// or removed.
    Decision,
}

impl Report {
    /// Findings not accepted by the ignore file.
    pub fn active(&self) -> impl Iterator<Item = &Finding> {
        self.findings.iter().filter(|f| f.ignored.is_none())
    }

    /// The active findings that trip `on`.
    pub fn failing(&self, on: FailOn) -> Vec<&Finding> {
        self.active()
            .filter(|f| match on {
                FailOn::Wire => f.kind == Kind::Wire && f.level == Level::Err,
                FailOn::Major => f.rust == Some(Semver::Major),
                FailOn::Minor => matches!(f.rust, Some(Semver::Major | Semver::Minor)),
                // A new rule only adds a check; every other decision change is one a
                // reviewer of the project's decisions signs off.
                FailOn::Decision => f.kind == Kind::Decision && f.rule != "project-rule-added",
            })
            .collect()
    }
}

/// A generated crate's public API, and which operation each method and type belongs to.
struct Crate {
    /// The crate's files, unprinted ([`codegen::emit::emit_pieces`]): to find what
    /// differs, and to tell a patch change from none.
    files: Vec<codegen::emit::Pieces>,
    /// Method name or type prefix to operation label.
    owners: HashMap<String, String>,
    /// Rust type name to component schema key.
    schemas: HashMap<String, String>,
    /// The IR the files were emitted from: the old crate's types decide whether its
    /// clients read the new answers ([`reads`]).
    api: codegen::ir::Api,
}

fn generate(source: &Source, spec: &spec_model::model::OpenApi) -> Result<Crate, Error> {
    // Every problem the generator found (all the dangling `$ref`s, not just the first).
    let (api, _) = codegen::lower::lower(spec).map_err(|all| {
        Error::Generate(
            all.into_iter()
                .map(|l| source.error(l).to_string())
                .collect::<Vec<_>>()
                .join("\n"),
        )
    })?;
    // Unprinted: printing is most of the generator's time, and the comparison reads
    // tokens, not layout.
    let files = codegen::emit::emit_pieces(&api);
    let mut owners = HashMap::new();
    for op in &api.operations {
        let label = format!(
            "{} {}",
            format!("{:?}", op.method).to_uppercase(),
            op.path_template
        );
        owners.insert(op.name.clone(), label.clone());
        for (name, _) in &op.other_bodies {
            owners.insert(name.clone(), label.clone());
        }
        if let Some(stream) = &op.stream {
            owners.insert(stream.clone(), label.clone());
        }
        for twin in &op.negotiated {
            owners.insert(twin.name.clone(), label.clone());
        }
        owners.insert(format!("type:{}", op.type_prefix), label);
    }
    let schemas = spec
        .components
        .schemas
        .keys()
        .map(|k| (codegen::names::pascal(k), k.clone()))
        .collect();
    Ok(Crate {
        files,
        owners,
        schemas,
        api,
    })
}

/// Compares two specs.
pub fn diff(old: &Source, new: &Source, options: &Options) -> Result<Report, Error> {
    let (old_side, new_side) = std::thread::scope(|scope| {
        let a = scope.spawn(|| read(old));
        let b = read(new);
        let a = a.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
        (a, b)
    });
    let (old_spec, old_value, old_crate) = old_side?;
    let (new_spec, new_value, new_crate) = new_side?;
    let unjudged = match (&old_crate, &new_crate) {
        (Err(e), _) => Some(format!(
            "the crate of {} cannot be generated: {e}",
            old.name
        )),
        (_, Err(e)) => Some(format!(
            "the crate of {} cannot be generated: {e}",
            new.name
        )),
        _ => None,
    };
    // The Rust comparison reads the crates, the others the specs: they run side by side,
    // and the crates are dropped on the Rust comparison's thread when it is done. Each
    // kind of finding has rules of its own, so the three lists are joined as found.
    let (rust, wire, decisions) = std::thread::scope(|scope| {
        let rust = scope.spawn(|| match (&old_crate, &new_crate) {
            (Ok(a), Ok(b)) => rust_changes(a, b),
            _ => Ok(finding::Findings::default()),
        });
        let mut wire = finding::Findings::default();
        let renames = wire::diff(&old_spec, &new_spec, &old_value, &new_value, &mut wire);
        if let Ok(old) = &old_crate {
            let reader = reads::Reader::new(&old.api);
            wire.judge(|f, at| reader.reads_through(f, at));
        }
        let mut decisions = finding::Findings::default();
        decisions::diff(&old_value, &new_value, &mut decisions);
        let rust = rust.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
        (rust.map(|r| (r, renames)), wire, decisions)
    });
    let (rust, renames) = rust?;
    let mut rust = rust.into_vec();
    if let (Ok(a), Ok(b)) = (&old_crate, &new_crate) {
        renamed_models(&mut rust, &renames, a, b);
    }
    let mut list = wire.into_vec();
    list.extend(rust);
    list.extend(decisions.into_vec());
    let unused_ignores = options.ignore.apply(&mut list);
    let side = |source: &Source, spec: &spec_model::model::OpenApi| Side {
        name: source.name.clone(),
        openapi: spec.openapi.clone().unwrap_or_default(),
        version: spec.info.version.clone(),
    };
    let (old_side, new_side) = (side(old, &old_spec), side(new, &new_spec));
    version_check(&old_side, &new_side, &mut list);
    let bump = list
        .iter()
        .filter(|f| f.ignored.is_none())
        .filter_map(|f| f.rust)
        .min();
    let rust = RustVerdict {
        bump,
        next: next_version(&options.crate_version, bump),
        current: options.crate_version.clone(),
        unjudged,
    };
    Ok(Report {
        old: old_side,
        new: new_side,
        rust,
        findings: list,
        unused_ignores,
    })
}

/// A side as read: its model, its tree, and its crate or why the generator refused it
/// (the wire needs only the document).
type Read = (
    spec_model::model::OpenApi,
    serde_json::Value,
    Result<Crate, String>,
);

fn read(source: &Source) -> Result<Read, Error> {
    let spec = spec_model::parse(source).map_err(Error::Spec)?;
    let value = spec_model::to_value(source).map_err(Error::Spec)?;
    let generated = generate(source, &spec).map_err(|e| match e {
        Error::Generate(why) => why,
        other => other.to_string(),
    });
    Ok((spec, value, generated))
}

/// The Rust findings: the public items of what differs between the two crates
/// ([`pieces::surfaces`]), compared.
fn rust_changes(old: &Crate, new: &Crate) -> Result<finding::Findings, Error> {
    let (a, b) = pieces::surfaces(&old.files, &new.files)
        .map_err(|e| Error::Generate(format!("emitted code does not parse: {e}")))?;
    let mut findings = finding::Findings::default();
    let changes = surface::compare(&a, &b);
    if changes.is_empty() {
        if old.files != new.files {
            findings.add(
                "rust-docs-or-private-changed",
                None,
                None,
                "crate",
                "the emitted code changed, its public API did not".into(),
            );
        }
        return Ok(findings);
    }
    for (rule, path, message) in changes {
        let (operation, schema) = owner(&path, new)
            .or_else(|| owner(&path, old))
            .unwrap_or_default();
        let subject = schema.unwrap_or_else(|| item_type(&path));
        findings.add(rule, operation.as_deref(), Some(&subject), &path, message);
    }
    Ok(findings)
}

/// A model removed and one added whose schemas the wire comparison paired (a component
/// renamed: `X` met where `X-Input` now is) is one rename, whatever changed inside it (the
/// wire findings name that). Identical twins are already renames ([`surface`]); this
/// pairs the compatible ones.
fn renamed_models(
    list: &mut Vec<Finding>,
    renames: &std::collections::BTreeSet<(String, String)>,
    old: &Crate,
    new: &Crate,
) {
    let model = |c: &Crate, key: &str| {
        c.api
            .components
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, name)| format!("models::{name}"))
    };
    for (a, b) in renames {
        let (Some(from), Some(to)) = (model(old, a), model(new, b)) else {
            continue;
        };
        let removed = list
            .iter()
            .position(|f| f.rule == "rust-item-removed" && f.pointer == from);
        let added = list
            .iter()
            .position(|f| f.rule == "rust-item-added" && f.pointer == to);
        let (Some(r), Some(_)) = (removed, added) else {
            continue;
        };
        let kind = list[r]
            .message
            .split(' ')
            .next()
            .unwrap_or("type")
            .to_owned();
        let rule = rules::rule("rust-item-renamed");
        list[r].rule = rule.name;
        list[r].message = format!(
            "{kind} `{from}` was renamed `{to}` (schema `{a}` became `{b}`; the wire findings say what changed in it)"
        );
        list.retain(|f| !(f.rule == "rust-item-added" && f.pointer == to));
    }
}

/// The type an item path is about (`models::Pet` for `models::Pet::name` and for
/// `impl Debug for models::Pet`).
fn item_type(path: &str) -> String {
    let item = path.rsplit(" for ").next().unwrap_or(path);
    let segments: Vec<&str> = item.split("::").collect();
    segments[..segments.len().min(2)].join("::")
}

/// The operation and component schema a Rust item belongs to, when one can be named.
fn owner(path: &str, c: &Crate) -> Option<(Option<String>, Option<String>)> {
    // `impl Trait for models::Name` is about `models::Name`.
    let item = path.rsplit(" for ").next().unwrap_or(path);
    let segments: Vec<&str> = item.split("::").map(str::trim).collect();
    let (module, rest) = segments.split_first()?;
    let type_name = rest.first().copied().unwrap_or(module);
    if type_name == "Client" {
        let method = rest.get(1)?;
        return c.owners.get(*method).map(|op| (Some(op.clone()), None));
    }
    let schema = c.schemas.get(type_name).cloned();
    let operation = c
        .owners
        .iter()
        .filter_map(|(k, v)| k.strip_prefix("type:").map(|p| (p, v)))
        .filter(|(prefix, _)| type_name.starts_with(prefix))
        .max_by_key(|(prefix, _)| prefix.len())
        .map(|(_, v)| v.clone());
    (schema.is_some() || operation.is_some()).then_some((operation, schema))
}

/// The leading number of a version (`2` of `2.1.0`, `v2`).
fn major(version: &str) -> Option<u64> {
    let digits: String = version
        .trim_start_matches(['v', 'V'])
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

fn version_check(old: &Side, new: &Side, findings: &mut Vec<Finding>) {
    let breaking = findings
        .iter()
        .filter(|f| f.ignored.is_none() && f.kind == Kind::Wire && f.level == Level::Err)
        .count();
    if breaking == 0 {
        return;
    }
    let (a, b) = (old.version.as_deref(), new.version.as_deref());
    let message = match (a.and_then(major), b.and_then(major)) {
        (Some(x), Some(y)) if y > x => return,
        (Some(_), Some(_)) => format!(
            "{breaking} breaking wire change(s), and info.version went from {} to {} without a major bump",
            a.unwrap_or_default(),
            b.unwrap_or_default()
        ),
        _ => format!(
            "{breaking} breaking wire change(s), and info.version ({} to {}) cannot be read as a version to check for a major bump",
            a.unwrap_or("none"),
            b.unwrap_or("none")
        ),
    };
    let mut list = finding::Findings::default();
    list.add(
        "api-version-not-bumped",
        None,
        None,
        "/info/version",
        message,
    );
    findings.extend(list.into_vec());
}

/// The version a crate at `current` should get for a change of `bump` (Cargo's rules:
/// in `0.y.z` the `y` is the major number).
pub fn next_version(current: &str, bump: Option<Semver>) -> String {
    let parts: Vec<u64> = current
        .split('.')
        .map(|p| p.parse().unwrap_or(0))
        .chain(std::iter::repeat(0))
        .take(3)
        .collect();
    let (a, b, c) = (parts[0], parts[1], parts[2]);
    let v = match (bump, a) {
        (None, _) => (a, b, c),
        (Some(Semver::Major), 0) => (0, b + 1, 0),
        (Some(Semver::Major), _) => (a + 1, 0, 0),
        (Some(Semver::Minor), 0) => (0, b, c + 1),
        (Some(Semver::Minor), _) => (a, b + 1, 0),
        (Some(Semver::Patch), _) => (a, b, c + 1),
    };
    format!("{}.{}.{}", v.0, v.1, v.2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn next_versions_follow_cargo() {
        assert_eq!(next_version("0.1.0", Some(Semver::Major)), "0.2.0");
        assert_eq!(next_version("0.1.0", Some(Semver::Minor)), "0.1.1");
        assert_eq!(next_version("1.4.2", Some(Semver::Major)), "2.0.0");
        assert_eq!(next_version("1.4.2", Some(Semver::Minor)), "1.5.0");
        assert_eq!(next_version("1.4.2", Some(Semver::Patch)), "1.4.3");
        assert_eq!(next_version("1.4.2", None), "1.4.2");
    }

    #[test]
    fn majors_are_read_loosely() {
        assert_eq!(major("2.1.0"), Some(2));
        assert_eq!(major("v3"), Some(3));
        assert_eq!(major("2026-01-01"), Some(2026));
        assert_eq!(major("beta"), None);
    }
}
