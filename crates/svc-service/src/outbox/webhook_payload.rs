//! The body of a webhook delivery: an allow-list of the run's fields.

use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::{Map, Value, json};
use svc_domain::history::{HistoryRow, StatusDetail};
use svc_domain::webhook::WebhookEvent;

use crate::outbox::redact::redact;

/// `resultPreview` is at most this many bytes.
pub const PREVIEW_BYTES: usize = 1024;
/// Ends a truncated preview.
pub const ELLIPSIS: &str = "…";

/// The event a finished run raises.
pub fn event_of(detail: StatusDetail) -> WebhookEvent {
    if detail == StatusDetail::Success { WebhookEvent::ScrapSuccess } else { WebhookEvent::ScrapFailure }
}

/// The payload of a finished run, without `timestamp` (set at dispatch).
pub fn stored_payload(row: &HistoryRow) -> (WebhookEvent, String) {
    let detail = row.status_detail.unwrap_or(StatusDetail::Error);
    let event = event_of(detail);
    let body = json!({
        "historyId": row.id.to_string(),
        "scrapId": row.scrap_id.map(|s| s.to_string()),
        "status": if event == WebhookEvent::ScrapSuccess { "success" } else { "failure" },
        "statusDetail": detail.as_str(),
        "runtime": row.time_ms,
        "resultPreview": preview(&row.data, row.length),
        "triggeredBy": row.triggered_by.as_str(),
    });
    (event, body.to_string())
}

/// The body sent: the stored payload with `timestamp` set to `at`.
pub fn body_at(stored: &str, at: DateTime<Utc>) -> Vec<u8> {
    let mut fields: Map<String, Value> = serde_json::from_str(stored).unwrap_or_default();
    fields.insert("timestamp".into(), Value::String(at.to_rfc3339_opts(SecondsFormat::Millis, true)));
    serde_json::to_vec(&fields).expect("JSON values serialize")
}

/// The redacted result JSON, cut to `PREVIEW_BYTES` on a character
/// boundary with `ELLIPSIS` when longer; `None` without data.
pub fn preview(data: &str, items: i64) -> Option<String> {
    if items == 0 || data.trim().is_empty() {
        return None;
    }
    let clean = redact(data);
    if clean.len() <= PREVIEW_BYTES {
        return Some(clean);
    }
    let mut end = PREVIEW_BYTES - ELLIPSIS.len();
    while !clean.is_char_boundary(end) {
        end -= 1;
    }
    Some(format!("{}{ELLIPSIS}", &clean[..end]))
}

#[cfg(test)]
mod tests {
    use svc_domain::history::TriggeredBy;
    use svc_domain::{OrgId, ScrapId};

    use super::*;

    #[test]
    fn previews_are_cut_on_a_character_boundary_with_a_marker() {
        assert_eq!(preview("[]", 0), None);
        assert_eq!(preview("[1,2]", 2).as_deref(), Some("[1,2]"));
        let exact = format!("[\"{}\"]", "a".repeat(PREVIEW_BYTES - 4));
        assert_eq!(preview(&exact, 1).unwrap(), exact, "1024 bytes fit");
        // Two-byte characters straddling the cut.
        let long = format!("[\"{}\"]", "é".repeat(2000));
        let cut = preview(&long, 1).unwrap();
        assert!(cut.len() <= PREVIEW_BYTES, "{}", cut.len());
        assert!(cut.ends_with(ELLIPSIS));
        assert!(cut.len() >= PREVIEW_BYTES - 4);
    }

    #[test]
    fn secrets_are_redacted_before_the_cut() {
        let key = format!("svc_{}", "k".repeat(40));
        let data = format!("[\"{}{}\"]", "x".repeat(1000), key);
        let cut = preview(&data, 1).unwrap();
        assert!(!cut.contains("svc_kkkk"), "{cut}");
    }

    #[test]
    fn payload_has_exactly_the_allow_listed_fields() {
        let mut row = HistoryRow::pending(ScrapId::new(), OrgId::new(), TriggeredBy::Cron, "tier0", Utc::now());
        row.status_detail = Some(StatusDetail::Empty);
        row.time_ms = Some(420);
        row.error = Some("secret stack".into());
        let (event, stored) = stored_payload(&row);
        assert_eq!(event, WebhookEvent::ScrapFailure);
        let body: Value = serde_json::from_slice(&body_at(&stored, Utc::now())).unwrap();
        let mut keys: Vec<&str> = body.as_object().unwrap().keys().map(String::as_str).collect();
        keys.sort();
        assert_eq!(
            keys,
            ["historyId", "resultPreview", "runtime", "scrapId", "status", "statusDetail", "timestamp", "triggeredBy"]
        );
        assert_eq!(body["status"], "failure");
        assert_eq!(body["statusDetail"], "empty");
        assert_eq!(body["runtime"], 420);
        assert_eq!(body["resultPreview"], Value::Null);
        assert_eq!(body["triggeredBy"], "cron");
    }
}
