//! The port through which runs reach a browser. `svc-runner` implements it
//! with Chromium; the service layer only knows this trait.

use std::time::Duration;

use async_trait::async_trait;
use svc_domain::scrap::ParamSet;

use crate::run_outcome::EngineReport;
use crate::script_directives::Loads;

/// Everything a run needs to know.
#[derive(Clone, Debug, PartialEq)]
pub struct RunJob {
    pub history_id: String,
    pub url: String,
    pub script: String,
    pub param: Option<ParamSet>,
    pub params: Vec<ParamSet>,
    pub triggered_by: &'static str,
    /// Navigation included.
    pub timeout: Duration,
    /// Subresources loaded besides what every run loads (`// svc:load`).
    pub loads: Loads,
    /// Hand back the page's HTML after the script, whatever the outcome
    /// (AI Fix and the AI tasks read it).
    pub capture_page: bool,
    /// The proxy tier the run leaves through: 0 is direct (svc's own egress
    /// proxy dials the target), 1 to 4 go on through that tier's upstream
    /// proxies (`SVC_PROXY_TIER1`..`4`). A tier that is not configured
    /// fails the run; the engine never picks or escalates a tier itself.
    pub tier: u8,
}

#[async_trait]
pub trait Engine: Send + Sync {
    /// Runs `job` to its end. Never fails as a call: every failure is a
    /// `ScriptResult::Failed` in the report.
    async fn run(&self, job: RunJob) -> EngineReport;
}
