//! What leaves svc for people and programs: webhooks (their settings in
//! `webhooks`, the payload, its signing and the dispatcher that delivers
//! it), email (composition, the mailer and its transport port,
//! announcements), chat channels (saved channels, their message formats
//! and the sender the mailer hands channel rows to), the results as files
//! (`data_export`), a scrap's feed of what changed between its runs
//! (`feeds`), the addresses that confirmed they take mail (`recipients`;
//! the single-use tokens of emailed links in `link_tokens`), and the secret
//! redactor everything outgoing passes through (`redact`).

pub mod announcements;
pub mod channel_compose;
pub mod channel_message;
pub mod channel_sender;
pub mod channels;
pub mod data_export;
pub mod deliveries;
pub mod dispatcher;
pub mod email_compose;
pub mod feeds;
pub(crate) mod link_tokens;
pub mod mail_transport;
pub mod mailer;
pub mod recipients;
pub mod redact;
pub mod webhook_payload;
pub mod webhook_signing;
pub mod webhooks;

/// What result emails and alerts need to know.
#[derive(Clone, Debug)]
pub struct EmailSettings {
    /// Email can be sent: without it, none is queued.
    pub enabled: bool,
    /// For the links to runs.
    pub public_url: String,
}
