//! What an engine reports about one run. The service judges it
//! (`svc_service::runs::outcome`); the engine only says what happened.

use serde_json::Value;
use svc_domain::site_account::SessionState;

use crate::crawl::Enqueued;

/// What the engine reports about one run.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineReport {
    pub result: ScriptResult,
    /// Worker duration, navigation included.
    pub duration_ms: i64,
    /// Bytes the browser received (encoded lengths from the network events).
    pub bytes: u64,
    /// Captured on failure: `{html, selector, screenshot}` (screenshot as base64 PNG).
    pub snapshot: Option<Value>,
    /// The main document's HTTP status, when one arrived.
    pub status: Option<i64>,
    /// The page's HTML as the script left it, when the job asked for it
    /// (`RunJob::capture_page`; cut to 512 KiB).
    pub html: Option<String>,
    /// The context's session (cookies, the target origin's localStorage)
    /// after a run of a job with a site login that returned items; the
    /// service saves it when the run's outcome is `success`.
    pub session: Option<SessionState>,
    /// The pages the script added with `SVC.enqueue` (a crawl), in the
    /// order it added them.
    pub enqueued: Vec<Enqueued>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ScriptResult {
    /// `returnData` was called with an array: its JSON text and item count.
    Data { json: String, length: i64 },
    /// Navigation failed, the main document answered >= 400, the script
    /// threw, timed out, or ended without `returnData`.
    Failed { message: String },
}

impl EngineReport {
    /// The report of a run that failed before any page was loaded: no
    /// time, no bytes, nothing captured.
    pub fn not_run(message: String) -> Self {
        EngineReport {
            result: ScriptResult::Failed { message },
            duration_ms: 0,
            bytes: 0,
            snapshot: None,
            status: None,
            html: None,
            session: None,
            enqueued: vec![],
        }
    }
}
