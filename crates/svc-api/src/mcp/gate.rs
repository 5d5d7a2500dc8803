//! What every `POST /api/mcp` passes before any MCP work: the limit per
//! client IP (in memory: a refused request costs no database work and no
//! key hashing), authentication (no credential: 401), then the limit per
//! caller. Refusals by a limit are JSON-RPC errors -32005 `rate_limited` in
//! an HTTP 200, with `Retry-After`.

use std::sync::Arc;

use axum::body::{Body, to_bytes};
use axum::extract::{FromRequestParts, Request, State};
use axum::http::{HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use svc_service::accounts::rate_limits::Refusal;
use svc_service::{ServiceError, Services};

use crate::ApiError;
use crate::client_ip::client_ip;
use crate::extract::Caller;

/// A JSON-RPC error answer to the request whose body is `body`.
fn rate_limited(body: &[u8], refusal: &Refusal) -> Response {
    let id = serde_json::from_slice::<Value>(body).ok().and_then(|v| v.get("id").cloned()).unwrap_or(Value::Null);
    let retry = refusal.retry_after_secs();
    let answer = json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": -32005, "message": "rate_limited", "data": {"retryAfter": retry}},
    });
    let mut response = (StatusCode::OK, axum::Json(answer)).into_response();
    for (name, value) in crate::error::rate_limit_headers(refusal) {
        if let Ok(v) = HeaderValue::from_str(&value) {
            response.headers_mut().insert(name, v);
        }
    }
    response
}

async fn body_bytes(body: Body) -> Vec<u8> {
    to_bytes(body, crate::MAX_BODY_BYTES).await.map(|b| b.to_vec()).unwrap_or_default()
}

pub(crate) async fn gate(State(services): State<Arc<Services>>, request: Request, next: Next) -> Response {
    let (mut parts, body) = request.into_parts();
    let ip = client_ip(&parts, &services.trusted_proxies);
    match services.rate_limits.take_mcp_ip(ip) {
        Ok(()) => {}
        Err(ServiceError::RateLimited(r)) => return rate_limited(&body_bytes(body).await, &r),
        Err(e) => return ApiError::from(e).into_response(),
    }
    let principal = match Caller::from_request_parts(&mut parts, &services).await {
        Ok(Caller(p)) => p,
        Err(e) => return e.into_response(),
    };
    match services.rate_limits.take_mcp_caller(&principal).await {
        Ok(()) => {}
        Err(ServiceError::RateLimited(r)) => return rate_limited(&body_bytes(body).await, &r),
        Err(e) => return ApiError::from(e).into_response(),
    }
    parts.extensions.insert(principal);
    next.run(Request::from_parts(parts, body)).await
}
