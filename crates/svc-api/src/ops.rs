//! What every request goes through for the operator's sake
//! (docs/decisions.md, Operations): a span carrying its request id (so that
//! every log line of the request names it), the body limit and the request
//! deadline; and `GET /metrics`, behind a bearer token on the main listener
//! or on an address of its own.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::header::{AUTHORIZATION, CONTENT_LENGTH, CONTENT_TYPE};
use axum::http::{HeaderMap, Method};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use http_body::{Body as HttpBody, Frame, SizeHint};
use http_body_util::Limited;
use svc_domain::history::MAX_RUN_WAIT_SECS;
use svc_service::{ServiceError, Services};
use tracing::Instrument;

use crate::error::{ApiError, refusal};

/// How the HTTP surface is set up by the operator.
#[derive(Clone, Debug)]
pub struct HttpOptions {
    /// `SVC_METRICS_TOKEN`: `GET /metrics` on this router asks for it as a
    /// bearer token; `None`, this router has no `/metrics` (404).
    pub metrics_token: Option<Arc<str>>,
    /// `SVC_REQUEST_TIMEOUT`: the most a request may take, its body
    /// included; a long poll gets its wait on top ([`deadline`]).
    pub request_timeout: Duration,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions { metrics_token: None, request_timeout: Duration::from_secs(90) }
    }
}

/// The content type of the OpenMetrics text format, which Prometheus asks
/// for first (and the format `prometheus-client` writes).
pub const OPENMETRICS: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// The longest request id kept in the logs (a client may choose its own).
const REQUEST_ID_MAX: usize = 128;

/// Runs the request inside a `request` span holding its `request_id`,
/// method and path (never the query: the unsubscribe link carries a token
/// there), and logs its answer at debug level.
pub(crate) async fn request_span(request: Request, next: Next) -> Response {
    let id = request.headers().get(crate::REQUEST_ID).and_then(|v| v.to_str().ok()).unwrap_or("-");
    let id: String = id.chars().take(REQUEST_ID_MAX).collect();
    let span = tracing::info_span!(
        "request",
        request_id = %id,
        method = %request.method(),
        path = %request.uri().path(),
    );
    let started = Instant::now();
    async move {
        let response = next.run(request).await;
        tracing::debug!(status = response.status().as_u16(), ms = started.elapsed().as_millis() as u64, "answered");
        response
    }
    .instrument(span)
    .await
}

/// The request's deadline: the request timeout, plus the wait a long poll
/// asks for (`?wait=N`, at most its documented maximum; `POST /api/mcp`,
/// whose `wait` is inside the JSON-RPC body, always gets the maximum).
pub(crate) fn deadline(request_timeout: Duration, method: &Method, path: &str, query: Option<&str>) -> Duration {
    let wait = if method == Method::POST && path == "/api/mcp" {
        MAX_RUN_WAIT_SECS
    } else {
        query
            .into_iter()
            .flat_map(|q| q.split('&'))
            .filter_map(|pair| pair.split_once('='))
            .find(|(key, _)| *key == "wait")
            .and_then(|(_, value)| value.trim().parse::<u64>().ok())
            .unwrap_or(0)
            .min(MAX_RUN_WAIT_SECS)
    };
    request_timeout + Duration::from_secs(wait)
}

/// The body limit and the deadline of every request.
///
/// A body announced larger than [`crate::MAX_BODY_BYTES`] is refused (413)
/// before a byte of it is read; a body without a length stops being read at
/// the limit (whatever reads it: an extractor, the MCP service), so that the
/// limit holds on every route. A request not answered by its deadline is
/// dropped and answered 408 while its body was still arriving (a slow
/// client), else 503 (svc was slow).
pub(crate) async fn guard(State(timeout): State<Duration>, request: Request, next: Next) -> Response {
    let path = request.uri().path().to_string();
    let announced =
        request.headers().get(CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.trim().parse::<u64>().ok());
    if announced.is_some_and(|n| n > crate::MAX_BODY_BYTES as u64) {
        return refusal(&path, ApiError::PayloadTooLarge);
    }
    let limit = deadline(timeout, request.method(), &path, request.uri().query());
    let received = Arc::new(AtomicBool::new(false));
    let request = request.map(|body| {
        if body.is_end_stream() {
            received.store(true, Ordering::Relaxed);
        }
        Body::new(Watched { inner: Limited::new(body, crate::MAX_BODY_BYTES), received: received.clone() })
    });
    match tokio::time::timeout(limit, next.run(request)).await {
        Ok(response) => response,
        Err(_) if !received.load(Ordering::Relaxed) => {
            tracing::info!(limit_ms = limit.as_millis() as u64, "request body still arriving at the deadline");
            refusal(&path, ApiError::RequestTimeout(limit))
        }
        Err(_) => {
            tracing::warn!(limit_ms = limit.as_millis() as u64, "request not answered by its deadline");
            refusal(&path, ApiError::Timeout(limit))
        }
    }
}

/// A request body that says when it has been read to its end.
struct Watched {
    inner: Limited<Body>,
    received: Arc<AtomicBool>,
}

impl HttpBody for Watched {
    type Data = Bytes;
    type Error = Box<dyn std::error::Error + Send + Sync>;

    fn poll_frame(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.inner).poll_frame(cx);
        // The end, or an error (a body over the limit, a client gone): no
        // more to wait for.
        if matches!(polled, Poll::Ready(None | Some(Err(_)))) || this.inner.is_end_stream() {
            this.received.store(true, Ordering::Relaxed);
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// `GET /metrics` with the bearer token `token` (compared in constant time).
pub(crate) fn guarded_metrics(token: Arc<str>) -> Router<Arc<Services>> {
    Router::new().route(
        "/metrics",
        get(move |State(services): State<Arc<Services>>, headers: HeaderMap| {
            let token = token.clone();
            async move {
                if !bearer_matches(&headers, &token) {
                    let why = "GET /metrics needs the operator's metrics token (SVC_METRICS_TOKEN) as a bearer token";
                    return ApiError::Service(ServiceError::Unauthorized(why.into())).into_response();
                }
                render(&services).await
            }
        }),
    )
}

/// The metrics in the OpenMetrics text format, the store's gauges read now.
pub(crate) async fn render(services: &Services) -> Response {
    let metrics = match services.scrape_metrics().await {
        Ok(m) => m,
        Err(e) => return ApiError::from(e).into_response(),
    };
    let mut text = String::new();
    if let Err(e) = prometheus_client::encoding::text::encode(&mut text, metrics.registry()) {
        return ApiError::Service(ServiceError::Internal(format!("encoding the metrics: {e}"))).into_response();
    }
    ([(CONTENT_TYPE, OPENMETRICS)], text).into_response()
}

fn bearer_matches(headers: &HeaderMap, token: &str) -> bool {
    let given = headers
        .get(AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer ").or_else(|| v.strip_prefix("bearer ")))
        .map(str::trim)
        .unwrap_or("");
    constant_time_eq(given.as_bytes(), token.as_bytes())
}

/// Equal bytes, in a time that depends on the lengths only.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |diff, (x, y)| diff | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_polls_get_their_wait_on_top_of_the_timeout() {
        let base = Duration::from_secs(10);
        let at = |method: Method, path: &str, query: Option<&str>| deadline(base, &method, path, query).as_secs();
        assert_eq!(at(Method::GET, "/api/scraps", None), 10);
        assert_eq!(at(Method::POST, "/api/scraps/worker/x", Some("wait=60")), 70);
        assert_eq!(at(Method::GET, "/api/tasks/x", Some("param=a&wait=5")), 15);
        assert_eq!(at(Method::POST, "/api/scraps/worker/x", Some("wait=100000")), 130, "capped at the maximum");
        assert_eq!(at(Method::POST, "/api/scraps/worker/x", Some("wait=soon")), 10, "the route refuses it");
        assert_eq!(at(Method::POST, "/api/mcp", None), 130, "MCP's wait is in its body");
        assert_eq!(at(Method::GET, "/api/mcp", None), 10);
    }

    #[test]
    fn tokens_compare_whole() {
        assert!(constant_time_eq(b"abc", b"abc"));
        assert!(!constant_time_eq(b"abc", b"abd"));
        assert!(!constant_time_eq(b"abc", b"abcd"));
        let mut headers = HeaderMap::new();
        headers.insert(AUTHORIZATION, "Bearer s3cret-token".parse().unwrap());
        assert!(bearer_matches(&headers, "s3cret-token"));
        assert!(!bearer_matches(&headers, "s3cret-toke"));
        assert!(!bearer_matches(&HeaderMap::new(), "s3cret-token"));
    }
}
