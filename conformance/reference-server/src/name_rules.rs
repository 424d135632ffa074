//! The contact update's name rules (decisions 17-19): each name 1..=64 characters and
//! not blank (a schema violation: 400), both together at most 60 (a business rule: 200
//! with `errorText`). Characters are Unicode scalar values. The router has judged the
//! schema's lengths and pattern before a handler runs; what is left for the clean server
//! is what no regex engine agrees on (blank, below) and the combined rule, which it asks
//! of the generated `validate()`, so the rule has one source, the spec. The seeded
//! faults re-implement the rules wrongly on purpose.

use trading_api::models::UpdateContactInfoName;

use crate::fault::{Fault, Faults};

/// What to do with an update request.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Apply it.
    Accept,
    /// 400: the request breaks the schema.
    Malformed(String),
    /// 200 with this `errorText`: the request breaks the combined rule.
    Rejected(String),
}

const MAX_FIELD: usize = 64;
const MAX_COMBINED: usize = 60;

pub(crate) fn check_names(request: &UpdateContactInfoName, faults: &Faults) -> Verdict {
    let bytes = faults.has(Fault::BytesCounted);
    let off_by_one = faults.has(Fault::CombinedRuleOffByOne);
    if !bytes && !off_by_one {
        return match blank_field(request) {
            Some(name) => Verdict::Malformed(format!("{name} must not be empty or blank")),
            None => generated_rule(request),
        };
    }
    let count = |s: &str| if bytes { s.len() } else { s.chars().count() };
    for (name, value) in [
        ("firstName", &request.first_name),
        ("lastName", &request.last_name),
    ] {
        if count(value) > MAX_FIELD {
            return Verdict::Malformed(format!("{name} is longer than {MAX_FIELD} characters"));
        }
        if is_blank(value) {
            return Verdict::Malformed(format!("{name} must not be empty or blank"));
        }
    }
    let max = if off_by_one {
        MAX_COMBINED + 1
    } else {
        MAX_COMBINED
    };
    if count(&request.first_name) + count(&request.last_name) > max {
        return Verdict::Rejected(format!(
            "firstName and lastName together exceed {MAX_COMBINED} characters"
        ));
    }
    Verdict::Accept
}

/// The first name field that breaks the spec's `pattern: \S` (no non-blank character).
fn blank_field(request: &UpdateContactInfoName) -> Option<&'static str> {
    [
        ("firstName", &request.first_name),
        ("lastName", &request.last_name),
    ]
    .into_iter()
    .find(|(_, v)| is_blank(v))
    .map(|(n, _)| n)
}

/// Whether a string has no character outside `\s`. Regex engines disagree on `\s`
/// beyond Unicode's White_Space (Python adds U+001C..U+001F, JavaScript adds U+FEFF);
/// counting all of them as blank keeps the server strict wherever a client's reading
/// of the pattern could call the value blank.
fn is_blank(value: &str) -> bool {
    value
        .chars()
        .all(|c| c.is_whitespace() || matches!(c, '\u{1c}'..='\u{1f}' | '\u{feff}'))
}

/// The clean rule, as the generated `validate()` states it from the spec.
fn generated_rule(request: &UpdateContactInfoName) -> Verdict {
    match request.validate() {
        Ok(()) => Verdict::Accept,
        Err(v) if v.is_combined() => Verdict::Rejected(format!(
            "firstName and lastName together exceed {MAX_COMBINED} characters ({v})"
        )),
        Err(v) => Verdict::Malformed(v.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(first: &str, last: &str) -> UpdateContactInfoName {
        UpdateContactInfoName::builder()
            .first_name(first)
            .last_name(last)
            .country("GB")
            .phone("1")
            .build()
    }

    fn clean(r: &UpdateContactInfoName) -> Verdict {
        check_names(r, &Faults::default())
    }

    #[test]
    fn characters_not_bytes() {
        for ch in ["a", "é", "中", "😀"] {
            let thirty = ch.repeat(30);
            assert_eq!(clean(&req(&thirty, &thirty)), Verdict::Accept, "{ch}");
            let rejected = clean(&req(&thirty, &ch.repeat(31)));
            assert!(
                matches!(rejected, Verdict::Rejected(_)),
                "{ch}: {rejected:?}"
            );
        }
        assert!(matches!(
            clean(&req(&"é".repeat(65), "x")),
            Verdict::Malformed(_)
        ));
        assert_eq!(clean(&req(&"é".repeat(59), "x")), Verdict::Accept);
    }

    #[test]
    fn blank_names_are_malformed() {
        for blank in ["", " ", "\u{c}", "\u{1c}", "\u{feff}", "\u{3000}"] {
            assert!(
                matches!(clean(&req(blank, "x")), Verdict::Malformed(_)),
                "{blank:?}"
            );
            assert!(
                matches!(clean(&req("x", blank)), Verdict::Malformed(_)),
                "{blank:?}"
            );
        }
    }

    #[test]
    fn faults_change_the_rule() {
        let bytes = Faults::new(&[Fault::BytesCounted]);
        assert!(matches!(
            check_names(&req(&"é".repeat(30), "a"), &bytes),
            Verdict::Rejected(_)
        ));
        let off = Faults::new(&[Fault::CombinedRuleOffByOne]);
        assert_eq!(
            check_names(&req(&"a".repeat(30), &"b".repeat(31)), &off),
            Verdict::Accept
        );
    }
}
