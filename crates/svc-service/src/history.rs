//! Reading run history, under the cost contract.

use std::sync::Arc;

use serde_json::Value;
use svc_domain::ObjectId;
use svc_domain::history::HistoryRow;
use svc_domain::scope::Scope;
use svc_storage::{HistoryFilter, Store};

use crate::paging::{PageRequest, Paged};
use crate::scraps::authorize_scrap;
use crate::{Principal, Result, ServiceError, Session};

/// A history row as one caller may see it. `errorSnapshot` is always
/// cleared: it is for the web app's admin view only ([`HistoryService::error_snapshot`]).
/// When `admin_fields` is false, `costs` and `meter` have been cleared too
/// and adapters omit them entirely (the cost contract).
#[derive(Clone, Debug, PartialEq)]
pub struct HistoryView {
    pub row: HistoryRow,
    pub admin_fields: bool,
}

impl HistoryView {
    pub fn for_principal(mut row: HistoryRow, principal: &Principal) -> Self {
        let admin_fields = principal.is_platform_admin();
        row.error_snapshot = None;
        if !admin_fields {
            row.costs = None;
            row.meter = None;
        }
        HistoryView { row, admin_fields }
    }
}

pub struct HistoryService {
    store: Arc<dyn Store>,
}

impl HistoryService {
    pub(crate) fn new(store: Arc<dyn Store>) -> Self {
        HistoryService { store }
    }

    /// Runs of the organization, newest first; of one scrap when `scrap` is
    /// given. A key with an allow-list sees only runs of those scraps.
    pub async fn list(
        &self,
        principal: &Principal,
        scrap: Option<ObjectId>,
        page: PageRequest,
    ) -> Result<Paged<HistoryView>> {
        principal.require(&[Scope::HistoryRead])?;
        if let Some(scrap) = scrap {
            authorize_scrap(&*self.store, principal, scrap).await?;
            if self.store.existing_scrap_ids(principal.org(), &[scrap]).await?.is_empty() {
                return Err(ServiceError::NotFound("scrap"));
            }
        }
        let filter = HistoryFilter {
            scrap,
            only_scraps: principal.scrap_allow_list().map(<[ObjectId]>::to_vec),
            offset: page.offset(),
            limit: page.per_page,
        };
        let found = self.store.list_history(principal.org(), &filter).await?;
        let paged = Paged { items: found.items, total: found.total, page };
        Ok(paged.map(|row| HistoryView::for_principal(row, principal)))
    }

    pub async fn get(&self, principal: &Principal, id: ObjectId) -> Result<HistoryView> {
        principal.require(&[Scope::HistoryRead])?;
        let row = self.store.history_row(principal.org(), id).await?.ok_or(ServiceError::NotFound("history row"))?;
        if !principal.may_touch_scrap(row.scrap_id) {
            return Err(ServiceError::ScrapNotInKeyScope);
        }
        Ok(HistoryView::for_principal(row, principal))
    }

    /// The page markup, selector and screenshot captured when a run of the
    /// caller's organization failed (`None` when none was captured). For the
    /// web app's admin view only: a web session of a platform admin, else 403.
    pub async fn error_snapshot(&self, session: &Session, id: ObjectId) -> Result<Option<Value>> {
        if !session.is_platform_admin() {
            return Err(ServiceError::Forbidden("error snapshots are for platform admins".into()));
        }
        let row = self.store.history_row(session.org(), id).await?.ok_or(ServiceError::NotFound("history row"))?;
        Ok(row.error_snapshot)
    }
}
