//! Values for a contract-testing harness, made from the JSON Schemas of an OpenAPI 3.0 or
//! 3.1 document: valid ones (spec examples first, then generated from the keywords) and
//! invalid ones, each made by one deliberate defect in a valid value.
//!
//! The crate knows nothing of HTTP or of any particular API. Input is a schema node (a
//! `serde_json::Value` taken from the document, or a pointer into it) and the whole
//! document, which resolves `#/...` references. Output is JSON values.
//!
//! Randomness comes from a ChaCha8 stream (`rand::rngs::ChaCha8Rng`, its output fixed by
//! the algorithm) seeded from the caller's `u64`, so the same seed gives the same values.
//!
//! A value the generator cannot make is an [`Unsupported`] naming the schema node, never a
//! value that might be wrong: every generated value is checked against the schema with the
//! `jsonschema` crate before it is returned (and every mutation is checked to fail).
//!
//! ```
//! use schema_values::{Direction, Generator, MutationKind};
//! use serde_json::json;
//!
//! let doc = json!({"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {},
//!     "components": {"schemas": {"Pet": {"type": "object", "required": ["name"],
//!         "properties": {"id": {"type": "integer", "readOnly": true},
//!                        "name": {"type": "string", "minLength": 1},
//!                        "tag": {"type": "string", "nullable": true}}}}}});
//! let g = Generator::new(&doc).with_direction(Direction::Request);
//! let pet = &doc["components"]["schemas"]["Pet"];
//! let at = "/components/schemas/Pet";
//! let value = g.generate_at(pet, at, 7).unwrap();
//! assert!(value.get("id").is_none(), "readOnly stays out of a request");
//! assert_eq!(g.generate_at(pet, at, 7).unwrap(), value, "same seed, same value");
//! for v in g.variants_at(pet, at, 7, 4).unwrap() {
//!     assert!(g.validate(pet, &v).is_ok());
//! }
//! let missing = g.mutations_at(pet, at, &value).into_iter()
//!     .find(|m| m.kind == MutationKind::RequiredMissing).unwrap();
//! assert_eq!((missing.keyword, missing.pointer.as_str()), ("required", at));
//! assert!(g.validate(pet, &missing.value).is_err());
//! ```

#![deny(missing_docs)]

mod check;
pub mod dialect;
mod ecma;
mod flat;
mod generate;
mod mutate;
mod numbers;
mod pointer;
mod strings;

use std::sync::Mutex;

use serde_json::Value;

pub use check::Failure;
pub use dialect::Dialect;
pub use mutate::{Mutation, MutationKind};

/// Which side of an exchange a value is for: a request leaves `readOnly` properties out
/// (and does not count them as required), a response leaves `writeOnly` ones out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    /// A value the client sends.
    Request,
    /// A value the server answers.
    Response,
}

/// Why no value (or no valid value) could be made for a schema node.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot generate a value for #{pointer}: {reason}")]
pub struct Unsupported {
    /// JSON pointer (RFC 6901) of the schema node: absolute in the document (e.g.
    /// `/components/schemas/Pet/properties/name`) once a `$ref` was followed or when the
    /// caller gave one, else relative to the schema passed in (`""` is that schema).
    pub pointer: String,
    /// What makes the node impossible to satisfy or beyond this generator.
    pub reason: String,
}

impl Unsupported {
    pub(crate) fn new(pointer: &str, reason: impl Into<String>) -> Unsupported {
        Unsupported {
            pointer: pointer.to_string(),
            reason: reason.into(),
        }
    }
}

/// How a schema is shaped, for callers deciding how to serialise a value (a path or query
/// parameter can carry a scalar directly; objects and arrays need a style or a media type).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// Only strings, numbers, integers, booleans (and possibly null).
    Scalar,
    /// Only arrays (and possibly null).
    Array,
    /// Only objects (and possibly null).
    Object,
    /// Several of the above, or unconstrained.
    Mixed,
}

/// One schema compiled by [`Generator::compile`]: it judges as the generator's
/// [`Generator::validate`] and [`Generator::failures`] do, and can be shared across
/// threads without the generator.
#[derive(Clone)]
pub struct Compiled(std::sync::Arc<jsonschema::Validator>);

impl std::fmt::Debug for Compiled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Compiled")
    }
}

impl Compiled {
    /// [`Generator::validate`] with this schema.
    pub fn validate(&self, value: &Value) -> Result<(), String> {
        check::first_error(&self.0, value)
    }

    /// [`Generator::failures`] with this schema.
    pub fn failures(&self, value: &Value) -> Vec<Failure> {
        check::all_failures(&self.0, value)
    }
}

/// Makes values for the schemas of one OpenAPI document.
///
/// Validators compiled to check examples, `oneOf` branches and results are cached, so one
/// generator per document is the cheap way to use it.
pub struct Generator<'d> {
    pub(crate) doc: &'d Value,
    pub(crate) dialect: Dialect,
    pub(crate) direction: Direction,
    pub(crate) max_depth: usize,
    /// Built on first use: registering a large document for validation takes a moment.
    checker: Mutex<Option<check::Checker>>,
}

impl<'d> Generator<'d> {
    /// A generator for `doc` (the whole OpenAPI document), for requests, with references
    /// followed at most 8 deep on one path.
    pub fn new(doc: &'d Value) -> Generator<'d> {
        let dialect = Dialect::of(doc);
        Generator {
            doc,
            dialect,
            direction: Direction::Request,
            max_depth: 8,
            checker: Mutex::new(None),
        }
    }

    /// The same generator for the other side of the exchange.
    #[must_use]
    pub fn with_direction(mut self, direction: Direction) -> Generator<'d> {
        self.direction = direction;
        self.checker = Mutex::new(None);
        self
    }

    /// How many `$ref`s one path through a value may follow (8 by default); one reference
    /// is followed at most twice on a path, so a recursive schema nests at most twice. A
    /// reference needed past that (a required self-reference) is [`Unsupported`]; an
    /// optional one (a property, an item beyond `minItems`) is left out.
    #[must_use]
    pub fn with_max_depth(mut self, depth: usize) -> Generator<'d> {
        self.max_depth = depth;
        self
    }

    /// The document's OpenAPI dialect (3.0 or 3.1), which decides what `nullable`,
    /// `exclusiveMinimum` and `$ref` siblings mean.
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// The schema at `pointer` (RFC 6901, e.g. `/components/schemas/Pet`) in the document.
    pub fn schema_at(&self, pointer: &str) -> Option<&'d Value> {
        self.doc.pointer(pointer)
    }

    /// One valid value for `schema`: a spec example or default where one validates, else a
    /// generated value. Pointers in errors are relative to `schema` until a `$ref` is
    /// followed.
    pub fn generate(&self, schema: &Value, seed: u64) -> Result<Value, Unsupported> {
        self.generate_at(schema, "", seed)
    }

    /// [`Generator::generate`] for a schema found at `pointer` in the document, so that
    /// errors carry absolute pointers.
    pub fn generate_at(
        &self,
        schema: &Value,
        pointer: &str,
        seed: u64,
    ) -> Result<Value, Unsupported> {
        generate::one(self, schema, pointer, seed, 0)
    }

    /// Up to `max` distinct valid values, chosen to reach every `oneOf`/`anyOf` branch and
    /// `enum` value, and optional properties both present and absent. The first is the
    /// value [`Generator::generate`] gives for the same seed (when that one can be made).
    /// An error only when no value at all can be made.
    pub fn variants(
        &self,
        schema: &Value,
        seed: u64,
        max: usize,
    ) -> Result<Vec<Value>, Unsupported> {
        self.variants_at(schema, "", seed, max)
    }

    /// [`Generator::variants`] for a schema found at `pointer` in the document.
    pub fn variants_at(
        &self,
        schema: &Value,
        pointer: &str,
        seed: u64,
        max: usize,
    ) -> Result<Vec<Value>, Unsupported> {
        generate::variants(self, schema, pointer, seed, max)
    }

    /// Invalid values, each `valid` with exactly one defect, labelled with its kind, the
    /// schema node it breaks and where in the value it is. Only defects the schema truly
    /// rejects are offered: each is checked to fail validation.
    pub fn mutations(&self, schema: &Value, valid: &Value) -> Vec<Mutation> {
        self.mutations_at(schema, "", valid)
    }

    /// [`Generator::mutations`] for a schema found at `pointer` in the document.
    pub fn mutations_at(&self, schema: &Value, pointer: &str, valid: &Value) -> Vec<Mutation> {
        mutate::mutations(self, schema, pointer, valid)
    }

    /// Whether `schema` admits scalars only, arrays only, objects only, or a mix.
    pub fn shape(&self, schema: &Value) -> Shape {
        generate::shape(self, schema)
    }

    /// Whether `value` is valid for `schema` under this generator's dialect and direction
    /// (the check every generated value passes), with the first error otherwise.
    pub fn validate(&self, schema: &Value, value: &Value) -> Result<(), String> {
        self.with_checker(|c| c.validate(schema, None, value))
    }

    /// Every keyword that rejects `value` under `schema`, those inside `oneOf`/`anyOf`
    /// branches included (what a mutation's intended defect can be looked up in).
    pub fn failures(&self, schema: &Value, value: &Value) -> Result<Vec<Failure>, String> {
        self.with_checker(|c| c.failures(schema, None, value))
    }

    /// `schema` compiled once for this generator's dialect and direction, to judge many
    /// values with: [`Generator::validate`] and [`Generator::failures`] find their
    /// validator again on every call (under a lock, keyed by the schema's text), which a
    /// server judging every request by the same few schemas need not pay.
    pub fn compile(&self, schema: &Value) -> Result<Compiled, String> {
        self.with_checker(|c| c.validator(schema, None))
            .map(Compiled)
    }

    /// Whether `value` is valid for the schema `node` (`None`: the schema cannot be
    /// compiled).
    pub(crate) fn is_valid(&self, node: &flat::Node<'_>, value: &Value) -> Option<bool> {
        let key = self.key(node);
        self.with_checker(|c| c.is_valid(node.v, key, value))
    }

    /// [`Generator::validate`] for a node.
    pub(crate) fn validate_node(&self, node: &flat::Node<'_>, value: &Value) -> Result<(), String> {
        let key = self.key(node);
        self.with_checker(|c| c.validate(node.v, key, value))
    }

    /// The first failing keyword's node and message, for a node.
    pub(crate) fn failing_node(
        &self,
        node: &flat::Node<'_>,
        value: &Value,
    ) -> Option<(String, String)> {
        let key = self.key(node);
        self.with_checker(|c| c.failing_node(node.v, key, value))
    }

    /// The node's pointer when it names the node in the document (a cache key that need
    /// not print the schema).
    fn key<'n>(&self, node: &'n flat::Node<'_>) -> Option<&'n str> {
        (!node.ptr.is_empty()
            && self
                .doc
                .pointer(&node.ptr)
                .is_some_and(|d| std::ptr::eq(d, node.v)))
        .then_some(node.ptr.as_str())
    }

    fn with_checker<R>(&self, f: impl FnOnce(&mut check::Checker) -> R) -> R {
        let mut guard = self
            .checker
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let checker = guard
            .get_or_insert_with(|| check::Checker::new(self.doc, self.dialect, self.direction));
        f(checker)
    }
}
