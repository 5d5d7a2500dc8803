//! Triggering a run: the checks of a trigger, and the pending row and
//! queue entry it writes in one transaction.

use std::time::Duration;

use chrono::Utc;
use svc_domain::ScrapId;
use svc_domain::activity::Activity;
use svc_domain::history::{DIRECT_TIER, HistoryRow, TriggeredBy};
use svc_domain::scope::Scope;
use svc_domain::scrap::ParamSet;
use svc_storage::{QueuedRun, RunScrap};

use crate::accounts::rate_limits::{TRIGGER_PER_KEY, load_quota};
use crate::runs::history::HistoryView;
use crate::scraps::authorize_scrap;
use crate::{Principal, Result, ServiceError};

use super::RunService;

/// Which trigger a caller used: they are limited differently.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trigger {
    /// `POST /api/scraps/worker/:id` (and MCP's `svc_run_scrap`): per API key.
    Worker,
    /// `GET /api/scraps/load/:id`: the organization's run quota.
    Load,
}

/// What a trigger that may wait answers.
#[derive(Clone, Debug)]
pub enum Triggered {
    /// The run ended within the wait: its row as the caller may see it.
    Finished(Box<HistoryView>),
    /// Queued or running still (or no wait was asked for).
    Pending(Box<HistoryRow>),
}

impl RunService {
    /// [`Self::trigger`], then waits up to `wait` for the run to end. The
    /// wait listens before the run is queued, so it neither misses the end
    /// nor reads the row it has just written.
    pub async fn trigger_and_wait(
        &self,
        principal: &Principal,
        via: Trigger,
        scrap_id: ScrapId,
        param: Option<&str>,
        wait: Duration,
    ) -> Result<Triggered> {
        if wait.is_zero() {
            return Ok(Triggered::Pending(Box::new(self.trigger(principal, via, scrap_id, param).await?)));
        }
        let finished = self.signals.finished.subscribe();
        let row = self.trigger(principal, via, scrap_id, param).await?;
        Ok(match self.wait_subscribed(principal, row.id, wait, finished, true).await? {
            Some(done) => Triggered::Finished(Box::new(done)),
            None => Triggered::Pending(Box::new(row)),
        })
    }

    /// Writes a pending history row and queues the run. `param` names one of
    /// the scrap's parameter sets.
    pub async fn trigger(
        &self,
        principal: &Principal,
        via: Trigger,
        scrap_id: ScrapId,
        param: Option<&str>,
    ) -> Result<HistoryRow> {
        principal.require(&[Scope::ScrapsRun])?;
        authorize_scrap(&*self.store, principal, scrap_id).await?;
        // The scrap with its organization's balance and plan, in one read.
        let run = self.store.run_scrap(principal.org(), scrap_id).await?.ok_or(ServiceError::NotFound("scrap"))?;
        if run.balance <= 0 {
            return Err(ServiceError::InsufficientBalance);
        }
        let scrap = &run.scrap;
        match (via, principal) {
            (Trigger::Worker, Principal::Key { grant, .. }) => {
                self.limits.take_in_any_window(&format!("trigger:key:{}", grant.key_id), TRIGGER_PER_KEY).await?;
            }
            (Trigger::Worker, Principal::Session(_)) => {}
            (Trigger::Load, _) => {
                self.limits.take(&format!("load:org:{}", principal.org()), load_quota(run.plan)).await?
            }
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
        self.enqueue(run, triggered_by, param, principal.actor()).await
    }

    /// Queues the run (or hands it to this process's idle worker, claimed),
    /// with the trigger's read of its scrap kept for the claim
    /// (`handover.rs`) before any worker can claim it.
    async fn enqueue(
        &self,
        run: RunScrap,
        triggered_by: TriggeredBy,
        param: Option<ParamSet>,
        actor: String,
    ) -> Result<HistoryRow> {
        let scrap = &run.scrap;
        let row = HistoryRow::pending(scrap.id, scrap.organization_id, triggered_by, DIRECT_TIER, Utc::now());
        let mut log = Activity::new(
            scrap.organization_id,
            scrap.id,
            "run.triggered",
            actor,
            format!("Run triggered ({})", triggered_by.as_str()),
        );
        log.history_id = Some(row.id);
        if let Some(taker) = self.direct.taker(&scrap.containers) {
            // This process's worker is idle with a slot free: the run is
            // queued claimed by it, and handed over (`direct.rs`).
            let queued = QueuedRun { row: &row, containers: &scrap.containers, param: param.as_ref(), activity: &log };
            let claim = self.store.enqueue_claimed_run(queued, &taker.worker_id, self.lease_until()).await?;
            self.handover.put(row.id, run);
            if let Err(claim) = taker.hand(claim) {
                // The worker stopped meanwhile: the run goes back to the queue.
                self.release(&claim).await?;
            }
            return Ok(row);
        }
        self.store.enqueue_run(&row, &scrap.containers, param.as_ref(), &log).await?;
        self.handover.put(row.id, run);
        self.signals.queued.notify_waiters();
        Ok(row)
    }
}
