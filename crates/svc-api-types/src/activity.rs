use serde::{Deserialize, Serialize};
use svc_domain::activity::Activity;
use utoipa::ToSchema;

use crate::iso;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ActivityView {
    pub id: String,
    pub scrap_id: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub actor: String,
    pub message: String,
    pub history_id: Option<String>,
    pub created_at: String,
}

impl From<Activity> for ActivityView {
    fn from(a: Activity) -> Self {
        ActivityView {
            id: a.id.to_string(),
            scrap_id: a.scrap_id.to_string(),
            kind: a.kind,
            actor: a.actor,
            message: a.message,
            history_id: a.history_id.map(|h| h.to_string()),
            created_at: iso(a.created_at),
        }
    }
}
