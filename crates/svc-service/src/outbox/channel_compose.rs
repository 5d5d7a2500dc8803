//! What svc says in a chat channel: shorter than its emails, text only.
//! A result note (items, status, what changed since the last success, the
//! run's link) and an alert note; digests and recoveries use the email's
//! text. Each is queued as an outbox row whose recipient is the channel;
//! its last line, `Run: URL`, becomes the message's link
//! (`channel_message::ChannelNote::of_email`).

use chrono::{DateTime, Utc};
use svc_domain::email::{Email, EmailKind};
use svc_domain::history::{HistoryRow, StatusDetail};
use svc_domain::scrap::Scrap;

use crate::outbox::channel_message::LINK_PREFIX;
use crate::outbox::data_export::diff::diff;
use crate::outbox::email_compose::{one_line, run_link};

fn items_word(n: i64) -> String {
    if n == 1 { "1 item".into() } else { format!("{n} items") }
}

fn note(
    scrap: &Scrap,
    row: &HistoryRow,
    kind: EmailKind,
    to: &str,
    subject: String,
    text: String,
    now: DateTime<Utc>,
) -> Email {
    Email {
        scrap_id: Some(scrap.id),
        history_id: Some(row.id),
        ..Email::plain(scrap.organization_id, kind, to, one_line(&subject), text, now)
    }
}

/// A run's data as items: the array's elements, or the one value.
fn items(data: &str) -> Vec<serde_json::Value> {
    match serde_json::from_str(data) {
        Ok(serde_json::Value::Array(all)) => all,
        Ok(serde_json::Value::Null) | Err(_) => vec![],
        Ok(one) => vec![one],
    }
}

/// What changed between the last success's data (`None`: there was none)
/// and this run's, in one line.
pub fn changes_line(previous: Option<&str>, current: &str) -> String {
    let now = items(current);
    let Some(previous) = previous else {
        return "First successful run.".into();
    };
    let before = items(previous);
    let d = diff(&before, &now);
    if d.is_same() {
        return "Nothing changed since the last success.".into();
    }
    format!(
        "Since the last success: {} added, {} removed, {} changed, {} unchanged.",
        d.added.len(),
        d.removed.len(),
        d.changed.len(),
        d.unchanged
    )
}

/// The result of a cron run, for a channel.
pub fn result_note(
    scrap: &Scrap,
    row: &HistoryRow,
    previous: Option<&str>,
    to: &str,
    public_url: &str,
    now: DateTime<Utc>,
) -> Email {
    let status = row.status_detail.map(StatusDetail::as_str).unwrap_or("pending");
    let mut text = format!("{} ({status}). {}", items_word(row.length), changes_line(previous, &row.data));
    if let Some(digest) = &row.digest {
        text = format!("{digest}\n\n{text}");
    }
    text.push_str(&format!("\n{LINK_PREFIX}{}", run_link(public_url, row)));
    let subject = format!("{}: {}", scrap.title, items_word(row.length));
    note(scrap, row, EmailKind::Result, to, subject, text, now)
}

/// A scrap started failing, for a channel.
pub fn alert_note(scrap: &Scrap, row: &HistoryRow, to: &str, public_url: &str, now: DateTime<Utc>) -> Email {
    let status = row.status_detail.map(StatusDetail::as_str).unwrap_or("error");
    let why = match (&row.error, status) {
        (Some(error), _) => format!("The run failed: {error}"),
        (None, "empty") => "The run returned no items.".to_string(),
        (None, "regression") => {
            format!("The run returned {}, fewer than half of the last success.", items_word(row.length))
        }
        _ => "The run failed.".to_string(),
    };
    let text = format!(
        "{why}\nIt succeeded before; one message when it starts failing, one when it recovers.\n{LINK_PREFIX}{}",
        run_link(public_url, row)
    );
    note(scrap, row, EmailKind::Alert, to, format!("{} is failing ({status})", scrap.title), text, now)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_are_counted_against_the_last_success() {
        assert_eq!(changes_line(None, "[1]"), "First successful run.");
        assert_eq!(changes_line(Some("[1,2]"), "[1,2]"), "Nothing changed since the last success.");
        assert_eq!(
            changes_line(Some(r#"[{"id":1,"p":1},{"id":2,"p":2}]"#), r#"[{"id":1,"p":5},{"id":3,"p":3}]"#),
            "Since the last success: 1 added, 1 removed, 1 changed, 0 unchanged."
        );
    }
}
