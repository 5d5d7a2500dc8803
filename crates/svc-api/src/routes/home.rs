use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::response::Html;
use svc_api_types::HealthView;
use svc_service::Services;

pub(crate) async fn index() -> Html<&'static str> {
    Html(concat!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>svc</title></head><body>",
        "<h1>svc</h1><p>Web-page extraction service. The web app is not built yet; use the REST API:</p>",
        "<ul><li><code>POST /api/auth/signup</code>, <code>POST /api/auth/login</code></li>",
        "<li><code>GET /api/scraps</code>, <code>GET /api/historys</code></li>",
        "<li><code>POST /api/developers/keys</code></li><li><code>GET /healthz</code></li></ul>",
        "</body></html>"
    ))
}

pub(crate) async fn healthz(State(services): State<Arc<Services>>) -> Json<HealthView> {
    Json(HealthView::ok(services.health().database))
}
