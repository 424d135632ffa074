//! The checks every answer gets: not a server error, a declared status, a declared media
//! type and a body matching its schema (the schema/status family).

use super::{Answer, CheckOptions, Def, Finding, RunFacts};
use crate::case::{AuthMode, Case, Expect, Step};
use crate::registry::{Check, Family, row};
use crate::schema::Validators;
use crate::spec::{Decisions, Level, Operation};
use crate::transport::Response;

/// Why a request was sent, as far as the generic checks care: some answers are not the
/// operation's to declare.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sent {
    /// The operation's own request with the run's credentials.
    AsDeclared,
    /// Without valid credentials on purpose (`ignored_auth`): a 401 or 403 is the answer
    /// asked for, whether the operation declares it or not.
    WithoutCredentials,
    /// For a resource the run has deleted (`use_after_free`, or any request to a path a
    /// `DELETE` of the run emptied): a 404 or 410 is the answer asked for, whether the
    /// operation declares it or not.
    ForGone,
    /// With a path value the harness made up (`+made-up` cases, see
    /// `plan::builder::made_up`): a 404 or 410 says the value names nothing, which is
    /// the target's right, declared or not.
    MadeUp,
    /// Broken on purpose, to be refused (a negative case, a body over the limit, a media
    /// type the operation does not take): where the operation declares no status for
    /// refusing input (none of 400, 422, `4XX`, `default`), a 400, 413, 415 or 422 is
    /// the refusal asked for. OpenAPI does not ask a spec to list every status, and
    /// such a spec leaves the server no declared way to refuse.
    Broken,
    /// Both: broken on purpose, with a made-up path value; either answer was asked for.
    BrokenMadeUp,
}

use crate::spec::is_json_media_type;

/// The checks every answer gets, at the levels of the spec's root `decisions`
/// (`x-server-errors`, `x-undeclared-status`) and of the declared response.
///
/// "Never a 5xx" holds for every spec: `x-server-errors` only sets its level (MUST when
/// absent). An undeclared status is judged at `x-undeclared-status` (MUST when absent, as
/// Schemathesis's `status_code_conformance`), except the answers a request was sent to get
/// (see [`Sent`]): a 401/403 to one sent without credentials on purpose, a 404/410 for a
/// record gone or made up, a refusal of input broken on purpose that the operation has no
/// declared status for.
pub fn generic(
    op: &Operation,
    validators: &Validators,
    resp: &Response,
    decisions: &Decisions,
    sent: Sent,
) -> Vec<Finding> {
    let mut out = vec![Finding::new(
        Check::NotAServerError,
        decisions.server_errors.unwrap_or(Level::Must),
        "a status below 500",
        if resp.status >= 500 {
            Err(format!("server error {}", resp.status))
        } else {
            Ok(())
        },
    )];
    if op.responses.is_empty() {
        out.extend(nothing_declared(op, decisions));
        return out;
    }
    let declared: Vec<&str> = op.responses.iter().map(|r| r.status.as_str()).collect();
    let expected_status = format!("one of the declared statuses {}", declared.join(", "));
    let Some(decl) = op.response(resp.status) else {
        // An answer the request was sent to get, which the operation need not declare.
        let asked_for = asked_for(op, resp.status, sent);
        if let Some(what) = asked_for {
            out.push(Finding::skipped(
                Check::StatusCodeConformance,
                decisions.undeclared_status,
                expected_status,
                format!("{} {what}; {} need not declare it", resp.status, op.id),
            ));
            return out;
        }
        out.push(Finding::new(
            Check::StatusCodeConformance,
            decisions.undeclared_status,
            expected_status,
            Err(format!(
                "status {} is not declared for {}",
                resp.status, op.id
            )),
        ));
        out.extend(content_skipped(
            decisions.undeclared_status,
            "a declared response",
            "the status is not declared",
        ));
        return out;
    };
    out.push(Finding::new(
        Check::StatusCodeConformance,
        decl.level,
        expected_status,
        Ok(()),
    ));
    if decl.content.is_empty() {
        return out;
    }
    // A 1xx, 204 or 304 has no content (RFC 9110 §15.2, §15.3.5, §15.4.5): content its
    // declaration lists cannot come, so neither its type nor its schema is judged.
    if (resp.status < 200 || resp.status == 204 || resp.status == 304) && resp.body.is_empty() {
        let why = format!("a {} has no content, whatever it declares", resp.status);
        out.extend(content_skipped(decl.level, "the declared content", &why));
        return out;
    }
    let mimes: Vec<&str> = decl.content.iter().map(|(m, _)| m.as_str()).collect();
    let got = resp.media_type();
    // The declared key with its parameters (`; charset=utf-8`), or a range (`*/*`),
    // covers the answer's essence; the closest key is the one judged.
    let matching = got.as_deref().and_then(|g| {
        decl.content
            .iter()
            .filter_map(|entry| Some((crate::spec::media_key_covers(&entry.0, g)?, entry)))
            .min_by_key(|(closeness, _)| std::cmp::Reverse(*closeness))
            .map(|(_, entry)| entry)
    });
    out.push(Finding::new(
        Check::ContentTypeConformance,
        decl.level,
        format!("Content-Type {}", mimes.join(" or ")),
        match (&got, matching) {
            (_, Some(_)) => Ok(()),
            (Some(g), None) => Err(format!(
                "Content-Type {g} is not declared for status {}",
                resp.status
            )),
            (None, None) => Err("no Content-Type header".into()),
        },
    ));
    let (mime, _) = matching.unwrap_or(&decl.content[0]);
    let expected = format!(
        "a body matching the {} schema of status {}",
        mime, decl.status
    );
    // A body is judged by its declared media type: bytes (a zip, an image, text) are not
    // broken JSON, and only a JSON media type has a schema this check can validate.
    // Under a range key (`*/*`, `application/*`) the answer's own media type says
    // whether the body is JSON; the schema is still the key's.
    let ranged = got
        .as_deref()
        .is_some_and(|g| crate::spec::media_key_covers(mime, g) == Some(1));
    let json = if ranged {
        got.as_deref().is_some_and(is_json_media_type)
    } else {
        is_json_media_type(mime)
    };
    if !json {
        out.push(Finding::skipped(
            Check::ResponseSchemaConformance,
            decl.level,
            expected,
            format!("a {mime} body is bytes: only JSON bodies are validated against a schema"),
        ));
        return out;
    }
    let outcome = match &resp.json {
        // The operation promises JSON for this status: bytes of another media type (which
        // content_type_conformance reports too) do not give the client the declared body.
        None => Err(match got.as_deref().filter(|g| !is_json_media_type(g)) {
            Some(g) => format!("the body is {g}, not the declared {mime}"),
            None => format!("the body is not JSON, as its {mime} media type says"),
        }),
        Some(body) => match validators.validate(&op.id, &decl.status, mime, body) {
            Some(r) => r,
            None => {
                out.push(Finding::skipped(
                    Check::ResponseSchemaConformance,
                    decl.level,
                    expected,
                    "no schema declared",
                ));
                return out;
            }
        },
    };
    out.push(Finding::new(
        Check::ResponseSchemaConformance,
        decl.level,
        expected,
        outcome,
    ));
    out
}

/// The content-type and schema checks skipped, with why.
fn content_skipped(level: Level, expected: &str, why: &str) -> [Finding; 2] {
    [
        Check::ContentTypeConformance,
        Check::ResponseSchemaConformance,
    ]
    .map(|check| Finding::skipped(check, level, expected, why))
}

/// Its registry rows ([`crate::checks::TABLE`]).
pub(crate) const DEF: Def = Def {
    rows: &[
        row(
            Check::NotAServerError,
            "not_a_server_error",
            Family::SchemaStatus,
            Level::Must,
            "no answer is a 5xx, and an answer comes within the timeout",
            "spec x-server-errors (MUST when absent: a 5xx fails on any spec); fixed MUST for no answer at all",
        ),
        row(
            Check::StatusCodeConformance,
            "status_code_conformance",
            Family::SchemaStatus,
            Level::Must,
            "the status is one the operation declares (not judged: the 401/403 of a request sent without credentials on purpose, the unknown-path and undeclared-method probes)",
            "spec x-level of the declared response; spec x-undeclared-status for any other (MUST when absent)",
        ),
        row(
            Check::ContentTypeConformance,
            "content_type_conformance",
            Family::SchemaStatus,
            Level::Must,
            "the Content-Type is one the status declares",
            "spec x-level of the declared response",
        ),
        row(
            Check::ResponseSchemaConformance,
            "response_schema_conformance",
            Family::SchemaStatus,
            Level::Must,
            "the body matches the declared schema of its status and media type",
            "spec x-level of the declared response",
        ),
    ],
    derive: None,
    lacks,
    judge: Some(judge),
    settings: &[],
};

/// Every answer's status, media type, body and 5xx, as [`generic`] judges them for why
/// the request was sent. A request with a method the path does not declare, and a chain's
/// create (its setup: the create's own cases judge the same request), get only "not a
/// server error": the spec declares no answer for the first, and the second is judged
/// elsewhere.
fn judge(a: &Answer<'_>, _: &CheckOptions) -> Vec<Finding> {
    // A request for a path the run deleted is for a gone record whatever case sent it.
    let sent = match Sent::of(a.case, a.step) {
        Sent::AsDeclared | Sent::MadeUp if a.gone => Sent::ForGone,
        sent => sent,
    };
    let mut findings = generic(a.op, a.validators, a.resp, &a.spec.decisions, sent);
    if a.step.request.method.is_some() || super::chains::is_setup(a.step) {
        findings.truncate(1);
    }
    findings
}

/// The skips of an operation with `responses: {}` (which OpenAPI requires to hold one):
/// no status, media type or schema to conform to, so these checks cannot say anything of
/// the answer.
fn nothing_declared(op: &Operation, decisions: &Decisions) -> Vec<Finding> {
    [
        Check::StatusCodeConformance,
        Check::ContentTypeConformance,
        Check::ResponseSchemaConformance,
    ]
    .into_iter()
    .map(|check| {
        Finding::skipped(
            check,
            decisions.undeclared_status,
            "a declared response",
            format!("{} declares no response at all", op.id),
        )
    })
    .collect()
}

/// Why `status` is an answer a request sent as `sent` asked for, which `op` need not
/// declare; `None` where it is not.
fn asked_for(op: &Operation, status: u16, sent: Sent) -> Option<&'static str> {
    match (sent, status) {
        (Sent::ForGone, 404 | 410) => Some("answers a request for a resource the run deleted"),
        (Sent::MadeUp | Sent::BrokenMadeUp, 404 | 410) => Some(
            "answers a path value the harness made up (no example, default or answer gave one)",
        ),
        // The refusal `ignored_auth` asks for.
        (Sent::WithoutCredentials, 401 | 403) => {
            Some("refuses a request sent without valid credentials on purpose")
        }
        (Sent::Broken | Sent::BrokenMadeUp, 400 | 413 | 415 | 422)
            if op.response(400).is_none() && op.response(422).is_none() =>
        {
            Some(
                "refuses a request broken on purpose, and the operation declares no \
                 status for refusing input (none of 400, 422, 4XX, default)",
            )
        }
        _ => None,
    }
}

impl Sent {
    /// Why `step` of `case` was sent: without the run's credentials, for a resource the
    /// run has just deleted (a chain's read after its delete, or a cleanup's check), with
    /// a made-up path value, broken to be refused, or as the operation declares.
    pub fn of(case: &Case, step: &Step) -> Sent {
        if step.request.auth != AuthMode::Token {
            Sent::WithoutCredentials
        } else if (case.check == Check::UseAfterFree
            && matches!(step.expect, Expect::Rejected { .. }))
            || (case.check == Check::StateRestored && case.id.starts_with("cleanup/"))
        {
            Sent::ForGone
        } else {
            let made_up = case.id.ends_with(crate::plan::builder::MADE_UP);
            match (made_up, matches!(step.expect, Expect::Rejected { .. })) {
                (true, true) => Sent::BrokenMadeUp,
                (true, false) => Sent::MadeUp,
                (false, true) => Sent::Broken,
                (false, false) => Sent::AsDeclared,
            }
        }
    }
}

fn lacks(check: Check, facts: &RunFacts<'_>) -> Option<String> {
    match check {
        Check::NotAServerError | Check::StatusCodeConformance => None,
        _ => facts.unless_any(
            |o| o.responses.iter().any(|r| !r.content.is_empty()),
            "no declared response of the run's operations has content",
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::test_support::{resp, spec};
    use crate::outcome::Verdict;
    use serde_json::{Value, json};

    #[test]
    fn generic_checks_flag_undeclared_status_wrong_type_and_bad_schema() {
        let spec = spec();
        let v = Validators::compile(&spec).unwrap();
        let op = spec.operation("getCategoryPositionLimit").unwrap();
        let mut r = resp(
            200,
            json!({"active": true, "totalBy": "Nope", "riskCategoryId": 1}),
        );
        let f = generic(op, &v, &r, &spec.decisions, Sent::AsDeclared);
        assert_eq!(
            f.iter()
                .find(|x| x.check == "response_schema_conformance")
                .unwrap()
                .verdict,
            Verdict::Failed
        );
        r.headers = vec![("content-type".into(), "text/plain".into())];
        assert_eq!(
            generic(op, &v, &r, &spec.decisions, Sent::AsDeclared)
                .iter()
                .find(|x| x.check == "content_type_conformance")
                .unwrap()
                .verdict,
            Verdict::Failed
        );
        let f = generic(
            op,
            &v,
            &resp(503, json!({})),
            &spec.decisions,
            Sent::AsDeclared,
        );
        assert_eq!(f[0].verdict, Verdict::Failed);
        assert_eq!(f[1].verdict, Verdict::Failed, "503 is not declared");
    }

    #[test]
    fn a_404_for_a_path_the_run_deleted_need_not_be_declared() {
        use crate::checks::judge::test_support::on_answer_to;
        let options = CheckOptions::default();
        let status = |gone: bool| {
            on_answer_to(judge, &options, &resp(404, json!({})), gone)
                .into_iter()
                .find(|f| f.check == Check::StatusCodeConformance)
                .unwrap()
                .verdict
        };
        assert_eq!(status(false), Verdict::Failed, "404 is not declared");
        assert_eq!(
            status(true),
            Verdict::Skipped,
            "the answer a deleted record gets"
        );
    }

    #[test]
    fn an_undeclared_status_is_judged_at_the_spec_s_level() {
        let mut spec = spec();
        let v = Validators::compile(&spec).unwrap();
        let op = spec.operation("getCategoryPositionLimit").unwrap().clone();
        let level = |spec: &crate::spec::Spec| {
            let f = generic(
                &op,
                &v,
                &resp(418, json!({})),
                &spec.decisions,
                Sent::AsDeclared,
            );
            assert_eq!(f[1].check, Check::StatusCodeConformance);
            assert_eq!(f[1].verdict, Verdict::Failed);
            f[1].level
        };
        assert_eq!(level(&spec), Level::Should, "x-undeclared-status: should");
        spec.decisions.undeclared_status = Level::Must;
        assert_eq!(level(&spec), Level::Must);
    }

    fn foreign() -> crate::spec::Spec {
        crate::spec::Spec::parse(
            r#"{"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
                "paths": {"/export": {"get": {"operationId": "exportFlows",
                  "responses": {
                    "200": {"description": "a zip", "content": {"application/zip":
                      {"schema": {"type": "string", "format": "binary"}}}},
                    "422": {"description": "invalid", "content": {"application/problem+json":
                      {"schema": {"type": "object", "required": ["detail"]}}}}}}}}}"#,
        )
        .unwrap()
    }

    fn bytes(status: u16, content_type: &str, body: &[u8]) -> Response {
        Response {
            status,
            headers: vec![("content-type".into(), content_type.into())],
            body: body.to_vec(),
            json: serde_json::from_slice(body).ok(),
            elapsed: std::time::Duration::ZERO,
            retries: 0,
        }
    }

    fn verdict(f: &[Finding], check: Check) -> (Verdict, Level, String) {
        let x = f.iter().find(|x| x.check == check).unwrap();
        (x.verdict, x.level, x.message.clone())
    }

    #[test]
    fn without_x_server_errors_a_5xx_is_a_must_failure_and_an_undeclared_status_too() {
        let spec = foreign();
        assert_eq!(spec.decisions.server_errors, None);
        let v = Validators::compile(&spec).unwrap();
        let op = spec.operation("exportFlows").unwrap();
        let f = generic(
            op,
            &v,
            &resp(500, json!({})),
            &spec.decisions,
            Sent::AsDeclared,
        );
        let (verdict_, level, _) = verdict(&f, Check::NotAServerError);
        assert_eq!((verdict_, level), (Verdict::Failed, Level::Must));
        let f = generic(
            op,
            &v,
            &resp(404, json!({})),
            &spec.decisions,
            Sent::AsDeclared,
        );
        assert_eq!(verdict(&f, Check::NotAServerError).0, Verdict::Passed);
        let (verdict_, level, _) = verdict(&f, Check::StatusCodeConformance);
        assert_eq!((verdict_, level), (Verdict::Failed, Level::Must));
    }

    #[test]
    fn a_refusal_of_a_request_sent_without_credentials_need_not_be_declared() {
        let spec = foreign();
        let v = Validators::compile(&spec).unwrap();
        let op = spec.operation("exportFlows").unwrap();
        for status in [401, 403] {
            let r = resp(status, json!({}));
            let f = generic(op, &v, &r, &spec.decisions, Sent::WithoutCredentials);
            assert_eq!(
                verdict(&f, Check::StatusCodeConformance).0,
                Verdict::Skipped
            );
            let f = generic(op, &v, &r, &spec.decisions, Sent::AsDeclared);
            assert_eq!(verdict(&f, Check::StatusCodeConformance).0, Verdict::Failed);
        }
        let f = generic(
            op,
            &v,
            &resp(404, json!({})),
            &spec.decisions,
            Sent::WithoutCredentials,
        );
        assert_eq!(verdict(&f, Check::StatusCodeConformance).0, Verdict::Failed);
    }

    /// A spec with an operation that declares no way to refuse input, one that declares
    /// none at all, and content keys with parameters and as a range.
    fn unrefusing() -> crate::spec::Spec {
        crate::spec::Spec::parse(
            r#"{"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
                "paths": {"/a": {"get": {"operationId": "plain",
                  "responses": {"200": {"description": "ok", "content": {
                    "application/json; charset=utf-8": {"schema": {"type": "object", "required": ["n"]}}}}}}},
                  "/b": {"get": {"operationId": "anything", "responses": {
                    "200": {"description": "ok", "content": {"*/*": {"schema": {"type": "object", "required": ["n"]}}}},
                    "422": {"description": "refused"}}}},
                  "/c": {"get": {"operationId": "silent", "responses": {}}},
                  "/d": {"get": {"operationId": "upgrade", "responses": {
                    "101": {"description": "switching", "content": {"*/*": {"schema": {}}}}}},
                    "delete": {"operationId": "remove", "responses": {
                    "204": {"description": "gone", "content": {"application/json": {"schema": {"type": "object"}}}}}}}}}"#,
        )
        .unwrap()
    }

    #[test]
    fn a_refusal_of_input_broken_on_purpose_need_not_be_declared_where_no_refusal_is() {
        let spec = unrefusing();
        let v = Validators::compile(&spec).unwrap();
        let plain = spec.operation("plain").unwrap();
        for status in [400, 413, 415, 422] {
            let r = resp(status, json!({}));
            for sent in [Sent::Broken, Sent::BrokenMadeUp] {
                let f = generic(plain, &v, &r, &spec.decisions, sent);
                assert_eq!(
                    verdict(&f, Check::StatusCodeConformance).0,
                    Verdict::Skipped
                );
            }
            let f = generic(plain, &v, &r, &spec.decisions, Sent::AsDeclared);
            assert_eq!(verdict(&f, Check::StatusCodeConformance).0, Verdict::Failed);
        }
        // A 404 is no refusal of input; and where the operation declares 422, a 400 is
        // not the refusal it declares.
        let f = generic(
            plain,
            &v,
            &resp(404, json!({})),
            &spec.decisions,
            Sent::Broken,
        );
        assert_eq!(verdict(&f, Check::StatusCodeConformance).0, Verdict::Failed);
        let anything = spec.operation("anything").unwrap();
        let f = generic(
            anything,
            &v,
            &resp(400, json!({})),
            &spec.decisions,
            Sent::Broken,
        );
        assert_eq!(verdict(&f, Check::StatusCodeConformance).0, Verdict::Failed);
    }

    #[test]
    fn an_answer_without_content_by_its_status_is_not_asked_for_the_declared_content() {
        let spec = unrefusing();
        let v = Validators::compile(&spec).unwrap();
        for (id, status) in [("upgrade", 101), ("remove", 204)] {
            let op = spec.operation(id).unwrap();
            let mut empty = resp(status, Value::Null);
            empty.headers.clear();
            empty.body.clear();
            empty.json = None;
            let f = generic(op, &v, &empty, &spec.decisions, Sent::AsDeclared);
            assert_eq!(verdict(&f, Check::StatusCodeConformance).0, Verdict::Passed);
            for check in [
                Check::ContentTypeConformance,
                Check::ResponseSchemaConformance,
            ] {
                assert_eq!(verdict(&f, check).0, Verdict::Skipped, "{id} {check:?}");
            }
        }
        // Content that came anyway is judged as declared.
        let op = spec.operation("remove").unwrap();
        let f = generic(
            op,
            &v,
            &resp(204, json!([])),
            &spec.decisions,
            Sent::AsDeclared,
        );
        assert_eq!(
            verdict(&f, Check::ResponseSchemaConformance).0,
            Verdict::Failed
        );
    }

    #[test]
    fn an_operation_that_declares_no_response_has_nothing_to_conform_to() {
        let spec = unrefusing();
        let v = Validators::compile(&spec).unwrap();
        let silent = spec.operation("silent").unwrap();
        let f = generic(
            silent,
            &v,
            &resp(200, json!({})),
            &spec.decisions,
            Sent::AsDeclared,
        );
        for check in [
            Check::StatusCodeConformance,
            Check::ContentTypeConformance,
            Check::ResponseSchemaConformance,
        ] {
            assert_eq!(verdict(&f, check).0, Verdict::Skipped, "{check:?}");
        }
        let f = generic(
            silent,
            &v,
            &resp(500, json!({})),
            &spec.decisions,
            Sent::AsDeclared,
        );
        assert_eq!(verdict(&f, Check::NotAServerError).0, Verdict::Failed);
    }

    #[test]
    fn a_content_key_with_parameters_or_a_range_judges_the_answer_it_covers() {
        let spec = unrefusing();
        let v = Validators::compile(&spec).unwrap();
        let plain = spec.operation("plain").unwrap();
        let good = bytes(200, "application/json", br#"{"n": 1}"#);
        let f = generic(plain, &v, &good, &spec.decisions, Sent::AsDeclared);
        assert_eq!(
            verdict(&f, Check::ContentTypeConformance).0,
            Verdict::Passed
        );
        assert_eq!(
            verdict(&f, Check::ResponseSchemaConformance).0,
            Verdict::Passed
        );
        let bad = bytes(200, "application/json; charset=utf-8", br#"{}"#);
        let f = generic(plain, &v, &bad, &spec.decisions, Sent::AsDeclared);
        assert_eq!(
            verdict(&f, Check::ResponseSchemaConformance).0,
            Verdict::Failed
        );
        // Under `*/*` a JSON answer is validated by the key's schema; bytes are not.
        let anything = spec.operation("anything").unwrap();
        let f = generic(
            anything,
            &v,
            &bytes(200, "application/json", br#"{}"#),
            &spec.decisions,
            Sent::AsDeclared,
        );
        assert_eq!(
            verdict(&f, Check::ContentTypeConformance).0,
            Verdict::Passed
        );
        assert_eq!(
            verdict(&f, Check::ResponseSchemaConformance).0,
            Verdict::Failed
        );
        let f = generic(
            anything,
            &v,
            &bytes(200, "image/png", b"\x89PNG"),
            &spec.decisions,
            Sent::AsDeclared,
        );
        assert_eq!(
            verdict(&f, Check::ContentTypeConformance).0,
            Verdict::Passed
        );
        assert_eq!(
            verdict(&f, Check::ResponseSchemaConformance).0,
            Verdict::Skipped
        );
    }

    #[test]
    fn a_body_is_judged_by_its_declared_media_type() {
        let spec = foreign();
        let v = Validators::compile(&spec).unwrap();
        let op = spec.operation("exportFlows").unwrap();
        let zip = bytes(200, "application/zip", b"PK\x03\x04 not json at all");
        let f = generic(op, &v, &zip, &spec.decisions, Sent::AsDeclared);
        assert_eq!(
            verdict(&f, Check::ContentTypeConformance).0,
            Verdict::Passed
        );
        let (verdict_, _, why) = verdict(&f, Check::ResponseSchemaConformance);
        assert_eq!(verdict_, Verdict::Skipped);
        assert!(!why.contains("not JSON"), "{why}");
        // `+json` is JSON: validated, and broken JSON is a failure.
        let problem = bytes(422, "application/problem+json", br#"{"title": "x"}"#);
        let f = generic(op, &v, &problem, &spec.decisions, Sent::AsDeclared);
        assert_eq!(
            verdict(&f, Check::ResponseSchemaConformance).0,
            Verdict::Failed
        );
        let broken = bytes(422, "application/problem+json", b"{oops");
        let f = generic(op, &v, &broken, &spec.decisions, Sent::AsDeclared);
        let (verdict_, _, why) = verdict(&f, Check::ResponseSchemaConformance);
        assert_eq!(verdict_, Verdict::Failed);
        assert!(why.contains("not JSON"), "{why}");
        // An HTML page where JSON is declared: the media type fails, and the client does
        // not get the declared body either.
        let html = bytes(422, "text/html", b"<h1>no</h1>");
        let f = generic(op, &v, &html, &spec.decisions, Sent::AsDeclared);
        assert_eq!(
            verdict(&f, Check::ContentTypeConformance).0,
            Verdict::Failed
        );
        let (verdict_, _, why) = verdict(&f, Check::ResponseSchemaConformance);
        assert_eq!(verdict_, Verdict::Failed);
        assert_eq!(
            why,
            "the body is text/html, not the declared application/problem+json"
        );
    }
}
