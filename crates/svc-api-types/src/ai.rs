//! The AI routes' bodies and answers: tasks and script versions.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use svc_domain::script_version::ScriptVersion;
use svc_domain::task::Task;
use utoipa::ToSchema;

use crate::iso;

/// The body of `POST /api/ai/wizard`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WizardBody {
    #[schema(max_length = 2048, pattern = r"^\s*[Hh][Tt][Tt][Pp][Ss]?://[^\s/?#]")]
    pub url: String,
}

/// The body of `POST /api/ai/generate`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GenerateBody {
    #[schema(max_length = 2048, pattern = r"^\s*[Hh][Tt][Tt][Pp][Ss]?://[^\s/?#]")]
    pub url: String,
    /// What to extract (at most 4,000 characters once trimmed).
    #[schema(min_length = 1, max_length = 4000, pattern = r"\S")]
    pub description: String,
    /// Names of the fields to extract, each of 1 to 100 characters once trimmed.
    #[serde(default)]
    #[schema(schema_with = field_names)]
    pub fields: Vec<String>,
}

fn field_names() -> utoipa::openapi::schema::ArrayBuilder {
    use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, Type};
    let name =
        ObjectBuilder::new().schema_type(Type::String).min_length(Some(1)).max_length(Some(100)).pattern(Some(r"\S"));
    ArrayBuilder::new().items(name).max_items(Some(50))
}

/// The 202 answer of a task just queued.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TaskAccepted {
    pub task_id: String,
}

/// An AI task (`GET /api/tasks/{id}`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TaskView {
    pub id: String,
    /// `ai_wizard`, `ai_generate` or `ai_fix`.
    #[serde(rename = "type")]
    pub kind: String,
    /// `queued`, `running`, `succeeded` or `failed`.
    pub status: String,
    pub result: Option<Value>,
    pub error: Option<String>,
    pub scrap_id: Option<String>,
    pub history_id: Option<String>,
    pub created_at: String,
    pub finished_at: Option<String>,
}

impl From<Task> for TaskView {
    fn from(t: Task) -> Self {
        TaskView {
            id: t.id.to_string(),
            kind: t.kind.as_str().to_string(),
            status: t.state.as_str().to_string(),
            result: t.result,
            error: t.error,
            scrap_id: t.scrap_id.map(|s| s.to_string()),
            history_id: t.history_id.map(|h| h.to_string()),
            created_at: iso(t.created_at),
            finished_at: t.finished_at.map(iso),
        }
    }
}

/// A version of a scrap's script (`GET /api/scraps/{id}/versions` items).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VersionView {
    pub id: String,
    pub scrap_id: String,
    pub number: i64,
    /// The script.
    pub request: String,
    /// `user`, `ai_fix` or `rollback`.
    pub source: String,
    pub history_id: Option<String>,
    pub restored_from: Option<String>,
    pub created_at: String,
    /// When a person accepted it: a person's own versions when made, an
    /// `ai_fix` version when its owner approved it in the web app. `null`
    /// while an `ai_fix` version waits; until then the scrap's runs with it
    /// reach only the scrap's own site.
    pub approved_at: Option<String>,
}

impl From<ScriptVersion> for VersionView {
    fn from(v: ScriptVersion) -> Self {
        VersionView {
            id: v.id.to_string(),
            scrap_id: v.scrap_id.to_string(),
            number: v.number,
            request: v.request,
            source: v.source.as_str().to_string(),
            history_id: v.history_id.map(|h| h.to_string()),
            restored_from: v.restored_from.map(|h| h.to_string()),
            created_at: iso(v.created_at),
            approved_at: v.approved_at.map(iso),
        }
    }
}
