//! The sender of the email outbox: claims due emails under a lease, hands
//! each to the `MailTransport`, records how it went (retrying transient
//! failures with backoff, up to [`MAX_ATTEMPTS`]) and logs scrap emails in
//! the scrap's activity log. `tick(now)` is one step; `run` is the loop,
//! which sends at most `rate` emails per second.

use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use svc_domain::ObjectId;
use svc_domain::activity::Activity;
use svc_domain::email::{EmailKind, EmailRecord};
use svc_storage::{EmailOutcome, Store};
use tokio::sync::Notify;

use crate::Result;
use crate::metrics::{EmailAttempt, Metrics};
use crate::outbox::channel_sender::ChannelSender;
use crate::outbox::mail_transport::{MailError, MailTransport};
use svc_domain::channel;

/// Attempts per email: the first and four retries.
pub const MAX_ATTEMPTS: i64 = 5;
/// Waits after the 1st, 2nd, 3rd and 4th failed attempt.
pub const RETRY_DELAYS: [Duration; 4] =
    [Duration::from_secs(60), Duration::from_secs(300), Duration::from_secs(900), Duration::from_secs(3600)];

/// When the attempt after `made` failed attempts is due, or `None` when
/// the email is out of attempts.
pub fn retry_at(made: i64, failed_at: DateTime<Utc>) -> Option<DateTime<Utc>> {
    if made >= MAX_ATTEMPTS {
        return None;
    }
    let delay = RETRY_DELAYS.get(usize::try_from(made).ok()?.checked_sub(1)?)?;
    Some(failed_at + chrono::Duration::from_std(*delay).ok()?)
}

/// How one attempt ended, for callers of [`Mailer::tick`].
#[derive(Clone, Debug, PartialEq)]
pub struct MailSent {
    pub email: ObjectId,
    pub outcome: EmailOutcome,
}

pub struct Mailer {
    store: Arc<dyn Store>,
    transport: Arc<dyn MailTransport>,
    /// Emails per second.
    rate: u32,
    /// How long a claim holds an email (longer than an attempt can take).
    lease: Duration,
    /// Woken when emails are queued in this process.
    queued: Arc<Notify>,
    /// Counts attempts by outcome (`svc_email_attempts_total`).
    metrics: Arc<Metrics>,
    /// Sends the rows whose recipient is a chat channel.
    channels: Option<Arc<ChannelSender>>,
}

impl Mailer {
    /// `timeout` is the transport's per-attempt limit: a claim lasts longer.
    pub fn new(
        store: Arc<dyn Store>,
        transport: Arc<dyn MailTransport>,
        rate: u32,
        timeout: Duration,
        queued: Arc<Notify>,
    ) -> Self {
        let lease = timeout * 2 + Duration::from_secs(30);
        Mailer { store, transport, rate: rate.max(1), lease, queued, metrics: Arc::default(), channels: None }
    }

    /// Counts this mailer's attempts in `metrics` (the services' own, for
    /// `GET /metrics`) rather than in a registry of its own.
    pub fn counted_in(mut self, metrics: Arc<Metrics>) -> Self {
        self.metrics = metrics;
        self
    }

    /// Sends rows addressed to a chat channel through `sender`.
    pub fn with_channels(mut self, sender: Arc<ChannelSender>) -> Self {
        self.channels = Some(sender);
        self
    }

    /// One step: sends up to one second's worth (`rate`) of the emails due at
    /// `now`, one after another, and records each.
    pub async fn tick(&self, now: DateTime<Utc>) -> Result<Vec<MailSent>> {
        let lease = now + chrono::Duration::from_std(self.lease).unwrap_or(chrono::Duration::minutes(2));
        let claimed = self.store.claim_emails(now, lease, i64::from(self.rate)).await?;
        let mut sent = Vec::with_capacity(claimed.len());
        for record in claimed {
            if let Some(done) = self.send(record).await? {
                sent.push(done);
            }
        }
        Ok(sent)
    }

    async fn send(&self, record: EmailRecord) -> Result<Option<MailSent>> {
        let made = record.attempts;
        let email = &record.email;
        let to_channel = channel::is_channel(&email.to);
        let result = match (&self.channels, to_channel) {
            (_, false) => self.transport.send(email).await,
            (Some(channels), true) => channels.send(email).await,
            (None, true) => Err(MailError::Permanent("this process sends no chat messages".into())),
        };
        let shown = channel::shown(&email.to);
        let (sent_kind, failed_kind) =
            if to_channel { ("channel.sent", "channel.failed") } else { ("email.sent", "email.failed") };
        let noun = if to_channel { "message" } else { "email" };
        let now = Utc::now();
        let outcome = match result {
            Ok(()) => EmailOutcome::Sent { at: now },
            Err(MailError::Transient(error)) => match retry_at(made + 1, now) {
                Some(next) => EmailOutcome::Retry { error, next },
                None => EmailOutcome::Failed { error: format!("gave up after {MAX_ATTEMPTS} attempts: {error}") },
            },
            Err(MailError::Permanent(error)) => EmailOutcome::Failed { error },
        };
        let log = match (&outcome, email.scrap_id) {
            (EmailOutcome::Sent { .. }, Some(scrap)) => Some(Activity::new(
                email.organization_id,
                scrap,
                sent_kind,
                "system".into(),
                format!("{} {noun} sent to {shown}", kind_word(email.kind)),
            )),
            (EmailOutcome::Failed { error }, Some(scrap)) => Some(Activity::new(
                email.organization_id,
                scrap,
                failed_kind,
                "system".into(),
                format!("{} {noun} to {shown} failed: {}", kind_word(email.kind), short(error)),
            )),
            _ => None,
        };
        let log = log.map(|mut l| {
            l.history_id = email.history_id;
            l
        });
        if let EmailOutcome::Retry { error, next } = &outcome {
            tracing::warn!(email = %email.id, attempt = made + 1, %next, error, "email not sent; will retry");
        }
        if let EmailOutcome::Failed { error } = &outcome {
            tracing::warn!(email = %email.id, attempt = made + 1, error, "email failed for good");
        }
        if self.store.record_email(email.id, made, &outcome, log.as_ref()).await? {
            self.metrics.email_attempted(match outcome {
                EmailOutcome::Sent { .. } => EmailAttempt::Sent,
                EmailOutcome::Retry { .. } => EmailAttempt::Retry,
                EmailOutcome::Failed { .. } => EmailAttempt::Failed,
            });
            Ok(Some(MailSent { email: email.id, outcome }))
        } else {
            tracing::warn!(email = %email.id, "email attempt recorded after its lease was lost");
            Ok(None)
        }
    }

    /// Sends emails as they come due, at most `rate` per second, until
    /// `shutdown` resolves.
    pub async fn run(self: Arc<Self>, shutdown: impl Future<Output = ()>) {
        let mut shutdown = std::pin::pin!(shutdown);
        let mut backoff = crate::schedule::backoff::Backoff::default();
        loop {
            let started = tokio::time::Instant::now();
            let (sent, idle) = match self.tick(Utc::now()).await {
                Ok(sent) => {
                    if backoff.succeeded() > 0 {
                        tracing::info!("email sender: the database answers again");
                    }
                    (sent.len(), Duration::from_secs(5))
                }
                Err(e) => {
                    let delay = backoff.failed();
                    tracing::error!(error = %e, failures = backoff.failures(), retry_in_ms = delay.as_millis() as u64, "sending queued email failed");
                    (0, delay)
                }
            };
            let full = sent >= self.rate as usize;
            tokio::select! {
                // A full second's worth went out: the next batch after that second.
                _ = tokio::time::sleep_until(started + Duration::from_secs(1)), if full => {}
                _ = tokio::time::sleep(idle), if !full => {}
                _ = self.queued.notified(), if !full => {}
                _ = &mut shutdown => return,
            }
        }
    }
}

/// How an email of `kind` is named in the activity log.
pub(crate) fn kind_word(kind: EmailKind) -> &'static str {
    match kind {
        EmailKind::Result => "Result",
        EmailKind::Alert => "Alert",
        EmailKind::Recovered => "Recovery",
        EmailKind::Digest => "Digest",
        EmailKind::Announcement => "Announcement",
        EmailKind::FixProposed => "AI Fix proposal",
        EmailKind::Invite => "Invitation",
        EmailKind::Confirmation => "Recipient confirmation",
    }
}

fn short(text: &str) -> String {
    let mut out: String = text.chars().take(300).collect();
    if out.len() < text.len() {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use async_trait::async_trait;
    use svc_domain::email::{Email, EmailState};
    use svc_domain::history::{HistoryRow, TriggeredBy};
    use svc_domain::scrap::Scrap;

    use super::*;
    use crate::scraps::input::ScrapChanges;
    use crate::testing::{TestServices, TestUser};
    use svc_engine::{EngineReport, ScriptResult};

    /// A transport that answers from a script (then succeeds) and keeps what it was given.
    #[derive(Default)]
    struct Scripted {
        answers: Mutex<Vec<MailError>>,
        sent: Mutex<Vec<Email>>,
    }

    #[async_trait]
    impl MailTransport for Scripted {
        async fn send(&self, email: &Email) -> std::result::Result<(), MailError> {
            let mut answers = self.answers.lock().unwrap();
            if !answers.is_empty() {
                return Err(answers.remove(0));
            }
            self.sent.lock().unwrap().push(email.clone());
            Ok(())
        }
    }

    fn mailer(t: &TestServices, transport: Arc<Scripted>) -> Mailer {
        Mailer::new(t.store.clone(), transport, 100, Duration::from_secs(5), Arc::new(Notify::new()))
    }

    async fn scrap_with(t: &TestServices, user: &TestUser, changes: ScrapChanges) -> Scrap {
        let changes = ScrapChanges {
            title: Some("Prices".into()),
            url: Some("https://example.com/".into()),
            request: Some("returnData([])".into()),
            ..changes
        };
        t.services.scraps.create(&user.session, changes).await.unwrap()
    }

    /// Runs `scrap` as `trigger` to the outcome `data` / `failure`, as a worker would.
    async fn finish(t: &TestServices, scrap: &Scrap, trigger: TriggeredBy, result: ScriptResult) -> HistoryRow {
        let row = HistoryRow::pending(scrap.id, scrap.organization_id, trigger, "tier0", Utc::now());
        let log = Activity::new(scrap.organization_id, scrap.id, "run.triggered", "t".into(), "t".into());
        t.store.enqueue_run(&row, &scrap.containers, None, &log).await.unwrap();
        let claim = t.services.runs.claim("default", "w", &[]).await.unwrap().unwrap();
        let (_, pending) = t.services.runs.job(&claim).await.unwrap().unwrap();
        let report = EngineReport {
            result,
            duration_ms: 10,
            bytes: 10,
            snapshot: None,
            status: None,
            html: None,
            session: None,
            enqueued: vec![],
        };
        t.services.runs.finish(&claim, pending, report).await.unwrap();
        t.store.history_row(scrap.organization_id, row.id).await.unwrap().unwrap()
    }

    fn data(n: usize) -> ScriptResult {
        let items: Vec<String> = (0..n).map(|i| format!("{{\"n\":{i}}}")).collect();
        ScriptResult::Data { json: format!("[{}]", items.join(",")), length: n as i64 }
    }

    fn failure() -> ScriptResult {
        ScriptResult::Failed { message: "no .price on the page".into() }
    }

    #[tokio::test]
    async fn transient_failures_are_retried_permanent_ones_are_not_and_both_are_logged() {
        let t = TestServices::start_with_email().await;
        let ada = t.signup("ada@example.com").await;
        let changes = ScrapChanges { email_notif: Some(true), ..ScrapChanges::default() };
        let scrap = scrap_with(&t, &ada, changes).await;
        let row = finish(&t, &scrap, TriggeredBy::Cron, data(3)).await;
        let transport = Arc::new(Scripted::default());
        transport.answers.lock().unwrap().push(MailError::Transient("421 try later".into()));
        let mailer = mailer(&t, transport.clone());

        let first = mailer.tick(Utc::now()).await.unwrap();
        assert!(matches!(&first[0].outcome, EmailOutcome::Retry { error, .. } if error == "421 try later"));
        assert!(mailer.tick(Utc::now()).await.unwrap().is_empty(), "not before its retry is due");
        let later = Utc::now() + chrono::Duration::minutes(2);
        let second = mailer.tick(later).await.unwrap();
        assert!(matches!(second[0].outcome, EmailOutcome::Sent { .. }));
        let sent = transport.sent.lock().unwrap().clone();
        assert_eq!(sent.len(), 1);
        assert_eq!((sent[0].to.as_str(), sent[0].subject.as_str()), ("ada@example.com", "Prices: 3 items"));
        assert_eq!(sent[0].history_id, Some(row.id));
        let log = t.store.list_activities(scrap.organization_id, scrap.id, 0, 20).await.unwrap();
        assert!(log.items.iter().any(|a| a.kind == "email.sent" && a.message.contains("ada@example.com")));

        // A 5xx is final, and said in the activity log.
        finish(&t, &scrap, TriggeredBy::Cron, data(3)).await;
        transport.answers.lock().unwrap().push(MailError::Permanent("550 mailbox unknown".into()));
        let refused = mailer.tick(later).await.unwrap();
        assert!(matches!(&refused[0].outcome, EmailOutcome::Failed { error } if error.contains("550")));
        let log = t.store.list_activities(scrap.organization_id, scrap.id, 0, 20).await.unwrap();
        assert!(log.items.iter().any(|a| a.kind == "email.failed" && a.message.contains("550 mailbox unknown")));
        let emails = t.store.scrap_emails(scrap.organization_id, scrap.id, 10).await.unwrap();
        let states: Vec<EmailState> = emails.iter().map(|e| e.state).collect();
        assert_eq!(states, [EmailState::Failed, EmailState::Sent]);
    }

    /// `email` confirms as a recipient of `org`, as its link would.
    async fn confirmed(t: &TestServices, org: svc_domain::OrgId, email: &str) {
        let now = Utc::now();
        let hash = format!("test-{org}-{email}");
        let mail = Email::plain(
            org,
            svc_domain::email::EmailKind::Confirmation,
            email,
            "Confirm".into(),
            "Confirm".into(),
            now,
        );
        let link = svc_storage::ConfirmationLink { token_hash: &hash, mail: &mail };
        t.store.ask_recipient(org, email, Some(&link), now, now).await.unwrap();
        t.store.confirm_recipient(&hash, now).await.unwrap().expect("the address");
    }

    #[tokio::test]
    async fn an_email_gives_up_after_five_attempts() {
        let t = TestServices::start_with_email().await;
        let ada = t.signup("ada@example.com").await;
        let changes = ScrapChanges { email_notif: Some(true), ..ScrapChanges::default() };
        let scrap = scrap_with(&t, &ada, changes).await;
        finish(&t, &scrap, TriggeredBy::Cron, data(1)).await;
        let transport = Arc::new(Scripted::default());
        *transport.answers.lock().unwrap() =
            (0..5).map(|_| MailError::Transient("connection refused".into())).collect();
        let mailer = mailer(&t, transport.clone());
        let mut at = Utc::now();
        let mut outcomes = Vec::new();
        for _ in 0..6 {
            outcomes.extend(mailer.tick(at).await.unwrap());
            at += chrono::Duration::hours(2);
        }
        assert_eq!(outcomes.len(), 5, "five attempts, no sixth");
        assert!(matches!(&outcomes[4].outcome, EmailOutcome::Failed { error } if error.contains("after 5 attempts")));
        assert!(transport.sent.lock().unwrap().is_empty());
    }

    #[tokio::test]
    async fn result_emails_follow_cron_runs_that_returned_data_only() {
        let t = TestServices::start_with_email().await;
        let ada = t.signup("ada@example.com").await;
        let changes = ScrapChanges {
            email_notif: Some(true),
            email_notif_recipient: Some(Some("team@example.com".into())),
            ..ScrapChanges::default()
        };
        let scrap = scrap_with(&t, &ada, changes).await;
        // Until team@ confirms (issue 37), nothing goes to it, and the run's activity says why.
        finish(&t, &scrap, TriggeredBy::Cron, data(1)).await;
        assert!(t.store.scrap_emails(scrap.organization_id, scrap.id, 10).await.unwrap().is_empty());
        let log = t.store.list_activities(scrap.organization_id, scrap.id, 0, 20).await.unwrap();
        assert!(log.items.iter().any(|a| a.kind == "email.skipped" && a.message.contains("team@example.com")));
        confirmed(&t, scrap.organization_id, "team@example.com").await;
        finish(&t, &scrap, TriggeredBy::User, data(2)).await;
        finish(&t, &scrap, TriggeredBy::Cron, failure()).await;
        finish(&t, &scrap, TriggeredBy::Cron, data(0)).await;
        let row = finish(&t, &scrap, TriggeredBy::Cron, data(4)).await;
        let queued = t.store.scrap_emails(scrap.organization_id, scrap.id, 10).await.unwrap();
        assert_eq!(queued.len(), 1, "a run now, an error and an empty cron run send nothing");
        assert_eq!((queued[0].email.to.as_str(), queued[0].email.history_id), ("team@example.com", Some(row.id)));

        // Email off: nothing is queued.
        let off = TestServices::start().await;
        let bob = off.signup("bob@example.com").await;
        let changes = ScrapChanges {
            email_notif: Some(true),
            alert: Some(Some("ops@example.com".into())),
            ..ScrapChanges::default()
        };
        let quiet = scrap_with(&off, &bob, changes).await;
        finish(&off, &quiet, TriggeredBy::Cron, data(2)).await;
        finish(&off, &quiet, TriggeredBy::Cron, failure()).await;
        assert!(off.store.scrap_emails(quiet.organization_id, quiet.id, 10).await.unwrap().is_empty());
    }

    #[tokio::test]
    async fn alerts_on_the_first_failure_after_a_success_and_on_recovery_only() {
        let t = TestServices::start_with_email().await;
        let ada = t.signup("ada@example.com").await;
        let changes = ScrapChanges { alert: Some(Some("ops@example.com".into())), ..ScrapChanges::default() };
        let scrap = scrap_with(&t, &ada, changes).await;
        confirmed(&t, scrap.organization_id, "ops@example.com").await;
        let kinds = |t: &TestServices| {
            let store = t.store.clone();
            let (org, id) = (scrap.organization_id, scrap.id);
            async move {
                let mut all = store.scrap_emails(org, id, 50).await.unwrap();
                all.reverse();
                all.into_iter().map(|r| r.email.kind).collect::<Vec<_>>()
            }
        };
        finish(&t, &scrap, TriggeredBy::Api, failure()).await;
        assert!(kinds(&t).await.is_empty(), "failing from the start: nothing had succeeded");
        finish(&t, &scrap, TriggeredBy::Api, data(5)).await;
        assert!(kinds(&t).await.is_empty(), "no all-clear without an alert before");
        finish(&t, &scrap, TriggeredBy::User, failure()).await;
        assert_eq!(kinds(&t).await, [EmailKind::Alert]);
        finish(&t, &scrap, TriggeredBy::Cron, data(0)).await;
        assert_eq!(kinds(&t).await, [EmailKind::Alert], "not one per failed run");
        finish(&t, &scrap, TriggeredBy::Cron, data(5)).await;
        assert_eq!(kinds(&t).await, [EmailKind::Alert, EmailKind::Recovered]);
        let emails = t.store.scrap_emails(scrap.organization_id, scrap.id, 50).await.unwrap();
        assert!(emails[0].email.text.contains("after 2 runs that did not"), "{}", emails[0].email.text);
        assert!(emails[1].email.text.contains("no .price on the page"));
        finish(&t, &scrap, TriggeredBy::Cron, data(5)).await;
        assert_eq!(kinds(&t).await.len(), 2, "success after success: nothing");
    }

    #[test]
    fn retries_back_off_then_stop_at_five_attempts() {
        let t = Utc::now();
        assert_eq!(retry_at(1, t), Some(t + chrono::Duration::seconds(60)));
        assert_eq!(retry_at(2, t), Some(t + chrono::Duration::seconds(300)));
        assert_eq!(retry_at(4, t), Some(t + chrono::Duration::seconds(3600)));
        assert_eq!(retry_at(5, t), None);
        assert_eq!(retry_at(0, t), None);
    }
}
