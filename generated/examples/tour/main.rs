//! A runnable tour of the generated client: one real session against a server of the
//! interface, `cargo xtask serve --penalty-every 3` in another terminal.
//!
//! ```text
//! cargo run -p trading-api --example tour -- --base-url http://127.0.0.1:8080/v1 \
//!     --client-id demo-client --client-secret demo-secret \
//!     --redirect-uri http://127.0.0.1:3000/callback
//! ```
//!
//! It never prints a secret: tokens, the code, the verifier and the client secret are
//! shown by length only.

mod session;

use std::process::ExitCode;

use clap::Parser;

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let args = session::Args::parse();
    let mut out = std::io::stdout().lock();
    match session::run(&args, &mut out).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("tour: {e}");
            ExitCode::FAILURE
        }
    }
}
