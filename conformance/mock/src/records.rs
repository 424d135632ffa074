//! What `--stateful` keeps: records by collection, in memory, and how they are inferred
//! from any spec.
//!
//! - **Member path**: a template whose last segment is a whole parameter (`/pets/{petId}`)
//!   and whose parent (`/pets` or `/pets/`) the spec declares: that is its **collection**.
//!   Records are kept per concrete collection path, so `/users/1/repos` and
//!   `/users/2/repos` hold different records.
//! - **Alternate key**: a template `<collection>/<literal>/{param}` (`/pets/name/{name}`)
//!   finds the collection's record whose field `param` has the segment's value.
//! - **Key field**: the property named like the member's path parameter (`petId`), else
//!   the parameter's last word (`organization_name` → `name`, `team_slug` → `slug`,
//!   `petId` → `id`), else `id`; a record without any can be listed but not read back.
//!   Where the create's generated key does not fit the member path parameter's schema
//!   (a `number` id read back through an `integer` parameter), it is generated again
//!   from the parameter's schema.
//! - **Create**: a `POST` to a collection (answered with a value generated from its
//!   success response's schema, seeded afresh so keys differ, with the request body's
//!   fields laid over it), or a `PUT` to a member (the key field set from the path).
//! - **Read, update, delete**: `GET`, `PATCH` (the body's top-level fields merged in) and
//!   `DELETE` of a member find the record by the path's last segment. A deleted record
//!   read or updated is a 404. A record never kept, or deleted again, is a 404 where the
//!   operation declares one (exactly, by class or as `default`); where it does not, the
//!   request is answered as in stateless mode, so that the mock answers no status its
//!   spec does not declare to a request for a key its own generated answers may have
//!   shown (a repeated `DELETE` is idempotent, RFC 9110 §9.2.2). A `GET` of a collection whose answer is a list, or an object with exactly one
//!   list property (an envelope), answers the kept records there.
//!
//! An answer is the record fitted to the response's schema ([`fit`]): each field of the
//! record that the schema accepts in place of the generated one.

use std::collections::HashMap;
use std::sync::Mutex;

use indexmap::IndexMap;
use schema_values::Generator;
use serde_json::Value;

use crate::coerce::{properties_of, resolve, types_of};
use crate::operations::Schema;
use crate::routes::Template;

/// What a template is to the store.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Role {
    /// A collection, with the index of its member template.
    Collection { member: usize },
    /// A member: its path parameter; `by` names the record field it matches when the
    /// path is an alternate key (`/pets/name/{name}`), `None` for the key field itself.
    Member { param: String, by: Option<String> },
    /// Neither.
    Other,
}

impl Role {
    /// How many trailing segments lead from a member's path to its collection's.
    pub fn depth(&self) -> usize {
        match self {
            Role::Member { by: Some(_), .. } => 2,
            _ => 1,
        }
    }
}

/// The role of each template, by index.
pub(crate) fn roles(templates: &[Template]) -> Vec<Role> {
    let norm = |t: &str| t.trim_end_matches('/').to_owned();
    let index_of = |text: &str| templates.iter().position(|o| norm(&o.text) == norm(text));
    let mut out = vec![Role::Other; templates.len()];
    // Primary members: the parent path is declared.
    for (m, t) in templates.iter().enumerate() {
        let (Some(param), Some(parent)) = (t.last_param(), t.parent_text()) else {
            continue;
        };
        if let Some(c) = index_of(&parent).filter(|c| templates[*c].last_param().is_none()) {
            out[m] = Role::Member {
                param: param.to_owned(),
                by: None,
            };
            if out[c] == Role::Other {
                out[c] = Role::Collection { member: m };
            }
        }
    }
    // Alternate keys: `<collection>/<literal>/{param}`.
    for (m, t) in templates.iter().enumerate() {
        let (Some(param), Some(parent)) = (t.last_param(), t.parent_text()) else {
            continue;
        };
        if out[m] != Role::Other || parent.ends_with('}') {
            continue;
        }
        let Some((grand, _)) = parent.rsplit_once('/') else {
            continue;
        };
        if index_of(grand).is_some_and(|c| matches!(out[c], Role::Collection { .. })) {
            out[m] = Role::Member {
                param: param.to_owned(),
                by: Some(param.to_owned()),
            };
        }
    }
    out
}

type Records = HashMap<String, IndexMap<String, Value>>;

/// The records kept, by concrete collection path, then by key text; and those deleted,
/// so that a read after a delete is a 404 whatever the spec declares.
#[derive(Debug, Default)]
pub(crate) struct Store {
    state: Mutex<(Records, Records)>,
}

/// Which of a collection's records a request names.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Name<'a> {
    /// By key text, given to the member's path parameter `param` (also matched against
    /// each record's [`key_candidates`] fields).
    Key { param: &'a str, key: &'a str },
    /// By a field's text.
    Field(&'a str, &'a str),
}

fn lookup(records: &Records, collection: &str, name: Name<'_>) -> Option<(String, Value)> {
    let c = records.get(collection)?;
    match name {
        Name::Key { param, key } => c.get(key).map(|v| (key.to_owned(), v.clone())).or_else(|| {
            let fields = key_candidates(param);
            c.iter()
                .find(|(_, r)| {
                    fields.iter().any(|f| {
                        r.get(f.as_str())
                            .is_some_and(|v| spec_model::encode::scalar_text(v) == key)
                    })
                })
                .map(|(k, v)| (k.clone(), v.clone()))
        }),
        Name::Field(f, text) => c
            .iter()
            .find(|(_, r)| {
                r.get(f)
                    .is_some_and(|v| spec_model::encode::scalar_text(v) == text)
            })
            .map(|(k, v)| (k.clone(), v.clone())),
    }
}

impl Store {
    fn with<R>(&self, f: impl FnOnce(&mut (Records, Records)) -> R) -> R {
        let mut guard = self
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        f(&mut guard)
    }

    /// Keeps `record` under `key` in `collection`.
    pub fn put(&self, collection: &str, key: String, record: Value) {
        self.with(|(r, gone)| {
            if let Some(g) = gone.get_mut(collection) {
                g.shift_remove(&key);
            }
            r.entry(collection.to_owned())
                .or_default()
                .insert(key, record)
        });
    }

    /// The key and record `name` finds.
    pub fn get(&self, collection: &str, name: Name<'_>) -> Option<(String, Value)> {
        self.with(|(r, _)| lookup(r, collection, name))
    }

    /// Whether `name` finds a record that was deleted.
    pub fn is_gone(&self, collection: &str, name: Name<'_>) -> bool {
        self.with(|(_, gone)| lookup(gone, collection, name).is_some())
    }

    /// Removes the record under `key`, remembering it as deleted.
    pub fn remove(&self, collection: &str, key: &str) {
        self.with(|(r, gone)| {
            if let Some(v) = r.get_mut(collection).and_then(|c| c.shift_remove(key)) {
                gone.entry(collection.to_owned())
                    .or_default()
                    .insert(key.to_owned(), v);
            }
        });
    }

    /// Every record of `collection`, oldest first.
    pub fn list(&self, collection: &str) -> Vec<Value> {
        self.with(|(r, _)| {
            r.get(collection)
                .map(|c| c.values().cloned().collect())
                .unwrap_or_default()
        })
    }
}

/// The fields a member's path parameter `param` may name a record by, in order: the
/// parameter's own name, its last word (`organization_name` → `name`, `petId` → `id`),
/// then `id`.
pub(crate) fn key_candidates(param: &str) -> Vec<String> {
    let last_word = match param.rfind(['_', '-']) {
        Some(i) => param[i + 1..].to_owned(),
        None => match param.rfind(|c: char| c.is_ascii_uppercase()) {
            Some(i) if i > 0 => param[i..].to_ascii_lowercase(),
            _ => param.to_owned(),
        },
    };
    let mut out = vec![param.to_owned()];
    for f in [last_word, "id".to_owned()] {
        if !f.is_empty() && !out.contains(&f) {
            out.push(f);
        }
    }
    out
}

/// The key field of a record of a member path with parameter `param`: the first of
/// [`key_candidates`] the record has as a scalar.
pub(crate) fn key_field(record: &Value, param: &str) -> Option<String> {
    key_candidates(param).into_iter().find(|k| {
        record
            .get(k.as_str())
            .is_some_and(|v| !v.is_object() && !v.is_array() && !v.is_null())
    })
}

/// `over`'s top-level fields laid over `base` (an object; anything else is replaced).
pub(crate) fn merge(base: Value, over: &Value) -> Value {
    match (base, over) {
        (Value::Object(mut b), Value::Object(o)) => {
            for (k, v) in o {
                b.insert(k.clone(), v.clone());
            }
            Value::Object(b)
        }
        (b, Value::Null) => b,
        (_, o) => o.clone(),
    }
}

/// `record` shaped to `schema`: the record itself when it is valid, else `generated` with
/// each field of the record that keeps it valid laid over it.
pub(crate) fn fit(
    g: &Generator<'static>,
    schema: &Schema,
    generated: Value,
    record: &Value,
) -> Value {
    if g.validate(schema.value, record).is_ok() {
        return record.clone();
    }
    let (Value::Object(mut out), Value::Object(fields)) = (generated.clone(), record) else {
        return generated;
    };
    for (k, v) in fields {
        let before = out.insert(k.clone(), v.clone());
        if g.validate(schema.value, &Value::Object(out.clone()))
            .is_err()
        {
            match before {
                Some(b) => out.insert(k.clone(), b),
                None => out.remove(k),
            };
        }
    }
    Value::Object(out)
}

/// Where a list answer holds its items: `None` for the whole body (a list schema),
/// `Some(name)` for an envelope's one list property.
pub(crate) fn list_slot(doc: &Value, schema: &Value) -> Option<Option<String>> {
    let types = types_of(doc, schema);
    if types.iter().any(|t| t == "array") {
        return Some(None);
    }
    let lists: Vec<&str> = properties_of(doc, resolve(doc, schema))
        .into_iter()
        .filter(|(_, s)| types_of(doc, s).iter().any(|t| t == "array"))
        .map(|(n, _)| n)
        .collect();
    match lists.as_slice() {
        [one] => Some(Some((*one).to_owned())),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_member_path_makes_its_parent_a_collection() {
        let t: Vec<Template> = [
            "/pets/",
            "/pets/{petId}",
            "/pets/{petId}/photos",
            "/pets/search",
        ]
        .iter()
        .map(|p| Template::parse(p))
        .collect();
        let r = roles(&t);
        assert_eq!(r[0], Role::Collection { member: 1 });
        assert_eq!(
            r[1],
            Role::Member {
                param: "petId".into(),
                by: None
            }
        );
        assert_eq!(r[2], Role::Other);
        assert_eq!(r[3], Role::Other);
        let t: Vec<Template> = ["/pets", "/pets/{id}", "/pets/name/{name}", "/owners/{id}"]
            .iter()
            .map(|p| Template::parse(p))
            .collect();
        let r = roles(&t);
        assert_eq!(
            r[2],
            Role::Member {
                param: "name".into(),
                by: Some("name".into())
            }
        );
        assert_eq!(r[3], Role::Other, "no collection is declared");
    }

    #[test]
    fn the_key_is_the_path_parameter_else_id() {
        let rec = serde_json::json!({"id": 3, "petId": "p1"});
        assert_eq!(key_field(&rec, "petId").as_deref(), Some("petId"));
        assert_eq!(key_field(&rec, "other").as_deref(), Some("id"));
        assert_eq!(key_field(&serde_json::json!({"name": "x"}), "petId"), None);
        assert_eq!(
            key_candidates("organization_name"),
            ["organization_name", "name", "id"]
        );
        assert_eq!(key_candidates("petId"), ["petId", "id"]);
        assert_eq!(key_candidates("team_slug"), ["team_slug", "slug", "id"]);
    }
}
