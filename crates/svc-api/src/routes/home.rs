use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::response::Html;
use svc_api_types::HealthView;
use svc_service::Services;

/// The stub at `/` until the web app lands: where the API is, under the
/// service's public URL.
pub(crate) async fn index(State(services): State<Arc<Services>>) -> Html<String> {
    let base = html_escape(services.public_url());
    Html(format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>svc</title></head><body>\
         <h1>svc</h1><p>Web-page extraction service. The web app is not built yet; use the REST API at \
         <code>{base}/api/</code>:</p>\
         <ul><li><code>POST {base}/api/auth/signup</code>, <code>POST {base}/api/auth/login</code></li>\
         <li><code>GET {base}/api/scraps</code>, <code>GET {base}/api/historys</code></li>\
         <li><code>POST {base}/api/developers/keys</code></li><li><code>POST {base}/api/mcp</code> (MCP)</li>\
         <li><code>GET {base}/healthz</code></li></ul></body></html>"
    ))
}

fn html_escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

pub(crate) async fn healthz(State(services): State<Arc<Services>>) -> Json<HealthView> {
    Json(HealthView::ok(services.health().database))
}
