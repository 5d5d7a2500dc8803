//! What svc's emails say: result emails (the data of a cron run, attached
//! as JSON or CSV), alerts (a scrap started failing, then recovered) and
//! release announcements. Pure functions: the caller decides when to send.

use chrono::{DateTime, Utc};
use svc_domain::email::{Attachment, Email, EmailKind};
use svc_domain::history::{HistoryRow, StatusDetail};
use svc_domain::scrap::{EmailFormat, Scrap};

use crate::outbox::data_export::csv;
use crate::outbox::data_export::grid::{grid, items};

/// Attachments larger than this are replaced by the link to the run.
pub const MAX_ATTACHMENT_BYTES: usize = 10 * 1024 * 1024;
/// Rows of data shown in a result email's body.
pub const BODY_ROWS: usize = 10;

/// One line of header text: CR, LF and other control characters become
/// spaces, so no text of a user's can add a header.
pub fn one_line(text: &str) -> String {
    let line: String = text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    line.trim().to_string()
}

fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The run's page in the web app.
pub fn run_link(public_url: &str, row: &HistoryRow) -> String {
    match row.scrap_id {
        Some(scrap) => format!("{public_url}/scraps/{scrap}/history/{}", row.id),
        None => format!("{public_url}/"),
    }
}

fn items_word(n: i64) -> String {
    if n == 1 { "1 item".into() } else { format!("{n} items") }
}

fn duration(row: &HistoryRow) -> String {
    match row.time_ms {
        Some(ms) if ms < 1000 => format!("{ms} ms"),
        Some(ms) => format!("{:.1} s", ms as f64 / 1000.0),
        None => "-".into(),
    }
}

/// The first rows of the data as a text table and an HTML table.
fn first_rows(data: &str) -> (String, String) {
    let Ok(all) = items(data) else { return (String::new(), String::new()) };
    let shown = &all[..all.len().min(BODY_ROWS)];
    let grid = grid(shown);
    if grid.columns.is_empty() {
        return (String::new(), String::new());
    }
    let cell = |c: &Option<String>| c.clone().unwrap_or_default();
    let mut text = grid.columns.join(" | ");
    for row in &grid.rows {
        text.push('\n');
        text.push_str(&row.iter().map(cell).collect::<Vec<_>>().join(" | "));
    }
    let mut html = String::from("<table border=\"1\" cellpadding=\"4\" cellspacing=\"0\"><thead><tr>");
    for c in &grid.columns {
        html.push_str(&format!("<th>{}</th>", escape(c)));
    }
    html.push_str("</tr></thead><tbody>");
    for row in &grid.rows {
        html.push_str("<tr>");
        for c in row {
            html.push_str(&format!("<td>{}</td>", escape(&cell(c))));
        }
        html.push_str("</tr>");
    }
    html.push_str("</tbody></table>");
    (text, html)
}

fn new_email(scrap: &Scrap, row: &HistoryRow, kind: EmailKind, to: &str, subject: String, now: DateTime<Utc>) -> Email {
    Email {
        scrap_id: Some(scrap.id),
        history_id: Some(row.id),
        ..Email::plain(scrap.organization_id, kind, to, one_line(&subject), String::new(), now)
    }
}

/// The result email of a finished cron run: `<title>: N items`, the status,
/// items, duration, the run's link and its first rows, with the whole data
/// attached as `<slug>-<UTC date>.json` or `.csv` (unless over 10 MiB).
pub fn result_email(scrap: &Scrap, row: &HistoryRow, to: &str, public_url: &str, now: DateTime<Utc>) -> Email {
    let mut email =
        new_email(scrap, row, EmailKind::Result, to, format!("{}: {}", scrap.title, items_word(row.length)), now);
    let status = row.status_detail.map(StatusDetail::as_str).unwrap_or("pending");
    let link = run_link(public_url, row);
    let date = row.finished_at.unwrap_or(now).format("%Y-%m-%d");
    let (content, extension, content_type) = match scrap.email_notif_format {
        EmailFormat::Json => (row.data.clone().into_bytes(), "json", "application/json"),
        EmailFormat::Csv => {
            (csv::from_json(&row.data).unwrap_or_default().into_bytes(), "csv", "text/csv; charset=utf-8")
        }
    };
    let filename = format!("{}-{date}.{extension}", csv::slug(&scrap.title));
    let attach = content.len() <= MAX_ATTACHMENT_BYTES;
    let (rows_text, rows_html) = first_rows(&row.data);
    let data_line = if attach {
        format!("The whole data is attached as {filename}.")
    } else {
        format!("The data is too large to attach ({} bytes): download it from the run's page.", content.len())
    };
    let title = one_line(&scrap.title);
    // The AI digest, when the run has one, goes on top.
    let (digest_text, digest_html) = match &row.digest {
        Some(d) => (format!("{d}\n\n---\n\n"), format!("<div style=\"white-space: pre-wrap\">{}</div><hr>", escape(d))),
        None => (String::new(), String::new()),
    };
    email.text = format!(
        "{digest_text}{title}: {} ({status}) in {}.\n\nRun: {link}\n\n{}{data_line}\n",
        items_word(row.length),
        duration(row),
        if rows_text.is_empty() { String::new() } else { format!("First rows:\n{rows_text}\n\n") },
    );
    email.html = Some(format!(
        "{digest_html}<p><strong>{}</strong>: {} (<strong>{status}</strong>) in {}.</p><p><a href=\"{}\">Open the run</a></p>{}<p>{}</p>",
        escape(&title),
        items_word(row.length),
        duration(row),
        escape(&link),
        rows_html,
        escape(&data_line),
    ));
    if attach {
        email.attachment = Some(Attachment { filename, content_type: content_type.into(), content });
    }
    email
}

/// The digest of a run, to `digestRecipient`.
pub fn digest_email(
    scrap: &Scrap,
    row: &HistoryRow,
    digest: &str,
    to: &str,
    public_url: &str,
    now: DateTime<Utc>,
) -> Email {
    let mut email = new_email(scrap, row, EmailKind::Digest, to, format!("{}: digest", scrap.title), now);
    let link = run_link(public_url, row);
    email.text = format!("{digest}\n\nRun: {link}\n");
    email.html = Some(format!(
        "<div style=\"white-space: pre-wrap\">{}</div><p><a href=\"{}\">Open the run</a></p>",
        escape(digest),
        escape(&link)
    ));
    email
}

/// The alert that a scrap started failing.
pub fn alert_email(scrap: &Scrap, row: &HistoryRow, to: &str, public_url: &str, now: DateTime<Utc>) -> Email {
    let status = row.status_detail.map(StatusDetail::as_str).unwrap_or("error");
    let mut email = new_email(scrap, row, EmailKind::Alert, to, format!("{} is failing ({status})", scrap.title), now);
    let link = run_link(public_url, row);
    let why = match (&row.error, status) {
        (Some(error), _) => format!("The run failed: {error}"),
        (None, "empty") => "The run returned no items.".to_string(),
        (None, "regression") => {
            format!("The run returned {}, fewer than half of the last success.", items_word(row.length))
        }
        _ => "The run failed.".to_string(),
    };
    let title = one_line(&scrap.title);
    email.text = format!(
        "{title} succeeded before and its last run did not ({status}).\n\n{why}\n\nRun: {link}\n\n\
         You get one email when it starts failing and one when it recovers, not one per failed run.\n"
    );
    email.html = Some(format!(
        "<p><strong>{}</strong> succeeded before and its last run did not (<strong>{status}</strong>).</p>\
         <p>{}</p><p><a href=\"{}\">Open the run</a></p>\
         <p>You get one email when it starts failing and one when it recovers, not one per failed run.</p>",
        escape(&title),
        escape(&why),
        escape(&link)
    ));
    email
}

/// AI Fix's repair of a scrap that signs in to its site, waiting for its
/// owner: what happened, why it is not applied, where to look.
pub fn fix_proposed_email(scrap: &Scrap, row: &HistoryRow, to: &str, public_url: &str, now: DateTime<Utc>) -> Email {
    let subject = format!("{}: AI Fix has a repair for you to approve", scrap.title);
    let mut email = new_email(scrap, row, EmailKind::FixProposed, to, subject, now);
    let link = format!("{public_url}/scraps/{}/ai-fix", scrap.id);
    let title = one_line(&scrap.title);
    let why = "The scrap signs in to its site, and a script a model wrote after reading a page is not run with \
               that login until a person has read it: a page can talk a model into sending the login elsewhere.";
    email.text = format!(
        "A run of {title} failed and AI Fix wrote a repair that passed its trial run, held to the scrap's own \
         site. It is not applied.\n\n{why}\n\nRead the repair, line by line, and approve or dismiss it: {link}\n"
    );
    email.html = Some(format!(
        "<p>A run of <strong>{}</strong> failed and AI Fix wrote a repair that passed its trial run, held to the \
         scrap's own site. It is <strong>not applied</strong>.</p><p>{}</p><p><a href=\"{}\">Read the repair, line by line, \
         and approve or dismiss it</a></p>",
        escape(&title),
        escape(why),
        escape(&link)
    ));
    email
}

/// The all-clear after `failed_runs` runs that did not succeed.
pub fn recovered_email(
    scrap: &Scrap,
    row: &HistoryRow,
    failed_runs: i64,
    to: &str,
    public_url: &str,
    now: DateTime<Utc>,
) -> Email {
    let mut email = new_email(scrap, row, EmailKind::Recovered, to, format!("{} recovered", scrap.title), now);
    let link = run_link(public_url, row);
    let runs = if failed_runs == 1 { "1 run".to_string() } else { format!("{failed_runs} runs") };
    let title = one_line(&scrap.title);
    email.text =
        format!("{title} succeeded again with {} after {runs} that did not.\n\nRun: {link}\n", items_word(row.length));
    email.html = Some(format!(
        "<p><strong>{}</strong> succeeded again with {} after {runs} that did not.</p><p><a href=\"{}\">Open the run</a></p>",
        escape(&title),
        items_word(row.length),
        escape(&link)
    ));
    email
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;
    use svc_domain::history::TriggeredBy;
    use svc_domain::{OrgId, UserId};

    use super::*;

    fn fixture(format: EmailFormat, data: &str, length: i64) -> (Scrap, HistoryRow) {
        let now = Utc.with_ymd_and_hms(2026, 11, 23, 7, 0, 0).unwrap();
        let mut scrap =
            Scrap::new(OrgId::new(), UserId::new(), "Prices\r\nBcc: evil@example.com", "https://e.com", "x", now);
        scrap.email_notif_format = format;
        let mut row = HistoryRow::pending(scrap.id, scrap.organization_id, TriggeredBy::Cron, "tier0", now);
        row.status_detail = Some(StatusDetail::Success);
        row.data = data.into();
        row.length = length;
        row.time_ms = Some(850);
        row.finished_at = Some(now);
        (scrap, row)
    }

    #[test]
    fn result_emails_attach_the_data_and_keep_headers_on_one_line() {
        let data = r#"[{"name":"Lamp","price":10},{"name":"Desk, oak","price":180}]"#;
        let (scrap, row) = fixture(EmailFormat::Csv, data, 2);
        let email = result_email(&scrap, &row, "me@example.com", "https://svc.example.com", Utc::now());
        assert_eq!(email.subject, "Prices  Bcc: evil@example.com: 2 items");
        assert!(!email.subject.contains(['\r', '\n']));
        let attachment = email.attachment.as_ref().unwrap();
        assert_eq!(attachment.filename, "prices-bcc-evil-example-com-2026-11-23.csv");
        assert_eq!(
            String::from_utf8(attachment.content.clone()).unwrap(),
            "name,price\r\nLamp,10\r\n\"Desk, oak\",180\r\n"
        );
        let link = format!("https://svc.example.com/scraps/{}/history/{}", scrap.id, row.id);
        assert!(email.text.contains(&link) && email.text.contains("success") && email.text.contains("850 ms"));
        assert!(email.text.contains("Lamp | 10"), "{}", email.text);
        assert!(email.html.as_ref().unwrap().contains("<td>Desk, oak</td>"));
        let (scrap, row) = fixture(EmailFormat::Json, data, 2);
        let json = result_email(&scrap, &row, "me@example.com", "https://svc.example.com", Utc::now());
        assert_eq!(json.attachment.unwrap().content, data.as_bytes());
    }

    #[test]
    fn data_over_ten_mebibytes_is_linked_not_attached() {
        let big = format!("[\"{}\"]", "x".repeat(MAX_ATTACHMENT_BYTES));
        let (scrap, row) = fixture(EmailFormat::Json, &big, 1);
        let email = result_email(&scrap, &row, "me@example.com", "https://svc.example.com", Utc::now());
        assert!(email.attachment.is_none());
        assert!(email.text.contains("too large to attach") && email.text.contains("/history/"));
    }

    #[test]
    fn alerts_say_why_and_recoveries_count_the_failed_runs() {
        let (scrap, mut row) = fixture(EmailFormat::Json, "[]", 0);
        row.status_detail = Some(StatusDetail::Error);
        row.error = Some("selector .price not found".into());
        let alert = alert_email(&scrap, &row, "ops@example.com", "https://svc.example.com", Utc::now());
        assert!(alert.subject.ends_with("is failing (error)") && alert.text.contains("selector .price not found"));
        assert_eq!(alert.kind, EmailKind::Alert);
        let back = recovered_email(&scrap, &row, 3, "ops@example.com", "https://svc.example.com", Utc::now());
        assert!(back.subject.ends_with("recovered") && back.text.contains("after 3 runs that did not"));
        assert!(alert.html.unwrap().contains("&lt;") || !scrap.title.contains('<'));
    }

    #[test]
    fn a_fix_proposal_says_it_is_not_applied_and_where_to_read_it() {
        let (scrap, row) = fixture(EmailFormat::Json, "[]", 0);
        let email = fix_proposed_email(&scrap, &row, "owner@example.com", "https://svc.example.com", Utc::now());
        assert_eq!(email.kind, EmailKind::FixProposed);
        assert_eq!(email.to, "owner@example.com");
        assert!(email.subject.ends_with("AI Fix has a repair for you to approve"), "{}", email.subject);
        assert!(email.text.contains("It is not applied") && email.text.contains("signs in to its site"));
        assert!(email.text.contains(&format!("https://svc.example.com/scraps/{}/ai-fix", scrap.id)), "{}", email.text);
        assert_eq!(EmailKind::parse("fix_proposed"), Some(EmailKind::FixProposed));
    }
}
