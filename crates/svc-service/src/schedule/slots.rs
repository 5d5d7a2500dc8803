//! The engine runs a process may have going at once
//! (`SVC_WORKER_CONCURRENCY`). Queued runs, editor test runs and AI tasks'
//! page loads each take a slot from the same [`RunSlots`], so a burst of
//! test runs cannot start more browser pages than the worker is sized for:
//! the worker takes a slot before it claims a run, and the engine attached
//! for test runs and AI tasks ([`SlottedEngine`]) waits for one before each
//! run.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use async_trait::async_trait;
use svc_engine::{Engine, EngineReport, RunJob};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// A process's run slots. Clones share them.
#[derive(Clone, Debug)]
pub struct RunSlots {
    permits: Arc<Semaphore>,
    capacity: usize,
    waiting: Arc<AtomicUsize>,
}

/// How a process's slots are used right now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SlotUse {
    pub capacity: usize,
    /// Slots taken by runs in progress (or by the worker about to claim one).
    pub busy: usize,
    /// Test runs and AI page loads waiting for a slot.
    pub waiting: usize,
}

impl RunSlots {
    /// `capacity` slots (at least one).
    pub fn new(capacity: usize) -> Self {
        let capacity = capacity.max(1);
        RunSlots { permits: Arc::new(Semaphore::new(capacity)), capacity, waiting: Arc::default() }
    }

    /// Waits for a free slot (first come, first served); it is given back
    /// when the permit is dropped. The worker's wait, not counted as waiting.
    pub async fn take(&self) -> OwnedSemaphorePermit {
        self.permits.clone().acquire_owned().await.expect("the slots' semaphore is never closed")
    }

    /// A free slot now, if there is one: a crawl's extra parallel pages,
    /// which never wait (a crawl holding its run's slot while it waits for
    /// another could wait forever).
    pub fn try_take(&self) -> Option<OwnedSemaphorePermit> {
        self.permits.clone().try_acquire_owned().ok()
    }

    /// [`Self::take`] for a run outside the queue, counted in [`SlotUse::waiting`].
    async fn wait_for_one(&self) -> OwnedSemaphorePermit {
        self.waiting.fetch_add(1, Ordering::SeqCst);
        let permit = self.take().await;
        self.waiting.fetch_sub(1, Ordering::SeqCst);
        permit
    }

    pub fn usage(&self) -> SlotUse {
        SlotUse {
            capacity: self.capacity,
            busy: self.capacity - self.permits.available_permits(),
            waiting: self.waiting.load(Ordering::SeqCst),
        }
    }
}

/// An engine whose every run (and screenshot) first takes one of `slots`.
pub struct SlottedEngine {
    engine: Arc<dyn Engine>,
    slots: RunSlots,
}

impl SlottedEngine {
    pub fn new(engine: Arc<dyn Engine>, slots: RunSlots) -> Self {
        SlottedEngine { engine, slots }
    }
}

#[async_trait]
impl Engine for SlottedEngine {
    fn warm(&self) -> Vec<svc_engine::Warm> {
        self.engine.warm()
    }

    async fn run(&self, job: RunJob) -> EngineReport {
        let _slot = self.slots.wait_for_one().await;
        self.engine.run(job).await
    }

    async fn screenshot(&self, job: RunJob) -> svc_engine::Screenshot {
        let _slot = self.slots.wait_for_one().await;
        self.engine.screenshot(job).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_slot_is_waited_for_and_given_back() {
        let slots = RunSlots::new(1);
        let held = slots.take().await;
        assert_eq!(slots.usage(), SlotUse { capacity: 1, busy: 1, waiting: 0 });
        let other = slots.clone();
        let waiter = tokio::spawn(async move { other.wait_for_one().await });
        let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(5);
        while slots.usage().waiting == 0 {
            assert!(tokio::time::Instant::now() < deadline, "the second taker never waited");
            tokio::task::yield_now().await;
        }
        assert!(!waiter.is_finished());
        drop(held);
        let second = waiter.await.unwrap();
        assert_eq!(slots.usage(), SlotUse { capacity: 1, busy: 1, waiting: 0 });
        drop(second);
        assert_eq!(slots.usage().busy, 0);
        assert_eq!(RunSlots::new(0).usage().capacity, 1, "at least one slot");
    }
}
