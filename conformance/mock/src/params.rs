//! A request's parameters read back from the wire: the inverse of `spec_model::encode`,
//! which lays out each location and style as a generated client (and the harness) sends
//! it. Lists and objects are split on their style's literal separators before each item is
//! percent-decoded, so an encoded `%2C` inside an item stays part of it. Each text is then
//! read as its schema's type ([`crate::coerce`]).

use http::HeaderMap;
use percent_encoding::percent_decode_str;
use serde_json::Value;
use spec_model::encode::{Location, Style};

use crate::coerce::{object, properties_of, scalar};
use crate::operations::Param;
use crate::reading::{Reading, Shape};

/// A URL component percent-decoded (`+` kept: in a path it is a `+`).
fn decode(raw: &str) -> String {
    percent_decode_str(raw).decode_utf8_lossy().into_owned()
}

/// A query component decoded as `application/x-www-form-urlencoded` (`+` is a space).
fn decode_form(raw: &str) -> String {
    decode(&raw.replace('+', " "))
}

/// The raw `name=value` pairs of a query string, names decoded, values as sent.
pub(crate) fn query_pairs(query: &str) -> Vec<(String, String)> {
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| match p.split_once('=') {
            Some((k, v)) => (decode_form(k), v.to_owned()),
            None => (decode_form(p), String::new()),
        })
        .collect()
}

/// The cookies of the request, names and raw values.
fn cookies(headers: &HeaderMap) -> Vec<(String, String)> {
    headers
        .get_all(http::header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|c| c.trim().split_once('='))
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect()
}

/// Everything one request carries, as sent.
pub(crate) struct Wire<'r> {
    /// Path parameter texts, still percent-encoded, from the route.
    pub path: &'r [(String, String)],
    /// The query string's pairs ([`query_pairs`]).
    pub query: &'r [(String, String)],
    pub headers: &'r HeaderMap,
}

/// The value of `param` in the request, `None` when it is absent.
pub(crate) fn read(doc: &Value, param: &Param, wire: &Wire<'_>) -> Option<Value> {
    let shape = param.reading.shape;
    let texts = match param.location {
        Location::Path => {
            let raw = wire.path.iter().find(|(n, _)| *n == param.name)?.1.as_str();
            path_texts(param, shape, raw)
        }
        Location::Query => query_texts(doc, param, shape, wire.query)?,
        Location::Header => {
            let v = wire.headers.get(param.name.as_str())?.to_str().ok()?;
            split_items(shape, v, ",", str::to_owned)
        }
        Location::Cookie => {
            let cookies = cookies(wire.headers);
            let raw = &cookies.iter().find(|(n, _)| *n == param.name)?.1;
            split_items(shape, raw, ",", decode)
        }
    };
    Some(typed(doc, param, shape, texts))
}

/// What was read, before typing: one text, a list's items, or an object's pairs.
enum Texts {
    One(String),
    List(Vec<String>),
    Pairs(Vec<(String, String)>),
}

fn split_items(shape: Shape, raw: &str, sep: &str, dec: impl Fn(&str) -> String) -> Texts {
    match shape {
        Shape::Scalar => Texts::One(dec(raw)),
        Shape::List if raw.is_empty() => Texts::List(Vec::new()),
        Shape::List => Texts::List(raw.split(sep).map(|s| dec(s.trim())).collect()),
        Shape::Object => {
            let items: Vec<String> = raw.split(sep).map(|s| dec(s.trim())).collect();
            Texts::Pairs(pairs_of(items))
        }
    }
}

/// `k,v,k,v` (or `k=v,k=v`, the exploded form) as pairs.
fn pairs_of(items: Vec<String>) -> Vec<(String, String)> {
    if items.iter().all(|i| i.contains('=')) {
        return items
            .iter()
            .filter_map(|i| i.split_once('='))
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect();
    }
    items
        .chunks(2)
        .map(|c| (c[0].clone(), c.get(1).cloned().unwrap_or_default()))
        .collect()
}

fn path_texts(param: &Param, shape: Shape, raw: &str) -> Texts {
    match param.style {
        Style::Label => {
            let rest = raw.strip_prefix('.').unwrap_or(raw);
            let sep = if param.explode { "." } else { "," };
            split_items(shape, rest, sep, decode)
        }
        Style::Matrix => {
            let rest = raw.strip_prefix(';').unwrap_or(raw);
            let name = spec_model::encode::percent_encode(&param.name);
            let value_of = |p: &str| {
                p.strip_prefix(&name)
                    .map(|v| v.strip_prefix('=').unwrap_or(v).to_owned())
                    .unwrap_or_else(|| p.to_owned())
            };
            if param.explode && shape == Shape::List {
                Texts::List(rest.split(';').map(|p| decode(&value_of(p))).collect())
            } else if param.explode && shape == Shape::Object {
                split_items(shape, rest, ";", decode)
            } else {
                split_items(shape, &value_of(rest), ",", decode)
            }
        }
        _ => split_items(shape, raw, ",", decode),
    }
}

fn query_texts(
    doc: &Value,
    param: &Param,
    shape: Shape,
    pairs: &[(String, String)],
) -> Option<Texts> {
    let named: Vec<&str> = pairs
        .iter()
        .filter(|(n, _)| *n == param.name)
        .map(|(_, v)| v.as_str())
        .collect();
    if param.style == Style::DeepObject {
        let open = format!("{}[", param.name);
        let mut inner = Vec::new();
        for (n, v) in pairs {
            if let Some(key) = n.strip_prefix(&open).and_then(|k| k.strip_suffix(']')) {
                inner.push((key.to_owned(), decode_form(v)));
            }
        }
        if inner.is_empty() {
            return named.first().map(|v| Texts::One(decode_form(v)));
        }
        return Some(match shape {
            Shape::List => Texts::List(inner.into_iter().map(|(_, v)| v).collect()),
            _ => Texts::Pairs(inner),
        });
    }
    match shape {
        Shape::Object if param.explode => {
            let schema = param.schema.as_ref()?.value;
            let props = properties_of(doc, schema);
            let inner: Vec<(String, String)> = pairs
                .iter()
                .filter(|(n, _)| props.iter().any(|(p, _)| p == n))
                .map(|(n, v)| (n.clone(), decode_form(v)))
                .collect();
            (!inner.is_empty()).then_some(Texts::Pairs(inner))
        }
        Shape::List if param.explode => {
            let first = named.first()?;
            if named.len() == 1 && first.is_empty() {
                return Some(Texts::List(Vec::new()));
            }
            Some(Texts::List(named.iter().map(|v| decode_form(v)).collect()))
        }
        Shape::List => {
            let sep = match param.style {
                Style::SpaceDelimited => "%20",
                Style::PipeDelimited => "|",
                _ => ",",
            };
            let raw = named.first()?;
            let raw = if param.style == Style::SpaceDelimited {
                raw.replace('+', "%20")
            } else {
                (*raw).to_owned()
            };
            Some(split_items(shape, &raw, sep, decode_form))
        }
        // A scalar sent more than once is read as the list it is, which its schema
        // refuses (a server would have to pick one of the values at random).
        Shape::Scalar if named.len() > 1 => {
            Some(Texts::List(named.iter().map(|v| decode_form(v)).collect()))
        }
        _ => {
            let raw = named.first()?;
            Some(split_items(shape, raw, ",", decode_form))
        }
    }
}

/// The texts read as the schema's types; a `content` parameter's text as JSON.
fn typed(doc: &Value, param: &Param, shape: Shape, texts: Texts) -> Value {
    let schema = param.schema.as_ref().map(|s| s.value);
    let Reading {
        types, item_types, ..
    } = &param.reading;
    match texts {
        Texts::One(t) if param.json_content => serde_json::from_str(&t).unwrap_or(Value::String(t)),
        Texts::One(t) if shape == Shape::List => Value::Array(vec![scalar(&t, item_types)]),
        Texts::One(t) => scalar(&t, types),
        Texts::List(items) => Value::Array(items.iter().map(|t| scalar(t, item_types)).collect()),
        Texts::Pairs(pairs) => match schema {
            Some(s) => object(doc, s, pairs),
            None => Value::Object(
                pairs
                    .into_iter()
                    .map(|(k, v)| (k, Value::String(v)))
                    .collect(),
            ),
        },
    }
}
