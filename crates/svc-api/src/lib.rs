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
mod mcp;
mod routes;
mod views;

use std::sync::Arc;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::HeaderName;
use svc_service::Services;
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};

pub use error::ApiError;

/// Largest request body accepted (413 beyond).
pub const MAX_BODY_BYTES: usize = 2 * 1024 * 1024;

const REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// The whole HTTP surface over `services`: REST, MCP and the web app.
pub fn router(services: Arc<Services>) -> Router {
    routes::routes()
        .merge(mcp::routes(services.clone()))
        .merge(svc_web::routes())
        .fallback(error::not_found)
        .method_not_allowed_fallback(error::method_not_allowed)
        .with_state(services)
        .layer(axum::middleware::from_fn(error::log_internal_errors))
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(PropagateRequestIdLayer::new(REQUEST_ID))
        .layer(SetRequestIdLayer::new(REQUEST_ID, MakeRequestUuid))
}
