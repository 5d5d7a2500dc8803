//! The AI routes (JWT only): the wizard and script generation queue tasks;
//! `GET /api/tasks/:id` reads them.

use std::sync::Arc;
use std::time::Duration;

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use svc_api_types::{GenerateBody, TaskAccepted, TaskView, WizardBody};
use svc_domain::ObjectId;
use svc_domain::task::Task;
use svc_service::Services;
use svc_service::ai::tasks::GenerateRequest;
use utoipa::IntoParams;

use crate::ApiError;
use crate::extract::{ApiJson, ApiQuery, PathId, WebSession};

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct WaitQuery {
    /// Seconds to wait for the task to finish, 0 to 120 (default 0).
    #[param(value_type = Option<u64>, maximum = 120)]
    wait: Option<String>,
}

fn wait_of(query: &WaitQuery) -> Result<Duration, ApiError> {
    super::runs::wait(query.wait.as_deref())
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

/// Start the AI wizard
///
/// Queues a task that looks at the page and proposes the fields to extract.
#[utoipa::path(
    post,
    path = "/api/ai/wizard",
    operation_id = "aiWizard",
    tag = "ai",
    params(WaitQuery),
    request_body = WizardBody,
    responses(
        (status = 202, description = "the task is queued", body = TaskAccepted),
        (status = 200, description = "with `wait`: the task finished in time", body = TaskView),
    )
)]
pub(crate) async fn wizard(
    State(services): State<Arc<Services>>,
    WebSession(session): WebSession,
    ApiQuery(query): ApiQuery<WaitQuery>,
    ApiJson(body): ApiJson<WizardBody>,
) -> Result<Response, ApiError> {
    let wait = wait_of(&query)?;
    let task = services.ai.wizard(&session, &body.url).await?;
    accepted(&services, &session, task, wait).await
}

/// Generate a script
///
/// Queues a task that writes an extraction script for the page.
#[utoipa::path(
    post,
    path = "/api/ai/generate",
    operation_id = "aiGenerate",
    tag = "ai",
    params(WaitQuery),
    request_body = GenerateBody,
    responses(
        (status = 202, description = "the task is queued", body = TaskAccepted),
        (status = 200, description = "with `wait`: the task finished in time", body = TaskView),
    )
)]
pub(crate) async fn generate(
    State(services): State<Arc<Services>>,
    WebSession(session): WebSession,
    ApiQuery(query): ApiQuery<WaitQuery>,
    ApiJson(body): ApiJson<GenerateBody>,
) -> Result<Response, ApiError> {
    let wait = wait_of(&query)?;
    let request = GenerateRequest { url: body.url, description: body.description, fields: body.fields };
    let task = services.ai.generate(&session, request).await?;
    accepted(&services, &session, task, wait).await
}

/// Get an AI task
///
/// The task as it is, or with `wait=<seconds>` once it finished (or as it
/// is when the wait runs out).
#[utoipa::path(
    get,
    path = "/api/tasks/{id}",
    operation_id = "getTask",
    tag = "ai",
    params(("id" = String, Path, description = "the task's id"), WaitQuery),
    responses((status = 200, description = "the task", body = TaskView))
)]
pub(crate) async fn task(
    State(services): State<Arc<Services>>,
    WebSession(session): WebSession,
    PathId(id): PathId<ObjectId>,
    ApiQuery(query): ApiQuery<WaitQuery>,
) -> Result<Json<TaskView>, ApiError> {
    let wait = wait_of(&query)?;
    let task = if wait.is_zero() {
        services.ai.task(&session, id).await?
    } else {
        services.ai.wait_task(&session, id, wait).await?
    };
    Ok(Json(TaskView::from(task)))
}
