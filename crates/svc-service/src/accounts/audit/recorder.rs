//! [`AuditLog`]: writes and reads the audit log (see the room's doc).

use std::net::IpAddr;
use std::sync::Arc;

use chrono::Utc;
use svc_domain::audit::{AuditAction, AuditActor, AuditEntry};
use svc_domain::{OrgId, SessionId, UserId};
use svc_storage::{AddressSeen, Store};

use crate::accounts::audit::access::require_org_admin;
use crate::paging::{PageRequest, Paged};
use crate::{Principal, Result, Session};

/// Records and lists audit entries. Cheap to clone.
#[derive(Clone)]
pub struct AuditLog {
    store: Arc<dyn Store>,
}

impl AuditLog {
    pub(crate) fn new(store: Arc<dyn Store>) -> Self {
        AuditLog { store }
    }

    /// Records `action`, done by the user of `by`, from the request's address.
    pub async fn record(&self, by: &Session, action: AuditAction, detail: Option<String>) {
        let actor = self.user_actor(by.org(), by.user()).await;
        self.write(AuditEntry::new(by.org(), actor, action, detail, by.address().map(|a| a.to_string()))).await;
    }

    /// Records in organization `org` an `action` the user of `by` did
    /// from a session of another organization (joining `org` by an
    /// invitation accepted while signed in to their own).
    pub async fn record_in(&self, org: OrgId, by: &Session, action: AuditAction, detail: Option<String>) {
        let actor = self.user_actor(by.org(), by.user()).await;
        self.write(AuditEntry::new(org, actor, action, detail, by.address().map(|a| a.to_string()))).await;
    }

    /// Records `action`, done by `by`: a session's user or an API key.
    pub async fn record_principal(&self, by: &Principal, action: AuditAction, detail: Option<String>) {
        let actor = match by {
            Principal::Session(s) => return self.record(s, action, detail).await,
            Principal::Key { grant, .. } => AuditActor::Key { id: grant.key_id },
        };
        self.write(AuditEntry::new(by.org(), actor, action, detail, by.address().map(|a| a.to_string()))).await;
    }

    /// Records `action` in `org`'s log, done by the operator (`svc admin`).
    pub async fn record_operator(&self, org: OrgId, action: AuditAction, detail: Option<String>) {
        self.write(AuditEntry::new(org, AuditActor::Operator, action, detail, None)).await;
    }

    /// After a log-in or sign-up that opened `session` from `address`:
    /// remembers the client's `network` (an IPv6 client's /64, as the
    /// limits count it) and records a log-in from a network the user had
    /// not logged in from (the first one, a sign-up's, is not reported).
    pub(crate) async fn note_login(
        &self,
        org: OrgId,
        user: UserId,
        session: SessionId,
        address: IpAddr,
        network: &str,
    ) {
        match self.store.remember_address(org, user, network, Utc::now()).await {
            Ok(AddressSeen::New) => {
                let actor = self.user_actor(org, user).await;
                let action = AuditAction::LoginFromNewAddress { session };
                self.write(AuditEntry::new(org, actor, action, None, Some(address.to_string()))).await;
            }
            Ok(AddressSeen::First | AddressSeen::Known) => {}
            Err(e) => tracing::error!(error = %e, org = %org, "audit log: the log-in address could not be remembered"),
        }
    }

    /// One page of `session`'s organization's log, newest first (owners and
    /// admins: [`require_org_admin`]).
    pub async fn list(&self, session: &Session, page: PageRequest) -> Result<Paged<AuditEntry>> {
        require_org_admin(session)?;
        let found = self.store.list_audit(session.org(), page.offset(), page.per_page).await?;
        Ok(Paged { items: found.items, total: found.total, page })
    }

    async fn user_actor(&self, org: OrgId, user: UserId) -> AuditActor {
        let email = match self.store.user(org, user).await {
            Ok(Some(u)) => u.email,
            Ok(None) => String::new(),
            Err(e) => {
                tracing::warn!(error = %e, "audit log: the actor's email could not be read");
                String::new()
            }
        };
        AuditActor::User { id: user, email }
    }

    async fn write(&self, entry: AuditEntry) {
        if let Err(e) = self.store.insert_audit(&entry).await {
            tracing::error!(
                error = %e,
                org = %entry.organization_id,
                action = entry.action.name(),
                "audit log: an entry could not be written"
            );
        }
    }
}
