//! The versions of a scrap's script: every script it has had, numbered
//! from 1, so that a change (by its owner or by AI Fix) can be compared
//! and rolled back. A version AI Fix wrote is the model's code: until a
//! person approves it (`approved_at`), the scrap's runs with it are held to
//! the scrap's site. A repair of a scrap with a site login is not made a
//! version at all but proposed ([`FixProposal`]) for its owner to approve.

use chrono::{DateTime, Utc};

use crate::{HistoryId, ObjectId, OrgId, ScrapId, UserId};

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
    /// When a person accepted it: a person's own versions (`user`,
    /// `rollback`) when they are made, an `ai_fix` version when its owner
    /// approves it; `None` while an `ai_fix` version waits.
    pub approved_at: Option<DateTime<Utc>>,
    /// Who approved an `ai_fix` version.
    pub approved_by: Option<UserId>,
}

impl ScriptVersion {
    /// A model's script no person has approved yet: runs of it are held to
    /// the scrap's site.
    pub fn awaits_approval(&self) -> bool {
        self.source == VersionSource::AiFix && self.approved_at.is_none()
    }
}

/// Where a proposed repair stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProposalState {
    /// Waits for the scrap's owner.
    Pending,
    /// Made the scrap's script (`FixProposal::version_id`).
    Approved,
    /// Turned down by a person.
    Dismissed,
    /// A newer proposal for the same scrap replaced it.
    Superseded,
}

impl ProposalState {
    pub fn as_str(self) -> &'static str {
        match self {
            ProposalState::Pending => "pending",
            ProposalState::Approved => "approved",
            ProposalState::Dismissed => "dismissed",
            ProposalState::Superseded => "superseded",
        }
    }
    pub fn parse(s: &str) -> Option<Self> {
        [Self::Pending, Self::Approved, Self::Dismissed, Self::Superseded].into_iter().find(|k| k.as_str() == s)
    }
}

/// A repair AI Fix found for a scrap with a site login: not applied, it
/// waits for the owner, who reads the diff and approves or dismisses it.
#[derive(Clone, Debug, PartialEq)]
pub struct FixProposal {
    pub id: ObjectId,
    pub organization_id: OrgId,
    pub scrap_id: ScrapId,
    /// The AI Fix task that found it.
    pub task_id: ObjectId,
    /// The failed run it repairs.
    pub history_id: HistoryId,
    /// The script it replaces: approving it needs the scrap's script to be
    /// this still.
    pub base_request: String,
    /// The proposed script.
    pub request: String,
    /// Items its trial run (held to the scrap's site) found.
    pub length: i64,
    pub state: ProposalState,
    pub created_at: DateTime<Utc>,
    pub decided_at: Option<DateTime<Utc>>,
    pub decided_by: Option<UserId>,
    /// The version approving it made.
    pub version_id: Option<ObjectId>,
}
