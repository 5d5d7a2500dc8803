//! Tasks: work that outlives the request that asked for it (the AI
//! wizard, script generation, AI Fix). A task is queued, claimed by a task
//! runner under a lease, and finished once with a result or an error.

use chrono::{DateTime, Utc};
use serde_json::Value;

use crate::{HistoryId, ObjectId, OrgId, ScrapId, UserId};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TaskKind {
    /// `POST /api/ai/wizard`: what a page offers to extract.
    AiWizard,
    /// `POST /api/ai/generate`: a script, validated by running it.
    AiGenerate,
    /// A repair of the script of a failed run (queued by the run's end).
    AiFix,
}

impl TaskKind {
    pub fn as_str(self) -> &'static str {
        match self {
            TaskKind::AiWizard => "ai_wizard",
            TaskKind::AiGenerate => "ai_generate",
            TaskKind::AiFix => "ai_fix",
        }
    }
    pub fn parse(s: &str) -> Option<Self> {
        [Self::AiWizard, Self::AiGenerate, Self::AiFix].into_iter().find(|k| k.as_str() == s)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TaskState {
    Queued,
    Running,
    Succeeded,
    Failed,
}

impl TaskState {
    pub fn as_str(self) -> &'static str {
        match self {
            TaskState::Queued => "queued",
            TaskState::Running => "running",
            TaskState::Succeeded => "succeeded",
            TaskState::Failed => "failed",
        }
    }
    pub fn parse(s: &str) -> Option<Self> {
        [Self::Queued, Self::Running, Self::Succeeded, Self::Failed].into_iter().find(|k| k.as_str() == s)
    }
    pub fn is_finished(self) -> bool {
        matches!(self, TaskState::Succeeded | TaskState::Failed)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Task {
    pub id: ObjectId,
    pub organization_id: OrgId,
    /// Who asked (none for AI Fix, which the system starts).
    pub user_id: Option<UserId>,
    pub kind: TaskKind,
    pub state: TaskState,
    /// What was asked, as the kind's runner reads it.
    pub input: Value,
    /// Set when `Succeeded`.
    pub result: Option<Value>,
    /// Set when `Failed`: why, for the person who asked.
    pub error: Option<String>,
    /// The scrap it concerns (AI Fix).
    pub scrap_id: Option<ScrapId>,
    /// The history row it wrote (wizard, generate) or repairs (AI Fix).
    pub history_id: Option<HistoryId>,
    /// Claims so far (a runner that disappears leaves its claim to expire).
    pub attempts: i64,
    pub lease_until: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub finished_at: Option<DateTime<Utc>>,
}

impl Task {
    /// A queued task.
    pub fn queued(
        organization_id: OrgId,
        user_id: Option<UserId>,
        kind: TaskKind,
        input: Value,
        created_at: DateTime<Utc>,
    ) -> Self {
        Task {
            id: ObjectId::new(),
            organization_id,
            user_id,
            kind,
            state: TaskState::Queued,
            input,
            result: None,
            error: None,
            scrap_id: None,
            history_id: None,
            attempts: 0,
            lease_until: None,
            created_at,
            finished_at: None,
        }
    }
}

/// A field the wizard proposes to extract.
/// Kept as the wizard task's result and its history row's data.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct FieldProposal {
    /// The key the items would have it under.
    pub name: String,
    /// What it holds; may be empty.
    #[serde(default)]
    pub description: String,
    /// Its value on the page; null when the model gave none.
    #[serde(default)]
    pub example: Value,
}
