//! Reading run history, under the cost contract.

use std::sync::Arc;

use serde_json::Value;
use svc_domain::history::HistoryRow;
use svc_domain::run_page::RunPage;
use svc_domain::scope::Scope;
use svc_domain::{HistoryId, ScrapId};
use svc_storage::{HistoryFilter, Store};

use crate::outbox::data_export::xlsx::{self, XlsxRefusal};
use crate::outbox::data_export::{ExportFile, ExportFormat, csv, grid, ndjson};
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

/// The runs around one run of a scrap, for the web app's run page.
#[derive(Clone, Debug, PartialEq)]
pub struct Neighbours {
    /// The scrap's run created just before.
    pub previous: Option<HistoryId>,
    /// The scrap's run created just after.
    pub next: Option<HistoryId>,
    /// The scrap's newest successful run created before (what changed since).
    pub previous_success: Option<HistoryView>,
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
        scrap: Option<ScrapId>,
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
            only_scraps: principal.scrap_allow_list().map(<[ScrapId]>::to_vec),
            offset: page.offset(),
            limit: page.per_page,
        };
        let found = self.store.list_history(principal.org(), &filter).await?;
        let paged = Paged { items: found.items, total: found.total, page };
        Ok(paged.map(|row| HistoryView::for_principal(row, principal)))
    }

    pub async fn get(&self, principal: &Principal, id: HistoryId) -> Result<HistoryView> {
        principal.require(&[Scope::HistoryRead])?;
        let row = self.store.history_row(principal.org(), id).await?.ok_or(ServiceError::NotFound("history row"))?;
        if !principal.may_see_row_of(row.scrap_id) {
            return Err(ServiceError::ScrapNotInKeyScope);
        }
        Ok(HistoryView::for_principal(row, principal))
    }

    /// The pages of run `id` (a crawl's; none for a run of one page), in
    /// the order of its data, under the checks of [`Self::get`].
    pub async fn pages(&self, principal: &Principal, id: HistoryId, page: PageRequest) -> Result<Paged<RunPage>> {
        self.get(principal, id).await?;
        let found = self.store.run_pages(principal.org(), id, page.offset(), page.per_page).await?;
        Ok(Paged { items: found.items, total: found.total, page })
    }

    /// Run `id` as [`Self::get`] shows it, with how many pages it lists
    /// (0 for a run of one page, and for a crawl not finished yet).
    pub async fn get_with_page_count(&self, principal: &Principal, id: HistoryId) -> Result<(HistoryView, i64)> {
        let view = self.get(principal, id).await?;
        let pages = self.store.run_pages(principal.org(), id, 0, 0).await?.total;
        Ok((view, pages))
    }

    /// The runs around run `id`, under the checks of [`Self::get`].
    pub async fn neighbours(&self, principal: &Principal, id: HistoryId) -> Result<Neighbours> {
        let row = self.get(principal, id).await?.row;
        let found = self.store.run_neighbours(principal.org(), &row).await?;
        Ok(Neighbours {
            previous: found.previous,
            next: found.next,
            previous_success: found.previous_success.map(|row| HistoryView::for_principal(row, principal)),
        })
    }

    /// The newest successful run of `scrap` (with its data), as [`Self::get`]
    /// shows it; `None` when it never succeeded. For the scrap page's latest
    /// data: unlike `RunService::live_data` it is not a plan feature.
    pub async fn last_success(&self, principal: &Principal, scrap: ScrapId) -> Result<Option<HistoryView>> {
        principal.require(&[Scope::HistoryRead])?;
        authorize_scrap(&*self.store, principal, scrap).await?;
        if self.store.existing_scrap_ids(principal.org(), &[scrap]).await?.is_empty() {
            return Err(ServiceError::NotFound("scrap"));
        }
        let row = self.store.last_success(principal.org(), scrap).await?;
        Ok(row.map(|row| HistoryView::for_principal(row, principal)))
    }

    /// Run `id`'s data as a file in `format` (`json`, `csv`, `ndjson` or
    /// `xlsx`), under the checks of [`Self::get`]. An unknown format, and
    /// data a worksheet cannot hold, are 422 naming `format`.
    pub async fn export(&self, principal: &Principal, id: HistoryId, format: &str) -> Result<ExportFile> {
        let format = ExportFormat::parse(format).ok_or_else(|| {
            let known: Vec<&str> = ExportFormat::ALL.iter().map(|f| f.as_str()).collect();
            ServiceError::validation("format", format!("must be one of {}", known.join(", ")))
        })?;
        let row = self.get(principal, id).await?.row;
        let title = match row.scrap_id {
            Some(scrap) => self.store.scrap(principal.org(), scrap).await?.map(|s| s.title),
            None => None,
        };
        let file_name = format!("{}-{}.{}", csv::slug(title.as_deref().unwrap_or("run")), row.id, format.as_str());
        let run = row.id;
        let broken = move |e: grid::DataError| ServiceError::Internal(format!("run {run}: {e}"));
        // Up to 10 MiB of data to lay out: off the async workers.
        let data = row.data;
        let made = tokio::task::spawn_blocking(move || match format {
            ExportFormat::Json => Ok(data.into_bytes()),
            ExportFormat::Csv => csv::from_json(&data).map(String::into_bytes).map_err(XlsxRefusal::Data),
            ExportFormat::Ndjson => ndjson::from_json(&data).map(String::into_bytes).map_err(XlsxRefusal::Data),
            ExportFormat::Xlsx => xlsx::from_json(&data),
        })
        .await
        .map_err(|e| ServiceError::Internal(format!("run {run}: the export stopped: {e}")))?;
        let bytes = match made {
            Ok(bytes) => bytes,
            Err(XlsxRefusal::Data(e)) => return Err(broken(e)),
            Err(XlsxRefusal::TooLarge(why)) => {
                return Err(ServiceError::validation(
                    "format",
                    format!("xlsx cannot hold this run's data: {why}; use csv or ndjson"),
                ));
            }
            Err(XlsxRefusal::Writer(why)) => {
                return Err(ServiceError::Internal(format!("run {run}: the workbook: {why}")));
            }
        };
        Ok(ExportFile { format, file_name, bytes })
    }

    /// The page markup, selector and screenshot captured when a run of the
    /// caller's organization failed (`None` when none was captured). For the
    /// web app's admin view only: a web session of a platform admin, else 403.
    pub async fn error_snapshot(&self, session: &Session, id: HistoryId) -> Result<Option<Value>> {
        if !session.is_platform_admin() {
            return Err(ServiceError::Forbidden("error snapshots are for platform admins".into()));
        }
        let row = self.store.history_row(session.org(), id).await?.ok_or(ServiceError::NotFound("history row"))?;
        Ok(row.error_snapshot)
    }
}

#[cfg(test)]
mod tests {
    use svc_domain::history::StatusDetail;

    use super::*;
    use crate::accounts::keys::NewKey;
    use crate::testing::TestServices;

    #[tokio::test]
    async fn neighbours_of_a_run_under_the_checks_of_get() {
        let t = TestServices::start().await;
        let ada = t.signup("ada@example.com").await;
        let bob = t.signup("bob@example.com").await;
        let s = t.scrap(&ada, "s").await;
        let other = t.scrap(&ada, "other").await;
        let first = t.run(&ada, s, Some(StatusDetail::Success), 0).await;
        t.run(&ada, other, Some(StatusDetail::Success), 1).await;
        let second = t.run(&ada, s, Some(StatusDetail::Error), 2).await;
        let third = t.run(&ada, s, Some(StatusDetail::Success), 3).await;
        let me: Principal = ada.session.clone().into();

        let around = t.services.history.neighbours(&me, second.id).await.unwrap();
        assert_eq!((around.previous, around.next), (Some(first.id), Some(third.id)));
        let success = around.previous_success.expect("a success before");
        assert_eq!(success.row.id, first.id);
        assert_eq!(success.row.data, "[0]", "with its data");
        assert_eq!((success.row.costs.clone(), success.row.error_snapshot.clone()), (None, None), "as get shows it");
        assert_eq!(success, t.services.history.get(&me, first.id).await.unwrap());

        let edge = t.services.history.neighbours(&me, first.id).await.unwrap();
        assert_eq!(edge, Neighbours { previous: None, next: Some(second.id), previous_success: None });

        // Another organization: 404; an unknown id: 404.
        let bobs: Principal = bob.session.clone().into();
        assert!(matches!(t.services.history.neighbours(&bobs, second.id).await, Err(ServiceError::NotFound(_))));
        assert!(matches!(t.services.history.neighbours(&me, HistoryId::new()).await, Err(ServiceError::NotFound(_))));

        // A key: its scope and allow-list.
        let key = |scopes: &[&str], scraps: Vec<ScrapId>| NewKey {
            name: "k".into(),
            expires_at: None,
            scopes: scopes.iter().map(|s| s.to_string()).collect(),
            scrap_ids: scraps.iter().map(ToString::to_string).collect(),
        };
        let keys = &t.services.keys;
        let other_only = keys.create(&ada.session, key(&[], vec![other])).await.unwrap().plain_key;
        let other_only = t.services.auth.principal(&other_only).await.unwrap();
        assert!(matches!(
            t.services.history.neighbours(&other_only, second.id).await,
            Err(ServiceError::ScrapNotInKeyScope)
        ));
        let no_history = keys.create(&ada.session, key(&["svc:scraps:read"], vec![])).await.unwrap().plain_key;
        let no_history = t.services.auth.principal(&no_history).await.unwrap();
        assert!(matches!(
            t.services.history.neighbours(&no_history, second.id).await,
            Err(ServiceError::InsufficientScope(_))
        ));
        let allowed = keys.create(&ada.session, key(&["svc:history:read"], vec![s])).await.unwrap().plain_key;
        let allowed = t.services.auth.principal(&allowed).await.unwrap();
        assert_eq!(t.services.history.neighbours(&allowed, third.id).await.unwrap().previous, Some(second.id));
    }

    #[tokio::test]
    async fn last_success_is_the_newest_successful_run_of_the_scrap() {
        let t = TestServices::start().await;
        let ada = t.signup("ada@example.com").await;
        let bob = t.signup("bob@example.com").await;
        let s = t.scrap(&ada, "s").await;
        let other = t.scrap(&ada, "other").await;
        let me: Principal = ada.session.clone().into();
        assert_eq!(t.services.history.last_success(&me, s).await.unwrap(), None, "never ran");
        let ok = t.run(&ada, s, Some(StatusDetail::Success), 0).await;
        t.run(&ada, s, Some(StatusDetail::Error), 1).await;
        t.run(&ada, s, None, 2).await;
        t.run(&ada, other, Some(StatusDetail::Success), 3).await;
        let found = t.services.history.last_success(&me, s).await.unwrap().expect("a success");
        assert_eq!(found, t.services.history.get(&me, ok.id).await.unwrap(), "as get shows it");
        assert_eq!(found.row.data, "[0]");
        let bobs: Principal = bob.session.clone().into();
        assert!(matches!(t.services.history.last_success(&bobs, s).await, Err(ServiceError::NotFound(_))));
        assert!(matches!(t.services.history.last_success(&me, ScrapId::new()).await, Err(ServiceError::NotFound(_))));
    }
}
