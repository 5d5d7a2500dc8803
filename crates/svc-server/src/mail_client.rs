//! The SMTP client that sends email: [`SmtpMailer`] implements the service
//! layer's `MailTransport` port with lettre.
//!
//! Each email is one SMTP session (connect, STARTTLS or TLS as configured,
//! AUTH, MAIL/RCPT/DATA, QUIT): no connection pool, so an attempt cut off by
//! `SVC_MAIL_TIMEOUT` never leaves a half-spoken connection for the next
//! email to reuse. The timeout bounds the whole attempt (lettre's own
//! timeout only covers connecting).
//!
//! How an attempt ends is told in the port's two kinds: a 4xx answer, a
//! connection refused or dropped, a TLS failure or a timeout are
//! [`MailError::Transient`] (the email is fine, the relay is not, for now);
//! a 5xx answer, a refusal of svc's credentials included (530, 534, 535,
//! 538: retrying with the same credentials cannot succeed, so it fails at
//! once and says so), and a message that cannot be built (a bad recipient
//! address) are [`MailError::Permanent`].

use std::time::Duration;

use async_trait::async_trait;
use lettre::message::header::{ContentTransferEncoding, ContentType, Header, HeaderName, HeaderValue};
use lettre::message::{Attachment, Body, Mailbox, MultiPart, SinglePart};
use lettre::transport::smtp::authentication::Credentials;
use lettre::transport::smtp::client::{Tls, TlsParameters};
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use svc_domain::email::Email;
use svc_service::outbox::mail_transport::{MailError, MailTransport};

use crate::config::{MailSettings, SmtpSecurity};

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The SMTP client could not be set up (the TLS configuration failed).
#[derive(Debug, thiserror::Error)]
#[error("cannot set up the SMTP client for {relay}: {reason}")]
pub struct MailSetupError {
    /// The relay's URL without credentials.
    pub relay: String,
    pub reason: String,
}

/// Sends svc's email through the relay of `SVC_SMTP_URL`.
pub struct SmtpMailer {
    transport: AsyncSmtpTransport<Tokio1Executor>,
    from: Mailbox,
    timeout: Duration,
}

impl SmtpMailer {
    /// The client for `settings` (from [`crate::Config::mail`]). Nothing is
    /// dialled until the first email.
    pub fn from_config(settings: &MailSettings) -> Result<SmtpMailer, MailSetupError> {
        let smtp = &settings.smtp;
        let setup_error =
            |e: lettre::transport::smtp::Error| MailSetupError { relay: smtp.redacted(), reason: e.to_string() };
        let tls = match smtp.security {
            SmtpSecurity::StartTls => Tls::Required(TlsParameters::new(smtp.host.clone()).map_err(setup_error)?),
            SmtpSecurity::ImplicitTls => Tls::Wrapper(TlsParameters::new(smtp.host.clone()).map_err(setup_error)?),
            SmtpSecurity::None => Tls::None,
        };
        let mut builder = AsyncSmtpTransport::<Tokio1Executor>::builder_dangerous(smtp.host.clone())
            .port(smtp.port)
            .tls(tls)
            .timeout(Some(settings.timeout));
        if let Some((user, password)) = &smtp.credentials {
            builder = builder.credentials(Credentials::new(user.clone(), password.expose().to_string()));
        }
        Ok(SmtpMailer { transport: builder.build(), from: settings.from.clone(), timeout: settings.timeout })
    }
}

#[async_trait]
impl MailTransport for SmtpMailer {
    async fn send(&self, email: &Email) -> Result<(), MailError> {
        let message = build_message(&self.from, email).map_err(MailError::Permanent)?;
        match tokio::time::timeout(self.timeout, self.transport.send(message)).await {
            Err(_) => Err(classify(Failure::TimedOut)),
            Ok(Ok(_)) => Ok(()),
            Ok(Err(e)) => Err(classify(failure_of(&e))),
        }
    }
}

/// `List-Unsubscribe: <URL>` (RFC 2369), the one-click address of RFC 8058.
#[derive(Clone, Debug)]
struct ListUnsubscribe(url::Url);

impl Header for ListUnsubscribe {
    fn name() -> HeaderName {
        HeaderName::new_from_ascii_str("List-Unsubscribe")
    }

    fn parse(s: &str) -> Result<Self, BoxError> {
        let inner = s.trim().strip_prefix('<').and_then(|s| s.strip_suffix('>')).ok_or("expected <URL>")?;
        Ok(ListUnsubscribe(url::Url::parse(inner)?))
    }

    fn display(&self) -> HeaderValue {
        // A serialized URL is printable ASCII without `<`, `>`, spaces or
        // line breaks (the parser removes or percent-encodes them).
        HeaderValue::new(Self::name(), format!("<{}>", self.0))
    }
}

/// `List-Unsubscribe-Post: List-Unsubscribe=One-Click` (RFC 8058).
#[derive(Clone, Debug)]
struct ListUnsubscribePost;

const ONE_CLICK: &str = "List-Unsubscribe=One-Click";

impl Header for ListUnsubscribePost {
    fn name() -> HeaderName {
        HeaderName::new_from_ascii_str("List-Unsubscribe-Post")
    }

    fn parse(s: &str) -> Result<Self, BoxError> {
        if s.trim() == ONE_CLICK { Ok(ListUnsubscribePost) } else { Err(format!("expected {ONE_CLICK}").into()) }
    }

    fn display(&self) -> HeaderValue {
        HeaderValue::new(Self::name(), ONE_CLICK.to_string())
    }
}

/// `Auto-Submitted: auto-generated` (RFC 3834): no vacation auto-replies.
#[derive(Clone, Debug)]
struct AutoSubmitted;

impl Header for AutoSubmitted {
    fn name() -> HeaderName {
        HeaderName::new_from_ascii_str("Auto-Submitted")
    }

    fn parse(s: &str) -> Result<Self, BoxError> {
        if s.trim() == "auto-generated" { Ok(AutoSubmitted) } else { Err("expected auto-generated".into()) }
    }

    fn display(&self) -> HeaderValue {
        HeaderValue::new(Self::name(), "auto-generated".to_string())
    }
}

/// `s` on one line: every control character (CR and LF included) becomes
/// a space, so that no value can start a header of its own.
fn one_line(s: &str) -> String {
    s.chars().map(|c| if c.is_control() { ' ' } else { c }).collect()
}

/// A file name without control characters or path separators.
fn safe_filename(name: &str) -> String {
    let cleaned: String = one_line(name).chars().map(|c| if matches!(c, '/' | '\\') { '_' } else { c }).collect();
    let cleaned = cleaned.trim();
    if cleaned.is_empty() { "attachment".to_string() } else { cleaned.to_string() }
}

/// The MIME message of `email` from `from`: `text/plain`, with its
/// `text/html` alternative when there is one, and the attachment (base64,
/// so its bytes arrive exactly) in a `multipart/mixed` when there is one.
/// Its `Message-ID` is derived from the email's id, so every attempt of one
/// email carries the same id. `Err` says why it cannot be built.
pub(crate) fn build_message(from: &Mailbox, email: &Email) -> Result<Message, String> {
    let to: Mailbox = email.to.trim().parse().map_err(|e| format!("invalid recipient address `{}`: {e}", email.to))?;
    let mut builder = Message::builder()
        .from(from.clone())
        .to(to)
        .subject(one_line(&email.subject))
        .message_id(Some(format!("<{}@{}>", email.id, from.email.domain())))
        .header(AutoSubmitted);
    if let Some(unsubscribe) = &email.unsubscribe_url {
        let url = url::Url::parse(unsubscribe.trim())
            .ok()
            .filter(|u| matches!(u.scheme(), "https" | "http"))
            .ok_or_else(|| format!("invalid unsubscribe URL `{}`", one_line(unsubscribe)))?;
        builder = builder.header(ListUnsubscribe(url)).header(ListUnsubscribePost);
    }
    let text = SinglePart::plain(email.text.clone());
    let attachment = email.attachment.as_ref().map(|a| {
        let content_type = ContentType::parse(&a.content_type)
            .unwrap_or_else(|_| ContentType::parse("application/octet-stream").expect("a valid content type"));
        let body = Body::new_with_encoding(a.content.clone(), ContentTransferEncoding::Base64)
            .expect("base64 carries any bytes");
        Attachment::new(safe_filename(&a.filename)).body(body, content_type)
    });
    let built = match (&email.html, attachment) {
        (None, None) => builder.singlepart(text),
        (Some(html), None) => {
            builder.multipart(MultiPart::alternative().singlepart(text).singlepart(SinglePart::html(html.clone())))
        }
        (None, Some(file)) => builder.multipart(MultiPart::mixed().singlepart(text).singlepart(file)),
        (Some(html), Some(file)) => builder.multipart(
            MultiPart::mixed()
                .multipart(MultiPart::alternative().singlepart(text).singlepart(SinglePart::html(html.clone())))
                .singlepart(file),
        ),
    };
    built.map_err(|e| format!("cannot build the message: {e}"))
}

/// How an attempt failed, in the terms that decide its kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Failure {
    /// The server answered `code` (4xx or 5xx) with `text`.
    Reply {
        code: u16,
        text: String,
    },
    TimedOut,
    /// Anything else: no connection, a dropped one, TLS, a protocol error.
    Other(String),
}

/// Answers to AUTH that refuse svc's credentials rather than the email
/// (RFC 4954: 530 authentication required, 534 mechanism too weak, 535
/// credentials invalid, 538 encryption required).
const CREDENTIAL_REFUSALS: [u16; 4] = [530, 534, 535, 538];

pub(crate) fn classify(failure: Failure) -> MailError {
    match failure {
        Failure::Reply { code, text } => {
            let answer = if text.is_empty() { code.to_string() } else { format!("{code} {text}") };
            if CREDENTIAL_REFUSALS.contains(&code) {
                MailError::Permanent(format!(
                    "the relay refused svc's credentials (check SVC_SMTP_URL's user and password): {answer}"
                ))
            } else if (500..600).contains(&code) {
                MailError::Permanent(answer)
            } else {
                MailError::Transient(answer)
            }
        }
        Failure::TimedOut => MailError::Transient("timed out".into()),
        Failure::Other(text) => MailError::Transient(text),
    }
}

fn failure_of(e: &lettre::transport::smtp::Error) -> Failure {
    if let Some(code) = e.status() {
        let text = std::error::Error::source(e).map(|s| s.to_string()).unwrap_or_default();
        return Failure::Reply { code: u16::from(code), text };
    }
    if e.is_timeout() {
        return Failure::TimedOut;
    }
    Failure::Other(e.to_string())
}

#[cfg(test)]
mod tests {
    use chrono::Utc;
    use svc_domain::ObjectId;
    use svc_domain::email::{Attachment as FileAttachment, EmailKind};

    use super::*;

    fn email() -> Email {
        Email {
            id: ObjectId::new(),
            organization_id: svc_domain::OrgId::new(),
            kind: EmailKind::Result,
            to: "ada@example.com".into(),
            subject: "Results of Prices".into(),
            text: "3 items".into(),
            html: None,
            attachment: None,
            unsubscribe_url: None,
            scrap_id: None,
            history_id: None,
            created_at: Utc::now(),
        }
    }

    fn from() -> Mailbox {
        "svc <noreply@svc.example.com>".parse().unwrap()
    }

    fn formatted(email: &Email) -> String {
        String::from_utf8(build_message(&from(), email).unwrap().formatted()).unwrap()
    }

    /// The header section: the lines before the first empty line.
    fn headers(raw: &str) -> Vec<&str> {
        raw.split("\r\n").take_while(|line| !line.is_empty()).collect()
    }

    #[test]
    fn a_plain_email_has_the_addresses_subject_and_a_stable_message_id() {
        let e = email();
        let raw = formatted(&e);
        let head = headers(&raw);
        assert!(head.contains(&"From: svc <noreply@svc.example.com>"), "{raw}");
        assert!(head.contains(&"To: ada@example.com"), "{raw}");
        assert!(head.contains(&"Subject: Results of Prices"), "{raw}");
        assert!(head.contains(&"Auto-Submitted: auto-generated"), "{raw}");
        let id = format!("Message-ID: <{}@svc.example.com>", e.id);
        assert!(head.contains(&id.as_str()), "{raw}");
        assert_eq!(formatted(&e).matches(&id).count(), 1, "the same id on every attempt");
        assert!(head.iter().any(|h| h.starts_with("Content-Type: text/plain")), "{raw}");
        assert!(!raw.contains("List-Unsubscribe"), "{raw}");
        let envelope = build_message(&from(), &e).unwrap().envelope().clone();
        assert_eq!(envelope.from().unwrap().to_string(), "noreply@svc.example.com");
        assert_eq!(envelope.to().iter().map(ToString::to_string).collect::<Vec<_>>(), ["ada@example.com"]);
    }

    #[test]
    fn subject_line_breaks_cannot_start_a_header() {
        let mut e = email();
        e.subject = "Hello\r\nBcc: eve@example.com\nX-Injected: yes\r".into();
        let raw = formatted(&e);
        for line in headers(&raw) {
            assert!(!line.starts_with("Bcc:") && !line.starts_with("X-Injected:"), "{raw}");
        }
        assert_eq!(one_line("a\r\nb\tc\u{7}"), "a  b c ");
    }

    #[test]
    fn the_unsubscribe_headers_follow_rfc_8058() {
        let mut e = email();
        e.unsubscribe_url = Some("https://svc.example.com/unsubscribe?token=a b>c".into());
        let raw = formatted(&e);
        let head = headers(&raw);
        assert!(head.contains(&"List-Unsubscribe: <https://svc.example.com/unsubscribe?token=a%20b%3Ec>"), "{raw}");
        assert!(head.contains(&"List-Unsubscribe-Post: List-Unsubscribe=One-Click"), "{raw}");
        let header = ListUnsubscribe::parse("<https://svc.example.com/u?t=1>").unwrap();
        assert_eq!(header.0.as_str(), "https://svc.example.com/u?t=1");
        assert!(ListUnsubscribePost::parse(ONE_CLICK).is_ok());

        e.unsubscribe_url = Some("javascript:alert(1)".into());
        assert!(build_message(&from(), &e).unwrap_err().contains("unsubscribe"));
    }

    #[test]
    fn html_and_an_attachment_make_mixed_over_alternative() {
        let mut e = email();
        e.html = Some("<p>3 items</p>".into());
        e.attachment = Some(FileAttachment {
            filename: "../prices\r\n.csv".into(),
            content_type: "text/csv".into(),
            content: b"name,price\nTea,3\n".to_vec(),
        });
        let raw = formatted(&e);
        assert!(raw.contains("Content-Type: multipart/mixed"), "{raw}");
        assert!(raw.contains("Content-Type: multipart/alternative"), "{raw}");
        assert!(raw.contains("Content-Type: text/html"), "{raw}");
        assert!(raw.contains("Content-Type: text/csv"), "{raw}");
        assert!(raw.contains("filename=\".._prices  .csv\""), "{raw}");
        assert!(raw.contains("Content-Transfer-Encoding: base64"), "{raw}");
        assert_eq!(safe_filename(" \r\n "), "attachment");
    }

    #[test]
    fn an_unusable_recipient_cannot_be_built() {
        for to in ["", "not an address", "ada@example.com\r\nBcc: eve@example.com"] {
            let mut e = email();
            e.to = to.into();
            let err = build_message(&from(), &e).unwrap_err();
            assert!(err.contains("recipient"), "{to:?}: {err}");
        }
    }

    #[test]
    fn failures_are_transient_unless_the_server_refuses_the_email_or_the_credentials() {
        let reply = |code: u16, text: &str| classify(Failure::Reply { code, text: text.into() });
        assert_eq!(reply(451, "4.3.0 try later"), MailError::Transient("451 4.3.0 try later".into()));
        assert_eq!(reply(421, ""), MailError::Transient("421".into()));
        assert_eq!(reply(550, "5.1.1 no such user"), MailError::Permanent("550 5.1.1 no such user".into()));
        assert_eq!(reply(554, "5.7.1 rejected"), MailError::Permanent("554 5.7.1 rejected".into()));
        match reply(535, "5.7.8 bad credentials") {
            MailError::Permanent(text) => {
                assert!(text.contains("535 5.7.8 bad credentials") && text.contains("credentials"), "{text}")
            }
            other => panic!("the same credentials will be refused again: {other:?}"),
        }
        assert_eq!(classify(Failure::TimedOut), MailError::Transient("timed out".into()));
        assert_eq!(
            classify(Failure::Other("Connection refused".into())),
            MailError::Transient("Connection refused".into())
        );
    }
}
