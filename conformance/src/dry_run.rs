//! `--dry-run`: the plan as the run would send it, and one truthful count. The first pass
//! is what the run sends whatever the target answers: the probe of whether the target
//! answers at all, the OAuth steps that obtain a token
//! and a code per step that needs one, discovery, the credential pre-flight (a request
//! the plan may not hold: the canary with a made-up token) and every step of every case
//! the gate lets through. What the target's answers may add is said apart, each kind with
//! the most it can be where that is known: the later passes (the dependency graph
//! printed last says which operation each can reach), one delete per record the
//! run creates, the restore requests, the session-ending cases with their logins, and a
//! re-check of the credentials after a 401/403. A discovery step that iterates sends
//! between one request and its `max`, so the count is a range where the contract files
//! have such steps.

use crate::case::Case;
use crate::contracts::Discover;
use crate::effect::{self, Effect};
use crate::spec::Spec;

/// What the first pass sends and what the answers may add, counted from the plan.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// The probe of whether the target answers at all (not sent to the embedded server,
    /// which the run starts itself).
    pub probe: usize,
    /// Requests of the OAuth steps: obtaining the token, and one code per step needing one.
    pub oauth: usize,
    /// Discovery requests: at least, and at most.
    pub discovery: (usize, usize),
    /// Requests pre-flight sends that no planned case holds.
    pub preflight: usize,
    /// Cases sent in the first pass, and their steps.
    pub cases: usize,
    /// Steps of those cases.
    pub steps: usize,
    /// Cases skipped, with a reason each.
    pub skipped: usize,
    /// Session-ending cases, run last with a throwaway session each (a login before each).
    pub session_cases: usize,
    /// Their steps.
    pub session_steps: usize,
    /// Operations whose positive case waits for a path value from the target's answers.
    pub waiting: usize,
    /// Create requests among the first pass's steps: each may leave a record to delete.
    pub creates: usize,
    /// Operations the plan writes through, each put back by one request at the end.
    pub restores: usize,
}

/// What the run knows before it starts about its credentials.
pub struct Credentials {
    /// A token is given or will be obtained, so pre-flight runs on a secured spec.
    pub token: bool,
    /// Requests that obtaining the token takes (0 when given).
    pub obtain: usize,
    /// Whether each step needing an authorization code fetches one first.
    pub code_per_step: bool,
}

impl Tally {
    /// Counts `cases` (in run order, the gate applied) and the discovery `steps`.
    pub fn of(
        spec: &Spec,
        cases: &[Case],
        discovery: &[Discover],
        max_requests: usize,
        credentials: &Credentials,
    ) -> Tally {
        let mut t = Tally {
            oauth: credentials.obtain,
            ..Tally::default()
        };
        for d in discovery {
            match (&d.each, &d.try_each) {
                (Some(each), _) => t.discovery.1 += each.max,
                (None, Some(each)) => {
                    t.discovery.0 += 1;
                    t.discovery.1 += each.max;
                }
                (None, None) => {
                    t.discovery.0 += 1;
                    t.discovery.1 += 1;
                }
            }
        }
        let sweeps: usize = discovery
            .iter()
            .filter_map(|d| d.each.as_ref().map(|e| e.max))
            .sum();
        t.discovery.1 -= sweeps - sweeps.min(max_requests);
        let session = |c: &Case| {
            c.steps
                .iter()
                .any(|s| spec.operation(&s.request.op).map(|o| o.effect) == Some(Effect::Session))
        };
        let mut waiting = std::collections::BTreeSet::new();
        for c in cases {
            match &c.skip {
                Some(why) => {
                    t.skipped += 1;
                    if c.check == crate::registry::Check::PositiveDataAcceptance
                        && crate::case::is_missing_input(why)
                    {
                        waiting.insert(c.operation.clone());
                    }
                }
                None if session(c) => {
                    t.session_cases += 1;
                    t.session_steps += c.steps.len();
                }
                None => {
                    t.cases += 1;
                    t.steps += c.steps.len();
                    for s in &c.steps {
                        if credentials.code_per_step && crate::runner::needs_code(&s.request) {
                            t.oauth += 1;
                        }
                        let op = spec.operation(&s.request.op);
                        if op.is_some_and(|o| o.effect == Effect::Create)
                            && s.request.method.is_none()
                        {
                            t.creates += 1;
                        }
                    }
                }
            }
        }
        t.waiting = waiting.len();
        if credentials.token && spec.operations.iter().any(|o| o.secured) {
            t.preflight = crate::runner::preflight_extra(spec, cases);
        }
        t.restores = crate::runner::written(spec, cases).len();
        t
    }

    /// Requests of the first pass, at least and at most.
    pub fn first_pass(&self) -> (usize, usize) {
        let fixed = self.probe + self.oauth + self.preflight + self.steps;
        (fixed + self.discovery.0, fixed + self.discovery.1)
    }

    /// The closing lines of a dry run: the first pass, then what the answers may add.
    pub fn render(&self) -> String {
        let (least, most) = self.first_pass();
        let count = if least == most {
            format!("{least}")
        } else {
            format!("{least} to {most}")
        };
        let mut parts = vec![format!("{} step(s) of {} case(s)", self.steps, self.cases)];
        if self.discovery.1 > 0 {
            parts.push(if self.discovery.0 == self.discovery.1 {
                format!("{} discovery", self.discovery.0)
            } else {
                format!("{} to {} discovery", self.discovery.0, self.discovery.1)
            });
        }
        if self.probe > 0 {
            parts.push("1 probe of the target".to_string());
        }
        if self.preflight > 0 {
            parts.push(format!(
                "{} pre-flight (the credentials with a made-up token)",
                self.preflight
            ));
        }
        if self.oauth > 0 {
            parts.push(format!("{} OAuth", self.oauth));
        }
        let mut text = format!(
            "first pass: {count} request(s) would be sent ({}); {} case(s) skipped\n",
            parts.join(", "),
            self.skipped
        );
        let mut more = Vec::new();
        if self.waiting > 0 {
            more.push(format!(
                "later passes, one per layer of the dependency graph, for the {} operation(s) waiting for a path value, and for cases whose generated references may then name the target's records, then a final pass with made-up path values (integers from 1, fresh uuids) for what no answer gave, read, asked or created only",
                self.waiting
            ));
        }
        if self.creates > 0 {
            more.push(format!(
                "one delete per record created ({} create request(s) planned; a removal answered 5xx is tried twice more)",
                self.creates
            ));
        }
        if self.restores > 0 {
            more.push(format!(
                "{} restore request(s), one per record written through",
                self.restores
            ));
        }
        if self.session_cases > 0 {
            more.push(format!(
                "last, {} session-ending case(s) ({} step(s)), each after a login of the throwaway account, then 1 check of the run's own credentials",
                self.session_cases, self.session_steps
            ));
        }
        more.push(
            "one re-send of the pre-flight request if a secured answer turns to 401/403"
                .to_string(),
        );
        text.push_str(&format!(
            "the target's answers may add: {}",
            more.join("; ")
        ));
        text
    }
}

/// One line of the plan: operation, method and path, case, effect, and send or skip.
pub fn line(spec: &Spec, case: &Case, effect: Effect) -> String {
    let first = &case.steps[0].request;
    let op = spec.operation(&first.op);
    let method = first
        .method
        .clone()
        .or_else(|| op.map(|o| o.method.clone()))
        .unwrap_or_default();
    let path = first
        .path
        .clone()
        .or_else(|| op.map(|o| o.path.clone()))
        .unwrap_or_default();
    let verdict = match &case.skip {
        None => "send".to_string(),
        Some(why) => format!("skip: {why}"),
    };
    format!(
        "{:<32} {:<7} {:<40} {:<48} {:<11} {verdict}\n",
        case.operation,
        method,
        path,
        case.id,
        effect::name(effect),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::{AuthMode, Expect, RequestTemplate, Step};
    use crate::registry::Check;
    use crate::spec::Level;

    const SPEC: &str = r#"
openapi: 3.1.0
info: {title: things, version: "1"}
paths:
  /things:
    get:
      operationId: list
      responses: {"200": {description: ok}}
    post:
      operationId: create
      responses: {"201": {description: made}}
  /logout:
    get:
      operationId: bye
      responses: {"204": {description: gone}}
"#;

    fn case(op: &str, steps: usize, skip: Option<&str>) -> Case {
        let step = Step {
            request: RequestTemplate {
                op: op.into(),
                params: Vec::new(),
                body: None,
                auth: AuthMode::Token,
                explode: None,
                style: None,
                method: None,
                path: None,
            },
            expect: Expect::Observe,
            capture: Vec::new(),
            asserts: Vec::new(),
        };
        Case {
            id: format!("{op}/c"),
            operation: op.into(),
            check: Check::PositiveDataAcceptance.into(),
            level: Level::Must,
            steps: vec![step; steps],
            serial: false,
            skip: skip.map(str::to_owned),
            requires: Vec::new(),
            cap: None,
        }
    }

    #[test]
    fn the_first_pass_counts_steps_and_says_apart_what_answers_may_add() {
        let spec = Spec::parse(SPEC).unwrap();
        let cases = vec![
            case("list", 1, None),
            case("create", 2, None),
            case("list", 1, Some("not sent: no")),
            case("bye", 1, None),
        ];
        let creds = Credentials {
            token: false,
            obtain: 0,
            code_per_step: false,
        };
        let t = Tally::of(&spec, &cases, &[], 100, &creds);
        assert_eq!((t.cases, t.steps, t.skipped), (2, 3, 1));
        assert_eq!((t.session_cases, t.creates), (1, 2));
        assert_eq!(t.first_pass(), (3, 3));
        let text = t.render();
        assert!(text.starts_with("first pass: 3 request(s)"), "{text}");
        assert!(text.contains("one delete per record created (2"), "{text}");
        assert!(text.contains("1 session-ending case(s)"), "{text}");
    }
}
