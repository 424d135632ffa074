//! How an answer is judged: the runner hands every answer it gets, as an [`Answer`], to
//! the judge of each [`super::Def`] of [`super::ALL`] that has one, in that order, with
//! the run's [`CheckOptions`]. A check's settings (a limit given on the command line) are
//! declared beside it, as a [`Setting`] of its `Def`, so adding a check judged on every
//! answer, with an option, touches its own module, its registry line and `ALL`.

use std::any::Any;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use serde_json::Value;

use super::{ALL, Finding};
use crate::case::{Case, Step};
use crate::request::Built;
use crate::schema::Validators;
use crate::spec::{Operation, Spec};
use crate::transport::Response;
use crate::vars::Vars;

/// One answer to judge, with what was asked and why.
pub(crate) struct Answer<'a> {
    /// The spec (its decisions: the status a refusal takes, the body limit, …).
    pub spec: &'a Spec,
    /// The compiled response schemas.
    pub validators: &'a Validators,
    /// The operation the request was built for.
    pub op: &'a Operation,
    /// The case the step belongs to.
    pub case: &'a Case,
    /// The step, with its expectation, asserts and captures.
    pub step: &'a Step,
    /// The request as it was built and sent.
    pub sent: &'a Built,
    /// The answer.
    pub resp: &'a Response,
    /// The variables bound when the step was sent (contract asserts compare with them).
    pub vars: &'a Vars,
    /// What earlier answers of the run left for judges that compare with them.
    pub seen: &'a Seen,
    /// Whether the request names a path the run deleted earlier (a `DELETE` of it
    /// answered 2xx, nothing answered there since) and was not answered 2xx itself.
    pub gone: bool,
}

/// What earlier answers left: the last state of each `preserves-other-fields` target, per
/// operation. Shared by the run's workers.
pub(crate) type Seen = Mutex<HashMap<String, Value>>;

/// A judge of every answer: the findings it makes of one (none where it has nothing to
/// judge, as a check whose setting was not given).
pub(crate) type Judge = fn(&Answer<'_>, &CheckOptions) -> Vec<Finding>;

/// Every finding of the registered judges on one answer, in [`ALL`]'s order. Every judge
/// runs whatever the `--check` selection: the selection is applied to the results once,
/// where the run is judged as a whole, and a case judged across its steps (alternate
/// encodings) reads every finding of each step.
pub(crate) fn judge(answer: &Answer<'_>, options: &CheckOptions) -> Vec<Finding> {
    ALL.iter()
        .filter_map(|d| d.judge)
        .flat_map(|j| j(answer, options))
        .collect()
}

/// A setting of a check, given as `--check-option NAME=VALUE` (or by a flag of its own
/// that the run's configuration folds in, as `--max-response-time`).
pub(crate) struct Setting {
    /// Its name on the command line.
    pub name: &'static str,
    /// What its value is, as help and errors name it (`BYTES`, `MS`).
    pub value: &'static str,
    /// Reads a value; the error says what was wrong with it.
    pub parse: fn(&str) -> Result<Arc<dyn Any + Send + Sync>, String>,
}

/// The values of the checks' settings a run was given, each read once by its
/// [`Setting::parse`] and kept typed; a judge reads its own with [`CheckOptions::get`].
#[derive(Clone, Default)]
pub struct CheckOptions {
    values: BTreeMap<&'static str, Arc<dyn Any + Send + Sync>>,
}

impl CheckOptions {
    /// Reads `NAME=VALUE` pairs against the settings the checks of [`ALL`] declare. An
    /// unknown name, a missing `=`, a value its setting refuses or a setting given twice
    /// is an error naming it.
    pub fn parse<'s>(given: impl IntoIterator<Item = &'s str>) -> Result<CheckOptions, String> {
        let mut out = CheckOptions::default();
        for pair in given {
            let (name, value) = pair
                .split_once('=')
                .ok_or_else(|| format!("--check-option {pair}: not NAME=VALUE"))?;
            let name = name.trim();
            let setting = settings().find(|s| s.name == name).ok_or_else(|| {
                let known: Vec<String> = settings()
                    .map(|s| format!("{}={}", s.name, s.value))
                    .collect();
                format!(
                    "--check-option {name}: no check has this setting (known: {})",
                    known.join(", ")
                )
            })?;
            out.set(setting, value.trim())
                .map_err(|e| format!("--check-option {pair}: {e}"))?;
        }
        Ok(out)
    }

    /// Sets `setting` from `value`; an error when it is already set or `value` is refused.
    pub(crate) fn set(&mut self, setting: &Setting, value: &str) -> Result<(), String> {
        if self.values.contains_key(setting.name) {
            return Err(format!("{} is given twice", setting.name));
        }
        let v = (setting.parse)(value).map_err(|e| format!("{}: {e}", setting.value))?;
        self.values.insert(setting.name, v);
        Ok(())
    }

    /// Sets `setting` to a value already typed (a flag clap has read).
    pub(crate) fn set_value<T: Any + Send + Sync>(&mut self, setting: &Setting, value: T) {
        self.values.insert(setting.name, Arc::new(value));
    }

    /// The value of `setting`, when the run was given one of type `T` (the type its
    /// `parse` makes).
    pub(crate) fn get<T: Any>(&self, setting: &Setting) -> Option<&T> {
        self.values.get(setting.name)?.downcast_ref()
    }

    /// Whether the run was given `setting`.
    pub(crate) fn has(&self, setting: &Setting) -> bool {
        self.values.contains_key(setting.name)
    }
}

/// Every setting the checks of [`ALL`] declare.
fn settings() -> impl Iterator<Item = &'static Setting> {
    ALL.iter().flat_map(|d| d.settings)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn whole_number(text: &str) -> Result<Arc<dyn Any + Send + Sync>, String> {
        text.parse::<u64>()
            .map(|n| Arc::new(n) as Arc<dyn Any + Send + Sync>)
            .map_err(|_| format!("not a whole number: {text:?}"))
    }

    const LIMIT: Setting = Setting {
        name: "limit",
        value: "N",
        parse: whole_number,
    };

    #[test]
    fn a_setting_is_read_once_and_kept_typed() {
        let mut o = CheckOptions::default();
        o.set(&LIMIT, "12").unwrap();
        assert_eq!(o.get::<u64>(&LIMIT), Some(&12));
        assert_eq!(o.get::<u32>(&LIMIT), None);
        assert!(o.set(&LIMIT, "13").unwrap_err().contains("twice"));
        assert!(CheckOptions::default().set(&LIMIT, "x").is_err());
    }

    #[test]
    fn unknown_or_malformed_check_options_are_refused() {
        let e = CheckOptions::parse(["nope=1"]).err().unwrap();
        assert!(e.contains("no check has this setting"), "{e}");
        assert!(e.contains("max-response-size=BYTES"), "{e}");
        assert!(CheckOptions::parse(["max-response-size"]).is_err());
        assert!(CheckOptions::parse(["max-response-size=big"]).is_err());
        let o = CheckOptions::parse(["max-response-size=10"]).unwrap();
        assert!(o.has(&super::super::response_size::MAX_RESPONSE_SIZE));
    }
}

#[cfg(test)]
pub(crate) mod test_support {
    use super::*;
    use crate::case::{AuthMode, Expect, RequestTemplate};
    use crate::registry::Check;
    use crate::spec::Level;

    /// What `judge` makes of `resp` as the answer to a plain GET of the built-in spec's
    /// `suggestRiskCategories`, with `options`.
    pub fn on_answer(judge: Judge, options: &CheckOptions, resp: &Response) -> Vec<Finding> {
        on_answer_to(judge, options, resp, false)
    }

    /// [`on_answer`] of a request to a path the run deleted (`gone`) or not.
    pub fn on_answer_to(
        judge: Judge,
        options: &CheckOptions,
        resp: &Response,
        gone: bool,
    ) -> Vec<Finding> {
        let spec = Spec::load_builtin().unwrap();
        let validators = Validators::compile(&spec).unwrap();
        let op = spec.operation("suggestRiskCategories").unwrap();
        let step = Step {
            request: RequestTemplate {
                op: op.id.clone(),
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
        let case = Case {
            id: "test".into(),
            operation: op.id.clone(),
            check: Check::PositiveDataAcceptance.into(),
            level: Level::Must,
            steps: vec![step.clone()],
            serial: false,
            skip: None,
            requires: Vec::new(),
            cap: None,
        };
        let sent = Built {
            request: crate::transport::Request {
                method: reqwest::Method::GET,
                url: "http://127.0.0.1/".parse().unwrap(),
                headers: Vec::new(),
                body: None,
            },
            params: serde_json::Map::new(),
            body: None,
            curl: String::new(),
        };
        let answer = Answer {
            spec: &spec,
            validators: &validators,
            op,
            case: &case,
            step: &step,
            sent: &sent,
            resp,
            vars: &Vars::default(),
            seen: &Seen::default(),
            gone,
        };
        judge(&answer, options)
    }
}
