use serde::{Deserialize, Serialize};
use svc_domain::history::HistoryRow;
use utoipa::ToSchema;

/// The 202 answer of a trigger: the run is queued.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TriggerAccepted {
    pub history_id: String,
    pub scrap_id: String,
    pub status: Option<bool>,
    pub triggered_by: String,
}

impl From<&HistoryRow> for TriggerAccepted {
    /// The answer for a run just queued (its status is still `null`).
    fn from(row: &HistoryRow) -> Self {
        TriggerAccepted {
            history_id: row.id.to_string(),
            scrap_id: row.scrap_id.map(|s| s.to_string()).unwrap_or_default(),
            status: None,
            triggered_by: row.triggered_by.as_str().to_string(),
        }
    }
}
