use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use svc_service::ServiceError;
use svc_web::path_id::{IdSegment, path_ids};

use crate::ApiError;

/// A 24-character hex id from a query, else 422 naming `field`.
pub(crate) fn parse_id<T: IdSegment>(field: &str, raw: &str) -> Result<T, ApiError> {
    parsed(field, raw)
}

fn parsed<T: IdSegment>(field: &str, raw: &str) -> Result<T, ApiError> {
    T::parse_segment(raw)
        .ok_or_else(|| ServiceError::validation(field, format!("`{raw}` is not a 24-character hex id")).into())
}

/// The path parameters of the route, as many as the handler reads: 422
/// naming the parameter when one is not UTF-8 once decoded.
async fn segments<const N: usize>(parts: &mut Parts) -> Result<[(String, String); N], ApiError> {
    let Some(found) = path_ids(parts).await else {
        return Err(ServiceError::validation("path", "a path parameter is not UTF-8 once percent-decoded").into());
    };
    found.try_into().map_err(|found: Vec<_>| {
        ServiceError::Internal(format!("a route has {} path parameters where its handler reads {N}", found.len()))
            .into()
    })
}

/// The one id of a route's path (`/api/scraps/{id}`), of any id type: a
/// malformed one is 422 `VALIDATION` naming the path parameter.
pub(crate) struct PathId<T>(pub T);

impl<S: Send + Sync, T: IdSegment> FromRequestParts<S> for PathId<T> {
    type Rejection = ApiError;
    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        let [(name, raw)] = segments(parts).await?;
        Ok(PathId(parsed(&name, &raw)?))
    }
}

/// The two ids of a route's path (`/api/scraps/{id}/versions/{version}`),
/// as [`PathId`]; the first malformed one is named.
pub(crate) struct PathIds<A, B>(pub A, pub B);

impl<S: Send + Sync, A: IdSegment, B: IdSegment> FromRequestParts<S> for PathIds<A, B> {
    type Rejection = ApiError;
    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        let [(first, a), (second, b)] = segments(parts).await?;
        Ok(PathIds(parsed(&first, &a)?, parsed(&second, &b)?))
    }
}
