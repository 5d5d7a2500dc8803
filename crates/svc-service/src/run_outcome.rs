//! How a finished run is judged and metered (README, Using it; docs/decisions.md, Runs). Pure
//! functions: the worker hands in what the engine saw, these decide.

use serde_json::{Value, json};
use svc_domain::history::StatusDetail;
use svc_domain::site_account::SessionState;

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
}

#[derive(Clone, Debug, PartialEq)]
pub enum ScriptResult {
    /// `returnData` was called with an array: its JSON text and item count.
    Data { json: String, length: i64 },
    /// Navigation failed, the main document answered >= 400, the script
    /// threw, timed out, or ended without `returnData`.
    Failed { message: String },
}

pub const MAX_ERROR_CHARS: usize = 1000;
/// Bytes transferred per extra metered unit.
pub const BYTES_PER_UNIT: u64 = 5 * 1024 * 1024;

/// The outcome of a run given the item count of the previous successful run.
pub fn classify(result: &ScriptResult, previous_success_length: Option<i64>) -> StatusDetail {
    match result {
        ScriptResult::Failed { .. } => StatusDetail::Error,
        ScriptResult::Data { length: 0, .. } => StatusDetail::Empty,
        ScriptResult::Data { length, .. } => match previous_success_length {
            Some(previous) if previous >= 4 && length * 2 < previous => StatusDetail::Regression,
            _ => StatusDetail::Success,
        },
    }
}

/// Units a run costs: one, plus one per started 5 MiB received beyond the first.
pub fn units(bytes: u64) -> i64 {
    1 + (bytes / BYTES_PER_UNIT) as i64
}

pub fn meter(bytes: u64) -> Value {
    let transfer = units(bytes) - 1;
    json!({"units": 1 + transfer, "ratioVersion": 1, "breakdown": {"run": 1, "transfer": transfer}})
}

/// No proxies, captcha solving or AI yet: every priced figure is zero.
pub fn costs(bytes: u64) -> Value {
    json!({"proxy": 0, "captcha": 0, "ai": 0, "fixAi": 0, "total": 0, "priced": true, "bytes": bytes,
           "bytesSource": "cdp", "provider": null, "model": null})
}

/// An error message cut to 1,000 characters (the row's `error`).
pub fn short_error(message: &str) -> String {
    if message.chars().count() <= MAX_ERROR_CHARS {
        return message.to_string();
    }
    let mut cut: String = message.chars().take(MAX_ERROR_CHARS - 1).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(length: i64) -> ScriptResult {
        ScriptResult::Data { json: "[]".into(), length }
    }

    #[test]
    fn outcomes_follow_the_contract() {
        assert_eq!(classify(&ScriptResult::Failed { message: "x".into() }, Some(10)), StatusDetail::Error);
        assert_eq!(classify(&data(0), None), StatusDetail::Empty);
        assert_eq!(classify(&data(0), Some(10)), StatusDetail::Empty);
        assert_eq!(classify(&data(3), None), StatusDetail::Success);
        assert_eq!(classify(&data(4), Some(10)), StatusDetail::Regression);
        assert_eq!(classify(&data(5), Some(10)), StatusDetail::Success, "exactly half is not a drop below half");
        assert_eq!(classify(&data(1), Some(3)), StatusDetail::Success, "previous run under 4 items never regresses");
        assert_eq!(classify(&data(1), Some(4)), StatusDetail::Regression);
    }

    #[test]
    fn metering() {
        assert_eq!(units(0), 1);
        assert_eq!(units(BYTES_PER_UNIT - 1), 1);
        assert_eq!(units(BYTES_PER_UNIT), 2);
        assert_eq!(meter(BYTES_PER_UNIT * 3)["units"], 4);
        assert_eq!(costs(42)["bytes"], 42);
    }

    #[test]
    fn errors_are_cut_to_1000_characters() {
        assert_eq!(short_error("short"), "short");
        let long = "é".repeat(5000);
        assert_eq!(short_error(&long).chars().count(), 1000);
    }
}
