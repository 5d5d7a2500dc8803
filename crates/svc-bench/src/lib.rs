//! What the bench binaries share: a fresh store and an organization to
//! load it with, the process sampler, the timing statistics and the
//! 50-item page.

pub mod items_page;
pub mod sampler;
pub mod stats;

use std::sync::Arc;

use anyhow::{Context, Result, bail};
use chrono::Utc;
use svc_domain::account::{Organization, User};
use svc_domain::plan::Plan;
use svc_domain::{OrgId, UserId};
use svc_storage::testing::TestDb;
use svc_storage::{NewAccount, Store};

/// A fresh database of `backend` (`sqlite`, or `postgres` on
/// `SVC_TEST_POSTGRES_URL`), open and migrated.
pub async fn fresh_store(backend: &str) -> Result<(TestDb, Arc<dyn Store>)> {
    let db = match backend {
        "sqlite" => TestDb::sqlite(),
        "postgres" => TestDb::postgres().await.context("SVC_TEST_POSTGRES_URL is not set")?,
        other => bail!("unknown backend {other}"),
    };
    let store = db.open().await;
    Ok((db, store))
}

/// A Pro organization with a large balance and one user; returns both ids.
pub async fn bench_organization(store: &dyn Store) -> Result<(OrgId, UserId)> {
    let now = Utc::now();
    let org = Organization {
        id: OrgId::new(),
        name: "bench".into(),
        plan: Plan::Pro,
        balance: 1_000_000_000,
        default_containers: vec!["default".into()],
        created_at: now,
    };
    let user = User {
        id: UserId::new(),
        organization_id: org.id,
        email: "bench@example.com".into(),
        name: "bench".into(),
        is_admin: false,
        created_at: now,
    };
    let ids = (org.id, user.id);
    store.create_account(&NewAccount { organization: org, user, password_hash: "x".into() }).await?;
    Ok(ids)
}
