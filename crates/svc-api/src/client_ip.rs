//! The client's IP of a request (`svc_service::accounts::client_address`), from its
//! peer address and `X-Forwarded-For`.

use std::net::{IpAddr, SocketAddr};

use axum::extract::ConnectInfo;
use axum::http::request::Parts;
use ipnet::IpNet;

pub(crate) fn client_ip(parts: &Parts, trusted: &[IpNet]) -> IpAddr {
    let peer: Option<IpAddr> = parts.extensions.get::<ConnectInfo<SocketAddr>>().map(|c| c.0.ip());
    let forwarded = parts.headers.get_all("x-forwarded-for").iter().filter_map(|v| v.to_str().ok());
    svc_service::accounts::client_address::client_ip(peer, forwarded, trusted)
}

/// The client of a log-in or sign-up: its IP and its `User-Agent`, which
/// name the session it opens.
pub(crate) struct LoginClient(pub svc_service::accounts::sessions::Client);

impl axum::extract::FromRequestParts<std::sync::Arc<svc_service::Services>> for LoginClient {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut Parts,
        services: &std::sync::Arc<svc_service::Services>,
    ) -> Result<Self, Self::Rejection> {
        let ip = client_ip(parts, &services.trusted_proxies);
        let agent = parts.headers.get(axum::http::header::USER_AGENT).and_then(|v| v.to_str().ok());
        Ok(LoginClient(svc_service::accounts::sessions::Client::new(ip, agent)))
    }
}
