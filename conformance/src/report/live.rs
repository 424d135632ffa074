//! Reports that survive the run: results are collected as cases end, and the report files
//! are rewritten (atomically, see [`super::write_files`]) at most every [`EVERY`],
//! marked `in_progress`, so a CI timeout that kills the run still leaves valid JUnit and
//! JSON with the results so far. On SIGINT or SIGTERM the harness stops sending and writes
//! them once more, marked `interrupted` ([`interrupted`]).

use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::RunState;
use crate::exchange::Exchange;
use crate::outcome::CheckResult;

/// How often the files are rewritten while cases run, at least: often enough that a killed
/// run loses at most a quarter second of results. A rewrite grows with the run (thousands
/// of exchanges with large answers take a noticeable time to render), so the next one is
/// never due sooner than [`COST_FACTOR`] times the last one took: rewriting stays a fifth
/// of the run's time at most instead of becoming most of it.
pub const EVERY: Duration = Duration::from_millis(250);

/// The least gap between rewrites, in multiples of the time the last rewrite took.
pub const COST_FACTOR: u32 = 4;

/// What a writer is handed: the state, and the results and exchanges so far in case order.
pub type Writer<'a> = dyn Fn(RunState, Vec<CheckResult>, Vec<Exchange>) + Send + Sync + 'a;

/// The results so far, and when the files were last written.
pub struct Live<'a> {
    collected: Mutex<Collected>,
    write: Box<Writer<'a>>,
    /// Least time between two rewrites; `None` when there are no files to write (the
    /// results are still collected, for the summary of an interrupted run).
    every: Option<Duration>,
}

#[derive(Default)]
struct Collected {
    /// `(case index, results, exchanges)` in the order cases ended; discovery is index 0.
    parts: Vec<(usize, Vec<CheckResult>, Vec<Exchange>)>,
    last_write: Option<Instant>,
    /// How long the last rewrite took.
    last_cost: Duration,
}

impl<'a> Live<'a> {
    /// Collects results and hands snapshots to `write` at most every `every`.
    pub fn new(every: Option<Duration>, write: Box<Writer<'a>>) -> Live<'a> {
        Live {
            collected: Mutex::new(Collected::default()),
            write,
            every,
        }
    }

    /// Adds what case `index` produced, and rewrites the files when they are due.
    pub fn add(&self, index: usize, results: &[CheckResult], exchanges: &[Exchange]) {
        let due = {
            let Ok(mut c) = self.collected.lock() else {
                return;
            };
            c.parts.push((index, results.to_vec(), exchanges.to_vec()));
            let Some(every) = self.every else {
                return;
            };
            let gap = every.max(c.last_cost * COST_FACTOR);
            let due = c.last_write.is_none_or(|t| t.elapsed() >= gap);
            if due {
                c.last_write = Some(Instant::now());
            }
            due
        };
        if due {
            let started = Instant::now();
            self.write_now(RunState::InProgress);
            if let Ok(mut c) = self.collected.lock() {
                c.last_cost = started.elapsed();
            }
        }
    }

    /// Writes the files now, in `state`.
    pub fn write_now(&self, state: RunState) {
        let (results, exchanges) = self.so_far();
        (self.write)(state, results, exchanges);
    }

    /// The results and exchanges so far, in case order (as a finished run sorts them).
    pub fn so_far(&self) -> (Vec<CheckResult>, Vec<Exchange>) {
        let Ok(c) = self.collected.lock() else {
            return (Vec::new(), Vec::new());
        };
        let mut parts: Vec<&(usize, Vec<CheckResult>, Vec<Exchange>)> = c.parts.iter().collect();
        parts.sort_by_key(|p| p.0);
        let results = parts.iter().flat_map(|p| p.1.iter().cloned()).collect();
        let exchanges = parts.iter().flat_map(|p| p.2.iter().cloned()).collect();
        (results, exchanges)
    }
}

/// Resolves when the process gets SIGINT (Ctrl-C) or SIGTERM (a CI runner's stop). The
/// handlers are installed when this is called, not when it is first polled, so a signal
/// that comes before the run awaits it is not lost.
pub fn interrupted() -> impl std::future::Future<Output = &'static str> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let int = signal(SignalKind::interrupt());
        let term = signal(SignalKind::terminate());
        async move {
            // A handler that could not be installed leaves its signal's default action.
            let (mut int, mut term) = (int.ok(), term.ok());
            tokio::select! {
                Some(()) = recv(&mut int) => "SIGINT",
                Some(()) = recv(&mut term) => "SIGTERM",
                else => std::future::pending().await,
            }
        }
    }
    #[cfg(not(unix))]
    {
        async {
            match tokio::signal::ctrl_c().await {
                Ok(()) => "Ctrl-C",
                Err(_) => std::future::pending().await,
            }
        }
    }
}

#[cfg(unix)]
async fn recv(signal: &mut Option<tokio::signal::unix::Signal>) -> Option<()> {
    match signal {
        Some(s) => s.recv().await,
        None => None,
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;
    use crate::runner::test_support::{case, skipped};

    #[test]
    fn cases_come_out_in_case_order_and_files_are_rewritten_at_most_every_interval() {
        let writes = AtomicUsize::new(0);
        let live = Live::new(
            Some(Duration::from_secs(3600)),
            Box::new(|state, results, _| {
                assert_eq!(state, RunState::InProgress);
                assert!(!results.is_empty());
                writes.fetch_add(1, Ordering::SeqCst);
            }),
        );
        for i in [3, 1, 2] {
            live.add(i, &[skipped(&case(&format!("c{i}"), false, None), i)], &[]);
        }
        assert_eq!(
            writes.load(Ordering::SeqCst),
            1,
            "the first case writes, the next wait"
        );
        let (results, _) = live.so_far();
        let order: Vec<&str> = results.iter().map(|r| r.case.as_str()).collect();
        assert_eq!(order, ["c1", "c2", "c3"]);

        let never = Live::new(None, Box::new(|_, _, _| panic!("no file to write")));
        never.add(1, &[skipped(&case("c", false, None), 1)], &[]);
        assert_eq!(never.so_far().0.len(), 1, "still collected for the summary");
    }
}
