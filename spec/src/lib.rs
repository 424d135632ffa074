//! The one reader of OpenAPI 3.0/3.1 documents in this workspace.
//!
//! The generator, the conformance harness and the reference server all read a spec through
//! this crate, so they cannot disagree about what it says. [`parse`] turns YAML or JSON text
//! into the typed [`model`]; every problem is a [`SpecError`] with the JSON pointer and line
//! of the node at fault. YAML is parsed in one place, [`yaml`]. A Swagger 2.0 document is
//! read as its OpenAPI 3.0 equivalent ([`swagger2`]), by [`parse`] and [`to_value`] alike;
//! a spec split over several files is read as one by [`bundle`]. Every `$ref` is followed by
//! one resolver, [`refs`], so what a reference names is decided once; operation and type
//! names are made in [`names`], and a parameter's bytes on the wire in [`encode`].

#![warn(missing_docs)]

mod boolean_schemas;
pub mod bundle;
pub mod encode;
mod error;
pub mod extensions;
#[cfg(feature = "fetch")]
pub mod fetch;
mod load;
mod locate;
pub mod model;
pub mod names;
pub mod refs;
mod split;
pub mod swagger2;
pub mod yaml;

pub use error::{Located, SpecError, push_pointer};
pub use extensions::Level;
pub use load::{Source, parse, to_value};
pub use locate::line_of;
