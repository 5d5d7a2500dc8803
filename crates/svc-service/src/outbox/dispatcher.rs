//! The webhook dispatcher: sends queued deliveries, records each attempt,
//! schedules retries.
//!
//! Deliveries are queued (the outbox) in the transaction that finishes a
//! run. The dispatcher claims due ones under a lease (so with several
//! processes each attempt is sent by one of them), sends each in its own
//! task (a slow receiver holds only its own slot), and records the outcome
//! with the claim as a guard. First attempts go out as soon as the run
//! finishes in this process (`RunSignals::deliveries`), retries at the
//! sweep (`SVC_WEBHOOK_SWEEP_INTERVAL`). A crash between sending and
//! recording sends that attempt again once the lease ends (at least once);
//! a shutdown does not: the loop stops claiming and waits (within its
//! grace period) until every attempt it sent is recorded, so the store
//! closes after them. Attempts claimed but not yet sent are not sent.

use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use svc_domain::webhook::{AttemptState, Delivery, DeliveryAttempt, Webhook};
use svc_domain::{ObjectId, WebhookId};
use svc_storage::Store;
use tokio::sync::{Notify, Semaphore};

use crate::Result;
use crate::metrics::Metrics;
use crate::outbox::webhook_payload::body_at;
use crate::outbox::webhook_signing::{hex_signature, standard_signature};
use crate::schedule::backoff::Backoff;

/// What a receiver answered.
#[derive(Clone, Debug, PartialEq)]
pub struct ReceiverResponse {
    pub status: u16,
    /// The start of the body (at most 1 KiB).
    pub body: String,
}

/// Sends one request to a receiver (the HTTP client is an adapter: it
/// applies the timeout, refuses redirects and non-public addresses).
#[async_trait]
pub trait WebhookTransport: Send + Sync {
    async fn post(
        &self,
        url: &str,
        headers: &[(&'static str, String)],
        body: Vec<u8>,
    ) -> std::result::Result<ReceiverResponse, String>;
}

#[derive(Clone, Debug)]
pub struct DispatchConfig {
    /// Delays before attempt 2 and attempt 3.
    pub retry_delays: Vec<Duration>,
    pub sweep_interval: Duration,
    pub timeout: Duration,
    /// Attempts in flight at once in this process.
    pub max_in_flight: usize,
}

/// When the attempt after `made` failed attempts is due, or `None` when
/// `made` attempts are all there are.
pub fn next_attempt_at(made: i64, failed_at: DateTime<Utc>, delays: &[Duration]) -> Option<DateTime<Utc>> {
    let delay = delays.get(usize::try_from(made).ok()?.checked_sub(1)?)?;
    Some(failed_at + chrono::Duration::from_std(*delay).ok()?)
}

/// Attempts in flight at once to one webhook: a slow or dead receiver
/// holds at most this many of the process's slots.
pub const PER_WEBHOOK_IN_FLIGHT: usize = 16;

pub struct Dispatcher {
    store: Arc<dyn Store>,
    transport: Arc<dyn WebhookTransport>,
    config: DispatchConfig,
    queued: Arc<Notify>,
    slots: Arc<Semaphore>,
    per_webhook: Mutex<HashMap<WebhookId, Arc<Semaphore>>>,
    /// Deliveries this process is handling (a claim that outlived its lease
    /// while waiting for a slot is not started twice).
    handling: Mutex<HashSet<ObjectId>>,
    /// Set at shutdown: claimed attempts still waiting for a slot are not sent.
    stopping: AtomicBool,
    /// How long the attempts in flight at shutdown may take to be recorded.
    grace: Duration,
    /// Counts attempts by outcome (`svc_webhook_attempts_total`).
    metrics: Arc<Metrics>,
}

/// How long attempts in flight at shutdown may take, by default.
pub const DEFAULT_SHUTDOWN_GRACE: Duration = Duration::from_secs(30);

/// The outcome of one claimed delivery.
#[derive(Clone, Debug, PartialEq)]
pub struct Sent {
    pub delivery: ObjectId,
    pub attempt: i64,
    pub state: AttemptState,
}

impl Dispatcher {
    pub fn new(
        store: Arc<dyn Store>,
        transport: Arc<dyn WebhookTransport>,
        config: DispatchConfig,
        queued: Arc<Notify>,
    ) -> Self {
        let slots = Arc::new(Semaphore::new(config.max_in_flight.max(1)));
        Dispatcher {
            store,
            transport,
            config,
            queued,
            slots,
            per_webhook: Mutex::default(),
            handling: Mutex::default(),
            stopping: AtomicBool::new(false),
            grace: DEFAULT_SHUTDOWN_GRACE,
            metrics: Arc::default(),
        }
    }

    /// How long the attempts in flight at shutdown may take to be sent and
    /// recorded (`SVC_SHUTDOWN_GRACE`); after it the loop returns without
    /// them (their lease ends and they are sent again).
    pub fn with_shutdown_grace(mut self, grace: Duration) -> Self {
        self.grace = grace;
        self
    }

    /// Counts this dispatcher's attempts in `metrics` (the services' own,
    /// for `GET /metrics`) rather than in a registry of its own.
    pub fn counted_in(mut self, metrics: Arc<Metrics>) -> Self {
        self.metrics = metrics;
        self
    }

    fn lease(&self) -> chrono::Duration {
        chrono::Duration::from_std(self.config.timeout + Duration::from_secs(30))
            .unwrap_or(chrono::Duration::minutes(1))
    }

    fn webhook_slots(&self, webhook: WebhookId) -> Arc<Semaphore> {
        let mut map = self.per_webhook.lock().unwrap_or_else(|e| e.into_inner());
        map.entry(webhook).or_insert_with(|| Arc::new(Semaphore::new(PER_WEBHOOK_IN_FLIGHT))).clone()
    }

    /// Claims what is due at `now` (as many as there are free slots) and
    /// starts handling each: it waits for a slot of its webhook, then for
    /// a slot of the process, then sends. The handles resolve when each is
    /// recorded.
    async fn start_due(self: &Arc<Self>, now: DateTime<Utc>) -> Result<Vec<tokio::task::JoinHandle<Option<Sent>>>> {
        let free = self.slots.available_permits().max(1) as i64;
        let claimed = self.store.claim_deliveries(now, now + self.lease(), free.min(500)).await?;
        let mut handles = Vec::with_capacity(claimed.len());
        for (delivery, webhook) in claimed {
            if !self.handling.lock().unwrap_or_else(|e| e.into_inner()).insert(delivery.id) {
                continue;
            }
            let this = self.clone();
            handles.push(tokio::spawn(async move {
                let id = delivery.id;
                let hook_slot = this.webhook_slots(delivery.webhook_id).acquire_owned().await.expect("never closed");
                let slot = this.slots.clone().acquire_owned().await.expect("never closed");
                if this.stopping.load(Ordering::SeqCst) {
                    // Never sent: its lease ends and another claim sends it.
                    this.handling.lock().unwrap_or_else(|e| e.into_inner()).remove(&id);
                    return None;
                }
                let sent = this.deliver(delivery, webhook).await;
                drop((slot, hook_slot));
                this.handling.lock().unwrap_or_else(|e| e.into_inner()).remove(&id);
                match sent {
                    Ok(sent) => sent,
                    Err(e) => {
                        tracing::error!(error = %e, "recording a webhook attempt failed");
                        None
                    }
                }
            }));
        }
        Ok(handles)
    }

    /// One step: sends everything due at `now` and waits until each attempt
    /// is recorded (tests use this instead of the loop).
    pub async fn sweep(self: &Arc<Self>, now: DateTime<Utc>) -> Result<Vec<Sent>> {
        let mut sent = Vec::new();
        loop {
            let handles = self.start_due(now).await?;
            if handles.is_empty() {
                return Ok(sent);
            }
            for h in handles {
                if let Ok(Some(s)) = h.await {
                    sent.push(s);
                }
            }
        }
    }

    /// One attempt of a claimed delivery; `None` when the claim was lost.
    async fn deliver(&self, delivery: Delivery, webhook: Option<Webhook>) -> Result<Option<Sent>> {
        let attempt_no = delivery.attempts + 1;
        let record = |state, status, body, error, duration, next| DeliveryAttempt {
            id: ObjectId::new(),
            delivery_id: delivery.id,
            organization_id: delivery.organization_id,
            webhook_id: delivery.webhook_id,
            event: delivery.event,
            history_id: delivery.history_id,
            attempt: attempt_no,
            state,
            response_status: status,
            response_body: body,
            error,
            duration_ms: duration,
            created_at: Utc::now(),
            next_retry_at: next,
        };
        let Some(webhook) = webhook.filter(|w| w.active) else {
            let skipped = record(AttemptState::Skipped, None, None, Some("the webhook is inactive".into()), None, None);
            let held = self.store.skip_delivery(&delivery, &skipped).await?;
            if held {
                self.metrics.webhook_attempted(AttemptState::Skipped);
            }
            return Ok(held.then_some(Sent {
                delivery: delivery.id,
                attempt: attempt_no,
                state: AttemptState::Skipped,
            }));
        };

        let sent_at = Utc::now();
        let body = body_at(&delivery.payload, sent_at);
        let id = delivery.id.to_string();
        let headers = [
            ("content-type", "application/json".to_string()),
            ("x-webhook-event", delivery.event.as_str().to_string()),
            ("x-webhook-signature", hex_signature(&webhook.secret, &body)),
            ("webhook-id", id.clone()),
            ("webhook-timestamp", sent_at.timestamp().to_string()),
            ("webhook-signature", standard_signature(&webhook.secret, &id, sent_at.timestamp(), &body)),
        ];
        let started = Instant::now();
        let answer = self.transport.post(&webhook.url, &headers, body).await;
        let duration = Some(started.elapsed().as_millis() as i64);
        let failed_at = Utc::now();
        let (ok, status, body, error) = match answer {
            Ok(r) if (200..300).contains(&r.status) => (true, Some(r.status as i64), Some(r.body), None),
            Ok(r) => (false, Some(r.status as i64), Some(r.body), Some(format!("the receiver answered {}", r.status))),
            Err(e) => (false, None, None, Some(e)),
        };
        let next = if ok { None } else { next_attempt_at(attempt_no, failed_at, &self.config.retry_delays) };
        let state = match (ok, next) {
            (true, _) => AttemptState::Delivered,
            (false, Some(_)) => AttemptState::PendingRetry,
            (false, None) => AttemptState::Failed,
        };
        let attempt = record(state, status, body, error, duration, next);
        let held = self.store.record_attempt(&delivery, &attempt, next).await?;
        if held {
            self.metrics.webhook_attempted(state);
        } else {
            tracing::warn!(delivery = %delivery.id, "webhook attempt recorded after its lease was lost");
        }
        Ok(held.then_some(Sent { delivery: delivery.id, attempt: attempt_no, state }))
    }

    /// Sends deliveries as they come due until `shutdown` resolves, then
    /// waits (within the grace period) until the attempts sent are recorded.
    pub async fn run(self: Arc<Self>, shutdown: impl Future<Output = ()>) {
        let mut shutdown = std::pin::pin!(shutdown);
        let mut in_flight: Vec<tokio::task::JoinHandle<Option<Sent>>> = Vec::new();
        let mut backoff = Backoff::default();
        loop {
            in_flight.retain(|h| !h.is_finished());
            let delay = match self.start_due(Utc::now()).await {
                Ok(handles) if !handles.is_empty() => {
                    backoff.succeeded();
                    in_flight.extend(handles);
                    // More may be due: go on once a slot is free.
                    if self.slots.available_permits() == 0 {
                        tokio::select! {
                            _ = self.slots.acquire() => {}
                            _ = &mut shutdown => break,
                        }
                    }
                    continue;
                }
                Ok(_) => {
                    if backoff.succeeded() > 0 {
                        tracing::info!("webhook dispatcher: the database answers again");
                    }
                    self.config.sweep_interval
                }
                Err(e) => {
                    let delay = backoff.failed();
                    tracing::error!(error = %e, failures = backoff.failures(), retry_in_ms = delay.as_millis() as u64, "claiming webhook deliveries failed");
                    delay.min(self.config.sweep_interval)
                }
            };
            tokio::select! {
                _ = tokio::time::sleep(delay) => {}
                _ = self.queued.notified() => {}
                _ = &mut shutdown => break,
            }
        }
        self.stopping.store(true, Ordering::SeqCst);
        in_flight.retain(|h| !h.is_finished());
        if in_flight.is_empty() {
            return;
        }
        tracing::info!(attempts = in_flight.len(), "waiting for the webhook attempts in flight to be recorded");
        let all = async {
            for h in in_flight.iter_mut() {
                let _ = h.await;
            }
        };
        if tokio::time::timeout(self.grace, all).await.is_err() {
            tracing::warn!(
                "webhook attempts still in flight at the end of the grace period: they are sent again after their lease"
            );
            for h in &in_flight {
                h.abort();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retries_follow_the_configured_delays_then_stop() {
        let t = Utc::now();
        let delays = [Duration::from_secs(60), Duration::from_secs(300)];
        assert_eq!(next_attempt_at(1, t, &delays), Some(t + chrono::Duration::seconds(60)));
        assert_eq!(next_attempt_at(2, t, &delays), Some(t + chrono::Duration::seconds(300)));
        assert_eq!(next_attempt_at(3, t, &delays), None);
        assert_eq!(next_attempt_at(0, t, &delays), None);
    }
}
