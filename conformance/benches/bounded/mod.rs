//! A child process run to its end within a bound, shared by the benches that time
//! Schemathesis: a run that does not end is killed and reported, never waited on forever.

use std::process::Command;
use std::time::{Duration, Instant};

/// Starts `cmd` and waits for it, polling every `poll`; its wall time, or an error naming
/// `what` when it cannot start or does not end within `within` (it is killed then).
pub fn run(
    cmd: &mut Command,
    within: Duration,
    poll: Duration,
    what: &str,
) -> Result<Duration, String> {
    let started = Instant::now();
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot start {what}: {e}"))?;
    loop {
        match child.try_wait() {
            Ok(Some(_)) => return Ok(started.elapsed()),
            Ok(None) if started.elapsed() > within => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "{what} did not finish within {} s",
                    within.as_secs()
                ));
            }
            Ok(None) => std::thread::sleep(poll),
            Err(e) => return Err(format!("cannot wait for {what}: {e}")),
        }
    }
}
