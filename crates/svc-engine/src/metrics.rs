//! What an engine counts for `GET /metrics`. The service layer's
//! `Metrics` implements [`EngineMetrics`]; an engine holds the trait only.

/// Why a browser was replaced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BrowserRestart {
    /// The process died (or stopped answering).
    Crashed,
    /// It had served its number of runs.
    Recycled,
}

/// The counters an engine feeds.
pub trait EngineMetrics: Send + Sync {
    fn browser_restarted(&self, why: BrowserRestart);
}
