//! Webhooks, the events they receive, and the record of delivering them.

use std::fmt;

use chrono::{DateTime, Utc};

use crate::{HistoryId, ObjectId, OrgId, ScrapId, WebhookId};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum WebhookEvent {
    ScrapSuccess,
    ScrapFailure,
}

impl WebhookEvent {
    pub const ALL: [WebhookEvent; 2] = [WebhookEvent::ScrapSuccess, WebhookEvent::ScrapFailure];

    pub fn as_str(self) -> &'static str {
        match self {
            WebhookEvent::ScrapSuccess => "scrap.success",
            WebhookEvent::ScrapFailure => "scrap.failure",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|e| e.as_str() == s)
    }
}

/// A receiver of events. `secret` is the `whsec_...` string; it signs
/// deliveries and is never shown after creation (nor printed by `Debug`).
#[derive(Clone, PartialEq)]
pub struct Webhook {
    pub id: WebhookId,
    pub organization_id: OrgId,
    pub url: String,
    pub events: Vec<WebhookEvent>,
    /// Empty means every scrap of the organization.
    pub scrap_ids: Vec<ScrapId>,
    pub active: bool,
    pub secret: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl Webhook {
    /// The dispatch rule: subscribed event, and the scrap in scope.
    pub fn wants(&self, event: WebhookEvent, scrap: ScrapId) -> bool {
        self.active && self.events.contains(&event) && (self.scrap_ids.is_empty() || self.scrap_ids.contains(&scrap))
    }
}

impl fmt::Debug for Webhook {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Webhook")
            .field("id", &self.id)
            .field("organization_id", &self.organization_id)
            .field("url", &self.url)
            .field("events", &self.events)
            .field("scrap_ids", &self.scrap_ids)
            .field("active", &self.active)
            .field("secret", &"<redacted>")
            .finish()
    }
}

/// One event on its way to one webhook: every attempt of it carries the
/// same `id` (the `webhook-id` header).
#[derive(Clone, Debug, PartialEq)]
pub struct Delivery {
    pub id: ObjectId,
    pub organization_id: OrgId,
    pub webhook_id: WebhookId,
    pub event: WebhookEvent,
    pub history_id: HistoryId,
    pub scrap_id: ScrapId,
    /// The payload's fields as a JSON object, without `timestamp` (set at
    /// each attempt).
    pub payload: String,
    /// Attempts made so far.
    pub attempts: i64,
    pub created_at: DateTime<Utc>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttemptState {
    Delivered,
    /// Failed; another attempt is scheduled at `next_retry_at`.
    PendingRetry,
    /// Failed, and no further attempt follows this one.
    Failed,
    /// The scheduled retry was dropped: the webhook was deactivated.
    Skipped,
}

impl AttemptState {
    pub fn as_str(self) -> &'static str {
        match self {
            AttemptState::Delivered => "delivered",
            AttemptState::PendingRetry => "pending_retry",
            AttemptState::Failed => "failed",
            AttemptState::Skipped => "skipped",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        [AttemptState::Delivered, AttemptState::PendingRetry, AttemptState::Failed, AttemptState::Skipped]
            .into_iter()
            .find(|x| x.as_str() == s)
    }
}

/// One attempt to deliver, as the delivery log shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct DeliveryAttempt {
    pub id: ObjectId,
    pub delivery_id: ObjectId,
    pub organization_id: OrgId,
    pub webhook_id: WebhookId,
    pub event: WebhookEvent,
    pub history_id: HistoryId,
    /// 1, 2 or 3.
    pub attempt: i64,
    pub state: AttemptState,
    pub response_status: Option<i64>,
    /// The start of the receiver's answer.
    pub response_body: Option<String>,
    pub error: Option<String>,
    pub duration_ms: Option<i64>,
    pub created_at: DateTime<Utc>,
    pub next_retry_at: Option<DateTime<Utc>>,
}
