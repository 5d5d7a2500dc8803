//! The status chip of a run: a word, and a class for its colour (the word
//! alone carries the meaning).

use svc_domain::history::StatusDetail;

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
    }
}
