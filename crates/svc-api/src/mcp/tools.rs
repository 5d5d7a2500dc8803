//! The MCP tools: each calls the same service (and so checks the same
//! scopes and allow-list) as its REST route, and renders the REST shapes.

use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, ErrorCode, ServerCapabilities, ServerConfig};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, schemars, tool, tool_handler, tool_router};
use serde::Deserialize;
use serde_json::json;
use svc_domain::TypedId;
use svc_service::paging::PageRequest;
use svc_service::runs::history::HistoryView;
use svc_service::runs::{self, Trigger, Triggered};
use svc_service::{Principal, ServiceError, Services};

use super::bounded::{LIST_BYTES, LIST_ITEMS, MAX_BYTES, MAX_ITEMS, bound_data, list_note, row_note};
use crate::views::{self, HistoryRowView, ScrapView, TriggerAccepted};

#[derive(Clone)]
pub(crate) struct SvcMcp {
    services: Arc<Services>,
    tool_router: ToolRouter<Self>,
}

#[derive(Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListScrapsArgs {
    /// Case-insensitive text to find in title, description or URL.
    pub search: Option<String>,
    /// Page number, from 1.
    pub page: Option<i64>,
    /// Scraps per page, 1 to 100 (default 20).
    pub per_page: Option<i64>,
}

#[derive(Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScrapArgs {
    /// The scrap's id (24 hex characters).
    pub scrap_id: String,
}

#[derive(Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScrapHistoryArgs {
    /// The scrap's id (24 hex characters).
    pub scrap_id: String,
    /// How many runs, newest first: 1 to 50 (default 10).
    pub limit: Option<i64>,
}

#[derive(Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HistoryRowArgs {
    /// The run's history row id (24 hex characters).
    pub history_id: String,
    /// First result item to return (for results of more than 100 items).
    pub data_offset: Option<u64>,
}

#[derive(Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunScrapArgs {
    /// The scrap's id (24 hex characters).
    pub scrap_id: String,
    /// Seconds to wait for the run to finish, 0 to 120 (default 0: return the pending run).
    pub wait: Option<u64>,
    /// The key of one of the scrap's parameter sets, exposed to the script as `SVC.param`.
    pub param: Option<String>,
}

/// A tool's answer: the REST shape as JSON text, then the note (if any) on
/// what was left out or what to do next, as a text item of its own so that
/// the JSON stays exactly the REST shape.
fn answer(view: impl serde::Serialize, note: Option<String>) -> CallToolResult {
    let json = serde_json::to_string(&view).unwrap_or_else(|_| "null".into());
    let mut content = vec![ContentBlock::text(json)];
    content.extend(note.map(ContentBlock::text));
    CallToolResult::success(content)
}

/// A finished row, its data bounded from `offset` to one call's worth.
fn bounded_row(view: HistoryView, offset: usize) -> CallToolResult {
    let mut row = views::history_row(view);
    let cut = bound_data(&mut row, offset, MAX_ITEMS, MAX_BYTES);
    answer(row, cut.map(row_note))
}

/// The sentence of `svc_get_history_row` on how many pages run `id` had:
/// `listed` pages for a crawl, 1 for a run that lists none (a run of one
/// page); nothing yet for a run not finished (a crawl's pages are saved
/// when it finishes).
fn pages_note(id: &str, finished: bool, listed: i64) -> String {
    match (finished, listed) {
        (false, _) => "The run has not finished: call svc_get_history_row again later for its result and \
                       how many pages it had."
            .into(),
        (true, 0 | 1) => "The run had 1 page.".into(),
        (true, n) => format!("The run had {n} pages (a crawl); GET /api/historys/{id}/pages lists them."),
    }
}

fn tool_error(message: impl Into<String>) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message.into())])
}

/// A service failure as MCP sees it: refusals are tool errors that say
/// nothing about whether the object exists; rate limits are JSON-RPC
/// errors -32005 `rate_limited`.
fn refusal(e: ServiceError, what: &str) -> Answer {
    match e {
        ServiceError::RateLimited(r) => {
            Err(ErrorData::new(ErrorCode(-32005), "rate_limited", Some(json!({"retryAfter": r.retry_after_secs()}))))
        }
        ServiceError::NotFound(_) | ServiceError::ScrapNotInKeyScope | ServiceError::Forbidden(_) => {
            Ok(tool_error(format!("No {what} with this id is available to this credential.")))
        }
        ServiceError::Internal(cause) => {
            tracing::error!(cause, "MCP tool failed");
            Err(ErrorData::internal_error("internal error", None))
        }
        ServiceError::StoreUnavailable(cause) => {
            tracing::warn!(cause, "MCP tool: database unreachable");
            let retry = json!({"retryAfter": crate::error::UNAVAILABLE_RETRY_AFTER_SECS});
            Err(ErrorData::new(ErrorCode(-32003), "unavailable", Some(retry)))
        }
        other => Ok(tool_error(other.to_string())),
    }
}

/// A tool's early answer: a tool error, or a JSON-RPC error.
pub type Answer = Result<CallToolResult, ErrorData>;

/// The value, or return the early answer.
macro_rules! or_answer {
    ($result:expr) => {
        match $result {
            Ok(value) => value,
            Err(answer) => return answer,
        }
    };
}

pub fn parse<T: TypedId>(raw: &str, field: &str) -> Result<T, Answer> {
    T::parse_id(raw.trim()).ok_or_else(|| Ok(tool_error(format!("{field} must be a 24-character hex id"))))
}

/// A service result, its failure turned into the tool's answer.
fn served<T>(result: Result<T, ServiceError>, what: &str) -> Result<T, Answer> {
    result.map_err(|e| refusal(e, what))
}

fn invalid(message: impl Into<String>) -> Answer {
    Ok(tool_error(message))
}

/// The authenticated caller, put in the request by the gate.
fn principal(ctx: &RequestContext<RoleServer>) -> Result<Principal, ErrorData> {
    ctx.extensions
        .get::<axum::http::request::Parts>()
        .and_then(|p| p.extensions.get::<Principal>())
        .cloned()
        .ok_or_else(|| ErrorData::internal_error("unauthenticated MCP request", None))
}

#[tool_router]
impl SvcMcp {
    pub(crate) fn new(services: Arc<Services>) -> Self {
        SvcMcp { services, tool_router: Self::tool_router() }
    }

    #[tool(description = "List the scraps (configured extraction jobs) this credential can see, newest first. \
        Optional `search` matches title, description and URL; `page`/`perPage` page through the list. \
        Returns {data, total, page, perPage}. Needs scope svc:scraps:read.")]
    async fn svc_list_scraps(
        &self,
        Parameters(args): Parameters<ListScrapsArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let principal = principal(&ctx)?;
        let page = or_answer!(PageRequest::new(args.page, args.per_page).map_err(|e| invalid(e.to_string())));
        let found = or_answer!(served(self.services.scraps.list(&principal, args.search, page).await, "scrap"));
        Ok(answer(views::list(found, ScrapView::from), None))
    }

    #[tool(description = "Get one scrap by `scrapId`: its public fields (title, URL, script, schedule, \
        the ids of its 50 latest runs). Needs scope svc:scraps:read.")]
    async fn svc_get_scrap(
        &self,
        Parameters(args): Parameters<ScrapArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let principal = principal(&ctx)?;
        let id = or_answer!(parse(&args.scrap_id, "scrapId"));
        let scrap = or_answer!(served(self.services.scraps.get(&principal, id).await, "scrap"));
        Ok(answer(ScrapView::from(scrap), None))
    }

    #[tool(description = "The latest runs (history rows) of one scrap, newest first, as an array of rows: \
        status, item count (`length`), duration, what triggered it, and in `data` (a JSON-encoded array) the \
        first items of each result; use svc_get_history_row for a whole result. `limit` 1 to 50, default 10. \
        Needs scope svc:history:read.")]
    async fn svc_get_scrap_history(
        &self,
        Parameters(args): Parameters<ScrapHistoryArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let principal = principal(&ctx)?;
        let id = or_answer!(parse(&args.scrap_id, "scrapId"));
        let limit = args.limit.unwrap_or(10);
        if !(1..=50).contains(&limit) {
            return invalid("limit must be from 1 to 50");
        }
        let page = PageRequest { page: 1, per_page: limit };
        let found = or_answer!(served(self.services.history.list(&principal, Some(id), page).await, "scrap"));
        let mut rows: Vec<HistoryRowView> = Vec::with_capacity(found.items.len());
        let mut cuts = Vec::new();
        for view in found.items {
            let mut row = views::history_row(view);
            if let Some(cut) = bound_data(&mut row, 0, LIST_ITEMS, LIST_BYTES) {
                cuts.push((row.id.clone(), cut));
            }
            rows.push(row);
        }
        Ok(answer(rows, (!cuts.is_empty()).then(|| list_note(&cuts))))
    }

    #[tool(description = "One run (history row) by `historyId`, with its result in `data` (a JSON-encoded \
        array): at most 100 items or 50 KB per call, `length` being the whole count; `dataOffset` pages \
        through larger results. A second text item says how many pages the run had (1, or more for a \
        crawl) and how to read the rest of a cut result. Needs scope svc:history:read.")]
    async fn svc_get_history_row(
        &self,
        Parameters(args): Parameters<HistoryRowArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let principal = principal(&ctx)?;
        let id = or_answer!(parse(&args.history_id, "historyId"));
        let found = self.services.history.get_with_page_count(&principal, id).await;
        let (view, pages) = or_answer!(served(found, "history row"));
        let finished = view.row.status_detail.is_some();
        let offset = usize::try_from(args.data_offset.unwrap_or(0)).unwrap_or(usize::MAX);
        let mut row = views::history_row(view);
        let cut = bound_data(&mut row, offset, MAX_ITEMS, MAX_BYTES);
        let pages = pages_note(&row.id, finished, pages);
        let note = match cut.map(row_note) {
            Some(cut) => format!("{pages} {cut}"),
            None => pages,
        };
        Ok(answer(row, Some(note)))
    }

    #[tool(description = "Run a scrap now. Returns the pending run, or with `wait` (seconds, up to 120) \
        the finished run if it ends in time. `param` picks one of the scrap's parameter sets. \
        Needs scope svc:scraps:run; limited to 60 runs per 15 minutes per API key.")]
    async fn svc_run_scrap(
        &self,
        Parameters(args): Parameters<RunScrapArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let principal = principal(&ctx)?;
        let id = or_answer!(parse(&args.scrap_id, "scrapId"));
        let wait = or_answer!(served(runs::wait_from_secs(args.wait.unwrap_or(0)), "scrap"));
        let trigger =
            self.services.runs.trigger_and_wait(&principal, Trigger::Worker, id, args.param.as_deref(), wait).await;
        let row = match or_answer!(served(trigger, "scrap")) {
            Triggered::Finished(done) => return Ok(bounded_row(*done, 0)),
            Triggered::Pending(row) => *row,
        };
        let note = "The run is pending: call svc_get_history_row with this historyId later.";
        Ok(answer(TriggerAccepted::from(&row), Some(note.into())))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for SvcMcp {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::default();
        info.capabilities = ServerCapabilities::builder().enable_tools().build();
        info.server_info.name = "svc".into();
        info.server_info.version = env!("CARGO_PKG_VERSION").into();
        info.server_info.website_url = Some(self.services.public_url().to_string());
        info.instructions = Some(
            "svc runs user-written extraction scripts against web pages and keeps every run. \
             List scraps, read their runs and results, and start runs."
                .into(),
        );
        info
    }
}
