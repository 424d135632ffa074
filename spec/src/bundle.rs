//! A spec split over several files read as one document: every `$ref` to another file
//! (`schemas.yaml#/Pet`, `./params/id.json`, YAML or JSON, relative to the file that holds
//! the reference, nested to any depth) is brought into the root document, as `redocly
//! bundle` does.
//!
//! The rules, for any document:
//!
//! - A reference where a schema sits (under a `schema`, in `components.schemas`, or
//!   anywhere inside a schema brought in) becomes a component schema, named after the
//!   last token of its pointer (the file's stem when the pointer is empty), numbered when
//!   the name is taken; the reference points at it. Schemas that refer to each other
//!   across files (a cycle) are fine: each is brought in once.
//!   A component schema of the root file that is wholly a `$ref` to a file
//!   (`components.schemas.Pet: {$ref: 'schemas/Pet.yaml'}`, how split specs list their
//!   schemas) is that file's schema under the root's name, and every other reference to
//!   the file points at it. Keywords beside a schema's `$ref` (a 3.1 `description` or
//!   `default`) stay beside the local reference.
//! - Any other reference (a parameter, a response, a path item) is replaced by what it
//!   points at, brought in the same way, a `summary` or `description` beside it
//!   overriding the target's (3.1's Reference Object); a cycle among those is an error
//!   naming each reference on it.
//! - A local reference (`#/...`) inside another file means that file's node.
//! - URLs are refused unless the caller hands [`bundle_with`] a [`Fetch`] (the command
//!   lines' `--url-refs`): a spec that names a URL then reads what the network says at
//!   each run, which its author must choose. With one, a `$ref` to an `http` or `https`
//!   URL is fetched, and a relative `$ref` inside a fetched document is resolved against
//!   its URL (RFC 3986), as a file's is against its folder.
//! - Examples, defaults, enums, constants and `x-` extensions are data: a `$ref` key in
//!   there is a value, not a reference, and is left alone (GitHub's description has
//!   URL-valued `$ref`s in its examples). An example given by a `$ref` to a file is
//!   therefore left as it came.
//!
//! Every error names the file, the line and the pointer of the `$ref` at fault. A
//! document without a reference to another file is returned as it came, text included,
//! so everything said about it (lines of warnings) is said about the file itself.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::error::{Located, SpecError, push_pointer};
use crate::load::Source;

/// Reads the spec at `path`, with every other file it refers to brought in (see
/// [`bundle`]).
pub fn load(path: &Path) -> Result<Source, SpecError> {
    let text = std::fs::read_to_string(path).map_err(|e| SpecError {
        file: path.display().to_string(),
        pointer: String::new(),
        line: None,
        message: format!("cannot read the file: {e}"),
    })?;
    bundle(
        path,
        Source {
            name: path.display().to_string(),
            text,
        },
    )
}

/// Reads the document at a URL (`http` or `https`): its text, or why it could not be
/// read. Given by the caller, so this crate opens no connection of its own.
pub type Fetch<'a> = &'a dyn Fn(&url::Url) -> Result<String, String>;

/// `source`, the text of the file at `path`, with every other file it refers to brought
/// in. A single-file spec comes back unchanged; a bundled one as JSON text under the
/// root file's name. A `$ref` to a URL is an error (see [`bundle_with`]).
pub fn bundle(path: &Path, source: Source) -> Result<Source, SpecError> {
    bundle_with(path, source, None)
}

/// [`bundle`], fetching each `$ref` to a URL with `fetch` when there is one.
pub fn bundle_with(
    path: &Path,
    source: Source,
    fetch: Option<Fetch<'_>>,
) -> Result<Source, SpecError> {
    // Most specs are one file: told from the text alone, without parsing it again.
    if !mentions_a_file(&source.text, fetch.is_some()) {
        return Ok(source);
    }
    let root = crate::load::to_raw_value(&source)?;
    if !has_external_ref(&root, "") {
        return Ok(source);
    }
    let base = normalize(path);
    let mut bundler = Bundler {
        fetch,
        root: base.clone(),
        files: HashMap::new(),
        named: HashMap::new(),
        taken: Default::default(),
        schemas: Map::new(),
        stack: Vec::new(),
    };
    bundler
        .files
        .insert(base.clone(), (source.clone(), root.clone()));
    if let Some(Value::Object(existing)) = root.pointer("/components/schemas") {
        bundler.taken.extend(existing.keys().cloned());
    }
    bundler.claim_root_components(&root);
    let mut out = root.clone();
    bundler.walk(&mut out, &base, "", false)?;
    if !bundler.schemas.is_empty() {
        let components = out.as_object_mut().map(|o| {
            o.entry("components")
                .or_insert_with(|| Value::Object(Map::new()))
        });
        if let Some(Value::Object(components)) = components {
            let schemas = components
                .entry("schemas")
                .or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(schemas) = schemas {
                schemas.extend(std::mem::take(&mut bundler.schemas));
            }
        }
    }
    Ok(Source {
        name: source.name,
        text: serde_json::to_string_pretty(&out).unwrap_or_default(),
    })
}

/// Whether some `$ref` of the text (YAML or JSON) may name a file: its value not a local
/// pointer (`#...`), and not a URL unless `urls` (without a fetcher a URL is left to the
/// readers after this one, which refuse it as any reference they cannot follow).
///
/// Each `$ref` is found by its `$`, rare in a document, with `str::find` (a `memchr`):
/// the substring search looked at every byte of a large one, on the one core the rest
/// of the generation waits for. A `$ref` key whose value is an object or a list
/// (`"$ref": {` in JSON, after its closing quote: a property of that name, as GitHub's
/// SCIM schemas have) is no reference, and is passed over: otherwise it sent the whole
/// document through a second parse and a walk, a tenth of GitHub's generation on the core
/// everything else waits for.
fn mentions_a_file(text: &str, urls: bool) -> bool {
    let mut from = 0;
    while let Some(at) = text[from..].find('$') {
        let i = from + at;
        from = i + 1;
        if !text[i..].starts_with("$ref") {
            continue;
        }
        if holds_a_block(&text[i + 4..]) {
            continue;
        }
        let rest = text[i + 4..].trim_start_matches(['"', '\'', ' ', ':', '\t']);
        let value = rest.split(['"', '\'', '\n', ',', '}']).next().unwrap_or("");
        if !value.starts_with('#') && (urls || !value.contains("://")) {
            return true;
        }
    }
    false
}

/// Whether the text after a `$ref` is a closing quote, a colon and an object or a list:
/// the key's value is no string, so no reference (see [`mentions_a_file`]).
fn holds_a_block(after: &str) -> bool {
    let Some(rest) = after.strip_prefix(['"', '\'']) else {
        return false;
    };
    let Some(value) = rest.trim_start().strip_prefix(':') else {
        return false;
    };
    value.trim_start().starts_with(['{', '['])
}

/// Whether any `$ref` of `value` (at `at`) names another file.
fn has_external_ref(value: &Value, at: &str) -> bool {
    match value {
        Value::Object(o) => {
            o.get("$ref")
                .and_then(Value::as_str)
                .is_some_and(|r| !r.starts_with('#'))
                || o.iter().any(|(key, child)| {
                    !is_data(at, key) && has_external_ref(child, &push_pointer(at, key))
                })
        }
        Value::Array(a) => a
            .iter()
            .enumerate()
            .any(|(i, child)| has_external_ref(child, &format!("{at}/{i}"))),
        _ => false,
    }
}

/// Maps whose keys are names the spec's author chose (a property called `example` is a
/// property, not an example).
const NAME_MAPS: &[&str] = &[
    "properties",
    "patternProperties",
    "schemas",
    "parameters",
    "responses",
    "requestBodies",
    "headers",
    "links",
    "callbacks",
    "securitySchemes",
    "paths",
    "content",
    "encoding",
    "variables",
    "mapping",
    "definitions",
    "$defs",
];

/// Whether `key` of the object at `at` holds data (an example, a default, an extension)
/// rather than spec nodes: a `$ref` in there is a value, not a reference (GitHub's
/// description has URL-valued `$ref`s in its examples).
fn is_data(at: &str, key: &str) -> bool {
    let parent = at.rsplit('/').next().unwrap_or("");
    if NAME_MAPS.contains(&parent) {
        return false;
    }
    matches!(key, "example" | "examples" | "default" | "enum" | "const") || key.starts_with("x-")
}
struct Bundler<'f> {
    /// Reads a URL, when the caller allows URLs.
    fetch: Option<Fetch<'f>>,
    /// The root file: its local references stay as they are.
    root: PathBuf,
    /// Every file read, by path: its text (for lines) and value.
    files: HashMap<PathBuf, (Source, Value)>,
    /// `(file, pointer)` of a schema brought in → its component name.
    named: HashMap<(PathBuf, String), String>,
    /// Component schema names in use.
    taken: std::collections::HashSet<String>,
    /// The schemas brought in, in the order met.
    schemas: Map<String, Value>,
    /// The non-schema references being replaced, to catch a cycle.
    stack: Vec<(PathBuf, String)>,
}

impl Bundler<'_> {
    /// Brings in every reference inside `node` (at `at` in `file`); `in_schema` says the
    /// node is a schema or inside one.
    fn walk(
        &mut self,
        node: &mut Value,
        file: &Path,
        at: &str,
        in_schema: bool,
    ) -> Result<(), SpecError> {
        match node {
            Value::Object(object) => {
                let reference = object
                    .get("$ref")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                if let Some(reference) = reference
                    && !(file == self.root && reference.starts_with('#'))
                {
                    return self.bring(node, &reference, file, at, in_schema);
                }
                for (key, child) in object.iter_mut() {
                    if is_data(at, key) {
                        continue;
                    }
                    let child_at = push_pointer(at, key);
                    let schema_here =
                        in_schema || key == "schema" || (key == "schemas" && at == "/components");
                    self.walk(child, file, &child_at, schema_here)?;
                }
                Ok(())
            }
            Value::Array(items) => {
                for (i, child) in items.iter_mut().enumerate() {
                    self.walk(child, file, &format!("{at}/{i}"), in_schema)?;
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// An error at the `$ref` at `at` in `file`.
    fn error(&self, file: &Path, at: &str, message: String) -> SpecError {
        let pointer = push_pointer(at, "$ref");
        match self.files.get(file) {
            Some((source, _)) => source.error(Located::new(pointer, message)),
            None => SpecError {
                file: file.display().to_string(),
                pointer,
                line: None,
                message,
            },
        }
    }

    /// Replaces the reference `node` (at `at` in `file`) by a local one or by what it
    /// points at.
    fn bring(
        &mut self,
        node: &mut Value,
        reference: &str,
        file: &Path,
        at: &str,
        in_schema: bool,
    ) -> Result<(), SpecError> {
        let (target, pointer) = target_of(file, reference)
            .map_err(|message| self.error(file, at, format!("$ref `{reference}`: {message}")))?;
        if !self.files.contains_key(&target) {
            let text = self.read(&target).map_err(|message| {
                self.error(file, at, format!("$ref `{reference}`: {message}"))
            })?;
            let source = Source {
                name: target.display().to_string(),
                text,
            };
            let value = crate::load::to_raw_value(&source)?;
            self.files.insert(target.clone(), (source, value));
        }
        let content = self.files[&target]
            .1
            .pointer(&pointer)
            .cloned()
            .ok_or_else(|| {
                self.error(
                    file,
                    at,
                    format!(
                        "$ref `{reference}` points at nothing: {} has no node at `{pointer}`",
                        target.display()
                    ),
                )
            })?;
        let key = (target.clone(), pointer.clone());
        if let Some(name) = self.own_component(file, at)
            && self.named.get(&key) == Some(&name)
        {
            // `components.schemas.Pet: {$ref: 'schemas/Pet.yaml'}` in the root file, the
            // way split specs list their schemas: the file's schema is that component,
            // under the name the root gives it (claimed before the walk, see
            // `claim_root_components`), not a second component it points to.
            let mut content = content;
            self.walk(&mut content, &target, &pointer, true)?;
            let siblings = siblings(node, |_| true);
            *node = content;
            self.overlay(node, siblings, file, at, true)?;
            return Ok(());
        }
        if in_schema {
            let name = match self.named.get(&key) {
                Some(name) => name.clone(),
                None => {
                    let stem = pointer
                        .rsplit('/')
                        .next()
                        .filter(|t| !t.is_empty())
                        .map(|t| t.replace("~1", "/").replace("~0", "~"))
                        .unwrap_or_else(|| {
                            target
                                .file_stem()
                                .map(|s| s.to_string_lossy().into_owned())
                                .unwrap_or_else(|| "Schema".to_owned())
                        });
                    let name = (1..)
                        .map(|n| {
                            if n == 1 {
                                stem.clone()
                            } else {
                                format!("{stem}{n}")
                            }
                        })
                        .find(|n| !self.taken.contains(n))
                        .unwrap_or(stem);
                    self.taken.insert(name.clone());
                    // Named before its own references are followed: a cycle ends here.
                    self.named.insert(key, name.clone());
                    // Its place in the order met, kept while its insides are brought in.
                    self.schemas.insert(name.clone(), Value::Null);
                    let mut content = content;
                    self.walk(&mut content, &target, &pointer, true)?;
                    self.schemas.insert(name.clone(), content);
                    name
                }
            };
            // Keywords beside the `$ref` (3.1 reads a `description` or `default` there)
            // stay beside the local reference that replaces it.
            let local = Value::String(format!("#{}", push_pointer("/components/schemas", &name)));
            if let Value::Object(object) = node {
                object.insert("$ref".to_owned(), local);
                for (key, child) in object.iter_mut() {
                    if key != "$ref" && !is_data(at, key) {
                        self.walk(child, file, &push_pointer(at, key), true)?;
                    }
                }
            }
            return Ok(());
        }
        if let Some(i) = self.stack.iter().position(|k| *k == key) {
            let cycle: Vec<String> = self.stack[i..]
                .iter()
                .chain([&key])
                .map(|(f, p)| format!("{}#{p}", f.display()))
                .collect();
            return Err(self.error(
                file,
                at,
                format!("$ref `{reference}` closes a cycle: {}", cycle.join(" -> ")),
            ));
        }
        self.stack.push(key);
        let mut content = content;
        self.walk(&mut content, &target, &pointer, false)?;
        self.stack.pop();
        // 3.1's Reference Object: a `summary` or `description` beside the `$ref`
        // overrides the one of what it points at; other keys there mean nothing.
        let siblings = siblings(node, |key| matches!(key, "summary" | "description"));
        *node = content;
        self.overlay(node, siblings, file, at, false)?;
        Ok(())
    }
}

impl Bundler<'_> {
    /// The name of the root file's component schema at `at`, when the `$ref` there is the
    /// whole component (`/components/schemas/Pet`).
    fn own_component(&self, file: &Path, at: &str) -> Option<String> {
        let name = at.strip_prefix("/components/schemas/")?;
        (file == self.root && !name.contains('/'))
            .then(|| name.replace("~1", "/").replace("~0", "~"))
    }

    /// Names after themselves the files the root's component schemas are wholly a `$ref`
    /// to, before anything is brought in, so that a reference to one of those files met
    /// first, from another file, points at the component and does not bring the schema
    /// in a second time under another name.
    fn claim_root_components(&mut self, root: &Value) {
        let Some(Value::Object(schemas)) = root.pointer("/components/schemas") else {
            return;
        };
        for (name, schema) in schemas {
            let Some(reference) = schema.get("$ref").and_then(Value::as_str) else {
                continue;
            };
            if reference.starts_with('#') || reference.contains("://") {
                continue;
            }
            if let Ok(key) = target_of(&self.root, reference) {
                self.named.entry(key).or_insert(name.clone());
            }
        }
    }
}

/// The keys beside the `$ref` of `node` that `keep` accepts.
fn siblings(node: &Value, keep: impl Fn(&str) -> bool) -> Map<String, Value> {
    match node {
        Value::Object(object) => object
            .iter()
            .filter(|(key, _)| *key != "$ref" && keep(key))
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect(),
        _ => Map::new(),
    }
}

impl Bundler<'_> {
    /// Puts the keys that sat beside a `$ref` (at `at` in `file`) over what replaced it.
    fn overlay(
        &mut self,
        node: &mut Value,
        siblings: Map<String, Value>,
        file: &Path,
        at: &str,
        in_schema: bool,
    ) -> Result<(), SpecError> {
        let Value::Object(object) = node else {
            return Ok(());
        };
        for (key, mut value) in siblings {
            if !is_data(at, &key) {
                self.walk(&mut value, file, &push_pointer(at, &key), in_schema)?;
            }
            object.insert(key, value);
        }
        Ok(())
    }
}

impl Bundler<'_> {
    /// The text of a file, or of a URL when the caller gave a fetcher.
    fn read(&self, target: &Path) -> Result<String, String> {
        let Some(url) = as_url(target) else {
            return std::fs::read_to_string(target)
                .map_err(|e| format!("cannot read {}: {e}", target.display()));
        };
        let Some(fetch) = self.fetch else {
            return Err(format!(
                "`{url}` is a URL, and URLs are read only when asked (`--url-refs`)"
            ));
        };
        if !matches!(url.scheme(), "http" | "https") {
            return Err(format!("`{url}`: only http and https URLs are fetched"));
        }
        fetch(&url).map_err(|e| format!("cannot fetch {url}: {e}"))
    }
}

/// A place the bundler reads from held as a URL (see [`target_of`]).
fn as_url(place: &Path) -> Option<url::Url> {
    let text = place.to_str()?;
    text.contains("://").then(|| url::Url::parse(text).ok())?
}

/// The file (or URL, kept as the path's text) and pointer a `$ref` in `file` names.
fn target_of(file: &Path, reference: &str) -> Result<(PathBuf, String), String> {
    let (target_file, pointer) = match reference.split_once('#') {
        Some((f, p)) => (f, p.to_owned()),
        None => (reference, String::new()),
    };
    if target_file.is_empty() {
        return Ok((file.to_owned(), pointer));
    }
    let url = if target_file.contains("://") {
        Some(url::Url::parse(target_file).map_err(|e| format!("not a URL: {e}"))?)
    } else if let Some(base) = as_url(file) {
        Some(
            base.join(target_file)
                .map_err(|e| format!("not a URL: {e}"))?,
        )
    } else {
        None
    };
    if let Some(url) = url {
        return Ok((PathBuf::from(url.as_str()), pointer));
    }
    let target = file.parent().unwrap_or(Path::new("")).join(target_file);
    Ok((normalize(&target), pointer))
}

/// `a/./b/../c` as `a/c`, so one file read twice under two spellings is one file.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir if out.file_name().is_some() => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh directory holding `files` (relative path, text).
    fn dir(name: &str, files: &[(&str, &str)]) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("spec-bundle-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for (path, text) in files {
            let path = dir.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        dir
    }

    const ROOT: &str = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /pets/{id}:\n    get:\n      parameters:\n        - $ref: 'params.yaml#/id'\n      responses:\n        '200':\n          description: ok\n          content:\n            application/json:\n              schema: {$ref: 'schemas.yaml#/Pet'}\n";

    #[test]
    fn three_files_with_nested_and_cyclic_schemas_become_one() {
        let d = dir(
            "three",
            &[
                ("root.yaml", ROOT),
                (
                    "params.yaml",
                    "id: {name: id, in: path, required: true, schema: {type: integer}}\n",
                ),
                (
                    "schemas.yaml",
                    "Pet:\n  type: object\n  properties:\n    tag: {$ref: '#/Tag'}\n    owner: {$ref: 'people/owner.json#/Owner'}\nTag: {type: string}\n",
                ),
                (
                    "people/owner.json",
                    r##"{"Owner": {"type": "object", "properties": {"pets": {"type": "array", "items": {"$ref": "../schemas.yaml#/Pet"}}}}}"##,
                ),
            ],
        );
        let source = load(&d.join("root.yaml")).unwrap();
        let doc: Value = serde_json::from_str(&source.text).unwrap();
        let schemas = doc["components"]["schemas"].as_object().unwrap();
        assert_eq!(schemas.keys().collect::<Vec<_>>(), ["Pet", "Tag", "Owner"]);
        assert_eq!(
            schemas["Owner"]["properties"]["pets"]["items"]["$ref"],
            "#/components/schemas/Pet"
        );
        assert_eq!(
            schemas["Pet"]["properties"]["tag"]["$ref"],
            "#/components/schemas/Tag"
        );
        let op = &doc["paths"]["/pets/{id}"]["get"];
        assert_eq!(op["parameters"][0]["name"], "id");
        assert_eq!(
            op["responses"]["200"]["content"]["application/json"]["schema"]["$ref"],
            "#/components/schemas/Pet"
        );
        crate::parse(&source).unwrap();
        let _ = std::fs::remove_dir_all(d);
    }

    #[test]
    fn a_property_named_ref_is_no_mention_of_a_file() {
        let property = r#"{"properties": {"$ref": {"type": "string"}, "x": {"$ref" : [1]}}}"#;
        assert!(!mentions_a_file(property, false));
        assert!(!mentions_a_file(
            "properties:\n  '$ref': {type: string}\n",
            false
        ));
        // A reference beside it, or a string value that starts like a block, still is.
        assert!(mentions_a_file(
            r#"{"properties": {"$ref": {"type": "string"}}, "a": {"$ref": "b.json"}}"#,
            false
        ));
        assert!(mentions_a_file(r#"{"$ref": "{b}.json"}"#, false));
        assert!(mentions_a_file("a:\n  $ref: b.yaml\n", false));
        assert!(!mentions_a_file(
            r##"{"$ref": "#/components/schemas/A"}"##,
            false
        ));
    }

    #[test]
    fn a_single_file_comes_back_unchanged() {
        let d = dir(
            "single",
            &[(
                "a.yaml",
                "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: {}\n",
            )],
        );
        let source = load(&d.join("a.yaml")).unwrap();
        assert!(source.text.starts_with("openapi: 3.0.3"));
        let _ = std::fs::remove_dir_all(d);
    }

    #[test]
    fn errors_name_file_line_and_pointer() {
        let d = dir(
            "missing",
            &[
                ("root.yaml", ROOT),
                ("schemas.yaml", "Pet: {type: object}\n"),
            ],
        );
        let err = load(&d.join("root.yaml")).unwrap_err();
        assert!(err.file.ends_with("root.yaml"), "{err}");
        assert_eq!(err.line, Some(7), "{err}");
        assert_eq!(err.pointer, "/paths/~1pets~1{id}/get/parameters/0/$ref");
        assert!(err.message.contains("params.yaml"), "{err}");

        let d2 = dir(
            "pointer",
            &[
                ("root.yaml", ROOT),
                (
                    "params.yaml",
                    "id: {name: id, in: path, required: true, schema: {type: integer}}\n",
                ),
                (
                    "schemas.yaml",
                    "Pet:\n  type: object\n  properties:\n    x: {$ref: '#/Gone'}\n",
                ),
            ],
        );
        let err = load(&d2.join("root.yaml")).unwrap_err();
        assert!(err.file.ends_with("schemas.yaml"), "{err}");
        assert_eq!(err.line, Some(4), "{err}");
        assert!(err.message.contains("no node at `/Gone`"), "{err}");
        let _ = std::fs::remove_dir_all(d);
        let _ = std::fs::remove_dir_all(d2);
    }

    #[test]
    fn a_cycle_of_non_schema_references_is_refused() {
        let d = dir(
            "cycle",
            &[
                (
                    "root.yaml",
                    "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /a: {$ref: 'a.yaml'}\n",
                ),
                ("a.yaml", "$ref: 'b.yaml'\n"),
                ("b.yaml", "$ref: 'a.yaml'\n"),
            ],
        );
        let err = load(&d.join("root.yaml")).unwrap_err();
        assert!(err.message.contains("closes a cycle"), "{err}");
        let _ = std::fs::remove_dir_all(d);
    }

    #[test]
    fn references_in_examples_and_extensions_are_data() {
        let text = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: {}\ncomponents:\n  examples:\n    e: {value: {$ref: 'https://example.test/x'}}\n  schemas:\n    A:\n      type: object\n      example: {$ref: 'other.yaml'}\n      x-note: {$ref: 'other.yaml'}\n      properties:\n        example: {type: string}\n";
        let d = dir("data", &[("a.yaml", text)]);
        let source = load(&d.join("a.yaml")).unwrap();
        assert_eq!(source.text, text, "read as a single file, unchanged");
        let _ = std::fs::remove_dir_all(d);
    }

    #[test]
    fn a_root_component_that_is_a_file_keeps_its_name_and_is_brought_in_once() {
        let d = dir(
            "components",
            &[
                (
                    "root.yaml",
                    "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths:\n  /owners:\n    get:\n      responses:\n        '200':\n          description: ok\n          content:\n            application/json:\n              schema: {$ref: 'schemas/Owner.yaml'}\ncomponents:\n  schemas:\n    Owner: {$ref: 'schemas/Owner.yaml'}\n    Pet: {$ref: 'schemas/Pet.yaml'}\n",
                ),
                (
                    "schemas/Owner.yaml",
                    "type: object\nproperties:\n  pets: {type: array, items: {$ref: 'Pet.yaml'}}\n",
                ),
                (
                    "schemas/Pet.yaml",
                    "type: object\nproperties:\n  kind:\n    $ref: 'Kind.yaml'\n    description: What the pet is.\n    default: cat\n",
                ),
                ("schemas/Kind.yaml", "type: string\nenum: [cat, dog]\n"),
            ],
        );
        let doc: Value = serde_json::from_str(&load(&d.join("root.yaml")).unwrap().text).unwrap();
        let schemas = doc["components"]["schemas"].as_object().unwrap();
        assert_eq!(
            schemas.keys().collect::<Vec<_>>(),
            ["Owner", "Pet", "Kind"],
            "no second Owner or Pet: {schemas:#?}"
        );
        assert_eq!(
            schemas["Owner"]["type"], "object",
            "the component is the file's schema"
        );
        assert_eq!(
            schemas["Owner"]["properties"]["pets"]["items"]["$ref"],
            "#/components/schemas/Pet"
        );
        let kind = &schemas["Pet"]["properties"]["kind"];
        assert_eq!(kind["$ref"], "#/components/schemas/Kind");
        assert_eq!(
            kind["description"], "What the pet is.",
            "keywords beside a $ref stay"
        );
        assert_eq!(kind["default"], "cat");
        let answer = &doc["paths"]["/owners"]["get"]["responses"]["200"]["content"];
        assert_eq!(
            answer["application/json"]["schema"]["$ref"],
            "#/components/schemas/Owner"
        );
        let _ = std::fs::remove_dir_all(d);
    }

    #[test]
    fn urls_are_fetched_with_a_fetcher_and_relative_refs_there_resolve_against_the_url() {
        let root = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /pets:\n    get:\n      responses:\n        '200':\n          description: ok\n          content:\n            application/json:\n              schema: {$ref: 'https://schemas.example.test/v1/pet.yaml#/Pet'}\n";
        let d = dir("urls", &[("root.yaml", root)]);
        let asked = std::cell::RefCell::new(Vec::new());
        let fetch = |url: &url::Url| -> Result<String, String> {
            asked.borrow_mut().push(url.to_string());
            match url.as_str() {
                "https://schemas.example.test/v1/pet.yaml" => Ok(
                    "Pet:\n  type: object\n  properties:\n    tag: {$ref: '../common/tag.yaml'}\n"
                        .into(),
                ),
                "https://schemas.example.test/common/tag.yaml" => Ok("type: string\n".into()),
                _ => Err("404 Not Found".into()),
            }
        };
        let source = Source {
            name: "root.yaml".into(),
            text: root.into(),
        };
        let bundled = bundle_with(&d.join("root.yaml"), source.clone(), Some(&fetch)).unwrap();
        let doc: Value = serde_json::from_str(&bundled.text).unwrap();
        let schemas = doc["components"]["schemas"].as_object().unwrap();
        assert_eq!(schemas.keys().collect::<Vec<_>>(), ["Pet", "tag"]);
        assert_eq!(
            schemas["Pet"]["properties"]["tag"]["$ref"],
            "#/components/schemas/tag"
        );
        assert_eq!(
            *asked.borrow(),
            [
                "https://schemas.example.test/v1/pet.yaml",
                "https://schemas.example.test/common/tag.yaml"
            ],
            "each URL fetched once"
        );
        let unread = bundle(&d.join("root.yaml"), source.clone()).unwrap();
        assert_eq!(
            unread.text, root,
            "without a fetcher a URL is left to the reader"
        );
        let spec = crate::parse(&unread).unwrap();
        let err = crate::refs::lookup::<crate::model::Schema>(
            &spec,
            "https://schemas.example.test/v1/pet.yaml#/Pet",
        )
        .unwrap_err();
        assert!(
            err.to_string().contains("--url-refs"),
            "the reader names the flag: {err}"
        );
        let failing = |_: &url::Url| -> Result<String, String> { Err("404 Not Found".into()) };
        let err = bundle_with(&d.join("root.yaml"), source, Some(&failing)).unwrap_err();
        assert!(
            err.message.contains("404 Not Found") && err.line == Some(11),
            "{err}"
        );
        let _ = std::fs::remove_dir_all(d);
    }

    #[test]
    fn urls_are_refused() {
        let d = dir(
            "url",
            &[
                (
                    "root.yaml",
                    "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /a: {$ref: 'https://example.test/a.yaml'}\n  /b: {$ref: 'b.yaml'}\n",
                ),
                ("b.yaml", "get: {responses: {'204': {description: ok}}}\n"),
            ],
        );
        let err = load(&d.join("root.yaml")).unwrap_err();
        assert!(err.message.contains("URL"), "{err}");
        let _ = std::fs::remove_dir_all(d);
    }
}
