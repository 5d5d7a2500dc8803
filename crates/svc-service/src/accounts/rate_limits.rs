//! The limits of interface.md: who may do how much, how fast.
//!
//! Buckets that must hold across server processes live in the store, which
//! decides the requests to one bucket one after the other (the rules are
//! here, the store holds the bucket meanwhile); the pre-authentication
//! MCP limit per client IP lives in memory, so that a refused request costs
//! no database round-trip and no key hashing.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chrono::Utc;
use svc_domain::plan::Plan;
use svc_storage::Store;

use crate::accounts::gcra::{Decision, Rate};
use crate::accounts::sliding_log;
use crate::metrics::Metrics;
use crate::{Principal, Result, ServiceError};

/// `POST /api/scraps/worker/:id`, per API key: at most 60 in any 15-minute
/// span (interface.md), a sliding log.
pub const TRIGGER_PER_KEY: Rate = Rate::new(60, Duration::from_secs(15 * 60));
/// Sign-ups (`POST /api/auth/signup`, the web app's form), per client IP.
pub const SIGNUP_PER_IP: Rate = Rate::new(20, Duration::from_secs(3600));
/// Log-ins, per client IP, whatever the email.
pub const LOGIN_PER_IP: Rate = Rate::new(60, Duration::from_secs(15 * 60));
/// Log-ins, per email, from anywhere (a password guessed from many
/// addresses). Past it, an address that has not failed on the email for
/// [`LOGIN_FAILED_FOR`] still gets a try (`AccountService::login`), so that
/// guessing cannot lock the owner out.
pub const LOGIN_PER_EMAIL: Rate = Rate::new(20, Duration::from_secs(15 * 60));
/// How long an address (an IPv6 client's /64) counts as having failed to
/// log in to an email after a wrong password.
pub const LOGIN_FAILED_FOR: Duration = Duration::from_secs(15 * 60);
/// `POST /api/mcp`, per client IP, before authentication.
pub const MCP_PER_IP: Rate = Rate::new(60, Duration::from_secs(60));
/// `POST /api/mcp`, per user (all of a user's keys and sessions).
pub const MCP_PER_CALLER: Rate = Rate::new(120, Duration::from_secs(60));

/// The run quota of `GET /api/scraps/load/:id`, per organization and hour.
pub fn load_quota(plan: Plan) -> Rate {
    let hour = Duration::from_secs(3600);
    match plan {
        Plan::Free => Rate::new(60, hour),
        Plan::Growth => Rate::new(600, hour),
        Plan::Pro => Rate::new(3000, hour),
    }
}

/// Why a request was refused, for `Retry-After` and the `RateLimit` headers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub rate: Rate,
    pub decision: Decision,
}

impl Refusal {
    /// Whole seconds until a request would be allowed (at least 1): the
    /// `Retry-After` value.
    pub fn retry_after_secs(&self) -> u64 {
        (self.decision.retry_after.as_secs_f64().ceil() as u64).max(1)
    }
}

/// More in-memory IP buckets than this and the idle ones are dropped.
const LOCAL_BUCKETS_MAX: usize = 100_000;

pub struct RateLimits {
    store: Arc<dyn Store>,
    by_ip: Mutex<HashMap<IpAddr, i64>>,
    metrics: Arc<Metrics>,
}

impl RateLimits {
    pub(crate) fn new(store: Arc<dyn Store>, metrics: Arc<Metrics>) -> Self {
        RateLimits { store, by_ip: Mutex::default(), metrics }
    }

    /// The refusal of a request to `bucket`, counted (`svc_rate_limit_refusals_total`).
    fn refused(&self, bucket: &str, rate: Rate, decision: Decision) -> ServiceError {
        self.metrics.rate_limited(bucket);
        ServiceError::RateLimited(Refusal { rate, decision })
    }

    /// Takes one request from a shared bucket. The store decides requests
    /// to one bucket one at a time, whichever process they reach.
    pub async fn take(&self, bucket: &str, rate: Rate) -> Result<()> {
        let mut verdict = None;
        let allowed = self
            .store
            .take_rate_tat(bucket, &mut |tat| {
                // A bucket never used holds 0, which decides like no state.
                let decision = rate.decide(Some(tat), Utc::now().timestamp_millis());
                verdict = Some(decision);
                decision.allowed.then_some(decision.tat_ms)
            })
            .await?;
        match verdict {
            Some(decision) if !allowed => Err(self.refused(bucket, rate, decision)),
            _ => Ok(()),
        }
    }

    /// Takes one request from a shared sliding-log bucket: at most
    /// `rate.limit` in any span of `rate.window` (`sliding_log`).
    pub async fn take_in_any_window(&self, bucket: &str, rate: Rate) -> Result<()> {
        let mut verdict = None;
        let allowed = self
            .store
            .take_rate_log(bucket, &mut |stored| {
                let stamps: Vec<i64> = serde_json::from_str(stored).unwrap_or_default();
                let (decision, next) = sliding_log::decide(&rate, &stamps, Utc::now().timestamp_millis());
                verdict = Some(decision);
                decision.allowed.then(|| serde_json::to_string(&next).expect("numbers serialize"))
            })
            .await?;
        match verdict {
            Some(decision) if !allowed => Err(self.refused(bucket, rate, decision)),
            _ => Ok(()),
        }
    }

    /// Sets the marker `bucket` (a bucket that holds an instant) to `now +
    /// for`, unless it already holds a later instant.
    pub async fn mark(&self, bucket: &str, r#for: Duration) -> Result<()> {
        let until = Utc::now().timestamp_millis() + r#for.as_millis() as i64;
        self.store.take_rate_tat(bucket, &mut |held| Some(held.max(until))).await?;
        Ok(())
    }

    /// Clears the marker `bucket`.
    pub async fn unmark(&self, bucket: &str) -> Result<()> {
        self.store.take_rate_tat(bucket, &mut |_| Some(0)).await?;
        Ok(())
    }

    /// Sets the marker `bucket` as [`Self::mark`] does if it is not set now,
    /// in one step of the store (two requests cannot both find it unset);
    /// whether it was unset.
    pub async fn mark_if_unset(&self, bucket: &str, r#for: Duration) -> Result<bool> {
        let now = Utc::now().timestamp_millis();
        let until = now + r#for.as_millis() as i64;
        Ok(self.store.take_rate_tat(bucket, &mut |held| (held <= now).then_some(until)).await?)
    }

    /// The MCP limit per client address (an IPv6 client's /64), in memory,
    /// no database.
    pub fn take_mcp_ip(&self, ip: IpAddr) -> Result<()> {
        let ip = crate::accounts::client_address::limited_network(ip);
        let now = Utc::now().timestamp_millis();
        let mut buckets = self.by_ip.lock().unwrap_or_else(|e| e.into_inner());
        if buckets.len() > LOCAL_BUCKETS_MAX {
            buckets.retain(|_, tat| *tat > now);
        }
        let decision = MCP_PER_IP.decide(buckets.get(&ip).copied(), now);
        if !decision.allowed {
            drop(buckets);
            return Err(self.refused("mcp:ip", MCP_PER_IP, decision));
        }
        buckets.insert(ip, decision.tat_ms);
        Ok(())
    }

    /// The MCP limit per caller: one bucket per user.
    pub async fn take_mcp_caller(&self, principal: &Principal) -> Result<()> {
        self.take(&format!("mcp:user:{}", principal.user()), MCP_PER_CALLER).await
    }
}
