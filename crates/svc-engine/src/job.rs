//! What an engine is handed: one [`RunJob`], everything a run needs to know.

use std::fmt;
use std::time::Duration;

use svc_domain::scrap::ParamSet;
use svc_domain::site_account::{SessionState, SiteAccount};
use svc_domain::{OrgId, ScrapId};

use crate::crawl::PageInput;
use crate::directives::Loads;
use crate::report::ScriptResult;
use crate::site::Site;

/// When an engine hands back the page's HTML after the script
/// (`EngineReport::html`). Serializing a page is work on every run that asks
/// for it, and a large page is large, so a job asks only when it may read it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum PageCapture {
    #[default]
    Never,
    /// Unless the script returned items: what tells a blocked page (proxy
    /// tier `auto`), which a run that found items never is.
    UnlessItems,
    /// Whatever the outcome (AI Fix reads a regression's page, the AI
    /// tasks every page).
    Always,
}

impl PageCapture {
    /// Whether a run that ended with `result` hands back its page.
    pub fn wants(self, result: &ScriptResult) -> bool {
        match self {
            PageCapture::Never => false,
            PageCapture::UnlessItems => !matches!(result, ScriptResult::Data { length, .. } if *length > 0),
            PageCapture::Always => true,
        }
    }
}

/// Everything a run needs to know. `Debug` shows neither the site login
/// nor the session (nor the script, which is long).
#[derive(Clone, PartialEq)]
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
    /// When to hand back the page's HTML after the script.
    pub capture_page: PageCapture,
    /// The proxy tier the run leaves through: 0 is direct (svc's own egress
    /// proxy dials the target), 1 to 4 go on through that tier's upstream
    /// proxies (`SVC_PROXY_TIER1`..`4`). A tier that is not configured
    /// fails the run; the engine never picks or escalates a tier itself.
    pub tier: u8,
    /// The scrap's site login, handed to the script as `SVC.account`
    /// (`null` without one).
    pub account: Option<SiteAccount>,
    /// The session the scrap's last successful run saved: restored into
    /// the fresh context before navigation. A job with an `account` also
    /// gets its context's session back in the report after a run that
    /// returned items (`EngineReport::session`).
    pub session: Option<SessionState>,
    /// The engine that runs it: the scrap's `scrapper` (one of
    /// `svc_domain::scrap::SCRAPPERS`; `puppeteer` for test runs without
    /// one and the AI tasks' page loads).
    pub scrapper: String,
    /// Whose warm pages the run may use: a run of a saved scrap names
    /// it, and the browser engine may then run it in a page a finished
    /// run of the same scrap left, emptied (svc-runner's `warm_pages.rs`).
    /// `None` (test runs of unsaved scripts, the AI tasks' loads and shadow
    /// runs): a page of its own, in a new context.
    pub reuse: Option<ReuseKey>,
    /// The job URL's site, to which every request of the run is held (the
    /// page, its subresources, the script's `fetch`, forms, WebSockets):
    /// set for AI Fix's candidate scripts, which a model wrote under the
    /// page's influence. The engine adds the sites the main document's
    /// redirects lead to on the run's first navigation to `url`, and
    /// nothing else (`Confinement`). A request elsewhere is refused as a
    /// private address is.
    pub confined_to: Option<Site>,
    /// The organization the run is for, when there is one (every run the
    /// services make has one). The static engine's sandbox processes serve
    /// one organization each and never one run of another (`None`: a
    /// process of its own).
    pub organization: Option<OrgId>,
    /// Which page of a crawl this is (`SVC.label`, `SVC.data`, `SVC.depth`,
    /// and what `SVC.enqueue` may add): `PageInput::single()` for a run of
    /// one page.
    pub page: PageInput,
}

/// The scrap a run belongs to, with its organization: warm pages are kept
/// per key and never cross from one key to another.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ReuseKey {
    pub organization: OrgId,
    pub scrap: ScrapId,
}

impl RunJob {
    /// What the script's `SVC` shows of the run, for the engines'
    /// JavaScript: `url`, `param`, `params`, `historyId`, `triggeredBy`,
    /// `account` (`{username, password}`, or null without a site login) and
    /// `page` (the crawl's [`PageInput`]).
    pub fn script_input(&self) -> serde_json::Value {
        let account =
            self.account.as_ref().map(|a| serde_json::json!({"username": a.username, "password": a.password}));
        serde_json::json!({
            "url": self.url,
            "param": self.param,
            "params": self.params,
            "historyId": self.history_id,
            "triggeredBy": self.triggered_by,
            "account": account,
            "page": self.page.script_input(),
        })
    }
}

impl fmt::Debug for RunJob {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RunJob")
            .field("history_id", &self.history_id)
            .field("url", &self.url)
            .field("script", &format_args!("<{} bytes>", self.script.len()))
            .field("param", &self.param)
            .field("params", &self.params)
            .field("triggered_by", &self.triggered_by)
            .field("timeout", &self.timeout)
            .field("loads", &self.loads)
            .field("capture_page", &self.capture_page)
            .field("tier", &self.tier)
            .field("account", &self.account)
            .field("session", &self.session)
            .field("scrapper", &self.scrapper)
            .field("reuse", &self.reuse)
            .field("confined_to", &self.confined_to)
            .field("organization", &self.organization)
            .field("page", &self.page)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_redacts_the_login_and_the_session() {
        let job = RunJob {
            history_id: "h".into(),
            url: "https://example.com/".into(),
            script: "returnData([SVC.account.password])".into(),
            param: None,
            params: vec![],
            triggered_by: "user",
            timeout: Duration::from_secs(5),
            loads: Loads::default(),
            capture_page: PageCapture::Never,
            tier: 0,
            account: Some(SiteAccount { username: "alice".into(), password: "hunter2-secret".into() }),
            session: Some(SessionState::new(r#"{"cookies":[{"value":"sid-123456"}]}"#)),
            scrapper: "puppeteer".into(),
            reuse: None,
            confined_to: None,
            organization: None,
            page: crate::PageInput::single(),
        };
        let shown = format!("{job:?}");
        for secret in ["alice", "hunter2-secret", "sid-123456", "SVC.account"] {
            assert!(!shown.contains(secret), "{secret} in {shown}");
        }
        assert!(shown.contains("a***") && shown.contains("SessionState(<"), "{shown}");
    }
}
