//! The port through which email leaves svc. `svc-server` implements it with
//! SMTP (lettre); the service layer only knows this trait.

use async_trait::async_trait;
use svc_domain::email::Email;

/// How an attempt to hand an email to the SMTP relay ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MailError {
    /// Worth another try: a 4xx answer, a refused or dropped connection, a
    /// timeout. The text is the server's answer or the error.
    Transient(String),
    /// Refused for good: a 5xx answer (the text is the server's), or a
    /// message that cannot be built.
    Permanent(String),
}

#[async_trait]
pub trait MailTransport: Send + Sync {
    /// Sends `email` from svc's sender address.
    async fn send(&self, email: &Email) -> Result<(), MailError>;
}
