//! Executing a claimed run: its job, the engine (or engines, for `auto`)
//! that runs it, and the session a run with a site login keeps.

use std::time::Instant;

use chrono::Utc;
use svc_domain::activity::Activity;
use svc_domain::history::{DIRECT_TIER, HistoryRow, StatusDetail};
use svc_domain::scrap::{AUTO_SCRAPPER, DEFAULT_SCRAPPER, STATIC_SCRAPPER};
use svc_domain::site_account::{SavedSession, SessionState};
pub use svc_storage::ClaimedRun;
use svc_storage::{RunScrap, TierNote};

use crate::Result;
use crate::ai::fix_policy::{self, Diagnosis};
use crate::outbox::redact::KnownSecrets;
use crate::runs::engine_choice;
use crate::scraps::proxy_tiers::{self, TierAttempt, TierMode};
use crate::scraps::site_accounts::{RunLogin, run_login};
use svc_engine::{Engine, PageCapture, ReuseKey, RunJob};
use svc_engine::{EngineReport, ScriptResult};

use super::finish::HowItRan;
use super::{RunService, crawl};

/// What a claimed run needs before it goes to an engine (`prepare`).
struct Prepared {
    job: RunJob,
    row: HistoryRow,
    /// The scrap, and what its read told besides.
    run: RunScrap,
    /// Why the scrap's site login cannot be used, when it is stored but cannot be opened.
    login_error: Option<String>,
}

/// The pending history row of a claimed run, as its trigger wrote it
/// (every queued run's row is `HistoryRow::pending` of its trigger, at the
/// time it was queued): rebuilt from the claim rather than read. `None`
/// when the row is gone.
fn pending_row(claim: &ClaimedRun) -> Option<HistoryRow> {
    let triggered_by = claim.triggered_by?;
    let mut row =
        HistoryRow::pending(claim.scrap_id, claim.organization_id, triggered_by, DIRECT_TIER, claim.enqueued_at);
    row.id = claim.history_id;
    // Each claim whose lease expired counted one retry; a released one did not.
    row.retries = claim.attempts - 1;
    Some(row)
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

impl RunService {
    /// What a worker needs to run a claimed run; `None` when the scrap is gone.
    /// The job carries the scrap's site login and saved session.
    pub async fn job(&self, claim: &ClaimedRun) -> Result<Option<(RunJob, HistoryRow)>> {
        Ok(self.prepare(claim).await?.map(|prepared| (prepared.job, prepared.row)))
    }

    /// The job, pending row and scrap of a claimed run, and why its login
    /// cannot be used when it is stored but cannot be opened. One read on
    /// the run's path (`RunScrap`: the scrap, whether it has a login, whether
    /// its script awaits approval); the login only when there is one; the
    /// pending row is the claim's (`pending_row`).
    /// A run of a script AI Fix wrote that waits for approval is confined.
    async fn prepare(&self, claim: &ClaimedRun) -> Result<Option<Prepared>> {
        let (org, scrap_id) = (claim.organization_id, claim.scrap_id);
        // No trigger: the history row is gone (with its scrap).
        let Some(row) = pending_row(claim) else { return Ok(None) };
        // What the trigger read, when this process's worker claimed it at once.
        let handed = self.handover.take(claim.history_id, org, scrap_id);
        let run = match handed {
            Some(run) => run,
            None => match self.store.run_scrap(org, scrap_id).await? {
                Some(run) => run,
                None => return Ok(None),
            },
        };
        let scrap = &run.scrap;
        let loads = svc_engine::directives::loads_for_run(&scrap.request);
        let login = if run.has_login { run_login(&*self.store, org, scrap_id).await? } else { Ok(RunLogin::default()) };
        let (login, login_error) = match login {
            Ok(login) => (login, None),
            Err(why) => (RunLogin::default(), Some(why)),
        };
        // A script AI Fix wrote that no one has approved yet is the model's
        // code: it reaches the scrap's own site and nothing else
        // (`ai::fix_review`), on a page of its own.
        let confined_to = if run.awaits_approval { svc_engine::Site::of_url(&scrap.url) } else { None };
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
            reuse: match confined_to {
                None => Some(ReuseKey { organization: claim.organization_id, scrap: claim.scrap_id }),
                Some(_) => None,
            },
            confined_to,
            organization: Some(claim.organization_id),
            page: crawl::start_page(&scrap.url, svc_engine::crawl::limits_for_run(&scrap.request)),
        };
        Ok(Some(Prepared { job, row, run, login_error }))
    }

    /// Runs a claimed run on `engine` on the tiers its scrap's `proxyTier`
    /// calls for (escalating within the run when auto and blocked), then
    /// records it. `None` when the scrap or row is gone.
    pub async fn execute(&self, claim: &ClaimedRun, engine: &dyn Engine) -> Result<Option<StatusDetail>> {
        let started = Instant::now();
        let Some(Prepared { mut job, row, run, login_error }) = self.prepare(claim).await? else { return Ok(None) };
        let scrap = &run.scrap;
        if let Some(message) = login_error {
            let report = EngineReport::not_run(message);
            let no_secrets = KnownSecrets::default();
            return self
                .finish_attempts(
                    claim,
                    row,
                    report,
                    HowItRan {
                        attempts: &[],
                        tier: None,
                        secrets: &no_secrets,
                        scrapper: &job.scrapper,
                        pages: &[],
                        scrap: Some(&run),
                    },
                )
                .await
                .map(Some);
        }
        // What the run hands back is masked with the login it ran with.
        let secrets = KnownSecrets::of(job.account.as_ref());
        // The static engine has no proxy tiers (yet): its runs go direct.
        let fixed = match job.scrapper.as_str() {
            STATIC_SCRAPPER => Some(0),
            _ => scrap.proxy_tier.as_deref().and_then(proxy_tiers::parse_tier),
        };
        // With nothing configured but `tier0`, a host's memory could only say
        // `tier0`, which is where a run without one starts: neither read nor
        // written (two statements per browser run).
        let host = proxy_tiers::memory_key(&scrap.url).filter(|_| !self.tiers.only_direct());
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
            let report = EngineReport::not_run(message);
            let note = TierNote { tier, remember: None, at: Utc::now(), engine: None };
            return self
                .finish_attempts(
                    claim,
                    row,
                    report,
                    HowItRan {
                        attempts: &[],
                        tier: Some(&note),
                        secrets: &secrets,
                        scrapper: &job.scrapper,
                        pages: &[],
                        scrap: Some(&run),
                    },
                )
                .await
                .map(Some);
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
                let report = engine.run(static_job.clone()).await;
                attempts.push(TierAttempt { tier: 0, bytes: report.bytes });
                if engine_choice::static_found_items(&report.result) && !plan.compare {
                    let remember = if auto && !looks_blocked(&report) { host } else { None };
                    let note = TierNote { tier: 0, remember, at: Utc::now(), engine: None };
                    let (report, pages) =
                        self.crawl_rest(claim, &static_job, engine, report, &mut attempts, started).await?;
                    return self
                        .finish_attempts(
                            claim,
                            row,
                            report,
                            HowItRan {
                                attempts: &attempts,
                                tier: Some(&note),
                                secrets: &secrets,
                                scrapper: STATIC_SCRAPPER,
                                pages: &pages,
                                scrap: Some(&run),
                            },
                        )
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
        let ran = RunJob { scrapper: used.clone(), tier, ..job };
        let (report, pages) = self.crawl_rest(claim, &ran, engine, report, &mut attempts, started).await?;
        let detail = self
            .finish_attempts(
                claim,
                row,
                report,
                HowItRan {
                    attempts: &attempts,
                    tier: Some(&note),
                    secrets: &secrets,
                    scrapper: &used,
                    pages: &pages,
                    scrap: Some(&run),
                },
            )
            .await?;
        if let Some((plan, choice)) = announce {
            self.announce_engine(claim, plan, choice).await;
        }
        Ok(Some(detail))
    }

    /// The rest of a crawl after its start page ran as `job` (`runs::crawl`):
    /// one report for the whole run and its pages, each page's load added
    /// to `attempts`. A run of one page comes back as it is.
    async fn crawl_rest(
        &self,
        claim: &ClaimedRun,
        job: &RunJob,
        engine: &dyn Engine,
        start: EngineReport,
        attempts: &mut Vec<TierAttempt>,
        started: Instant,
    ) -> Result<(EngineReport, Vec<crawl::PageRecord>)> {
        let limits = svc_engine::crawl::limits_for_run(&job.script);
        if !limits.is_crawl() {
            return Ok((start, vec![]));
        }
        let balance = self.store.organization(claim.organization_id).await?.map(|o| o.balance);
        let crawl = crawl::Crawl {
            engine,
            job,
            limits,
            started,
            settings: self.crawl,
            balance,
            spent: proxy_tiers::run_units(attempts, &self.tiers),
            tiers: &self.tiers,
            slots: self.attached.slots(),
        };
        let crawled = crawl.run(start).await;
        attempts.extend(crawled.attempts);
        Ok((crawled.report, crawled.pages))
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
        let mut log = Activity::new(claim.organization_id, claim.scrap_id, "engine.chosen", "system".into(), message);
        log.history_id = Some(claim.history_id);
        if let Err(e) = self.store.log_activity(&log).await {
            tracing::warn!(history = %claim.history_id, "could not log the engine choice: {e}");
        }
    }

    /// Saves the browser session a successful run handed back, sealed, for
    /// the scrap's next run (only while the scrap still has its login). A
    /// failure is logged: the run is recorded, the next one logs in again.
    pub(super) async fn save_session(&self, claim: &ClaimedRun, row: &HistoryRow, state: SessionState) {
        let saved = SavedSession { state, saved_at: Utc::now(), history_id: Some(row.id) };
        match self.store.save_site_session(claim.organization_id, claim.scrap_id, &saved).await {
            Ok(true) => {}
            Ok(false) => tracing::debug!(history = %row.id, "session not saved: the scrap or its login is gone"),
            Err(e) => tracing::warn!(history = %row.id, "could not save the run's browser session: {e}"),
        }
    }
}
