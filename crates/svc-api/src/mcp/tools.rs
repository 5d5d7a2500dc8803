//! The MCP tools: each calls the same service (and so checks the same
//! scopes and allow-list) as its REST route, and renders the REST shapes.

use std::sync::Arc;
use std::time::Duration;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, ErrorCode, ServerCapabilities, ServerConfig};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, schemars, tool, tool_handler, tool_router};
use serde::Deserialize;
use serde_json::{Value, json};
use svc_domain::ObjectId;
use svc_service::paging::PageRequest;
use svc_service::runs::Trigger;
use svc_service::{Principal, ServiceError, Services};

use super::bounded::{LIST_BYTES, LIST_ITEMS, MAX_BYTES, MAX_ITEMS, bound_row_data};
use crate::views::ScrapView;

#[derive(Clone)]
pub(crate) struct SvcMcp {
    services: Arc<Services>,
    tool_router: ToolRouter<Self>,
}

#[derive(Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ListScrapsArgs {
    /// Case-insensitive text to find in title, description or URL.
    pub search: Option<String>,
    /// Page number, from 1.
    pub page: Option<i64>,
    /// Scraps per page, 1 to 100 (default 20).
    pub per_page: Option<i64>,
}

#[derive(Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ScrapArgs {
    /// The scrap's id (24 hex characters).
    pub scrap_id: String,
}

#[derive(Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ScrapHistoryArgs {
    /// The scrap's id (24 hex characters).
    pub scrap_id: String,
    /// How many runs, newest first: 1 to 50 (default 10).
    pub limit: Option<i64>,
}

#[derive(Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct HistoryRowArgs {
    /// The run's history row id (24 hex characters).
    pub history_id: String,
    /// First result item to return (for results of more than 100 items).
    pub data_offset: Option<u64>,
}

#[derive(Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RunScrapArgs {
    /// The scrap's id (24 hex characters).
    pub scrap_id: String,
    /// Seconds to wait for the run to finish, 0 to 120 (default 0: return the pending run).
    pub wait: Option<u64>,
    /// The key of one of the scrap's parameter sets, exposed to the script as `SVC.param`.
    pub param: Option<String>,
}

fn text(value: Value) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(value.to_string())])
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
        other => Ok(tool_error(other.to_string())),
    }
}

/// A tool's early answer: a tool error, or a JSON-RPC error.
type Answer = Result<CallToolResult, ErrorData>;

/// The value, or return the early answer.
macro_rules! or_answer {
    ($result:expr) => {
        match $result {
            Ok(value) => value,
            Err(answer) => return answer,
        }
    };
}

fn parse(raw: &str, field: &str) -> Result<ObjectId, Answer> {
    ObjectId::parse(raw.trim()).ok_or_else(|| Ok(tool_error(format!("{field} must be a 24-character hex id"))))
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

fn json_of(view: impl serde::Serialize) -> Value {
    serde_json::to_value(view).unwrap_or(Value::Null)
}

fn row_json(view: svc_service::history::HistoryView) -> Value {
    json_of(crate::views::history_row(view))
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
        let data: Vec<Value> = found.items.into_iter().map(|s| json_of(ScrapView::from(s))).collect();
        Ok(text(json!({"data": data, "total": found.total, "page": found.page.page, "perPage": found.page.per_page})))
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
        Ok(text(json_of(ScrapView::from(scrap))))
    }

    #[tool(description = "The latest runs (history rows) of one scrap, newest first: status, item count, \
        duration, what triggered it, and the first items of each result (use svc_get_history_row for a \
        whole result). `limit` 1 to 50, default 10. Needs scope svc:history:read.")]
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
        let rows: Vec<Value> = found
            .items
            .into_iter()
            .map(|v| {
                let mut row = row_json(v);
                bound_row_data(&mut row, 0, LIST_ITEMS, LIST_BYTES, "svc_get_history_row with this row's id");
                row
            })
            .collect();
        Ok(text(json!({"data": rows, "total": found.total})))
    }

    #[tool(description = "One run (history row) by `historyId`, with its result data: at most 100 items \
        or 50 KB per call; `dataOffset` pages through larger results. Needs scope svc:history:read.")]
    async fn svc_get_history_row(
        &self,
        Parameters(args): Parameters<HistoryRowArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let principal = principal(&ctx)?;
        let id = or_answer!(parse(&args.history_id, "historyId"));
        let view = or_answer!(served(self.services.history.get(&principal, id).await, "history row"));
        let mut row = row_json(view);
        bound_row_data(&mut row, args.data_offset.unwrap_or(0) as usize, MAX_ITEMS, MAX_BYTES, "svc_get_history_row");
        Ok(text(row))
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
        let wait = args.wait.unwrap_or(0);
        if wait > 120 {
            return invalid("wait must be from 0 to 120 seconds");
        }
        let trigger = self.services.runs.trigger(&principal, Trigger::Worker, id, args.param.as_deref()).await;
        let row = or_answer!(served(trigger, "scrap"));
        if wait > 0 {
            let finished = self.services.runs.wait_finished(&principal, row.id, Duration::from_secs(wait)).await;
            if let Some(done) = or_answer!(served(finished, "history row")) {
                let mut row = row_json(done);
                bound_row_data(&mut row, 0, MAX_ITEMS, MAX_BYTES, "svc_get_history_row");
                return Ok(text(row));
            }
        }
        Ok(text(json!({
            "historyId": row.id.to_string(),
            "scrapId": row.scrap_id.to_string(),
            "status": null,
            "triggeredBy": row.triggered_by.as_str(),
            "note": "The run is pending: call svc_get_history_row with this historyId later.",
        })))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for SvcMcp {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::default();
        info.capabilities = ServerCapabilities::builder().enable_tools().build();
        info.instructions = Some(
            "svc runs user-written extraction scripts against web pages and keeps every run. \
             List scraps, read their runs and results, and start runs."
                .into(),
        );
        info
    }
}
