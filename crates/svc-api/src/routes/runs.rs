use std::sync::Arc;
use std::time::Duration;

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::header::CONTENT_TYPE;
use axum::http::{Method, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use svc_service::Services;
use svc_service::runs::{self, Trigger};

use crate::ApiError;
use crate::extract::{Caller, WebSession, parse_id};
use crate::views::{self, TriggerAccepted};

#[derive(Deserialize)]
pub(crate) struct TriggerQuery {
    wait: Option<String>,
    param: Option<String>,
}

/// `POST /api/scraps/worker/:id` and `GET /api/scraps/load/:id`: 202 with the
/// pending run, or with `wait=<seconds>` 200 and the finished row if it ends in time.
pub(crate) async fn trigger(
    State(services): State<Arc<Services>>,
    method: Method,
    Caller(principal): Caller,
    Path(id): Path<String>,
    Query(query): Query<TriggerQuery>,
) -> Result<Response, ApiError> {
    let id = parse_id("id", &id)?;
    let wait = match query.wait.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
        None => Duration::ZERO,
        Some(raw) => raw.parse::<u64>().map_err(|_| runs::wait_refused()).and_then(runs::wait_from_secs)?,
    };
    let via = if method == Method::GET { Trigger::Load } else { Trigger::Worker };
    let row = services.runs.trigger(&principal, via, id, query.param.as_deref()).await?;
    if !wait.is_zero()
        && let Some(done) = services.runs.wait_finished(&principal, row.id, wait).await?
    {
        return Ok((StatusCode::OK, Json(views::history_row(done))).into_response());
    }
    Ok((StatusCode::ACCEPTED, Json(TriggerAccepted::from(&row))).into_response())
}

/// `GET /api/scraps/:id/data`: the latest successful run's data, as JSON.
pub(crate) async fn live_data(
    State(services): State<Arc<Services>>,
    WebSession(session): WebSession,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let id = parse_id("id", &id)?;
    let data = services.runs.live_data(&session, id).await?;
    Ok(([(CONTENT_TYPE, "application/json")], data).into_response())
}
