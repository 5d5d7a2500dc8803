//! `/scraps/:id/feed.atom?token=…` and `/scraps/:id/feed.rss?token=…`: the
//! scrap's feed of what changed between its successful runs, for feed
//! readers, which cannot send a header: the token in the address is the
//! credential (no log-in, no cookie). A wrong, rotated or malformed token
//! is 404, like another organization's scrap. The token rides in the query,
//! which the request span never logs (ARCHITECTURE.md, Observability).
//! Each answer carries an `ETag` of the feed's version: a reader's
//! `If-None-Match` with it is answered `304 Not Modified` without comparing
//! any run. `POST /scraps/:id/feed/rotate` (the scrap page's form) replaces
//! the token.

use std::sync::Arc;

use axum::extract::{Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use serde::Deserialize;
use svc_domain::ScrapId;
use svc_service::Services;

use crate::page_error::PageError;
use crate::pages::auth::Nothing;
use crate::path_id::PathId;
use crate::present::feed_xml;
use crate::signed_in::SignedForm;

#[derive(Deserialize)]
pub(crate) struct TokenQuery {
    #[serde(default)]
    token: String,
}

fn not_found() -> PageError {
    PageError::NotFound("There is no feed at this address. Copy the feed's address from the scrap's page again: it changes when someone replaces it.".into())
}

fn found_or(e: svc_service::ServiceError) -> PageError {
    match e {
        svc_service::ServiceError::NotFound(_) => not_found(),
        other => other.into(),
    }
}

/// The feed in `kind` (`atom` or `rss`), or `304 Not Modified` when the
/// reader's `If-None-Match` names its current version (nothing compared).
async fn answer(
    services: &Services,
    id: Result<PathId<ScrapId>, PageError>,
    token: &str,
    headers: &HeaderMap,
    kind: &'static str,
) -> Result<Response, PageError> {
    let PathId(id) = id.map_err(|_| not_found())?;
    let version = services.feeds.version(id, token).await.map_err(found_or)?;
    let etag = format!("\"{version}-{kind}\"");
    let seen = headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|tag| tag.trim().trim_start_matches("W/") == etag);
    let (body, content_type) = if seen {
        (None, "")
    } else {
        let feed = services.feeds.feed(id, token).await.map_err(found_or)?;
        match kind {
            "atom" => (Some(feed_xml::atom(&feed)), "application/atom+xml; charset=utf-8"),
            _ => (Some(feed_xml::rss(&feed)), "application/rss+xml; charset=utf-8"),
        }
    };
    let mut response = match body {
        Some(body) => body.into_response(),
        None => StatusCode::NOT_MODIFIED.into_response(),
    };
    let out = response.headers_mut();
    if !content_type.is_empty() {
        out.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    }
    if let Ok(value) = HeaderValue::from_str(&etag) {
        out.insert(header::ETAG, value);
    }
    // Readers poll: they may keep it a little, but never share it.
    out.insert(header::CACHE_CONTROL, HeaderValue::from_static("private, max-age=60"));
    Ok(response)
}

pub(crate) async fn atom(
    State(services): State<Arc<Services>>,
    id: Result<PathId<ScrapId>, PageError>,
    Query(q): Query<TokenQuery>,
    headers: HeaderMap,
) -> Result<Response, PageError> {
    answer(&services, id, &q.token, &headers, "atom").await
}

pub(crate) async fn rss(
    State(services): State<Arc<Services>>,
    id: Result<PathId<ScrapId>, PageError>,
    Query(q): Query<TokenQuery>,
    headers: HeaderMap,
) -> Result<Response, PageError> {
    answer(&services, id, &q.token, &headers, "rss").await
}

/// Replaces the scrap's feed token, then back to the scrap page's feed.
pub(crate) async fn rotate(
    State(services): State<Arc<Services>>,
    id: Result<PathId<ScrapId>, PageError>,
    SignedForm { user, .. }: SignedForm<Nothing>,
) -> Result<Response, PageError> {
    // The id is read after the session and CSRF checks of the form.
    let PathId(id) = id?;
    services.feeds.rotate(&user.session, id).await?;
    Ok(Redirect::to(&format!("/scraps/{id}?feed=rotated#feed")).into_response())
}
