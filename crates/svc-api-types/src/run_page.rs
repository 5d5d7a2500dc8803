use serde::{Deserialize, Serialize};
use svc_domain::run_page::RunPage;
use utoipa::ToSchema;

/// One page of a crawl's run (`GET /api/historys/{id}/pages` items), in
/// the order of the run's data.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunPageView {
    /// Its place in the run (0: the start page).
    pub position: i64,
    pub url: String,
    /// `SVC.label` on the page (`start` for the start page).
    pub label: Option<String>,
    /// Links followed from the start page to reach it.
    pub depth: i64,
    /// `ok`, `error`, `skipped_robots` (robots.txt disallows it) or
    /// `skipped_limit` (a limit stopped the crawl before it).
    #[schema(pattern = "^(ok|error|skipped_robots|skipped_limit)$")]
    pub status: String,
    /// Items its script returned.
    pub items: i64,
    /// How long its run took, in milliseconds (0 for a page not run).
    pub time: i64,
    /// Why it failed or was skipped.
    pub error: Option<String>,
}

impl From<RunPage> for RunPageView {
    fn from(p: RunPage) -> Self {
        RunPageView {
            position: p.position,
            url: p.url,
            label: p.label,
            depth: p.depth,
            status: p.status.as_str().to_string(),
            items: p.items,
            time: p.duration_ms,
            error: p.error,
        }
    }
}
