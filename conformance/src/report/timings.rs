//! Latency figures read from the run's exchanges: per operation p50/p95/max over every
//! answer it got, and the time each case waited for answers. A check's own time is on its
//! result ([`crate::outcome::CheckResult::elapsed`]), from the request it judged.

use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::exchange::Exchange;

/// One operation's latency over the answers it got (requests with no answer are left out:
/// their time is the timeout, not the target's).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Latency {
    /// Answers measured.
    pub answers: usize,
    /// Median, in milliseconds.
    pub p50_ms: f64,
    /// 95th percentile, in milliseconds.
    pub p95_ms: f64,
    /// Slowest answer, in milliseconds.
    pub max_ms: f64,
}

impl Latency {
    /// The figures of `times`; `None` when there are none.
    pub fn of(mut times: Vec<Duration>) -> Option<Latency> {
        if times.is_empty() {
            return None;
        }
        times.sort_unstable();
        Some(Latency {
            answers: times.len(),
            p50_ms: millis(nearest_rank(&times, 50)),
            p95_ms: millis(nearest_rank(&times, 95)),
            max_ms: millis(times[times.len() - 1]),
        })
    }

    /// `p50 1.2 ms, p95 3.4 ms, max 9.0 ms`, as the terminal and HTML show it.
    pub fn describe(&self) -> String {
        format!(
            "p50 {:.1} ms, p95 {:.1} ms, max {:.1} ms",
            self.p50_ms, self.p95_ms, self.max_ms
        )
    }
}

/// The nearest-rank percentile (no interpolation: every figure is a latency that was
/// measured). `sorted` is not empty.
fn nearest_rank(sorted: &[Duration], percent: usize) -> Duration {
    let rank = (percent * sorted.len()).div_ceil(100).max(1);
    sorted[rank - 1]
}

/// Milliseconds with microsecond precision (a stable, readable figure in reports).
fn millis(d: Duration) -> f64 {
    d.as_micros() as f64 / 1000.0
}

/// Latency per operation of the requests (the operation a request went to, which for a
/// discovery step may differ from the case's).
pub fn per_operation(exchanges: &[Exchange]) -> BTreeMap<String, Latency> {
    let mut times: BTreeMap<&str, Vec<Duration>> = BTreeMap::new();
    for e in exchanges {
        if let Some(t) = e.elapsed {
            times.entry(e.operation.as_str()).or_default().push(t);
        }
    }
    times
        .into_iter()
        .filter_map(|(op, ts)| Latency::of(ts).map(|l| (op.to_string(), l)))
        .collect()
}

/// The time each case spent waiting for answers: the sum of its requests' latencies (a
/// sweep's every request, a sequence's every step).
pub fn per_case(exchanges: &[Exchange]) -> HashMap<&str, Duration> {
    let mut times: HashMap<&str, Duration> = HashMap::new();
    for e in exchanges {
        if let Some(t) = e.elapsed {
            *times.entry(e.case.as_str()).or_default() += t;
        }
    }
    times
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_measured_values_by_nearest_rank() {
        let times: Vec<Duration> = (1..=20).rev().map(Duration::from_millis).collect();
        let l = Latency::of(times).unwrap();
        assert_eq!(l.answers, 20);
        assert_eq!(l.p50_ms, 10.0);
        assert_eq!(l.p95_ms, 19.0);
        assert_eq!(l.max_ms, 20.0);
        let one = Latency::of(vec![Duration::from_micros(1500)]).unwrap();
        assert_eq!((one.p50_ms, one.p95_ms, one.max_ms), (1.5, 1.5, 1.5));
        assert!(Latency::of(Vec::new()).is_none());
    }
}
