//! The versions of a scrap's script: every script it has had, numbered
//! from 1, so that a change (by its owner or by AI Fix) can be compared
//! and rolled back.

use chrono::{DateTime, Utc};

use crate::{HistoryId, ObjectId, OrgId, ScrapId};

/// Who made a version.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VersionSource {
    /// Written by a person (the scrap's creation or an edit).
    User,
    /// Promoted by AI Fix.
    AiFix,
    /// An older version made current again.
    Rollback,
}

impl VersionSource {
    pub fn as_str(self) -> &'static str {
        match self {
            VersionSource::User => "user",
            VersionSource::AiFix => "ai_fix",
            VersionSource::Rollback => "rollback",
        }
    }
    pub fn parse(s: &str) -> Option<Self> {
        [Self::User, Self::AiFix, Self::Rollback].into_iter().find(|k| k.as_str() == s)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct ScriptVersion {
    pub id: ObjectId,
    pub organization_id: OrgId,
    pub scrap_id: ScrapId,
    /// 1 for the first script, then one more per change.
    pub number: i64,
    /// The script (the scrap's `request`).
    pub request: String,
    pub source: VersionSource,
    /// AI Fix: the run it repaired.
    pub history_id: Option<HistoryId>,
    /// Rollback: the version made current again.
    pub restored_from: Option<ObjectId>,
    pub created_at: DateTime<Utc>,
}
