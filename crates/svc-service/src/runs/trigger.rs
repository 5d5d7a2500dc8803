//! Triggering a run: the checks of a trigger, and the pending row and
//! queue entry it writes in one transaction.

use chrono::Utc;
use svc_domain::ScrapId;
use svc_domain::activity::Activity;
use svc_domain::history::{DIRECT_TIER, HistoryRow, TriggeredBy};
use svc_domain::scope::Scope;
use svc_domain::scrap::{ParamSet, Scrap};

use crate::accounts::rate_limits::{TRIGGER_PER_KEY, load_quota};
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

impl RunService {
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
        let mut log = Activity::new(
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
}
