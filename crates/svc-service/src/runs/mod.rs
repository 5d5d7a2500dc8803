//! Runs: triggering them, executing them on an engine, finishing them
//! (judged and metered by `outcome`), their progress and their results
//! (`history`); which engine runs an `auto` scrap (`engine_choice`); and
//! the worker that claims queued runs (`worker`).

pub mod crawl;
mod direct;
pub mod engine_choice;
mod execute;
mod finish;
mod handover;
pub mod history;
pub mod outcome;
mod progress;
mod queue;
mod screenshot;
mod test_run;
mod trigger;
pub mod worker;

use crate::schedule::{RunSlots, SlotUse, SlottedEngine};
pub use crawl::PageRecord;
pub use direct::LaneEnd;
pub use progress::RunProgress;
pub use test_run::{NO_ENGINE_HERE, StaticAlternative, TestRun, TestRunOutcome};
pub use trigger::{Trigger, Triggered};

/// How long a trigger may wait for its run (the rule lives with the
/// signals it waits on, and the AI tasks share it).
pub use crate::schedule::signals::{MAX_WAIT, wait_from_secs, wait_refused};

use std::sync::Arc;
use std::time::Duration;

use svc_storage::Store;
pub use svc_storage::{ClaimedRun, ExpiredLeases};

use crate::accounts::rate_limits::RateLimits;
use crate::ai::attachments::Attachments;
use crate::ai::model::{AiModel, AiPricing};
use crate::metrics::Metrics;
use crate::outbox::EmailSettings;
use crate::schedule::signals::RunSignals;
use crate::scraps::proxy_tiers::TierSettings;
use svc_engine::Engine;

/// How many times a run is tried when its worker disappears.
pub const MAX_ATTEMPTS: i64 = 2;

/// Runs: triggers, test runs, execution on an engine, finishing, the
/// queue as workers see it, and progress. Its methods are spread over the
/// room's files by what they do.
pub struct RunService {
    store: Arc<dyn Store>,
    email: EmailSettings,
    /// This process's browser (test runs) and model (digests, AI Fix).
    attached: Arc<Attachments>,
    pub signals: Arc<RunSignals>,
    run_timeout: Duration,
    limits: Arc<RateLimits>,
    /// AI Fix repairs per organization per UTC day.
    fix_daily: i64,
    /// The proxy tiers this server has, their prices and multipliers.
    tiers: TierSettings,
    /// Counts finished runs (`svc_runs_total`, `svc_run_duration_seconds`).
    metrics: Arc<Metrics>,
    /// The operator's caps on crawls.
    crawl: crawl::CrawlSettings,
    /// What triggers read, for this process's claims of their runs.
    handover: handover::Handover,
    /// This process's worker, to hand it triggered runs claimed at once.
    direct: direct::DirectLane,
}

/// What a [`RunService`] is made of, besides its store.
pub(crate) struct RunServiceParts {
    pub run_timeout: Duration,
    pub limits: Arc<RateLimits>,
    pub email: EmailSettings,
    pub attached: Arc<Attachments>,
    /// AI Fix repairs per organization per UTC day.
    pub fix_daily: i64,
    pub tiers: TierSettings,
    pub metrics: Arc<Metrics>,
    pub crawl: crawl::CrawlSettings,
}

impl RunService {
    pub(crate) fn new(store: Arc<dyn Store>, parts: RunServiceParts) -> Self {
        let RunServiceParts { run_timeout, limits, email, attached, fix_daily, tiers, metrics, crawl } = parts;
        RunService {
            store,
            email,
            attached,
            signals: Arc::new(RunSignals::default()),
            run_timeout,
            limits,
            fix_daily,
            tiers,
            metrics,
            crawl,
            handover: handover::Handover::default(),
            direct: direct::DirectLane::default(),
        }
    }

    /// Gives test runs this process's browser; a second engine is ignored.
    /// Attaches this process's engine for test runs and AI tasks: each of
    /// their runs takes one of `slots`, the worker's, first.
    pub fn attach_engine(&self, engine: Arc<dyn Engine>, slots: RunSlots) {
        self.attached.set_engine(Arc::new(SlottedEngine::new(engine, slots.clone())));
        self.attached.set_slots(slots);
    }

    /// How this process's run slots are used, once an engine is attached.
    pub fn slot_use(&self) -> Option<SlotUse> {
        self.attached.slots().map(RunSlots::usage)
    }

    pub fn run_timeout(&self) -> Duration {
        self.run_timeout
    }

    /// Whether a model is attached (`SVC_AI_BASE_URL`).
    pub fn ai_enabled(&self) -> bool {
        self.attached.model().is_some()
    }

    /// Gives digests (and the other AI features) a model; a second one is ignored.
    pub fn attach_ai(&self, model: Arc<dyn AiModel>, pricing: AiPricing) {
        self.attached.set_model(model, pricing);
    }
}

#[cfg(test)]
mod tests;
