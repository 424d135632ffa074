//! Property tests over real documents: every component schema, request body schema and
//! parameter schema of the public corpus (`codegen/tests/corpus/`) and of Prefect 3.9.1's
//! spec gets values for several seeds; each value is validated here with `jsonschema`
//! (formats asserted, compiled by this test against the translated document), and each
//! mutation of it must fail validation at its intended keyword and place.
//!
//! The counts are printed (`cargo nextest run -p schema-values --test corpus --no-capture`).
//! One test per group of documents, so a runner spreads them over its cores.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use jsonschema::error::ValidationErrorKind;
use jsonschema::{Draft, Registry, ValidationError, Validator};
use schema_values::dialect::{DOC_URI, translate_document};
use schema_values::{Direction, Generator, Unsupported};
use serde_json::{Value, json};

const SEEDS: [u64; 2] = [0, 1];

fn documents() -> Vec<(String, Value)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut paths: Vec<PathBuf> = std::fs::read_dir(root.join("../../codegen/tests/corpus"))
        .expect("the corpus is in the repository")
        .map(|e| e.unwrap().path())
        .filter(|p| {
            matches!(
                p.extension().and_then(|e| e.to_str()),
                Some("json" | "yaml")
            )
        })
        .collect();
    paths.push(root.join("tests/specs/prefect-3.9.1-openapi.json"));
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            let doc: Value = if p.extension().is_some_and(|e| e == "yaml") {
                serde_yaml::from_str(&text).unwrap()
            } else {
                serde_json::from_str(&text).unwrap()
            };
            (p.file_name().unwrap().to_string_lossy().into_owned(), doc)
        })
        .collect()
}

/// A JSON pointer as a URI fragment (percent-encoded where URIs need it).
fn fragment(ptr: &str) -> String {
    let mut out = String::new();
    for b in ptr.bytes() {
        if b.is_ascii_alphanumeric() || b"/~-._!$&'()*+,;=:@".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn escape(s: &str) -> String {
    s.replace('~', "~0").replace('/', "~1")
}

/// Pointers of every schema the harness would make values for.
fn targets(doc: &Value) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(schemas) = doc
        .pointer("/components/schemas")
        .and_then(Value::as_object)
    {
        out.extend(
            schemas
                .keys()
                .map(|k| format!("/components/schemas/{}", escape(k))),
        );
    }
    for (name, p) in doc
        .pointer("/components/parameters")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        if p.get("schema").is_some() {
            out.push(format!("/components/parameters/{}/schema", escape(name)));
        }
    }
    for (name, body) in doc
        .pointer("/components/requestBodies")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        for mime in body
            .get("content")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .map(|(m, _)| m)
        {
            out.push(format!(
                "/components/requestBodies/{}/content/{}/schema",
                escape(name),
                escape(mime)
            ));
        }
    }
    let methods = [
        "get", "put", "post", "delete", "options", "head", "patch", "trace",
    ];
    for (path, item) in doc
        .get("paths")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        let base = format!("/paths/{}", escape(path));
        params(item, &base, &mut out);
        for m in methods {
            let Some(op) = item.get(m) else { continue };
            let opp = format!("{base}/{m}");
            params(op, &opp, &mut out);
            for (mime, media) in op
                .pointer("/requestBody/content")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
            {
                if media.get("schema").is_some() {
                    out.push(format!("{opp}/requestBody/content/{}/schema", escape(mime)));
                }
            }
        }
    }
    out
}

fn params(holder: &Value, base: &str, out: &mut Vec<String>) {
    for (i, p) in holder
        .get("parameters")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        if p.get("schema").is_some() {
            out.push(format!("{base}/parameters/{i}/schema"));
        }
    }
}

/// Every failed keyword with its instance path, branch errors included.
fn failures(v: &Validator, value: &Value) -> Vec<(String, String)> {
    fn collect(e: &ValidationError<'_>, out: &mut Vec<(String, String)>) {
        out.push((
            e.kind().keyword().to_string(),
            e.instance_path().to_string(),
        ));
        match e.kind() {
            ValidationErrorKind::AnyOf { context }
            | ValidationErrorKind::OneOfNotValid { context }
            | ValidationErrorKind::OneOfMultipleValid { context } => {
                context.iter().flatten().for_each(|i| collect(i, out));
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    for e in v.iter_errors(value) {
        collect(&e, &mut out);
    }
    out
}

/// A reason's class for the histogram: its words before any detail.
fn class(e: &Unsupported) -> String {
    let r = &e.reason;
    for known in [
        "recursion",
        "every value made failed validation",
        "oneOf: the values made for this branch also match another branch",
        "every value made matches the `not` schema",
        "no string found matching",
        "required property",
        "minProperties",
        "uniqueItems",
    ] {
        if r.starts_with(known) {
            return known.to_string();
        }
    }
    if r.starts_with("pattern") {
        return "pattern is not generable (lookaround, backreference...)".into();
    }
    if let Some(kw) = r.strip_prefix("keyword ") {
        return format!("keyword {}", kw.split(' ').next().unwrap_or(""));
    }
    r.split(':').next().unwrap_or(r).to_string()
}

#[derive(Default)]
struct Counts {
    schemas: usize,
    valid: usize,
    unsupported: usize,
    values: usize,
    invalid: Vec<String>,
    reasons: BTreeMap<String, Vec<String>>,
    mutations: usize,
    mutation_kinds: BTreeMap<String, usize>,
    mutation_wrong: Vec<String>,
    not_deterministic: Vec<String>,
    duplicates: usize,
}

/// Values of every component schema for the response direction (seed 0), validated against
/// the document translated for responses; returns how many were checked.
fn response_values(doc: &Value, invalid: &mut Vec<String>) -> usize {
    let g = Generator::new(doc).with_direction(Direction::Response);
    let translated = translate_document(doc, g.dialect(), Direction::Response);
    let registry = Registry::new()
        .add(DOC_URI, Draft::Draft202012.create_resource(translated))
        .unwrap()
        .prepare()
        .unwrap();
    let mut checked = 0;
    for ptr in targets(doc)
        .into_iter()
        .filter(|p| p.starts_with("/components/schemas/"))
    {
        let Ok(v) = g.generate_at(doc.pointer(&ptr).unwrap(), &ptr, 0) else {
            continue;
        };
        let validator = jsonschema::draft202012::options()
            .should_validate_formats(true)
            .with_registry(&registry)
            .build(&json!({ "$ref": format!("{DOC_URI}#{}", fragment(&ptr)) }))
            .unwrap();
        checked += 1;
        if let Some(e) = validator.iter_errors(&v).next() {
            invalid.push(format!("response {ptr}: {e} in {v}"));
        }
    }
    checked
}

/// Generates, validates and mutates over every target of the documents whose file name
/// contains one of `names`, prints the counts, and fails on any invalid value, any mutation
/// not rejected for its reason, any non-deterministic value, or any value the generator
/// made but could not make valid.
fn check(names: &[&str]) {
    let mut total = Counts::default();
    for (name, doc) in documents() {
        if !names.iter().any(|n| name.contains(n)) {
            continue;
        }
        total.absorb(check_document(&name, &doc));
    }
    report(names, &total);
}

/// The counts of one document, printed on one line.
fn check_document(name: &str, doc: &Value) -> Counts {
    let g = Generator::new(doc);
    let translated = translate_document(doc, g.dialect(), Direction::Request);
    let registry = Registry::new()
        .add(DOC_URI, Draft::Draft202012.create_resource(translated))
        .unwrap()
        .prepare()
        .unwrap();
    let mut c = Counts::default();
    // A schema written the same way twice (a body that is only a `$ref`, the tenth
    // `{"type": "string"}` parameter) gives the same values: checked once.
    let mut seen = std::collections::HashSet::new();
    for ptr in targets(doc) {
        let schema = doc.pointer(&ptr).unwrap();
        if !seen.insert(schema.to_string()) {
            c.duplicates += 1;
            continue;
        }
        check_schema(name, &g, &registry, schema, &ptr, &mut c);
    }
    // The same component schemas as responses: writeOnly left out, readOnly kept.
    let responses = response_values(doc, &mut c.invalid);
    eprintln!(
        "{name}: {responses} response values checked; {} schemas ({} more written the same way), {} valid, {} unsupported, {} values checked, {} invalid; {} mutations, {} not failing for their reason",
        c.schemas,
        c.duplicates,
        c.valid,
        c.unsupported,
        c.values,
        c.invalid.len(),
        c.mutations,
        c.mutation_wrong.len()
    );
    c
}

/// Values, variants and mutations of the schema at `ptr`, each checked by the validator
/// against the whole translated document, counted in `c`.
fn check_schema(
    name: &str,
    g: &Generator,
    registry: &Registry,
    schema: &Value,
    ptr: &str,
    c: &mut Counts,
) {
    let validator = jsonschema::draft202012::options()
        .should_validate_formats(true)
        .with_registry(registry)
        .build(&json!({ "$ref": format!("{DOC_URI}#{}", fragment(ptr)) }))
        .unwrap_or_else(|e| panic!("{name} {ptr}: {e}"));
    c.schemas += 1;
    let mut first: Option<Value> = None;
    let mut ok = true;
    for seed in SEEDS {
        match g.generate_at(schema, ptr, seed) {
            Ok(v) => {
                c.values += 1;
                if !validator.is_valid(&v) {
                    let e = validator.iter_errors(&v).next().unwrap();
                    c.invalid
                        .push(format!("{name} {ptr} seed {seed}: {e} in {v}"));
                    ok = false;
                }
                if seed == 0 {
                    if g.generate_at(schema, ptr, seed).as_ref() != Ok(&v) {
                        c.not_deterministic.push(format!("{name} {ptr}"));
                    }
                    first = Some(v);
                }
            }
            Err(e) => {
                ok = false;
                if seed == 0 {
                    c.unsupported += 1;
                    c.reasons
                        .entry(class(&e))
                        .or_default()
                        .push(format!("{name} {e}"));
                }
                break;
            }
        }
    }
    if let Ok(vs) = g.variants_at(schema, ptr, 7, 3) {
        for v in vs {
            c.values += 1;
            if !validator.is_valid(&v) {
                let e = validator.iter_errors(&v).next().unwrap();
                c.invalid.push(format!("{name} {ptr} variant: {e} in {v}"));
            }
        }
    }
    if ok {
        c.valid += 1;
    }
    let Some(v) = first else { return };
    for m in g.mutations_at(schema, ptr, &v) {
        c.mutations += 1;
        *c.mutation_kinds.entry(format!("{:?}", m.kind)).or_default() += 1;
        let fs = failures(&validator, &m.value);
        if fs.is_empty() {
            c.mutation_wrong
                .push(format!("{name} {ptr} {m:?}: validates"));
        } else if !fs.iter().any(|(k, p)| {
            // An object without properties and closed compiles to `false` for
            // every property: the validator says `falseSchema`.
            (k == m.keyword && *p == m.instance_path)
                || (k == "falseSchema"
                    && m.keyword == "additionalProperties"
                    && (*p == m.instance_path || p.starts_with(&format!("{}/", m.instance_path))))
        }) {
            c.mutation_wrong.push(format!(
                "{name} {ptr} {}: expected {} at {:?}, got {fs:?}",
                m.description, m.keyword, m.instance_path
            ));
        }
    }
}

impl Counts {
    /// Adds one document's counts to these.
    fn absorb(&mut self, c: Counts) {
        self.schemas += c.schemas;
        self.valid += c.valid;
        self.unsupported += c.unsupported;
        self.values += c.values;
        self.invalid.extend(c.invalid);
        self.mutations += c.mutations;
        self.mutation_wrong.extend(c.mutation_wrong);
        self.not_deterministic.extend(c.not_deterministic);
        for (k, v) in c.reasons {
            self.reasons.entry(k).or_default().extend(v);
        }
        for (k, v) in c.mutation_kinds {
            *self.mutation_kinds.entry(k).or_default() += v;
        }
    }
}

/// Prints the totals and the first problems, then fails on any.
fn report(names: &[&str], total: &Counts) {
    eprintln!(
        "{names:?} TOTAL: {} schemas tried, {} valid for every seed, {} unsupported; {} values checked, {} invalid; {} mutations, {} not failing for their reason",
        total.schemas,
        total.valid,
        total.unsupported,
        total.values,
        total.invalid.len(),
        total.mutations,
        total.mutation_wrong.len()
    );
    for (reason, cases) in &total.reasons {
        eprintln!("  unsupported {:>4} × {reason}", cases.len());
        for c in cases.iter().take(3) {
            eprintln!("        e.g. {c}");
        }
    }
    eprintln!("  mutations by kind: {:?}", total.mutation_kinds);
    for i in total.invalid.iter().take(20) {
        eprintln!("INVALID {i}");
    }
    for m in total.mutation_wrong.iter().take(20) {
        eprintln!("MUTATION {m}");
    }
    assert!(
        total.invalid.is_empty(),
        "{} invalid values",
        total.invalid.len()
    );
    assert!(
        total.mutation_wrong.is_empty(),
        "{} mutations not failing for their reason",
        total.mutation_wrong.len()
    );
    assert!(
        total.not_deterministic.is_empty(),
        "{:?}",
        total.not_deterministic
    );
    // A value the generator failed to make valid is its own defect, not the schema's.
    assert!(
        !total
            .reasons
            .contains_key("every value made failed validation"),
        "{:#?}",
        total.reasons.get("every value made failed validation")
    );
}

#[test]
fn github() {
    check(&["api.github.com"]);
}

#[test]
fn prefect() {
    check(&["prefect"]);
}

#[test]
fn nexus_and_tradovate() {
    check(&["nexus", "tradovate"]);
}

#[test]
fn small_corpus_documents() {
    check(&[
        "buildomat",
        "cli-gen",
        "keeper",
        "param-collision",
        "param-overrides",
        "propolis",
    ]);
}
