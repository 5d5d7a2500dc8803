//! Webhook rows as both engines return them.

use svc_domain::webhook::{AttemptState, Delivery, DeliveryAttempt, Webhook, WebhookEvent};

use crate::records::{id, json, opt_time, parse_ids, time};
use crate::{Sealer, StoreError};

fn event(s: &str) -> Result<WebhookEvent, StoreError> {
    WebhookEvent::parse(s).ok_or_else(|| StoreError::Corrupt(format!("webhook event `{s}`")))
}

crate::from_row::from_row! {
pub(crate) struct WebhookRecord {
    id: String,
    organization_id: String,
    url: String,
    events: String,
    scrap_ids: String,
    active: bool,
    secret: String,
    created_at: i64,
    updated_at: i64,
}
}

impl WebhookRecord {
    /// The webhook, its secret opened with `sealer` (a plaintext secret from
    /// before sealing is taken as it is; the start-up pass seals it).
    pub(crate) fn open(self, sealer: &Sealer) -> Result<Webhook, StoreError> {
        let r = self;
        let events: Vec<String> = json(&r.events)?;
        Ok(Webhook {
            id: id(&r.id)?,
            organization_id: id(&r.organization_id)?,
            url: r.url,
            events: events.iter().map(|e| event(e)).collect::<Result<_, _>>()?,
            scrap_ids: parse_ids(&r.scrap_ids)?,
            active: r.active,
            secret: sealer.open_or_plain(&r.secret)?,
            created_at: time(r.created_at)?,
            updated_at: time(r.updated_at)?,
        })
    }
}

pub(crate) fn events_json(events: &[WebhookEvent]) -> String {
    serde_json::to_string(&events.iter().map(|e| e.as_str()).collect::<Vec<_>>()).expect("strings serialize")
}

crate::from_row::from_row! {
pub(crate) struct DeliveryRecord {
    id: String,
    organization_id: String,
    webhook_id: String,
    event: String,
    history_id: String,
    scrap_id: String,
    payload: String,
    attempts: i64,
    created_at: i64,
}
}

impl TryFrom<DeliveryRecord> for Delivery {
    type Error = StoreError;
    fn try_from(r: DeliveryRecord) -> Result<Self, StoreError> {
        Ok(Delivery {
            id: id(&r.id)?,
            organization_id: id(&r.organization_id)?,
            webhook_id: id(&r.webhook_id)?,
            event: event(&r.event)?,
            history_id: id(&r.history_id)?,
            scrap_id: id(&r.scrap_id)?,
            payload: r.payload,
            attempts: r.attempts,
            created_at: time(r.created_at)?,
        })
    }
}

crate::from_row::from_row! {
pub(crate) struct AttemptRecord {
    id: String,
    delivery_id: String,
    organization_id: String,
    webhook_id: String,
    event: String,
    history_id: String,
    attempt: i64,
    state: String,
    response_status: Option<i64>,
    response_body: Option<String>,
    error: Option<String>,
    duration_ms: Option<i64>,
    created_at: i64,
    next_retry_at: Option<i64>,
}
}

impl TryFrom<AttemptRecord> for DeliveryAttempt {
    type Error = StoreError;
    fn try_from(r: AttemptRecord) -> Result<Self, StoreError> {
        Ok(DeliveryAttempt {
            id: id(&r.id)?,
            delivery_id: id(&r.delivery_id)?,
            organization_id: id(&r.organization_id)?,
            webhook_id: id(&r.webhook_id)?,
            event: event(&r.event)?,
            history_id: id(&r.history_id)?,
            attempt: r.attempt,
            state: AttemptState::parse(&r.state)
                .ok_or_else(|| StoreError::Corrupt(format!("attempt state `{}`", r.state)))?,
            response_status: r.response_status,
            response_body: r.response_body,
            error: r.error,
            duration_ms: r.duration_ms,
            created_at: time(r.created_at)?,
            next_retry_at: opt_time(r.next_retry_at)?,
        })
    }
}
