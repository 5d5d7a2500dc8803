use chrono::{DateTime, Utc};

use crate::{HistoryId, ObjectId, OrgId, ScrapId};

/// One entry of a scrap's activity log.
#[derive(Clone, Debug, PartialEq)]
pub struct Activity {
    pub id: ObjectId,
    pub organization_id: OrgId,
    pub scrap_id: ScrapId,
    /// A dotted event name: `scrap.created`, `scrap.updated`, `scrap.deleted`,
    /// `key.created`, `key.revoked`, `run.triggered`, `run.finished`.
    pub kind: String,
    /// `user:<id>`, `key:<id>`, `cron` or `system`.
    pub actor: String,
    pub message: String,
    pub history_id: Option<HistoryId>,
    pub created_at: DateTime<Utc>,
}

impl Activity {
    /// A new entry of `scrap`'s log, now, tied to no run.
    pub fn new(organization: OrgId, scrap: ScrapId, kind: &str, actor: String, message: String) -> Self {
        Activity {
            id: ObjectId::new(),
            organization_id: organization,
            scrap_id: scrap,
            kind: kind.to_string(),
            actor,
            message,
            history_id: None,
            created_at: Utc::now(),
        }
    }
}
