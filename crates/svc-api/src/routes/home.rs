use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use svc_api_types::HealthView;
use svc_service::Services;

use crate::ApiError;

/// Readiness: 200 while the database answers, else 503 `UNAVAILABLE`
/// (`/healthz` is the liveness probe and never touches the database), with
/// whether the browser engine has its sandbox.
pub(crate) async fn readyz(State(services): State<Arc<Services>>) -> Result<Json<HealthView>, ApiError> {
    let health = services.ready().await?;
    Ok(Json(HealthView::ready(health.database, health.browser_sandbox.as_ref().map(|s| s.word()))))
}

pub(crate) async fn healthz(State(services): State<Arc<Services>>) -> Json<HealthView> {
    Json(HealthView::ok(services.health().database))
}
