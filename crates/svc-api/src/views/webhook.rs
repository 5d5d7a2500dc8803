use serde::Serialize;
use svc_domain::webhook::{Delivery, DeliveryAttempt, Webhook};
use svc_service::webhooks::CreatedWebhook;

use super::iso;

/// A webhook as lists show it: never its secret.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct WebhookView {
    id: String,
    url: String,
    events: Vec<&'static str>,
    scrap_ids: Vec<String>,
    active: bool,
    created_at: String,
    updated_at: String,
}

impl From<Webhook> for WebhookView {
    fn from(w: Webhook) -> Self {
        WebhookView {
            id: w.id.to_string(),
            url: w.url,
            events: w.events.iter().map(|e| e.as_str()).collect(),
            scrap_ids: w.scrap_ids.iter().map(ToString::to_string).collect(),
            active: w.active,
            created_at: iso(w.created_at),
            updated_at: iso(w.updated_at),
        }
    }
}

/// The creation response: the webhook plus `plainSecret`, shown this once.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CreatedWebhookView {
    #[serde(flatten)]
    webhook: WebhookView,
    plain_secret: String,
}

impl From<CreatedWebhook> for CreatedWebhookView {
    fn from(c: CreatedWebhook) -> Self {
        CreatedWebhookView { webhook: c.webhook.into(), plain_secret: c.plain_secret }
    }
}

/// One attempt of the delivery log.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct AttemptView {
    id: String,
    event: &'static str,
    history_id: String,
    attempt: i64,
    state: &'static str,
    response_status: Option<i64>,
    response_body: Option<String>,
    error: Option<String>,
    duration_ms: Option<i64>,
    created_at: String,
    next_retry_at: Option<String>,
}

impl From<DeliveryAttempt> for AttemptView {
    fn from(a: DeliveryAttempt) -> Self {
        AttemptView {
            id: a.id.to_string(),
            event: a.event.as_str(),
            history_id: a.history_id.to_string(),
            attempt: a.attempt,
            state: a.state.as_str(),
            response_status: a.response_status,
            response_body: a.response_body,
            error: a.error,
            duration_ms: a.duration_ms,
            created_at: iso(a.created_at),
            next_retry_at: a.next_retry_at.map(iso),
        }
    }
}

/// The answer to a redelivery: the new delivery, queued.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RedeliveryView {
    delivery_id: String,
    event: &'static str,
    history_id: String,
    state: &'static str,
}

impl From<Delivery> for RedeliveryView {
    fn from(d: Delivery) -> Self {
        RedeliveryView { delivery_id: d.id.to_string(), event: d.event.as_str(), history_id: d.history_id.to_string(), state: "queued" }
    }
}
