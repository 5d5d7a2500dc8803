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
//!
//! A proxy started with upstream proxies (a proxy tier, see [`crate::upstream`])
//! vets the target the same way, then goes on through one of them, in turn
//! per connection: a tunnel is a `CONNECT` to the upstream, an `http://`
//! request is sent to it in absolute form, both with the upstream's
//! `Proxy-Authorization`. The upstream's own address is the operator's and
//! is not vetted, and the upstream resolves the target again itself (the
//! address pinning above holds for direct runs only; what an upstream can
//! reach is its network's business, not svc's). The upstream's credentials
//! are added here and never reach the browser, a log or an answer.
//!
//! A confined run (AI Fix's candidates) gets a proxy of its own
//! ([`EgressProxy::start_confined`]) that refuses (403) every host outside
//! the run's sites before it vets the address. It shares them (one
//! `svc_engine::Confinement`) with the run's request guard, which adds the
//! site of each redirect of the run's first navigation while that hop is
//! paused, before Chromium can connect to it (`first_navigation.rs`).

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::header::HeaderValue;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use svc_engine::Confinement;
use svc_engine::host_vetting::{PrivateNetworks, Refusal, Resolver, bare_host, vetted_addresses, within};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::upstream::UpstreamProxy;

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
/// Longest answer head an upstream proxy may send to a `CONNECT`.
const UPSTREAM_HEAD_MAX: usize = 16 * 1024;

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
    /// Bytes sent towards targets (to the target, or to the upstream
    /// proxy), request heads and `CONNECT`s included.
    pub bytes_up: AtomicU64,
    /// Bytes received from targets (or from the upstream proxy), answer
    /// heads included; the proxy's own answers are not counted.
    pub bytes_down: AtomicU64,
    /// Connections opened to each upstream proxy, in the order they were
    /// given (empty for a direct proxy).
    pub upstream_connections: Vec<AtomicU64>,
}

struct Policy {
    allow_private: PrivateNetworks,
    resolver: Resolver,
    stats: Arc<EgressStats>,
    failures: Arc<Failures>,
    /// Cancelled when the proxy is dropped: ends every connection it serves.
    stop: CancellationToken,
    /// Where vetted connections go on to; empty: dialled directly.
    upstreams: Vec<UpstreamProxy>,
    /// The upstream the next connection starts with (round-robin).
    next_upstream: AtomicUsize,
    /// The only sites connections may go to (a confined run's own proxy):
    /// shared with the run's request guard, which adds the sites of the
    /// first navigation's redirects (`first_navigation.rs`).
    confined_to: Option<Confinement>,
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
    /// No page reaches the proxy itself as a target (own_ports).
    _own: svc_engine::own_ports::OwnPort,
}

impl Drop for EgressProxy {
    fn drop(&mut self) {
        self.stop.cancel();
        self.accept.abort();
    }
}

impl EgressProxy {
    /// Starts a proxy on a free loopback port. With `upstreams`, every
    /// vetted connection goes on through one of them (in turn, per
    /// connection; the next one if it cannot be reached); without, the
    /// proxy dials the target itself.
    pub async fn start(
        allow_private: PrivateNetworks,
        resolver: Resolver,
        upstreams: Vec<UpstreamProxy>,
    ) -> std::io::Result<EgressProxy> {
        EgressProxy::start_confined(allow_private, resolver, upstreams, None).await
    }

    /// [`Self::start`], refusing (403) every connection to a host outside
    /// the sites of `confined_to` when set (as they are when the connection
    /// is asked for): the proxy of one confined run's context.
    pub async fn start_confined(
        allow_private: PrivateNetworks,
        resolver: Resolver,
        upstreams: Vec<UpstreamProxy>,
        confined_to: Option<Confinement>,
    ) -> std::io::Result<EgressProxy> {
        let listener = TcpListener::bind(("127.0.0.1", 0)).await?;
        let addr = listener.local_addr()?;
        let stats = Arc::new(EgressStats {
            upstream_connections: upstreams.iter().map(|_| AtomicU64::new(0)).collect(),
            ..EgressStats::default()
        });
        let failures = Arc::new(Failures::default());
        let stop = CancellationToken::new();
        let policy = Arc::new(Policy {
            allow_private,
            resolver,
            stats: stats.clone(),
            failures: failures.clone(),
            stop: stop.clone(),
            upstreams,
            next_upstream: AtomicUsize::new(0),
            confined_to,
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
        let _own = svc_engine::own_ports::OwnPort::claim(addr);
        Ok(EgressProxy { addr, stats, failures, accept, stop, _own })
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

    /// `CONNECT host:port`: dial the vetted address (or open the tunnel
    /// through an upstream proxy), answer 200, then copy bytes both ways
    /// (TLS and WebSocket frames pass through untouched).
    async fn tunnel(&self, request: Request<Incoming>) -> Response<Body> {
        let Some(authority) = request.uri().authority().cloned() else {
            return answer(StatusCode::BAD_REQUEST, "CONNECT needs host:port".into());
        };
        let (host, port) = (authority.host(), authority.port_u16().unwrap_or(443));
        let (upstream, early) = if self.upstreams.is_empty() {
            match self.dial(host, port).await {
                Ok(upstream) => (upstream, Vec::new()),
                Err(refusal) => return refusal,
            }
        } else {
            match self.tunnel_upstream(host, port).await {
                Ok(opened) => opened,
                Err(refusal) => return refusal,
            }
        };
        self.stats.tunnels.fetch_add(1, Ordering::Relaxed);
        spawn_bounded(self.stop.clone(), async move {
            match hyper::upgrade::on(request).await {
                Ok(upgraded) => {
                    let mut client = TokioIo::new(upgraded);
                    // What the upstream sent after its answer's head belongs to the tunnel.
                    if !early.is_empty() && client.write_all(&early).await.is_err() {
                        return;
                    }
                    pipe(client, upstream).await
                }
                Err(e) => tracing::debug!("egress proxy: tunnel not upgraded: {e}"),
            }
        });
        Response::new(empty())
    }

    /// A tunnel through an upstream proxy: vets the target, asks the
    /// upstream for `CONNECT host:port`, and hands back the connection once
    /// it answered 2xx, with any bytes read past its answer's head.
    async fn tunnel_upstream(&self, host: &str, port: u16) -> Result<(Counted<TcpStream>, Vec<u8>), Response<Body>> {
        self.vet(host, port).await?;
        let (mut stream, proxy) = self.dial_upstream(host, port).await?;
        let fail = |why: String| {
            self.failures.record(host, port, &why);
            answer(StatusCode::BAD_GATEWAY, why)
        };
        let target = format!("{host}:{port}");
        let mut head = format!("CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n");
        if let Some(authorization) = proxy.authorization() {
            head.push_str("Proxy-Authorization: ");
            head.push_str(authorization.to_str().unwrap_or_default());
            head.push_str("\r\n");
        }
        head.push_str("\r\n");
        let asked = async {
            stream.write_all(head.as_bytes()).await.map_err(|e| e.to_string())?;
            read_head(&mut stream).await
        };
        match tokio::time::timeout(CONNECT_TIMEOUT, asked).await {
            Ok(Ok((status, early))) if (200..300).contains(&status) => Ok((stream, early)),
            Ok(Ok((status, _))) => Err(fail(refused_by(proxy, status, &format!("CONNECT {target}")))),
            Ok(Err(e)) => Err(fail(format!("upstream proxy `{}` failed on CONNECT {target}: {e}", proxy.address()))),
            Err(_) => {
                Err(fail(format!("upstream proxy `{}` did not answer CONNECT {target} in time", proxy.address())))
            }
        }
    }

    /// An absolute-form `http://` request: sent on to the vetted address in
    /// origin form (or to an upstream proxy as it came, with the upstream's
    /// credentials), its answer streamed back.
    async fn forward(&self, mut request: Request<Incoming>) -> Response<Body> {
        let uri = request.uri().clone();
        let (Some("http"), Some(host)) = (uri.scheme_str(), uri.host()) else {
            return answer(StatusCode::BAD_REQUEST, format!("not a proxy request: {uri}"));
        };
        let port = uri.port_u16().unwrap_or(80);
        let (upstream, proxy) = if self.upstreams.is_empty() {
            match self.dial(host, port).await {
                Ok(upstream) => (upstream, None),
                Err(refusal) => return refusal,
            }
        } else {
            if let Err(refusal) = self.vet(host, port).await {
                return refusal;
            }
            match self.dial_upstream(host, port).await {
                Ok((upstream, proxy)) => (upstream, Some(proxy)),
                Err(refusal) => return refusal,
            }
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
        request.headers_mut().remove("proxy-connection");
        request.headers_mut().remove("proxy-authorization");
        match proxy {
            // An upstream proxy takes the request in absolute form, as it came.
            Some(proxy) => {
                if let Some(authorization) = proxy.authorization() {
                    request.headers_mut().insert(hyper::header::PROXY_AUTHORIZATION, authorization);
                }
            }
            None => {
                let path = uri.path_and_query().map_or("/", |p| p.as_str());
                *request.uri_mut() = match path.parse() {
                    Ok(path) => path,
                    Err(_) => return answer(StatusCode::BAD_REQUEST, format!("bad path: {path}")),
                };
            }
        }
        self.stats.forwarded.fetch_add(1, Ordering::Relaxed);
        let method = request.method().clone();
        match sender.send_request(request).await {
            // 407 is the upstream's own answer (no target answers it): a
            // failure of the tier, not the page's status.
            Ok(response) if proxy.is_some() && response.status() == StatusCode::PROXY_AUTHENTICATION_REQUIRED => {
                let why = refused_by(proxy.expect("an upstream"), 407, &format!("{method} {host}:{port}"));
                self.failures.record(host, port, &why);
                answer(StatusCode::BAD_GATEWAY, why)
            }
            Ok(mut response) => {
                // Only the proxy's own answers carry it.
                response.headers_mut().remove(ANSWER_HEADER);
                response.map(|body| body.boxed())
            }
            Err(e) => match proxy {
                Some(proxy) => {
                    let why = format!("no answer from upstream proxy `{}` for `{host}`: {e}", proxy.address());
                    self.failures.record(host, port, &why);
                    answer(StatusCode::BAD_GATEWAY, why)
                }
                None => answer(StatusCode::BAD_GATEWAY, format!("no answer from `{host}`: {e}")),
            },
        }
    }

    /// Resolves `host` once and refuses it unless every address is allowed.
    async fn vet(&self, host: &str, port: u16) -> Result<Vec<SocketAddr>, Response<Body>> {
        let fail = |status: StatusCode, why: String| {
            self.failures.record(host, port, &why);
            answer(status, why)
        };
        let vetted = match within(self.confined_to.as_ref(), host) {
            Ok(()) => vetted_addresses(host, port, &self.allow_private, &self.resolver).await,
            Err(refusal) => Err(refusal),
        };
        match vetted {
            Ok(addrs) => Ok(addrs),
            Err(refusal @ (Refusal::Private { .. } | Refusal::OwnPort { .. } | Refusal::OutsideSite { .. })) => {
                self.stats.refused.fetch_add(1, Ordering::Relaxed);
                Err(fail(StatusCode::FORBIDDEN, refusal.to_string()))
            }
            Err(refusal) => Err(fail(StatusCode::BAD_GATEWAY, refusal.to_string())),
        }
    }

    /// Vets `host` and connects to the first of its addresses that answers.
    async fn dial(&self, host: &str, port: u16) -> Result<Counted<TcpStream>, Response<Body>> {
        let addrs = self.vet(host, port).await?;
        let mut last = String::new();
        let deadline = tokio::time::Instant::now() + CONNECT_TIMEOUT;
        for addr in addrs {
            match tokio::time::timeout_at(deadline, TcpStream::connect(addr)).await {
                Ok(Ok(stream)) => return Ok(Counted { inner: stream, stats: self.stats.clone() }),
                Ok(Err(e)) => last = e.to_string(),
                Err(_) => {
                    last = "timed out".into();
                    break;
                }
            }
        }
        let why = format!("cannot connect to `{host}` port {port}: {last}");
        self.failures.record(host, port, &why);
        Err(answer(StatusCode::BAD_GATEWAY, why))
    }

    /// Connects to the next upstream proxy in turn (or, when it cannot be
    /// reached, to the ones after it), for a connection to `host:port`,
    /// which the caller has vetted.
    async fn dial_upstream(
        &self,
        host: &str,
        port: u16,
    ) -> Result<(Counted<TcpStream>, &UpstreamProxy), Response<Body>> {
        let count = self.upstreams.len();
        let first = self.next_upstream.fetch_add(1, Ordering::Relaxed);
        let deadline = tokio::time::Instant::now() + CONNECT_TIMEOUT;
        let mut last = String::new();
        for index in (0..count).map(|i| (first + i) % count) {
            let proxy = &self.upstreams[index];
            match tokio::time::timeout_at(deadline, TcpStream::connect((proxy.host.as_str(), proxy.port))).await {
                Ok(Ok(stream)) => {
                    self.stats.upstream_connections[index].fetch_add(1, Ordering::Relaxed);
                    return Ok((Counted { inner: stream, stats: self.stats.clone() }, proxy));
                }
                Ok(Err(e)) => last = format!("cannot connect to upstream proxy `{}`: {e}", proxy.address()),
                Err(_) => {
                    last = format!("cannot connect to upstream proxy `{}`: timed out", proxy.address());
                    break;
                }
            }
        }
        let why = format!("{last} (for `{host}` port {port})");
        self.failures.record(host, port, &why);
        Err(answer(StatusCode::BAD_GATEWAY, why))
    }
}

/// Why an upstream proxy's answer `status` to `what` failed the connection,
/// naming the proxy by address only.
fn refused_by(proxy: &UpstreamProxy, status: u16, what: &str) -> String {
    let reason = StatusCode::from_u16(status).ok().and_then(|s| s.canonical_reason()).unwrap_or("");
    let hint = match (status, proxy.user()) {
        (407, Some(_)) => " (it refused the configured credentials)",
        (407, None) => " (it wants credentials and none are configured)",
        _ => "",
    };
    format!("upstream proxy `{}` answered HTTP {status} {reason} to {what}{hint}", proxy.address())
}

/// Reads an HTTP answer head (up to the blank line) and its status code;
/// hands back any bytes read past the head.
async fn read_head<S: AsyncRead + Unpin>(stream: &mut S) -> Result<(u16, Vec<u8>), String> {
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 1024];
    loop {
        let n = stream.read(&mut chunk).await.map_err(|e| e.to_string())?;
        if n == 0 {
            return Err("the connection closed before an answer".into());
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let line = String::from_utf8_lossy(&buf[..buf.iter().position(|b| *b == b'\r').unwrap_or(end)]).to_string();
            let mut words = line.split_whitespace();
            let status = match (words.next(), words.next().and_then(|code| code.parse::<u16>().ok())) {
                (Some(version), Some(status)) if version.starts_with("HTTP/1.") => status,
                _ => return Err("its answer is not HTTP".into()),
            };
            return Ok((status, buf.split_off(end + 4)));
        }
        if buf.len() > UPSTREAM_HEAD_MAX {
            return Err("its answer's head is too long".into());
        }
    }
}

/// A connection towards a target whose bytes each way are added to the
/// proxy's stats.
struct Counted<S> {
    inner: S,
    stats: Arc<EgressStats>,
}

impl<S: AsyncRead + Unpin> AsyncRead for Counted<S> {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let polled = Pin::new(&mut this.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = polled {
            this.stats.bytes_down.fetch_add((buf.filled().len() - before) as u64, Ordering::Relaxed);
        }
        polled
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Counted<S> {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<std::io::Result<usize>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.inner).poll_write(cx, buf);
        if let Poll::Ready(Ok(n)) = polled {
            this.stats.bytes_up.fetch_add(n as u64, Ordering::Relaxed);
        }
        polled
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
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
async fn pipe(client: TokioIo<hyper::upgrade::Upgraded>, upstream: Counted<TcpStream>) {
    let (mut client_read, mut client_write) = tokio::io::split(client);
    let (mut upstream_read, mut upstream_write) = tokio::io::split(upstream);
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
