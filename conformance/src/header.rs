//! The run header: what a run judges and with what — the target (or the embedded reference
//! server), the spec and the operations of it left out, the contract files, the seed, the
//! selection and which credentials are present, never their values. Printed first and
//! written into every report, so a green run always says what it was green against.

use serde::{Deserialize, Serialize};

use crate::spec::{Identity, LeftOut};

/// Who and what a run judged.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct RunHeader {
    /// The target's base URL as reports may show it (a password redacted).
    pub target: String,
    /// Whether the target is the embedded reference server (no `--base-url`).
    pub embedded: bool,
    /// The spec judged against.
    pub spec: Identity,
    /// The seed of generated values.
    pub seed: u64,
    /// The selection, as the command line gave it.
    pub selection: String,
    /// The credentials and extra headers present, by name only.
    pub credentials: Vec<String>,
    /// Whether requests that change the target's state are sent, and the flag that sends
    /// more.
    pub writes: String,
    /// Where the contract files came from (built in, `--contracts DIR`, none).
    pub contracts: String,
    /// How many operations of the spec the run can use.
    pub operations: usize,
    /// The operations left out for a problem of the spec, each with where and why.
    pub left_out: Vec<LeftOut>,
}

impl RunHeader {
    /// The header's lines for the terminal.
    pub fn render(&self) -> String {
        let in_process = self.target.starts_with(crate::in_process::ORIGIN);
        let target = match (self.embedded, in_process) {
            (true, true) => format!(
                "embedded reference server in this process, no socket (--in-process; requests as {})",
                self.target
            ),
            (true, false) => format!(
                "embedded reference server at {} (no --base-url given)",
                self.target
            ),
            (false, true) => format!(
                "an app in this process, no socket (requests as {})",
                self.target
            ),
            (false, false) => self.target.clone(),
        };
        let credentials = if self.credentials.is_empty() {
            "none".to_string()
        } else {
            self.credentials.join(", ")
        };
        let mut out = format!(
            "conformance run\n  target:      {target}\n  spec:        {} {} (sha256 {}){}\n  \
             seed:        {}\n  selection:   {}\n  credentials: {credentials}\n  \
             operations:  {}\n  contracts:   {}\n  writes:      {}\n",
            self.spec.title,
            self.spec.version,
            self.spec.digest,
            self.spec
                .source
                .as_ref()
                .map_or(String::new(), |s| format!(", from {s}")),
            self.seed,
            self.selection,
            self.operations(),
            self.contracts,
            self.writes,
        );
        for l in &self.left_out {
            out.push_str(&format!("  left out:    {l}\n"));
        }
        out
    }

    /// The operations line: how many the run uses, and how many it left out.
    fn operations(&self) -> String {
        let mut left: Vec<&str> = self.left_out.iter().map(|l| l.operation.as_str()).collect();
        left.dedup();
        if left.is_empty() {
            self.operations.to_string()
        } else {
            format!(
                "{} ({} left out for problems of the spec, listed below)",
                self.operations,
                left.len()
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn left_out_operations_are_counted_once_and_each_problem_listed() {
        let problem = |op: &str, message: &str| LeftOut {
            operation: op.into(),
            pointer: "/paths/~1x/get".into(),
            line: Some(7),
            message: message.into(),
        };
        let header = RunHeader {
            operations: 3,
            contracts: "none".into(),
            left_out: vec![
                problem("GET /x", "first"),
                problem("GET /x", "second"),
                problem("PUT /y", "third"),
            ],
            ..RunHeader::default()
        };
        let text = header.render();
        assert!(
            text.contains("operations:  3 (2 left out for problems of the spec"),
            "{text}"
        );
        assert!(
            text.contains("left out:    GET /x: at /paths/~1x/get (line 7): second"),
            "{text}"
        );
        assert_eq!(text.matches("left out:    ").count(), 3, "{text}");
    }
}
