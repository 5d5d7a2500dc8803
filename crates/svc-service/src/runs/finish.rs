//! Finishing a run: judging and metering its outcome, the digest, the
//! activity, the emails and webhook deliveries it owes, all written in the
//! transaction that finishes its row.

use std::sync::Arc;
use std::time::Duration;

use chrono::Utc;
use svc_domain::activity::Activity;
use svc_domain::email::Email;
use svc_domain::history::{HistoryRow, StatusDetail, TriggeredBy};
use svc_domain::run_page::RunPage;
use svc_domain::scrap::{DEFAULT_SCRAPPER, Scrap};
use svc_domain::webhook::Delivery;
pub use svc_storage::ClaimedRun;
use svc_storage::{FinishedRun, RunScrap, TierNote};

use crate::Result;
use crate::ai::attachments::AttachedModel;
use crate::ai::digest;
use crate::outbox::deliveries::run_deliveries;
use crate::outbox::mailer::kind_word;
use crate::outbox::recipients::Reach;
use crate::outbox::redact::KnownSecrets;
use crate::outbox::{channel_compose, email_compose};
use crate::runs::outcome::classify;
use crate::schedule::signals::RunEnded;
use crate::scraps::proxy_tiers::{self, TierAttempt};
use crate::scraps::site_accounts::run_login;
use svc_domain::channel;
use svc_domain::history::short_error;
use svc_engine::{EngineReport, ScriptResult};

use super::RunService;
use super::crawl::PageRecord;
use crate::ai::fix::RecordedRun;

/// The `run.finished` entry of a claimed run's row: "Run finished: <summary>".
pub(super) fn finished_activity(claim: &ClaimedRun, row: &HistoryRow, summary: &str) -> Activity {
    let mut log = Activity::new(
        claim.organization_id,
        claim.scrap_id,
        "run.finished",
        "system".into(),
        format!("Run finished: {summary}"),
    );
    log.history_id = Some(row.id);
    log
}

/// How a run went, besides its report: its page loads (one per proxy tier
/// tried), the tier note to keep, the secrets to mask, and the engine it
/// ran on.
pub(super) struct HowItRan<'a> {
    pub attempts: &'a [TierAttempt],
    pub tier: Option<&'a TierNote>,
    pub secrets: &'a KnownSecrets,
    pub scrapper: &'a str,
    /// A crawl's pages, in the order of the run's data (none for a run of one page).
    pub pages: &'a [PageRecord],
    /// The scrap as the run read it when it started (`None`: gone), with
    /// what else that read told (`RunScrap`): its settings decide the
    /// digest, the emails and the webhook deliveries.
    pub scrap: Option<&'a RunScrap>,
}

/// What a finished run's transaction writes besides its row.
pub(super) struct Recording<'a> {
    /// Compute units charged.
    pub units: i64,
    pub log: &'a Activity,
    pub emails: &'a [Email],
    pub tier: Option<&'a TierNote>,
    /// Whether the organization had an active webhook when the run read its
    /// scrap: without one, no deliveries are looked up.
    pub webhooks: bool,
}

impl RunService {
    /// Records the end of a claimed run that went direct (`tier0`):
    /// outcome, duration, metering, balance.
    /// The scrap's site login, as it is now, is masked in what is stored.
    pub async fn finish(&self, claim: &ClaimedRun, row: HistoryRow, report: EngineReport) -> Result<StatusDetail> {
        let attempts = [TierAttempt { tier: 0, bytes: report.bytes }];
        let secrets = match run_login(&*self.store, claim.organization_id, claim.scrap_id).await? {
            Ok(login) => KnownSecrets::of(login.account.as_ref()),
            Err(_) => KnownSecrets::default(),
        };
        let run = self.store.run_scrap(claim.organization_id, claim.scrap_id).await?;
        let scrapper = run.as_ref().map_or(DEFAULT_SCRAPPER, |r| r.scrap.scrapper.as_str());
        self.finish_attempts(
            claim,
            row,
            report,
            HowItRan { attempts: &attempts, tier: None, secrets: &secrets, scrapper, pages: &[], scrap: run.as_ref() },
        )
        .await
    }

    /// Records the end of a claimed run whose page loads were `attempts`.
    /// `secrets` (the run's site login) are masked in everything kept of
    /// the run: its data, error and failure capture, and the page AI Fix
    /// reads. A `success` that handed back its browser session saves it
    /// for the scrap's next run, right after the run is recorded. A recorded
    /// run is counted for `GET /metrics` under `scrapper`, the engine it ran on.
    pub(super) async fn finish_attempts(
        &self,
        claim: &ClaimedRun,
        mut row: HistoryRow,
        mut report: EngineReport,
        how: HowItRan<'_>,
    ) -> Result<StatusDetail> {
        let HowItRan { attempts, tier, secrets, scrapper, pages, scrap: run } = how;
        let scrap = run.map(|r| &r.scrap);
        // What AI Fix reads of the page (captured for autoFix scraps only).
        let (page_status, page_html) = (report.status, report.html.take().map(|html| secrets.text(&html)));
        let session = report.session.take();
        // The run is judged against the newest success when it started (its
        // length came with the scrap's read); that success's data is read
        // only for a digest, which tells the changes since.
        let previous = match run {
            Some(r) if r.scrap.digest_enabled => self.store.last_success(claim.organization_id, claim.scrap_id).await?,
            _ => None,
        };
        let detail = classify(&report.result, run.and_then(|r| r.last_success_length));
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
        let ai_units = match scrap {
            Some(scrap) => self.add_digest(claim, scrap, &mut row, detail, previous.as_ref()).await?,
            None => 0,
        };
        let log = finished_activity(claim, &row, &summary);
        let emails = match scrap {
            Some(scrap) => self.emails_for(scrap, &row, detail).await?,
            None => vec![],
        };
        let charged = proxy_tiers::run_units(attempts, &self.tiers) + ai_units;
        // Before the row: whoever sees the run finished can read its pages.
        // (A claim lost meanwhile leaves them for the run that finishes it,
        // which replaces them.)
        if !pages.is_empty() {
            self.save_pages(claim, pages, secrets).await?;
        }
        let webhooks = run.is_none_or(|r| r.has_webhooks);
        let recorded = self
            .record_finished(claim, &row, Recording { units: charged, log: &log, emails: &emails, tier, webhooks })
            .await?;
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
        if recorded && let Some(scrap) = scrap {
            let run = RecordedRun {
                scrap,
                row: &row,
                detail,
                status: page_status,
                html: page_html.as_deref(),
                param: claim.param.as_ref(),
            };
            let queued = crate::ai::fix::after_run(&*self.store, &self.attached, self.fix_daily, run).await?;
            if queued {
                self.signals.tasks.notify_one();
            }
        }
        Ok(detail)
    }

    async fn log_for_run(&self, claim: &ClaimedRun, row: &HistoryRow, kind: &str, message: String) -> Result<()> {
        let mut log = Activity::new(claim.organization_id, claim.scrap_id, kind, "system".into(), message);
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
        if let Some(c) = row.costs.as_mut() {
            c.ai = cost;
            c.by_model(&pricing.provider, &pricing.model);
        }
        if let Some(m) = row.meter.as_mut() {
            m.breakdown.ai = Some(ai_units);
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
    /// Keeps a crawl's pages beside its recorded row, their errors masked
    /// like the row's.
    async fn save_pages(&self, claim: &ClaimedRun, pages: &[PageRecord], secrets: &KnownSecrets) -> Result<()> {
        let rows: Vec<RunPage> = pages
            .iter()
            .enumerate()
            .map(|(i, p)| RunPage {
                organization_id: claim.organization_id,
                scrap_id: claim.scrap_id,
                history_id: claim.history_id,
                position: i64::try_from(i).unwrap_or(i64::MAX),
                url: p.url.clone(),
                label: p.label.clone(),
                depth: i64::from(p.depth),
                status: p.status,
                items: p.items,
                duration_ms: p.duration_ms,
                error: p.error.as_deref().map(|e| short_error(&secrets.text(e))),
            })
            .collect();
        self.store.replace_run_pages(claim.organization_id, claim.history_id, &rows).await?;
        Ok(())
    }

    pub(super) async fn record_finished(
        &self,
        claim: &ClaimedRun,
        row: &HistoryRow,
        what: Recording<'_>,
    ) -> Result<bool> {
        let Recording { units, log, emails, tier, webhooks } = what;
        let deliveries = if webhooks { self.deliveries_for(row).await? } else { vec![] };
        let stored = self
            .store
            .finish_run(
                claim,
                &FinishedRun { deliveries: &deliveries, emails, tier, ..FinishedRun::new(row, units, log) },
            )
            .await?;
        if let Some(stored) = stored {
            let _ = self.signals.finished.send(RunEnded { id: row.id, row: Some(Arc::new(stored)) });
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
    pub(super) async fn emails_for(&self, scrap: &Scrap, row: &HistoryRow, detail: StatusDetail) -> Result<Vec<Email>> {
        // With email off, only chat channels are sent to.
        let reachable = |to: &String| self.email.enabled || channel::is_channel(to);
        let wants_result = scrap.email_notif
            && row.triggered_by == TriggeredBy::Cron
            && matches!(detail, StatusDetail::Success | StatusDetail::Regression);
        let digest_to = scrap.digest_recipient.as_ref().filter(|to| row.digest.is_some() && reachable(to));
        let alert_to = scrap.alert.as_ref().filter(|to| reachable(to));
        if !wants_result && alert_to.is_none() && digest_to.is_none() {
            return Ok(vec![]);
        }
        let now = Utc::now();
        let url = &self.email.public_url;
        let mut emails = Vec::new();
        if wants_result {
            let to = match &scrap.email_notif_recipient {
                Some(to) => Some(to.clone()),
                None if self.email.enabled => {
                    self.store.user(scrap.organization_id, scrap.user_id).await?.map(|u| u.email)
                }
                None => None,
            };
            match to.filter(reachable) {
                Some(to) if channel::is_channel(&to) => {
                    let previous = self.store.last_success(scrap.organization_id, scrap.id).await?;
                    let previous = previous.filter(|p| p.id != row.id).map(|p| p.data);
                    emails.push(channel_compose::result_note(scrap, row, previous.as_deref(), &to, url, now));
                }
                Some(to) => emails.push(email_compose::result_email(scrap, row, &to, url, now)),
                None => {}
            }
        }
        if let (Some(to), Some(text)) = (digest_to, &row.digest) {
            emails.push(email_compose::digest_email(scrap, row, text, to, url, now));
        }
        if let Some(to) = alert_to {
            let streak = self.store.run_streak(row.organization_id, scrap.id, row.id).await?;
            let failed = |d: Option<StatusDetail>| d.is_some_and(|d| d != StatusDetail::Success);
            if detail != StatusDetail::Success && streak.last == Some(StatusDetail::Success) {
                emails.push(if channel::is_channel(to) {
                    channel_compose::alert_note(scrap, row, to, url, now)
                } else {
                    email_compose::alert_email(scrap, row, to, url, now)
                });
            } else if detail == StatusDetail::Success && failed(streak.last) && streak.ever_succeeded {
                emails.push(email_compose::recovered_email(scrap, row, streak.failures_since_success, to, url, now));
            }
        }
        // Only to members' own addresses, confirmed ones and channels
        // (issue 37): the others are skipped, and the run's activity says why.
        let mut allowed = Vec::with_capacity(emails.len());
        for e in emails {
            match crate::outbox::recipients::reach(&*self.store, scrap.organization_id, &e.to).await? {
                Reach::Allowed => allowed.push(e),
                Reach::Unconfirmed => {
                    let message = format!(
                        "{} email to {} not sent: the address has not confirmed yet (waiting for confirmation)",
                        kind_word(e.kind),
                        e.to
                    );
                    let mut log =
                        Activity::new(scrap.organization_id, scrap.id, "email.skipped", "system".into(), message);
                    log.history_id = Some(row.id);
                    self.store.log_activity(&log).await?;
                }
            }
        }
        let mut emails = allowed;
        // A channel takes text only.
        for e in emails.iter_mut().filter(|e| channel::is_channel(&e.to)) {
            e.html = None;
            e.attachment = None;
        }
        Ok(emails)
    }

    async fn deliveries_for(&self, row: &HistoryRow) -> Result<Vec<Delivery>> {
        run_deliveries(&*self.store, row).await
    }
}
