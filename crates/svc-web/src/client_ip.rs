//! The client's IP of a form post (for the per-IP limits of log-in and
//! sign-up): `svc_service::accounts::client_address` over the peer address and
//! `X-Forwarded-For`.

use std::convert::Infallible;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::header::USER_AGENT;
use axum::http::request::Parts;
use svc_service::Services;
use svc_service::accounts::sessions::Client;

/// The client's IP of a request (the audit log's address).
pub(crate) fn request_ip(parts: &Parts, services: &Services) -> IpAddr {
    let peer: Option<IpAddr> = parts.extensions.get::<ConnectInfo<SocketAddr>>().map(|c| c.0.ip());
    let forwarded = parts.headers.get_all("x-forwarded-for").iter().filter_map(|v| v.to_str().ok());
    svc_service::accounts::client_address::client_ip(peer, forwarded, &services.trusted_proxies)
}

/// The client of a log-in or sign-up form: its IP and its `User-Agent`,
/// which name the session it opens.
pub(crate) struct LoginClient(pub Client);

impl FromRequestParts<Arc<Services>> for LoginClient {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, services: &Arc<Services>) -> Result<Self, Infallible> {
        let ip = request_ip(parts, services);
        let agent = parts.headers.get(USER_AGENT).and_then(|v| v.to_str().ok());
        Ok(LoginClient(Client::new(ip, agent)))
    }
}
