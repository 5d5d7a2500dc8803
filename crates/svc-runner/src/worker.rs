//! A run worker: claims queued runs for one container id and runs them on an
//! engine, at most `concurrency` at once.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use svc_service::engine::Engine;
use svc_service::runs::ClaimedRun;
use svc_service::{Result, Services};
use tokio::sync::Semaphore;

/// How often a worker looks for runs whose worker disappeared.
const REAP_EVERY: Duration = Duration::from_secs(10);
/// How often an idle worker looks for runs queued by other processes.
const IDLE_POLL: Duration = Duration::from_secs(1);

pub struct Worker {
    services: Arc<Services>,
    engine: Arc<dyn Engine>,
    container: String,
    worker_id: String,
    concurrency: usize,
}

impl Worker {
    pub fn new(services: Arc<Services>, engine: Arc<dyn Engine>, container: &str, concurrency: usize) -> Self {
        // Unique per worker, also across restarts that reuse a pid.
        let worker_id = format!("{container}-{}-{}", std::process::id(), svc_domain::ObjectId::new());
        Worker {
            services,
            engine,
            container: container.to_ascii_lowercase(),
            worker_id,
            concurrency: concurrency.max(1),
        }
    }

    pub fn id(&self) -> &str {
        &self.worker_id
    }

    /// Claims one queued run and runs it to its end; false when none was queued.
    pub async fn try_step(&self) -> Result<bool> {
        let Some(claim) = self.services.runs.claim(&self.container, &self.worker_id).await? else { return Ok(false) };
        self.execute(claim).await?;
        Ok(true)
    }

    async fn execute(&self, claim: ClaimedRun) -> Result<()> {
        // `None`: the scrap was deleted meanwhile, and its queue entry with it.
        if let Some(detail) = self.services.runs.execute(&claim, &*self.engine).await? {
            tracing::debug!(history = %claim.history_id, outcome = detail.as_str(), "run finished");
        }
        Ok(())
    }

    /// Works until `shutdown` resolves, then lets the runs in flight finish.
    pub async fn run(self: Arc<Self>, shutdown: impl Future<Output = ()>) {
        let permits = Arc::new(Semaphore::new(self.concurrency));
        let mut shutdown = std::pin::pin!(shutdown);
        let mut next_reap = tokio::time::Instant::now();
        tracing::info!(worker = %self.worker_id, container = %self.container, "run worker started");
        loop {
            if tokio::time::Instant::now() >= next_reap {
                if let Err(e) = self.services.runs.reap_lost_runs().await {
                    tracing::warn!("reaping lost runs failed: {e}");
                }
                next_reap = tokio::time::Instant::now() + REAP_EVERY;
            }
            let permit = tokio::select! {
                permit = permits.clone().acquire_owned() => permit.expect("semaphore is never closed"),
                _ = &mut shutdown => break,
            };
            let queued = self.services.runs.signals.queued.notified();
            let mut queued = std::pin::pin!(queued);
            queued.as_mut().enable();
            match self.services.runs.claim(&self.container, &self.worker_id).await {
                Ok(Some(claim)) => {
                    let me = self.clone();
                    tokio::spawn(async move {
                        let history = claim.history_id;
                        if let Err(e) = me.execute(claim).await {
                            tracing::error!(%history, "run failed to complete: {e}");
                        }
                        drop(permit);
                    });
                }
                Ok(None) => {
                    drop(permit);
                    tokio::select! {
                        _ = queued => {},
                        _ = tokio::time::sleep(IDLE_POLL) => {},
                        _ = &mut shutdown => break,
                    }
                }
                Err(e) => {
                    drop(permit);
                    tracing::warn!("claiming a run failed: {e}");
                    tokio::select! {
                        _ = tokio::time::sleep(IDLE_POLL) => {},
                        _ = &mut shutdown => break,
                    }
                }
            }
        }
        let _ = permits.acquire_many(self.concurrency as u32).await;
        tracing::info!(worker = %self.worker_id, "run worker stopped");
    }
}
