//! What a Schemathesis run reported, read from its text output: each failed test case
//! with its operation, the checks it failed, the answer's status and the curl line, the
//! errors section, and how many test cases it generated (a run that generated none
//! checked nothing). The text is that of the pinned release
//! ([`super::SCHEMATHESIS`]); a change of layout shows as a count that disagrees with its
//! exit code, which the caller refuses.

/// One failed check of one test case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// `METHOD /path`, the path as the spec writes it.
    pub operation: String,
    /// The check's code (`ST103`) and title.
    pub code: String,
    pub title: String,
    /// What Schemathesis says it broke, for a negative case (its `Invalid component:`
    /// line), else empty.
    pub broke: String,
    /// The status of the answer the case got, when it printed one.
    pub status: Option<u16>,
    /// The case's curl line.
    pub curl: String,
}

/// A run, as far as the gate needs it.
#[derive(Debug, Default)]
pub struct Report {
    pub findings: Vec<Finding>,
    /// The headings of the errors section (the tool could not test an operation).
    pub errors: Vec<String>,
    /// Test cases generated, from the summary's `N generated` line.
    pub generated: u64,
    /// The unique failures the summary counts (`found N unique failures`).
    pub counted: u64,
}

/// Reads a run's output.
pub fn parse(text: &str) -> Report {
    let mut report = Report::default();
    let mut section = "";
    let mut operation = String::new();
    // The failed checks of the current case, waiting for its status and curl line.
    let mut pending: Vec<(String, String, String)> = Vec::new();
    let mut status = None;
    for line in text.lines() {
        if let Some(name) = banner(line) {
            section = match name {
                "FAILURES" => "failures",
                "ERRORS" => "errors",
                "SUMMARY" => "summary",
                _ => section,
            };
            continue;
        }
        match section {
            "failures" => {
                if let Some(op) = heading(line) {
                    operation = op.to_owned();
                } else if line.contains(". Test Case ID: ") {
                    pending.clear();
                    status = None;
                } else if let Some(rest) = line.strip_prefix("- ST")
                    && let Some((digits, title)) = rest.split_once(' ')
                {
                    pending.push((
                        format!("ST{digits}"),
                        title.trim().to_owned(),
                        String::new(),
                    ));
                } else if let Some(broke) = line.trim().strip_prefix("Invalid component:")
                    && let Some(last) = pending.last_mut()
                {
                    last.2 = broke.trim().to_owned();
                } else if let Some(code) = answer_status(line) {
                    status = Some(code);
                } else if let Some(curl) = line.trim().strip_prefix("curl ") {
                    for (code, title, broke) in pending.drain(..) {
                        report.findings.push(Finding {
                            operation: operation.clone(),
                            code,
                            title,
                            broke,
                            status,
                            curl: format!("curl {curl}"),
                        });
                    }
                }
            }
            // Every heading of the errors section counts: an operation, or `Server`,
            // `schema`, a hook… (the mock stopping answering is one of them).
            "errors" => {
                if let Some(op) = heading(line) {
                    report.errors.push(op.to_owned());
                } else if line.starts_with("___") {
                    report.errors.push(line.trim_matches('_').trim().to_owned());
                }
            }
            "summary" => {
                let line = line.trim();
                if let Some((n, rest)) = line.split_once(" generated") {
                    report.generated = n.trim().parse().unwrap_or(0);
                    if let Some(found) = rest.split(" found ").nth(1) {
                        report.counted = found
                            .split_whitespace()
                            .next()
                            .and_then(|n| n.parse().ok())
                            .unwrap_or(0);
                    }
                }
            }
            _ => {}
        }
    }
    report
}

/// The name of a `===== NAME =====` banner.
fn banner(line: &str) -> Option<&str> {
    let inner = line.strip_prefix("===")?.trim_start_matches('=');
    let name = inner.trim_end_matches('=').trim();
    (!name.is_empty() && line.ends_with('=')).then_some(name)
}

/// The operation of a `_____ GET /path _____` heading (a path too long for the rule is
/// printed ` GET /path ` with no underscores).
fn heading(line: &str) -> Option<&str> {
    let one_space = line.starts_with(' ') && !line.starts_with("  ");
    if !line.starts_with('_') && !one_space {
        return None;
    }
    let inner = line.trim_matches('_').trim();
    let (method, path) = inner.split_once(' ')?;
    let method_like = !method.is_empty() && method.bytes().all(|b| b.is_ascii_uppercase());
    (method_like && path.starts_with('/')).then_some(inner)
}

/// The status of an `[404] Not Found:` line.
fn answer_status(line: &str) -> Option<u16> {
    let rest = line.strip_prefix('[')?;
    let (code, tail) = rest.split_once(']')?;
    tail.trim_end().ends_with(':').then(|| code.parse().ok())?
}

#[cfg(test)]
mod tests {
    use super::*;

    const RUN: &str = "\
=================================== FAILURES ===================================
_____________________________ GET /instance/serial _____________________________
1. Test Case ID: dveywJ

- ST101 Server error

- ST202 Schema-valid request rejected

    Valid data should have been accepted
    Expected: 2xx, 3xx, 401, 403, 404, 409, 429, 5xx

- ST201 Schema-violating request accepted

    Invalid component: in body - incorrect type

[101] Switching Protocols:

    <EMPTY>

Reproduce with:

    curl -X GET http://127.0.0.1:41075/instance/serial

    st replay dveywJ

 PUT /instance 
1. Test Case ID: PwVrOi

- ST103 Undocumented status code

    Received: 400
    Documented: 201

[400] Bad Request:

    `{\"message\":\"m\"}`

Reproduce with:

    curl -X PUT -d '{}' http://127.0.0.1:41075/instance

=================================== SUMMARY ====================================

Test cases:
  820 generated, 37 found 4 unique failures

============================= 3 failures in 9.06s =============================
";

    #[test]
    fn each_failed_check_of_a_case_is_a_finding_with_its_status_and_curl_line() {
        let r = parse(RUN);
        let seen: Vec<(&str, &str, Option<u16>)> = r
            .findings
            .iter()
            .map(|f| (f.operation.as_str(), f.code.as_str(), f.status))
            .collect();
        assert_eq!(
            seen,
            [
                ("GET /instance/serial", "ST101", Some(101)),
                ("GET /instance/serial", "ST202", Some(101)),
                ("GET /instance/serial", "ST201", Some(101)),
                ("PUT /instance", "ST103", Some(400)),
            ]
        );
        assert_eq!(r.findings[2].broke, "in body - incorrect type");
        assert_eq!(r.findings[1].broke, "");
        assert_eq!(r.findings[3].title, "Undocumented status code");
        assert_eq!(
            r.findings[3].curl,
            "curl -X PUT -d '{}' http://127.0.0.1:41075/instance"
        );
        assert_eq!((r.generated, r.counted), (820, 4));
        assert!(r.errors.is_empty());
    }

    #[test]
    fn every_heading_of_the_errors_section_is_an_error() {
        let r = parse(
            "================ ERRORS ================\n\
             _________________ Server _________________\n\
             Connection refused\n\
             ________________ GET /a ________________\n\
             Failed Health Check\n\
             ================ SUMMARY ================\n  3 generated, 3 passed\n",
        );
        assert_eq!(r.errors, ["Server", "GET /a"]);
    }

    #[test]
    fn a_passing_run_has_no_finding_and_counts_what_it_generated() {
        let r = parse(
            "=================================== SUMMARY ===\n\nTest cases:\n  16 generated, 16 passed\n",
        );
        assert!(r.findings.is_empty());
        assert_eq!((r.generated, r.counted), (16, 0));
    }
}
