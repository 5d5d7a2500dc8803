//! Webhook management from a web session: create, list, update, delete,
//! the delivery log, and redelivery. Writes need Growth or Pro.

use std::sync::Arc;
use svc_domain::scope::Scope;

use chrono::Utc;
use svc_domain::webhook::{Delivery, DeliveryAttempt, Webhook, WebhookEvent};
use svc_domain::{ObjectId, WebhookId};
use svc_storage::Store;
use tokio::sync::Notify;
use url::Url;

use crate::accounts::allow_list::scrap_ids_in_org;
use crate::accounts::audit::{AuditAction, AuditLog};
use crate::outbox::webhook_signing::new_secret;
use crate::paging::{PageRequest, Paged};
use crate::{Result, ServiceError, Session};
use svc_engine::host_vetting::{PrivateNetworks, Refusal, Resolver, vetted_addresses};

/// A webhook to create (`url` and `events` required, `active` not `false`)
/// or the changes to one: on update, `None` fields are left alone
/// (`scrap_ids: Some(vec![])` makes the webhook organization-wide).
#[derive(Debug, Default)]
pub struct WebhookChanges {
    pub url: Option<String>,
    pub events: Option<Vec<String>>,
    pub scrap_ids: Option<Vec<String>>,
    pub active: Option<bool>,
}

pub struct CreatedWebhook {
    pub webhook: Webhook,
    /// Shown once.
    pub plain_secret: String,
}

pub struct WebhookService {
    store: Arc<dyn Store>,
    allow_private_networks: PrivateNetworks,
    /// Wakes the dispatcher (redeliveries).
    queued: Arc<Notify>,
    audit: AuditLog,
}

/// What the audit log says of a webhook: its URL's host only (a receiver's
/// path or query may hold a token).
fn audit_detail(url: &str) -> String {
    let host = Url::parse(url).ok().and_then(|u| u.host_str().map(str::to_string)).unwrap_or_default();
    format!("receiver at {host}")
}

/// Checks a receiver URL: https (http too when private networks are
/// allowed), and every address its host resolves to public.
pub async fn check_webhook_url(raw: &str, allow_private: &PrivateNetworks) -> Result<String> {
    let invalid = |m: String| ServiceError::validation("url", m);
    let url = Url::parse(raw.trim()).map_err(|_| invalid("must be an absolute https URL".into()))?;
    match url.scheme() {
        "https" => {}
        "http" if allow_private.any() => {}
        other => return Err(invalid(format!("must be https, not `{other}`"))),
    }
    let host = url.host_str().filter(|h| !h.is_empty()).ok_or_else(|| invalid("has no host".into()))?;
    if !url.username().is_empty() || url.password().is_some() {
        return Err(invalid("must not carry credentials".into()));
    }
    if !allow_private.all() {
        let port = url.port_or_known_default().unwrap_or(443);
        match vetted_addresses(host, port, allow_private, &Resolver::default()).await {
            Ok(_) => {}
            Err(Refusal::Private { ip, .. }) => {
                return Err(invalid(format!("`{host}` resolves to the non-public address {ip}")));
            }
            Err(_) => return Err(invalid(format!("`{host}` does not resolve"))),
        }
    }
    Ok(url.to_string())
}

fn parse_events(raw: Vec<String>) -> Result<Vec<WebhookEvent>> {
    let mut events = Vec::new();
    for e in raw {
        let event = WebhookEvent::parse(e.trim()).ok_or_else(|| {
            ServiceError::validation("events", format!("unknown event `{e}` (known: scrap.success, scrap.failure)"))
        })?;
        if !events.contains(&event) {
            events.push(event);
        }
    }
    if events.is_empty() {
        return Err(ServiceError::validation("events", "must name at least one event"));
    }
    events.sort();
    Ok(events)
}

impl WebhookService {
    pub(crate) fn new(
        store: Arc<dyn Store>,
        allow_private_networks: PrivateNetworks,
        queued: Arc<Notify>,
        audit: AuditLog,
    ) -> Self {
        WebhookService { store, allow_private_networks, queued, audit }
    }

    async fn require_plan(&self, session: &Session) -> Result<()> {
        let org = self.store.organization(session.org()).await?.ok_or(ServiceError::NotFound("organization"))?;
        if !org.plan.has_developer_features() {
            return Err(ServiceError::PlanRequired("webhooks"));
        }
        Ok(())
    }

    pub async fn create(&self, session: &Session, input: WebhookChanges) -> Result<CreatedWebhook> {
        session.require(&[Scope::WebhooksManage])?;
        self.require_plan(session).await?;
        if input.active == Some(false) {
            return Err(ServiceError::validation("active", "new webhooks are active; deactivate with PUT"));
        }
        let url = input.url.ok_or_else(|| ServiceError::validation("url", "is required"))?;
        let url = check_webhook_url(&url, &self.allow_private_networks).await?;
        let events = parse_events(input.events.ok_or_else(|| ServiceError::validation("events", "is required"))?)?;
        let scrap_ids = scrap_ids_in_org(&*self.store, session.org(), input.scrap_ids.unwrap_or_default()).await?;
        let now = Utc::now();
        let secret = new_secret();
        let webhook = Webhook {
            id: WebhookId::new(),
            organization_id: session.org(),
            url,
            events,
            scrap_ids,
            active: true,
            secret: secret.clone(),
            created_at: now,
            updated_at: now,
        };
        self.store.insert_webhook(&webhook).await?;
        let detail = Some(audit_detail(&webhook.url));
        self.audit.record(session, AuditAction::WebhookCreated { webhook: webhook.id }, detail).await;
        Ok(CreatedWebhook { webhook, plain_secret: secret })
    }

    pub async fn list(&self, session: &Session, page: PageRequest) -> Result<Paged<Webhook>> {
        let found = self.store.list_webhooks(session.org(), page.offset(), page.per_page).await?;
        Ok(Paged { items: found.items, total: found.total, page })
    }

    pub async fn get(&self, session: &Session, id: WebhookId) -> Result<Webhook> {
        self.store.webhook(session.org(), id).await?.ok_or(ServiceError::NotFound("webhook"))
    }

    pub async fn update(&self, session: &Session, id: WebhookId, input: WebhookChanges) -> Result<Webhook> {
        session.require(&[Scope::WebhooksManage])?;
        self.require_plan(session).await?;
        let mut webhook = self.get(session, id).await?;
        let mut changed = Vec::new();
        for (field, given) in [
            ("url", input.url.is_some()),
            ("events", input.events.is_some()),
            ("scrapIds", input.scrap_ids.is_some()),
            ("active", input.active.is_some()),
        ] {
            if given {
                changed.push(field);
            }
        }
        if let Some(url) = input.url {
            webhook.url = check_webhook_url(&url, &self.allow_private_networks).await?;
        }
        if let Some(events) = input.events {
            webhook.events = parse_events(events)?;
        }
        if let Some(ids) = input.scrap_ids {
            webhook.scrap_ids = scrap_ids_in_org(&*self.store, session.org(), ids).await?;
        }
        if let Some(active) = input.active {
            webhook.active = active;
        }
        webhook.updated_at = Utc::now();
        if !self.store.update_webhook(session.org(), &webhook).await? {
            return Err(ServiceError::NotFound("webhook"));
        }
        let detail = format!("{}; set: {}", audit_detail(&webhook.url), changed.join(", "));
        self.audit.record(session, AuditAction::WebhookChanged { webhook: id }, Some(detail)).await;
        Ok(webhook)
    }

    pub async fn delete(&self, session: &Session, id: WebhookId) -> Result<()> {
        session.require(&[Scope::WebhooksManage])?;
        self.require_plan(session).await?;
        let url = self.get(session, id).await?.url;
        if !self.store.delete_webhook(session.org(), id).await? {
            return Err(ServiceError::NotFound("webhook"));
        }
        self.audit.record(session, AuditAction::WebhookDeleted { webhook: id }, Some(audit_detail(&url))).await;
        Ok(())
    }

    /// The webhook's attempts, newest first.
    pub async fn deliveries(
        &self,
        session: &Session,
        id: WebhookId,
        page: PageRequest,
    ) -> Result<Paged<DeliveryAttempt>> {
        self.get(session, id).await?;
        let found = self.store.list_attempts(session.org(), id, page.offset(), page.per_page).await?;
        Ok(Paged { items: found.items, total: found.total, page })
    }

    /// Sends the event of `attempt` again as a new chain of attempts (new
    /// `webhook-id`); returns the new delivery.
    pub async fn redeliver(&self, session: &Session, webhook: WebhookId, attempt: ObjectId) -> Result<Delivery> {
        session.require(&[Scope::WebhooksManage])?;
        self.require_plan(session).await?;
        let hook = self.get(session, webhook).await?;
        if !hook.active {
            return Err(ServiceError::validation("active", "the webhook is inactive; activate it first"));
        }
        let attempt =
            self.store.attempt(session.org(), webhook, attempt).await?.ok_or(ServiceError::NotFound("delivery"))?;
        let original =
            self.store.delivery(session.org(), attempt.delivery_id).await?.ok_or(ServiceError::NotFound("delivery"))?;
        let now = Utc::now();
        let again = Delivery { id: ObjectId::new(), attempts: 0, created_at: now, ..original };
        self.store.insert_deliveries(std::slice::from_ref(&again), now).await?;
        self.queued.notify_one();
        Ok(again)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn receiver_urls_must_be_https_and_public() {
        assert!(check_webhook_url("https://93.184.216.34/hook", &PrivateNetworks::None).await.is_ok());
        for bad in [
            "http://93.184.216.34/hook",
            "ftp://example.com/",
            "not a url",
            "https://user:pw@93.184.216.34/",
            "https://127.0.0.1/hook",
            "https://10.0.0.8/hook",
            "https://169.254.169.254/latest/meta-data",
            "https://[::1]/hook",
            "https://[::ffff:127.0.0.1]/hook",
            "https://100.64.1.1/",
            "https://localhost/hook",
        ] {
            let err = check_webhook_url(bad, &PrivateNetworks::None).await.expect_err(bad);
            assert!(matches!(err, ServiceError::Validation { ref field, .. } if field == "url"), "{bad}: {err:?}");
        }
        assert!(
            check_webhook_url("http://127.0.0.1:9/hook", &PrivateNetworks::All).await.is_ok(),
            "allowed for development"
        );
        // A list of ranges opens those ranges only.
        let intranet = PrivateNetworks::parse("10.0.0.0/8").unwrap();
        assert!(check_webhook_url("http://10.1.2.3/hook", &intranet).await.is_ok());
        for refused in ["http://127.0.0.1:9/hook", "https://169.254.169.254/latest", "https://192.168.0.1/"] {
            assert!(check_webhook_url(refused, &intranet).await.is_err(), "{refused}");
        }
    }
}
