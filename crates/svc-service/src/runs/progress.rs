//! A run while it goes: its progress, waiting for it to finish, and the
//! live data of a scrap's last run.

use std::sync::Arc;
use std::time::Duration;

use svc_domain::scope::Scope;
use svc_domain::{HistoryId, OrgId, ScrapId};
use svc_storage::QueueState;
use tokio::sync::broadcast;

use crate::runs::history::HistoryView;
use crate::schedule::signals::{MAX_WAIT, RunEnded, RunSignals};
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

/// How often the runs callers wait on are read, for workers in other processes.
const POLL: Duration = Duration::from_millis(250);

/// A caller's place among the runs waited on ([`RunSignals::watched`]); gone when dropped.
struct Watching<'a> {
    signals: &'a RunSignals,
    id: HistoryId,
}

impl<'a> Watching<'a> {
    fn new(signals: &'a RunSignals, org: OrgId, id: HistoryId) -> Self {
        let mut watched = signals.watched.lock().unwrap_or_else(|e| e.into_inner());
        watched.runs.entry(id).or_insert((org, 0)).1 += 1;
        Watching { signals, id }
    }
}

impl Drop for Watching<'_> {
    fn drop(&mut self) {
        let mut watched = self.signals.watched.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, callers)) = watched.runs.get_mut(&self.id) {
            *callers -= 1;
            if *callers == 0 {
                watched.runs.remove(&self.id);
            }
        }
    }
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
        mut finished: broadcast::Receiver<RunEnded>,
        pending: bool,
    ) -> Result<Option<HistoryView>> {
        let deadline = tokio::time::Instant::now() + wait.min(MAX_WAIT);
        let _watching = Watching::new(&self.signals, principal.org(), id);
        let mut read = !pending;
        loop {
            if read {
                let row =
                    self.store.history_row(principal.org(), id).await?.ok_or(ServiceError::NotFound("history row"))?;
                if row.status_detail.is_some() {
                    return Ok(Some(HistoryView::for_principal(row, principal)));
                }
            }
            // Woken when the run finishes: by an in-process worker, or by
            // the poll the callers of this process share (workers elsewhere).
            let tick = (tokio::time::Instant::now() + POLL).min(deadline);
            let woken = loop {
                match tokio::time::timeout_at(tick, finished.recv()).await {
                    Ok(Ok(done)) if done.id != id => continue,
                    // Recorded by a worker of this process: the row as stored.
                    Ok(Ok(RunEnded { row: Some(row), .. })) if row.organization_id == principal.org() => {
                        return Ok(Some(HistoryView::for_principal(Arc::unwrap_or_clone(row), principal)));
                    }
                    Err(_) => break false,
                    // Found by the poll, or signals missed (lagged): read the row.
                    Ok(_) => break true,
                }
            };
            if woken {
                read = true;
                continue;
            }
            if tokio::time::Instant::now() >= deadline {
                return Ok(None);
            }
            read = match self.poll_watched().await {
                Ok(_) => false,
                Err(e) => {
                    tracing::debug!("the shared poll of waited runs failed: {e}; reading the run's own row");
                    true
                }
            };
        }
    }

    /// One poll for every caller of this process waiting on a run: which
    /// of their runs have finished (one read), each then signalled as if an
    /// in-process worker had finished it. At most one poll per [`POLL`]
    /// whoever asks; the number of runs found finished.
    pub async fn poll_watched(&self) -> Result<usize> {
        let runs: Vec<(OrgId, HistoryId)> = {
            let mut watched = self.signals.watched.lock().unwrap_or_else(|e| e.into_inner());
            let now = tokio::time::Instant::now();
            if watched.polled.is_some_and(|at| now.duration_since(at) < POLL) || watched.runs.is_empty() {
                return Ok(0);
            }
            watched.polled = Some(now);
            watched.runs.iter().map(|(id, (org, _))| (*org, *id)).collect()
        };
        let finished = self.store.finished_among(&runs).await?;
        for id in &finished {
            let _ = self.signals.finished.send(RunEnded { id: *id, row: None });
        }
        Ok(finished.len())
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
