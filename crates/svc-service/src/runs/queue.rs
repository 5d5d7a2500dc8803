//! The run queue as a worker sees it: claiming runs under a lease,
//! releasing them, and finishing the runs whose worker disappeared.

use std::time::Duration;

use chrono::Utc;
use svc_domain::history::StatusDetail;
use svc_domain::scrap::DEFAULT_SCRAPPER;
use svc_engine::Warm;
use svc_storage::{ClaimedRun, ExpiredLeases, Nearby, NextRun};

use crate::Result;

use super::direct::LaneEnd;
use super::finish::{Recording, finished_activity};
use super::{MAX_ATTEMPTS, RunService};
use crate::schedule::RunSlots;

/// How much later than the oldest queued run a run may be queued and still
/// be claimed before it for fitting a warm page: a run waits only behind
/// runs queued at most this long after it.
pub const AFFINITY_WINDOW: Duration = Duration::from_secs(5);

/// What the store matches for `warm`: an origin as the start of a scrap's
/// URL (`origin/`), each entry once.
fn nearby(warm: &[Warm]) -> Vec<Nearby> {
    let mut out: Vec<Nearby> = Vec::new();
    for w in warm {
        let near =
            Nearby { organization: w.organization, url_prefix: w.origin.as_ref().map(|origin| format!("{origin}/")) };
        if !out.contains(&near) {
            out.push(near);
        }
    }
    out
}

const LOST_WORKER: &str = "the worker running this run stopped before finishing it";

impl RunService {
    /// Claims a queued run for `container`: the oldest that fits what the
    /// engine keeps `warm` (its organization, and the origin a warm page
    /// shows), among those queued within [`AFFINITY_WINDOW`] of the oldest;
    /// else the oldest.
    pub async fn claim(&self, container: &str, worker_id: &str, warm: &[Warm]) -> Result<Option<ClaimedRun>> {
        Ok(self.claim_next(container, worker_id, warm).await?.map(|next| next.claim))
    }

    /// [`Self::claim`], and whether another run may still be queued: a
    /// claim that fit a warm page does not look (it says so), the oldest-run
    /// claim looks in the same statement. A worker told none is queued waits
    /// for the next enqueue rather than claiming again for nothing.
    pub async fn claim_next(&self, container: &str, worker_id: &str, warm: &[Warm]) -> Result<Option<NextRun>> {
        let lease_until = self.lease_until();
        let nearby = nearby(warm);
        if !nearby.is_empty()
            && let Some(claim) =
                self.store.claim_run_near(container, worker_id, lease_until, &nearby, AFFINITY_WINDOW).await?
        {
            return Ok(Some(NextRun { claim, more_queued: true }));
        }
        Ok(self.store.claim_next_run(container, worker_id, lease_until).await?)
    }

    /// When a claim made now expires: the run's timeout and half a minute.
    pub(super) fn lease_until(&self) -> chrono::DateTime<Utc> {
        let lease = chrono::Duration::from_std(self.run_timeout + Duration::from_secs(30))
            .unwrap_or(chrono::Duration::minutes(2));
        Utc::now() + lease
    }

    /// Opens the lane that hands this process's worker `worker_id` (serving
    /// `container` with `slots`) the runs triggered while it is idle
    /// (`direct.rs`).
    pub fn open_direct_lane(&self, container: &str, worker_id: &str, slots: RunSlots) -> LaneEnd {
        self.direct.open(container, worker_id, slots)
    }

    /// Closes worker `worker_id`'s lane (at its shutdown).
    pub fn close_direct_lane(&self, worker_id: &str) {
        self.direct.close(worker_id);
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
            let recording = Recording { units: 0, log: &log, emails: &emails, tier: None, webhooks: true };
            if self.record_finished(claim, &row, recording).await? {
                let scrapper = scrap.as_ref().map_or(DEFAULT_SCRAPPER, |s| s.scrapper.as_str());
                self.metrics.run_lost(scrapper);
            }
        }
        if !expired.requeued.is_empty() {
            self.signals.queued.notify_waiters();
        }
        Ok(expired)
    }
}
