//! A test run's outcome as the editor shows it: what came back (table,
//! then JSON) or why it failed (message, then the page's screenshot).

use svc_engine::ScriptResult;
use svc_service::runs::TestRunOutcome;
use svc_service::runs::crawl::TEST_RUN_MAX_PAGES;

use crate::present::data_table::DataTable;
use crate::present::run_pages::PageLine;
use crate::present::when::duration_ms;

/// Rows of the table shown (the JSON below has everything, up to its own cut).
const TABLE_ROWS: usize = 100;

/// The JSON shown is cut beyond this many characters (the table and the
/// count still cover everything returned).
const MAX_JSON_CHARS: usize = 200_000;

#[derive(Clone, Debug)]
pub struct TestRunView {
    pub ok: bool,
    /// "12 items in 850 ms · charged 1 unit".
    pub summary: String,
    /// Pretty JSON of what the script returned.
    pub json: String,
    pub json_cut: bool,
    pub error: Option<String>,
    /// `data:image/png;base64,...` of the page when the run failed.
    pub screenshot: Option<String>,
    pub selector: Option<String>,
    /// What the script returned as a table (`None` when it failed).
    pub table: Option<DataTable>,
    /// A crawl's pages (a test run visits at most `TEST_RUN_MAX_PAGES`).
    pub pages: Vec<PageLine>,
    pub pages_caption: &'static str,
    pub max_pages: u32,
    /// "static gives the same 50 items in 12 ms (the browser took 640 ms)".
    pub static_alternative: Option<String>,
}

impl TestRunView {
    pub fn from_outcome(outcome: TestRunOutcome) -> TestRunView {
        let units = if outcome.units == 1 { "1 unit".to_string() } else { format!("{} units", outcome.units) };
        let took = duration_ms(outcome.duration_ms);
        let snapshot = outcome.snapshot.unwrap_or_default();
        let screenshot =
            snapshot.get("screenshot").and_then(|s| s.as_str()).filter(|s| !s.is_empty()).map(|b64| {
                if b64.starts_with("data:") { b64.to_string() } else { format!("data:image/png;base64,{b64}") }
            });
        let selector = snapshot.get("selector").and_then(|s| s.as_str()).map(str::to_string);
        let pages: Vec<PageLine> = outcome.pages.iter().map(PageLine::from).collect();
        let static_alternative = outcome.static_alternative.map(|alt| {
            let items = if alt.items == 1 { "item".to_string() } else { "items".to_string() };
            let faster = match alt.static_ms {
                ms if ms > 0 => format!(", about {}x faster", (alt.browser_ms / ms).max(1)),
                _ => String::new(),
            };
            format!(
                "The static engine gives the same {} {items} without a browser: {} instead of {}{faster}.",
                alt.items,
                duration_ms(alt.static_ms),
                duration_ms(alt.browser_ms)
            )
        });
        let pages_caption = "The pages the test run visited or skipped";
        match outcome.result {
            ScriptResult::Data { json, length } => {
                let pretty = serde_json::from_str::<serde_json::Value>(&json)
                    .ok()
                    .and_then(|v| serde_json::to_string_pretty(&v).ok())
                    .unwrap_or_else(|| json.clone());
                let json_cut = pretty.chars().count() > MAX_JSON_CHARS;
                let shown = if json_cut { pretty.chars().take(MAX_JSON_CHARS).collect() } else { pretty };
                let items = if length == 1 { "1 item".to_string() } else { format!("{length} items") };
                TestRunView {
                    ok: true,
                    summary: format!("{items} in {took} · charged {units}"),
                    json: shown,
                    json_cut,
                    error: None,
                    screenshot: None,
                    selector: None,
                    table: DataTable::from_json(&json, TABLE_ROWS)
                        .ok()
                        .map(|t| t.with_caption("What the test run returned")),
                    pages,
                    pages_caption,
                    max_pages: TEST_RUN_MAX_PAGES,
                    static_alternative,
                }
            }
            ScriptResult::Failed { message } => TestRunView {
                ok: false,
                summary: format!("failed after {took} · charged {units}"),
                json: String::new(),
                json_cut: false,
                error: Some(message),
                screenshot,
                selector,
                table: None,
                pages,
                pages_caption,
                max_pages: TEST_RUN_MAX_PAGES,
                static_alternative,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn data_and_failures_read_as_such() {
        let ok = TestRunView::from_outcome(TestRunOutcome {
            result: ScriptResult::Data { json: "[{\"a\":1}]".into(), length: 1 },
            duration_ms: 850,
            snapshot: None,
            units: 1,
            pages: vec![],
            static_alternative: Some(svc_service::runs::StaticAlternative { items: 1, static_ms: 20, browser_ms: 850 }),
        });
        assert!(ok.ok && ok.error.is_none());
        assert_eq!(ok.summary, "1 item in 850 ms · charged 1 unit");
        assert!(ok.json.contains("\"a\": 1"));
        assert_eq!(ok.table.as_ref().map(|t| t.columns.clone()), Some(vec!["a".to_string()]));
        assert_eq!(
            ok.static_alternative.as_deref(),
            Some(
                "The static engine gives the same 1 item without a browser: 20 ms instead of 850 ms, about 42x faster."
            )
        );
        let failed = TestRunView::from_outcome(TestRunOutcome {
            result: ScriptResult::Failed { message: "boom".into() },
            duration_ms: 1200,
            snapshot: Some(json!({"screenshot": "iVBOR", "selector": "#x"})),
            units: 2,
            pages: vec![],
            static_alternative: None,
        });
        assert!(!failed.ok);
        assert_eq!(failed.error.as_deref(), Some("boom"));
        assert_eq!(failed.screenshot.as_deref(), Some("data:image/png;base64,iVBOR"));
        assert_eq!(failed.summary, "failed after 1.2 s · charged 2 units");
    }
}
