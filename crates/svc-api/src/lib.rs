//! The HTTP adapter: routes, extractors that authenticate, the conversions
//! between the JSON shapes of `svc-api-types` and the services' commands and
//! results, and the one error type that renders every failure
//! as `{type, message, description, code}` (docs/decisions.md, Errors).
//! Handlers parse, call a service, render;
//! they hold no business rules and never touch storage.

mod client_ip;
mod commands;
mod error;
mod extract;
/// Public for the fuzz targets (`fuzz/`) only: argument checks and bounding.
#[doc(hidden)]
pub mod mcp;
mod openapi;
mod ops;
mod routes;
mod views;

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::HeaderName;
use svc_service::Services;
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};

pub use error::ApiError;
pub use ops::{HttpOptions, OPENMETRICS};

/// Largest request body accepted (413 beyond).
pub const MAX_BODY_BYTES: usize = 2 * 1024 * 1024;

const REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// The whole HTTP surface over `services`: REST, MCP and the web app, and
/// `GET /metrics` when `options` has a metrics token.
pub fn router(services: Arc<Services>, options: HttpOptions) -> Router {
    let metrics = match options.metrics_token {
        Some(token) => ops::guarded_metrics(token),
        None => Router::new(),
    };
    let app = routes::routes()
        .merge(mcp::routes(services.clone()))
        .merge(svc_web::routes())
        .merge(metrics)
        .fallback(error::not_found)
        .method_not_allowed_fallback(error::method_not_allowed)
        .with_state(services);
    operated(app, options.request_timeout)
}

/// The method and path of every route of the REST route table, which
/// builds the router (`/api/mcp`, `/metrics` and the web app's pages are
/// routed apart). The api suite checks the OpenAPI document against it.
pub fn rest_routes() -> Vec<(axum::http::Method, &'static str)> {
    routes::table().into_iter().map(|route| (route.method, route.path)).collect()
}

/// `GET /metrics` alone, without a token: for `SVC_METRICS_LISTEN`, an
/// address of its own that the operator keeps private.
pub fn metrics_router(services: Arc<Services>, request_timeout: Duration) -> Router {
    let app = Router::new()
        .route(
            "/metrics",
            axum::routing::get(|axum::extract::State(s): axum::extract::State<Arc<Services>>| async move {
                ops::render(&s).await
            }),
        )
        .fallback(error::not_found)
        .method_not_allowed_fallback(error::method_not_allowed)
        .with_state(services);
    operated(app, request_timeout)
}

/// The layers every request goes through, outermost last: its request id
/// (set, and sent back), its span, its deadline and body limit, and the
/// logging of internal errors.
fn operated(app: Router, request_timeout: Duration) -> Router {
    app.layer(axum::middleware::from_fn(error::log_internal_errors))
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(axum::middleware::from_fn_with_state(request_timeout, ops::guard))
        .layer(axum::middleware::from_fn(ops::request_span))
        .layer(PropagateRequestIdLayer::new(REQUEST_ID))
        .layer(SetRequestIdLayer::new(REQUEST_ID, MakeRequestUuid))
}
