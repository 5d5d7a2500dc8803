//! The run queue as a worker sees it: claiming runs under a lease,
//! releasing them, and finishing the runs whose worker disappeared.

use std::time::Duration;

use chrono::Utc;
use svc_domain::history::StatusDetail;
use svc_domain::scrap::DEFAULT_SCRAPPER;
use svc_storage::{ClaimedRun, ExpiredLeases};

use crate::Result;

use super::finish::finished_activity;
use super::{MAX_ATTEMPTS, RunService};

const LOST_WORKER: &str = "the worker running this run stopped before finishing it";

impl RunService {
    /// Claims the oldest queued run for `container`.
    pub async fn claim(&self, container: &str, worker_id: &str) -> Result<Option<ClaimedRun>> {
        let lease = chrono::Duration::from_std(self.run_timeout + Duration::from_secs(30))
            .unwrap_or(chrono::Duration::minutes(2));
        Ok(self.store.claim_run(container, worker_id, Utc::now() + lease).await?)
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
}
