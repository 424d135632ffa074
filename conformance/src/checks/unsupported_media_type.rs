//! `unsupported_media_type`: a body in a media type the operation does not take is
//! rejected.

use super::{Def, RunFacts};
use crate::case::Expect;
use crate::plan::builder::{Base, Builder, raw_body_request};
use crate::registry::{Check, Family, row};
use crate::spec::{Level, Operation};

/// Its registry rows ([`crate::checks::TABLE`]).
pub(crate) const DEF: Def = Def {
    rows: &[row(
        Check::UnsupportedMediaType,
        "unsupported_media_type",
        Family::Inputs,
        Level::Must,
        "a body in a media type the operation does not take is rejected with a 4xx",
        "fixed: MUST reject, an undeclared body is not the operation's input; 415 at its x-level where the operation declares it",
    )],
    derive: Some(derive),
    lacks,
    judge: None,
    settings: &[],
};

fn lacks(_: Check, facts: &RunFacts<'_>) -> Option<String> {
    facts.unless_any(|o| o.body.is_some(), "no operation takes a request body")
}

fn derive(b: &mut Builder<'_>) {
    let (op, base) = (b.op, b.base);
    unsupported_media_type(b, op, base);
}

/// A body in a media type the operation does not take, on every operation with a request
/// body: a rejection (any 4xx) at MUST, an undeclared body is not the operation's input;
/// 415 is fixed, at its `x-level`, where the operation declares it (RFC 9110 §15.5.16).
fn unsupported_media_type(b: &mut Builder<'_>, op: &Operation, base: &Base) {
    let Some(decl) = &op.body else {
        return;
    };
    let takes = |m: &str| {
        decl.content_types.iter().any(|(t, _)| {
            let t = t.to_ascii_lowercase();
            t == m || t == "*/*" || t == "text/*"
        })
    };
    if takes("text/plain") {
        return;
    }
    let request = raw_body_request(
        op,
        base,
        "text/plain",
        "conformance: not a declared media type".into(),
    );
    let declared = op
        .responses
        .iter()
        .find(|r| r.status == "415")
        .map(|r| (415, r.level));
    // Where the body is optional and no 415 is declared, a server may read a body it
    // cannot parse as no body at all (FastAPI does, for Prefect's 38 optional filter
    // bodies): accepting it is a SHOULD departure, not a broken contract.
    let level = if decl.required || declared.is_some() {
        Level::Must
    } else {
        Level::Should
    };
    let expect = Expect::Rejected {
        status: declared,
        body: None,
    };
    b.push(
        "unsupported-media-type".into(),
        Check::UnsupportedMediaType,
        level,
        request,
        expect,
    );
}
