//! The accept loop: the router served by hyper-util's connection builder, as
//! `axum::serve` does, plus what it does not offer: a bound on how long a client may
//! take to send a request's headers. (The body has the same bound, enforced where it is
//! read: `request::read_body` answers 408.) Without it, a client that sends half a
//! request holds its connection, and a task, for as long as it likes.

use std::future::Future;
use std::pin::pin;
use std::time::Duration;

use axum::Router;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto::Builder;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::task::JoinSet;

/// Serves `app` on `listener` until `stop` resolves, then lets every open connection
/// finish its request in flight (graceful shutdown) and returns.
pub(crate) async fn serve(
    listener: TcpListener,
    app: Router,
    read_timeout: Duration,
    stop: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let (closing, closed) = tokio::sync::watch::channel(false);
    let mut connections = JoinSet::new();
    let mut stop = pin!(stop);
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                // Out of descriptors, a connection reset before accept: not fatal.
                Err(e) => {
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut stop => break,
        };
        // Reap finished connections so the set does not grow with the server's age.
        while connections.try_join_next().is_some() {}
        let service = TowerToHyperService::new(app.clone());
        let mut closed = closed.clone();
        connections.spawn(async move {
            let mut builder = Builder::new(TokioExecutor::new());
            builder
                .http1()
                .timer(TokioTimer::new())
                .header_read_timeout(read_timeout);
            let mut conn =
                pin!(builder.serve_connection_with_upgrades(TokioIo::new(stream), service));
            tokio::select! {
                _ = conn.as_mut() => return,
                _ = closed.wait_for(|c| *c) => {}
            }
            conn.as_mut().graceful_shutdown();
            let _ = conn.await;
        });
    }
    drop(listener);
    let _ = closing.send(true);
    while connections.join_next().await.is_some() {}
    Ok(())
}
