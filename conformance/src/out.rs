//! Standard output as a shell expects it: every line the harness prints to stdout goes
//! through here, so a reader that stops early (`conformance … | head`) ends the printing,
//! not the run. Rust's `println!` panics when the pipe is closed; here the first failed
//! write (a closed pipe, or any other error: stdout that cannot be written is not worth
//! a crash either) marks stdout closed, and every later write is dropped without trying.
//! The run itself goes on: its report files are written and the process exits with the
//! code its verdict gives.

use std::io::Write as _;
use std::sync::atomic::{AtomicBool, Ordering};

/// Set once a write to stdout has failed: nothing more is written to it.
static CLOSED: AtomicBool = AtomicBool::new(false);

/// Prints `text` and a newline to stdout, unless stdout was found closed.
pub fn line(text: &str) {
    write(text, true);
}

/// Prints `text` to stdout as it is (no newline added), unless stdout was found closed.
pub fn text(text: &str) {
    write(text, false);
}

/// Whether a write to stdout has failed: the reader is gone.
pub fn closed() -> bool {
    CLOSED.load(Ordering::Relaxed)
}

fn write(text: &str, newline: bool) {
    if closed() {
        return;
    }
    let mut out = std::io::stdout().lock();
    let written = out
        .write_all(text.as_bytes())
        .and_then(|()| {
            if newline {
                out.write_all(b"\n")
            } else {
                Ok(())
            }
        })
        .and_then(|()| out.flush());
    if written.is_err() {
        CLOSED.store(true, Ordering::Relaxed);
    }
}
