//! The ids in a route's path, parsed by one extractor for REST and the web
//! app instead of by each handler. [`IdSegment`] is what an id type needs to
//! be read from a path segment (every [`TypedId`]: `ScrapId`, `KeyId`, ...,
//! and the plain `ObjectId`); [`path_ids`] reads the segments
//! with their parameter names. Each surface answers a malformed id its own
//! way: REST with a 422 naming the parameter (`svc_api`'s `PathId`), the web
//! app with its "does not exist" page ([`PathId`] here).

use axum::extract::{FromRequestParts, RawPathParams};
use axum::http::request::Parts;
use svc_domain::TypedId;
use svc_service::ServiceError;

use crate::page_error::PageError;

/// An id type a path segment can name.
pub trait IdSegment: Sized {
    /// The id `raw` names, or `None` when it is not one.
    fn parse_segment(raw: &str) -> Option<Self>;
}

impl<T: TypedId> IdSegment for T {
    fn parse_segment(raw: &str) -> Option<Self> {
        T::parse_id(raw)
    }
}

/// The path parameters of the request's route, `(name, value)` in the
/// order of the route, values percent-decoded; `None` when a value is not
/// UTF-8 once decoded.
pub async fn path_ids(parts: &mut Parts) -> Option<Vec<(String, String)>> {
    let params = RawPathParams::from_request_parts(parts, &()).await.ok()?;
    Some(params.iter().map(|(name, value)| (name.to_string(), value.to_string())).collect())
}

/// What the web app's "does not exist" page calls the thing a path
/// parameter names (the routes of `pages` name their parameters after it).
fn noun(parameter: &str) -> &'static str {
    match parameter {
        "scrap" => "scrap",
        "run" => "run",
        "version" => "version",
        "key" => "API key",
        "webhook" => "webhook",
        "delivery" => "delivery",
        "session" => "session",
        _ => "page",
    }
}

fn parsed<T: IdSegment>(name: &str, raw: &str) -> Result<T, PageError> {
    T::parse_segment(raw).ok_or_else(|| ServiceError::NotFound(noun(name)).into())
}

async fn segments<const N: usize>(parts: &mut Parts) -> Result<[(String, String); N], PageError> {
    let found = path_ids(parts).await.ok_or_else(|| PageError::NotFound("There is no page at this address.".into()))?;
    found.try_into().map_err(|found: Vec<_>| {
        PageError::Internal(format!("a page route has {} path parameters where its handler reads {N}", found.len()))
    })
}

/// The one id of a page's path (`/scraps/{scrap}`); a malformed one is the
/// page of a thing that does not exist, named after the parameter.
pub(crate) struct PathId<T>(pub T);

impl<S: Send + Sync, T: IdSegment> FromRequestParts<S> for PathId<T> {
    type Rejection = PageError;
    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, PageError> {
        let [(name, raw)] = segments(parts).await?;
        Ok(PathId(parsed(&name, &raw)?))
    }
}

/// The two ids of a page's path (`/scraps/{scrap}/history/{run}`), as [`PathId`].
pub(crate) struct PathIds<A, B>(pub A, pub B);

impl<S: Send + Sync, A: IdSegment, B: IdSegment> FromRequestParts<S> for PathIds<A, B> {
    type Rejection = PageError;
    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, PageError> {
        let [(first, a), (second, b)] = segments(parts).await?;
        Ok(PathIds(parsed(&first, &a)?, parsed(&second, &b)?))
    }
}
