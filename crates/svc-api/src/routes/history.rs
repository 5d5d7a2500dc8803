use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::http::HeaderValue;
use axum::http::header::{CONTENT_DISPOSITION, CONTENT_TYPE};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use svc_domain::HistoryId;
use svc_service::Services;
use utoipa::IntoParams;

use crate::ApiError;
use crate::extract::{ApiQuery, Caller, ListQuery, Paging, PathId};
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

/// The file formats of a run's data (for the document: the handler takes
/// the query as text and the service names a bad one).
#[derive(serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)]
pub(crate) enum ExportFormatName {
    Json,
    Csv,
    Ndjson,
    Xlsx,
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct ExportQuery {
    /// The file format: `json` (the default: the data as stored), `csv`,
    /// `ndjson` (one item per line) or `xlsx` (an Excel workbook).
    #[param(inline, value_type = Option<ExportFormatName>)]
    format: Option<String>,
}

/// Export a run's data
///
/// The run's data as a file to download (`Content-Disposition: attachment`):
/// JSON exactly as stored, CSV (RFC 4180: a header row of the columns, one
/// record per item), NDJSON (each item on its own line) or XLSX (one sheet,
/// `Data`: a bold header row, then one row per item; numbers and booleans
/// typed, arrays and objects as JSON text, `null` and a missing key empty).
/// Objects' keys are the columns, in the order they first appear; items
/// that are not objects are in a `value` column. Under the same checks as
/// the row. XLSX refuses data with more than 1,048,575 items or 16,384
/// columns (422 naming `format`).
#[utoipa::path(
    get,
    path = "/api/historys/{id}/data",
    operation_id = "exportHistoryData",
    tag = "history",
    params(("id" = String, Path, description = "the history row's id"), ExportQuery),
    responses((status = 200, description = "the run's data in the format asked for",
        headers(("Content-Disposition" = String, description = "`attachment; filename=\"<scrap>-<run id>.<format>\"`")),
        content(
            (serde_json::Value = "application/json"),
            (String = "text/csv"),
            (String = "application/x-ndjson"),
            ([u8] = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"),
        )))
)]
pub(crate) async fn export(
    State(services): State<Arc<Services>>,
    Caller(principal): Caller,
    PathId(id): PathId<HistoryId>,
    ApiQuery(query): ApiQuery<ExportQuery>,
) -> Result<Response, ApiError> {
    let file = services.history.export(&principal, id, query.format.as_deref().unwrap_or("json")).await?;
    let mut response = file.bytes.into_response();
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static(file.format.content_type()));
    if let Ok(value) = HeaderValue::from_str(&format!("attachment; filename=\"{}\"", file.file_name)) {
        headers.insert(CONTENT_DISPOSITION, value);
    }
    Ok(response)
}
