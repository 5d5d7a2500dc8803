//! A run worker: claims queued runs for one container id and runs them on an
//! engine, one per run slot it holds (slots.rs: test runs and AI tasks in
//! the same process take from the same slots).

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::runs::ClaimedRun;
use crate::schedule::RunSlots;
use crate::schedule::backoff::Backoff;
use crate::{Result, Services};
use svc_domain::HistoryId;
use svc_engine::Engine;
use svc_storage::NextRun;
use tokio::sync::futures::Notified;
use tokio::task::JoinSet;

/// How often a worker looks for runs whose worker disappeared.
const REAP_EVERY: Duration = Duration::from_secs(10);
/// How often an idle worker looks for runs queued by other processes.
const IDLE_POLL: Duration = Duration::from_secs(1);
/// How long in-flight runs may take to finish after shutdown, by default.
pub const DEFAULT_SHUTDOWN_GRACE: Duration = Duration::from_secs(30);

/// The claims of the runs in flight, by history id.
type InFlight = Arc<Mutex<HashMap<HistoryId, ClaimedRun>>>;

pub struct Worker {
    services: Arc<Services>,
    engine: Arc<dyn Engine>,
    container: String,
    worker_id: String,
    slots: RunSlots,
    grace: Duration,
    /// Whether claims prefer the runs that fit what the engine keeps warm.
    affinity: bool,
}

impl Worker {
    pub fn new(services: Arc<Services>, engine: Arc<dyn Engine>, container: &str, slots: RunSlots) -> Self {
        // Unique per worker, also across restarts that reuse a pid.
        let worker_id = format!("{container}-{}-{}", std::process::id(), svc_domain::ObjectId::new());
        Worker {
            services,
            engine,
            container: container.to_ascii_lowercase(),
            worker_id,
            slots,
            grace: DEFAULT_SHUTDOWN_GRACE,
            affinity: true,
        }
    }

    /// How long the runs in flight at shutdown may take to finish; those
    /// still going then are released for another worker (`SVC_SHUTDOWN_GRACE`).
    pub fn with_shutdown_grace(mut self, grace: Duration) -> Self {
        self.grace = grace;
        self
    }

    /// Whether claims prefer the queued runs that fit what the engine
    /// keeps warm (`SVC_CLAIM_AFFINITY`; on by default).
    pub fn with_affinity(mut self, affinity: bool) -> Self {
        self.affinity = affinity;
        self
    }

    /// What the engine keeps warm, when claims prefer runs that fit it.
    fn warm(&self) -> Vec<svc_engine::Warm> {
        if self.affinity { self.engine.warm() } else { Vec::new() }
    }

    /// Tells the engine of a claim, when claims prefer runs that fit what
    /// it keeps warm: it keeps the page that fits for this run.
    fn tell_claimed(&self, claim: &ClaimedRun) {
        if self.affinity
            && let (Some(url), Some(scrapper)) = (&claim.url, &claim.scrapper)
        {
            let key = svc_engine::ReuseKey { organization: claim.organization_id, scrap: claim.scrap_id };
            self.engine.claimed(key, url, scrapper);
        }
    }

    pub fn id(&self) -> &str {
        &self.worker_id
    }

    /// Claims one queued run and runs it to its end; false when none was queued.
    pub async fn try_step(&self) -> Result<bool> {
        let warm = self.warm();
        let Some(claim) = self.services.runs.claim(&self.container, &self.worker_id, &warm).await? else {
            return Ok(false);
        };
        self.tell_claimed(&claim);
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

    /// A claimed run to its end. When the database was unreachable (the
    /// run could not be read or recorded), the claim is released as soon
    /// as the database answers again, so that the run is tried again at
    /// once rather than after its lease.
    async fn execute_or_release(&self, claim: ClaimedRun) {
        let history = claim.history_id;
        match self.execute(claim.clone()).await {
            Ok(()) => {}
            Err(e) if e.is_store_unavailable() => {
                tracing::warn!(%history, "run not recorded, the database is unreachable: {e}; releasing it once it is back");
                let mut backoff = Backoff::default();
                loop {
                    tokio::time::sleep(backoff.failed()).await;
                    match self.services.runs.release(&claim).await {
                        Ok(released) => {
                            tracing::info!(%history, released, "database back: run given back to the queue");
                            break;
                        }
                        Err(e) if e.is_store_unavailable() => continue,
                        Err(e) => {
                            tracing::error!(%history, "releasing a run failed: {e}; it is retried after its lease");
                            break;
                        }
                    }
                }
            }
            Err(e) => tracing::error!(%history, "run failed to complete: {e}"),
        }
    }

    /// Works until `shutdown` resolves, then lets the runs in flight finish
    /// within the grace period and releases those still going.
    pub async fn run(self: Arc<Self>, shutdown: impl Future<Output = ()>) {
        let in_flight: InFlight = Arc::default();
        let mut tasks = JoinSet::new();
        let mut shutdown = std::pin::pin!(shutdown);
        let mut next_reap = tokio::time::Instant::now();
        let mut backoff = Backoff::default();
        // Set when the last claim found the queue empty after it: the wake-up
        // of the next enqueue (armed before that claim, so none is missed),
        // waited for before claiming again, without holding a slot.
        let mut idle: Option<Pin<Box<Notified<'_>>>> = None;
        // Runs triggered in this process while this worker is idle come
        // claimed for it, with their slot (`direct.rs`).
        let mut lane = self.services.runs.open_direct_lane(&self.container, &self.worker_id, self.slots.clone());
        tracing::info!(worker = %self.worker_id, container = %self.container, "run worker started");
        loop {
            while tasks.try_join_next().is_some() {}
            while let Ok((claim, permit)) = lane.claims.try_recv() {
                self.spawn_run(&mut tasks, &in_flight, claim, permit);
            }
            if tokio::time::Instant::now() >= next_reap {
                if let Err(e) = self.services.runs.reap_lost_runs().await {
                    tracing::warn!("reaping lost runs failed: {e}");
                }
                next_reap = tokio::time::Instant::now() + REAP_EVERY;
            }
            if let Some(mut queued) = idle.take() {
                lane.set_idle(true);
                let poll = tokio::time::sleep(IDLE_POLL);
                tokio::pin!(poll);
                let stop = loop {
                    tokio::select! {
                        _ = &mut queued => break false,
                        _ = &mut poll => break false,
                        Some((claim, permit)) = lane.claims.recv() => {
                            self.spawn_run(&mut tasks, &in_flight, claim, permit);
                        }
                        _ = &mut shutdown => break true,
                    }
                };
                lane.set_idle(false);
                if stop {
                    break;
                }
            }
            let permit = tokio::select! {
                permit = self.slots.take() => permit,
                _ = &mut shutdown => break,
            };
            let mut queued = Box::pin(self.services.runs.signals.queued.notified());
            queued.as_mut().enable();
            let warm = self.warm();
            match self.services.runs.claim_next(&self.container, &self.worker_id, &warm).await {
                Ok(Some(NextRun { claim, more_queued })) => {
                    log_recovery(&mut backoff);
                    if !more_queued {
                        idle = Some(queued);
                    }
                    self.spawn_run(&mut tasks, &in_flight, claim, permit);
                }
                Ok(None) => {
                    log_recovery(&mut backoff);
                    drop(permit);
                    idle = Some(queued);
                }
                Err(e) => {
                    drop(permit);
                    let delay = backoff.failed();
                    tracing::warn!(
                        failures = backoff.failures(),
                        retry_in_ms = delay.as_millis() as u64,
                        "claiming a run failed: {e}"
                    );
                    tokio::select! {
                        _ = tokio::time::sleep(delay) => {},
                        _ = &mut shutdown => break,
                    }
                }
            }
        }
        // No run is handed over from now on; those handed meanwhile run
        // within the grace period as the others.
        self.services.runs.close_direct_lane(&self.worker_id);
        lane.claims.close();
        while let Ok((claim, permit)) = lane.claims.try_recv() {
            self.spawn_run(&mut tasks, &in_flight, claim, permit);
        }
        self.drain(tasks, &in_flight).await;
        tracing::info!(worker = %self.worker_id, "run worker stopped");
    }

    /// Runs `claim` in the slot `permit` holds, as one of the runs in flight.
    fn spawn_run(
        self: &Arc<Self>,
        tasks: &mut JoinSet<()>,
        in_flight: &InFlight,
        claim: ClaimedRun,
        permit: tokio::sync::OwnedSemaphorePermit,
    ) {
        self.tell_claimed(&claim);
        let me = self.clone();
        let in_flight = in_flight.clone();
        in_flight.lock().unwrap_or_else(|e| e.into_inner()).insert(claim.history_id, claim.clone());
        tasks.spawn(async move {
            let history = claim.history_id;
            me.execute_or_release(claim).await;
            in_flight.lock().unwrap_or_else(|e| e.into_inner()).remove(&history);
            drop(permit);
        });
    }

    /// At shutdown: waits up to the grace period for the runs in flight,
    /// then stops the rest and gives their claims back to the queue.
    async fn drain(&self, mut tasks: JoinSet<()>, in_flight: &InFlight) {
        if tasks.is_empty() {
            return;
        }
        tracing::info!(worker = %self.worker_id, runs = tasks.len(), grace_ms = self.grace.as_millis() as u64, "waiting for the runs in flight");
        let finished = tokio::time::timeout(self.grace, async { while tasks.join_next().await.is_some() {} }).await;
        if finished.is_ok() {
            return;
        }
        tasks.abort_all();
        while tasks.join_next().await.is_some() {}
        let left: Vec<ClaimedRun> =
            in_flight.lock().unwrap_or_else(|e| e.into_inner()).drain().map(|(_, c)| c).collect();
        for claim in left {
            match self.services.runs.release(&claim).await {
                Ok(released) => {
                    tracing::info!(history = %claim.history_id, released, "run still going at the end of the grace period: released for another worker")
                }
                Err(e) => {
                    tracing::warn!(history = %claim.history_id, "could not release a run at shutdown ({e}); it is retried after its lease")
                }
            }
        }
    }
}

/// Logs the end of a run of failures, and resets the count.
fn log_recovery(backoff: &mut Backoff) {
    let failures = backoff.succeeded();
    if failures > 0 {
        tracing::info!(failures, "run worker: the database answers again");
    }
}
