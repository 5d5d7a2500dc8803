//! Outbox rows as both engines return them.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use svc_domain::email::{Attachment, Email, EmailKind, EmailRecord, EmailState};

use crate::StoreError;
use crate::records::{id, opt_time, time};

crate::from_row::from_row! {
pub(crate) struct EmailRow {
    id: String,
    organization_id: String,
    kind: String,
    recipient: String,
    subject: String,
    body_text: String,
    body_html: Option<String>,
    attachment_name: Option<String>,
    attachment_type: Option<String>,
    attachment_b64: Option<String>,
    unsubscribe_url: Option<String>,
    scrap_id: Option<String>,
    history_id: Option<String>,
    state: String,
    attempts: i64,
    next_attempt_at: Option<i64>,
    last_error: Option<String>,
    sent_at: Option<i64>,
    created_at: i64,
}
}

fn corrupt(what: &str, value: &str) -> StoreError {
    StoreError::Corrupt(format!("email {what} `{value}`"))
}

impl TryFrom<EmailRow> for EmailRecord {
    type Error = StoreError;
    fn try_from(r: EmailRow) -> Result<Self, StoreError> {
        let attachment = match (r.attachment_name, r.attachment_type, r.attachment_b64) {
            (Some(filename), Some(content_type), Some(b64)) => Some(Attachment {
                filename,
                content_type,
                content: STANDARD.decode(b64.as_bytes()).map_err(|e| corrupt("attachment", &e.to_string()))?,
            }),
            _ => None,
        };
        let email = Email {
            id: id(&r.id)?,
            organization_id: id(&r.organization_id)?,
            kind: EmailKind::parse(&r.kind).ok_or_else(|| corrupt("kind", &r.kind))?,
            to: r.recipient,
            subject: r.subject,
            text: r.body_text,
            html: r.body_html,
            attachment,
            unsubscribe_url: r.unsubscribe_url,
            scrap_id: r.scrap_id.as_deref().map(id).transpose()?,
            history_id: r.history_id.as_deref().map(id).transpose()?,
            created_at: time(r.created_at)?,
        };
        Ok(EmailRecord {
            email,
            state: EmailState::parse(&r.state).ok_or_else(|| corrupt("state", &r.state))?,
            attempts: r.attempts,
            next_attempt_at: opt_time(r.next_attempt_at)?,
            last_error: r.last_error,
            sent_at: opt_time(r.sent_at)?,
        })
    }
}

/// The attachment's bytes as the outbox stores them.
pub(crate) fn attachment_b64(email: &Email) -> Option<String> {
    email.attachment.as_ref().map(|a| STANDARD.encode(&a.content))
}
