//! What leaves svc for people and programs: webhooks (their settings in
//! `webhooks`, the payload, its signing and the dispatcher that delivers
//! it), email (composition, the mailer and its transport port,
//! announcements), chat channels (saved channels, their message formats
//! and the sender the mailer hands channel rows to), the results as files
//! (`data_export`), a scrap's feed of what changed between its runs
//! (`feeds`), and the secret
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
pub mod mail_transport;
pub mod mailer;
pub mod redact;
pub mod webhook_payload;
pub mod webhook_signing;
pub mod webhooks;
