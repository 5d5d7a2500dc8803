//! `SmtpMailer` (the SMTP adapter of the `MailTransport` port) against the
//! local SMTP server of `common::smtp`: what arrives, and how each kind of
//! failure is reported.

use std::time::Duration;

use chrono::Utc;
use mail_parser::MimeHeaders;
use svc_domain::email::{Attachment, Email, EmailKind};
use svc_domain::{ObjectId, OrgId};
use svc_server::Config;
use svc_server::mail_client::SmtpMailer;
use svc_service::outbox::mail_transport::{MailError, MailTransport};

use crate::common::smtp::{At, SmtpServer};

const FROM: &str = "svc <noreply@svc.example.com>";

/// The mailer as `svc server` would build it from these settings.
fn mailer(smtp_url: &str, extra: &[(&str, &str)]) -> SmtpMailer {
    let mut env = vec![("SVC_SMTP_URL".to_string(), smtp_url.to_string()), ("SVC_MAIL_FROM".into(), FROM.into())];
    env.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    let config = Config::load(None, env).expect("mail config");
    SmtpMailer::from_config(&config.mail().expect("email is on")).expect("SMTP client")
}

fn email(subject: &str) -> Email {
    Email {
        id: ObjectId::new(),
        organization_id: OrgId::new(),
        kind: EmailKind::Result,
        to: "ada@example.com".into(),
        subject: subject.into(),
        text: "3 items.\n.\nA line of one dot, above.".into(),
        html: None,
        attachment: None,
        unsubscribe_url: None,
        scrap_id: None,
        history_id: None,
        created_at: Utc::now(),
    }
}

#[tokio::test]
async fn html_and_a_csv_attachment_arrive_with_the_exact_bytes() {
    let smtp = SmtpServer::start().await;
    let mailer = mailer(&smtp.url(), &[]);
    let csv = "name,price,note\r\nTea,3,\"caf\u{e9}\"\nCoffee,4,\n.\n".as_bytes().to_vec();
    let mut e = email("Results of Prices: 3 items");
    e.html = Some("<p>3 <b>items</b></p>".into());
    e.attachment =
        Some(Attachment { filename: "prices.csv".into(), content_type: "text/csv".into(), content: csv.clone() });

    mailer.send(&e).await.expect("sent");

    let messages = smtp.messages();
    assert_eq!(messages.len(), 1);
    let m = &messages[0];
    assert_eq!(m.from, "noreply@svc.example.com", "envelope sender");
    assert_eq!(m.to, ["ada@example.com"], "envelope recipients");
    let parsed = m.parsed();
    assert_eq!(parsed.subject(), Some("Results of Prices: 3 items"));
    assert_eq!(parsed.from().and_then(|a| a.first()).and_then(|a| a.address()), Some("noreply@svc.example.com"));
    assert_eq!(parsed.to().and_then(|a| a.first()).and_then(|a| a.address()), Some("ada@example.com"));
    assert_eq!(parsed.message_id(), Some(format!("{}@svc.example.com", e.id).as_str()));
    assert_eq!(parsed.body_text(0).unwrap().replace("\r\n", "\n"), e.text, "the text part, dot line included");
    assert_eq!(parsed.html_body_count(), 1);
    assert_eq!(parsed.body_html(0).unwrap().trim_end(), "<p>3 <b>items</b></p>");
    assert_eq!(parsed.attachment_count(), 1);
    let file = parsed.attachment(0).unwrap();
    assert_eq!(file.attachment_name(), Some("prices.csv"));
    assert!(file.is_content_type("text", "csv"), "{:?}", file.content_type());
    assert_eq!(file.contents(), csv.as_slice(), "the attachment's bytes, exactly");
}

#[tokio::test]
async fn the_unsubscribe_headers_are_present_only_when_set() {
    let smtp = SmtpServer::start().await;
    let mailer = mailer(&smtp.url(), &[]);
    let mut announcement = email("svc 1.1 is out");
    announcement.kind = EmailKind::Announcement;
    announcement.unsubscribe_url = Some("https://svc.example.com/unsubscribe?token=abc123".into());
    mailer.send(&announcement).await.unwrap();
    mailer.send(&email("Results")).await.unwrap();

    let messages = smtp.messages();
    let with = messages[0].parsed();
    assert_eq!(
        with.header_raw("List-Unsubscribe").map(str::trim),
        Some("<https://svc.example.com/unsubscribe?token=abc123>")
    );
    assert_eq!(with.header_raw("List-Unsubscribe-Post").map(str::trim), Some("List-Unsubscribe=One-Click"));
    let without = messages[1].parsed();
    assert_eq!(without.header_raw("List-Unsubscribe"), None);
    assert_eq!(without.header_raw("List-Unsubscribe-Post"), None);
}

#[tokio::test]
async fn line_breaks_in_the_subject_cannot_inject_a_header() {
    let smtp = SmtpServer::start().await;
    let mailer = mailer(&smtp.url(), &[]);
    mailer.send(&email("Weekly\r\nBcc: eve@evil.example\r\nX-Injected: yes\n\r\nbody?")).await.unwrap();

    let m = &smtp.messages()[0];
    assert_eq!(m.to, ["ada@example.com"], "no recipient was added");
    let parsed = m.parsed();
    let names: Vec<String> = parsed.headers().iter().map(|h| h.name().to_ascii_lowercase()).collect();
    assert!(!names.iter().any(|n| n == "bcc" || n == "x-injected"), "{names:?}\n{}", m.header_section());
    let subject = parsed.subject().unwrap();
    assert!(subject.starts_with("Weekly") && subject.contains("X-Injected: yes"), "one line: {subject}");
    assert_eq!(parsed.body_text(0).unwrap().replace("\r\n", "\n").trim_end(), email("").text, "the body is untouched");
}

#[tokio::test]
async fn a_4xx_answer_is_transient_and_a_5xx_permanent_with_the_servers_text() {
    let smtp = SmtpServer::start().await;
    let mailer = mailer(&smtp.url(), &[]);
    let cases = [
        (At::Data, 451, "4.3.0 Try again later", true),
        (At::Rcpt, 452, "4.2.2 Mailbox full", true),
        (At::Rcpt, 550, "5.1.1 No such user here", false),
        (At::Data, 554, "5.7.1 Message rejected as spam", false),
    ];
    for (at, code, text, transient) in cases {
        smtp.fail_next(1, at, code, text);
        let answer = format!("{code} {text}");
        let expected = if transient { MailError::Transient(answer) } else { MailError::Permanent(answer) };
        assert_eq!(mailer.send(&email("Results")).await, Err(expected), "{code} at {at:?}");
    }
    assert!(smtp.messages().is_empty(), "nothing was accepted");
    assert_eq!(smtp.refusals().len(), 4);

    mailer.send(&email("Results")).await.expect("the script ran out: accepted");
    assert_eq!(smtp.messages().len(), 1);
}

#[tokio::test]
async fn a_relay_that_is_down_is_transient_and_the_email_goes_once_it_is_back() {
    let smtp = SmtpServer::start().await;
    let mailer = mailer(&smtp.url(), &[]);
    smtp.stop().await;
    match mailer.send(&email("Results")).await {
        Err(MailError::Transient(text)) => assert!(!text.is_empty()),
        other => panic!("nothing listens: {other:?}"),
    }

    smtp.restart().await;
    mailer.send(&email("Results")).await.expect("sent once the relay is back");
    assert_eq!(smtp.messages().len(), 1);
}

#[tokio::test]
async fn a_relay_that_never_answers_times_out_as_transient() {
    let smtp = SmtpServer::start().await;
    smtp.stall(true);
    let mailer = mailer(&smtp.url(), &[("SVC_MAIL_TIMEOUT", "1s")]);
    assert_eq!(mailer.send(&email("Results")).await, Err(MailError::Transient("timed out".into())));
    assert!(smtp.messages().is_empty() && smtp.commands().is_empty(), "not a word was exchanged");
}

#[tokio::test]
async fn starttls_is_required_unless_the_url_says_tls_none() {
    let smtp = SmtpServer::start().await;
    // The same relay without `?tls=none`: it offers no STARTTLS, so svc
    // must not go on in clear text.
    let mailer = mailer(&format!("smtp://{}", smtp.addr), &[]);
    match mailer.send(&email("Results")).await {
        Err(MailError::Transient(text)) => assert!(text.to_ascii_lowercase().contains("starttls"), "{text}"),
        other => panic!("no clear-text fallback: {other:?}"),
    }
    let commands = smtp.commands();
    assert!(!commands.iter().any(|c| c.to_ascii_uppercase().starts_with("MAIL")), "{commands:?}");
    assert!(smtp.messages().is_empty());
}

#[tokio::test]
async fn an_unusable_recipient_is_permanent_before_any_connection() {
    let smtp = SmtpServer::start().await;
    let mailer = mailer(&smtp.url(), &[]);
    let mut e = email("Results");
    e.to = "ada@example.com\r\nRCPT TO:<eve@evil.example>".into();
    match mailer.send(&e).await {
        Err(MailError::Permanent(text)) => assert!(text.contains("recipient"), "{text}"),
        other => panic!("{other:?}"),
    }
    assert!(smtp.commands().is_empty(), "no connection was made");
}

#[tokio::test]
async fn the_test_server_is_captured_across_a_restart_on_the_same_port() {
    // The fixture itself: a restart keeps the port, the captures and the script.
    let smtp = SmtpServer::start().await;
    let mailer = mailer(&smtp.url(), &[]);
    mailer.send(&email("one")).await.unwrap();
    smtp.fail_next(1, At::Data, 451, "4.3.0 later");
    smtp.restart().await;
    assert!(matches!(mailer.send(&email("two")).await, Err(MailError::Transient(_))));
    mailer.send(&email("three")).await.unwrap();
    let subjects: Vec<String> = smtp
        .wait_for(2, Duration::from_secs(5))
        .await
        .iter()
        .map(|m| m.parsed().subject().unwrap().to_string())
        .collect();
    assert_eq!(subjects, ["one", "three"]);
}
