//! Triggering runs, finishing them, and reading their results.

use std::sync::Arc;
use std::time::Duration;

use chrono::Utc;
use svc_domain::ObjectId;
use svc_domain::activity::Activity;
use svc_domain::email::Email;
use svc_domain::history::{DIRECT_TIER, HistoryRow, MAX_RUN_WAIT_SECS, StatusDetail, TriggeredBy};
use svc_domain::scope::Scope;
use svc_domain::scrap::{AUTO_SCRAPPER, DEFAULT_SCRAPPER, ParamSet, STATIC_SCRAPPER, Scrap};
use svc_domain::site_account::{SavedSession, SessionState};
use svc_domain::webhook::Delivery;
use svc_storage::Store;
pub use svc_storage::{ClaimedRun, ExpiredLeases};
use svc_storage::{QueueState, TierNote};
use tokio::sync::{Notify, broadcast};

use crate::ai_model::{AiModel, AiPricing};
use crate::attachments::{AttachedModel, Attachments};
use crate::digest;
use crate::email_compose;
use crate::engine::{Engine, PageCapture, ReuseKey, RunJob};
use crate::engine_choice;
use crate::fix_policy::{self, Diagnosis};
use crate::history::HistoryView;
use crate::metrics::Metrics;
use crate::proxy_tiers::{self, TierAttempt, TierMode, TierSettings};
use crate::rate_limits::{RateLimits, TRIGGER_PER_KEY, load_quota};
use crate::redact::KnownSecrets;
use crate::run_outcome::{EngineReport, ScriptResult, classify, short_error, units};
use crate::scrap_input::{check_params, check_request, check_scrapper, check_url};
use crate::scraps::{activity, authorize_scrap};
use crate::site_accounts::{RunLogin, run_login};
use crate::webhook_payload::stored_payload;
use crate::{Principal, Result, ServiceError, Session};

/// How many times a run is tried when its worker disappears.
pub const MAX_ATTEMPTS: i64 = 2;
/// The longest a trigger may wait for its run to finish (`wait`).
pub const MAX_WAIT: Duration = Duration::from_secs(MAX_RUN_WAIT_SECS);

/// A caller's `wait`, in whole seconds from 0 to [`MAX_WAIT`]; 0 means
/// answer at once with the pending run.
pub fn wait_from_secs(secs: u64) -> Result<Duration> {
    if secs > MAX_WAIT.as_secs() {
        return Err(wait_refused());
    }
    Ok(Duration::from_secs(secs))
}

/// The refusal of a `wait` that is not a whole number of seconds in range.
pub fn wait_refused() -> ServiceError {
    ServiceError::validation("wait", format!("must be an integer number of seconds from 0 to {}", MAX_WAIT.as_secs()))
}
const LOST_WORKER: &str = "the worker running this run stopped before finishing it";

/// In-process signals: new work for the embedded workers, finished runs for
/// callers waiting on them. Other processes fall back to polling.
pub struct RunSignals {
    pub queued: Notify,
    finished: broadcast::Sender<ObjectId>,
    /// Webhook deliveries were queued (wakes the dispatcher).
    pub deliveries: Arc<Notify>,
    /// Emails were queued (wakes the mailer).
    pub emails: Arc<Notify>,
    /// Tasks were queued (wakes the task runner).
    pub tasks: Arc<Notify>,
    /// Tasks finished, for callers waiting on them.
    pub(crate) task_finished: broadcast::Sender<ObjectId>,
}

/// The `run.finished` entry of a claimed run's row: "Run finished: <summary>".
fn finished_activity(claim: &ClaimedRun, row: &HistoryRow, summary: &str) -> Activity {
    let mut log = activity(
        claim.organization_id,
        claim.scrap_id,
        "run.finished",
        "system".into(),
        format!("Run finished: {summary}"),
    );
    log.history_id = Some(row.id);
    log
}

impl Default for RunSignals {
    fn default() -> Self {
        RunSignals {
            queued: Notify::new(),
            finished: broadcast::channel(1024).0,
            deliveries: Arc::new(Notify::new()),
            emails: Arc::new(Notify::new()),
            tasks: Arc::new(Notify::new()),
            task_finished: broadcast::channel(256).0,
        }
    }
}

/// What result emails and alerts need to know.
#[derive(Clone, Debug)]
pub struct EmailSettings {
    /// Email can be sent: without it, none is queued.
    pub enabled: bool,
    /// For the links to runs.
    pub public_url: String,
}

/// Why a test run cannot run in this process: it runs on the engine of the
/// server's embedded worker, which `SVC_EMBEDDED_WORKER=false` leaves out.
pub const NO_ENGINE_HERE: &str = "Test runs need a browser in this server process, and this one has none: it was \
     started with SVC_EMBEDDED_WORKER=false. Save the scrap and run it (a worker runs it), or serve the web app from a \
     server with the embedded worker on (the default)";

pub struct RunService {
    store: Arc<dyn Store>,
    email: EmailSettings,
    /// This process's browser (test runs) and model (digests, AI Fix).
    attached: Arc<Attachments>,
    pub signals: Arc<RunSignals>,
    run_timeout: Duration,
    limits: Arc<RateLimits>,
    /// AI Fix repairs per organization per UTC day.
    fix_daily: i64,
    /// The proxy tiers this server has, their prices and multipliers.
    tiers: TierSettings,
    /// Counts finished runs (`svc_runs_total`, `svc_run_duration_seconds`).
    metrics: Arc<Metrics>,
}

/// What a claimed run needs before it goes to an engine (`prepare`).
struct Prepared {
    job: RunJob,
    row: HistoryRow,
    scrap: Scrap,
    /// Why the scrap's site login cannot be used, when it is stored but cannot be opened.
    login_error: Option<String>,
}

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
    pub scrap: Option<ObjectId>,
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

/// Where a run is, for a caller watching it.
#[derive(Clone, Debug, PartialEq)]
pub enum RunProgress {
    /// Waiting for a worker.
    Queued,
    /// In a worker's browser.
    Running,
    Finished(Box<HistoryView>),
}

/// Which trigger a caller used: they are limited differently.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trigger {
    /// `POST /api/scraps/worker/:id` (and MCP's `svc_run_scrap`): per API key.
    Worker,
    /// `GET /api/scraps/load/:id`: the organization's run quota.
    Load,
}

impl RunService {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        store: Arc<dyn Store>,
        run_timeout: Duration,
        limits: Arc<RateLimits>,
        email: EmailSettings,
        attached: Arc<Attachments>,
        fix_daily: i64,
        tiers: TierSettings,
        metrics: Arc<Metrics>,
    ) -> Self {
        RunService {
            store,
            email,
            attached,
            signals: Arc::new(RunSignals::default()),
            run_timeout,
            limits,
            fix_daily,
            tiers,
            metrics,
        }
    }

    /// Gives test runs this process's browser; a second engine is ignored.
    pub fn attach_engine(&self, engine: Arc<dyn Engine>) {
        self.attached.set_engine(engine);
    }

    /// Runs an unsaved script once, at once, on this process's browser (no
    /// queue), and answers with its result. It writes no history row and
    /// sends no webhook; the organization is charged as for a run. Limited
    /// per user (the rate of API-key triggers).
    pub async fn test_run(&self, session: &Session, draft: TestRun) -> Result<TestRunOutcome> {
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
        let engine = self.attached.engine().ok_or_else(|| ServiceError::Unavailable(NO_ENGINE_HERE.into()))?;
        let org = self.store.organization(session.org()).await?.ok_or(ServiceError::NotFound("organization"))?;
        if org.balance <= 0 {
            return Err(ServiceError::InsufficientBalance);
        }
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
                        return Ok(TestRunOutcome { result, duration_ms: 0, snapshot: None, units: 0 });
                    }
                }
            }
        };
        self.limits.take(&format!("test-run:user:{}", session.user()), TRIGGER_PER_KEY).await?;
        let secrets = KnownSecrets::of(login.account.as_ref());
        let job = RunJob {
            history_id: ObjectId::new().to_string(),
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
        };
        // `auto`: static, then the browser when static found nothing (a
        // test run neither reads nor changes what the scrap's runs learned).
        let (report, bytes) = if job.scrapper == AUTO_SCRAPPER {
            let report = engine.run(RunJob { scrapper: STATIC_SCRAPPER.to_string(), ..job.clone() }).await;
            if engine_choice::static_found_items(&report.result) {
                let bytes = report.bytes;
                (report, bytes)
            } else {
                let browser = engine.run(RunJob { scrapper: DEFAULT_SCRAPPER.to_string(), ..job }).await;
                let bytes = report.bytes + browser.bytes;
                (browser, bytes)
            }
        } else {
            let report = engine.run(job).await;
            let bytes = report.bytes;
            (report, bytes)
        };
        let charged = units(bytes);
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
        })
    }

    pub fn run_timeout(&self) -> Duration {
        self.run_timeout
    }

    /// Writes a pending history row and queues the run. `param` names one of
    /// the scrap's parameter sets.
    pub async fn trigger(
        &self,
        principal: &Principal,
        via: Trigger,
        scrap_id: ObjectId,
        param: Option<&str>,
    ) -> Result<HistoryRow> {
        principal.require(&[Scope::ScrapsRun])?;
        authorize_scrap(&*self.store, principal, scrap_id).await?;
        let scrap = self.store.scrap(principal.org(), scrap_id).await?.ok_or(ServiceError::NotFound("scrap"))?;
        let org = self.store.organization(principal.org()).await?.ok_or(ServiceError::NotFound("organization"))?;
        if org.balance <= 0 {
            return Err(ServiceError::InsufficientBalance);
        }
        match (via, principal) {
            (Trigger::Worker, Principal::Key { grant, .. }) => {
                self.limits.take_in_any_window(&format!("trigger:key:{}", grant.key_id), TRIGGER_PER_KEY).await?;
            }
            (Trigger::Worker, Principal::Session(_)) => {}
            (Trigger::Load, _) => self.limits.take(&format!("load:org:{}", org.id), load_quota(org.plan)).await?,
        }
        let param =
            match param {
                None => None,
                Some(key) => Some(scrap.params.iter().find(|p| p.key == key).cloned().ok_or_else(|| {
                    ServiceError::validation("param", format!("the scrap has no parameter set `{key}`"))
                })?),
            };
        let triggered_by = match principal {
            Principal::Session(_) => TriggeredBy::User,
            Principal::Key { .. } => TriggeredBy::Api,
        };
        self.enqueue(&scrap, triggered_by, param, principal.actor()).await
    }

    async fn enqueue(
        &self,
        scrap: &Scrap,
        triggered_by: TriggeredBy,
        param: Option<ParamSet>,
        actor: String,
    ) -> Result<HistoryRow> {
        let row = HistoryRow::pending(scrap.id, scrap.organization_id, triggered_by, DIRECT_TIER, Utc::now());
        let mut log = activity(
            scrap.organization_id,
            scrap.id,
            "run.triggered",
            actor,
            format!("Run triggered ({})", triggered_by.as_str()),
        );
        log.history_id = Some(row.id);
        self.store.enqueue_run(&row, &scrap.containers, param.as_ref(), &log).await?;
        self.signals.queued.notify_waiters();
        Ok(row)
    }

    /// The row once finished, or `None` if it is still pending after `wait`.
    pub async fn wait_finished(
        &self,
        principal: &Principal,
        id: ObjectId,
        wait: Duration,
    ) -> Result<Option<HistoryView>> {
        let deadline = tokio::time::Instant::now() + wait.min(MAX_WAIT);
        let mut finished = self.signals.finished.subscribe();
        loop {
            let row =
                self.store.history_row(principal.org(), id).await?.ok_or(ServiceError::NotFound("history row"))?;
            if row.status_detail.is_some() {
                return Ok(Some(HistoryView::for_principal(row, principal)));
            }
            // Woken by an in-process worker; polled for workers elsewhere.
            let poll = tokio::time::Instant::now() + Duration::from_millis(250);
            let until = poll.min(deadline);
            loop {
                match tokio::time::timeout_at(until, finished.recv()).await {
                    Ok(Ok(done)) if done != id => continue,
                    _ => break,
                }
            }
            if tokio::time::Instant::now() >= deadline {
                return Ok(None);
            }
        }
    }

    /// Whether a run is queued, running or finished (then the row), with
    /// the checks of reading a history row.
    pub async fn progress(&self, principal: &Principal, id: ObjectId) -> Result<RunProgress> {
        principal.require(&[Scope::HistoryRead])?;
        let row = self.store.history_row(principal.org(), id).await?.ok_or(ServiceError::NotFound("history row"))?;
        if !principal.may_see_row_of(row.scrap_id) {
            return Err(ServiceError::ScrapNotInKeyScope);
        }
        if row.status_detail.is_some() {
            return Ok(RunProgress::Finished(Box::new(HistoryView::for_principal(row, principal))));
        }
        match self.store.queue_state(principal.org(), id).await? {
            Some(QueueState::Queued) => Ok(RunProgress::Queued),
            Some(QueueState::Running) => Ok(RunProgress::Running),
            // It left the queue between the two reads: it has finished.
            None => {
                let row =
                    self.store.history_row(principal.org(), id).await?.ok_or(ServiceError::NotFound("history row"))?;
                Ok(match row.status_detail {
                    Some(_) => RunProgress::Finished(Box::new(HistoryView::for_principal(row, principal))),
                    None => RunProgress::Running,
                })
            }
        }
    }

    /// The latest successful run's data (Growth and Pro only).
    pub async fn live_data(&self, session: &Session, scrap: ObjectId) -> Result<String> {
        let org = self.store.organization(session.org()).await?.ok_or(ServiceError::NotFound("organization"))?;
        if !org.plan.has_developer_features() {
            return Err(ServiceError::PlanRequired("the live JSON endpoint"));
        }
        if self.store.existing_scrap_ids(session.org(), &[scrap]).await?.is_empty() {
            return Err(ServiceError::NotFound("scrap"));
        }
        let row =
            self.store.last_success(session.org(), scrap).await?.ok_or(ServiceError::NotFound("successful run"))?;
        Ok(row.data)
    }

    /// What a worker needs to run a claimed run; `None` when the scrap is gone.
    /// The job carries the scrap's site login and saved session.
    pub async fn job(&self, claim: &ClaimedRun) -> Result<Option<(RunJob, HistoryRow)>> {
        Ok(self.prepare(claim).await?.map(|prepared| (prepared.job, prepared.row)))
    }

    /// The job, pending row and scrap of a claimed run, and why its login
    /// cannot be used when it is stored but cannot be opened. The three
    /// reads are independent and go together: they are on the run's path.
    async fn prepare(&self, claim: &ClaimedRun) -> Result<Option<Prepared>> {
        let (org, scrap_id) = (claim.organization_id, claim.scrap_id);
        let (scrap, row, login) = tokio::try_join!(
            async { Ok::<_, ServiceError>(self.store.scrap(org, scrap_id).await?) },
            async { Ok(self.store.history_row(org, claim.history_id).await?) },
            run_login(&*self.store, org, scrap_id),
        )?;
        let (Some(scrap), Some(row)) = (scrap, row) else { return Ok(None) };
        let loads = crate::script_directives::loads_for_run(&scrap.request);
        let (login, login_error) = match login {
            Ok(login) => (login, None),
            Err(why) => (RunLogin::default(), Some(why)),
        };
        let job = RunJob {
            history_id: claim.history_id.to_string(),
            url: scrap.url.clone(),
            script: scrap.request.clone(),
            param: claim.param.clone(),
            params: scrap.params.clone(),
            triggered_by: row.triggered_by.as_str(),
            timeout: self.run_timeout,
            loads,
            capture_page: if scrap.auto_fix && self.ai_enabled() { PageCapture::Always } else { PageCapture::Never },
            tier: 0,
            account: login.account,
            session: login.session,
            scrapper: scrap.scrapper.clone(),
            reuse: Some(ReuseKey { organization: claim.organization_id, scrap: claim.scrap_id }),
        };
        Ok(Some(Prepared { job, row, scrap, login_error }))
    }

    /// Records the end of a claimed run that went direct (`tier0`):
    /// outcome, duration, metering, balance.
    /// The scrap's site login, as it is now, is masked in what is stored.
    pub async fn finish(&self, claim: &ClaimedRun, row: HistoryRow, report: EngineReport) -> Result<StatusDetail> {
        let attempts = [TierAttempt { tier: 0, bytes: report.bytes }];
        let secrets = match run_login(&*self.store, claim.organization_id, claim.scrap_id).await? {
            Ok(login) => KnownSecrets::of(login.account.as_ref()),
            Err(_) => KnownSecrets::default(),
        };
        let scrapper = match self.store.scrap(claim.organization_id, claim.scrap_id).await? {
            Some(scrap) => scrap.scrapper,
            None => DEFAULT_SCRAPPER.to_string(),
        };
        self.finish_attempts(claim, row, report, &attempts, None, &secrets, &scrapper).await
    }

    /// Runs a claimed run on `engine` on the tiers its scrap's `proxyTier`
    /// calls for (escalating within the run when auto and blocked), then
    /// records it. `None` when the scrap or row is gone.
    pub async fn execute(&self, claim: &ClaimedRun, engine: &dyn Engine) -> Result<Option<StatusDetail>> {
        let Some(Prepared { mut job, row, scrap, login_error }) = self.prepare(claim).await? else { return Ok(None) };
        if let Some(message) = login_error {
            let report = EngineReport {
                result: ScriptResult::Failed { message },
                duration_ms: 0,
                bytes: 0,
                snapshot: None,
                status: None,
                html: None,
                session: None,
            };
            let no_secrets = KnownSecrets::default();
            return self.finish_attempts(claim, row, report, &[], None, &no_secrets, &job.scrapper).await.map(Some);
        }
        // What the run hands back is masked with the login it ran with.
        let secrets = KnownSecrets::of(job.account.as_ref());
        // The static engine has no proxy tiers (yet): its runs go direct.
        let fixed = match job.scrapper.as_str() {
            STATIC_SCRAPPER => Some(0),
            _ => scrap.proxy_tier.as_deref().and_then(proxy_tiers::parse_tier),
        };
        let host = proxy_tiers::memory_key(&scrap.url);
        let remembered = match (fixed, &host) {
            (None, Some(host)) => self
                .store
                .tier_memory(claim.organization_id, host)
                .await?
                .map(|m| proxy_tiers::Remembered { tier: m.tier, runs: m.runs }),
            _ => None,
        };
        let mode = proxy_tiers::mode(fixed, remembered, &self.tiers);
        let mut tier = mode.start();
        if !self.tiers.is_configured(tier) {
            let message = format!("proxy tier {} is not configured on this server", proxy_tiers::tier_name(tier));
            let report = EngineReport {
                result: ScriptResult::Failed { message },
                duration_ms: 0,
                bytes: 0,
                snapshot: None,
                status: None,
                html: None,
                session: None,
            };
            let note = TierNote { tier, remember: None, at: Utc::now(), engine: None };
            return self.finish_attempts(claim, row, report, &[], Some(&note), &secrets, &job.scrapper).await.map(Some);
        }
        let auto = matches!(mode, TierMode::Auto { .. });
        // Telling a blocked page needs the page (one with items is not blocked).
        if auto {
            job.capture_page = job.capture_page.max(PageCapture::UnlessItems);
        }
        let mut attempts = Vec::new();
        // `scrapper: "auto"`: static first when it is worth a try.
        let mut auto_engine = None;
        if job.scrapper == AUTO_SCRAPPER {
            job.scrapper = DEFAULT_SCRAPPER.to_string();
            let fingerprint = engine_choice::fingerprint(&scrap.url, &scrap.request);
            let plan = self.engine_plan(claim, &fingerprint).await?;
            let mut static_report = None;
            if plan.static_first && tier == 0 {
                let static_job = RunJob { scrapper: STATIC_SCRAPPER.to_string(), tier: 0, ..job.clone() };
                let report = engine.run(static_job).await;
                attempts.push(TierAttempt { tier: 0, bytes: report.bytes });
                if engine_choice::static_found_items(&report.result) && !plan.compare {
                    let remember = if auto && !looks_blocked(&report) { host } else { None };
                    let note = TierNote { tier: 0, remember, at: Utc::now(), engine: None };
                    return self
                        .finish_attempts(claim, row, report, &attempts, Some(&note), &secrets, STATIC_SCRAPPER)
                        .await
                        .map(Some);
                }
                static_report = Some(report);
            }
            auto_engine = Some((fingerprint, plan, static_report));
        }
        let mut report = loop {
            job.tier = tier;
            let report = engine.run(job.clone()).await;
            attempts.push(TierAttempt { tier, bytes: report.bytes });
            if auto
                && looks_blocked(&report)
                && let Some(up) = self.tiers.next_up(tier)
            {
                tracing::debug!(history = %claim.history_id, from = tier, to = up, "blocked; escalating");
                tier = up;
                continue;
            }
            break report;
        };
        let mut used = job.scrapper.clone();
        let mut learned = None;
        let mut announce = None;
        if let Some((fingerprint, plan, Some(static_report))) = auto_engine {
            // Both engines ran: keep what the comparison chose.
            if let Some((chosen, why)) = engine_choice::compare(&static_report.result, &report.result) {
                learned = engine_choice::remember(Some(chosen), &fingerprint, Utc::now());
                if Some(chosen) != plan.remembered {
                    announce = Some((plan, (chosen, why)));
                }
                if chosen == engine_choice::Choice::Static {
                    (report, tier, used) = (static_report, 0, STATIC_SCRAPPER.to_string());
                }
            }
        }
        let remember = if auto && !looks_blocked(&report) { host } else { None };
        let note = TierNote { tier, remember, at: Utc::now(), engine: learned };
        let detail = self.finish_attempts(claim, row, report, &attempts, Some(&note), &secrets, &used).await?;
        if let Some((plan, choice)) = announce {
            self.announce_engine(claim, plan, choice).await;
        }
        Ok(Some(detail))
    }

    /// What an `auto` scrap's run does, from its memory: a run that finds
    /// a comparison due takes it, unless another run took it first.
    async fn engine_plan(&self, claim: &ClaimedRun, fingerprint: &str) -> Result<engine_choice::Plan> {
        let (org, scrap) = (claim.organization_id, claim.scrap_id);
        let memory = self.store.engine_memory(org, scrap).await?;
        let now = Utc::now();
        let plan = engine_choice::plan(memory.as_ref(), fingerprint, now);
        if plan.compare && plan.remembered.is_some() {
            let due = engine_choice::due_before(now);
            if !self.store.claim_engine_check(org, scrap, fingerprint, due, now).await? {
                return Ok(plan.without_check());
            }
        }
        Ok(plan)
    }

    /// Says in the activity log that an `auto` scrap's engine changed. A
    /// failure is logged: the run and the choice are recorded.
    async fn announce_engine(
        &self,
        claim: &ClaimedRun,
        plan: engine_choice::Plan,
        (choice, why): (engine_choice::Choice, String),
    ) {
        let was = plan.remembered.map(|c| format!(" (was {})", c.id())).unwrap_or_default();
        let message = format!("Automatic engine: {}{was}: {why}", choice.id());
        let mut log = activity(claim.organization_id, claim.scrap_id, "engine.chosen", "system".into(), message);
        log.history_id = Some(claim.history_id);
        if let Err(e) = self.store.log_activity(&log).await {
            tracing::warn!(history = %claim.history_id, "could not log the engine choice: {e}");
        }
    }

    /// Records the end of a claimed run whose page loads were `attempts`.
    /// `secrets` (the run's site login) are masked in everything kept of
    /// the run: its data, error and failure capture, and the page AI Fix
    /// reads. A `success` that handed back its browser session saves it
    /// for the scrap's next run, right after the run is recorded. A recorded
    /// run is counted for `GET /metrics` under `scrapper`, the engine it ran on.
    #[allow(clippy::too_many_arguments)]
    async fn finish_attempts(
        &self,
        claim: &ClaimedRun,
        mut row: HistoryRow,
        mut report: EngineReport,
        attempts: &[TierAttempt],
        tier: Option<&TierNote>,
        secrets: &KnownSecrets,
        scrapper: &str,
    ) -> Result<StatusDetail> {
        // What AI Fix reads of the page (captured for autoFix scraps only).
        let (page_status, page_html) = (report.status, report.html.take().map(|html| secrets.text(&html)));
        let session = report.session.take();
        // Read once for the digest and the emails (gone: neither), beside
        // the previous success: both on the path of whoever waits for the row.
        let (previous, scrap) = tokio::try_join!(
            self.store.last_success(claim.organization_id, claim.scrap_id),
            self.store.scrap(claim.organization_id, claim.scrap_id),
        )?;
        let detail = classify(&report.result, previous.as_ref().map(|r| r.length));
        match report.result {
            ScriptResult::Data { json, length } => {
                row.data = secrets.data(&json);
                row.length = length;
                row.error = None;
            }
            ScriptResult::Failed { message } => {
                row.data = "[]".into();
                row.length = 0;
                // Masked before the cut, which could leave a value's start.
                row.error = Some(short_error(&secrets.text(&message)));
            }
        }
        row.status_detail = Some(detail);
        row.time_ms = Some(report.duration_ms);
        row.costs = Some(proxy_tiers::costs(attempts, &self.tiers));
        row.meter = Some(proxy_tiers::meter(attempts, &self.tiers));
        row.proxy_tier = proxy_tiers::tier_name(tier.map_or(0, |t| t.tier));
        row.error_snapshot =
            if detail == StatusDetail::Error { report.snapshot.map(|capture| secrets.snapshot(capture)) } else { None };
        row.retries = claim.attempts - 1;
        row.finished_at = Some(Utc::now());
        let summary = match &row.error {
            Some(e) => format!("{} ({})", detail.as_str(), short_error(e).chars().take(200).collect::<String>()),
            None => format!("{} ({} items)", detail.as_str(), row.length),
        };
        let ai_units = match &scrap {
            Some(scrap) => self.add_digest(claim, scrap, &mut row, detail, previous.as_ref()).await?,
            None => 0,
        };
        let log = finished_activity(claim, &row, &summary);
        let emails = match &scrap {
            Some(scrap) => self.emails_for(scrap, &row, detail).await?,
            None => vec![],
        };
        let charged = proxy_tiers::run_units(attempts, &self.tiers) + ai_units;
        let recorded = self.record_finished(claim, &row, charged, &log, &emails, tier).await?;
        if recorded {
            let duration = Duration::from_millis(u64::try_from(report.duration_ms).unwrap_or(0));
            self.metrics.run_finished(scrapper, detail, duration);
        }
        if recorded
            && detail == StatusDetail::Success
            && let Some(state) = session
        {
            self.save_session(claim, &row, state).await;
        }
        if recorded && let Some(scrap) = &scrap {
            let queued = crate::ai_fix::after_run(
                &*self.store,
                &self.attached,
                self.fix_daily,
                scrap,
                &row,
                detail,
                (page_status, page_html.as_deref()),
                claim.param.as_ref(),
            )
            .await?;
            if queued {
                self.signals.tasks.notify_one();
            }
        }
        Ok(detail)
    }

    /// Saves the browser session a successful run handed back, sealed, for
    /// the scrap's next run (only while the scrap still has its login). A
    /// failure is logged: the run is recorded, the next one logs in again.
    async fn save_session(&self, claim: &ClaimedRun, row: &HistoryRow, state: SessionState) {
        let saved = SavedSession { state, saved_at: Utc::now(), history_id: Some(row.id) };
        match self.store.save_site_session(claim.organization_id, claim.scrap_id, &saved).await {
            Ok(true) => {}
            Ok(false) => tracing::debug!(history = %row.id, "session not saved: the scrap or its login is gone"),
            Err(e) => tracing::warn!(history = %row.id, "could not save the run's browser session: {e}"),
        }
    }

    /// Whether a model is attached (`SVC_AI_BASE_URL`).
    pub fn ai_enabled(&self) -> bool {
        self.attached.model().is_some()
    }

    /// Gives digests (and the other AI features) a model; a second one is ignored.
    pub fn attach_ai(&self, model: Arc<dyn AiModel>, pricing: AiPricing) {
        self.attached.set_model(model, pricing);
    }

    async fn log_for_run(&self, claim: &ClaimedRun, row: &HistoryRow, kind: &str, message: String) -> Result<()> {
        let mut log = activity(claim.organization_id, claim.scrap_id, kind, "system".into(), message);
        log.history_id = Some(row.id);
        Ok(self.store.log_activity(&log).await?)
    }

    /// The digest of a run that returned data, when the scrap asks for one:
    /// the changes since the previous success (computed) and the model's
    /// summary, on the row with its cost. Returns the compute units the
    /// model call takes. A missing provider or a failed call leaves the
    /// row as it is and says why in the activity log.
    async fn add_digest(
        &self,
        claim: &ClaimedRun,
        scrap: &Scrap,
        row: &mut HistoryRow,
        detail: StatusDetail,
        previous: Option<&HistoryRow>,
    ) -> Result<i64> {
        if row.length == 0 || detail == StatusDetail::Error {
            return Ok(0);
        }
        if !scrap.digest_enabled {
            return Ok(0);
        }
        let Some(AttachedModel { model, pricing }) = self.attached.model() else {
            let why = "Digest skipped: no AI provider is configured (SVC_AI_BASE_URL)".to_string();
            self.log_for_run(claim, row, "digest.skipped", why).await?;
            return Ok(0);
        };
        let changes = digest::changes_markdown(previous.map(|p| p.data.as_str()), &row.data);
        let chat = digest::prompt(&scrap.title, scrap.digest_prompt.as_deref(), &changes, &row.data);
        let completion = match model.complete(&chat).await {
            Ok(c) => c,
            Err(e) => {
                self.log_for_run(claim, row, "digest.failed", format!("Digest failed: {e}")).await?;
                return Ok(0);
            }
        };
        let ai_units = digest::units(&completion);
        let cost = pricing.cost(&completion);
        if let Some(serde_json::Value::Object(c)) = row.costs.as_mut() {
            let total = c.get("total").and_then(|t| t.as_f64()).unwrap_or(0.0);
            c.insert("ai".into(), serde_json::json!(cost));
            c.insert("total".into(), serde_json::json!(total + cost));
            c.insert("provider".into(), serde_json::json!(pricing.provider));
            c.insert("model".into(), serde_json::json!(pricing.model));
        }
        if let Some(serde_json::Value::Object(m)) = row.meter.as_mut() {
            let units = m.get("units").and_then(|u| u.as_i64()).unwrap_or(0);
            m.insert("units".into(), serde_json::json!(units + ai_units));
            if let Some(serde_json::Value::Object(b)) = m.get_mut("breakdown") {
                b.insert("ai".into(), serde_json::json!(ai_units));
            }
        }
        match digest::digest_text(&changes, &completion) {
            Some(text) => row.digest = Some(text),
            None => {
                let why = "Digest failed: the model's answer held no text".to_string();
                self.log_for_run(claim, row, "digest.failed", why).await?;
            }
        }
        Ok(ai_units)
    }

    /// Writes a finished row with its webhook deliveries (the outbox) in one
    /// transaction, then wakes whoever waits on it.
    async fn record_finished(
        &self,
        claim: &ClaimedRun,
        row: &HistoryRow,
        units: i64,
        log: &Activity,
        emails: &[Email],
        tier: Option<&TierNote>,
    ) -> Result<bool> {
        let deliveries = self.deliveries_for(row).await?;
        if self.store.finish_run(claim, row, units, log, &deliveries, emails, tier).await? {
            let _ = self.signals.finished.send(row.id);
            if !deliveries.is_empty() {
                self.signals.deliveries.notify_one();
            }
            if !emails.is_empty() {
                self.signals.emails.notify_one();
            }
            Ok(true)
        } else {
            tracing::warn!(history = %row.id, "run finished after its lease was lost; result dropped");
            Ok(false)
        }
    }

    /// The emails a finished run causes (none while email is off): the
    /// result email of a cron run that succeeded or regressed when
    /// `emailNotif` is on, and with `alert` set, the alert when a run fails
    /// after a success and the all-clear when one succeeds after failures
    /// that followed a success (docs/decisions.md, Email).
    async fn emails_for(&self, scrap: &Scrap, row: &HistoryRow, detail: StatusDetail) -> Result<Vec<Email>> {
        if !self.email.enabled {
            return Ok(vec![]);
        }
        let wants_result = scrap.email_notif
            && row.triggered_by == TriggeredBy::Cron
            && matches!(detail, StatusDetail::Success | StatusDetail::Regression);
        let digest_to = scrap.digest_recipient.as_ref().filter(|_| row.digest.is_some());
        if !wants_result && scrap.alert.is_none() && digest_to.is_none() {
            return Ok(vec![]);
        }
        let now = Utc::now();
        let url = &self.email.public_url;
        let mut emails = Vec::new();
        if wants_result {
            let to = match &scrap.email_notif_recipient {
                Some(to) => Some(to.clone()),
                None => self.store.user(scrap.organization_id, scrap.user_id).await?.map(|u| u.email),
            };
            if let Some(to) = to {
                emails.push(email_compose::result_email(scrap, row, &to, url, now));
            }
        }
        if let (Some(to), Some(text)) = (digest_to, &row.digest) {
            emails.push(email_compose::digest_email(scrap, row, text, to, url, now));
        }
        if let Some(to) = &scrap.alert {
            let streak = self.store.run_streak(row.organization_id, scrap.id, row.id).await?;
            let failed = |d: Option<StatusDetail>| d.is_some_and(|d| d != StatusDetail::Success);
            if detail != StatusDetail::Success && streak.last == Some(StatusDetail::Success) {
                emails.push(email_compose::alert_email(scrap, row, to, url, now));
            } else if detail == StatusDetail::Success && failed(streak.last) && streak.ever_succeeded {
                emails.push(email_compose::recovered_email(scrap, row, streak.failures_since_success, to, url, now));
            }
        }
        Ok(emails)
    }

    async fn deliveries_for(&self, row: &HistoryRow) -> Result<Vec<Delivery>> {
        run_deliveries(&*self.store, row).await
    }

    /// Requeues runs whose worker stopped answering, or finishes them as
    /// `error` once they were tried `MAX_ATTEMPTS` times.
    pub async fn reap_lost_runs(&self) -> Result<ExpiredLeases> {
        let expired = self.store.expire_leases(Utc::now(), MAX_ATTEMPTS).await?;
        for claim in &expired.lost {
            let Some(mut row) = self.store.history_row(claim.organization_id, claim.history_id).await? else {
                continue;
            };
            row.status_detail = Some(StatusDetail::Error);
            row.data = "[]".into();
            row.length = 0;
            row.error = Some(LOST_WORKER.into());
            row.retries = claim.attempts - 1;
            row.finished_at = Some(Utc::now());
            let log = finished_activity(claim, &row, &format!("error ({LOST_WORKER})"));
            // Nothing ran to completion: nothing is charged.
            let scrap = self.store.scrap(claim.organization_id, claim.scrap_id).await?;
            let emails = match &scrap {
                Some(scrap) if self.email.enabled => self.emails_for(scrap, &row, StatusDetail::Error).await?,
                _ => vec![],
            };
            if self.record_finished(claim, &row, 0, &log, &emails, None).await? {
                let scrapper = scrap.as_ref().map_or(DEFAULT_SCRAPPER, |s| s.scrapper.as_str());
                self.metrics.run_lost(scrapper);
            }
        }
        if !expired.requeued.is_empty() {
            self.signals.queued.notify_waiters();
        }
        Ok(expired)
    }

    /// Gives a claimed run back to the queue for any worker, its attempt not
    /// counted (a worker stopping before the run ends, or unable to record
    /// it); false when the claim was already lost.
    pub async fn release(&self, claim: &ClaimedRun) -> Result<bool> {
        let released = self.store.release_run(claim).await?;
        if released {
            self.signals.queued.notify_waiters();
        }
        Ok(released)
    }

    /// Claims the oldest queued run for `container`.
    pub async fn claim(&self, container: &str, worker_id: &str) -> Result<Option<ClaimedRun>> {
        let lease = chrono::Duration::from_std(self.run_timeout + Duration::from_secs(30))
            .unwrap_or(chrono::Duration::minutes(2));
        Ok(self.store.claim_run(container, worker_id, Utc::now() + lease).await?)
    }
}

/// Whether a run's page kept the browser out (`fix_policy::diagnose`): only
/// a run without items can be.
fn looks_blocked(report: &EngineReport) -> bool {
    let error = match &report.result {
        ScriptResult::Data { length, .. } if *length > 0 => return false,
        ScriptResult::Data { .. } => None,
        ScriptResult::Failed { message } => Some(message.as_str()),
    };
    let html = report.html.as_deref().or_else(|| report.snapshot.as_ref().and_then(|s| s["html"].as_str()));
    matches!(fix_policy::diagnose(report.status, html, error), Diagnosis::Blocked(_))
}

/// One delivery per active webhook that wants the event of a finished run.
pub(crate) async fn run_deliveries(store: &dyn Store, row: &HistoryRow) -> Result<Vec<Delivery>> {
    let Some(scrap) = row.scrap_id else { return Ok(vec![]) };
    let (event, payload) = stored_payload(row);
    let hooks = store.active_webhooks(row.organization_id).await?;
    let now = Utc::now();
    Ok(hooks
        .into_iter()
        .filter(|h| h.wants(event, scrap))
        .map(|h| Delivery {
            id: ObjectId::new(),
            organization_id: row.organization_id,
            webhook_id: h.id,
            event,
            history_id: row.id,
            scrap_id: scrap,
            payload: payload.clone(),
            attempts: 0,
            created_at: now,
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::sync::Mutex;

    use async_trait::async_trait;
    use svc_domain::site_account::SiteAccount;
    use svc_storage::HistoryFilter;

    use super::*;
    use crate::run_outcome::{BYTES_PER_UNIT, EngineReport};
    use crate::testing::TestServices;

    /// An engine that answers every job with one report and keeps the jobs.
    struct Scripted {
        report: EngineReport,
        jobs: Mutex<Vec<RunJob>>,
    }

    #[async_trait]
    impl Engine for Scripted {
        async fn run(&self, job: RunJob) -> EngineReport {
            self.jobs.lock().unwrap().push(job);
            self.report.clone()
        }
    }

    #[tokio::test]
    async fn progress_follows_a_run_from_the_queue_to_its_row() {
        let t = TestServices::start().await;
        let ada = t.signup("ada@example.com").await;
        let eve = t.signup("eve@example.com").await;
        let scrap = t.scrap(&ada, "Watched").await;
        let me = Principal::Session(ada.session.clone());
        let row = t.services.runs.trigger(&me, Trigger::Worker, scrap, None).await.unwrap();
        assert_eq!(t.services.runs.progress(&me, row.id).await.unwrap(), RunProgress::Queued);
        let stranger = Principal::Session(eve.session.clone());
        assert!(matches!(t.services.runs.progress(&stranger, row.id).await, Err(ServiceError::NotFound(_))));
        let claim = t.services.runs.claim("default", "w-1").await.unwrap().unwrap();
        assert_eq!(t.services.runs.progress(&me, row.id).await.unwrap(), RunProgress::Running);
        let (_, pending) = t.services.runs.job(&claim).await.unwrap().unwrap();
        let report = EngineReport {
            result: ScriptResult::Data { json: "[1]".into(), length: 1 },
            duration_ms: 5,
            bytes: 10,
            snapshot: None,
            status: None,
            html: None,
            session: None,
        };
        t.services.runs.finish(&claim, pending, report).await.unwrap();
        match t.services.runs.progress(&me, row.id).await.unwrap() {
            RunProgress::Finished(view) => assert_eq!(view.row.length, 1),
            other => panic!("expected the finished row, got {other:?}"),
        }
    }

    /// A run carries its scrap's engine; a static scrap's runs go direct
    /// (no proxy tiers), and a proxy tier other than tier0 is refused for it.
    #[tokio::test]
    async fn a_run_names_its_scraps_engine_and_static_runs_go_direct() {
        let t = TestServices::start().await;
        let ada = t.signup("ada@example.com").await;
        let me = Principal::Session(ada.session.clone());
        let scrap = t.scrap(&ada, "Static").await;
        let to = |scrapper: &str, tier: Option<&str>| crate::scrap_input::ScrapChanges {
            scrapper: Some(scrapper.into()),
            proxy_tier: Some(tier.map(str::to_string)),
            ..Default::default()
        };
        let refused = t.services.scraps.update(&ada.session, scrap, to("static", Some("tier2"))).await;
        assert!(
            matches!(refused, Err(ServiceError::Validation { ref field, .. }) if field == "proxyTier"),
            "{refused:?}"
        );
        t.services.scraps.update(&ada.session, scrap, to("static", Some("tier0"))).await.unwrap();

        let report = EngineReport {
            result: ScriptResult::Data { json: "[1]".into(), length: 1 },
            duration_ms: 5,
            bytes: 10,
            snapshot: None,
            status: Some(200),
            html: None,
            session: None,
        };
        let engine = Scripted { report, jobs: Mutex::default() };
        t.services.runs.trigger(&me, Trigger::Worker, scrap, None).await.unwrap();
        let claim = t.services.runs.claim("default", "w-1").await.unwrap().unwrap();
        assert_eq!(t.services.runs.execute(&claim, &engine).await.unwrap(), Some(StatusDetail::Success));
        t.services.scraps.update(&ada.session, scrap, to("puppeteer", None)).await.unwrap();
        t.services.runs.trigger(&me, Trigger::Worker, scrap, None).await.unwrap();
        let claim = t.services.runs.claim("default", "w-1").await.unwrap().unwrap();
        t.services.runs.execute(&claim, &engine).await.unwrap();
        let jobs = engine.jobs.lock().unwrap().clone();
        let seen: Vec<(&str, u8)> = jobs.iter().map(|j| (j.scrapper.as_str(), j.tier)).collect();
        assert_eq!(seen, [("static", 0), ("puppeteer", 0)]);
    }

    /// Answers each engine with its own scripted data (a JSON array).
    struct TwoEngines {
        answers: Mutex<HashMap<String, String>>,
        jobs: Mutex<Vec<RunJob>>,
    }

    impl TwoEngines {
        fn new(static_data: &str, browser_data: &str) -> Self {
            let engines = TwoEngines { answers: Mutex::default(), jobs: Mutex::default() };
            engines.answer(static_data, browser_data);
            engines
        }

        fn answer(&self, static_data: &str, browser_data: &str) {
            let mut answers = self.answers.lock().unwrap();
            answers.insert("static".into(), static_data.into());
            answers.insert("puppeteer".into(), browser_data.into());
        }

        /// The engines the jobs since the last call went to.
        fn seen(&self) -> Vec<String> {
            self.jobs.lock().unwrap().drain(..).map(|j| j.scrapper).collect()
        }
    }

    #[async_trait]
    impl Engine for TwoEngines {
        async fn run(&self, job: RunJob) -> EngineReport {
            let json = self.answers.lock().unwrap()[&job.scrapper].clone();
            self.jobs.lock().unwrap().push(job.clone());
            let length = serde_json::from_str::<Vec<serde_json::Value>>(&json).unwrap().len() as i64;
            let bytes = if job.scrapper == "static" { 1_000 } else { 3_000 };
            EngineReport {
                result: ScriptResult::Data { json, length },
                duration_ms: 5,
                bytes,
                snapshot: None,
                status: Some(200),
                html: None,
                session: None,
            }
        }
    }

    /// `auto` compares both engines on the first run, then runs static
    /// alone while it finds items; falls back to (and then stays on) the
    /// browser when static finds nothing; compares again once an hour has
    /// passed (one run of those due at once) and for a new script; says so
    /// in the activity log; meters every engine it ran.
    #[tokio::test]
    async fn auto_learns_which_engine_a_scrap_needs() {
        let t = TestServices::start().await;
        let ada = t.signup("ada@example.com").await;
        let me = Principal::Session(ada.session.clone());
        let scrap = t.scrap(&ada, "Auto").await;
        let runs = &t.services.runs;
        let set = |changes: crate::scrap_input::ScrapChanges| async {
            t.services.scraps.update(&ada.session, scrap, changes).await
        };
        let refused = set(crate::scrap_input::ScrapChanges {
            scrapper: Some("auto".into()),
            proxy_tier: Some(Some("tier1".into())),
            ..Default::default()
        })
        .await;
        assert!(
            matches!(refused, Err(ServiceError::Validation { ref field, .. }) if field == "proxyTier"),
            "{refused:?}"
        );
        set(crate::scrap_input::ScrapChanges { scrapper: Some("auto".into()), ..Default::default() }).await.unwrap();

        let engines = TwoEngines::new(r#"[{"t":"a"},{"t":"b"}]"#, r#"[{"t":"A"},{"t":"B"}]"#);
        let run = || async {
            let row = runs.trigger(&me, Trigger::Worker, scrap, None).await.unwrap();
            let claim = runs.claim("default", "w-1").await.unwrap().unwrap();
            runs.execute(&claim, &engines).await.unwrap();
            t.store.history_row(ada.session.org(), row.id).await.unwrap().unwrap()
        };
        let memory = || async { t.store.engine_memory(ada.session.org(), scrap).await.unwrap() };
        let chosen = || async {
            let log = t.store.list_activities(ada.session.org(), scrap, 0, 100).await.unwrap();
            log.items.into_iter().filter(|a| a.kind == "engine.chosen").map(|a| a.message).collect::<Vec<_>>()
        };

        // 1: both run; the same items (same fields) → static, and its data is kept.
        let row = run().await;
        assert_eq!(engines.seen(), ["static", "puppeteer"]);
        assert_eq!(row.data, r#"[{"t":"a"},{"t":"b"}]"#);
        assert_eq!(row.meter.as_ref().unwrap()["units"], serde_json::json!(2), "both page loads are metered");
        let first = memory().await.unwrap();
        assert_eq!(first.engine, "static");
        assert_eq!(chosen().await, ["Automatic engine: static: static found the same 2 items as the browser"]);

        // 2: static alone, and nothing written.
        let row = run().await;
        assert_eq!(engines.seen(), ["static"]);
        assert_eq!((row.data.as_str(), row.proxy_tier.as_str()), (r#"[{"t":"a"},{"t":"b"}]"#, "tier0"));
        assert_eq!(memory().await, Some(first));

        // 3: the page now builds its list in the browser: static finds nothing → the browser's data.
        engines.answer("[]", r#"[{"t":"A"},{"t":"B"},{"t":"C"}]"#);
        let row = run().await;
        assert_eq!(engines.seen(), ["static", "puppeteer"]);
        assert_eq!((row.length, row.status_detail), (3, Some(StatusDetail::Success)));
        let fell_back = memory().await.unwrap();
        assert_eq!(fell_back.engine, "puppeteer");
        assert_eq!(
            chosen().await[0],
            "Automatic engine: puppeteer (was static): the browser found 3 items and static found nothing"
        );

        // 4..: the browser alone within the hour.
        engines.answer(r#"[{"t":"a"},{"t":"b"},{"t":"c"}]"#, r#"[{"t":"A"},{"t":"B"},{"t":"C"}]"#);
        for _ in 0..3 {
            run().await;
            assert_eq!(engines.seen(), ["puppeteer"]);
        }
        // An hour later (the memory says it was checked an hour ago): the next run compares.
        let an_hour_ago =
            svc_storage::EngineMemory { checked_at: Utc::now() - engine_choice::CHECK_PERIOD, ..fell_back };
        t.store.set_engine_memory(ada.session.org(), scrap, &an_hour_ago).await.unwrap();
        run().await;
        assert_eq!(engines.seen(), ["static", "puppeteer"], "the first run after an hour compares");
        let checked = memory().await.unwrap();
        assert_eq!(checked.engine, "static");
        assert!(checked.checked_at > an_hour_ago.checked_at, "{checked:?}");
        assert_eq!(chosen().await.len(), 3);
        run().await;
        assert_eq!(engines.seen(), ["static"], "then static alone for the hour");

        // A new script is decided afresh.
        set(crate::scrap_input::ScrapChanges {
            request: Some("returnData([{ t: document.title }])".into()),
            ..Default::default()
        })
        .await
        .unwrap();
        run().await;
        assert_eq!(engines.seen(), ["static", "puppeteer"]);
        let log = chosen().await;
        assert_eq!(log.len(), 4, "a new script's choice is announced: {log:?}");
        assert_eq!(log[0], "Automatic engine: static: static found the same 3 items as the browser");

        // Deleting the scrap forgets its engine.
        t.services.scraps.delete(&ada.session, scrap).await.unwrap();
        assert_eq!(memory().await, None);
    }

    fn draft(url: &str, script: &str) -> TestRun {
        TestRun { url: url.into(), script: script.into(), params: vec![], param: None, scrap: None, scrapper: None }
    }

    fn field_of(result: Result<TestRunOutcome>) -> String {
        match result {
            Err(ServiceError::Validation { field, .. }) => field,
            other => panic!("expected a validation error, got {other:?}"),
        }
    }

    #[tokio::test]
    async fn a_test_run_checks_its_draft_like_a_scrap() {
        let t = TestServices::start().await;
        let ada = t.signup("ada@example.com").await;
        let runs = &t.services.runs;
        let ok = "https://example.com/";
        for (url, script, field) in [
            ("", "returnData([])", "url"),
            ("ftp://example.com/", "returnData([])", "url"),
            ("example.com", "returnData([])", "url"),
            (ok, "  \n", "request"),
            (ok, "// svc:load videos\nreturnData([])", "request"),
        ] {
            assert_eq!(field_of(runs.test_run(&ada.session, draft(url, script)).await), field, "{url} {script:?}");
        }
        let params = vec![ParamSet { key: "fr".into(), value: serde_json::json!({"lang": "fr"}) }];
        let unknown = TestRun { params: params.clone(), param: Some("de".into()), ..draft(ok, "returnData([])") };
        assert_eq!(field_of(runs.test_run(&ada.session, unknown).await), "param");
        let twice = TestRun { params: [params.clone(), params].concat(), ..draft(ok, "returnData([])") };
        assert_eq!(field_of(runs.test_run(&ada.session, twice).await), "params");
        let unknown_engine = TestRun { scrapper: Some("selenium".into()), ..draft(ok, "returnData([])") };
        assert_eq!(field_of(runs.test_run(&ada.session, unknown_engine).await), "scrapper");

        match runs.test_run(&ada.session, draft(ok, "returnData([])")).await {
            Err(ServiceError::Unavailable(message)) => assert_eq!(message, NO_ENGINE_HERE),
            other => panic!("expected no browser, got {other:?}"),
        }
    }

    #[tokio::test]
    async fn a_test_run_runs_the_draft_charges_and_stores_nothing() {
        let t = TestServices::start().await;
        let ada = t.signup("ada@example.com").await;
        let runs = &t.services.runs;
        let report = EngineReport {
            result: ScriptResult::Data { json: "[1,2]".into(), length: 2 },
            duration_ms: 42,
            bytes: BYTES_PER_UNIT * 2,
            snapshot: Some(serde_json::json!({"html": "<p></p>", "selector": "#x", "screenshot": "iVBOR"})),
            status: None,
            html: None,
            session: None,
        };
        let engine = Arc::new(Scripted { report: report.clone(), jobs: Mutex::default() });
        runs.attach_engine(engine.clone());
        // A second engine is ignored.
        let other = Arc::new(Scripted { report: report.clone(), jobs: Mutex::default() });
        runs.attach_engine(other.clone());

        let params = vec![
            ParamSet { key: "fr".into(), value: serde_json::json!({"lang": "fr"}) },
            ParamSet { key: "de".into(), value: serde_json::json!({"lang": "de"}) },
        ];
        let script = "// svc:load images\nreturnData([1, 2])";
        let run = TestRun {
            url: " https://example.com/items ".into(),
            script: script.into(),
            params: params.clone(),
            param: Some("de".into()),
            scrap: None,
            scrapper: Some("static".into()),
        };
        let outcome = runs.test_run(&ada.session, run).await.unwrap();
        assert_eq!(
            outcome,
            TestRunOutcome {
                result: report.result.clone(),
                duration_ms: 42,
                snapshot: Some(serde_json::json!({"selector": "#x", "screenshot": "iVBOR"})),
                units: 3
            },
            "the author sees the screenshot and selector; the page markup is for platform admins"
        );
        let jobs = engine.jobs.lock().unwrap().clone();
        assert_eq!(jobs.len(), 1);
        assert!(other.jobs.lock().unwrap().is_empty());
        let job = &jobs[0];
        assert_eq!((job.url.as_str(), job.script.as_str()), ("https://example.com/items", script));
        assert_eq!((job.param.clone(), job.params.clone()), (Some(params[1].clone()), params));
        assert_eq!((job.triggered_by, job.timeout), ("user", runs.run_timeout()));
        assert_eq!((&job.account, &job.session), (&None, &None), "a draft of no scrap runs logged out");
        assert!(job.loads.images && !job.loads.fonts);
        assert_eq!(job.scrapper, "static", "on the engine the editor names");
        assert!(ObjectId::parse(&job.history_id).is_some());

        let org = t.store.organization(ada.session.org()).await.unwrap().unwrap();
        assert_eq!(org.balance, 1000 - 3, "charged as a run of that many bytes");
        let filter = HistoryFilter { limit: 10, ..HistoryFilter::default() };
        assert_eq!(t.store.list_history(ada.session.org(), &filter).await.unwrap().total, 0, "no history row");

        // A platform admin sees the whole failure capture.
        t.store.set_admin(ada.session.org(), ada.session.user(), true).await.unwrap();
        let admin = t.services.auth.session(&ada.token).await.unwrap();
        let outcome = runs.test_run(&admin, draft("https://example.com/", "returnData([])")).await.unwrap();
        assert_eq!(outcome.snapshot, report.snapshot);

        // No balance left: refused before any browser work.
        t.store.add_balance(ada.session.org(), -org.balance).await.unwrap();
        let refused = runs.test_run(&ada.session, draft("https://example.com/", "returnData([])")).await;
        assert!(matches!(refused, Err(ServiceError::InsufficientBalance)), "{refused:?}");
        assert_eq!(engine.jobs.lock().unwrap().len(), 2);
    }

    #[tokio::test]
    async fn test_runs_are_limited_per_user() {
        let t = TestServices::start().await;
        let ada = t.signup("ada@example.com").await;
        let bob = t.signup("bob@example.com").await;
        let report = EngineReport {
            result: ScriptResult::Failed { message: "boom".into() },
            duration_ms: 1,
            bytes: 0,
            snapshot: None,
            status: None,
            html: None,
            session: None,
        };
        t.services.runs.attach_engine(Arc::new(Scripted { report, jobs: Mutex::default() }));
        let run = || draft("https://example.com/", "returnData([])");
        for _ in 0..TRIGGER_PER_KEY.limit {
            t.services.runs.test_run(&ada.session, run()).await.unwrap();
        }
        let refused = t.services.runs.test_run(&ada.session, run()).await;
        assert!(matches!(refused, Err(ServiceError::RateLimited(_))), "{refused:?}");
        let balance = t.store.organization(ada.session.org()).await.unwrap().unwrap().balance;
        assert_eq!(balance, 1000 - TRIGGER_PER_KEY.limit as i64, "the refused one is not charged");
        assert!(t.services.runs.test_run(&bob.session, run()).await.is_ok(), "another user has their own bucket");
    }

    /// An engine that answers jobs with the given reports, in order, and keeps the jobs.
    struct Sequence {
        reports: Mutex<Vec<EngineReport>>,
        jobs: Mutex<Vec<RunJob>>,
    }

    #[async_trait]
    impl Engine for Sequence {
        async fn run(&self, job: RunJob) -> EngineReport {
            self.jobs.lock().unwrap().push(job);
            self.reports.lock().unwrap().remove(0)
        }
    }

    fn report(result: ScriptResult, snapshot: Option<serde_json::Value>, session: Option<&str>) -> EngineReport {
        EngineReport {
            result,
            duration_ms: 5,
            bytes: 10,
            snapshot,
            status: Some(200),
            html: None,
            session: session.map(SessionState::new),
        }
    }

    #[tokio::test]
    async fn runs_log_in_keep_their_session_and_store_no_secret() {
        let t = TestServices::start().await;
        let ada = t.signup("ada@example.com").await;
        let scrap = t.scrap(&ada, "Members").await;
        let (username, password) = ("ada.lovelace", "Hunter2-Secret");
        t.services.site_accounts.set_account(&ada.session, scrap, username.into(), password.into()).await.unwrap();
        let me = Principal::Session(ada.session.clone());
        let leaky = format!(r#"[{{"user":"{username}","note":"pw {password}"}}]"#);
        let capture = serde_json::json!({
            "html": format!("<input value=\"{username}\"><input value=\"{password}\">"),
            "selector": "#members",
            "screenshot": "iVBOR",
        });
        let engine = Sequence {
            reports: Mutex::new(vec![
                report(ScriptResult::Data { json: leaky, length: 1 }, None, Some(r#"{"v":1,"cookies":[]}"#)),
                report(ScriptResult::Data { json: "[1]".into(), length: 1 }, None, Some(r#"{"v":1,"n":2}"#)),
                report(
                    ScriptResult::Failed { message: format!("the script threw: no entry for {username}/{password}") },
                    Some(capture),
                    Some(r#"{"v":1,"n":3}"#),
                ),
                report(ScriptResult::Data { json: "[]".into(), length: 0 }, None, Some(r#"{"v":1,"n":4}"#)),
            ]),
            jobs: Mutex::default(),
        };
        let mut rows = Vec::new();
        for _ in 0..4 {
            let row = t.services.runs.trigger(&me, Trigger::Worker, scrap, None).await.unwrap();
            let claim = t.services.runs.claim("default", "w-1").await.unwrap().unwrap();
            t.services.runs.execute(&claim, &engine).await.unwrap();
            rows.push(t.store.history_row(ada.session.org(), row.id).await.unwrap().unwrap());
        }
        let jobs = engine.jobs.lock().unwrap().clone();
        let login = SiteAccount { username: username.into(), password: password.into() };
        assert!(jobs.iter().all(|j| j.account.as_ref() == Some(&login)), "every run gets the login");
        assert_eq!(jobs[0].session, None, "no session before the first success");
        assert_eq!(jobs[1].session, Some(SessionState::new(r#"{"v":1,"cookies":[]}"#)));
        assert_eq!(jobs[2].session, Some(SessionState::new(r#"{"v":1,"n":2}"#)), "the newest success's");
        assert_eq!(jobs[3].session, jobs[2].session, "an error keeps the session saved before it");

        // Nothing stored holds the login.
        assert_eq!(rows[0].data, r#"[{"user":"***","note":"pw ***"}]"#);
        assert_eq!(rows[2].error.as_deref(), Some("the script threw: no entry for ***/***"));
        let snapshot = rows[2].error_snapshot.clone().unwrap();
        assert_eq!(snapshot["html"], r#"<input value="***"><input value="***">"#);
        assert_eq!(snapshot["screenshot"], "iVBOR");
        for row in &rows {
            let all = format!("{} {:?} {:?}", row.data, row.error, row.error_snapshot);
            assert!(!all.contains(password) && !all.contains(username), "{all}");
        }
        let saved = t.store.site_session(ada.session.org(), scrap).await.unwrap().unwrap();
        assert_eq!(saved.state, SessionState::new(r#"{"v":1,"n":2}"#), "empty and error runs save nothing");
        assert_eq!(saved.history_id, Some(rows[1].id));

        // No login: `SVC.account` is null and nothing is restored.
        t.services.site_accounts.delete_account(&ada.session, scrap).await.unwrap();
        t.services.runs.trigger(&me, Trigger::Worker, scrap, None).await.unwrap();
        let claim = t.services.runs.claim("default", "w-1").await.unwrap().unwrap();
        let (job, _) = t.services.runs.job(&claim).await.unwrap().unwrap();
        assert_eq!((job.account, job.session), (None, None));
        t.services
            .runs
            .finish(&claim, job_row(&t, &claim).await, report(ScriptResult::Failed { message: "x".into() }, None, None))
            .await
            .unwrap();

        // A login sealed with another master key fails the run, saying so, without a browser.
        let stranger = svc_storage::connect(t.db_url(), svc_storage::Sealer::new(svc_storage::MasterKey::generate()))
            .await
            .unwrap();
        let log = activity(ada.session.org(), scrap, "account.set", "system".into(), "elsewhere".into());
        assert!(stranger.set_site_account(ada.session.org(), scrap, &login, Utc::now(), false, &log).await.unwrap());
        let row = t.services.runs.trigger(&me, Trigger::Worker, scrap, None).await.unwrap();
        let claim = t.services.runs.claim("default", "w-1").await.unwrap().unwrap();
        let before = engine.jobs.lock().unwrap().len();
        t.services.runs.execute(&claim, &engine).await.unwrap();
        assert_eq!(engine.jobs.lock().unwrap().len(), before, "no browser work");
        let row = t.store.history_row(ada.session.org(), row.id).await.unwrap().unwrap();
        assert_eq!(row.status_detail, Some(StatusDetail::Error));
        let error = row.error.unwrap();
        assert!(
            error.starts_with("the scrap's site login cannot be opened") && error.ends_with("set it again"),
            "{error}"
        );
        let status = t.services.site_accounts.account_status(&me, scrap).await.unwrap();
        assert!(status.has_account && status.username_hint.is_none(), "{status:?}");
        stranger.close().await;
    }

    #[tokio::test]
    async fn a_test_run_of_a_saved_scrap_signs_in_with_its_login_and_masks_it() {
        let t = TestServices::start().await;
        let ada = t.signup("ada@example.com").await;
        let eve = t.signup("eve@example.com").await;
        let scrap = t.scrap(&ada, "Members").await;
        t.services.site_accounts.set_account(&ada.session, scrap, "ada.l".into(), "pw-secret".into()).await.unwrap();
        let saved = SavedSession { state: SessionState::new("{}"), saved_at: Utc::now(), history_id: None };
        t.store.save_site_session(ada.session.org(), scrap, &saved).await.unwrap();
        let report = report(
            ScriptResult::Failed { message: "the script threw: ada.l / pw-secret".into() },
            Some(serde_json::json!({"html": "<b>pw-secret</b>", "selector": null, "screenshot": null})),
            Some(r#"{"v":1,"new":true}"#),
        );
        let engine = Arc::new(Scripted { report, jobs: Mutex::default() });
        t.services.runs.attach_engine(engine.clone());
        let draft = TestRun { scrap: Some(scrap), ..draft("https://example.com/", "returnData([])") };
        let outcome = t.services.runs.test_run(&ada.session, draft.clone()).await.unwrap();
        assert_eq!(outcome.result, ScriptResult::Failed { message: "the script threw: *** / ***".into() });
        let job = engine.jobs.lock().unwrap()[0].clone();
        assert_eq!(job.account.map(|a| a.password).as_deref(), Some("pw-secret"));
        assert_eq!(job.session, Some(SessionState::new("{}")));
        assert_eq!(
            t.store.site_session(ada.session.org(), scrap).await.unwrap().unwrap().state,
            SessionState::new("{}"),
            "a test run saves no session"
        );
        // Platform admins see the page markup: masked too.
        t.store.set_admin(ada.session.org(), ada.session.user(), true).await.unwrap();
        let admin = t.services.auth.session(&ada.token).await.unwrap();
        let outcome = t.services.runs.test_run(&admin, draft.clone()).await.unwrap();
        assert_eq!(outcome.snapshot.unwrap()["html"], "<b>***</b>");
        // Another organization's scrap: not found, nothing run.
        let refused = t.services.runs.test_run(&eve.session, draft).await;
        assert!(matches!(refused, Err(ServiceError::NotFound(_))), "{refused:?}");
        assert_eq!(engine.jobs.lock().unwrap().len(), 2);
    }

    async fn job_row(t: &TestServices, claim: &ClaimedRun) -> HistoryRow {
        t.store.history_row(claim.organization_id, claim.history_id).await.unwrap().unwrap()
    }
}
