//! How a finished run is judged and metered (docs/scraps.md; docs/decisions.md, Runs). Pure
//! functions: the worker hands in what the engine saw, these decide.

use svc_domain::history::StatusDetail;
use svc_engine::ScriptResult;

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
}
