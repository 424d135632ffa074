//! Placeholder while the generator is written.
