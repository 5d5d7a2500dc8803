//! The port through which runs reach an engine. `svc-runner` implements it
//! with Chromium (`puppeteer`), `svc-static` without a browser (`static`);
//! [`EnginesByScrapper`] hands each job to the one its scrap names. The
//! service layer only knows this trait.

use std::collections::HashMap;
use std::sync::Arc;

use async_trait::async_trait;

use crate::job::{ReuseKey, RunJob};
use crate::report::EngineReport;

#[async_trait]
pub trait Engine: Send + Sync {
    /// Runs `job` to its end. Never fails as a call: every failure is a
    /// `ScriptResult::Failed` in the report.
    async fn run(&self, job: RunJob) -> EngineReport;

    /// What the engine keeps warm for whom: a worker prefers to claim the
    /// queued runs these fit (a run that finds a warm page or process
    /// skips starting one). Cheap: called before every claim.
    fn warm(&self) -> Vec<Warm> {
        Vec::new()
    }

    /// A worker claimed a run of `key` that loads `url` on the engine its
    /// scrap names (`scrapper`), possibly for something [`Engine::warm`]
    /// listed: the engine keeps one fitting warm page for that run until
    /// the run comes for it (or a short while passes), so that the next
    /// claims do not count on it and no new page pushes it out. Cheap:
    /// called after every claim.
    fn claimed(&self, key: ReuseKey, url: &str, scrapper: &str) {
        let _ = (key, url, scrapper);
    }

    /// Runs `job` as [`Engine::run`] does, under the same isolation, and
    /// when its script returned data, hands back a screenshot of the page's
    /// viewport as the script left it (a scrap's banner, "Use a screenshot
    /// of the page"). An engine without a browser takes none: its report
    /// says so.
    async fn screenshot(&self, job: RunJob) -> Screenshot {
        let _ = job;
        Screenshot { report: EngineReport::not_run(NO_SCREENSHOTS.into()), png: None }
    }
}

/// What an engine without a browser answers to [`Engine::screenshot`].
pub const NO_SCREENSHOTS: &str = "this engine takes no screenshots: it has no browser";

/// A run whose result is an image: the run's report, and the PNG when the
/// script returned data and the capture succeeded.
#[derive(Clone, Debug, PartialEq)]
pub struct Screenshot {
    pub report: EngineReport,
    pub png: Option<Vec<u8>>,
}

/// Something an engine keeps warm for an organization's next runs: a
/// browser page that shows `origin`, or (`None`) a process any page can use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Warm {
    pub organization: svc_domain::OrgId,
    /// The origin the warm page shows (`scheme://host[:port]`).
    pub origin: Option<String>,
}

/// An engine that hands each job to the engine registered for its
/// `scrapper`. A job naming no registered engine fails, saying so.
#[derive(Default)]
pub struct EnginesByScrapper {
    engines: HashMap<String, Arc<dyn Engine>>,
}

impl EnginesByScrapper {
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers `engine` for jobs whose `scrapper` is `scrapper`.
    pub fn with(mut self, scrapper: &str, engine: Arc<dyn Engine>) -> Self {
        self.engines.insert(scrapper.to_string(), engine);
        self
    }
}

#[async_trait]
impl Engine for EnginesByScrapper {
    fn warm(&self) -> Vec<Warm> {
        self.engines.values().flat_map(|engine| engine.warm()).collect()
    }

    /// Only the engine that will run it hears of a claim: a browser that
    /// heard of every static run's claim kept a page for each, for runs
    /// that never came for one, and listed them all before every claim.
    /// A scrap whose engine is picked per run (`auto`) may reach any.
    fn claimed(&self, key: ReuseKey, url: &str, scrapper: &str) {
        match self.engines.get(scrapper) {
            Some(engine) => engine.claimed(key, url, scrapper),
            None => {
                for engine in self.engines.values() {
                    engine.claimed(key, url, scrapper);
                }
            }
        }
    }

    async fn run(&self, job: RunJob) -> EngineReport {
        match self.engines.get(&job.scrapper) {
            Some(engine) => engine.run(job).await,
            None => EngineReport::not_run(format!("this server has no `{}` engine", job.scrapper)),
        }
    }

    async fn screenshot(&self, job: RunJob) -> Screenshot {
        match self.engines.get(&job.scrapper) {
            Some(engine) => engine.screenshot(job).await,
            None => Screenshot {
                report: EngineReport::not_run(format!("this server has no `{}` engine", job.scrapper)),
                png: None,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::{Loads, PageCapture, ScriptResult};

    /// Answers every job with its own name as data, and keeps the claims
    /// it was told of.
    struct Named(&'static str, std::sync::Mutex<Vec<String>>);

    fn named(name: &'static str) -> Arc<Named> {
        Arc::new(Named(name, Default::default()))
    }

    #[async_trait]
    impl Engine for Named {
        fn claimed(&self, _key: ReuseKey, url: &str, _scrapper: &str) {
            self.1.lock().unwrap().push(url.to_string());
        }

        async fn run(&self, _job: RunJob) -> EngineReport {
            EngineReport {
                result: ScriptResult::Data { json: format!("[\"{}\"]", self.0), length: 1 },
                duration_ms: 1,
                bytes: 1,
                snapshot: None,
                status: Some(200),
                html: None,
                session: None,
                enqueued: vec![],
            }
        }
    }

    fn job(scrapper: &str) -> RunJob {
        RunJob {
            history_id: "h".into(),
            url: "https://example.com/".into(),
            script: "returnData([])".into(),
            param: None,
            params: vec![],
            triggered_by: "user",
            timeout: Duration::from_secs(1),
            loads: Loads::default(),
            capture_page: PageCapture::Never,
            tier: 0,
            account: None,
            session: None,
            scrapper: scrapper.into(),
            reuse: None,
            confined_to: None,
            organization: None,
            page: crate::PageInput::single(),
        }
    }

    #[tokio::test]
    async fn jobs_go_to_the_engine_their_scrap_names() {
        let engines = EnginesByScrapper::new().with("puppeteer", named("browser")).with("static", named("fetch"));
        let answer = |r: EngineReport| match r.result {
            ScriptResult::Data { json, .. } => json,
            ScriptResult::Failed { message } => message,
        };
        assert_eq!(answer(engines.run(job("puppeteer")).await), r#"["browser"]"#);
        assert_eq!(answer(engines.run(job("static")).await), r#"["fetch"]"#);
        assert_eq!(answer(engines.run(job("playwright")).await), "this server has no `playwright` engine");
    }

    /// A claim reaches the engine that will run it, and only that one: a
    /// browser told of a static run's claim kept a page for a run that
    /// never came for one. A scrap whose engine is picked per run (`auto`)
    /// may reach either, so both hear of it.
    #[test]
    fn a_claim_is_told_to_the_engine_its_scrap_names() {
        let (browser, fetch) = (named("browser"), named("fetch"));
        let engines = EnginesByScrapper::new().with("puppeteer", browser.clone()).with("static", fetch.clone());
        let key = ReuseKey { organization: svc_domain::OrgId::new(), scrap: svc_domain::ScrapId::new() };
        engines.claimed(key, "https://a.test/", "static");
        engines.claimed(key, "https://b.test/", "puppeteer");
        engines.claimed(key, "https://c.test/", "auto");
        let told = |engine: &Named| engine.1.lock().unwrap().clone();
        assert_eq!(told(&fetch), ["https://a.test/", "https://c.test/"]);
        assert_eq!(told(&browser), ["https://b.test/", "https://c.test/"]);
    }
}
