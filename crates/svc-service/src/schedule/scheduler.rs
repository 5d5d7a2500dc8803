//! The scheduler: fires due cron ticks as runs with `triggeredBy: cron`.
//!
//! Each scrap with a schedule stores the instant it is next due
//! (`next_fire_at`, indexed). The loop asks the store for the smallest one
//! and sleeps until then, or until a scrap's schedule changes in this
//! process, or at most [`MAX_SLEEP`] (changes made by other processes).
//! An idle server therefore does one indexed lookup every few seconds.
//!
//! Policies (docs/schedules.md):
//! - a tick whose previous run of the scrap is still queued or running is
//!   skipped, with an activity entry;
//! - a tick is fired at most once: the store records (scrap, instant)
//!   under a unique key in the transaction that enqueues the run;
//! - after downtime, only the latest missed tick is run, and only if it is
//!   at most `grace` old; older ones are recorded as missed;
//! - a tick with no compute balance left is skipped, with an activity entry.
//!
//! The same loop renews plans ([`Scheduler::renew`]): the first pass in a
//! week (Monday 00:00 UTC, `renewal.rs`) tops Growth and Pro balances up to
//! their weekly amount, once per organization and week across processes
//! (the store records (organization, week) under a unique key in the
//! transaction that changes the balance). Every other pass costs one
//! indexed read.

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use rand::Rng;
use svc_domain::HistoryId;
use svc_domain::activity::Activity;
use svc_domain::history::{DIRECT_TIER, HistoryRow, TriggeredBy};
use svc_domain::plan::WeeklyUnits;
use svc_domain::scrap::{ParamSet, Scrap};
use svc_storage::{
    DueScrap, FiredTick, PlanRenewal, PlannedTick, RenewalOutcome, Store, TickAction, TickOutcome, TickPlan,
    TickPlanner,
};
use tokio::sync::Notify;

use crate::Result;
use crate::schedule::cron;
use crate::schedule::renewal;
use crate::schedule::signals::RunSignals;

/// The longest the loop sleeps without looking at the database.
pub const MAX_SLEEP: Duration = Duration::from_secs(5);
/// Due scraps handled per transaction.
pub const BATCH: i64 = 500;
/// How long tick records are kept (they only guard against double firing).
const TICK_RETENTION: chrono::Duration = chrono::Duration::days(1);
const PRUNE_EVERY: chrono::Duration = chrono::Duration::hours(1);
/// How long past its time a rate-limit bucket is kept: servers whose
/// clocks lag the scheduler's by less than this still find every bucket
/// that delays their requests.
const RATE_BUCKET_MARGIN: chrono::Duration = chrono::Duration::minutes(5);
/// How long an expired web session's row is kept (no token can use it).
const SESSION_RETENTION: chrono::Duration = chrono::Duration::days(1);

/// What one `tick` did.
#[derive(Debug, Default)]
pub struct TickReport {
    pub fired: Vec<FiredTick>,
    /// When the next tick is due, if any scrap has a schedule.
    pub next_due: Option<DateTime<Utc>>,
}

pub use crate::schedule::housekeeping::Pruned;
use crate::schedule::housekeeping::{Retention, prune_retained};

pub struct Scheduler {
    store: Arc<dyn Store>,
    signals: Arc<RunSignals>,
    changed: Arc<Notify>,
    grace: chrono::Duration,
    weekly: WeeklyUnits,
    retention: Retention,
}

impl Scheduler {
    pub(crate) fn new(
        store: Arc<dyn Store>,
        signals: Arc<RunSignals>,
        changed: Arc<Notify>,
        grace: Duration,
        weekly: WeeklyUnits,
        retention: Retention,
    ) -> Self {
        let grace = chrono::Duration::from_std(grace).unwrap_or(chrono::Duration::MAX);
        Scheduler { store, signals, changed, grace, weekly, retention }
    }

    /// Fires every tick due at or before `now`.
    pub async fn tick(&self, now: DateTime<Utc>) -> Result<TickReport> {
        let planner = CronPlanner { now, grace: self.grace, parsed: Default::default() };
        let mut report = TickReport::default();
        loop {
            let batch = self.store.fire_due(now, BATCH, &planner).await?;
            let full = batch.len() as i64 == BATCH;
            if batch.iter().any(|t| t.outcome == TickOutcome::Enqueued) {
                self.signals.queued.notify_waiters();
            }
            report.fired.extend(batch);
            if !full {
                break;
            }
        }
        report.next_due = self.store.next_due_at().await?;
        Ok(report)
    }

    /// Renews the plans due in the week of `now`: each Growth or Pro
    /// organization not yet renewed (nor moved to its plan) since that
    /// week's Monday 00:00 UTC gets `balance = max(balance, weekly amount)`.
    /// Returns what was done, `AlreadyRenewed` included (another scheduler
    /// was first); cheap when nothing is due.
    pub async fn renew(&self, now: DateTime<Utc>) -> Result<Vec<PlanRenewal>> {
        let week = renewal::week_start(now);
        let mut done = Vec::new();
        loop {
            let batch = self.store.renew_plans(week, &self.weekly, BATCH).await?;
            let full = batch.len() as i64 == BATCH;
            done.extend(batch);
            if !full {
                break;
            }
        }
        let renewed = done.iter().filter(|r| r.outcome == RenewalOutcome::Renewed).count();
        if renewed > 0 {
            tracing::info!(renewed, week = %week.format("%Y-%m-%d"), "weekly plan renewal: organizations topped up");
        }
        Ok(done)
    }

    /// Housekeeping, hourly from `run`: removes the tick records older than
    /// a day, and the rate-limit buckets that decide like new ones since
    /// five minutes before `now` (`RATE_BUCKET_MARGIN`; one bucket per
    /// client address or email that ever logged in or signed up would
    /// otherwise be kept for good), and the web sessions that expired more
    /// than a day ago; then what the retention settings no longer keep
    /// (`housekeeping`). Returns how many of each went. `now` is the
    /// housekeeping's clock (tests pass a later one).
    pub async fn prune(&self, now: DateTime<Utc>) -> Result<Pruned> {
        let ticks = self.store.prune_ticks(now - TICK_RETENTION).await?;
        let rate_buckets = self.store.prune_rate_tats((now - RATE_BUCKET_MARGIN).timestamp_millis()).await?;
        let sessions = self.store.prune_sessions(now - SESSION_RETENTION).await?;
        let retained = prune_retained(&self.store, &self.retention, now).await?;
        Ok(Pruned { ticks, rate_buckets, sessions, ..retained })
    }

    /// Fires ticks as they come due, and renews plans each week, until
    /// `shutdown` resolves.
    pub async fn run(self: Arc<Self>, shutdown: impl Future<Output = ()>) {
        let mut shutdown = std::pin::pin!(shutdown);
        let mut pruned_at = Utc::now() - PRUNE_EVERY;
        let mut backoff = crate::schedule::backoff::Backoff::default();
        loop {
            let now = Utc::now();
            let mut next_due = match self.tick(now).await {
                Ok(report) => {
                    if backoff.succeeded() > 0 {
                        tracing::info!("scheduler: the database answers again");
                    }
                    report.next_due
                }
                Err(e) => {
                    let delay = backoff.failed();
                    tracing::error!(error = %e, failures = backoff.failures(), retry_in_ms = delay.as_millis() as u64, "scheduler tick failed");
                    Some(now + chrono::Duration::from_std(delay).unwrap_or(chrono::Duration::seconds(1)))
                }
            };
            match self.renew(now).await {
                Ok(_) => {
                    let next_week = renewal::next_renewal(now);
                    next_due = Some(next_due.map_or(next_week, |at| at.min(next_week)));
                }
                Err(e) => tracing::error!(error = %e, "weekly plan renewal failed"),
            }
            if now - pruned_at >= PRUNE_EVERY {
                pruned_at = now;
                if let Err(e) = self.prune(now).await {
                    tracing::warn!(error = %e, "housekeeping (pruning old rows) failed");
                }
            }
            let sleep =
                next_due.map(|at| (at - Utc::now()).to_std().unwrap_or_default()).unwrap_or(MAX_SLEEP).min(MAX_SLEEP);
            tokio::select! {
                _ = tokio::time::sleep(sleep) => {}
                _ = self.changed.notified() => {}
                _ = &mut shutdown => return,
            }
        }
    }
}

/// The scheduler's rules for one tick, evaluated at `now`.
struct CronPlanner {
    now: DateTime<Utc>,
    grace: chrono::Duration,
    /// Expressions parsed so far (many scraps share one).
    parsed: Mutex<HashMap<String, Option<croner::Cron>>>,
}

impl CronPlanner {
    fn cron(&self, expr: &str) -> Option<croner::Cron> {
        let mut parsed = self.parsed.lock().unwrap_or_else(|e| e.into_inner());
        parsed.entry(expr.to_string()).or_insert_with(|| cron::parse(expr).ok()).clone()
    }
}

impl TickPlanner for CronPlanner {
    fn plan(&self, due: &DueScrap) -> TickPlan {
        let scrap = &due.scrap;
        let parsed = scrap.cron.as_deref().and_then(|expr| self.cron(expr));
        let tz = scrap.cron_timezone.parse::<Tz>().ok();
        let (Some(cron), Some(tz)) = (parsed, tz) else {
            tracing::warn!(scrap = %scrap.id, "schedule no longer valid; stopped");
            return TickPlan { next_fire_at: None, tick: None };
        };
        let next_fire_at = cron::next_fire(&cron, tz, self.now);
        let tick = match latest_tick(&cron, tz, due.due_at, self.now, self.grace) {
            // Never two runs of one scrap at once, and no run without balance.
            Some(at) if due.run_in_flight => PlannedTick { scheduled_at: at, action: TickAction::SkipOverlap },
            Some(at) if due.balance <= 0 => PlannedTick { scheduled_at: at, action: TickAction::SkipBalance },
            Some(at) => PlannedTick {
                scheduled_at: at,
                action: TickAction::Run {
                    row: Box::new(HistoryRow::pending(
                        scrap.id,
                        scrap.organization_id,
                        TriggeredBy::Cron,
                        DIRECT_TIER,
                        Utc::now(),
                    )),
                    param: pick_param(&scrap.params, &mut rand::rng()),
                },
            },
            None => PlannedTick { scheduled_at: due.due_at, action: TickAction::Missed },
        };
        TickPlan { next_fire_at, tick: Some(tick) }
    }

    fn activity(
        &self,
        scrap: &Scrap,
        tick: &PlannedTick,
        outcome: TickOutcome,
        history: Option<HistoryId>,
    ) -> Option<Activity> {
        let at = tick.scheduled_at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        let (kind, message) = match outcome {
            TickOutcome::Enqueued => ("run.triggered", "Run triggered (cron)".to_string()),
            TickOutcome::SkippedOverlap => (
                "schedule.skipped",
                format!("Scheduled run of {at} skipped: the previous run is still pending or running"),
            ),
            TickOutcome::SkippedBalance => {
                ("schedule.skipped", format!("Scheduled run of {at} skipped: no compute balance left"))
            }
            TickOutcome::Missed => (
                "schedule.missed",
                format!(
                    "Scheduled run of {at} missed while the scheduler was not running (older than the catch-up grace period)"
                ),
            ),
            TickOutcome::AlreadyFired => return None,
        };
        let mut log = Activity::new(scrap.organization_id, scrap.id, kind, "system".into(), message);
        log.history_id = history;
        Some(log)
    }
}

/// The tick to run for a schedule due at `due_at`, seen at `now`: the latest
/// firing in `[due_at, now]`, if it is at most `grace` old. `None` means
/// every firing up to `now` was missed.
pub fn latest_tick(
    cron: &croner::Cron,
    tz: Tz,
    due_at: DateTime<Utc>,
    now: DateTime<Utc>,
    grace: chrono::Duration,
) -> Option<DateTime<Utc>> {
    let window_start = now.checked_sub_signed(grace).unwrap_or(DateTime::<Utc>::MIN_UTC);
    let mut latest = if due_at >= window_start {
        due_at
    } else {
        cron::next_fire(cron, tz, window_start).filter(|at| *at <= now)?
    };
    // Bounded: the window holds at most grace / SVC_CRON_MIN_INTERVAL firings.
    for _ in 0..100_000 {
        match cron::next_fire(cron, tz, latest) {
            Some(next) if next <= now => latest = next,
            _ => break,
        }
    }
    Some(latest)
}

/// One of `params` at random (`None` when there are none).
pub fn pick_param(params: &[ParamSet], rng: &mut impl Rng) -> Option<ParamSet> {
    if params.is_empty() {
        return None;
    }
    Some(params[rng.random_range(0..params.len())].clone())
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use svc_domain::{OrgId, UserId};

    use super::*;

    fn utc(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    const GRACE: chrono::Duration = chrono::Duration::minutes(15);

    #[test]
    fn a_tick_on_time_is_itself() {
        let cron = cron::parse("* * * * *").unwrap();
        let due = utc("2026-01-01T10:00:00Z");
        assert_eq!(latest_tick(&cron, chrono_tz::UTC, due, due, GRACE), Some(due));
        assert_eq!(latest_tick(&cron, chrono_tz::UTC, due, utc("2026-01-01T10:00:03Z"), GRACE), Some(due));
    }

    #[test]
    fn after_downtime_only_the_latest_missed_tick_runs() {
        let cron = cron::parse("* * * * *").unwrap();
        let got = latest_tick(&cron, chrono_tz::UTC, utc("2026-01-01T10:00:00Z"), utc("2026-01-01T10:07:30Z"), GRACE);
        assert_eq!(got, Some(utc("2026-01-01T10:07:00Z")));
        // Down for a year: still one tick, found without walking the year.
        let got = latest_tick(&cron, chrono_tz::UTC, utc("2025-01-01T10:00:00Z"), utc("2026-01-01T10:07:30Z"), GRACE);
        assert_eq!(got, Some(utc("2026-01-01T10:07:00Z")));
    }

    #[test]
    fn a_tick_older_than_the_grace_period_is_missed() {
        let cron = cron::parse("0 9 * * *").unwrap();
        let due = utc("2026-01-01T09:00:00Z");
        assert_eq!(latest_tick(&cron, chrono_tz::UTC, due, utc("2026-01-01T09:14:59Z"), GRACE), Some(due));
        assert_eq!(latest_tick(&cron, chrono_tz::UTC, due, utc("2026-01-01T09:15:01Z"), GRACE), None);
        assert_eq!(latest_tick(&cron, chrono_tz::UTC, due, utc("2026-01-01T11:00:00Z"), GRACE), None);
    }

    #[test]
    fn params_are_picked_from_the_list_and_all_of_them_come_up() {
        let params: Vec<ParamSet> =
            (0..3).map(|i| ParamSet { key: format!("k{i}"), value: serde_json::json!(i) }).collect();
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let mut seen = [0; 3];
        for _ in 0..300 {
            let p = pick_param(&params, &mut rng).unwrap();
            seen[p.value.as_u64().unwrap() as usize] += 1;
        }
        assert!(seen.iter().all(|n| *n > 50), "{seen:?}");
        assert_eq!(pick_param(&[], &mut rng), None);
    }

    #[test]
    fn a_due_tick_runs_unless_a_run_is_in_flight_or_the_balance_is_spent() {
        let now = utc("2026-01-01T10:00:05Z");
        let planner = CronPlanner { now, grace: GRACE, parsed: Mutex::new(HashMap::new()) };
        let mut scrap = Scrap::new(OrgId::new(), UserId::new(), "t", "https://example.com", "x", now);
        scrap.cron = Some("* * * * *".into());
        let due = |run_in_flight, balance| DueScrap {
            scrap: scrap.clone(),
            due_at: utc("2026-01-01T10:00:00Z"),
            run_in_flight,
            balance,
        };
        let action = |d: DueScrap| planner.plan(&d).tick.expect("a tick").action;
        assert!(matches!(action(due(false, 5)), TickAction::Run { .. }));
        assert_eq!(action(due(true, 5)), TickAction::SkipOverlap);
        assert_eq!(action(due(false, 0)), TickAction::SkipBalance);
        assert_eq!(action(due(true, 0)), TickAction::SkipOverlap, "the overlap is reported first");
        let plan = planner.plan(&due(true, 0));
        assert_eq!(plan.next_fire_at, Some(utc("2026-01-01T10:01:00Z")), "a skipped tick still moves the schedule");
    }
}
