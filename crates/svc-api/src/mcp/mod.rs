//! The MCP adapter at `POST /api/mcp`: Streamable HTTP (stateless, JSON
//! responses) from the official Rust SDK, behind the gate of `gate.rs`.

pub mod bounded;
mod gate;
pub mod tools;

use std::sync::Arc;

use axum::Router;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use svc_service::Services;

use tools::SvcMcp;

pub(crate) fn routes(services: Arc<Services>) -> Router<Arc<Services>> {
    let for_tools = services.clone();
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_sse_keep_alive(None)
        .disable_allowed_hosts();
    let mcp = StreamableHttpService::new(
        move || Ok(SvcMcp::new(for_tools.clone())),
        Arc::new(NeverSessionManager::default()),
        config,
    );
    Router::new().route_service("/api/mcp", mcp).layer(axum::middleware::from_fn_with_state(services, gate::gate))
}
