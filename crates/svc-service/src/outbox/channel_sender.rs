//! Sends a queued note to a chat channel: resolves `channel:NAME` to the
//! organization's saved channel, renders the note in the service's format
//! (`channel_message`) and POSTs it through the webhook client (the vetted
//! egress: no private address unless `SVC_ALLOW_PRIVATE_NETWORKS` allows
//! it, no redirects, a timeout). The mailer calls it for outbox rows whose
//! recipient is a channel, so channel sends share the email outbox's lease,
//! retries and log.
//!
//! What fails for good at once ([`classify`]): an unknown channel, a URL
//! that no longer parses, a refused address, and a 4xx answer other than
//! 429 (the service says the request or its token is wrong; sending it
//! again cannot help). A 429, a 5xx and a failed connection are retried.

use std::sync::Arc;

use svc_domain::OrgId;
use svc_domain::channel::{ChannelUrl, Recipient, recipient};
use svc_domain::email::Email;
use svc_storage::Store;

use crate::outbox::channel_message::{ChannelEndpoints, ChannelNote, requests};
use crate::outbox::dispatcher::{ReceiverResponse, WebhookTransport};
use crate::outbox::mail_transport::MailError;

pub struct ChannelSender {
    store: Arc<dyn Store>,
    transport: Arc<dyn WebhookTransport>,
    endpoints: ChannelEndpoints,
}

/// How an answer counts: `Ok` for 2xx, a transient error for 429 and 5xx,
/// a permanent one for any other status.
pub fn classify(response: &ReceiverResponse) -> Result<(), MailError> {
    let answer = || {
        let body: String = response.body.chars().take(200).collect();
        if body.trim().is_empty() {
            format!("HTTP {}", response.status)
        } else {
            format!("HTTP {}: {}", response.status, body.trim())
        }
    };
    match response.status {
        200..=299 => Ok(()),
        429 => Err(MailError::Transient(format!("rate limited by the service ({})", answer()))),
        500..=599 => Err(MailError::Transient(answer())),
        _ => Err(MailError::Permanent(format!("the service refused the message ({})", answer()))),
    }
}

/// A transport error: a refusal by the egress rules is final, anything
/// else (no connection, a timeout) is worth another try.
fn transport_error(error: String) -> MailError {
    let refused = error.starts_with("refused")
        || error.starts_with("invalid URL")
        || error.contains("resolves to the non-public address");
    if refused { MailError::Permanent(error) } else { MailError::Transient(error) }
}

impl ChannelSender {
    pub fn new(store: Arc<dyn Store>, transport: Arc<dyn WebhookTransport>, endpoints: ChannelEndpoints) -> Self {
        ChannelSender { store, transport, endpoints }
    }

    /// The channel `to` names for `org`: a URL as it is, `channel:NAME`
    /// looked up. A permanent error when it names nothing usable.
    pub async fn resolve(&self, org: OrgId, to: &str) -> Result<ChannelUrl, MailError> {
        match recipient(to) {
            Ok(Recipient::Url(url)) => Ok(url),
            Ok(Recipient::Saved(name)) => {
                let saved = self
                    .store
                    .channel_named(org, &name)
                    .await
                    .map_err(|e| MailError::Transient(format!("reading the channel: {e}")))?
                    .ok_or_else(|| {
                        MailError::Permanent(format!("unknown channel `{name}`: save it in Settings > Channels"))
                    })?;
                ChannelUrl::parse(&saved.url).map_err(|e| MailError::Permanent(format!("channel `{name}`: {e}")))
            }
            Ok(Recipient::Email(_)) => Err(MailError::Permanent("not a channel".into())),
            Err(e) => Err(MailError::Permanent(e)),
        }
    }

    /// Sends a queued outbox row to its channel.
    pub async fn send(&self, email: &Email) -> Result<(), MailError> {
        let channel = self.resolve(email.organization_id, &email.to).await?;
        self.send_note(&channel, &ChannelNote::of_email(email)).await
    }

    /// Sends `note` to `channel` (each request in turn: a Telegram URL may
    /// name several chats; the first failure ends the attempt).
    pub async fn send_note(&self, channel: &ChannelUrl, note: &ChannelNote) -> Result<(), MailError> {
        for request in requests(channel, note, &self.endpoints) {
            let response =
                self.transport.post(&request.url, &request.headers, request.body).await.map_err(transport_error)?;
            classify(&response)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(status: u16) -> Result<(), MailError> {
        classify(&ReceiverResponse { status, body: "no_text".into() })
    }

    #[test]
    fn only_429_and_5xx_are_retried() {
        assert_eq!(answer(200), Ok(()));
        assert_eq!(answer(204), Ok(()));
        assert!(matches!(answer(429), Err(MailError::Transient(_))));
        assert!(matches!(answer(503), Err(MailError::Transient(_))));
        for status in [400, 401, 403, 404, 410] {
            assert!(matches!(answer(status), Err(MailError::Permanent(ref e)) if e.contains("no_text")), "{status}");
        }
        assert!(matches!(transport_error("refused: 10.0.0.1 is not a public address".into()), MailError::Permanent(_)));
        assert!(matches!(transport_error("connection refused".into()), MailError::Transient(_)));
    }
}
