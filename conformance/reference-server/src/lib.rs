//! Reference server (in progress).
