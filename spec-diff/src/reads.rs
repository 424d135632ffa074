//! Whether the crate generated from the old spec reads an answer the new spec allows,
//! decided from that crate's own types (the generator's IR), not from what a rule hopes.
//!
//! A finding about answers names a place in the old document (a component's property, an
//! operation's response body, a union). The place is looked up in the old crate's IR, and
//! the type found there decides: an `Option` field reads `null`, a generated enum keeps an
//! unknown value in its fallback, a union's fallback (or a variant of any JSON) keeps a
//! shape none of its branches has, a struct skips fields it does not name, and a
//! `serde_json::Value` reads anything, so every change beneath one is read. The clients
//! check limits only on what they send, so a widened limit in an answer is always read.

use std::collections::HashMap;

use codegen::ir::{Api, Field, Payload, StatusMatch, Ty, TypeDef};

use crate::Finding;

/// The old crate's types, by the names the spec gives them.
pub struct Reader<'a> {
    api: &'a Api,
    types: HashMap<&'a str, &'a TypeDef>,
    components: HashMap<&'a str, &'a str>,
}

/// Where a pointer of the old document leads in the old crate.
#[derive(Clone, Copy)]
enum At<'a> {
    /// A value of this type.
    Ty(&'a Ty),
    /// A model.
    Def(&'a TypeDef),
    /// A struct field (its type, and whether the Rust field is an `Option`).
    Field(&'a Field),
    /// Inside a value read as any JSON (`serde_json::Value`, or a union that keeps what
    /// none of its branches accepts): whatever comes is read.
    Anything,
    /// An operation (its statuses are the question).
    Operation,
}

impl<'a> Reader<'a> {
    /// The reader of a crate's IR.
    pub fn new(api: &'a Api) -> Reader<'a> {
        Reader {
            api,
            types: api.types.iter().map(|t| (t.name(), t)).collect(),
            components: api
                .components
                .iter()
                .map(|(key, name)| (key.as_str(), name.as_str()))
                .collect(),
        }
    }

    /// Whether the old crate reads the answers `finding` describes, judged at `pointer` of
    /// the old document; `None` when that place has no type in the crate.
    pub fn reads_through(&self, finding: &Finding, pointer: &str) -> Option<bool> {
        let at = self.locate(pointer)?;
        let opened = self.open(self.inner(at));
        let reads_null = |ty: &Ty| matches!(ty, Ty::Option(_) | Ty::Unit | Ty::Json);
        Some(match (finding.rule, at) {
            (_, At::Anything) => true,
            ("response-became-nullable", At::Field(f)) => {
                f.optional() || reads_null(&f.ty) || matches!(opened, At::Anything)
            }
            ("response-became-nullable", At::Ty(t)) => {
                reads_null(t) || matches!(opened, At::Anything)
            }
            ("response-optional-property-removed", At::Field(f)) => {
                f.optional() || f.default.is_some()
            }
            ("response-became-nullable" | "response-optional-property-removed", _) => false,
            (rule, _) => judge(rule, opened),
        })
    }

    /// The value's type at a place: a field's type, an `Option`'s content.
    fn inner(&self, at: At<'a>) -> At<'a> {
        match at {
            At::Field(f) => At::Ty(&f.ty),
            At::Ty(Ty::Option(t)) => At::Ty(t),
            _ => at,
        }
    }

    /// The type a pointer leads to: a component's model or an operation's answer, then
    /// each step of the pointer within it.
    fn locate(&self, pointer: &str) -> Option<At<'a>> {
        let segments: Vec<String> = pointer
            .split('/')
            .skip(1)
            .map(|s| s.replace("~1", "/").replace("~0", "~"))
            .collect();
        let segments: Vec<&str> = segments.iter().map(String::as_str).collect();
        let (mut at, rest) = match segments.as_slice() {
            ["components", "schemas", key, rest @ ..] => {
                let name = self.components.get(key)?;
                (At::Def(self.types.get(name)?), rest)
            }
            ["paths", path, method, rest @ ..] => {
                let op = self.api.operations.iter().find(|o| {
                    o.path_template == *path
                        && format!("{:?}", o.method).eq_ignore_ascii_case(method)
                })?;
                match rest {
                    [] | ["responses"] | ["responses", _] => (At::Operation, &[][..]),
                    ["responses", status, "content", _media, "schema", rest @ ..] => {
                        let answer = op.responses.iter().find(|r| covers(&r.status, status))?;
                        match &answer.payload {
                            Payload::Json(ty) => (At::Ty(ty), rest),
                            _ => return None,
                        }
                    }
                    _ => return None,
                }
            }
            _ => return None,
        };
        let mut i = 0;
        while i < rest.len() {
            let (next, used) = self.step(self.open(self.inner(at)), rest[i], rest.get(i + 1))?;
            at = next;
            i += used;
        }
        Some(at)
    }

    /// A named type or alias opened to what it is.
    fn open(&self, at: At<'a>) -> At<'a> {
        let mut at = at;
        for _ in 0..32 {
            at = match at {
                At::Ty(Ty::Json) => At::Anything,
                At::Ty(Ty::Named(name)) => match self.types.get(name.as_str()) {
                    Some(def) => At::Def(def),
                    None => return at,
                },
                At::Def(TypeDef::Alias(a)) => At::Ty(&a.ty),
                // A union keeps any value: in its fallback, or in a variant of any JSON.
                At::Def(TypeDef::Union(_)) => return At::Anything,
                _ => return at,
            };
        }
        at
    }

    /// One step of a pointer (a keyword, and the name or index after it when the keyword
    /// takes one): where it leads and how many segments it used.
    fn step(&self, at: At<'a>, keyword: &str, next: Option<&&str>) -> Option<(At<'a>, usize)> {
        let ty = |at: At<'a>| match at {
            At::Ty(t) => Some(t),
            _ => None,
        };
        if let At::Anything = at {
            return Some((At::Anything, 1));
        }
        match keyword {
            "properties" => {
                let name = *next?;
                let At::Def(TypeDef::Struct(s)) = at else {
                    return None;
                };
                let field = s.fields.iter().find(|f| f.wire == name && !f.flatten)?;
                Some((At::Field(field), 2))
            }
            "items" => match ty(at)? {
                Ty::Vec(inner) => Some((At::Ty(inner), 1)),
                _ => None,
            },
            "additionalProperties" => {
                if let At::Def(TypeDef::Struct(s)) = at {
                    let map = s.fields.iter().find(|f| f.flatten)?;
                    return match &map.ty {
                        Ty::Map(inner) => Some((At::Ty(inner), 1)),
                        _ => None,
                    };
                }
                match ty(at)? {
                    Ty::Map(inner) => Some((At::Ty(inner), 1)),
                    _ => None,
                }
            }
            // A wrapper the generator lowered away (`anyOf: [X, null]`, `allOf: [X]`):
            // its one part is the value itself.
            "anyOf" | "oneOf" | "allOf" => {
                next?;
                Some((at, 2))
            }
            _ => None,
        }
    }
}

/// Whether a status key of the spec (`200`, `4XX`, `default`) is the IR's status.
fn covers(status: &StatusMatch, key: &str) -> bool {
    match status {
        StatusMatch::Code(c) => key == c.to_string(),
        StatusMatch::Class(c) => key.eq_ignore_ascii_case(&format!("{c}XX")),
        StatusMatch::Default => key == "default",
    }
}

/// What the old type at the place of a change does with the answers the new spec allows.
fn judge(rule: &str, at: At<'_>) -> bool {
    if let At::Anything = at {
        return true;
    }
    match rule {
        "response-enum-value-added" => match at {
            // Every generated enum keeps an unknown value in its fallback variant.
            At::Def(TypeDef::Enum(_)) => true,
            At::Ty(t) => matches!(t, Ty::String),
            _ => false,
        },
        // The place is the old union: reached only when it was not one (a union opens
        // to `Anything` above), so the new branch's values have no home.
        "response-one-of-branch-added" => false,
        // serde skips the fields a struct does not name; the models never deny them.
        "response-property-added" => {
            matches!(at, At::Def(TypeDef::Struct(_)) | At::Ty(Ty::Map(_)))
        }
        // Answers are decoded, never validated: limits are checked on what is sent.
        "response-limits-widened" => true,
        // An undocumented status is returned as the client's unexpected-status error
        // with its body; a status no longer sent changes nothing for the reader.
        "response-status-added" | "response-non-success-status-removed" => {
            matches!(at, At::Operation)
        }
        _ => false,
    }
}
