//! What a process attaches to its services after building them: its
//! browser (runs in this process: test runs, AI tasks) and the language
//! model of `SVC_AI_BASE_URL`. Shared by the services that use them.

use std::sync::{Arc, OnceLock};

use crate::ai::model::{AiModel, AiPricing};
use crate::schedule::RunSlots;
use svc_engine::Engine;

/// The model and what its calls cost.
pub struct AttachedModel {
    pub model: Arc<dyn AiModel>,
    pub pricing: AiPricing,
}

#[derive(Default)]
pub struct Attachments {
    engine: OnceLock<Arc<dyn Engine>>,
    slots: OnceLock<RunSlots>,
    model: OnceLock<AttachedModel>,
}

impl Attachments {
    /// The first engine attached wins; a second is ignored.
    pub fn set_engine(&self, engine: Arc<dyn Engine>) {
        let _ = self.engine.set(engine);
    }
    /// The run slots the engine's runs take (the first attached win).
    pub fn set_slots(&self, slots: RunSlots) {
        let _ = self.slots.set(slots);
    }
    pub fn slots(&self) -> Option<&RunSlots> {
        self.slots.get()
    }
    /// The first model attached wins; a second is ignored.
    pub fn set_model(&self, model: Arc<dyn AiModel>, pricing: AiPricing) {
        let _ = self.model.set(AttachedModel { model, pricing });
    }
    pub fn engine(&self) -> Option<&Arc<dyn Engine>> {
        self.engine.get()
    }
    pub fn model(&self) -> Option<&AttachedModel> {
        self.model.get()
    }
}
