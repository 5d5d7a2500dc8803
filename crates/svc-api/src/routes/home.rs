use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use svc_api_types::HealthView;
use svc_service::Services;

pub(crate) async fn healthz(State(services): State<Arc<Services>>) -> Json<HealthView> {
    Json(HealthView::ok(services.health().database))
}
