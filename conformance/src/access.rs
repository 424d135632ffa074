//! Whether the run can do what the spec asks of a caller. An operation *requires*
//! credentials when its effective `security` (its own, else the document's) lists at least
//! one requirement and none of them is the empty one (`{}`), which would make credentials
//! optional. A run with no credentials at all against operations that require them would
//! send each secured case to be refused and report the refusals as the target's failures;
//! so when any selected operation requires credentials and the run has none, the run stops
//! before anything is sent, naming the schemes the spec asks for, unless `--anonymous`
//! says it means to test only what needs none. Then the cases that would send the run's
//! credentials to such an operation are not sent and are reported once per operation as
//! not applicable; the cases that send none or bad credentials on purpose
//! (`ignored_auth`) still run.
//!
//! The run has credentials when it has a bearer token (given, or obtained through the
//! fixtures' OAuth client), or a header sent with every request that carries one: an
//! `Authorization` or `Cookie` header, or the header an `apiKey` scheme of the spec names.
//!
//! Credentials serve some schemes and not others, so an operation is sent the run's
//! credentials only when they meet one of its requirements (every scheme of it): a bearer
//! token serves the bearer-like schemes (`http bearer`, `oauth2`, `openIdConnect`) that
//! the document's own `security` names, else those the most operations name (an access
//! token is not a refresh token, though both are `http bearer`), and an `apiKey` header
//! named `Authorization`; an `Authorization` header serves every `http` scheme; a
//! `Cookie` header an `apiKey` in a cookie; a header an `apiKey` of that name. An
//! operation whose requirements the run meets none of is not sent its credentials: each
//! such case is skipped naming the schemes it needs ([`leave_out_unmet`]), instead of a
//! refusal reported as the target's failure.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::case::{AuthMode, Case};
use crate::error::HarnessError;
use crate::outcome::{CheckResult, Verdict};
use crate::spec::{Operation, Spec};

/// How a case's skip reason begins when `--anonymous` left it out; the results that carry
/// it are folded into one not-applicable result per operation.
const ANONYMOUS: &str = "--anonymous: ";

/// The effective security requirements of `op`, as the document states them.
fn requirements<'a>(spec: &'a Spec, op: &Operation) -> Option<&'a Vec<Value>> {
    let own = spec
        .doc
        .get("paths")
        .and_then(|p| p.get(&op.path))
        .and_then(|item| item.get(op.method.to_ascii_lowercase()))
        .and_then(|o| o.get("security"));
    own.or_else(|| spec.doc.get("security"))
        .and_then(Value::as_array)
}

/// Whether `op` can be called only with credentials (see the module's doc).
pub fn requires_credentials(spec: &Spec, op: &Operation) -> bool {
    op.secured
        && requirements(spec, op).is_some_and(|reqs| {
            !reqs.is_empty()
                && reqs
                    .iter()
                    .all(|r| r.as_object().is_some_and(|m| !m.is_empty()))
        })
}

/// A scheme as a user would recognise it: its name and what it is (`bearer (http
/// bearer)`, `key (apiKey in header X-Key)`).
fn describe_scheme(spec: &Spec, name: &str) -> String {
    let scheme = spec
        .doc
        .pointer("/components/securitySchemes")
        .and_then(|s| s.get(name));
    let field = |k: &str| scheme.and_then(|s| s.get(k)).and_then(Value::as_str);
    let what = match (field("type"), field("scheme"), field("in"), field("name")) {
        (Some("http"), Some(s), _, _) => format!("http {s}"),
        (Some("apiKey"), _, Some(place), Some(n)) => format!("apiKey in {place} {n}"),
        (Some(kind), _, _, _) => kind.to_string(),
        (None, ..) => "not declared in components.securitySchemes".to_string(),
    };
    format!("{name} ({what})")
}

/// Every scheme the operations in `ops` that require credentials ask for, described.
fn schemes_asked(spec: &Spec, ops: &[&Operation]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for op in ops {
        for req in requirements(spec, op).into_iter().flatten() {
            for name in req.as_object().into_iter().flat_map(|m| m.keys()) {
                if !names.contains(name) {
                    names.push(name.clone());
                }
            }
        }
    }
    names.iter().map(|n| describe_scheme(spec, n)).collect()
}

/// Whether one of `headers` (sent with every request) carries credentials: `Authorization`,
/// `Cookie`, or a header an `apiKey` scheme of the spec names.
pub fn header_credentials(spec: &Spec, headers: &[(String, String)]) -> bool {
    let api_keys: Vec<String> = spec
        .doc
        .pointer("/components/securitySchemes")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|m| m.values())
        .filter(|s| s.get("type").and_then(Value::as_str) == Some("apiKey"))
        .filter(|s| s.get("in").and_then(Value::as_str) == Some("header"))
        .filter_map(|s| s.get("name").and_then(Value::as_str))
        .map(str::to_ascii_lowercase)
        .collect();
    headers.iter().any(|(name, _)| {
        let name = name.to_ascii_lowercase();
        name == "authorization" || name == "cookie" || api_keys.contains(&name)
    })
}

/// Stops a run without credentials whose selected operations (`selected` says which)
/// require some, unless `anonymous`: a configuration error naming the schemes the spec
/// asks for and what to give.
pub fn require(
    spec: &Spec,
    selected: impl Fn(&str) -> bool,
    has_credentials: bool,
    anonymous: bool,
) -> Result<(), HarnessError> {
    if has_credentials || anonymous {
        return Ok(());
    }
    let chosen: Vec<&Operation> = spec.operations.iter().filter(|o| selected(&o.id)).collect();
    let secured: Vec<&Operation> = chosen
        .iter()
        .copied()
        .filter(|o| requires_credentials(spec, o))
        .collect();
    if secured.is_empty() {
        return Ok(());
    }
    Err(HarnessError::Config(format!(
        "no credentials: {} of the {} selected operation(s) require them (the spec asks for {}); give --token TOKEN, -H NAME:VALUE (an API key, a cookie), or --anonymous to test only what needs none; nothing was sent",
        secured.len(),
        chosen.len(),
        schemes_asked(spec, &secured).join(", ")
    )))
}

/// The credentials a run holds, as far as schemes care.
#[derive(Debug, Clone, Copy, Default)]
pub struct Held<'a> {
    /// A bearer token, given or to be obtained through the OAuth fixtures.
    pub token: bool,
    /// The headers sent with every request (secret and public).
    pub headers: &'a [(String, String)],
    /// The public ones.
    pub public_headers: &'a [(String, String)],
}

impl Held<'_> {
    fn header(&self, name: &str) -> bool {
        self.headers
            .iter()
            .chain(self.public_headers)
            .any(|(n, _)| n.eq_ignore_ascii_case(name))
    }
}

/// Whether a scheme is bearer-like: a token in `Authorization: Bearer`.
fn bearer_like(scheme: &Value) -> bool {
    match scheme.get("type").and_then(Value::as_str) {
        Some("http") => scheme
            .get("scheme")
            .and_then(Value::as_str)
            .is_some_and(|s| s.eq_ignore_ascii_case("bearer")),
        Some("oauth2" | "openIdConnect") => true,
        _ => false,
    }
}

fn scheme<'a>(spec: &'a Spec, name: &str) -> Option<&'a Value> {
    spec.doc
        .pointer("/components/securitySchemes")
        .and_then(|s| s.get(name))
}

/// The bearer-like schemes the run's token serves (see the module's doc).
fn token_schemes(spec: &Spec) -> BTreeSet<String> {
    let names_in = |reqs: &Vec<Value>| -> Vec<String> {
        reqs.iter()
            .filter_map(Value::as_object)
            .flat_map(|m| m.keys().cloned())
            .filter(|n| scheme(spec, n).is_some_and(bearer_like))
            .collect()
    };
    let global: BTreeSet<String> = spec
        .doc
        .get("security")
        .and_then(Value::as_array)
        .map(names_in)
        .unwrap_or_default()
        .into_iter()
        .collect();
    if !global.is_empty() {
        return global;
    }
    let mut count: BTreeMap<String, usize> = BTreeMap::new();
    for op in &spec.operations {
        let names: BTreeSet<String> = requirements(spec, op)
            .map(names_in)
            .unwrap_or_default()
            .into_iter()
            .collect();
        for n in names {
            *count.entry(n).or_default() += 1;
        }
    }
    let most = count.values().copied().max().unwrap_or(0);
    count
        .into_iter()
        .filter(|(_, c)| *c == most)
        .map(|(n, _)| n)
        .collect()
}

/// Whether the run's credentials serve scheme `name`.
fn serves(spec: &Spec, held: &Held<'_>, token_for: &BTreeSet<String>, name: &str) -> bool {
    let Some(s) = scheme(spec, name) else {
        // Undeclared: nothing to go by, so no reason to hold the case back.
        return true;
    };
    let field = |k: &str| s.get(k).and_then(Value::as_str).unwrap_or_default();
    match field("type") {
        _ if bearer_like(s) => {
            (held.token && token_for.contains(name)) || held.header("authorization")
        }
        "http" => held.header("authorization"),
        "apiKey" => match field("in") {
            "header" => {
                held.header(field("name"))
                    || (held.token && field("name").eq_ignore_ascii_case("authorization"))
            }
            "cookie" => held.header("cookie"),
            _ => false,
        },
        // mutualTLS and what else may come: the transport's own business.
        _ => true,
    }
}

/// Why the run's credentials meet none of `op`'s security requirements, naming the
/// schemes it asks for; `None` when one is met or none is required.
pub fn unmet(spec: &Spec, op: &Operation, held: &Held<'_>) -> Option<String> {
    if !requires_credentials(spec, op) {
        return None;
    }
    let reqs = requirements(spec, op)?;
    let token_for = token_schemes(spec);
    let met = reqs
        .iter()
        .filter_map(Value::as_object)
        .any(|r| r.keys().all(|n| serves(spec, held, &token_for, n)));
    if met {
        return None;
    }
    let asked = schemes_asked(spec, &[op]);
    let token = if held.token && !token_for.is_empty() {
        format!(
            "; the run's token serves {}",
            token_for.iter().cloned().collect::<Vec<_>>().join(", ")
        )
    } else {
        String::new()
    };
    Some(format!(
        "{UNMET}{} requires {} and the run holds no credentials for it{token} (give them with --token or -H NAME:VALUE in a run of its own)",
        op.id,
        asked.join(" or ")
    ))
}

/// How the skip reason of a case [`leave_out_unmet`] held back begins.
const UNMET: &str = "credentials: ";

/// Marks as not to be sent every case that would send the run's credentials to an
/// operation whose requirements they meet none of ([`unmet`]), naming the schemes.
pub fn leave_out_unmet(spec: &Spec, cases: &mut [Case], held: &Held<'_>) {
    let mut why: BTreeMap<String, Option<String>> = BTreeMap::new();
    for c in cases.iter_mut().filter(|c| c.skip.is_none()) {
        let reason = c.steps.iter().find_map(|s| {
            if s.request.auth != AuthMode::Token {
                return None;
            }
            let op = spec.operation(&s.request.op)?;
            why.entry(op.id.clone())
                .or_insert_with(|| unmet(spec, op, held))
                .clone()
        });
        if reason.is_some() {
            c.skip = reason;
        }
    }
}

/// The account the run's credentials belong to, where they name it: the user name of an
/// `Authorization: Basic` header the run sends with every request.
pub fn own_account(held: &Held<'_>) -> Option<String> {
    use base64::Engine;
    let (_, value) = held
        .headers
        .iter()
        .chain(held.public_headers)
        .find(|(n, _)| n.eq_ignore_ascii_case("authorization"))?;
    let (scheme, encoded) = value.trim().split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return None;
    }
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(encoded.trim())
        .ok()?;
    let text = String::from_utf8(decoded).ok()?;
    let (user, _) = text.split_once(':')?;
    (!user.is_empty()).then(|| user.to_string())
}

/// Marks as not to be sent every case that would, with the run's own credentials, change
/// or delete the account those credentials belong to ([`own_account`]): a write (any
/// effect but a read) with a path value equal to its name (`PUT /accounts/admin` sent as
/// `admin`). Whatever else the permissions allow, such a request ends the run's session
/// (a new password, a deleted account) and every later answer would be the harness's own
/// 401.
pub fn leave_out_own_account(spec: &Spec, cases: &mut [Case], held: &Held<'_>) {
    let Some(account) = own_account(held) else {
        return;
    };
    for c in cases.iter_mut().filter(|c| c.skip.is_none()) {
        let hits = c.steps.iter().any(|s| {
            s.request.auth == AuthMode::Token
                && spec.operation(&s.request.op).is_some_and(|op| {
                    op.effect != crate::effect::Effect::Read
                        && op.params.iter().any(|p| {
                            p.location == crate::spec::Location::Path
                                && s.request.params.iter().any(|(n, v)| {
                                    n == &p.name && v.as_str() == Some(account.as_str())
                                })
                        })
                })
        });
        if hits {
            c.skip = Some(format!(
                "not sent: it changes the account `{account}` the run's own credentials belong to, and would end the run's session"
            ));
        }
    }
}

/// Under `--anonymous`: marks as not to be sent every case that would send the run's
/// credentials to an operation that requires them. Cases sending none or bad credentials
/// on purpose are left as they are.
pub fn leave_out_secured(spec: &Spec, cases: &mut [Case]) {
    for c in cases.iter_mut().filter(|c| c.skip.is_none()) {
        let needs = c.steps.iter().find_map(|s| {
            let op = spec.operation(&s.request.op)?;
            (s.request.auth == AuthMode::Token && requires_credentials(spec, op))
                .then(|| op.id.clone())
        });
        if let Some(op) = needs {
            c.skip = Some(format!(
                "{ANONYMOUS}{op} requires credentials and the run tests only what needs none"
            ));
        }
    }
}

/// The results of cases [`leave_out_secured`] left out, folded into one not-applicable
/// result per operation saying how many cases were not sent; other results unchanged.
pub fn fold_left_out(results: Vec<CheckResult>) -> Vec<CheckResult> {
    let mut folded: BTreeMap<String, (CheckResult, usize)> = BTreeMap::new();
    let mut out = Vec::with_capacity(results.len());
    for r in results {
        if r.verdict == Verdict::Skipped && r.message.starts_with(ANONYMOUS) {
            folded
                .entry(r.operation.clone())
                .and_modify(|(_, n)| *n += 1)
                .or_insert((r, 1));
        } else {
            out.push(r);
        }
    }
    for (_, (mut r, n)) in folded {
        r.verdict = Verdict::NotApplicable;
        r.message = format!("{} ({n} case(s) not sent)", r.message);
        r.case = format!("anonymous/{}", r.operation);
        out.push(r);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::{Expect, RequestTemplate, Step};
    use crate::registry::Check;
    use crate::spec::Level;

    const SPEC: &str = r#"
openapi: 3.1.0
info: {title: t, version: "1"}
security: [{bearer: []}]
components:
  securitySchemes:
    bearer: {type: http, scheme: bearer}
    key: {type: apiKey, in: header, name: X-Key}
paths:
  /open:
    get:
      operationId: open
      security: []
      responses: {"200": {description: ok}}
  /maybe:
    get:
      operationId: maybe
      security: [{}, {bearer: []}]
      responses: {"200": {description: ok}}
  /closed:
    get:
      operationId: closed
      responses: {"200": {description: ok}}
  /keyed:
    get:
      operationId: keyed
      security: [{key: []}]
      responses: {"200": {description: ok}}
"#;

    fn spec() -> Spec {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("spec.yaml");
        std::fs::write(&path, SPEC).unwrap();
        Spec::load(&path).unwrap_or_else(|e| panic!("{e}"))
    }

    fn case(op: &str, auth: AuthMode) -> Case {
        Case {
            id: format!("{op}/{auth:?}"),
            operation: op.into(),
            check: Check::PositiveDataAcceptance.into(),
            level: Level::Must,
            steps: vec![Step {
                request: RequestTemplate {
                    op: op.into(),
                    params: Vec::new(),
                    body: None,
                    auth,
                    explode: None,
                    style: None,
                    method: None,
                    path: None,
                },
                expect: Expect::Success,
                capture: Vec::new(),
                asserts: Vec::new(),
            }],
            serial: false,
            skip: None,
            requires: Vec::new(),
            cap: None,
        }
    }

    #[test]
    fn only_security_without_an_empty_alternative_requires_credentials() {
        let spec = spec();
        let needs = |id: &str| requires_credentials(&spec, spec.operation(id).unwrap());
        assert!(!needs("open"));
        assert!(!needs("maybe"), "`{{}}` makes credentials optional");
        assert!(needs("closed"), "the document's security applies");
        assert!(needs("keyed"));
    }

    #[test]
    fn no_credentials_names_every_scheme_asked_for_unless_anonymous() {
        let spec = spec();
        let e = require(&spec, |_| true, false, false)
            .unwrap_err()
            .to_string();
        assert!(e.contains("2 of the 4 selected"), "{e}");
        assert!(e.contains("bearer (http bearer)"), "{e}");
        assert!(e.contains("key (apiKey in header X-Key)"), "{e}");
        assert!(e.contains("--anonymous") && e.contains("--token"), "{e}");
        assert!(require(&spec, |_| true, false, true).is_ok());
        assert!(require(&spec, |_| true, true, false).is_ok());
        // A selection of what needs none needs no credentials.
        assert!(require(&spec, |id| id == "open" || id == "maybe", false, false).is_ok());
    }

    #[test]
    fn a_header_is_a_credential_when_the_spec_or_http_says_so() {
        let spec = spec();
        let h = |n: &str| vec![(n.to_string(), "v".to_string())];
        assert!(header_credentials(&spec, &h("authorization")));
        assert!(header_credentials(&spec, &h("Cookie")));
        assert!(header_credentials(&spec, &h("x-key")));
        assert!(!header_credentials(&spec, &h("x-tenant")));
    }

    #[test]
    fn anonymous_leaves_out_credentialed_cases_once_per_operation() {
        let spec = spec();
        let mut cases = vec![
            case("closed", AuthMode::Token),
            case("closed", AuthMode::Token),
            case("closed", AuthMode::Missing),
            case("open", AuthMode::Token),
            case("maybe", AuthMode::Token),
        ];
        cases[1].id.push_str("-2");
        leave_out_secured(&spec, &mut cases);
        let skipped: Vec<bool> = cases.iter().map(|c| c.skip.is_some()).collect();
        assert_eq!(skipped, [true, true, false, false, false]);
        let results: Vec<CheckResult> = cases
            .iter()
            .enumerate()
            .filter_map(|(i, c)| {
                c.skip
                    .as_ref()
                    .map(|_| crate::runner::test_support::skipped(c, i + 1))
            })
            .map(|mut r| {
                r.message = cases[r.case_index - 1].skip.clone().unwrap();
                r
            })
            .collect();
        let folded = fold_left_out(results);
        assert_eq!(folded.len(), 1);
        assert_eq!(folded[0].verdict, Verdict::NotApplicable);
        assert_eq!(folded[0].operation, "closed");
        assert!(folded[0].message.contains("2 case(s) not sent"));
        assert!(!folded[0].missing_input);
    }

    /// Two bearer schemes (an access and a refresh token), a key in the query, a cookie.
    const TWO_TOKENS: &str = r#"
openapi: 3.1.0
info: {title: t, version: "1"}
security: [{jwt: []}]
components:
  securitySchemes:
    jwt: {type: http, scheme: bearer}
    jwt_refresh: {type: http, scheme: bearer}
    query_key: {type: apiKey, in: query, name: api_key}
    session: {type: apiKey, in: cookie, name: sid}
paths:
  /things:
    get:
      operationId: list_things
      responses: {"200": {description: ok}}
  /refresh:
    post:
      operationId: refresh
      security: [{jwt_refresh: []}]
      responses: {"200": {description: ok}}
  /export:
    get:
      operationId: export
      security: [{query_key: []}, {session: []}]
      responses: {"200": {description: ok}}
  /both:
    get:
      operationId: both
      security: [{jwt: [], query_key: []}]
      responses: {"200": {description: ok}}
"#;

    #[test]
    fn credentials_go_only_where_they_meet_a_requirement_and_a_skip_names_the_scheme() {
        let spec = Spec::parse(TWO_TOKENS).unwrap();
        let token = Held {
            token: true,
            ..Held::default()
        };
        let why = |id: &str, held: &Held<'_>| unmet(&spec, spec.operation(id).unwrap(), held);
        assert_eq!(why("list_things", &token), None);
        // The access token is not the refresh token, though both are bearer tokens.
        let refresh = why("refresh", &token).expect("held back");
        assert!(refresh.contains("jwt_refresh (http bearer)"), "{refresh}");
        assert!(refresh.contains("the run's token serves jwt"), "{refresh}");
        // Neither alternative is met by a token; a cookie meets the second.
        let export = why("export", &token).expect("held back");
        assert!(
            export.contains("query_key (apiKey in query api_key) or session"),
            "{export}"
        );
        let cookie = [("Cookie".to_string(), "sid=1".to_string())];
        let with_cookie = Held {
            token: true,
            headers: &cookie,
            public_headers: &[],
        };
        assert_eq!(why("export", &with_cookie), None);
        // Every scheme of one requirement must be met.
        assert!(why("both", &with_cookie).is_some());
        // An Authorization header of the user's own serves any http scheme.
        let auth = [("Authorization".to_string(), "Bearer r".to_string())];
        let header = Held {
            token: false,
            headers: &auth,
            public_headers: &[],
        };
        assert_eq!(why("refresh", &header), None);

        let mut cases = vec![
            case("refresh", AuthMode::Token),
            case("refresh", AuthMode::Missing),
            case("list_things", AuthMode::Token),
        ];
        leave_out_unmet(&spec, &mut cases, &token);
        assert!(
            cases[0]
                .skip
                .as_deref()
                .is_some_and(|s| s.starts_with("credentials: refresh requires"))
        );
        // Sent without credentials on purpose: it needs none of the run's.
        assert_eq!(cases[1].skip, None);
        assert_eq!(cases[2].skip, None);
    }

    #[test]
    fn a_write_to_the_account_the_basic_credentials_name_is_never_sent() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("spec.yaml");
        std::fs::write(
            &path,
            r#"
openapi: 3.1.0
info: {title: t, version: "1"}
paths:
  /accounts/{id}:
    parameters: [{name: id, in: path, required: true, schema: {type: string}}]
    get: {operationId: read_account, responses: {"200": {description: ok}}}
    put: {operationId: replace_account, responses: {"200": {description: ok}}}
    delete: {operationId: delete_account, responses: {"204": {description: gone}}}
"#,
        )
        .unwrap();
        let spec = Spec::load(&path).unwrap();
        let on = |op: &str, id: &str| {
            let mut c = case(op, AuthMode::Token);
            c.steps[0].request.params = vec![("id".into(), Value::String(id.into()))];
            c
        };
        let mut cases = vec![
            on("read_account", "admin"),
            on("replace_account", "admin"),
            on("delete_account", "admin"),
            on("delete_account", "someone"),
        ];
        // `admin:pw`, as a header the run sends with every request.
        let headers = [(
            "Authorization".to_string(),
            "Basic YWRtaW46cHc=".to_string(),
        )];
        let held = Held {
            token: false,
            headers: &headers,
            public_headers: &[],
        };
        assert_eq!(own_account(&held).as_deref(), Some("admin"));
        leave_out_own_account(&spec, &mut cases, &held);
        let sent: Vec<bool> = cases.iter().map(|c| c.skip.is_none()).collect();
        assert_eq!(sent, [true, false, false, true], "{cases:#?}");
        assert!(cases[1].skip.as_deref().unwrap().contains("`admin`"));
        // A bearer token names no account the harness can read.
        let bearer = [("Authorization".to_string(), "Bearer abc".to_string())];
        let held = Held {
            token: true,
            headers: &bearer,
            public_headers: &[],
        };
        assert_eq!(own_account(&held), None);
    }
}
