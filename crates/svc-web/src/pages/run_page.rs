//! `/scraps/:id/history/:historyId`: one run of a scrap: its outcome, its
//! data as a table and as JSON with downloads (`data.json`, `data.csv`,
//! `data.ndjson`, `data.xlsx`),
//! what changed since the previous successful run, the runs before and
//! after; for platform admins also costs, metering and the error snapshot.

use std::sync::Arc;

use askama::Template;
use axum::extract::{Query, State};
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use chrono::Utc;
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;
use svc_api_types::{CostsView, MeterView};
use svc_domain::history::StatusDetail;
use svc_domain::scrap::Scrap;
use svc_domain::{HistoryId, ScrapId};
use svc_service::runs::history::HistoryView;
use svc_service::{ServiceError, Services};

use crate::chrome::Chrome;
use crate::page_error::PageError;
use crate::pages::pager::Pager;
use crate::pages::scrap_page::run_href;
use crate::pages::{page_number, render};
use crate::path_id::PathIds;
use crate::present::data_table::DataTable;
use crate::present::run_pages::PageLine;
use crate::present::run_status::{self, Chip};
use crate::present::when::{Moment, duration_ms, moment};
use crate::signed_in::SignedIn;
use svc_service::outbox::data_export::diff::{self as data_diff, DataDiff};
use svc_service::outbox::data_export::grid::items;
use svc_service::outbox::data_export::{ExportFormat, json_text};
use svc_service::paging::PageRequest;

/// How many items the run page's table shows (the downloads hold them all).
pub const RUN_ROWS: usize = 500;
/// How much pretty JSON the page shows, in bytes.
const MAX_PRETTY: usize = 200_000;
/// The largest data (in bytes, either run's) the page compares.
const MAX_COMPARED: usize = 4 << 20;
/// How many items each list of the comparison shows.
const DIFF_ROWS: usize = 50;

/// One changed field of a matched item.
struct ChangedRow {
    key_value: String,
    field: String,
    before: Option<String>,
    after: Option<String>,
}

/// What changed since the previous successful run.
struct Comparison {
    against_href: String,
    against_when: Moment,
    key: Option<String>,
    added: usize,
    removed: usize,
    changed: usize,
    unchanged: usize,
    /// Nothing added, removed or changed.
    same: bool,
    added_table: Option<DataTable>,
    removed_table: Option<DataTable>,
    changed_rows: Vec<ChangedRow>,
    /// Changed fields left out of `changed_rows`.
    changed_rows_left: usize,
}

/// The failure capture shown to platform admins.
struct Snapshot {
    selector: Option<String>,
    /// `data:image/png;base64,...` when the screenshot is a base64 PNG.
    screenshot: Option<String>,
    html: Option<String>,
}

/// AI Fix amended the run: when, and the version it made.
struct Repaired {
    when: Moment,
    /// The version's number, when it is still there.
    number: Option<i64>,
    /// The versions page with that version selected.
    href: String,
}

struct AdminView {
    costs: Option<String>,
    meter: Option<String>,
    snapshot: Option<Snapshot>,
}

#[derive(Template)]
#[template(path = "run.html")]
struct RunPage {
    chrome: Chrome,
    scrap_id: String,
    scrap_title: String,
    id: String,
    chip: Chip,
    meaning: &'static str,
    pending: bool,
    /// An `error` run with no items: nothing to show or download.
    failed_without_data: bool,
    error: Option<String>,
    items: Option<i64>,
    duration: Option<String>,
    trigger: &'static str,
    started: Moment,
    finished: Option<Moment>,
    proxy_tier: String,
    retries: i64,
    table: Option<DataTable>,
    data_error: Option<String>,
    pretty: String,
    pretty_cut: bool,
    json_href: String,
    csv_href: String,
    ndjson_href: String,
    xlsx_href: String,
    previous_href: Option<String>,
    next_href: Option<String>,
    comparison: Option<Comparison>,
    /// Why there is no comparison.
    no_comparison: &'static str,
    admin: Option<AdminView>,
    repaired: Option<Repaired>,
    /// A crawl's pages (this page of them), with how many in all.
    pages: Vec<PageLine>,
    pages_total: i64,
    pages_pager: Pager,
    pages_caption: &'static str,
}

/// Pages of a crawl listed per page of the run page.
const PAGES_PER_PAGE: i64 = 50;

#[derive(Deserialize)]
pub(crate) struct RunParams {
    /// Page of the crawl's pages.
    #[serde(default)]
    pages: Option<String>,
}

/// The scrap and its run `history_id`; a run of another scrap is not found.
async fn scrap_and_run(
    services: &Services,
    user: &SignedIn,
    id: ScrapId,
    history_id: HistoryId,
) -> Result<(Scrap, HistoryView), PageError> {
    let principal = user.principal();
    let scrap = services.scraps.get(&principal, id).await?;
    let view = services.history.get(&principal, history_id).await?;
    if view.row.scrap_id != Some(scrap.id) {
        return Err(ServiceError::NotFound("run").into());
    }
    Ok((scrap, view))
}

/// A value as a cell shows it (a string as it is, else compact JSON).
fn shown(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn values(json: &str) -> Option<Vec<Value>> {
    match serde_json::from_str::<Value>(json).ok()? {
        Value::Array(items) => Some(items),
        one => Some(vec![one]),
    }
}

fn picked(items: &[&RawValue], indices: &[usize], caption: &str) -> Option<DataTable> {
    if indices.is_empty() {
        return None;
    }
    let chosen: Vec<&RawValue> = indices.iter().take(DIFF_ROWS).map(|i| items[*i]).collect();
    let mut table = DataTable::from_items(&chosen, DIFF_ROWS).with_caption(caption);
    table.total = indices.len();
    Some(table)
}

fn comparison(previous: &HistoryView, current: &str, scrap: &Scrap) -> Option<Comparison> {
    let before_raw = items(&previous.row.data).ok()?;
    let after_raw = items(current).ok()?;
    let (before, after) = (values(&previous.row.data)?, values(current)?);
    let diff = data_diff::diff(&before, &after);
    let same = diff.is_same();
    let DataDiff { key, added, removed, changed, unchanged } = diff;
    let mut changed_rows = Vec::new();
    let mut changed_fields = 0;
    for item in &changed {
        for f in &item.fields {
            changed_fields += 1;
            if changed_rows.len() < DIFF_ROWS * 2 {
                changed_rows.push(ChangedRow {
                    key_value: shown(&item.key_value),
                    field: f.field.clone(),
                    before: f.before.as_ref().map(shown),
                    after: f.after.as_ref().map(shown),
                });
            }
        }
    }
    let row = &previous.row;
    Some(Comparison {
        against_href: run_href(scrap.id, row.id),
        against_when: moment(row.finished_at.unwrap_or(row.created_at), Utc::now()),
        key,
        added: added.len(),
        removed: removed.len(),
        changed: changed.len(),
        unchanged,
        same,
        added_table: picked(&after_raw, &added, "Added items"),
        removed_table: picked(&before_raw, &removed, "Removed items"),
        changed_rows_left: changed_fields - changed_rows.len(),
        changed_rows,
    })
}

fn snapshot(value: Value) -> Option<Snapshot> {
    let text = |key: &str| value.get(key).and_then(Value::as_str).map(str::to_string).filter(|s| !s.is_empty());
    let is_png = |s: &String| {
        s.starts_with("iVBORw0KGgo") && s.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='))
    };
    let snapshot = Snapshot {
        selector: text("selector"),
        screenshot: text("screenshot").filter(is_png).map(|s| format!("data:image/png;base64,{s}")),
        html: text("html"),
    };
    (snapshot.selector.is_some() || snapshot.screenshot.is_some() || snapshot.html.is_some()).then_some(snapshot)
}

pub(crate) async fn page(
    State(services): State<Arc<Services>>,
    user: SignedIn,
    PathIds(id, history_id): PathIds<ScrapId, HistoryId>,
    Query(params): Query<RunParams>,
) -> Result<Response, PageError> {
    let (scrap, view) = scrap_and_run(&services, &user, id, history_id).await?;
    let principal = user.principal();
    let row = &view.row;
    let around = services.history.neighbours(&principal, row.id).await?;
    let pages_page = page_number(params.pages.as_deref());
    let listed = services
        .history
        .pages(&principal, row.id, PageRequest::new(Some(pages_page), Some(PAGES_PER_PAGE)).unwrap_or_default())
        .await?;
    let admin = if user.session.is_platform_admin() {
        let captured = services.history.error_snapshot(&user.session, row.id).await?;
        Some(AdminView {
            costs: row.costs.as_ref().map(CostsView::from).and_then(|c| serde_json::to_string_pretty(&c).ok()),
            meter: row.meter.as_ref().map(MeterView::from).and_then(|m| serde_json::to_string_pretty(&m).ok()),
            snapshot: captured.and_then(snapshot),
        })
    } else {
        None
    };
    let now = Utc::now();
    let pending = row.status_detail.is_none();
    let (table, data_error) = match DataTable::from_json(&row.data, RUN_ROWS) {
        Ok(t) => (Some(t.with_caption("Items of this run")), None),
        Err(e) => (None, Some(e.to_string())),
    };
    let (pretty, pretty_cut) = json_text::pretty(&row.data, MAX_PRETTY);
    let (comparison, no_comparison) = match (row.status_detail, &around.previous_success) {
        (None, _) => (None, "The run has not finished yet."),
        (Some(StatusDetail::Error), _) => (None, "This run failed, so it has no data to compare."),
        (Some(_), None) => (None, "There is no earlier successful run to compare with."),
        (Some(_), Some(previous)) if previous.row.data.len().max(row.data.len()) > MAX_COMPARED => {
            (None, "The data is too large to compare on this page; download both runs to compare them.")
        }
        (Some(_), Some(previous)) => match comparison(previous, &row.data, &scrap) {
            Some(c) => (Some(c), ""),
            None => (None, "The data of one of the runs is not valid JSON."),
        },
    };
    let repaired = match row.fixed_at {
        None => None,
        Some(at) => {
            let version = row.fix_version_id.as_deref().and_then(svc_domain::ObjectId::parse);
            let number = match version {
                None => None,
                Some(v) => match services.scraps.version(&principal, scrap.id, v).await {
                    Ok(found) => Some(found.number),
                    Err(ServiceError::NotFound(_)) => None,
                    Err(e) => return Err(e.into()),
                },
            };
            let href = match version {
                Some(v) => format!("/scraps/{}/versions?v={v}#selected", scrap.id),
                None => format!("/scraps/{}/versions", scrap.id),
            };
            Some(Repaired { when: moment(at, now), number, href })
        }
    };
    let base = run_href(scrap.id, row.id);
    let pages_link = base.clone();
    let pages_pager =
        Pager::new(pages_page, PAGES_PER_PAGE, listed.total, |p| format!("{pages_link}?pages={p}#run-pages"))
            .labelled("Pages of the crawl's pages");
    let page = RunPage {
        chrome: user.chrome(format!("Run of {}", scrap.title), "scraps"),
        scrap_id: scrap.id.to_string(),
        scrap_title: scrap.title.clone(),
        id: row.id.to_string(),
        chip: run_status::chip(row.status_detail),
        meaning: run_status::meaning(row.status_detail),
        pending,
        failed_without_data: row.status_detail == Some(StatusDetail::Error) && row.length == 0,
        error: row.error.clone(),
        items: row.status_detail.map(|_| row.length),
        duration: row.time_ms.map(duration_ms),
        trigger: run_status::trigger(row.triggered_by),
        started: moment(row.created_at, now),
        finished: row.finished_at.map(|t| moment(t, now)),
        proxy_tier: row.proxy_tier.clone(),
        retries: row.retries,
        table,
        data_error,
        pretty,
        pretty_cut,
        json_href: format!("{base}/data.json"),
        csv_href: format!("{base}/data.csv"),
        ndjson_href: format!("{base}/data.ndjson"),
        xlsx_href: format!("{base}/data.xlsx"),
        previous_href: around.previous.map(|p| run_href(scrap.id, p)),
        next_href: around.next.map(|n| run_href(scrap.id, n)),
        comparison,
        no_comparison,
        admin,
        repaired,
        pages: listed.items.iter().map(PageLine::from).collect(),
        pages_total: listed.total,
        pages_pager,
        pages_caption: "The pages this run visited or skipped",
    };
    render(&page)
}

fn download(body: Vec<u8>, content_type: &'static str, file_name: &str) -> Response {
    let mut response = body.into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    let disposition = format!("attachment; filename=\"{file_name}\"");
    if let Ok(value) = HeaderValue::from_str(&disposition) {
        headers.insert(header::CONTENT_DISPOSITION, value);
    }
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// The run's data as a file in `format` (`HistoryService::export`).
async fn export(
    services: &Services,
    user: &SignedIn,
    id: ScrapId,
    history_id: HistoryId,
    format: ExportFormat,
) -> Result<Response, PageError> {
    let (_, view) = scrap_and_run(services, user, id, history_id).await?;
    let file = services.history.export(&user.principal(), view.row.id, format.as_str()).await?;
    Ok(download(file.bytes, format.content_type(), &file.file_name))
}

/// The run's data exactly as stored.
pub(crate) async fn json(
    State(services): State<Arc<Services>>,
    user: SignedIn,
    PathIds(id, history_id): PathIds<ScrapId, HistoryId>,
) -> Result<Response, PageError> {
    export(&services, &user, id, history_id, ExportFormat::Json).await
}

/// The run's data as CSV, in the columns of the table.
pub(crate) async fn csv(
    State(services): State<Arc<Services>>,
    user: SignedIn,
    PathIds(id, history_id): PathIds<ScrapId, HistoryId>,
) -> Result<Response, PageError> {
    export(&services, &user, id, history_id, ExportFormat::Csv).await
}

/// The run's data as NDJSON, one item per line.
pub(crate) async fn ndjson(
    State(services): State<Arc<Services>>,
    user: SignedIn,
    PathIds(id, history_id): PathIds<ScrapId, HistoryId>,
) -> Result<Response, PageError> {
    export(&services, &user, id, history_id, ExportFormat::Ndjson).await
}

/// The run's data as an Excel workbook, in the columns of the table.
pub(crate) async fn xlsx(
    State(services): State<Arc<Services>>,
    user: SignedIn,
    PathIds(id, history_id): PathIds<ScrapId, HistoryId>,
) -> Result<Response, PageError> {
    export(&services, &user, id, history_id, ExportFormat::Xlsx).await
}
