use std::sync::Arc;
use std::time::Duration;

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use svc_api_types::HistoryRowView;
use svc_domain::ScrapId;
use svc_service::runs::{self, Trigger, Triggered};
use svc_service::{Principal, Services};

use crate::ApiError;
use crate::extract::{ApiQuery, PathId, TriggerCaller, WebSession};
use crate::views::{self, TriggerAccepted};
use utoipa::IntoParams;

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct TriggerQuery {
    /// Seconds to wait for the run to finish, 0 to 120 (default 0): a run
    /// that ends in time is answered 200 with its history row.
    #[param(value_type = Option<u64>, maximum = 120)]
    wait: Option<String>,
    /// The `key` of the scrap's parameter set to run with (one of its
    /// `params`; another is refused naming `param`).
    #[param(min_length = 1, max_length = 200)]
    param: Option<String>,
}

/// Trigger a run
///
/// Queues a run of the scrap and answers 202 with the pending run, or with
/// `wait=<seconds>` 200 and the finished history row if it ends in time.
/// At most 60 triggers per 15 minutes per API key.
#[utoipa::path(
    post,
    path = "/api/scraps/worker/{id}",
    operation_id = "triggerRun",
    tag = "runs",
    params(("id" = String, Path, description = "the scrap's id"), TriggerQuery),
    responses(
        (status = 202, description = "the run is queued", body = TriggerAccepted),
        (status = 200, description = "with `wait`: the run finished in time", body = HistoryRowView),
    )
)]
pub(crate) async fn worker(
    State(services): State<Arc<Services>>,
    TriggerCaller(principal): TriggerCaller,
    PathId(id): PathId<ScrapId>,
    ApiQuery(query): ApiQuery<TriggerQuery>,
) -> Result<Response, ApiError> {
    trigger(&services, &principal, Trigger::Worker, id, query).await
}

/// Trigger a run (quota-gated)
///
/// The same as `POST /api/scraps/worker/{id}`, counted against the
/// organization's load quota of its plan.
#[utoipa::path(
    get,
    path = "/api/scraps/load/{id}",
    operation_id = "loadRun",
    tag = "runs",
    params(("id" = String, Path, description = "the scrap's id"), TriggerQuery),
    responses(
        (status = 202, description = "the run is queued", body = TriggerAccepted),
        (status = 200, description = "with `wait`: the run finished in time", body = HistoryRowView),
    )
)]
pub(crate) async fn load(
    State(services): State<Arc<Services>>,
    TriggerCaller(principal): TriggerCaller,
    PathId(id): PathId<ScrapId>,
    ApiQuery(query): ApiQuery<TriggerQuery>,
) -> Result<Response, ApiError> {
    trigger(&services, &principal, Trigger::Load, id, query).await
}

/// A `wait=<seconds>` query parameter: absent, no wait; else the digits of
/// a whole number from 0 to 120 (a blank `wait=`, a sign or a space is
/// refused, as the document's integer is).
pub(super) fn wait(raw: Option<&str>) -> Result<Duration, ApiError> {
    let Some(raw) = raw else { return Ok(Duration::ZERO) };
    if raw.is_empty() || !raw.bytes().all(|b| b.is_ascii_digit()) {
        return Err(runs::wait_refused().into());
    }
    Ok(raw.parse::<u64>().map_err(|_| runs::wait_refused()).and_then(runs::wait_from_secs)?)
}

/// 202 with the pending run, or with `wait=<seconds>` 200 and the finished
/// row if it ends in time.
async fn trigger(
    services: &Services,
    principal: &Principal,
    via: Trigger,
    id: ScrapId,
    query: TriggerQuery,
) -> Result<Response, ApiError> {
    let wait = wait(query.wait.as_deref())?;
    match services.runs.trigger_and_wait(principal, via, id, query.param.as_deref(), wait).await? {
        Triggered::Finished(done) => Ok((StatusCode::OK, Json(views::history_row(*done))).into_response()),
        Triggered::Pending(row) => Ok((StatusCode::ACCEPTED, Json(TriggerAccepted::from(&*row))).into_response()),
    }
}

/// The live JSON of a scrap
///
/// The data of the scrap's latest successful run, as JSON (404 when it never
/// succeeded). Growth and Pro plans only.
#[utoipa::path(
    get,
    path = "/api/scraps/{id}/data",
    operation_id = "liveData",
    tag = "runs",
    params(("id" = String, Path, description = "the scrap's id")),
    responses((status = 200, description = "the data array of the latest successful run", body = serde_json::Value))
)]
pub(crate) async fn live_data(
    State(services): State<Arc<Services>>,
    WebSession(session): WebSession,
    PathId(id): PathId<ScrapId>,
) -> Result<Response, ApiError> {
    let data = services.runs.live_data(&session, id).await?;
    Ok(([(CONTENT_TYPE, "application/json")], data).into_response())
}
