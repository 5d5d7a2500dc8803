//! Time: cron expressions (`cron`), the scheduler loop that fires them
//! (`scheduler`), the weekly plan renewal calendar (`renewal`), and the
//! retry delays every background loop backs off with (`backoff`).

pub mod backoff;
pub mod cron;
pub mod housekeeping;
pub mod renewal;
pub mod scheduler;
pub mod signals;
pub mod slots;

pub use slots::{RunSlots, SlotUse, SlottedEngine};
