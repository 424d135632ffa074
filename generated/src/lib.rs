//! Generated crate.
