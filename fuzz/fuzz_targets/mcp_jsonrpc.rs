//! The MCP entry (`POST /api/mcp`) as far as it goes without a running
//! app: the body is parsed as rmcp parses it (a client JSON-RPC message);
//! a `tools/call` of one of svc's tools has its arguments read into that
//! tool's argument type (as rmcp's `Parameters` does) and put through the
//! tool's own checks (ids, paging, `wait`); a row's data is bounded as the
//! tools bound it. Nothing panics; what parses re-serializes and parses
//! back the same; accepted values are in their documented ranges; the
//! bounding keeps its promises.

#![no_main]

use libfuzzer_sys::fuzz_target;
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, JsonObject};
use serde::de::DeserializeOwned;
use serde_json::Value;
use svc_api::mcp::bounded::{Cut, LIST_BYTES, LIST_ITEMS, MAX_BYTES, MAX_ITEMS, bound_data, list_note, row_note};
use svc_api::mcp::tools::{HistoryRowArgs, ListScrapsArgs, RunScrapArgs, ScrapArgs, ScrapHistoryArgs, parse};
use svc_api_types::HistoryRowView;
use svc_service::paging::{MAX_PAGE, MAX_PER_PAGE, PageRequest};
use svc_service::runs::{MAX_WAIT, wait_from_secs};

fn args<T: DeserializeOwned>(arguments: &JsonObject) -> Option<T> {
    serde_json::from_value(Value::Object(arguments.clone())).ok()
}

/// A 24-hex id is accepted (and is the id written, in lower case); anything
/// else is a tool error, not a JSON-RPC one.
fn id(raw: &str) {
    match parse::<svc_domain::ScrapId>(raw, "scrapId") {
        Ok(id) => assert_eq!(id.to_string(), raw.trim().to_ascii_lowercase()),
        Err(answer) => {
            let result = answer.expect("a bad id is a tool error");
            assert_eq!(result.is_error, Some(true));
        }
    }
}

fn row(data: String) -> HistoryRowView {
    HistoryRowView {
        id: "0123456789abcdef01234567".into(),
        scrap: None,
        organization_id: "0123456789abcdef01234567".into(),
        status: Some(true),
        status_detail: None,
        data,
        length: 0,
        time: None,
        digest: None,
        triggered_by: "api".into(),
        run_type: "scrap".into(),
        proxy_tier: "none".into(),
        costs: None,
        meter: None,
        fix_version_id: None,
        fixed_at: None,
        retries: 0,
        error: None,
        created_at: String::new(),
        finished_at: None,
    }
}

/// `bound_data` keeps items `offset..` within both bounds, as JSON, and says
/// so; a whole result (or data that is not an array) is left as it is.
fn bounded(data: &str, offset: usize, max_items: usize, max_bytes: usize) {
    let mut view = row(data.to_string());
    let cut = bound_data(&mut view, offset, max_items, max_bytes);
    let Some(cut) = cut else {
        assert_eq!(view.data, data);
        return;
    };
    let Ok(Value::Array(all)) = serde_json::from_str::<Value>(data) else { panic!("cut data that is not an array") };
    let kept: Vec<Value> = serde_json::from_str(&view.data).expect("the kept data is a JSON array");
    assert_eq!(cut, Cut { offset, shown: kept.len(), total: all.len() });
    assert!(kept.len() <= max_items);
    assert!(view.data.len() <= max_bytes.max(2), "{} bytes kept, at most {max_bytes}", view.data.len());
    let expected: Vec<Value> = all.into_iter().skip(offset).take(kept.len()).collect();
    assert_eq!(kept, expected);
    let _ = row_note(cut);
    let _ = list_note(&[(view.id.clone(), cut)]);
}

/// The checks each tool makes before it calls a service.
fn tool(name: &str, arguments: &JsonObject) {
    match name {
        "svc_list_scraps" => {
            if let Some(a) = args::<ListScrapsArgs>(arguments)
                && let Ok(page) = PageRequest::new(a.page, a.per_page)
            {
                assert!((1..=MAX_PAGE).contains(&page.page) && (1..=MAX_PER_PAGE).contains(&page.per_page));
                assert!(page.offset() >= 0);
            }
        }
        "svc_get_scrap" => {
            if let Some(a) = args::<ScrapArgs>(arguments) {
                id(&a.scrap_id);
            }
        }
        "svc_get_scrap_history" => {
            if let Some(a) = args::<ScrapHistoryArgs>(arguments) {
                id(&a.scrap_id);
            }
        }
        "svc_get_history_row" => {
            if let Some(a) = args::<HistoryRowArgs>(arguments) {
                id(&a.history_id);
                let offset = usize::try_from(a.data_offset.unwrap_or(0)).unwrap_or(usize::MAX);
                if let Some(Value::String(data)) = arguments.get("data") {
                    bounded(data, offset, MAX_ITEMS, MAX_BYTES);
                    bounded(data, offset, LIST_ITEMS, LIST_BYTES);
                    bounded(data, offset % 8, 3, 64);
                }
            }
        }
        "svc_run_scrap" => {
            if let Some(a) = args::<RunScrapArgs>(arguments) {
                id(&a.scrap_id);
                if let Ok(wait) = wait_from_secs(a.wait.unwrap_or(0)) {
                    assert!(wait <= MAX_WAIT);
                }
            }
        }
        _ => {}
    }
}

const TOOLS: [&str; 5] =
    ["svc_list_scraps", "svc_get_scrap", "svc_get_scrap_history", "svc_get_history_row", "svc_run_scrap"];

fuzz_target!(|body: &[u8]| {
    // What rmcp's Streamable HTTP server does with the body.
    if let Ok(message) = serde_json::from_slice::<ClientJsonRpcMessage>(body) {
        let again = serde_json::to_vec(&message).expect("a parsed message serializes");
        let reparsed = serde_json::from_slice::<ClientJsonRpcMessage>(&again).expect("and parses back");
        assert_eq!(serde_json::to_vec(&reparsed).unwrap(), again, "the message changed on the way back");
        if let ClientJsonRpcMessage::Request(request) = &message
            && let ClientRequest::CallToolRequest(call) = &request.request
        {
            tool(&call.params.name, &call.params.arguments.clone().unwrap_or_default());
        }
    }
    // The arguments of any JSON body, for every tool (reached sooner than
    // through a whole valid message).
    if let Ok(Value::Object(top)) = serde_json::from_slice::<Value>(body) {
        let arguments = match top.get("params").and_then(|p| p.get("arguments")) {
            Some(Value::Object(a)) => a.clone(),
            _ => top,
        };
        for name in TOOLS {
            tool(name, &arguments);
        }
    }
});
