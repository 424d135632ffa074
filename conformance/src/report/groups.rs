//! The same departure as one finding: a spec that leaves a status out of every operation
//! (an undeclared 404 or 422 the framework answers everywhere) reads as one line naming
//! the operations, not one block per answer; one operation answering it to several cases
//! reads as one finding with a count. The smallest request that shows it stands for all.
//! Every result stays in the machine-readable reports; the groups are added on top.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::outcome::{CheckResult, ReportedVerdict, Verdict};
use crate::registry::Check;
use crate::spec::Level;

/// One departure seen on several operations.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Group {
    /// The check the results report under.
    pub check: &'static str,
    /// The status the operations do not declare.
    pub status: u16,
    /// Level of the results.
    pub level: Level,
    /// How the totals count each of them (`failed` or `warning`).
    pub verdict: ReportedVerdict,
    /// `undeclared 404 on 89 operations`.
    pub summary: String,
    /// The operations, in the order their first result came.
    pub operations: Vec<String>,
    /// How many results the group holds (an operation may answer so more than once).
    pub results: usize,
    /// The position in the results of the first one (where the finding is listed).
    #[serde(skip)]
    pub first: usize,
    /// The position of the one whose request is the smallest (its curl line the shortest),
    /// whose details stand for all.
    #[serde(skip)]
    pub example: usize,
}

/// The undeclared-status departures that more than one operation shows, or one operation
/// to more than one case, in the order of their first result.
pub fn groups(results: &[CheckResult], strict: bool) -> Vec<Group> {
    let mut by_key: BTreeMap<(u16, ReportedVerdict, Level), Group> = BTreeMap::new();
    for (i, r) in results.iter().enumerate() {
        let Some(status) = undeclared_status(r) else {
            continue;
        };
        let verdict = r.reported_verdict(strict);
        let g = by_key.entry((status, verdict, r.level)).or_insert(Group {
            check: Check::StatusCodeConformance.name(),
            status,
            level: r.level,
            verdict,
            summary: String::new(),
            operations: Vec::new(),
            results: 0,
            first: i,
            example: i,
        });
        let size = |r: &CheckResult| r.curl.as_ref().map_or(usize::MAX, String::len);
        if size(r) < size(&results[g.example]) {
            g.example = i;
        }
        g.results += 1;
        if !g.operations.contains(&r.operation) {
            g.operations.push(r.operation.clone());
        }
    }
    let mut out: Vec<Group> = by_key
        .into_values()
        .filter(|g| g.operations.len() > 1 || g.results > 1)
        .map(|mut g| {
            g.summary = if g.operations.len() > 1 {
                format!(
                    "undeclared {} on {} operations",
                    g.status,
                    g.operations.len()
                )
            } else {
                format!(
                    "undeclared {} on {} ({} answers)",
                    g.status, g.operations[0], g.results
                )
            };
            g
        })
        .collect();
    out.sort_by_key(|g| g.first);
    out
}

/// The status of a failed `status_code_conformance` result: the answer's status, which the
/// operation does not declare.
fn undeclared_status(r: &CheckResult) -> Option<u16> {
    (r.check == Check::StatusCodeConformance && r.verdict == Verdict::Failed)
        .then(|| r.got.as_ref()?.status)
        .flatten()
}

/// The group `r` belongs to, if any.
pub fn group_of<'g>(groups: &'g [Group], r: &CheckResult, strict: bool) -> Option<&'g Group> {
    let status = undeclared_status(r)?;
    groups.iter().find(|g| {
        g.status == status
            && g.level == r.level
            && g.verdict == r.reported_verdict(strict)
            && g.operations.contains(&r.operation)
    })
}

/// The names in `items`, comma-separated, wrapped at about `width` characters, every line
/// after the first indented by `indent`.
pub fn wrap_list(items: &[String], width: usize, indent: &str) -> String {
    let mut out = String::new();
    let mut line = 0;
    for (i, item) in items.iter().enumerate() {
        let piece = if i + 1 < items.len() {
            format!("{item},")
        } else {
            item.clone()
        };
        if line > 0 && line + 1 + piece.len() > width {
            out.push('\n');
            out.push_str(indent);
            line = 0;
        } else if line > 0 {
            out.push(' ');
            line += 1;
        }
        out.push_str(&piece);
        line += piece.len();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::Got;

    pub(crate) fn undeclared(op: &str, status: u16, level: Level) -> CheckResult {
        CheckResult {
            case_index: 0,
            step: 0,
            case: format!("{op}/positive"),
            operation: op.into(),
            check: Check::StatusCodeConformance.into(),
            level,
            verdict: Verdict::Failed,
            message: format!("status {status} is not declared for {op}"),
            expected: "one of the declared statuses 200, 422".into(),
            got: Some(Got {
                status: Some(status),
                headers: Vec::new(),
                body: String::new(),
                error: None,
            }),
            curl: None,
            missing_input: false,
            elapsed: None,
        }
    }

    #[test]
    fn one_group_per_status_and_level_shown_by_more_than_one_operation() {
        let results = vec![
            undeclared("readFlow", 404, Level::Must),
            undeclared("readFlow", 404, Level::Must),
            undeclared("readVariable", 404, Level::Must),
            undeclared("readVariable", 500, Level::Must),
            undeclared("readDeployment", 404, Level::Should),
        ];
        let g = groups(&results, false);
        assert_eq!(g.len(), 1);
        assert_eq!(g[0].summary, "undeclared 404 on 2 operations");
        assert_eq!(g[0].operations, ["readFlow", "readVariable"]);
        assert_eq!(g[0].results, 3);
        assert!(group_of(&g, &results[2], false).is_some());
        assert!(group_of(&g, &results[3], false).is_none());
        assert!(group_of(&g, &results[4], false).is_none());
    }

    #[test]
    fn one_operation_answering_so_to_several_cases_is_one_finding_shown_by_its_smallest_request() {
        let mut long = undeclared("createFlow", 201, Level::Must);
        long.curl = Some("curl -X POST /flows/ --data-raw '{\"name\":\"a longer one\"}'".into());
        let mut short = undeclared("createFlow", 201, Level::Must);
        short.curl = Some("curl -X POST /flows/ --data-raw '{}'".into());
        let results = vec![long, short, undeclared("readFlow", 404, Level::Must)];
        let g = groups(&results, false);
        assert_eq!(g.len(), 1);
        assert_eq!(g[0].summary, "undeclared 201 on createFlow (2 answers)");
        assert_eq!((g[0].first, g[0].example), (0, 1));
    }

    #[test]
    fn long_lists_wrap() {
        let items: Vec<String> = (0..6).map(|i| format!("operation{i}")).collect();
        let text = wrap_list(&items, 30, "    ");
        assert_eq!(
            text,
            "operation0, operation1,\n    operation2, operation3,\n    operation4, operation5"
        );
    }
}
