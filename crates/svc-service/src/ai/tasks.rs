//! The AI routes (JWT only): the wizard (what a page offers to extract) and
//! script generation. Both queue a task and answer at once; the task runner
//! does the work (`task_runner`), and the caller reads the task.

use std::sync::Arc;
use std::time::Duration;
use svc_domain::scope::Scope;

use chrono::Utc;
use serde_json::json;
use svc_domain::ObjectId;
use svc_domain::task::{Task, TaskKind};
use svc_storage::Store;

use crate::accounts::gcra::Rate;
use crate::accounts::rate_limits::RateLimits;
use crate::ai::attachments::Attachments;
use crate::schedule::signals::{MAX_WAIT, RunSignals};
use crate::scraps::input::check_url;
use crate::{Result, ServiceError, Session};

/// AI tasks a user may start: 30 per 15 minutes.
pub const AI_TASKS_PER_USER: Rate = Rate::new(30, Duration::from_secs(15 * 60));
/// A description longer than this is refused.
pub const MAX_DESCRIPTION_CHARS: usize = 4_000;
/// At most this many required fields.
pub const MAX_FIELDS: usize = 50;
/// A field name longer than this is refused.
pub const MAX_FIELD_CHARS: usize = 100;

/// What `POST /api/ai/generate` asks for.
#[derive(Clone, Debug, PartialEq)]
pub struct GenerateRequest {
    pub url: String,
    /// What to extract, in the user's words.
    pub description: String,
    /// Keys every item must have.
    pub fields: Vec<String>,
}

pub struct AiService {
    pub(crate) store: Arc<dyn Store>,
    attached: Arc<Attachments>,
    signals: Arc<RunSignals>,
    limits: Arc<RateLimits>,
    pub(crate) audit: crate::accounts::audit::AuditLog,
}

impl AiService {
    pub(crate) fn new(
        store: Arc<dyn Store>,
        attached: Arc<Attachments>,
        signals: Arc<RunSignals>,
        limits: Arc<RateLimits>,
        audit: crate::accounts::audit::AuditLog,
    ) -> Self {
        AiService { store, attached, signals, limits, audit }
    }

    /// Whether a model is configured (`SVC_AI_BASE_URL`).
    pub fn enabled(&self) -> bool {
        self.attached.model().is_some()
    }

    /// Queues the wizard for `url`.
    pub async fn wizard(&self, session: &Session, url: &str) -> Result<Task> {
        session.require(&[Scope::ScrapsWrite])?;
        let url = url.trim();
        check_url(url)?;
        self.submit(session, TaskKind::AiWizard, json!({ "url": url })).await
    }

    /// Queues a script generation.
    pub async fn generate(&self, session: &Session, request: GenerateRequest) -> Result<Task> {
        session.require(&[Scope::ScrapsWrite])?;
        let url = request.url.trim();
        check_url(url)?;
        let description = request.description.trim();
        if description.is_empty() {
            return Err(ServiceError::validation("description", "is required: say what to extract"));
        }
        if description.chars().count() > MAX_DESCRIPTION_CHARS {
            return Err(ServiceError::validation(
                "description",
                format!("must be at most {MAX_DESCRIPTION_CHARS} characters"),
            ));
        }
        if request.fields.len() > MAX_FIELDS {
            return Err(ServiceError::validation("fields", format!("at most {MAX_FIELDS} fields")));
        }
        let mut fields = Vec::with_capacity(request.fields.len());
        for field in &request.fields {
            let field = field.trim();
            if field.is_empty() || field.chars().count() > MAX_FIELD_CHARS {
                return Err(ServiceError::validation(
                    "fields",
                    format!("each field is a name of 1 to {MAX_FIELD_CHARS} characters"),
                ));
            }
            if !fields.contains(&field) {
                fields.push(field);
            }
        }
        let input = json!({ "url": url, "description": description, "fields": fields });
        self.submit(session, TaskKind::AiGenerate, input).await
    }

    async fn submit(&self, session: &Session, kind: TaskKind, input: serde_json::Value) -> Result<Task> {
        if !self.enabled() {
            return Err(ServiceError::AiNotConfigured);
        }
        let org = self.store.organization(session.org()).await?.ok_or(ServiceError::NotFound("organization"))?;
        if org.balance <= 0 {
            return Err(ServiceError::InsufficientBalance);
        }
        self.limits.take(&format!("ai:user:{}", session.user()), AI_TASKS_PER_USER).await?;
        let task = Task::queued(org.id, Some(session.user()), kind, input, Utc::now());
        self.store.insert_task(&task).await?;
        self.signals.tasks.notify_one();
        Ok(task)
    }

    /// A task of the caller's organization.
    pub async fn task(&self, session: &Session, id: ObjectId) -> Result<Task> {
        self.store.task(session.org(), id).await?.ok_or(ServiceError::NotFound("task"))
    }

    /// The task once finished, or as it is when `wait` runs out.
    pub async fn wait_task(&self, session: &Session, id: ObjectId, wait: Duration) -> Result<Task> {
        let deadline = tokio::time::Instant::now() + wait.min(MAX_WAIT);
        let mut finished = self.signals.task_finished.subscribe();
        loop {
            let task = self.task(session, id).await?;
            if task.state.is_finished() || tokio::time::Instant::now() >= deadline {
                return Ok(task);
            }
            // Woken by an in-process runner; polled for runners elsewhere.
            let until = (tokio::time::Instant::now() + Duration::from_millis(250)).min(deadline);
            loop {
                match tokio::time::timeout_at(until, finished.recv()).await {
                    Ok(Ok(done)) if done != id => continue,
                    _ => break,
                }
            }
        }
    }
}
