use serde::{Deserialize, Serialize};

/// The 202 answer of a trigger: the run is queued.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TriggerAccepted {
    pub history_id: String,
    pub scrap_id: String,
    pub status: Option<bool>,
    pub triggered_by: String,
}
