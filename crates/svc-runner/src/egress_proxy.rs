//! The browser's one way out. Chromium is started with this local HTTP
//! proxy as its proxy for every URL, loopback included, so every connection
//! a run opens (the page, its subresources, `fetch`, WebSockets) is a
//! `CONNECT` tunnel or a forwarded `http://` request made here. The proxy
//! resolves the host once, refuses it unless every address is public (or
//! private networks are allowed), and dials the address it checked.
//!
//! The request guard (`chromium.rs`) refuses first and with a clear message,
//! but it never sees WebSocket handshakes (the DevTools `Fetch` domain does
//! not pause them), and Chromium resolves a host again after the guard's
//! lookup (a DNS answer that changes in between, "rebinding", would pass).
//! The proxy holds in both cases.

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::header::HeaderValue;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use svc_service::host_vetting::{Refusal, Resolver, bare_host, vetted_addresses};
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// To open a connection, over all the addresses of a host.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(15);
/// Longest life of a tunnel or forwarded exchange: far beyond any run (a
/// run's context, and with it the browser's side, is gone by then).
const CONNECTION_LIFETIME: Duration = Duration::from_secs(15 * 60);
/// How long one side may go on once the other has closed.
const CLOSE_GRACE: Duration = Duration::from_secs(5);
/// The header on every answer the proxy makes itself (not the target's).
pub const ANSWER_HEADER: &str = "x-svc-egress";
/// Failures kept for `failure_since` before the oldest are dropped.
const FAILURES_KEPT: usize = 1024;

type Body = BoxBody<Bytes, hyper::Error>;

/// What went through the proxy, for diagnostics and tests.
#[derive(Debug, Default)]
pub struct EgressStats {
    /// `CONNECT` tunnels opened (https, WebSockets).
    pub tunnels: AtomicU64,
    /// `http://` requests forwarded.
    pub forwarded: AtomicU64,
    /// Connections refused for their address.
    pub refused: AtomicU64,
}

struct Policy {
    allow_private: bool,
    resolver: Resolver,
    stats: Arc<EgressStats>,
    failures: Arc<Failures>,
    /// Cancelled when the proxy is dropped: ends every connection it serves.
    stop: CancellationToken,
}

/// Why the proxy last failed to reach each `host:port`, and when: a run
/// whose navigation failed at the proxy reports the reason.
#[derive(Default)]
struct Failures(std::sync::Mutex<HashMap<String, (Instant, String)>>);

impl Failures {
    fn record(&self, host: &str, port: u16, why: &str) {
        let mut map = self.0.lock().expect("failures lock");
        if map.len() >= FAILURES_KEPT {
            // Runs end within minutes: older entries are of no use.
            map.retain(|_, (at, _)| at.elapsed() < Duration::from_secs(60));
            if map.len() >= FAILURES_KEPT
                && let Some(oldest) = map.iter().min_by_key(|(_, (at, _))| *at).map(|(key, _)| key.clone())
            {
                map.remove(&oldest);
            }
        }
        map.insert(failure_key(host, port), (Instant::now(), why.to_string()));
    }
}

/// A running proxy on 127.0.0.1; it stops when dropped.
pub struct EgressProxy {
    addr: SocketAddr,
    stats: Arc<EgressStats>,
    failures: Arc<Failures>,
    accept: JoinHandle<()>,
    stop: CancellationToken,
}

impl Drop for EgressProxy {
    fn drop(&mut self) {
        self.stop.cancel();
        self.accept.abort();
    }
}

impl EgressProxy {
    pub async fn start(allow_private: bool, resolver: Resolver) -> std::io::Result<EgressProxy> {
        let listener = TcpListener::bind(("127.0.0.1", 0)).await?;
        let addr = listener.local_addr()?;
        let stats = Arc::new(EgressStats::default());
        let failures = Arc::new(Failures::default());
        let stop = CancellationToken::new();
        let policy = Arc::new(Policy {
            allow_private,
            resolver,
            stats: stats.clone(),
            failures: failures.clone(),
            stop: stop.clone(),
        });
        let accept = tokio::spawn(async move {
            loop {
                let stream = match listener.accept().await {
                    Ok((stream, _)) => stream,
                    Err(e) => {
                        // Out of file descriptors, say: try again shortly.
                        tracing::warn!("egress proxy: accept failed: {e}");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                };
                let policy = policy.clone();
                let stop = policy.stop.clone();
                spawn_bounded(stop, async move {
                    let service = service_fn(move |request| {
                        let policy = policy.clone();
                        async move { Ok::<_, Infallible>(policy.handle(request).await) }
                    });
                    let served = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .with_upgrades()
                        .await;
                    if let Err(e) = served {
                        tracing::debug!("egress proxy: connection ended: {e}");
                    }
                });
            }
        });
        Ok(EgressProxy { addr, stats, failures, accept, stop })
    }

    /// Why the proxy could not reach `host:port`, if it failed to at or
    /// after `since`.
    pub fn failure_since(&self, host: &str, port: u16, since: Instant) -> Option<String> {
        let map = self.failures.0.lock().expect("failures lock");
        map.get(&failure_key(host, port)).filter(|(at, _)| *at >= since).map(|(_, why)| why.clone())
    }

    /// The address to give Chromium (`--proxy-server=http://ADDR`).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    pub fn stats(&self) -> &EgressStats {
        &self.stats
    }
}

impl Policy {
    async fn handle(&self, request: Request<Incoming>) -> Response<Body> {
        if request.method() == Method::CONNECT { self.tunnel(request).await } else { self.forward(request).await }
    }

    /// `CONNECT host:port`: dial the vetted address, answer 200, then copy
    /// bytes both ways (TLS and WebSocket frames pass through untouched).
    async fn tunnel(&self, request: Request<Incoming>) -> Response<Body> {
        let Some(authority) = request.uri().authority().cloned() else {
            return answer(StatusCode::BAD_REQUEST, "CONNECT needs host:port".into());
        };
        let port = authority.port_u16().unwrap_or(443);
        let upstream = match self.dial(authority.host(), port).await {
            Ok(upstream) => upstream,
            Err(refusal) => return refusal,
        };
        self.stats.tunnels.fetch_add(1, Ordering::Relaxed);
        spawn_bounded(self.stop.clone(), async move {
            match hyper::upgrade::on(request).await {
                Ok(upgraded) => pipe(TokioIo::new(upgraded), upstream).await,
                Err(e) => tracing::debug!("egress proxy: tunnel not upgraded: {e}"),
            }
        });
        Response::new(empty())
    }

    /// An absolute-form `http://` request: sent on to the vetted address in
    /// origin form, its answer streamed back.
    async fn forward(&self, mut request: Request<Incoming>) -> Response<Body> {
        let uri = request.uri().clone();
        let (Some("http"), Some(host)) = (uri.scheme_str(), uri.host()) else {
            return answer(StatusCode::BAD_REQUEST, format!("not a proxy request: {uri}"));
        };
        let upstream = match self.dial(host, uri.port_u16().unwrap_or(80)).await {
            Ok(upstream) => upstream,
            Err(refusal) => return refusal,
        };
        let (mut sender, connection) = match hyper::client::conn::http1::handshake(TokioIo::new(upstream)).await {
            Ok(pair) => pair,
            Err(e) => return answer(StatusCode::BAD_GATEWAY, format!("cannot talk to `{host}`: {e}")),
        };
        spawn_bounded(self.stop.clone(), async move {
            if let Err(e) = connection.await {
                tracing::debug!("egress proxy: upstream connection ended: {e}");
            }
        });
        let path = uri.path_and_query().map_or("/", |p| p.as_str());
        *request.uri_mut() = match path.parse() {
            Ok(path) => path,
            Err(_) => return answer(StatusCode::BAD_REQUEST, format!("bad path: {path}")),
        };
        request.headers_mut().remove("proxy-connection");
        request.headers_mut().remove("proxy-authorization");
        self.stats.forwarded.fetch_add(1, Ordering::Relaxed);
        match sender.send_request(request).await {
            Ok(mut response) => {
                // Only the proxy's own answers carry it.
                response.headers_mut().remove(ANSWER_HEADER);
                response.map(|body| body.boxed())
            }
            Err(e) => answer(StatusCode::BAD_GATEWAY, format!("no answer from `{host}`: {e}")),
        }
    }

    /// Resolves `host` once, refuses it unless every address is allowed, and
    /// connects to the first address that answers.
    async fn dial(&self, host: &str, port: u16) -> Result<TcpStream, Response<Body>> {
        let fail = |status: StatusCode, why: String| {
            self.failures.record(host, port, &why);
            answer(status, why)
        };
        let addrs = match vetted_addresses(host, port, self.allow_private, &self.resolver).await {
            Ok(addrs) => addrs,
            Err(refusal @ Refusal::Private { .. }) => {
                self.stats.refused.fetch_add(1, Ordering::Relaxed);
                return Err(fail(StatusCode::FORBIDDEN, refusal.to_string()));
            }
            Err(refusal) => return Err(fail(StatusCode::BAD_GATEWAY, refusal.to_string())),
        };
        let mut last = String::new();
        let deadline = tokio::time::Instant::now() + CONNECT_TIMEOUT;
        for addr in addrs {
            match tokio::time::timeout_at(deadline, TcpStream::connect(addr)).await {
                Ok(Ok(stream)) => return Ok(stream),
                Ok(Err(e)) => last = e.to_string(),
                Err(_) => {
                    last = "timed out".into();
                    break;
                }
            }
        }
        Err(fail(StatusCode::BAD_GATEWAY, format!("cannot connect to `{host}` port {port}: {last}")))
    }
}

/// One key per `host:port`, whether an IPv6 host came with brackets or not.
fn failure_key(host: &str, port: u16) -> String {
    format!("{}:{port}", bare_host(host))
}

/// Runs `work` until it ends, the proxy stops, or `CONNECTION_LIFETIME`.
fn spawn_bounded(stop: CancellationToken, work: impl std::future::Future<Output = ()> + Send + 'static) {
    tokio::spawn(async move {
        tokio::select! {
            _ = tokio::time::timeout(CONNECTION_LIFETIME, work) => {}
            _ = stop.cancelled() => {}
        }
    });
}

/// Copies both ways; once one side closes, the other gets `CLOSE_GRACE`
/// to finish (a target that never closes does not hold the tunnel open).
async fn pipe(client: TokioIo<hyper::upgrade::Upgraded>, upstream: TcpStream) {
    let (mut client_read, mut client_write) = tokio::io::split(client);
    let (mut upstream_read, mut upstream_write) = upstream.into_split();
    let up = async {
        let _ = tokio::io::copy(&mut client_read, &mut upstream_write).await;
        let _ = upstream_write.shutdown().await;
    };
    let down = async {
        let _ = tokio::io::copy(&mut upstream_read, &mut client_write).await;
        let _ = client_write.shutdown().await;
    };
    tokio::pin!(up, down);
    tokio::select! {
        _ = &mut up => { let _ = tokio::time::timeout(CLOSE_GRACE, &mut down).await; }
        _ = &mut down => { let _ = tokio::time::timeout(CLOSE_GRACE, &mut up).await; }
    }
}

fn empty() -> Body {
    Full::new(Bytes::new()).map_err(|never| match never {}).boxed()
}

fn answer(status: StatusCode, text: String) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from(text)).map_err(|never| match never {}).boxed());
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(ANSWER_HEADER, HeaderValue::from_static("1"));
    headers.insert(hyper::header::CONTENT_TYPE, HeaderValue::from_static("text/plain; charset=utf-8"));
    headers.insert("x-content-type-options", HeaderValue::from_static("nosniff"));
    // A refusal ends the connection (a tunnel refused leaves nothing to reuse).
    headers.insert(hyper::header::CONNECTION, HeaderValue::from_static("close"));
    response
}
