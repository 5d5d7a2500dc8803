//! Every failure leaves the server as
//! `{"type":"error","message":...,"description":...,"code":...}`.

use axum::Json;
use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use svc_api_types::ErrorBody;
use svc_service::ServiceError;
use svc_service::accounts::rate_limits::Refusal;

#[derive(Debug)]
pub enum ApiError {
    Service(ServiceError),
    /// The body is not JSON at all (syntax error, empty body).
    BadJson(String),
    PayloadTooLarge,
    /// The request's body was still arriving at its deadline (a slow client).
    RequestTimeout(std::time::Duration),
    /// The request was read but svc did not answer it by its deadline.
    Timeout(std::time::Duration),
    UnsupportedMediaType,
    RouteNotFound,
    MethodNotAllowed,
}

impl From<ServiceError> for ApiError {
    fn from(e: ServiceError) -> Self {
        ApiError::Service(e)
    }
}

/// Attached to 500 responses so that the logging middleware can report the
/// cause next to the request id; never sent to the client.
#[derive(Clone)]
struct InternalCause(String);

/// Attached to 503 responses for an unreachable database, for the log.
#[derive(Clone)]
struct UnavailableCause(String);

/// `Retry-After` (seconds) of a 503 for an unreachable database: about one
/// pool acquire timeout, after which the database may be back.
pub const UNAVAILABLE_RETRY_AFTER_SECS: u64 = 5;

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        use ServiceError as S;
        let mut field = None;
        let mut www_authenticate = None;
        let mut internal = None;
        let mut rate_limited = None;
        let mut unavailable = None;
        let (status, code, message, description) = match &self {
            ApiError::Service(e) => match e {
                S::Unauthorized(_) | S::SessionRequired(_) => {
                    www_authenticate = Some("Bearer".to_string());
                    (StatusCode::UNAUTHORIZED, "UNAUTHORIZED", "Unauthorized", e.to_string())
                }
                S::InsufficientScope(missing) => {
                    let scopes = missing.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(" ");
                    www_authenticate = Some(format!("Bearer error=\"insufficient_scope\", scope=\"{scopes}\""));
                    (StatusCode::FORBIDDEN, "INSUFFICIENT_SCOPE", "Forbidden", e.to_string())
                }
                S::ScrapNotInKeyScope => (StatusCode::FORBIDDEN, "SCRAP_NOT_IN_KEY_SCOPE", "Forbidden", e.to_string()),
                S::PlanRequired(_) => (StatusCode::FORBIDDEN, "PLAN_REQUIRED", "Forbidden", e.to_string()),
                S::Forbidden(_) => (StatusCode::FORBIDDEN, "FORBIDDEN", "Forbidden", e.to_string()),
                S::NotFound(_) => (StatusCode::NOT_FOUND, "NOT_FOUND", "Not found", e.to_string()),
                S::Validation { field: f, .. } => {
                    field = Some(f.as_str());
                    (StatusCode::UNPROCESSABLE_ENTITY, "VALIDATION", "Validation failed", e.to_string())
                }
                S::Conflict { code, .. } => (StatusCode::CONFLICT, *code, "Conflict", e.to_string()),
                S::RateLimited(refusal) => {
                    rate_limited = Some(*refusal);
                    (StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED", "Too many requests", e.to_string())
                }
                S::InsufficientBalance => {
                    (StatusCode::PAYMENT_REQUIRED, "INSUFFICIENT_BALANCE", "Payment required", e.to_string())
                }
                S::Unavailable(_) => {
                    (StatusCode::SERVICE_UNAVAILABLE, "UNAVAILABLE", "Service unavailable", e.to_string())
                }
                S::StoreUnavailable(cause) => {
                    unavailable = Some(cause.clone());
                    (StatusCode::SERVICE_UNAVAILABLE, "UNAVAILABLE", "Service unavailable", e.to_string())
                }
                S::AiNotConfigured => {
                    (StatusCode::SERVICE_UNAVAILABLE, "AI_NOT_CONFIGURED", "Service unavailable", e.to_string())
                }
                S::Internal(cause) => {
                    internal = Some(cause.clone());
                    (
                        StatusCode::INTERNAL_SERVER_ERROR,
                        "INTERNAL",
                        "Internal error",
                        "the server failed; the x-request-id header identifies this request in its logs".to_string(),
                    )
                }
            },
            ApiError::BadJson(why) => (StatusCode::BAD_REQUEST, "INVALID_JSON", "Invalid JSON", why.clone()),
            ApiError::PayloadTooLarge => (
                StatusCode::PAYLOAD_TOO_LARGE,
                "PAYLOAD_TOO_LARGE",
                "Payload too large",
                format!("request bodies are limited to {} bytes", crate::MAX_BODY_BYTES),
            ),
            ApiError::RequestTimeout(limit) => (
                StatusCode::REQUEST_TIMEOUT,
                "REQUEST_TIMEOUT",
                "Request timeout",
                format!("the request body did not arrive within {} s", limit.as_secs_f64()),
            ),
            ApiError::Timeout(limit) => (
                StatusCode::SERVICE_UNAVAILABLE,
                "TIMEOUT",
                "Service unavailable",
                format!("the server did not answer within {} s; try again later", limit.as_secs_f64()),
            ),
            ApiError::UnsupportedMediaType => (
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "UNSUPPORTED_MEDIA_TYPE",
                "Unsupported media type",
                "send the body as JSON with `Content-Type: application/json`".to_string(),
            ),
            ApiError::RouteNotFound => (StatusCode::NOT_FOUND, "NOT_FOUND", "Not found", "no such route".to_string()),
            ApiError::MethodNotAllowed => (
                StatusCode::METHOD_NOT_ALLOWED,
                "METHOD_NOT_ALLOWED",
                "Method not allowed",
                "this route does not accept that method".to_string(),
            ),
        };
        let body = ErrorBody {
            kind: "error".into(),
            message: message.into(),
            description,
            code: code.into(),
            field: field.map(str::to_string),
        };
        let mut response = (status, Json(body)).into_response();
        if let Some(value) = www_authenticate.and_then(|v| HeaderValue::from_str(&v).ok()) {
            response.headers_mut().insert(header::WWW_AUTHENTICATE, value);
        }
        if let Some(refusal) = rate_limited {
            for (name, value) in rate_limit_headers(&refusal) {
                if let Ok(v) = HeaderValue::from_str(&value) {
                    response.headers_mut().insert(name, v);
                }
            }
        }
        if let Some(cause) = internal {
            response.extensions_mut().insert(InternalCause(cause));
        }
        if let Some(cause) = unavailable {
            response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(UNAVAILABLE_RETRY_AFTER_SECS));
            response.extensions_mut().insert(UnavailableCause(cause));
        }
        response
    }
}

/// `Retry-After` (seconds) and the IETF `RateLimit-Policy` / `RateLimit`
/// headers (draft-ietf-httpapi-ratelimit-headers).
pub(crate) fn rate_limit_headers(r: &Refusal) -> [(header::HeaderName, String); 3] {
    let secs = |d: std::time::Duration| d.as_secs_f64().ceil() as u64;
    [
        (header::RETRY_AFTER, r.retry_after_secs().to_string()),
        (
            header::HeaderName::from_static("ratelimit-policy"),
            format!("{};w={}", r.rate.limit, r.rate.window.as_secs()),
        ),
        (
            header::HeaderName::from_static("ratelimit"),
            format!("limit={}, remaining={}, reset={}", r.rate.limit, r.decision.remaining, secs(r.decision.reset)),
        ),
    ]
}

/// A request refused before its handler answered (body too large, too
/// slow): the JSON error under `/api/`, the web app's page elsewhere.
pub(crate) fn refusal(path: &str, error: ApiError) -> Response {
    if answers_json(path) {
        return error.into_response();
    }
    let (status, heading, message) = match &error {
        ApiError::PayloadTooLarge => (
            StatusCode::PAYLOAD_TOO_LARGE,
            "Too much to send",
            format!("svc takes requests of at most {} bytes.", crate::MAX_BODY_BYTES),
        ),
        ApiError::RequestTimeout(limit) => (
            StatusCode::REQUEST_TIMEOUT,
            "The request took too long to arrive",
            format!("svc waited {} s for this request. Try again.", limit.as_secs_f64()),
        ),
        ApiError::Timeout(limit) => (
            StatusCode::SERVICE_UNAVAILABLE,
            "This took too long",
            format!("svc did not finish this page within {} s. Try again later.", limit.as_secs_f64()),
        ),
        _ => return error.into_response(),
    };
    svc_web::refused_page(status, heading, message)
}

/// Whether a path belongs to the JSON side (REST, MCP, the health check)
/// rather than to the web app's pages.
fn answers_json(path: &str) -> bool {
    path == "/api" || path.starts_with("/api/") || path == "/healthz" || path == "/readyz"
}

/// An unknown address: the JSON error under `/api/`, the web app's page elsewhere.
pub(crate) async fn not_found(uri: axum::http::Uri) -> Response {
    if answers_json(uri.path()) { ApiError::RouteNotFound.into_response() } else { svc_web::not_found_page() }
}

/// A method a route does not take: the JSON error under `/api/`, the web app's page elsewhere.
pub(crate) async fn method_not_allowed(uri: axum::http::Uri) -> Response {
    if answers_json(uri.path()) {
        ApiError::MethodNotAllowed.into_response()
    } else {
        svc_web::method_not_allowed_page()
    }
}

/// Logs the cause of every 500 with the request's id.
pub(crate) async fn log_internal_errors(request: Request, next: Next) -> Response {
    let request_id = request.headers().get(crate::REQUEST_ID).and_then(|v| v.to_str().ok()).unwrap_or("-").to_string();
    let method = request.method().clone();
    let path = request.uri().path().to_string();
    let mut response = next.run(request).await;
    if let Some(InternalCause(cause)) = response.extensions_mut().remove::<InternalCause>() {
        tracing::error!(request_id, %method, path, cause, "internal error");
    }
    if let Some(UnavailableCause(cause)) = response.extensions_mut().remove::<UnavailableCause>() {
        tracing::warn!(request_id, %method, path, cause, "database unreachable: answered 503");
    }
    if let Some(svc_web::InternalCause(cause)) = response.extensions_mut().remove::<svc_web::InternalCause>() {
        tracing::error!(request_id, %method, path, cause, "internal error (web page)");
    }
    response
}
