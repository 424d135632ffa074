//! `pattern`: which regular expressions the generated crate checks with the `regex`
//! crate before sending.
//!
//! A spec's `pattern` is ECMA-262 and, as JSON Schema says, matches anywhere in the
//! string unless anchored; `Regex::is_match` searches the same way. `regex` reads the
//! patterns specs hold (classes, anchors, repetition, alternation, `\d`) and refuses
//! what it does not support (look-around, backreferences): such a pattern is a warning
//! and no check, rather than a check that means something else. `regex`'s `\d` and `\w`
//! are Unicode-aware where ECMA-262's are ASCII; they accept more, so a check never
//! refuses a value the spec's own reading of a positive class accepts.

/// `Ok` when the generated crate can check `pattern`; else the warning saying why not.
pub(super) fn check(pattern: &str) -> Result<(), String> {
    regex::Regex::new(pattern).map(drop).map_err(|e| {
        let why = e.to_string();
        let why = why.lines().last().unwrap_or_default().trim().to_owned();
        format!(
            "pattern `{pattern}` is not checked before sending: the `regex` crate cannot \
             read it ({why})"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::check;

    #[test]
    fn patterns_regex_reads_are_checked_and_others_are_said() {
        assert!(check("^[a-z][a-z0-9_-]*$").is_ok());
        assert!(check(r"^\d{3}-\d{4}$").is_ok());
        let why = check("^(?!admin).*$").unwrap_err();
        assert!(why.contains("look-around"), "{why}");
    }
}
