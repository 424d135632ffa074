//! Reading a spec file: YAML or JSON text into the typed model of [`crate::model`].
//!
//! YAML goes through `serde_yaml` into a JSON value first (mapping keys such as an
//! unquoted `200:` become strings), so everything after this module sees one data model.
//! Type errors are located with `serde_path_to_error`, which yields the JSON pointer.

use serde_json::Value;

use crate::error::{Located, SpecError, push_pointer};
use crate::locate::{Locator, line_of};
use crate::model::OpenApi;

/// The text of a spec, kept so that errors can be given a line.
#[derive(Debug, Clone)]
pub struct Source {
    /// The name errors show (usually the path as given).
    pub name: String,
    /// The whole file.
    pub text: String,
}

impl Source {
    /// Turns a located problem into a spec error with file name and line. A pointer of a
    /// converted Swagger 2.0 document that the text does not show is looked up as the
    /// 2.0 node it came from.
    pub fn error(&self, located: Located) -> SpecError {
        let line = line_of(&self.text, &located.pointer).or_else(|| {
            crate::swagger2::original_pointer(&located.pointer)
                .and_then(|p| line_of(&self.text, &p))
        });
        SpecError {
            file: self.name.clone(),
            pointer: located.pointer,
            line,
            message: located.message,
        }
    }

    /// Turns many located problems into spec errors, reading the text's lines once for
    /// all of them (and remembering the walk to each pointer prefix): what
    /// [`Source::error`] does for each, in order.
    pub fn errors(&self, located: impl IntoIterator<Item = Located>) -> Vec<SpecError> {
        let mut locator = Locator::new(&self.text);
        located
            .into_iter()
            .map(|located| SpecError {
                file: self.name.clone(),
                line: locator.line_of(&located.pointer).or_else(|| {
                    crate::swagger2::original_pointer(&located.pointer)
                        .and_then(|p| locator.line_of(&p))
                }),
                pointer: located.pointer,
                message: located.message,
            })
            .collect()
    }
}

/// Parses a spec (YAML or JSON, told apart by content) into the typed model.
pub fn parse(source: &Source) -> Result<OpenApi, SpecError> {
    let located = |e: serde_path_to_error::Error<serde_json::Error>| {
        let pointer = pointer_of(e.path());
        let inner = e.into_inner();
        let text = inner.to_string();
        // Parsing JSON text gives the exact line; a value (from YAML) has none.
        let (message, line) = match text.rsplit_once(" at line ") {
            Some((message, _)) if inner.line() > 0 => (message.to_owned(), Some(inner.line())),
            _ => (text, None),
        };
        let mut error = source.error(Located::new(pointer, message));
        if line.is_some() {
            error.line = line;
        }
        error
    };
    let spec: OpenApi = if let Some(spec) = looks_json(source)
        .then(|| crate::split::read(&source.text))
        .flatten()
    {
        spec
    } else if looks_json(source) {
        // Straight from the text: no intermediate value on the (large) JSON documents.
        let mut de = serde_json::Deserializer::from_str(&source.text);
        match serde_path_to_error::deserialize(&mut de) {
            Ok(spec) => spec,
            // A syntax error has no useful path; report it with the parser's line.
            Err(e) if e.inner().is_syntax() || e.inner().is_eof() => {
                let inner = e.into_inner();
                return Err(SpecError {
                    file: source.name.clone(),
                    pointer: String::new(),
                    line: Some(inner.line()),
                    message: format!("invalid JSON: {inner}"),
                });
            }
            Err(e) => {
                // A 2.0 document need not fit the 3.0 model: read it converted.
                let Ok(mut value) = raw_value(source) else {
                    return Err(located(e));
                };
                if crate::swagger2::is_swagger(&value) {
                    return from_swagger(source, &value);
                }
                // A 3.1 document may hold boolean schemas, which the model reads
                // rewritten: only such documents pay for the second pass.
                if !(is_3_1(&value) && crate::boolean_schemas::rewrite(&mut value) > 0) {
                    return Err(located(e));
                }
                serde_path_to_error::deserialize(&value).map_err(located)?
            }
        }
    } else {
        let mut value = raw_value(source)?;
        if crate::swagger2::is_swagger(&value) {
            return from_swagger(source, &value);
        }
        if is_3_1(&value) {
            crate::boolean_schemas::rewrite(&mut value);
        }
        serde_path_to_error::deserialize(&value).map_err(located)?
    };
    if spec.swagger.is_some() && spec.openapi.is_none() {
        // Read again as its 3.0 equivalent: only 2.0 documents pay for the second pass.
        return from_swagger(source, &raw_value(source)?);
    }
    check_version(&spec).map_err(|l| source.error(l))?;
    Ok(spec)
}

/// A Swagger document read as its OpenAPI 3.0 equivalent, the conversion's notes kept
/// on the model.
fn from_swagger(source: &Source, value: &Value) -> Result<OpenApi, SpecError> {
    let converted = crate::swagger2::convert(value).map_err(|l| source.error(l))?;
    let mut spec: OpenApi = serde_path_to_error::deserialize(&converted.document).map_err(|e| {
        let pointer = pointer_of(e.path());
        source.error(Located::new(pointer, e.into_inner().to_string()))
    })?;
    spec.notes = converted.notes;
    check_version(&spec).map_err(|l| source.error(l))?;
    Ok(spec)
}

/// Whether a document says it is OpenAPI 3.1 (whose schemas may be booleans).
fn is_3_1(document: &Value) -> bool {
    document
        .get("openapi")
        .and_then(Value::as_str)
        .is_some_and(|v| v.starts_with("3.1"))
}

/// Rejects documents that are not OpenAPI 3.0 or 3.1.
fn check_version(spec: &OpenApi) -> Result<(), Located> {
    if spec.swagger.is_some() {
        return Err(Located::new(
            "/swagger",
            "Swagger 2.0 documents are not supported; convert to OpenAPI 3.0 or 3.1",
        ));
    }
    match spec.openapi.as_deref() {
        Some(v) if v.starts_with("3.0") || v.starts_with("3.1") => Ok(()),
        Some(v) => Err(Located::new(
            "/openapi",
            format!("OpenAPI version {v} is not supported (3.0.x and 3.1.x are)"),
        )),
        None => Err(Located::new(
            "",
            "not an OpenAPI document: no `openapi` field",
        )),
    }
}

/// Whether the text is JSON (an object) rather than YAML.
fn looks_json(source: &Source) -> bool {
    source.text.trim_start().starts_with('{')
}

/// Parses the text (YAML or JSON) into a JSON value, with the parser's own line on syntax
/// errors: for readers that want the untyped tree (JSON Schema validation, `$ref` walks).
/// A Swagger 2.0 document comes as its OpenAPI 3.0 equivalent, the tree [`parse`] reads,
/// so pointers into one are pointers into the other.
pub fn to_value(source: &Source) -> Result<Value, SpecError> {
    let value = raw_value(source)?;
    if crate::swagger2::is_swagger(&value) {
        return crate::swagger2::convert(&value)
            .map(|c| c.document)
            .map_err(|l| source.error(l));
    }
    Ok(value)
}

/// The text as a JSON value, as written.
pub(crate) fn to_raw_value(source: &Source) -> Result<Value, SpecError> {
    raw_value(source)
}

/// The text as a JSON value, as written.
fn raw_value(source: &Source) -> Result<Value, SpecError> {
    let syntax = |line: Option<usize>, message: String| SpecError {
        file: source.name.clone(),
        pointer: String::new(),
        line,
        message,
    };
    if looks_json(source) {
        return serde_json::from_str(&source.text)
            .map_err(|e| syntax(Some(e.line()), format!("invalid JSON: {e}")));
    }
    let value = crate::yaml::to_json(&source.text).map_err(|e| match e {
        crate::yaml::YamlError::Syntax { line, message } => {
            syntax(line, format!("invalid YAML: {message}"))
        }
        crate::yaml::YamlError::At(located) => source.error(located),
    })?;
    // Said in words before any reader asks the top level for fields ("invalid type: null,
    // expected struct OpenApi" is what serde would say of an empty file).
    let kind = match &value {
        Value::Object(_) => return Ok(value),
        Value::Null => "the file is empty (or holds only comments)",
        Value::Array(_) => "its top level is a list, not a mapping",
        Value::String(_) => "its top level is a string, not a mapping",
        Value::Number(_) | Value::Bool(_) => "its top level is a scalar, not a mapping",
    };
    Err(syntax(None, format!("not an OpenAPI document: {kind}")))
}

/// The JSON pointer of a `serde_path_to_error` path.
fn pointer_of(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut pointer = String::new();
    for segment in path.iter() {
        match segment {
            Segment::Seq { index } => pointer = push_pointer(&pointer, &index.to_string()),
            Segment::Map { key } => pointer = push_pointer(&pointer, key),
            Segment::Enum { variant } => pointer = push_pointer(&pointer, variant),
            Segment::Unknown => {}
        }
    }
    pointer
}

#[cfg(test)]
mod tests {
    use super::*;

    fn src(text: &str) -> Source {
        Source {
            name: "t.yaml".into(),
            text: text.into(),
        }
    }

    #[test]
    fn a_file_that_is_no_openapi_document_says_so_in_words() {
        for (text, words) in [
            ("", "the file is empty"),
            ("# only a comment\n", "the file is empty"),
            ("- a\n- b\n", "top level is a list"),
            ("just words\n", "top level is a string"),
            ("info: {title: t, version: '1'}\n", "no `openapi` field"),
        ] {
            let err = parse(&src(text)).unwrap_err().to_string();
            assert!(
                err.contains("not an OpenAPI document") && err.contains(words),
                "{text:?}: {err}"
            );
            assert!(!err.contains("invalid type"), "{err}");
        }
    }

    #[test]
    fn yaml_integer_keys_become_strings() {
        let s = src(
            "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n      responses:\n        200:\n          description: ok\n",
        );
        let spec = parse(&s).unwrap();
        let op = spec.paths["/a"].get.as_ref().unwrap();
        assert!(op.responses.contains_key("200"));
    }

    #[test]
    fn type_error_names_pointer_and_line() {
        let s = src(
            "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n      parameters:\n        - name: x\n          in: query\n          required: maybe\n",
        );
        let err = parse(&s).unwrap_err().to_string();
        assert!(
            err.contains("/paths/~1a/get/parameters/0/required"),
            "{err}"
        );
        assert!(err.starts_with("t.yaml:9:"), "{err}");
    }

    #[test]
    fn swagger_2_is_read_as_openapi_3_and_other_versions_are_refused() {
        let spec = parse(&src(
            "swagger: '2.0'\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n      responses:\n        200: {description: ok, schema: {$ref: '#/definitions/A'}}\ndefinitions:\n  A: {type: string}\n",
        ))
        .unwrap();
        assert_eq!(spec.openapi.as_deref(), Some("3.0.3"));
        assert!(spec.components.schemas.contains_key("A"));
        assert!(spec.notes[0].message.contains("Swagger 2.0"));
        let err = parse(&src("swagger: '1.2'\n")).unwrap_err().to_string();
        assert!(err.contains("Swagger version 1.2"), "{err}");
        // A converted pointer is located at the 2.0 node it came from.
        let s = src(
            "swagger: '2.0'\ninfo: {title: t, version: '1'}\npaths: {}\ndefinitions:\n  A: {type: string}\n",
        );
        assert_eq!(
            s.error(Located::new("/components/schemas/A", "x")).line,
            Some(5)
        );
    }

    #[test]
    fn bad_json_has_a_line() {
        let s = Source {
            name: "t.json".into(),
            text: "{\n\"openapi\": \n}".into(),
        };
        let err = parse(&s).unwrap_err().to_string();
        assert!(err.starts_with("t.json:3:"), "{err}");
    }
}
