//! Wall-clock time in Unix seconds, with an offset that tests move forward to expire
//! tokens and codes without waiting (the offset only ever grows).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// The server's clock.
#[derive(Debug, Default)]
pub(crate) struct Clock {
    offset_secs: AtomicU64,
}

impl Clock {
    /// Seconds since the Unix epoch, plus the test offset.
    pub(crate) fn now(&self) -> u64 {
        let real = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        real.saturating_add(self.offset_secs.load(Ordering::Relaxed))
    }

    /// Moves the clock forward (test hook).
    pub(crate) fn advance(&self, secs: u64) {
        self.offset_secs.fetch_add(secs, Ordering::Relaxed);
    }
}
