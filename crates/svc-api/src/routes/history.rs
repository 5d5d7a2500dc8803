use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use svc_domain::HistoryId;
use svc_service::Services;

use crate::ApiError;
use crate::extract::{Caller, ListQuery, Paging, PathId};
use crate::views::{self, HistoryRowView, ListView, RunPageView};

/// List runs
///
/// The organization's history rows, newest first; of one scrap with
/// `scrap`. A key with an allow-list sees only runs of those scraps.
#[utoipa::path(
    get,
    path = "/api/historys",
    operation_id = "listHistory",
    tag = "history",
    params(
        ("scrap" = Option<String>, Query, pattern = "^([0-9a-fA-F]{24})?$",
            description = "only the runs of this scrap (its id; blank: every scrap)"),
        Paging,
    ),
    responses((status = 200, description = "one page of history rows", body = ListView<HistoryRowView>))
)]
pub(crate) async fn list(
    State(services): State<Arc<Services>>,
    Caller(principal): Caller,
    query: ListQuery,
) -> Result<Json<ListView<HistoryRowView>>, ApiError> {
    let found = services.history.list(&principal, query.scrap, query.page).await?;
    Ok(Json(views::list(found, views::history_row)))
}

/// Get a run
///
/// One history row.
#[utoipa::path(
    get,
    path = "/api/historys/{id}",
    operation_id = "getHistory",
    tag = "history",
    params(("id" = String, Path, description = "the history row's id")),
    responses((status = 200, description = "the history row", body = HistoryRowView))
)]
pub(crate) async fn get(
    State(services): State<Arc<Services>>,
    Caller(principal): Caller,
    PathId(id): PathId<HistoryId>,
) -> Result<Json<HistoryRowView>, ApiError> {
    Ok(Json(views::history_row(services.history.get(&principal, id).await?)))
}

/// List a run's pages
///
/// The pages a crawl's run visited or skipped (`// svc:crawl` in the
/// script), in the order of the run's data; none for a run of one page.
/// Under the same checks as the row.
#[utoipa::path(
    get,
    path = "/api/historys/{id}/pages",
    operation_id = "listRunPages",
    tag = "history",
    params(("id" = String, Path, description = "the history row's id"), Paging),
    responses((status = 200, description = "one page of the run's pages", body = ListView<RunPageView>))
)]
pub(crate) async fn pages(
    State(services): State<Arc<Services>>,
    Caller(principal): Caller,
    PathId(id): PathId<HistoryId>,
    query: ListQuery,
) -> Result<Json<ListView<RunPageView>>, ApiError> {
    let found = services.history.pages(&principal, id, query.page).await?;
    Ok(Json(views::list(found, RunPageView::from)))
}
