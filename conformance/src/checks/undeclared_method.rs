//! `undeclared_method`: a method the path does not take is rejected, with `Allow` where
//! the spec asks.

use super::{Def, Finding};
use crate::case::{AuthMode, Case, Expect, RequestTemplate, Step};
use crate::plan::builder::{Base, Builder, request};
use crate::registry::{Check, CheckId, Family, row};
use crate::spec::{Level, Operation, Spec};
use crate::transport::Response;

/// Its registry rows ([`crate::checks::TABLE`]).
pub(crate) const DEF: Def = Def {
    rows: &[row(
        Check::UndeclaredMethod,
        "undeclared_method",
        Family::Transport,
        Level::Should,
        "a method the path does not take is rejected, with Allow where the spec asks",
        "spec x-undeclared-method (405 with Allow at SHOULD when absent)",
    )],
    derive: Some(derive),
    lacks: super::lacks_nothing,
    judge: None,
    settings: &[],
};

fn derive(b: &mut Builder<'_>) {
    let (spec, op, base) = (b.spec, b.op, b.base);
    undeclared_method(b, spec, op, base);
}

/// Methods tried on each path; the first one the path does not declare is sent (GET
/// first where writes are not allowed: it changes nothing even on a server that serves it).
const METHODS: &[&str] = &["DELETE", "PUT", "PATCH", "POST", "GET"];

/// The answer to a method a path does not declare, when the spec states none
/// (`x-undeclared-method`): 405 with an `Allow` header (RFC 9110 §15.5.6), at SHOULD.
pub const UNDECLARED_METHOD_DEFAULT: (u16, bool, Level) = (405, true, Level::Should);

/// One request per path with a method the path does not declare, expecting the spec's
/// `x-undeclared-method` answer ([`UNDECLARED_METHOD_DEFAULT`] without it); reported under
/// the path's first operation.
fn undeclared_method(b: &mut Builder<'_>, spec: &Spec, op: &Operation, base: &Base) {
    let (status, allow_header, level) = spec
        .decisions
        .undeclared_method
        .unwrap_or(UNDECLARED_METHOD_DEFAULT);
    let siblings: Vec<&Operation> = spec
        .operations
        .iter()
        .filter(|o| o.path == op.path)
        .collect();
    if siblings.first().is_none_or(|first| first.id != op.id) {
        return;
    }
    // An undeclared GET first: any other method may change state on a server that
    // serves it undeclared, and the run's safety gate skips it unless allowed.
    let undeclared = |m: &&&str| !siblings.iter().any(|o| o.method == **m);
    let Some(method) = METHODS
        .iter()
        .rev()
        .take(1)
        .find(undeclared)
        .or_else(|| METHODS.iter().find(undeclared))
    else {
        return;
    };
    let request = RequestTemplate {
        method: Some((*method).to_string()),
        ..request(op, base.params.clone(), None, AuthMode::Token)
    };
    b.cases.push(Case {
        id: format!("{}/undeclared-method/{method}", op.id),
        operation: op.id.clone(),
        check: Check::UndeclaredMethod.into(),
        level,
        steps: vec![Step {
            request,
            expect: Expect::MethodNotAllowed {
                allowed: op.method.clone(),
                status,
                allow_header,
            },
            capture: Vec::new(),
            asserts: Vec::new(),
        }],
        serial: false,
        skip: None,
        requires: Vec::new(),
        cap: None,
    });
}

/// Judges the answer to a method the path does not declare: not a success, the status the
/// spec's `x-undeclared-method` fixes, and an `Allow` header naming `allowed` where it asks.
pub(super) fn judge(
    check: &CheckId,
    level: Level,
    allowed: &str,
    status: u16,
    allow_header: bool,
    resp: &Response,
) -> Finding {
    let expected = if allow_header {
        format!("a rejection; status {status} with Allow naming {allowed}")
    } else {
        format!("a rejection; status {status}")
    };
    if (200..300).contains(&resp.status) {
        return Finding::new(
            check,
            level,
            expected,
            Err(format!("accepted with status {}", resp.status)),
        );
    }
    let allow = resp.header("allow").unwrap_or("");
    let names = allow
        .split(',')
        .any(|m| m.trim().eq_ignore_ascii_case(allowed));
    let outcome = if resp.status != status {
        Err(format!("status {} instead of {status}", resp.status))
    } else if allow_header && !names {
        Err(format!("Allow header {allow:?} does not name {allowed}"))
    } else {
        Ok(())
    };
    Finding::new(check, level, expected, outcome)
}

#[cfg(test)]
mod tests {
    use super::super::expectation::expectation;
    use super::*;
    use crate::checks::test_support::{resp, spec};
    use crate::outcome::Verdict;
    use serde_json::json;

    #[test]
    fn an_undeclared_method_wants_405_with_allow() {
        let spec = spec();
        let op = spec.operation("suggestRiskCategories").unwrap();
        let expect = Expect::MethodNotAllowed {
            allowed: "GET".into(),
            status: 405,
            allow_header: true,
        };
        let mut r = resp(405, json!({"errorText": "no"}));
        let judge = |r: &Response| {
            expectation(
                op,
                &Check::UndeclaredMethod.into(),
                Level::Should,
                &expect,
                r,
            )
            .unwrap()
        };
        assert!(judge(&r).message.contains("Allow"), "no Allow header");
        r.headers.push(("allow".into(), "GET, HEAD".into()));
        assert_eq!(judge(&r).verdict, Verdict::Passed);
        r.status = 404;
        assert_eq!(judge(&r).verdict, Verdict::Failed);
    }
}
