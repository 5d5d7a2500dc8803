//! Retention (issue 37, part 5): what the scheduler's hourly housekeeping
//! deletes, and after how long. Each kind of row has a setting
//! ([`Retention`], `SVC_RETAIN_*`); an organization may also give its
//! history an age limit (`accounts::organization`). Nothing still needed is
//! deleted:
//!
//! | rows | old means | never deleted |
//! |---|---|---|
//! | webhook deliveries (and their attempts) | created before the limit | a pending delivery |
//! | emails | created before the limit | a queued email |
//! | AI tasks | created before the limit | a queued or running task, an AI Fix task whose proposal waits |
//! | activity entries | created before the limit | |
//! | audit entries | created before the limit (log-in addresses: last used before it) | |
//! | sliding-log rate buckets | last written before the limit | |
//! | plan renewal records | of a week starting before the limit | the current week's (the limit is at least 8 days) |
//! | history (per organization, off by default) | created before the limit | a pending run, a run in the queue or under a pending fix proposal, each scrap's newest successful run |
//!
//! Deletes go in batches of [`BATCH`] rows per statement, oldest first,
//! repeated while batches come back full, at most [`MAX_BATCHES`] times per
//! kind and pass (the next hour's pass goes on), so that no statement holds
//! a table for long and a first pass over years of rows cannot run away.

use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use svc_domain::OrgId;
use svc_storage::Store;

use crate::Result;

/// Rows deleted per statement.
pub const BATCH: i64 = 1_000;
/// Statements per kind of row and pass.
pub const MAX_BATCHES: usize = 100;

const DAY: Duration = Duration::from_secs(86_400);

/// How long each kind of row is kept (`SVC_RETAIN_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Retention {
    /// `SVC_RETAIN_WEBHOOK_DELIVERIES`, default 30 days.
    pub webhook_deliveries: Duration,
    /// `SVC_RETAIN_EMAILS`, default 30 days.
    pub emails: Duration,
    /// `SVC_RETAIN_AI_TASKS`, default 30 days.
    pub ai_tasks: Duration,
    /// `SVC_RETAIN_ACTIVITIES`, default 90 days.
    pub activities: Duration,
    /// `SVC_RETAIN_AUDIT`, default 90 days.
    pub audit: Duration,
    /// `SVC_RETAIN_RATE_LIMITS`, default 1 day: how long an unused
    /// sliding-log bucket is kept (at least an hour, the longest window).
    pub rate_limits: Duration,
    /// `SVC_RETAIN_RENEWALS`, default 90 days (at least 8: the current
    /// week's record keeps a renewal from happening twice).
    pub renewals: Duration,
}

impl Default for Retention {
    fn default() -> Self {
        Retention {
            webhook_deliveries: 30 * DAY,
            emails: 30 * DAY,
            ai_tasks: 30 * DAY,
            activities: 90 * DAY,
            audit: 90 * DAY,
            rate_limits: DAY,
            renewals: 90 * DAY,
        }
    }
}

impl Retention {
    /// The shortest `rate_limits`: the longest window of a sliding-log limit.
    pub const MIN_RATE_LIMITS: Duration = Duration::from_secs(3600);
    /// The shortest `renewals`: a week and a day.
    pub const MIN_RENEWALS: Duration = Duration::from_secs(8 * 86_400);
    /// The shortest of the others.
    pub const MIN: Duration = Duration::from_secs(3600);
}

/// What one pass of housekeeping deleted.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Pruned {
    pub ticks: u64,
    pub rate_buckets: u64,
    pub sessions: u64,
    pub rate_logs: u64,
    pub webhook_deliveries: u64,
    pub emails: u64,
    pub ai_tasks: u64,
    pub activities: u64,
    pub audit: u64,
    pub renewals: u64,
    pub history: u64,
}

fn before(now: DateTime<Utc>, keep: Duration) -> DateTime<Utc> {
    now - chrono::Duration::from_std(keep).unwrap_or(chrono::Duration::MAX)
}

/// Repeats one batched delete while its batches come back full.
async fn in_batches<F, Fut>(mut delete: F) -> Result<u64>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = svc_storage::Result<u64>>,
{
    let mut total = 0;
    for _ in 0..MAX_BATCHES {
        let n = delete().await?;
        total += n;
        if n < BATCH as u64 {
            break;
        }
        tokio::task::yield_now().await;
    }
    Ok(total)
}

/// Deletes what `retention` (and each organization's history limit) no
/// longer keeps as of `now`; fills the retention fields of `pruned`.
pub async fn prune_retained(store: &Arc<dyn Store>, retention: &Retention, now: DateTime<Utc>) -> Result<Pruned> {
    let r = retention;
    let mut p = Pruned {
        rate_logs: in_batches(|| store.prune_rate_logs(before(now, r.rate_limits), BATCH)).await?,
        webhook_deliveries: in_batches(|| store.prune_deliveries(before(now, r.webhook_deliveries), BATCH)).await?,
        emails: in_batches(|| store.prune_emails(before(now, r.emails), BATCH)).await?,
        ai_tasks: in_batches(|| store.prune_tasks(before(now, r.ai_tasks), BATCH)).await?,
        activities: in_batches(|| store.prune_activities(before(now, r.activities), BATCH)).await?,
        audit: in_batches(|| store.prune_audit(before(now, r.audit), BATCH)).await?,
        renewals: in_batches(|| store.prune_renewals(before(now, r.renewals), BATCH)).await?,
        ..Pruned::default()
    };
    let mut after: Option<OrgId> = None;
    loop {
        let limits = store.history_limits(after, BATCH).await?;
        for &(org, days) in &limits {
            let cutoff = now - chrono::Duration::days(days);
            p.history += in_batches(|| store.prune_history(org, cutoff, BATCH)).await?;
        }
        match limits.last() {
            Some(&(org, _)) if limits.len() as i64 == BATCH => after = Some(org),
            _ => break,
        }
    }
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_bounded_and_within_their_minimums() {
        let r = Retention::default();
        assert_eq!(r.webhook_deliveries, 30 * DAY);
        assert_eq!(r.audit, 90 * DAY);
        assert!(r.rate_limits >= Retention::MIN_RATE_LIMITS);
        assert!(r.renewals >= Retention::MIN_RENEWALS);
    }
}
