//! A run while it goes: its progress, waiting for it to finish, and the
//! live data of a scrap's last run.

use std::time::Duration;

use svc_domain::scope::Scope;
use svc_domain::{HistoryId, ScrapId};
use svc_storage::QueueState;
use tokio::sync::broadcast;

use crate::runs::history::HistoryView;
use crate::schedule::signals::MAX_WAIT;
use crate::{Principal, Result, ServiceError, Session};

use super::RunService;

/// Where a run is, for a caller watching it.
#[derive(Clone, Debug, PartialEq)]
pub enum RunProgress {
    /// Waiting for a worker.
    Queued,
    /// In a worker's browser.
    Running,
    Finished(Box<HistoryView>),
}

impl RunService {
    /// The row once finished, or `None` if it is still pending after `wait`.
    pub async fn wait_finished(
        &self,
        principal: &Principal,
        id: HistoryId,
        wait: Duration,
    ) -> Result<Option<HistoryView>> {
        let finished = self.signals.finished.subscribe();
        self.wait_subscribed(principal, id, wait, finished, false).await
    }

    /// [`Self::wait_finished`] on a subscription taken before the run could
    /// finish; `pending`: the caller knows the row is pending (it just
    /// queued it), so the first read is skipped.
    pub(super) async fn wait_subscribed(
        &self,
        principal: &Principal,
        id: HistoryId,
        wait: Duration,
        mut finished: broadcast::Receiver<HistoryId>,
        pending: bool,
    ) -> Result<Option<HistoryView>> {
        let deadline = tokio::time::Instant::now() + wait.min(MAX_WAIT);
        let mut read = !pending;
        loop {
            if read {
                let row =
                    self.store.history_row(principal.org(), id).await?.ok_or(ServiceError::NotFound("history row"))?;
                if row.status_detail.is_some() {
                    return Ok(Some(HistoryView::for_principal(row, principal)));
                }
            }
            read = true;
            // Woken by an in-process worker; polled for workers elsewhere.
            let poll = tokio::time::Instant::now() + Duration::from_millis(250);
            let until = poll.min(deadline);
            loop {
                match tokio::time::timeout_at(until, finished.recv()).await {
                    Ok(Ok(done)) if done != id => continue,
                    _ => break,
                }
            }
            if tokio::time::Instant::now() >= deadline {
                return Ok(None);
            }
        }
    }

    /// Whether a run is queued, running or finished (then the row), with
    /// the checks of reading a history row.
    pub async fn progress(&self, principal: &Principal, id: HistoryId) -> Result<RunProgress> {
        principal.require(&[Scope::HistoryRead])?;
        let row = self.store.history_row(principal.org(), id).await?.ok_or(ServiceError::NotFound("history row"))?;
        if !principal.may_see_row_of(row.scrap_id) {
            return Err(ServiceError::ScrapNotInKeyScope);
        }
        if row.status_detail.is_some() {
            return Ok(RunProgress::Finished(Box::new(HistoryView::for_principal(row, principal))));
        }
        match self.store.queue_state(principal.org(), id).await? {
            Some(QueueState::Queued) => Ok(RunProgress::Queued),
            Some(QueueState::Running) => Ok(RunProgress::Running),
            // It left the queue between the two reads: it has finished.
            None => {
                let row =
                    self.store.history_row(principal.org(), id).await?.ok_or(ServiceError::NotFound("history row"))?;
                Ok(match row.status_detail {
                    Some(_) => RunProgress::Finished(Box::new(HistoryView::for_principal(row, principal))),
                    None => RunProgress::Running,
                })
            }
        }
    }

    /// The latest successful run's data (Growth and Pro only).
    pub async fn live_data(&self, session: &Session, scrap: ScrapId) -> Result<String> {
        let org = self.store.organization(session.org()).await?.ok_or(ServiceError::NotFound("organization"))?;
        if !org.plan.has_developer_features() {
            return Err(ServiceError::PlanRequired("the live JSON endpoint"));
        }
        if self.store.existing_scrap_ids(session.org(), &[scrap]).await?.is_empty() {
            return Err(ServiceError::NotFound("scrap"));
        }
        let row =
            self.store.last_success(session.org(), scrap).await?.ok_or(ServiceError::NotFound("successful run"))?;
        Ok(row.data)
    }
}
