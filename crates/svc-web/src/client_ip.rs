//! The client's IP of a form post (for the per-IP limits of log-in and
//! sign-up): `svc_service::accounts::client_address` over the peer address and
//! `X-Forwarded-For`.

use std::convert::Infallible;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::request::Parts;
use svc_service::Services;

pub(crate) struct ClientIp(pub IpAddr);

impl FromRequestParts<Arc<Services>> for ClientIp {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, services: &Arc<Services>) -> Result<Self, Infallible> {
        let peer: Option<IpAddr> = parts.extensions.get::<ConnectInfo<SocketAddr>>().map(|c| c.0.ip());
        let forwarded = parts.headers.get_all("x-forwarded-for").iter().filter_map(|v| v.to_str().ok());
        Ok(ClientIp(svc_service::accounts::client_address::client_ip(peer, forwarded, &services.trusted_proxies)))
    }
}
