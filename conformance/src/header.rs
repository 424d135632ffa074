//! The run header: what a run judges and with what — the target (or the embedded reference
//! server), the spec, the seed, the selection and which credentials are present, never
//! their values. Printed first and written into every report, so a green run always says
//! what it was green against.

use serde::Serialize;

use crate::spec::Identity;

/// Who and what a run judged.
#[derive(Debug, Clone, Serialize)]
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
}

impl RunHeader {
    /// The header's lines for the terminal.
    pub fn render(&self) -> String {
        let target = if self.embedded {
            format!(
                "embedded reference server at {} (no --base-url given)",
                self.target
            )
        } else {
            self.target.clone()
        };
        let credentials = if self.credentials.is_empty() {
            "none".to_string()
        } else {
            self.credentials.join(", ")
        };
        format!(
            "conformance run\n  target:      {target}\n  spec:        {} {} (sha256 {})\n  \
             seed:        {}\n  selection:   {}\n  credentials: {credentials}\n  writes:      {}\n",
            self.spec.title,
            self.spec.version,
            self.spec.digest,
            self.seed,
            self.selection,
            self.writes
        )
    }
}
