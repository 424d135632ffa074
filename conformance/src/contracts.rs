//! Contract files: YAML under `conformance/contracts/` holding discovery steps, per-operation
//! default inputs, and explicit cases and stateful sequences. Every operation, parameter and
//! body field they name is checked against the spec at load, so a typo is an exit-2 error
//! with the file and line rather than a silently skipped check.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::case::{
    AssertKind, Assertion, AuthMode, BodyTemplate, Case, Expect, RequestTemplate, Step,
};
use crate::error::HarnessError;
use crate::registry::{Check, CheckId, Declared, Registry};
use crate::spec::{Level, Spec};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileDoc {
    #[serde(default)]
    vars: Map<String, Value>,
    #[serde(default)]
    fixtures: Vec<String>,
    #[serde(default)]
    discover: Vec<DiscoverDoc>,
    #[serde(default)]
    defaults: BTreeMap<String, DefaultsDoc>,
    #[serde(default)]
    checks: BTreeMap<String, String>,
    #[serde(default)]
    cases: Vec<CaseDoc>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct DiscoverDoc {
    id: String,
    #[serde(rename = "operationId")]
    operation_id: String,
    #[serde(default)]
    params: Map<String, Value>,
    #[serde(default)]
    try_each: Option<TryEach>,
    /// The data sweep: the request is sent for every value (within `max` and the run's
    /// `--max-requests`), and every answer is judged.
    #[serde(default)]
    each: Option<TryEach>,
    #[serde(default)]
    capture: BTreeMap<String, String>,
    /// (variable, pointer) whose values are gathered from every answer of `each` into one
    /// list.
    #[serde(default)]
    collect: BTreeMap<String, String>,
}

/// Send the request once per value of a list variable until every capture resolves.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TryEach {
    /// The parameter that takes each value.
    pub param: String,
    /// A `${var}` holding the list.
    pub values: String,
    /// At most this many requests.
    #[serde(default = "default_max")]
    pub max: usize,
}

fn default_max() -> usize {
    10
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct DefaultsDoc {
    #[serde(default)]
    params: Map<String, Value>,
    #[serde(default)]
    body: Option<Value>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CaseDoc {
    id: String,
    #[serde(rename = "operationId", default)]
    operation_id: Option<String>,
    #[serde(default)]
    check: Option<String>,
    level: Level,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    requires: BTreeMap<String, usize>,
    steps: Vec<StepDoc>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct StepDoc {
    #[serde(rename = "operationId")]
    operation_id: String,
    #[serde(default)]
    params: Map<String, Value>,
    #[serde(default)]
    body: Option<Value>,
    #[serde(default)]
    raw_body: Option<RawBodyDoc>,
    #[serde(default)]
    auth: Option<String>,
    #[serde(default)]
    explode: Option<bool>,
    expect: ExpectDoc,
    #[serde(default)]
    expect_status: Option<u16>,
    #[serde(default)]
    capture: BTreeMap<String, String>,
    #[serde(default)]
    assert: Vec<AssertDoc>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBodyDoc {
    content_type: String,
    text: String,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum ExpectDoc {
    Status(u16),
    Word(String),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct AssertDoc {
    #[serde(default)]
    pointer: String,
    #[serde(default)]
    equals: Option<Value>,
    #[serde(default)]
    non_empty: Option<bool>,
    #[serde(default)]
    absent: Option<bool>,
    #[serde(default)]
    same_except: Option<SameExceptDoc>,
    #[serde(default)]
    covers: Option<CoversDoc>,
    #[serde(default)]
    max_items: Option<usize>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SameExceptDoc {
    value: Value,
    except: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CoversDoc {
    field: String,
    values: Value,
}

/// A discovery step: run before the cases, binding variables from what the target holds.
#[derive(Debug, Clone)]
pub struct Discover {
    /// Name used in skip reasons.
    pub id: String,
    /// The request.
    pub request: RequestTemplate,
    /// Optional iteration over a list variable.
    pub try_each: Option<TryEach>,
    /// (variable, pointer); pointer `$param` is the value `try_each` used.
    pub capture: Vec<(String, String)>,
    /// The sweep: every value of a list variable, each answer judged.
    pub each: Option<TryEach>,
    /// (variable, pointer): values gathered from every answer of `each` into one list.
    pub collect: Vec<(String, String)>,
}

/// Default inputs of one operation, replacing the spec's examples.
#[derive(Debug, Clone, Default)]
pub struct Defaults {
    /// Parameter values.
    pub params: Map<String, Value>,
    /// Body.
    pub body: Option<Value>,
}

/// Everything the contract files hold, in file-name order.
#[derive(Debug, Clone, Default)]
pub struct Contracts {
    /// Default variable values (fixtures override them).
    pub vars: Map<String, Value>,
    /// Discovery steps.
    pub discover: Vec<Discover>,
    /// Per-operation default inputs.
    pub defaults: BTreeMap<String, Defaults>,
    /// Explicit cases.
    pub cases: Vec<Case>,
    /// Variables the files read from `--fixtures` without a default (`fixtures:`).
    pub fixture_vars: BTreeSet<String>,
    /// The built-in checks and those the files declare (`checks:`).
    pub registry: Registry,
    /// Names some section can bind: `vars`, `fixtures`, discovery and step captures.
    bindable: BTreeSet<String>,
    /// Every `${name}` used: (file, line, name), checked once all files are loaded.
    references: Vec<(String, usize, String)>,
}

/// Variables the harness binds itself from the OAuth configuration.
pub const OAUTH_VARS: &[&str] = &[
    "oauth.client_id",
    "oauth.client_secret",
    "oauth.redirect_uri",
    "oauth.code",
    "oauth.last_code",
];

impl Contracts {
    /// Loads every `*.yaml`/`*.yml` file of a directory, sorted by name (tests compare it
    /// with the built-in files; a run goes through [`Contracts::for_run`]).
    #[cfg(test)]
    pub fn load_dir(dir: &Path, spec: &Spec) -> Result<Contracts, HarnessError> {
        let texts: Vec<(String, String)> = read_dir(dir)?
            .into_iter()
            .map(|(p, t)| (p.display().to_string(), t))
            .collect();
        Contracts::load_texts(texts.iter().map(|(n, t)| (n.as_str(), t.as_str())), spec)
    }

    /// Loads the contract files built into the binary ([`crate::builtin::CONTRACTS`]).
    #[cfg(test)]
    pub fn load_builtin(spec: &Spec) -> Result<Contracts, HarnessError> {
        Contracts::load_texts(crate::builtin::CONTRACTS.iter().copied(), spec)
    }

    /// The contract files of a run: the built-in ones when they belong to the spec (see
    /// [`ContractSource`]), with the files of `--contracts DIR` added. A file of the
    /// directory named like a built-in one (`30-scopes.yaml`) replaces it, so an edited
    /// copy of `conformance/contracts/` is the whole set, as before the directory added to
    /// it; all files load in file-name order, whichever set they come from. An operation,
    /// parameter or field a file of the directory names that the spec lacks is an error.
    /// The built-in files are only used on a spec that has every operation they name, and
    /// on a spec other than the built-in one they are left out (the header says why) when
    /// they do not load against it: the user did not write them.
    pub fn for_run(
        spec: &Spec,
        builtin_spec: bool,
        dir: Option<&Path>,
    ) -> Result<(Contracts, ContractSource), HarnessError> {
        let named = builtin_operations();
        let mut builtin = if builtin_spec {
            Builtin::Spec
        } else if named.iter().all(|op| spec.operation(op).is_some()) {
            Builtin::Named
        } else {
            Builtin::NotApplied
        };
        let mut files: BTreeMap<String, (String, String)> = BTreeMap::new();
        if builtin != Builtin::NotApplied {
            for (name, text) in crate::builtin::CONTRACTS {
                files.insert(
                    file_name(Path::new(name)),
                    ((*name).to_owned(), (*text).to_owned()),
                );
            }
        }
        let mut added = Vec::new();
        let mut replaced = Vec::new();
        if let Some(dir) = dir {
            for (path, text) in read_dir(dir)? {
                let key = file_name(&path);
                if files
                    .insert(key.clone(), (path.display().to_string(), text))
                    .is_some()
                {
                    replaced.push(key.clone());
                }
                added.push(key);
            }
        }
        let load = |files: &BTreeMap<String, (String, String)>| {
            Contracts::load_texts(files.values().map(|(n, t)| (n.as_str(), t.as_str())), spec)
        };
        let is_builtin = |file: &str| crate::builtin::CONTRACTS.iter().any(|(n, _)| *n == file);
        let contracts = match load(&files) {
            Err(HarnessError::Contract {
                file,
                line,
                message,
            }) if builtin == Builtin::Named && is_builtin(&file) => {
                files.retain(|_, (name, _)| !is_builtin(name));
                replaced.clear();
                builtin = Builtin::Unfit(format!("{file}:{line}: {message}"));
                load(&files)?
            }
            other => other?,
        };
        Ok((
            contracts,
            ContractSource {
                builtin,
                builtin_files: crate::builtin::CONTRACTS.len(),
                dir: dir.map(|d| d.display().to_string()),
                added,
                replaced,
            },
        ))
    }

    /// Loads named file texts in the order given.
    fn load_texts<'a>(
        files: impl IntoIterator<Item = (&'a str, &'a str)>,
        spec: &Spec,
    ) -> Result<Contracts, HarnessError> {
        let mut all = Contracts::default();
        for (name, text) in files {
            all.add_file(name, text, spec)?;
        }
        all.check_references()?;
        Ok(all)
    }

    /// Every `${name}` must be bindable by some `vars`, `fixtures`, discovery or step
    /// capture, or the OAuth configuration; else it could only ever skip its case.
    pub fn check_references(&self) -> Result<(), HarnessError> {
        for (file, line, name) in &self.references {
            if !self.bindable.contains(name) && !OAUTH_VARS.contains(&name.as_str()) {
                return Err(HarnessError::Contract {
                    file: file.clone(),
                    line: *line,
                    message: format!(
                        "variable `{name}` is never bound: no `vars`, `fixtures`, discover or step `capture` names it"
                    ),
                });
            }
        }
        Ok(())
    }

    /// Records the `${name}` references of `v`, each with the first line after `at` that
    /// spells it.
    fn note_refs(&mut self, file: &str, lines: &Lines, at: usize, v: &Value) {
        let mut names = Vec::new();
        crate::vars::references(v, &mut names);
        for n in names {
            let line = lines.find_text(at, &format!("${{{n}}}"));
            self.references.push((file.to_string(), line, n));
        }
    }

    /// Parses one file and validates it against the spec: its `vars` and `fixtures`,
    /// then each section in turn.
    pub fn add_file(&mut self, name: &str, text: &str, spec: &Spec) -> Result<(), HarnessError> {
        let doc: FileDoc = serde_yaml::from_str(text).map_err(|e| {
            let line = e.location().map(|l| l.line()).unwrap_or(0);
            contract_error(name)(line, e.to_string())
        })?;
        let lines = Lines(text);
        for (k, v) in doc.vars {
            self.bindable.insert(k.clone());
            self.vars.insert(k, v);
        }
        for k in doc.fixtures {
            self.bindable.insert(k.clone());
            self.fixture_vars.insert(k);
        }
        for d in doc.discover {
            self.add_discover(name, &lines, spec, d)?;
        }
        for (op_id, dflt) in doc.defaults {
            self.add_defaults(name, &lines, spec, op_id, dflt)?;
        }
        for (check, description) in doc.checks {
            self.declare_check(name, &lines, check, description)?;
        }
        for c in doc.cases {
            self.add_case(name, &lines, spec, c)?;
        }
        Ok(())
    }

    /// One `discover` entry: its request, its `each`/`try_each`/`collect` rules, and
    /// the variables it binds.
    fn add_discover(
        &mut self,
        name: &str,
        lines: &Lines,
        spec: &Spec,
        d: DiscoverDoc,
    ) -> Result<(), HarnessError> {
        let err = contract_error(name);
        let at = lines.find(0, "id", Some(&d.id));
        let request = template(
            spec,
            lines,
            at,
            &d.operation_id,
            &d.params,
            None,
            None,
            None,
            None,
        )
        .map_err(|(l, m)| err(l, m))?;
        if d.try_each.is_some() && d.each.is_some() {
            return Err(err(
                lines.find(at, "each", None),
                format!("{}: `try_each` and `each` exclude each other", d.id),
            ));
        }
        if !d.collect.is_empty() && d.each.is_none() {
            return Err(err(
                lines.find(at, "collect", None),
                format!("{}: `collect` gathers the answers of `each`", d.id),
            ));
        }
        for t in d.try_each.iter().chain(&d.each) {
            if spec
                .operation(&d.operation_id)
                .and_then(|o| o.param(&t.param))
                .is_none()
            {
                return Err(err(
                    lines.find(at, "param", Some(&t.param)),
                    format!("{}: no parameter {}", d.operation_id, t.param),
                ));
            }
        }
        self.note_refs(name, lines, at, &Value::Object(d.params.clone()));
        for t in d.try_each.iter().chain(&d.each) {
            self.note_refs(name, lines, at, &Value::String(t.values.clone()));
        }
        for (var, ptr) in &d.collect {
            self.bindable.insert(var.clone());
            check_pointer(spec, &d.operation_id, ptr)
                .map_err(|m| err(lines.find(at, var, Some(ptr)), m))?;
        }
        for (var, ptr) in &d.capture {
            self.bindable.insert(var.clone());
            if ptr != "$param" {
                check_pointer(spec, &d.operation_id, ptr)
                    .map_err(|m| err(lines.find(at, var, Some(ptr)), m))?;
            }
        }
        self.discover.push(Discover {
            id: d.id,
            request,
            try_each: d.try_each,
            capture: d.capture.into_iter().collect(),
            each: d.each,
            collect: d.collect.into_iter().collect(),
        });
        Ok(())
    }

    /// The default parameters and body of one operation, checked as a request template.
    fn add_defaults(
        &mut self,
        name: &str,
        lines: &Lines,
        spec: &Spec,
        op_id: String,
        dflt: DefaultsDoc,
    ) -> Result<(), HarnessError> {
        let err = contract_error(name);
        let at = lines.find(0, &op_id, None);
        template(
            spec,
            lines,
            at,
            &op_id,
            &dflt.params,
            dflt.body.as_ref(),
            None,
            None,
            None,
        )
        .map_err(|(l, m)| err(l, m))?;
        self.note_refs(name, lines, at, &Value::Object(dflt.params.clone()));
        if let Some(b) = &dflt.body {
            self.note_refs(name, lines, at, b);
        }
        self.defaults.insert(
            op_id,
            Defaults {
                params: dflt.params,
                body: dflt.body,
            },
        );
        Ok(())
    }

    /// One check declared under `checks:`; a name already known (built in or declared
    /// by an earlier file) is refused.
    fn declare_check(
        &mut self,
        name: &str,
        lines: &Lines,
        check: String,
        description: String,
    ) -> Result<(), HarnessError> {
        let err = contract_error(name);
        let line = lines.find(0, &check, None);
        if let Some(known) = self.registry.resolve(&check) {
            let whose = match known {
                CheckId::Builtin(_) => "a built-in check".to_string(),
                CheckId::Declared(_) => self
                    .registry
                    .declared
                    .iter()
                    .find(|d| *d.name == *check)
                    .map_or_else(String::new, |d| format!("declared in {}", d.file)),
            };
            return Err(err(
                line,
                format!("check `{check}` is already {whose}: declare each check once"),
            ));
        }
        self.registry.declared.push(Declared {
            name: check.into(),
            description,
            file: name.to_string(),
        });
        Ok(())
    }

    /// One case: its check, its steps, and the id it is reported under (unique).
    fn add_case(
        &mut self,
        name: &str,
        lines: &Lines,
        spec: &Spec,
        c: CaseDoc,
    ) -> Result<(), HarnessError> {
        let err = contract_error(name);
        let case_line = lines.find(0, "id", Some(&c.id));
        let check = match &c.check {
            None => CheckId::Builtin(Check::Contract),
            Some(given) => self.registry.resolve(given).ok_or_else(|| {
                err(
                    lines.find(case_line, "check", Some(given)),
                    format!(
                        "case {}: unknown check `{given}`; declare it under `checks:` in this file or an earlier one, or name one of: {}",
                        c.id,
                        self.registry.names().join(", ")
                    ),
                )
            })?,
        };
        if c.steps.is_empty() {
            return Err(err(case_line, format!("case {} has no steps", c.id)));
        }
        for var in c.requires.keys() {
            let line = lines.find(case_line, var, None);
            self.references.push((name.to_string(), line, var.clone()));
        }
        let mut steps = Vec::new();
        let mut at = case_line;
        for s in &c.steps {
            at = lines.find(at, "operationId", Some(&s.operation_id)).max(at);
            steps.push(self.step(name, lines, spec, at, s)?);
        }
        let operation = c
            .operation_id
            .clone()
            .unwrap_or_else(|| c.steps[c.steps.len() - 1].operation_id.clone());
        if spec.operation(&operation).is_none() {
            return Err(err(case_line, format!("unknown operation {operation}")));
        }
        let serial = c
            .steps
            .iter()
            .any(|s| spec.operation(&s.operation_id).is_some_and(|o| o.writes()));
        let _ = c.description;
        let id = format!("{}/{}", operation, c.id);
        if self.cases.iter().any(|x| x.id == id) {
            return Err(err(
                case_line,
                format!("duplicate case id {} (reported as {id})", c.id),
            ));
        }
        self.cases.push(Case {
            id,
            operation,
            check,
            level: c.level,
            steps,
            serial,
            skip: None,
            requires: c.requires.into_iter().collect(),
            cap: None,
        });
        Ok(())
    }

    /// One step of a case, starting at line `at`: its request, its expectation, its
    /// assertions and captures, checked against the spec.
    fn step(
        &mut self,
        name: &str,
        lines: &Lines,
        spec: &Spec,
        at: usize,
        s: &StepDoc,
    ) -> Result<Step, HarnessError> {
        let err = contract_error(name);
        let raw = s
            .raw_body
            .as_ref()
            .map(|r| (r.content_type.clone(), r.text.clone()));
        let request = template(
            spec,
            lines,
            at,
            &s.operation_id,
            &s.params,
            s.body.as_ref(),
            raw,
            s.auth.as_deref(),
            s.explode,
        )
        .map_err(|(l, m)| err(l, m))?;
        let op = spec
            .operation(&s.operation_id)
            .expect("checked by template");
        let expect = match (&s.expect, s.expect_status) {
            (ExpectDoc::Status(code), _) => Expect::Status(*code),
            (ExpectDoc::Word(w), status) => match w.as_str() {
                "success" => Expect::Success,
                "observe" => Expect::Observe,
                "rejected" => Expect::Rejected {
                    status: status
                        .map(|code| (code, op.response(code).map_or(Level::Should, |r| r.level))),
                    body: None,
                },
                other => {
                    return Err(err(
                        lines.find(at, "expect", None),
                        format!(
                            "expect must be success, rejected, observe or a status code, not {other:?}"
                        ),
                    ));
                }
            },
        };
        self.note_refs(name, lines, at, &Value::Object(s.params.clone()));
        if let Some(b) = &s.body {
            self.note_refs(name, lines, at, b);
        }
        if let Some(r) = &s.raw_body {
            self.note_refs(name, lines, at, &Value::String(r.text.clone()));
        }
        let mut asserts = Vec::new();
        for a in &s.assert {
            let line = lines.find(at, "pointer", Some(&a.pointer));
            let made = assertion(a).map_err(|m| err(line, m))?;
            check_pointer(spec, &s.operation_id, &a.pointer).map_err(|m| err(line, m))?;
            match &made.kind {
                AssertKind::Equals(v)
                | AssertKind::SameExcept { value: v, .. }
                | AssertKind::Covers { values: v, .. } => self.note_refs(name, lines, at, v),
                _ => {}
            }
            asserts.push(made);
        }
        for (var, ptr) in &s.capture {
            self.bindable.insert(var.clone());
            check_pointer(spec, &s.operation_id, ptr)
                .map_err(|m| err(lines.find(at, var, Some(ptr)), m))?;
        }
        Ok(Step {
            request,
            expect,
            capture: s.capture.clone().into_iter().collect(),
            asserts,
        })
    }
}

/// The error of a contract file `file` at a line, with a message.
fn contract_error(file: &str) -> impl Fn(usize, String) -> HarnessError + '_ {
    move |line, message| HarnessError::Contract {
        file: file.to_string(),
        line,
        message,
    }
}

/// The `*.yaml`/`*.yml` files of a directory with their text, sorted by name.
fn read_dir(dir: &Path) -> Result<Vec<(PathBuf, String)>, HarnessError> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| {
            HarnessError::Config(format!(
                "cannot read contracts directory {}: {e}",
                dir.display()
            ))
        })?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "yaml" || x == "yml"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|f| {
            let text = std::fs::read_to_string(&f)
                .map_err(|e| HarnessError::Config(format!("cannot read {}: {e}", f.display())))?;
            Ok((f, text))
        })
        .collect()
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
}

/// Every operation the built-in contract files name (discovery, defaults, case steps).
pub fn builtin_operations() -> BTreeSet<String> {
    let mut named = BTreeSet::new();
    for (name, text) in crate::builtin::CONTRACTS {
        // The built-in files are tested to parse; one that did not would name nothing.
        let Ok(doc) = serde_yaml::from_str::<FileDoc>(text) else {
            debug_assert!(false, "built-in contract file {name} does not parse");
            continue;
        };
        named.extend(doc.discover.into_iter().map(|d| d.operation_id));
        named.extend(doc.defaults.into_keys());
        for c in doc.cases {
            named.extend(c.operation_id);
            named.extend(c.steps.into_iter().map(|s| s.operation_id));
        }
    }
    named
}

/// Whether the built-in contract files (and the reference server's fixtures) apply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Builtin {
    /// The run uses the built-in spec, which they were written for.
    Spec,
    /// The given spec has every operation they name.
    Named,
    /// The given spec has every operation they name, but a file does not load against it
    /// (a parameter or field it lacks): they are not used, for this reason.
    Unfit(String),
    /// The given spec lacks some operation they name: they are not used.
    NotApplied,
}

/// Where a run's contract files came from, for the run header.
#[derive(Debug, Clone)]
pub struct ContractSource {
    /// Whether the built-in files are used, and why.
    pub builtin: Builtin,
    /// How many built-in files there are.
    pub builtin_files: usize,
    /// `--contracts DIR`, as given.
    pub dir: Option<String>,
    /// The directory's files (by file name).
    pub added: Vec<String>,
    /// Those of them that replace a built-in file of the same name.
    pub replaced: Vec<String>,
}

impl ContractSource {
    /// Whether the spec has every operation of the built-in spec's contract files, so
    /// that the reference server (which serves those) is a target it can be run against.
    pub fn builtin_operations(&self) -> bool {
        self.builtin != Builtin::NotApplied
    }

    /// One line for the run header.
    pub fn describe(&self) -> String {
        let builtin = match &self.builtin {
            Builtin::Spec => Some(format!(
                "{} built in with the spec",
                self.builtin_files - self.replaced.len()
            )),
            Builtin::Named => Some(format!(
                "{} built in (the spec has every operation they name)",
                self.builtin_files - self.replaced.len()
            )),
            Builtin::Unfit(why) => Some(format!(
                "none: the built-in files do not fit the spec ({why})"
            )),
            Builtin::NotApplied => None,
        };
        let given = self.dir.as_ref().map(|dir| {
            let mut s = format!("{} from {dir}", self.added.len());
            if !self.replaced.is_empty() {
                s.push_str(&format!(
                    " (replacing the built-in {})",
                    self.replaced.join(", ")
                ));
            }
            s
        });
        match (builtin, given) {
            (Some(b), Some(g)) => format!("{b}, {g}"),
            (Some(b), None) => b,
            (None, Some(g)) => g,
            (None, None) => "none (--contracts DIR adds contract files)".into(),
        }
    }
}

fn assertion(a: &AssertDoc) -> Result<Assertion, String> {
    let mut kinds = Vec::new();
    if let Some(v) = &a.equals {
        kinds.push(AssertKind::Equals(v.clone()));
    }
    if a.non_empty == Some(true) {
        kinds.push(AssertKind::NonEmpty);
    }
    if a.absent == Some(true) {
        kinds.push(AssertKind::Absent);
    }
    if let Some(s) = &a.same_except {
        kinds.push(AssertKind::SameExcept {
            value: s.value.clone(),
            except: s.except.clone(),
        });
    }
    if let Some(c) = &a.covers {
        kinds.push(AssertKind::Covers {
            field: c.field.clone(),
            values: c.values.clone(),
        });
    }
    if let Some(n) = a.max_items {
        kinds.push(AssertKind::MaxItems(n));
    }
    if kinds.len() != 1 {
        return Err(format!(
            "an assertion at pointer {:?} must have exactly one of equals, non_empty, absent, same_except, covers, max_items",
            a.pointer
        ));
    }
    if !(a.pointer.is_empty() || a.pointer.starts_with('/')) {
        return Err(format!(
            "pointer {:?} must be empty or start with /",
            a.pointer
        ));
    }
    Ok(Assertion {
        pointer: a.pointer.clone(),
        kind: kinds.remove(0),
        after_success: false,
    })
}

/// Builds a request template, checking names against the spec. Errors carry a line.
#[allow(clippy::too_many_arguments)]
fn template(
    spec: &Spec,
    lines: &Lines,
    at: usize,
    op_id: &str,
    params: &Map<String, Value>,
    body: Option<&Value>,
    raw: Option<(String, String)>,
    auth: Option<&str>,
    explode: Option<bool>,
) -> Result<RequestTemplate, (usize, String)> {
    let op = spec.operation(op_id).ok_or_else(|| {
        (
            lines.find(at, "operationId", Some(op_id)).max(at),
            format!("unknown operation {op_id}"),
        )
    })?;
    for name in params.keys() {
        if op.param(name).is_none() {
            return Err((
                lines.find(at, name, None),
                format!("{op_id} has no parameter {name}"),
            ));
        }
    }
    if let Some(b) = body {
        let Some(decl) = &op.body else {
            return Err((
                lines.find(at, "body", None),
                format!("{op_id} takes no body"),
            ));
        };
        if let Value::Object(m) = b {
            let props = decl.properties();
            for k in m.keys() {
                if !props.iter().any(|(p, _)| p == k) {
                    return Err((
                        lines.find(at, k, None),
                        format!("{op_id} body has no field {k}"),
                    ));
                }
            }
        }
    }
    let auth = match auth {
        None | Some("token") => AuthMode::Token,
        Some("missing") => AuthMode::Missing,
        Some("malformed") => AuthMode::Malformed,
        Some("unknown") => AuthMode::Unknown,
        Some(other) => {
            return Err((
                lines.find(at, "auth", None),
                format!("auth must be token, missing, malformed or unknown, not {other:?}"),
            ));
        }
    };
    let body = match (body, raw) {
        (_, Some((content_type, text))) => Some(BodyTemplate::Raw { content_type, text }),
        (Some(b), None) => Some(BodyTemplate::Json(b.clone())),
        (None, None) => None,
    };
    Ok(RequestTemplate {
        op: op_id.to_string(),
        params: params.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
        body,
        auth,
        explode,
        style: None,
        method: None,
        path: None,
    })
}

/// Checks that a pointer into the answer of `op_id` starts with a field its success
/// response schema has (`/0/field` and `/*/field` for arrays); free-form schemas accept any.
fn check_pointer(spec: &Spec, op_id: &str, ptr: &str) -> Result<(), String> {
    let Some(op) = spec.operation(op_id) else {
        return Ok(());
    };
    let Some(schema) = op
        .responses
        .iter()
        .filter(|r| r.status.starts_with('2'))
        .flat_map(|r| r.content.iter())
        .find_map(|(_, s)| s.as_ref())
    else {
        return Ok(());
    };
    let mut node = crate::spec::resolve(&spec.doc, schema).map_err(|e| e.to_string())?;
    let mut tokens = ptr.split('/').skip(1);
    let Some(mut first) = tokens.next() else {
        return Ok(());
    };
    let mut at = String::new();
    if let Some(items) = node.get("items") {
        if first != "*" && first.parse::<usize>().is_err() {
            return Err(format!(
                "pointer {ptr}: the answer of {op_id} is an array; use /0/field or /*/field"
            ));
        }
        at = format!("/{first}");
        node = crate::spec::resolve(&spec.doc, items).map_err(|e| e.to_string())?;
        let Some(next) = tokens.next() else {
            return Ok(());
        };
        first = next;
    }
    let Some(props) = node.get("properties").and_then(Value::as_object) else {
        return Ok(());
    };
    let field = first.replace("~1", "/").replace("~0", "~");
    if props.contains_key(&field) {
        return Ok(());
    }
    Err(format!(
        "pointer {ptr}: the answer of {op_id} has no field {field} at {}; it has {}",
        if at.is_empty() {
            "the top"
        } else {
            at.as_str()
        },
        props.keys().cloned().collect::<Vec<_>>().join(", ")
    ))
}

/// Finds the line of a key in YAML text, since `serde_yaml` keeps no spans for values that
/// parse but mean nothing to the spec.
struct Lines<'a>(&'a str);

impl Lines<'_> {
    /// 1-based line at or after `from` that contains `text`, else the first anywhere, else
    /// `from`.
    fn find_text(&self, from: usize, text: &str) -> usize {
        let hit = |skip: usize| {
            self.0
                .lines()
                .enumerate()
                .skip(skip)
                .find(|(_, l)| l.contains(text))
                .map(|(i, _)| i + 1)
        };
        hit(from.saturating_sub(1))
            .or_else(|| hit(0))
            .unwrap_or(from)
    }

    /// 1-based line at or after `from` where `key:` appears (with `value` after it when
    /// given); `from` itself when none is found, so errors still point near the place.
    fn find(&self, from: usize, key: &str, value: Option<&str>) -> usize {
        for (i, line) in self.0.lines().enumerate().skip(from.saturating_sub(1)) {
            let Some(pos) = find_key(line, key) else {
                continue;
            };
            let rest = line[pos + key.len()..].trim_start_matches([':', ' ', '"', '\'']);
            if value.is_none_or(|v| rest.starts_with(v)) {
                return i + 1;
            }
        }
        from
    }
}

fn find_key(line: &str, key: &str) -> Option<usize> {
    let mut start = 0;
    while let Some(i) = line[start..].find(key) {
        let pos = start + i;
        let before = line[..pos].chars().last();
        let after = line[pos + key.len()..]
            .trim_start_matches(['"', '\''])
            .chars()
            .next();
        if before.is_none_or(|c| " {,-\"'".contains(c)) && after == Some(':') {
            return Some(pos);
        }
        start = pos + key.len();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> Spec {
        Spec::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/openapi.yaml")).unwrap()
    }

    fn load(text: &str) -> Result<Contracts, HarnessError> {
        let mut c = Contracts::default();
        c.add_file("t.yaml", text, &spec()).map(|_| c)
    }

    fn line_of(e: HarnessError) -> (usize, String) {
        match e {
            HarnessError::Contract { line, message, .. } => (line, message),
            other => panic!("not a contract error: {other}"),
        }
    }

    #[test]
    fn the_projects_contract_files_load() {
        let c = Contracts::load_dir(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("contracts"),
            &spec(),
        )
        .unwrap();
        assert!(!c.cases.is_empty());
        assert!(!c.discover.is_empty());
    }

    #[test]
    fn unknown_operation_names_file_and_line() {
        let (line, msg) = line_of(
            load("cases:\n  - id: a\n    level: must\n    steps:\n      - operationId: nope\n        expect: success\n").unwrap_err(),
        );
        assert_eq!(line, 5);
        assert!(msg.contains("unknown operation nope"), "{msg}");
    }

    #[test]
    fn unknown_parameter_and_field_name_their_line() {
        let text = "cases:\n  - id: a\n    level: must\n    steps:\n      - operationId: suggestRiskCategories\n        params: { t: x, limit: 3 }\n        expect: success\n";
        let (line, msg) = line_of(load(text).unwrap_err());
        assert_eq!(
            (line, msg.contains("no parameter limit")),
            (6, true),
            "{msg}"
        );
        let text = "defaults:\n  updateContactInfoName:\n    body:\n      firstName: A\n      nickName: B\n";
        let (line, msg) = line_of(load(text).unwrap_err());
        assert_eq!(
            (line, msg.contains("no field nickName")),
            (5, true),
            "{msg}"
        );
    }

    #[test]
    fn a_directory_adds_to_the_built_in_files_and_replaces_those_of_its_names() {
        let spec = spec();
        let builtin = Contracts::load_builtin(&spec).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let extra = "cases:\n  - id: extra\n    level: must\n    steps:\n      - operationId: suggestRiskCategories\n        params: { t: e, l: 3 }\n        expect: success\n";
        std::fs::write(dir.path().join("50-extra.yaml"), extra).unwrap();
        let (added, source) = Contracts::for_run(&spec, true, Some(dir.path())).unwrap();
        assert_eq!(added.cases.len(), builtin.cases.len() + 1);
        assert!(
            added
                .cases
                .iter()
                .any(|c| c.id == "suggestRiskCategories/extra")
        );
        assert_eq!(
            source.describe(),
            format!("5 built in with the spec, 1 from {}", dir.path().display())
        );
        // A file named like a built-in one takes its place.
        std::fs::write(
            dir.path().join("30-scopes.yaml"),
            extra.replace("extra", "other"),
        )
        .unwrap();
        let (replaced, source) = Contracts::for_run(&spec, true, Some(dir.path())).unwrap();
        assert!(
            source
                .describe()
                .contains("4 built in with the spec, 2 from")
        );
        assert!(
            source
                .describe()
                .ends_with("(replacing the built-in 30-scopes.yaml)")
        );
        assert!(
            replaced
                .cases
                .iter()
                .all(|c| !c.id.starts_with("findExchangeScopes/"))
        );
        assert!(replaced.cases.iter().any(|c| c.id.ends_with("/other")));
    }

    #[test]
    fn unknown_key_is_a_yaml_error_with_line() {
        let (line, msg) = line_of(load("cases:\n  - id: a\n    levle: must\n").unwrap_err());
        assert!(line >= 2, "{line} {msg}");
    }
}
