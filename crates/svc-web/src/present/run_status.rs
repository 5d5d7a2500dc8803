//! The status chip of a run: a word, and a class for its colour (the word
//! alone carries the meaning).

use svc_domain::history::{RunType, StatusDetail, TriggeredBy};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chip {
    /// CSS modifier: `success`, `empty`, `regression`, `error`, `running`, `none`.
    pub class: &'static str,
    pub label: &'static str,
}

/// The chip of a run: `None` detail means pending or in flight.
pub fn chip(detail: Option<StatusDetail>) -> Chip {
    match detail {
        None => Chip { class: "running", label: "Running" },
        Some(StatusDetail::Success) => Chip { class: "success", label: "Success" },
        Some(StatusDetail::Empty) => Chip { class: "empty", label: "Empty" },
        Some(StatusDetail::Regression) => Chip { class: "regression", label: "Regression" },
        Some(StatusDetail::Error) => Chip { class: "error", label: "Error" },
    }
}

/// What an outcome means, in a few words.
pub fn meaning(detail: Option<StatusDetail>) -> &'static str {
    match detail {
        None => "the run is queued or in progress",
        Some(StatusDetail::Success) => "the script returned data",
        Some(StatusDetail::Empty) => "the script returned no items",
        Some(StatusDetail::Regression) => "far fewer items than the run before",
        Some(StatusDetail::Error) => "the run failed",
    }
}

/// What started a run, as a column shows it.
pub fn trigger(by: TriggeredBy) -> &'static str {
    match by {
        TriggeredBy::User => "Run now",
        TriggeredBy::Api => "API",
        TriggeredBy::Cron => "Schedule",
    }
}

/// What kind of row it is, for a row without a scrap.
pub fn operation(run_type: RunType) -> &'static str {
    match run_type {
        RunType::ScrapRun => "Scrap run",
        RunType::AiWizard => "AI wizard",
        RunType::AiGenerate => "AI script generation",
    }
}

/// The chip of a scrap that has never run.
pub const NEVER: Chip = Chip { class: "none", label: "Never run" };

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_state_has_words() {
        assert_eq!(chip(None).label, "Running");
        assert_eq!(chip(Some(StatusDetail::Regression)).class, "regression");
        assert_eq!(chip(Some(StatusDetail::Error)).label, "Error");
        assert_eq!(NEVER.label, "Never run");
        assert_eq!(meaning(Some(StatusDetail::Empty)), "the script returned no items");
        assert_eq!(trigger(TriggeredBy::Cron), "Schedule");
    }
}
