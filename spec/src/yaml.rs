//! The one place YAML is parsed: text becomes a `serde_json::Value`, so every reader after
//! it (spec, contract files, fixtures, data sets) sees one data model with JSON pointers.
//!
//! `serde_yaml` is the design card's choice; keeping it behind this module means a change
//! of YAML library touches one file.

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::error::{Located, push_pointer};

/// Why YAML text could not become a JSON value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum YamlError {
    /// Not YAML at all; the parser's line when it gave one.
    Syntax {
        /// 1-based line.
        line: Option<usize>,
        /// The parser's words.
        message: String,
    },
    /// YAML that JSON cannot hold (a non-scalar key, NaN), at a pointer.
    At(Located),
}

impl std::fmt::Display for YamlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            YamlError::Syntax { message, .. } => f.write_str(message),
            YamlError::At(l) => write!(f, "at {}: {}", l.pointer, l.message),
        }
    }
}

impl std::error::Error for YamlError {}

/// Parses YAML text into a JSON value; scalar mapping keys (an unquoted `200:`) become strings.
pub fn to_json(text: &str) -> Result<Value, YamlError> {
    let yaml: serde_yaml::Value = serde_yaml::from_str(text).map_err(|e| YamlError::Syntax {
        line: e.location().map(|l| l.line()),
        message: e.to_string(),
    })?;
    yaml_to_json(yaml, "").map_err(YamlError::At)
}

/// Parses YAML text straight into a typed value (serde's messages keep YAML line and column).
pub fn from_str<T: DeserializeOwned>(text: &str) -> Result<T, YamlError> {
    serde_yaml::from_str(text).map_err(|e| YamlError::Syntax {
        line: e.location().map(|l| l.line()),
        message: e.to_string(),
    })
}

/// Converts YAML to JSON, turning scalar mapping keys into strings.
fn yaml_to_json(yaml: serde_yaml::Value, pointer: &str) -> Result<Value, Located> {
    use serde_yaml::Value as Y;
    Ok(match yaml {
        Y::Null => Value::Null,
        Y::Bool(b) => Value::Bool(b),
        Y::Number(n) => {
            if let Some(i) = n.as_i64() {
                Value::from(i)
            } else if let Some(u) = n.as_u64() {
                Value::from(u)
            } else {
                let f = n.as_f64().unwrap_or(f64::NAN);
                serde_json::Number::from_f64(f)
                    .map(Value::Number)
                    .ok_or_else(|| {
                        Located::new(pointer, "a number that JSON cannot hold (NaN or infinity)")
                    })?
            }
        }
        Y::String(s) => Value::String(s),
        Y::Sequence(items) => Value::Array(
            items
                .into_iter()
                .enumerate()
                .map(|(i, v)| yaml_to_json(v, &push_pointer(pointer, &i.to_string())))
                .collect::<Result<_, _>>()?,
        ),
        Y::Mapping(map) => {
            let mut out = serde_json::Map::new();
            for (k, v) in map {
                let key = match k {
                    Y::String(s) => s,
                    Y::Number(n) => n.to_string(),
                    Y::Bool(b) => b.to_string(),
                    Y::Null => "null".to_owned(),
                    _ => return Err(Located::new(pointer, "a mapping key that is not a scalar")),
                };
                let child = push_pointer(pointer, &key);
                out.insert(key, yaml_to_json(v, &child)?);
            }
            Value::Object(out)
        }
        Y::Tagged(tagged) => yaml_to_json(tagged.value, pointer)?,
    })
}
