//! The AI routes (JWT only): the wizard and script generation queue tasks;
//! `GET /api/tasks/:id` reads them.

use std::sync::Arc;
use std::time::Duration;

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use svc_api_types::{GenerateBody, TaskAccepted, TaskView, WizardBody};
use svc_domain::task::Task;
use svc_service::Services;
use svc_service::ai_tasks::GenerateRequest;
use svc_service::runs;

use crate::ApiError;
use crate::extract::{ApiJson, WebSession, parse_id};

#[derive(Deserialize)]
pub(crate) struct WaitQuery {
    wait: Option<String>,
}

fn wait_of(query: &WaitQuery) -> Result<Duration, ApiError> {
    Ok(match query.wait.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
        None => Duration::ZERO,
        Some(raw) => raw.parse::<u64>().map_err(|_| runs::wait_refused()).and_then(runs::wait_from_secs)?,
    })
}

/// 202 `{taskId}`, or with `wait=<seconds>` 200 and the task if it ends in time.
async fn accepted(
    services: &Services,
    session: &svc_service::Session,
    task: Task,
    wait: Duration,
) -> Result<Response, ApiError> {
    if !wait.is_zero() {
        let task = services.ai.wait_task(session, task.id, wait).await?;
        if task.state.is_finished() {
            return Ok((StatusCode::OK, Json(TaskView::from(task))).into_response());
        }
    }
    Ok((StatusCode::ACCEPTED, Json(TaskAccepted { task_id: task.id.to_string() })).into_response())
}

/// `POST /api/ai/wizard`.
pub(crate) async fn wizard(
    State(services): State<Arc<Services>>,
    WebSession(session): WebSession,
    Query(query): Query<WaitQuery>,
    ApiJson(body): ApiJson<WizardBody>,
) -> Result<Response, ApiError> {
    let wait = wait_of(&query)?;
    let task = services.ai.wizard(&session, &body.url).await?;
    accepted(&services, &session, task, wait).await
}

/// `POST /api/ai/generate`.
pub(crate) async fn generate(
    State(services): State<Arc<Services>>,
    WebSession(session): WebSession,
    Query(query): Query<WaitQuery>,
    ApiJson(body): ApiJson<GenerateBody>,
) -> Result<Response, ApiError> {
    let wait = wait_of(&query)?;
    let request = GenerateRequest { url: body.url, description: body.description, fields: body.fields };
    let task = services.ai.generate(&session, request).await?;
    accepted(&services, &session, task, wait).await
}

/// `GET /api/tasks/:id`: the task as it is, or with `wait=<seconds>` once
/// it finished (or as it is when the wait runs out).
pub(crate) async fn task(
    State(services): State<Arc<Services>>,
    WebSession(session): WebSession,
    Path(id): Path<String>,
    Query(query): Query<WaitQuery>,
) -> Result<Json<TaskView>, ApiError> {
    let id = parse_id("id", &id)?;
    let wait = wait_of(&query)?;
    let task = if wait.is_zero() {
        services.ai.task(&session, id).await?
    } else {
        services.ai.wait_task(&session, id, wait).await?
    };
    Ok(Json(TaskView::from(task)))
}
