//! Conformance.
