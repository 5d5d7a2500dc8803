//! An organization's own settings, set by its owners and admins
//! (`audit::access::require_org_admin`): today the history age limit, the
//! days a run is kept before housekeeping deletes it (none: kept for good;
//! `schedule::housekeeping` says what is never deleted).

use std::sync::Arc;

use svc_domain::audit::AuditAction;
use svc_storage::Store;

use crate::accounts::audit::AuditLog;
use crate::accounts::audit::access::require_org_admin;
use crate::{Result, ServiceError, Session};

/// The longest history age limit, in days (ten years).
pub const MAX_HISTORY_DAYS: i64 = 3650;

/// An organization's settings.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OrgSettings {
    /// Days a run is kept; `None` keeps every run.
    pub history_retention_days: Option<i64>,
}

pub struct OrganizationSettings {
    store: Arc<dyn Store>,
    audit: AuditLog,
}

impl OrganizationSettings {
    pub(crate) fn new(store: Arc<dyn Store>, audit: AuditLog) -> Self {
        OrganizationSettings { store, audit }
    }

    pub async fn get(&self, session: &Session) -> Result<OrgSettings> {
        require_org_admin(session)?;
        let days = self.store.history_retention(session.org()).await?;
        Ok(OrgSettings { history_retention_days: days })
    }

    /// Sets how many days runs are kept (`None`: for good), 1 to
    /// [`MAX_HISTORY_DAYS`]; the next housekeeping pass applies it.
    pub async fn set_history_retention(&self, session: &Session, days: Option<i64>) -> Result<OrgSettings> {
        require_org_admin(session)?;
        if let Some(d) = days
            && !(1..=MAX_HISTORY_DAYS).contains(&d)
        {
            return Err(ServiceError::validation(
                "historyRetentionDays",
                format!("must be from 1 to {MAX_HISTORY_DAYS} days; leave it empty (null) to keep every run"),
            ));
        }
        let before = self.store.history_retention(session.org()).await?;
        if !self.store.set_history_retention(session.org(), days).await? {
            return Err(ServiceError::NotFound("organization"));
        }
        if before != days {
            let said = |d: Option<i64>| d.map_or("kept".to_string(), |d| format!("{d} days"));
            let detail = format!("history: {} to {}", said(before), said(days));
            let action = AuditAction::SettingsChanged { organization: session.org() };
            self.audit.record(session, action, Some(detail)).await;
        }
        Ok(OrgSettings { history_retention_days: days })
    }
}
