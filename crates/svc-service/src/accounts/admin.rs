//! Operator actions (`svc admin ...`), run straight on the database.

use std::sync::Arc;

use svc_domain::account::User;
use svc_domain::plan::Plan;
use svc_storage::Store;

use crate::accounts::audit::{AuditAction, AuditLog};
use crate::{Result, ServiceError};

pub struct AdminService {
    store: Arc<dyn Store>,
    audit: AuditLog,
}

impl AdminService {
    pub(crate) fn new(store: Arc<dyn Store>, audit: AuditLog) -> Self {
        AdminService { store, audit }
    }

    async fn user(&self, email: &str) -> Result<User> {
        let email = email.trim().to_lowercase();
        Ok(self.store.user_by_email(&email).await?.ok_or(ServiceError::NotFound("user"))?.0)
    }

    /// Takes effect for the next weekly renewal: the week of the change
    /// counts as renewed (the store records it with the plan), so moving to
    /// Growth or Pro tops nothing up at once, and the plan held at the next
    /// Monday's renewal decides the amount.
    pub async fn set_plan(&self, email: &str, plan: Plan) -> Result<()> {
        let user = self.user(email).await?;
        let org = user.organization_id;
        let before = self.store.organization(org).await?.map(|o| o.plan);
        self.store.set_plan(org, plan).await?;
        if before != Some(plan) {
            let detail = format!("{} to {}", before.map(|p| p.as_str()).unwrap_or("?"), plan.as_str());
            self.audit.record_operator(org, AuditAction::PlanChanged { organization: org }, Some(detail)).await;
        }
        Ok(())
    }

    pub async fn grant_admin(&self, email: &str) -> Result<()> {
        let user = self.user(email).await?;
        self.store.set_admin(user.organization_id, user.id, true).await?;
        Ok(())
    }

    /// Returns the new balance.
    pub async fn add_balance(&self, email: &str, units: i64) -> Result<i64> {
        let user = self.user(email).await?;
        self.store.add_balance(user.organization_id, units).await?.ok_or(ServiceError::NotFound("organization"))
    }
}
