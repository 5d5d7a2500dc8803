use std::sync::Arc;

use axum::extract::FromRequestParts;
use axum::http::header::AUTHORIZATION;
use axum::http::request::Parts;
use svc_service::{Principal, ServiceError, Services, Session};

use crate::ApiError;

fn bearer(parts: &Parts) -> Result<&str, ApiError> {
    let value = parts
        .headers
        .get(AUTHORIZATION)
        .ok_or_else(|| ServiceError::Unauthorized("missing `Authorization: Bearer <token>` header".into()))?;
    let value = value.to_str().map_err(|_| ServiceError::Unauthorized("malformed Authorization header".into()))?;
    let (scheme, token) = value.split_once(' ').unwrap_or((value, ""));
    let token = token.trim();
    if !scheme.eq_ignore_ascii_case("bearer") || token.is_empty() {
        return Err(ServiceError::Unauthorized("the Authorization header must be `Bearer <token>`".into()).into());
    }
    Ok(token)
}

/// The caller of a KEY route: an API key or a web session.
pub(crate) struct Caller(pub Principal);

impl FromRequestParts<Arc<Services>> for Caller {
    type Rejection = ApiError;
    async fn from_request_parts(parts: &mut Parts, services: &Arc<Services>) -> Result<Self, ApiError> {
        let token = bearer(parts)?;
        Ok(Caller(services.auth.principal(token).await?))
    }
}

/// The caller of a JWT route; an API key gets 401.
pub(crate) struct WebSession(pub Session);

impl FromRequestParts<Arc<Services>> for WebSession {
    type Rejection = ApiError;
    async fn from_request_parts(parts: &mut Parts, services: &Arc<Services>) -> Result<Self, ApiError> {
        let token = bearer(parts)?;
        Ok(WebSession(services.auth.session(token).await?))
    }
}
