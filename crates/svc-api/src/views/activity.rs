use serde::Serialize;
use svc_domain::activity::Activity;

use super::iso;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ActivityView {
    id: String,
    scrap_id: String,
    #[serde(rename = "type")]
    kind: String,
    actor: String,
    message: String,
    history_id: Option<String>,
    created_at: String,
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
