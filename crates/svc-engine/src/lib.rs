//! The engine contract: what an engine is handed ([`RunJob`]), what it
//! reports ([`EngineReport`]), the port it implements ([`Engine`]), and what
//! every engine shares (script directives, host vetting, a confined run's
//! sites, the script's caps, the counters it feeds). The engines (`svc-runner`, `svc-static`) depend on
//! this crate and `svc-domain` only; the service layer hands them jobs
//! through [`Engine`] and judges their reports itself.

mod confinement;
pub mod crawl;
pub mod directives;
pub mod host_vetting;
mod isolation;
mod job;
mod metrics;
pub mod own_ports;
mod port;
mod report;
pub mod script;
mod site;

pub use confinement::Confinement;
pub use crawl::{CrawlLimits, Enqueued, PageInput};
pub use directives::Loads;
pub use isolation::{BrowserSandbox, IsolationReport};
pub use job::{PageCapture, ReuseKey, RunJob};
pub use metrics::{BrowserRestart, EngineMetrics};
pub use port::{Engine, EnginesByScrapper, NO_SCREENSHOTS, Screenshot, Warm};
pub use report::{EngineReport, ScriptResult};
pub use site::Site;
