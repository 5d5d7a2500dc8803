//! The state chip of a webhook delivery attempt (docs/webhooks.md): a word, and
//! a class for its colour.

use svc_domain::webhook::AttemptState;

use super::run_status::Chip;

pub fn chip(state: AttemptState) -> Chip {
    match state {
        AttemptState::Delivered => Chip { class: "delivered", label: "Delivered" },
        AttemptState::PendingRetry => Chip { class: "pending_retry", label: "Retry pending" },
        AttemptState::Failed => Chip { class: "failed", label: "Failed" },
        AttemptState::Skipped => Chip { class: "skipped", label: "Skipped" },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_state_has_words_and_its_wire_name_as_class() {
        for state in [AttemptState::Delivered, AttemptState::PendingRetry, AttemptState::Failed, AttemptState::Skipped]
        {
            let c = chip(state);
            assert_eq!(c.class, state.as_str());
            assert!(!c.label.is_empty());
        }
        assert_eq!(chip(AttemptState::PendingRetry).label, "Retry pending");
    }
}
