//! What svc counts for its operator (`GET /metrics`, docs/operations.md).
//!
//! Two kinds of figures live in one registry per process:
//!
//! - counters and a histogram of what this process did, incremented where
//!   it happens: runs finished (by engine and outcome) and their duration,
//!   webhook and email attempts (by outcome), rate-limit refusals (by
//!   limit), browser restarts (by reason). Each process counts its own
//!   (`svc server` and every `svc worker`): sum them across instances;
//! - gauges of what waits in the database, set from the store at each scrape
//!   ([`crate::Services::scrape_metrics`]): the run queue, the webhook and
//!   email outboxes, and this process's connection pool. Every process
//!   reports the same database, so take one instance's figure (or `max`).
//!
//! Label values come from fixed sets (engines, outcomes, limit names):
//! never an id, an address or anything a caller chose.

use std::sync::atomic::AtomicU64;
use std::time::Duration;

use chrono::{DateTime, Utc};
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;
use svc_domain::history::StatusDetail;
use svc_domain::scrap::{DEFAULT_SCRAPPER, STATIC_SCRAPPER};
use svc_domain::webhook::AttemptState;
use svc_engine::{BrowserRestart, EngineMetrics};
use svc_storage::{Backlog, PoolUse};

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RunLabels {
    engine: &'static str,
    status: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct EngineLabel {
    engine: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct StateLabel {
    state: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct LimitLabel {
    limit: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ReasonLabel {
    reason: &'static str,
}

/// How one email attempt ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EmailAttempt {
    Sent,
    /// A transient failure: it will be tried again.
    Retry,
    Failed,
}

/// The run duration histogram's buckets, in seconds: a static page takes
/// milliseconds, a browser run a fraction of a second to the run timeout.
const RUN_SECONDS: [f64; 12] = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0];

fn run_histogram() -> Histogram {
    Histogram::new(RUN_SECONDS)
}

/// The engine label: the known scrappers by name, anything else `other`.
fn engine_label(scrapper: &str) -> &'static str {
    match scrapper {
        DEFAULT_SCRAPPER => DEFAULT_SCRAPPER,
        STATIC_SCRAPPER => STATIC_SCRAPPER,
        _ => "other",
    }
}

/// The names of the rate limits (`crate::accounts::rate_limits`): their buckets' first two parts.
const LIMITS: [&str; 9] = [
    "signup:ip",
    "login:ip",
    "login:email",
    "trigger:key",
    "load:org",
    "test-run:user",
    "ai:user",
    "mcp:user",
    "mcp:ip",
];

/// A limit's name from its bucket (`login:email:ada@example.com` is
/// `login:email`): the bucket's first two parts, which the code fixes.
fn limit_label(bucket: &str) -> &'static str {
    LIMITS
        .iter()
        .find(|name| bucket.strip_prefix(**name).is_some_and(|rest| rest.is_empty() || rest.starts_with(':')))
        .copied()
        .unwrap_or("other")
}

/// The registry and every figure in it.
pub struct Metrics {
    registry: Registry,
    runs: Family<RunLabels, Counter>,
    run_duration: Family<EngineLabel, Histogram, fn() -> Histogram>,
    webhook_attempts: Family<StateLabel, Counter>,
    email_attempts: Family<StateLabel, Counter>,
    rate_limit_refusals: Family<LimitLabel, Counter>,
    browser_restarts: Family<ReasonLabel, Counter>,
    queue_depth: Family<StateLabel, Gauge>,
    queue_oldest_age: Gauge<f64, AtomicU64>,
    webhooks_pending: Family<StateLabel, Gauge>,
    emails_queued: Family<StateLabel, Gauge>,
    pool_connections: Family<StateLabel, Gauge>,
    pool_max: Gauge,
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

impl Metrics {
    pub fn new() -> Self {
        let mut registry = Registry::with_prefix("svc");
        let m = Metrics {
            runs: Family::default(),
            run_duration: Family::new_with_constructor(run_histogram as fn() -> Histogram),
            webhook_attempts: Family::default(),
            email_attempts: Family::default(),
            rate_limit_refusals: Family::default(),
            browser_restarts: Family::default(),
            queue_depth: Family::default(),
            queue_oldest_age: Gauge::default(),
            webhooks_pending: Family::default(),
            emails_queued: Family::default(),
            pool_connections: Family::default(),
            pool_max: Gauge::default(),
            registry: Registry::default(),
        };
        registry.register(
            "runs",
            "Runs finished by this process, by engine and outcome (statusDetail)",
            m.runs.clone(),
        );
        registry.register(
            "run_duration_seconds",
            "How long finished runs took on their engine (the history row's `time`)",
            m.run_duration.clone(),
        );
        registry.register(
            "webhook_attempts",
            "Webhook delivery attempts made by this process, by outcome (delivered, pending_retry, failed, skipped)",
            m.webhook_attempts.clone(),
        );
        registry.register(
            "email_attempts",
            "Email attempts made by this process, by outcome (sent, retry, failed)",
            m.email_attempts.clone(),
        );
        registry.register(
            "rate_limit_refusals",
            "Requests refused by a rate limit, by limit",
            m.rate_limit_refusals.clone(),
        );
        registry.register(
            "browser_restarts",
            "Chromium processes replaced by this process, by reason (crashed, recycled)",
            m.browser_restarts.clone(),
        );
        registry.register(
            "run_queue_depth",
            "Runs in the queue (whole database), by state (queued, running)",
            m.queue_depth.clone(),
        );
        registry.register(
            "run_queue_oldest_age_seconds",
            "Age of the oldest run waiting for a worker (0 when none waits)",
            m.queue_oldest_age.clone(),
        );
        registry.register(
            "webhook_deliveries_pending",
            "Webhook deliveries not finished (whole database), by state (new: not tried yet, retrying)",
            m.webhooks_pending.clone(),
        );
        registry.register(
            "emails_queued",
            "Emails not sent yet (whole database), by state (new: not tried yet, retrying)",
            m.emails_queued.clone(),
        );
        registry.register(
            "db_pool_connections",
            "This process's database connections, by state (idle, in_use)",
            m.pool_connections.clone(),
        );
        registry.register(
            "db_pool_max_connections",
            "The most database connections this process opens",
            m.pool_max.clone(),
        );
        // Every label value that can appear, at 0 from the start, so that a
        // rate over a fresh process is defined.
        for engine in [DEFAULT_SCRAPPER, STATIC_SCRAPPER] {
            let _ = m.run_duration.get_or_create(&EngineLabel { engine });
            for status in [StatusDetail::Success, StatusDetail::Empty, StatusDetail::Regression, StatusDetail::Error] {
                let _ = m.runs.get_or_create(&RunLabels { engine, status: status.as_str() });
            }
        }
        for state in [AttemptState::Delivered, AttemptState::PendingRetry, AttemptState::Failed, AttemptState::Skipped]
        {
            let _ = m.webhook_attempts.get_or_create(&StateLabel { state: state.as_str() });
        }
        for state in ["sent", "retry", "failed"] {
            let _ = m.email_attempts.get_or_create(&StateLabel { state });
        }
        for limit in LIMITS {
            let _ = m.rate_limit_refusals.get_or_create(&LimitLabel { limit });
        }
        for reason in ["crashed", "recycled"] {
            let _ = m.browser_restarts.get_or_create(&ReasonLabel { reason });
        }
        Metrics { registry, ..m }
    }

    /// The registry, for the adapter that renders it.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// A run finished with `detail` on `scrapper`'s engine, after `duration` there.
    pub fn run_finished(&self, scrapper: &str, detail: StatusDetail, duration: Duration) {
        let engine = engine_label(scrapper);
        self.runs.get_or_create(&RunLabels { engine, status: detail.as_str() }).inc();
        self.run_duration.get_or_create(&EngineLabel { engine }).observe(duration.as_secs_f64());
    }

    /// A run whose worker was lost, finished as `error` by a reaper: counted
    /// as an error, with no duration (nothing ran to its end).
    pub fn run_lost(&self, scrapper: &str) {
        let engine = engine_label(scrapper);
        self.runs.get_or_create(&RunLabels { engine, status: StatusDetail::Error.as_str() }).inc();
    }

    pub fn webhook_attempted(&self, state: AttemptState) {
        self.webhook_attempts.get_or_create(&StateLabel { state: state.as_str() }).inc();
    }

    pub fn email_attempted(&self, outcome: EmailAttempt) {
        let state = match outcome {
            EmailAttempt::Sent => "sent",
            EmailAttempt::Retry => "retry",
            EmailAttempt::Failed => "failed",
        };
        self.email_attempts.get_or_create(&StateLabel { state }).inc();
    }

    /// A rate limit refused a request; `bucket` names the limit by its first two parts.
    pub fn rate_limited(&self, bucket: &str) {
        self.rate_limit_refusals.get_or_create(&LimitLabel { limit: limit_label(bucket) }).inc();
    }

    /// Sets the gauges from what the store reports, as of `now`.
    pub fn observe(&self, backlog: &Backlog, pool: PoolUse, now: DateTime<Utc>) {
        self.queue_depth.get_or_create(&StateLabel { state: "queued" }).set(backlog.runs_queued);
        self.queue_depth.get_or_create(&StateLabel { state: "running" }).set(backlog.runs_running);
        let age = backlog.oldest_queued_at.map_or(0.0, |at| ((now - at).num_milliseconds().max(0) as f64) / 1000.0);
        self.queue_oldest_age.set(age);
        let new_webhooks = backlog.webhooks_pending - backlog.webhooks_retrying;
        self.webhooks_pending.get_or_create(&StateLabel { state: "new" }).set(new_webhooks);
        self.webhooks_pending.get_or_create(&StateLabel { state: "retrying" }).set(backlog.webhooks_retrying);
        let new_emails = backlog.emails_queued - backlog.emails_retrying;
        self.emails_queued.get_or_create(&StateLabel { state: "new" }).set(new_emails);
        self.emails_queued.get_or_create(&StateLabel { state: "retrying" }).set(backlog.emails_retrying);
        self.pool_connections.get_or_create(&StateLabel { state: "idle" }).set(i64::from(pool.idle));
        self.pool_connections.get_or_create(&StateLabel { state: "in_use" }).set(i64::from(pool.open - pool.idle));
        self.pool_max.set(i64::from(pool.max));
    }
}

impl EngineMetrics for Metrics {
    fn browser_restarted(&self, why: BrowserRestart) {
        let reason = match why {
            BrowserRestart::Crashed => "crashed",
            BrowserRestart::Recycled => "recycled",
        };
        self.browser_restarts.get_or_create(&ReasonLabel { reason }).inc();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(m: &Metrics) -> String {
        let mut out = String::new();
        prometheus_client::encoding::text::encode(&mut out, m.registry()).unwrap();
        out
    }

    #[test]
    fn limits_are_named_by_their_fixed_prefix_never_by_the_caller() {
        assert_eq!(limit_label("login:email:ada@example.com"), "login:email");
        assert_eq!(limit_label("login:ip:10.0.0.1"), "login:ip");
        assert_eq!(limit_label("mcp:ip"), "mcp:ip");
        assert_eq!(limit_label("test-run:user:0123"), "test-run:user");
        assert_eq!(limit_label("login:emailx:1"), "other");
        assert_eq!(limit_label("somebody@example.com"), "other");
    }

    #[test]
    fn figures_move_and_render_with_the_svc_prefix() {
        let m = Metrics::new();
        let before = text(&m);
        assert!(before.contains("svc_runs_total{engine=\"static\",status=\"success\"} 0"), "{before}");
        m.run_finished("static", StatusDetail::Success, Duration::from_millis(30));
        m.run_finished("unheard-of", StatusDetail::Error, Duration::from_secs(2));
        m.rate_limited("login:email:ada@example.com");
        m.browser_restarted(BrowserRestart::Crashed);
        m.webhook_attempted(AttemptState::Delivered);
        m.email_attempted(EmailAttempt::Retry);
        let at = Utc::now();
        let backlog = Backlog {
            runs_queued: 3,
            runs_running: 1,
            oldest_queued_at: Some(at - chrono::Duration::seconds(90)),
            webhooks_pending: 5,
            webhooks_retrying: 2,
            emails_queued: 1,
            emails_retrying: 0,
        };
        m.observe(&backlog, PoolUse { open: 4, idle: 3, max: 10 }, at);
        let after = text(&m);
        for line in [
            "svc_runs_total{engine=\"static\",status=\"success\"} 1",
            "svc_runs_total{engine=\"other\",status=\"error\"} 1",
            "svc_run_duration_seconds_count{engine=\"static\"} 1",
            "svc_rate_limit_refusals_total{limit=\"login:email\"} 1",
            "svc_browser_restarts_total{reason=\"crashed\"} 1",
            "svc_webhook_attempts_total{state=\"delivered\"} 1",
            "svc_email_attempts_total{state=\"retry\"} 1",
            "svc_run_queue_depth{state=\"queued\"} 3",
            "svc_run_queue_oldest_age_seconds 90.0",
            "svc_webhook_deliveries_pending{state=\"new\"} 3",
            "svc_webhook_deliveries_pending{state=\"retrying\"} 2",
            "svc_db_pool_connections{state=\"in_use\"} 1",
            "svc_db_pool_max_connections 10",
        ] {
            assert!(after.lines().any(|l| l == line), "no `{line}` in:\n{after}");
        }
        assert!(!after.contains("ada@example.com"), "no caller's value as a label");
    }
}
