use serde::{Deserialize, Serialize};
use svc_domain::webhook::{Delivery, DeliveryAttempt, Webhook, WebhookEvent};
use utoipa::ToSchema;
use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, SchemaType, Type};

use crate::iso;

/// The body of `POST` and `PUT /api/developers/webhooks`: on `PUT`, absent
/// fields are left alone (`scrapIds: []` makes the webhook organization-wide).
/// Unknown fields are refused.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(description = "The body of `POST /api/developers/webhooks` (`url` and `events` required) and \
    `PUT`/`PATCH /api/developers/webhooks/{id}` (absent fields are left alone). `null` is taken as absent. \
    `url` must be https and resolve to public addresses (unless the operator allows private networks); \
    `scrapIds` must name scraps of the caller's organization (`[]`: every scrap).")]
pub struct WebhookBody {
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(pattern = r"^\s*[Hh][Tt][Tt][Pp][Ss]?://[^\s/?#]")]
    pub url: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = event_names)]
    pub events: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = crate::ids_or_null)]
    pub scrap_ids: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub active: Option<bool>,
}

/// `events`: at least one event name, or `null` (absent).
fn event_names() -> ArrayBuilder {
    let name = ObjectBuilder::new().schema_type(Type::String).enum_values(Some(WebhookEvent::ALL.map(|e| e.as_str())));
    ArrayBuilder::new().schema_type(SchemaType::from_iter([Type::Array, Type::Null])).items(name).min_items(Some(1))
}

/// A webhook as lists show it: never its secret.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WebhookView {
    pub id: String,
    pub url: String,
    pub events: Vec<String>,
    pub scrap_ids: Vec<String>,
    pub active: bool,
    pub created_at: String,
    pub updated_at: String,
}

impl From<Webhook> for WebhookView {
    fn from(w: Webhook) -> Self {
        WebhookView {
            id: w.id.to_string(),
            url: w.url,
            events: w.events.iter().map(|e| e.as_str().to_string()).collect(),
            scrap_ids: w.scrap_ids.iter().map(ToString::to_string).collect(),
            active: w.active,
            created_at: iso(w.created_at),
            updated_at: iso(w.updated_at),
        }
    }
}

/// The creation response: the webhook plus `plainSecret`, shown this once.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreatedWebhookView {
    #[serde(flatten)]
    pub webhook: WebhookView,
    pub plain_secret: String,
}

/// One attempt of the delivery log.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AttemptView {
    pub id: String,
    pub event: String,
    pub history_id: String,
    pub attempt: i64,
    pub state: String,
    pub response_status: Option<i64>,
    pub response_body: Option<String>,
    pub error: Option<String>,
    pub duration_ms: Option<i64>,
    pub created_at: String,
    pub next_retry_at: Option<String>,
}

impl From<DeliveryAttempt> for AttemptView {
    fn from(a: DeliveryAttempt) -> Self {
        AttemptView {
            id: a.id.to_string(),
            event: a.event.as_str().to_string(),
            history_id: a.history_id.to_string(),
            attempt: a.attempt,
            state: a.state.as_str().to_string(),
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
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RedeliveryView {
    pub delivery_id: String,
    pub event: String,
    pub history_id: String,
    pub state: String,
}

impl From<Delivery> for RedeliveryView {
    fn from(d: Delivery) -> Self {
        RedeliveryView {
            delivery_id: d.id.to_string(),
            event: d.event.as_str().to_string(),
            history_id: d.history_id.to_string(),
            state: "queued".into(),
        }
    }
}
