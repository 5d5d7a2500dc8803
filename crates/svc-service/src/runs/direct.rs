//! A run handed straight from its trigger to this process's worker.
//!
//! A triggered run was queued, then the worker woke on the queue's signal
//! and claimed it: two writes and a wake-up on the run's way, while a
//! caller waits. When this process's worker is idle (its last claim found
//! nothing else queued for its container, and no enqueue woke it since)
//! and has a slot free, the trigger queues the run already claimed by that
//! worker, in the same transaction (`RunStore::enqueue_claimed_run`), and
//! hands the claim with its slot over this lane; the worker runs it as any
//! claim. A run queued by another process while the worker believes the
//! queue empty waits at most the worker's idle poll (a second) behind one.
//!
//! The worker opens the lane when it starts and closes it when it stops; a
//! claim it can no longer take is given back to the queue by the trigger.

use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use svc_storage::ClaimedRun;
use tokio::sync::OwnedSemaphorePermit;
use tokio::sync::mpsc;

use crate::schedule::RunSlots;

/// A claim and the slot it runs in.
pub(crate) type Handed = (ClaimedRun, OwnedSemaphorePermit);

/// The worker's end: what it reads claims from.
pub struct LaneEnd {
    pub(crate) claims: mpsc::UnboundedReceiver<Handed>,
    pub(crate) idle: Arc<AtomicBool>,
}

struct Lane {
    container: String,
    worker_id: String,
    slots: RunSlots,
    idle: Arc<AtomicBool>,
    sender: mpsc::UnboundedSender<Handed>,
}

/// The lane of this process's worker, if one is open.
#[derive(Default)]
pub(crate) struct DirectLane(Mutex<Option<Lane>>);

/// What a trigger may hand a run to: the worker's id, and a slot taken.
pub(crate) struct Taker {
    pub worker_id: String,
    permit: OwnedSemaphorePermit,
    sender: mpsc::UnboundedSender<Handed>,
}

impl DirectLane {
    /// Opens the lane of worker `worker_id` serving `container` with `slots`
    /// (replacing another's), idle until it says otherwise.
    pub(crate) fn open(&self, container: &str, worker_id: &str, slots: RunSlots) -> LaneEnd {
        let (sender, claims) = mpsc::unbounded_channel();
        let idle = Arc::new(AtomicBool::new(false));
        let lane = Lane {
            container: container.to_string(),
            worker_id: worker_id.to_string(),
            slots,
            idle: idle.clone(),
            sender,
        };
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = Some(lane);
        LaneEnd { claims, idle }
    }

    /// Closes worker `worker_id`'s lane, if it is still the one open.
    pub(crate) fn close(&self, worker_id: &str) {
        let mut lane = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if lane.as_ref().is_some_and(|l| l.worker_id == worker_id) {
            *lane = None;
        }
    }

    /// The worker a run for `containers` may be handed to now: idle, serving
    /// one of them, with a slot free (taken here).
    pub(crate) fn taker(&self, containers: &[String]) -> Option<Taker> {
        let lane = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let lane = lane.as_ref()?;
        if !lane.idle.load(Ordering::SeqCst) || !containers.contains(&lane.container) {
            return None;
        }
        let permit = lane.slots.try_take()?;
        Some(Taker { worker_id: lane.worker_id.clone(), permit, sender: lane.sender.clone() })
    }

    /// Whether a lane is open and its worker idle.
    #[cfg(test)]
    pub(crate) fn is_idle(&self) -> bool {
        self.0.lock().unwrap().as_ref().is_some_and(|lane| lane.idle.load(Ordering::SeqCst))
    }
}

impl Taker {
    /// Hands `claim` to the worker; the claim back when its lane is closed.
    pub(crate) fn hand(self, claim: ClaimedRun) -> Result<(), Box<ClaimedRun>> {
        self.sender.send((claim, self.permit)).map_err(|e| Box::new(e.0.0))
    }
}

impl LaneEnd {
    /// Whether the worker waits for the next enqueue with nothing queued for it.
    pub(crate) fn set_idle(&self, idle: bool) {
        self.idle.store(idle, Ordering::SeqCst);
    }
}
