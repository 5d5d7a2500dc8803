//! Serving a router on a listener, with the connection limits that
//! `axum::serve` cannot be given (docs/decisions.md, Operations): HTTP/1.1
//! only, a deadline for a request's headers (a client that trickles them,
//! or a keep-alive connection left idle, is dropped), and a cap on the
//! headers' size and count (431 beyond). Graceful: on `shutdown` no new
//! connection is taken, idle ones close, and requests in flight finish.

use std::future::Future;
use std::time::Duration;

use axum::Router;
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use tokio::net::TcpListener;
use tower::Service;

/// The most bytes of a request's start line and headers (431 beyond).
pub const MAX_HEADER_BYTES: usize = 64 * 1024;
/// The most header fields in one request (431 beyond).
pub const MAX_HEADERS: usize = 100;

/// Serves `router` on `listener` until `shutdown` resolves; each request
/// carries its peer address (`ConnectInfo<SocketAddr>`), as with axum's own
/// `serve`.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    header_read_timeout: Duration,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let graceful = GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(header_read_timeout)
        .max_header_size(MAX_HEADER_BYTES)
        .max_headers(MAX_HEADERS)
        // The read buffer must hold the largest head allowed.
        .max_buf_size(MAX_HEADER_BYTES.max(8192) + 8192);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of file descriptors and the like: wait, go on.
                    tracing::warn!(error = %e, "accepting a connection failed");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let _ = stream.set_nodelay(true);
        let router = router.clone();
        let service = hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
            request.extensions_mut().insert(ConnectInfo(peer));
            let mut router = router.clone();
            async move { router.call(request).await }
        });
        let connection = builder.serve_connection(TokioIo::new(stream), service);
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                // A client gone, headers too slow or too large: its affair.
                tracing::debug!(%peer, error = %e, "connection ended with an error");
            }
        });
    }
    drop(listener);
    graceful.shutdown().await;
    Ok(())
}
