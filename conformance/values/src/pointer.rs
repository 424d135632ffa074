//! JSON pointers (RFC 6901) to schema nodes and into values.

/// One segment escaped (`~` as `~0`, `/` as `~1`).
pub(crate) fn escape(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

/// `base` extended by one segment.
pub(crate) fn child(base: &str, segment: &str) -> String {
    format!("{base}/{}", escape(segment))
}

#[cfg(test)]
mod tests {
    #[test]
    fn escapes_as_rfc_6901_says() {
        assert_eq!(super::child("/paths", "/a/{id}~x"), "/paths/~1a~1{id}~0x");
    }
}
