use chrono::{DateTime, Utc};
use serde_json::Value;

use crate::costs::Costs;
use crate::meter::Meter;
use crate::{HistoryId, OrgId, ScrapId};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StatusDetail {
    Success,
    Error,
    Empty,
    Regression,
}

impl StatusDetail {
    pub fn as_str(self) -> &'static str {
        match self {
            StatusDetail::Success => "success",
            StatusDetail::Error => "error",
            StatusDetail::Empty => "empty",
            StatusDetail::Regression => "regression",
        }
    }
    pub fn parse(s: &str) -> Option<Self> {
        [Self::Success, Self::Error, Self::Empty, Self::Regression].into_iter().find(|d| d.as_str() == s)
    }
    /// `status` of a finished row: true for success only.
    pub fn is_success(self) -> bool {
        matches!(self, StatusDetail::Success)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TriggeredBy {
    User,
    Api,
    Cron,
}

impl TriggeredBy {
    pub fn as_str(self) -> &'static str {
        match self {
            TriggeredBy::User => "user",
            TriggeredBy::Api => "api",
            TriggeredBy::Cron => "cron",
        }
    }
    pub fn parse(s: &str) -> Option<Self> {
        [Self::User, Self::Api, Self::Cron].into_iter().find(|t| t.as_str() == s)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunType {
    ScrapRun,
    AiWizard,
    AiGenerate,
}

impl RunType {
    pub fn as_str(self) -> &'static str {
        match self {
            RunType::ScrapRun => "scrap_run",
            RunType::AiWizard => "ai_wizard",
            RunType::AiGenerate => "ai_generate",
        }
    }
    pub fn parse(s: &str) -> Option<Self> {
        [Self::ScrapRun, Self::AiWizard, Self::AiGenerate].into_iter().find(|t| t.as_str() == s)
    }
}

/// One run of a scrap.
#[derive(Clone, Debug, PartialEq)]
pub struct HistoryRow {
    pub id: HistoryId,
    /// The scrap run; `None` for an AI operation row (`ai_wizard`,
    /// `ai_generate`), which stands alone.
    pub scrap_id: Option<ScrapId>,
    pub organization_id: OrgId,
    /// `None` while pending.
    pub status_detail: Option<StatusDetail>,
    /// JSON-encoded result array (`"[]"` while pending).
    pub data: String,
    pub length: i64,
    /// Worker duration in milliseconds.
    pub time_ms: Option<i64>,
    pub digest: Option<String>,
    pub triggered_by: TriggeredBy,
    pub run_type: RunType,
    pub proxy_tier: String,
    /// Admin-only: what the row cost in USD.
    pub costs: Option<Costs>,
    /// Admin-only: what the row charged in units.
    pub meter: Option<Meter>,
    pub fix_version_id: Option<String>,
    pub fixed_at: Option<DateTime<Utc>>,
    /// Admin-only failure capture `{html, selector, screenshot}`.
    pub error_snapshot: Option<Value>,
    pub retries: i64,
    /// Short message of an `error` outcome (at most 1,000 characters).
    pub error: Option<String>,
    pub created_at: DateTime<Utc>,
    pub finished_at: Option<DateTime<Utc>>,
}

/// A history row without its data (nor the admin-only figures), for lists.
#[derive(Clone, Debug, PartialEq)]
pub struct RunSummary {
    pub id: HistoryId,
    pub scrap_id: ScrapId,
    /// `None` while pending.
    pub status_detail: Option<StatusDetail>,
    pub length: i64,
    /// Worker duration in milliseconds.
    pub time_ms: Option<i64>,
    pub triggered_by: TriggeredBy,
    pub created_at: DateTime<Utc>,
    pub finished_at: Option<DateTime<Utc>>,
}

/// The longest a trigger may wait for its run to finish (`wait=`, in
/// seconds): the server's bound and the command-line client's default.
pub const MAX_RUN_WAIT_SECS: u64 = 120;

/// The tier of a run that goes straight to the target (through svc's own
/// egress proxy only). Until upstream proxy tiers exist, every run does, so
/// a row says this whatever the scrap's `proxyTier` (the tier that ran).
pub const DIRECT_TIER: &str = "tier0";

impl HistoryRow {
    /// A run as its trigger records it: pending, no data yet.
    pub fn pending(
        scrap_id: ScrapId,
        organization_id: OrgId,
        triggered_by: TriggeredBy,
        proxy_tier: &str,
        created_at: DateTime<Utc>,
    ) -> Self {
        HistoryRow {
            id: HistoryId::new(),
            scrap_id: Some(scrap_id),
            organization_id,
            status_detail: None,
            data: "[]".into(),
            length: 0,
            time_ms: None,
            digest: None,
            triggered_by,
            run_type: RunType::ScrapRun,
            proxy_tier: proxy_tier.to_string(),
            costs: None,
            meter: None,
            fix_version_id: None,
            fixed_at: None,
            error_snapshot: None,
            retries: 0,
            error: None,
            created_at,
            finished_at: None,
        }
    }

    /// `status` of the public shape: null while pending, then true for success only.
    pub fn status(&self) -> Option<bool> {
        self.status_detail.map(StatusDetail::is_success)
    }
}

/// The longest error message a row keeps.
pub const MAX_ERROR_CHARS: usize = 1000;

/// An error message cut to 1,000 characters (the row's `error`).
pub fn short_error(message: &str) -> String {
    if message.chars().count() <= MAX_ERROR_CHARS {
        return message.to_string();
    }
    let mut cut: String = message.chars().take(MAX_ERROR_CHARS - 1).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod error_tests {
    use super::*;

    #[test]
    fn errors_are_cut_to_1000_characters() {
        assert_eq!(short_error("short"), "short");
        let long = "é".repeat(5000);
        assert_eq!(short_error(&long).chars().count(), 1000);
    }
}
