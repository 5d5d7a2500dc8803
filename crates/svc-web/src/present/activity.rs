//! The kinds of a scrap's activity log that deserve a tag of their own
//! (AI Fix and script versions), and who did them, in words.

use super::actor;
use super::run_status::Chip;

/// The tag shown before an entry's message, for the kinds written by AI Fix
/// and by restoring a version; `None` for the others (their message says it all).
pub fn tag(kind: &str) -> Option<Chip> {
    Some(match kind {
        "fix.started" => Chip { class: "pending", label: "AI Fix" },
        "fix.skipped" => Chip { class: "skipped", label: "AI Fix skipped" },
        "fix.failed" => Chip { class: "error", label: "AI Fix failed" },
        "fix.proposed" => Chip { class: "pending", label: "AI Fix: approve?" },
        "fix.approved" => Chip { class: "success", label: "AI Fix approved" },
        "fix.dismissed" => Chip { class: "none", label: "AI Fix dismissed" },
        "script.fixed" => Chip { class: "success", label: "Script fixed" },
        "script.restored" => Chip { class: "none", label: "Script restored" },
        _ => return None,
    })
}

/// Whether an entry of this kind made a new version of the script (its
/// entry links to the versions page).
pub fn made_a_version(kind: &str) -> bool {
    matches!(kind, "script.fixed" | "script.restored" | "fix.approved")
}

/// Whether an entry of this kind asks its reader to decide (its entry
/// links to the AI Fix review).
pub fn asks_for_approval(kind: &str) -> bool {
    kind == "fix.proposed"
}

/// Who did it: AI Fix's entries are the system's, said as "AI Fix".
pub fn by(kind: &str, who: &str, me: &str) -> String {
    if who == "system" && (kind.starts_with("fix.") || kind == "script.fixed") {
        return "AI Fix".into();
    }
    actor::words(who, me)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ai_fix_kinds_are_tagged_and_said_as_ai_fix() {
        assert_eq!(tag("script.fixed").unwrap().label, "Script fixed");
        assert_eq!(tag("fix.failed").unwrap().class, "error");
        assert_eq!(tag("fix.skipped").unwrap().label, "AI Fix skipped");
        assert_eq!(tag("fix.started").unwrap().label, "AI Fix");
        assert_eq!(tag("fix.proposed").unwrap().label, "AI Fix: approve?");
        assert_eq!(tag("script.restored").unwrap().label, "Script restored");
        assert_eq!(tag("fix.approved").unwrap().class, "success");
        assert_eq!(tag("fix.dismissed").unwrap().label, "AI Fix dismissed");
        assert!(tag("run.finished").is_none());
        assert!(made_a_version("fix.approved") && !made_a_version("fix.dismissed"));
        assert!(asks_for_approval("fix.proposed") && !asks_for_approval("fix.approved"));
        assert!(made_a_version("script.fixed") && made_a_version("script.restored") && !made_a_version("fix.failed"));
        assert_eq!(by("fix.started", "system", "me"), "AI Fix");
        assert_eq!(by("script.restored", "user:me", "me"), "you");
        assert_eq!(by("run.finished", "system", "me"), "svc");
    }
}
