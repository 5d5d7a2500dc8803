use std::sync::Arc;

use axum::extract::FromRequestParts;
use axum::http::header::AUTHORIZATION;
use axum::http::request::Parts;
use svc_service::{Principal, ServiceError, Services, Session};
use svc_web::browser_session::{self, CSRF_HEADER, SESSION_COOKIE};

use crate::ApiError;

fn bearer(value: &axum::http::HeaderValue) -> Result<&str, ApiError> {
    let value = value.to_str().map_err(|_| ServiceError::Unauthorized("malformed Authorization header".into()))?;
    let (scheme, token) = value.split_once(' ').unwrap_or((value, ""));
    let token = token.trim();
    if !scheme.eq_ignore_ascii_case("bearer") || token.is_empty() {
        return Err(ServiceError::Unauthorized("the Authorization header must be `Bearer <token>`".into()).into());
    }
    Ok(token)
}

/// The credential of a request: the `Authorization: Bearer` header, or else
/// the web app's session cookie. A cookie caller that changes something (an
/// unsafe method, or with `always_prove` any method) must prove it is svc's
/// own page, as the web app's forms do: an `Origin` (or `Referer`) naming
/// svc and the session's CSRF token in `X-CSRF-Token`.
fn credential<'a>(parts: &'a Parts, services: &Services, always_prove: bool) -> Result<&'a str, ApiError> {
    if let Some(value) = parts.headers.get(AUTHORIZATION) {
        return bearer(value);
    }
    let Some(token) = browser_session::cookie(&parts.headers, SESSION_COOKIE) else {
        return Err(ServiceError::Unauthorized("missing `Authorization: Bearer <token>` header".into()).into());
    };
    if always_prove || !browser_session::is_safe(&parts.method) {
        let presented = parts.headers.get(CSRF_HEADER).and_then(|v| v.to_str().ok()).unwrap_or("");
        if !browser_session::same_origin(&parts.headers, services.public_url())
            || !services.auth.csrf_valid(token, presented)
        {
            return Err(ServiceError::Forbidden(
                "a request authenticated by the session cookie must come from svc's origin and carry the \
                 session's CSRF token in X-CSRF-Token"
                    .into(),
            )
            .into());
        }
    }
    Ok(token)
}

/// The caller of a KEY route: an API key or a web session.
pub(crate) struct Caller(pub Principal);

impl FromRequestParts<Arc<Services>> for Caller {
    type Rejection = ApiError;
    async fn from_request_parts(parts: &mut Parts, services: &Arc<Services>) -> Result<Self, ApiError> {
        let token = credential(parts, services, false)?;
        let ip = crate::client_ip::client_ip(parts, &services.trusted_proxies);
        Ok(Caller(services.auth.principal(token).await?.from_address(ip)))
    }
}

/// The caller of a run trigger: as [`Caller`], except that a caller riding
/// on the session cookie proves it is svc's page whatever the method, so
/// that a link or an image on another site (`GET /api/scraps/load/:id`)
/// cannot spend the organization's balance.
pub(crate) struct TriggerCaller(pub Principal);

impl FromRequestParts<Arc<Services>> for TriggerCaller {
    type Rejection = ApiError;
    async fn from_request_parts(parts: &mut Parts, services: &Arc<Services>) -> Result<Self, ApiError> {
        let token = credential(parts, services, true)?;
        let ip = crate::client_ip::client_ip(parts, &services.trusted_proxies);
        Ok(TriggerCaller(services.auth.principal(token).await?.from_address(ip)))
    }
}

/// The caller of a JWT route; an API key gets 401.
pub(crate) struct WebSession(pub Session);

impl FromRequestParts<Arc<Services>> for WebSession {
    type Rejection = ApiError;
    async fn from_request_parts(parts: &mut Parts, services: &Arc<Services>) -> Result<Self, ApiError> {
        let token = credential(parts, services, false)?;
        let ip = crate::client_ip::client_ip(parts, &services.trusted_proxies);
        Ok(WebSession(services.auth.session(token).await?.from_address(ip)))
    }
}
