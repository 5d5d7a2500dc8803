//! The pages of a run: a crawl (`// svc:crawl`) visits many, and each is
//! listed with what became of it. A run of one page has none listed.

use crate::{HistoryId, OrgId, ScrapId};

/// What became of one page of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PageStatus {
    /// Its script ran and returned items (or none).
    Ok,
    /// It failed (navigation, HTTP status, the script, a refused address).
    Error,
    /// robots.txt disallows it.
    SkippedRobots,
    /// A limit stopped the crawl before it (pages, time, balance, data size).
    SkippedLimit,
}

impl PageStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            PageStatus::Ok => "ok",
            PageStatus::Error => "error",
            PageStatus::SkippedRobots => "skipped_robots",
            PageStatus::SkippedLimit => "skipped_limit",
        }
    }
    pub fn parse(s: &str) -> Option<Self> {
        [Self::Ok, Self::Error, Self::SkippedRobots, Self::SkippedLimit].into_iter().find(|k| k.as_str() == s)
    }
}

/// One page of a run.
#[derive(Clone, Debug, PartialEq)]
pub struct RunPage {
    pub organization_id: OrgId,
    pub scrap_id: ScrapId,
    pub history_id: HistoryId,
    /// Its place in the run's data (0: the start page).
    pub position: i64,
    pub url: String,
    /// `SVC.label` (`start` for the start page).
    pub label: Option<String>,
    /// Links from the start page.
    pub depth: i64,
    pub status: PageStatus,
    /// Items its script returned.
    pub items: i64,
    pub duration_ms: i64,
    pub error: Option<String>,
}
