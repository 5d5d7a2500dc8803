//! Test runs: a draft script run from the editor, in this process, stored
//! nowhere.

use std::time::Instant;
use svc_domain::account::Organization;
use svc_domain::scope::Scope;

use svc_domain::history::TriggeredBy;
use svc_domain::scrap::{AUTO_SCRAPPER, DEFAULT_SCRAPPER, ParamSet, STATIC_SCRAPPER};
use svc_domain::{HistoryId, ScrapId};

use crate::accounts::rate_limits::TRIGGER_PER_KEY;
use crate::outbox::redact::KnownSecrets;
use crate::runs::engine_choice;
use crate::scraps::input::{check_params, check_request, check_scrapper, check_url};
use crate::scraps::site_accounts::{RunLogin, run_login};
use crate::{Result, ServiceError, Session};
use svc_domain::meter::units;
use svc_engine::ScriptResult;
use svc_engine::{PageCapture, RunJob};

use super::RunService;
use super::crawl::{self, CrawlSettings, PageRecord, TEST_RUN_MAX_PAGES};
use crate::scraps::proxy_tiers;

/// Why a test run cannot run in this process: it runs on the engine of the
/// server's embedded worker, which `SVC_EMBEDDED_WORKER=false` leaves out.
pub const NO_ENGINE_HERE: &str = "Test runs need a browser in this server process, and this one has none: it was \
     started with SVC_EMBEDDED_WORKER=false. Save the scrap and run it (a worker runs it), or serve the web app from a \
     server with the embedded worker on (the default)";

/// A run of a script that is not saved (the web app's "Test run").
#[derive(Clone, Debug, PartialEq)]
pub struct TestRun {
    pub url: String,
    pub script: String,
    pub params: Vec<ParamSet>,
    /// The key of one of `params`, handed to the script as `SVC.param`.
    pub param: Option<String>,
    /// The saved scrap being edited, if any: the test run signs in with its
    /// site login (`SVC.account`) and starts from its saved session, which it
    /// does not update. `None`: `SVC.account` is null.
    pub scrap: Option<ScrapId>,
    /// The engine (`scrapper`) to run it on; `puppeteer` when `None`.
    pub scrapper: Option<String>,
}

/// What a test run did. Nothing of it is stored.
#[derive(Clone, Debug, PartialEq)]
pub struct TestRunOutcome {
    pub result: ScriptResult,
    /// Navigation included.
    pub duration_ms: i64,
    /// The failure capture: `{selector, screenshot}` for its author, with
    /// the page `html` too for platform admins (as a stored run's `errorSnapshot`).
    pub snapshot: Option<serde_json::Value>,
    /// What the organization was charged.
    pub units: i64,
    /// A crawl's pages (at most [`TEST_RUN_MAX_PAGES`]), in the order of
    /// its data; none for a script of one page.
    pub pages: Vec<PageRecord>,
    /// A test run on the browser that found items also tries `static`
    /// (it costs little): `Some` when static returned the very same data.
    pub static_alternative: Option<StaticAlternative>,
}

/// `static` gave the same data as the browser on a test run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StaticAlternative {
    pub items: i64,
    /// How long static took, and the browser.
    pub static_ms: i64,
    pub browser_ms: i64,
}

/// What a test run's author sees of the failure capture: the screenshot and
/// the selector waited for (their own unsaved script on the page they
/// chose; nothing is stored), and the page markup only when they are a
/// platform admin, as with a stored run's `errorSnapshot`.
fn test_run_capture(mut capture: serde_json::Value, session: &Session) -> serde_json::Value {
    if !session.is_platform_admin()
        && let Some(fields) = capture.as_object_mut()
    {
        fields.remove("html");
    }
    capture
}

impl RunService {
    /// This process's engine and the organization, for a job a user asks
    /// for outside the queue (a test run, a banner's screenshot): 503
    /// without a browser here, 402 when the balance is spent.
    pub(super) async fn engine_for_users_job(
        &self,
        session: &Session,
    ) -> Result<(std::sync::Arc<dyn svc_engine::Engine>, Organization)> {
        let engine = self.attached.engine().ok_or_else(|| ServiceError::Unavailable(NO_ENGINE_HERE.into()))?;
        let org = self.store.organization(session.org()).await?.ok_or(ServiceError::NotFound("organization"))?;
        if org.balance <= 0 {
            return Err(ServiceError::InsufficientBalance);
        }
        Ok((engine.clone(), org))
    }

    /// Takes one from the user's limit of such jobs (the rate of API-key
    /// triggers), shared by test runs and screenshots.
    pub(super) async fn take_users_job_limit(&self, session: &Session) -> Result<()> {
        self.limits.take(&format!("test-run:user:{}", session.user()), TRIGGER_PER_KEY).await?;
        Ok(())
    }

    /// Runs an unsaved script once, at once, on this process's browser (no
    /// queue), and answers with its result. It writes no history row and
    /// sends no webhook; the organization is charged as for a run. Limited
    /// per user (the rate of API-key triggers).
    pub async fn test_run(&self, session: &Session, draft: TestRun) -> Result<TestRunOutcome> {
        session.require(&[Scope::ScrapsRun])?;
        let url = draft.url.trim().to_string();
        check_url(&url)?;
        let loads = check_request(&draft.script)?;
        check_params(&draft.params)?;
        let scrapper = draft.scrapper.unwrap_or_else(|| DEFAULT_SCRAPPER.to_string());
        check_scrapper(&scrapper)?;
        let param =
            match draft.param {
                None => None,
                Some(key) => Some(draft.params.iter().find(|p| p.key == key).cloned().ok_or_else(|| {
                    ServiceError::validation("param", format!("no parameter set `{key}` in `params`"))
                })?),
            };
        let (engine, org) = self.engine_for_users_job(session).await?;
        let login = match draft.scrap {
            None => RunLogin::default(),
            Some(scrap) => {
                if self.store.existing_scrap_ids(org.id, &[scrap]).await?.is_empty() {
                    return Err(ServiceError::NotFound("scrap"));
                }
                match run_login(&*self.store, org.id, scrap).await? {
                    Ok(login) => login,
                    Err(message) => {
                        let result = ScriptResult::Failed { message };
                        return Ok(TestRunOutcome {
                            result,
                            duration_ms: 0,
                            snapshot: None,
                            units: 0,
                            pages: vec![],
                            static_alternative: None,
                        });
                    }
                }
            }
        };
        self.take_users_job_limit(session).await?;
        let secrets = KnownSecrets::of(login.account.as_ref());
        // A crawl runs, with a small page cap, within one run's timeout.
        let limits = svc_engine::crawl::limits_for_run(&draft.script).capped(TEST_RUN_MAX_PAGES);
        let started = Instant::now();
        let job = RunJob {
            history_id: HistoryId::new().to_string(),
            page: crawl::start_page(&url, limits),
            url,
            script: draft.script,
            param,
            params: draft.params,
            triggered_by: TriggeredBy::User.as_str(),
            timeout: self.run_timeout,
            loads,
            capture_page: PageCapture::Never,
            tier: 0,
            account: login.account,
            session: login.session,
            scrapper,
            reuse: None,
            confined_to: None,
            organization: Some(org.id),
        };
        // `auto`: static, then the browser when static found nothing (a
        // test run neither reads nor changes what the scrap's runs learned).
        let (report, bytes, ran) = if job.scrapper == AUTO_SCRAPPER {
            let static_job = RunJob { scrapper: STATIC_SCRAPPER.to_string(), ..job.clone() };
            let report = engine.run(static_job.clone()).await;
            if engine_choice::static_found_items(&report.result) {
                let bytes = report.bytes;
                (report, bytes, static_job)
            } else {
                let browser_job = RunJob { scrapper: DEFAULT_SCRAPPER.to_string(), ..job };
                let browser = engine.run(browser_job.clone()).await;
                let bytes = report.bytes + browser.bytes;
                (browser, bytes, browser_job)
            }
        } else {
            let report = engine.run(job.clone()).await;
            let bytes = report.bytes;
            (report, bytes, job)
        };
        // A browser run that found items: would `static` do? Tried when
        // nothing it cannot do is asked for (a crawl, a site login, loads).
        let mut bytes = bytes;
        let mut static_alternative = None;
        let worth_trying = ran.scrapper == DEFAULT_SCRAPPER
            && !limits.is_crawl()
            && ran.account.is_none()
            && ran.loads == svc_engine::Loads::default()
            && engine_choice::static_found_items(&report.result);
        if worth_trying {
            let tried = engine.run(RunJob { scrapper: STATIC_SCRAPPER.to_string(), ..ran.clone() }).await;
            bytes += tried.bytes;
            if let (ScriptResult::Data { json: browser, length }, ScriptResult::Data { json: alone, .. }) =
                (&report.result, &tried.result)
                && browser == alone
            {
                static_alternative = Some(StaticAlternative {
                    items: *length,
                    static_ms: tried.duration_ms,
                    browser_ms: report.duration_ms,
                });
            }
        }
        let mut charged = units(bytes);
        let (report, pages) = if limits.is_crawl() {
            let crawl = crawl::Crawl {
                engine: engine.as_ref(),
                job: &ran,
                limits,
                started,
                settings: CrawlSettings { max_pages: TEST_RUN_MAX_PAGES, timeout: self.run_timeout },
                balance: Some(org.balance),
                spent: charged,
                tiers: &self.tiers,
                // The attached engine takes a slot for each page itself.
                slots: None,
            };
            let crawled = crawl.run(report).await;
            charged += proxy_tiers::run_units(&crawled.attempts, &self.tiers);
            (crawled.report, crawled.pages)
        } else {
            (report, vec![])
        };
        self.store.add_balance(org.id, -charged).await?;
        // Shown to its author only, masked all the same.
        let result = match report.result {
            ScriptResult::Data { json, length } => ScriptResult::Data { json: secrets.data(&json), length },
            ScriptResult::Failed { message } => ScriptResult::Failed { message: secrets.text(&message) },
        };
        Ok(TestRunOutcome {
            result,
            duration_ms: report.duration_ms,
            snapshot: report.snapshot.map(|capture| test_run_capture(secrets.snapshot(capture), session)),
            units: charged,
            pages: pages.into_iter().map(|p| PageRecord { error: p.error.map(|e| secrets.text(&e)), ..p }).collect(),
            static_alternative,
        })
    }
}
