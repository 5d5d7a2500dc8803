//! MCP end to end with the official Rust SDK's client over Streamable HTTP:
//! initialize, tools/list, each tool, scope and allow-list denials, the cost
//! contract, bounded results, and the limits (per IP before
//! authentication, per user after). `SVC_TEST_MCP_PYTHON` (a Python with
//! the official `mcp` package, set by scripts/test.sh) also runs the Python
//! SDK's client against the server.

use crate::common;

use std::collections::HashMap;
use std::time::Duration;

use common::catalog_site::{CatalogSite, catalog_script};
use common::{Account, TestApp, fixture};
use reqwest::StatusCode;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ServiceError, ServiceExt};
use serde_json::{Value, json};

type Client = RunningService<RoleClient, ()>;

async fn connect_from(app: &TestApp, bearer: &str, forwarded_for: Option<&str>) -> Result<Client, String> {
    let mut config =
        StreamableHttpClientTransportConfig::with_uri(format!("{}/api/mcp", app.base)).auth_header(bearer.to_string());
    if let Some(ip) = forwarded_for {
        let mut headers = HashMap::new();
        headers.insert(
            reqwest::header::HeaderName::from_static("x-forwarded-for"),
            reqwest::header::HeaderValue::from_str(ip).unwrap(),
        );
        config = config.custom_headers(headers);
    }
    ().serve(StreamableHttpClientTransport::from_config(config)).await.map_err(|e| e.to_string())
}

async fn connect(app: &TestApp, bearer: &str) -> Client {
    connect_from(app, bearer, None).await.expect("MCP client connects")
}

async fn call(client: &Client, tool: &str, args: Value) -> Result<CallToolResult, ServiceError> {
    let args = args.as_object().cloned().unwrap_or_default();
    client.call_tool(CallToolRequestParams::new(tool.to_string()).with_arguments(args)).await
}

/// The tool's JSON answer and its note (a second text item), asserting it
/// is not a tool error.
async fn ok_answer(client: &Client, tool: &str, args: Value) -> (Value, Option<String>) {
    let result = call(client, tool, args).await.expect("tool call");
    assert_ne!(result.is_error, Some(true), "{tool}: {result:?}");
    assert!(result.content.len() <= 2, "JSON and at most one note: {result:?}");
    let text = result.content[0].as_text().expect("text content").text.clone();
    let note = result.content.get(1).map(|c| c.as_text().expect("a text note").text.clone());
    (serde_json::from_str(&text).expect("JSON text"), note)
}

/// The tool's JSON answer, asserting it is not a tool error.
async fn ok_json(client: &Client, tool: &str, args: Value) -> Value {
    ok_answer(client, tool, args).await.0
}

/// A row's `data`, which is a JSON-encoded array as in REST.
fn items(row: &Value) -> Vec<Value> {
    serde_json::from_str(row["data"].as_str().expect("data is a string")).expect("data holds a JSON array")
}

fn keys(object: &Value) -> Vec<String> {
    let mut keys: Vec<String> = object.as_object().expect("an object").keys().cloned().collect();
    keys.sort();
    keys
}

/// The tool error's message, asserting it is one.
async fn tool_error(client: &Client, tool: &str, args: Value) -> String {
    let result = call(client, tool, args).await.expect("a tool error, not a protocol error");
    assert_eq!(result.is_error, Some(true), "{tool}: {result:?}");
    result.content[0].as_text().unwrap().text.clone()
}

fn is_rate_limited(e: &ServiceError) -> bool {
    matches!(e, ServiceError::McpError(d) if d.code.0 == -32005 && d.message == "rate_limited")
}

async fn key(app: &TestApp, account: &Account, body: Value) -> String {
    app.create_key(account, body).await.1
}

#[tokio::test]
async fn no_credential_is_401_before_any_mcp_work() {
    let app = TestApp::start().await;
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    for bearer in [None, Some("svc_notakey0000000000000000000000000000000000"), Some("not-a-jwt")] {
        let mut r = app
            .http
            .post(format!("{}/api/mcp", app.base))
            .header("accept", "application/json, text/event-stream")
            .json(&init);
        if let Some(b) = bearer {
            r = r.bearer_auth(b);
        }
        let (status, body) = app.send(r).await;
        common::assert_error(status, &body, StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
    }
    assert!(connect_from(&app, "svc_notakey0000000000000000000000000000000000", None).await.is_err());
}

#[tokio::test]
async fn the_tools_answer_with_the_rest_shapes_and_bounded_data() {
    let site = fixture::start().await;
    let app = TestApp::start_with(&[("SVC_ALLOW_PRIVATE_NETWORKS", "true")]).await;
    let alice = app.signup("alice@example.com").await;
    let big = app
        .scrap_with(&alice, json!({"title": "Big list", "url": format!("{}/items/250", site.base), "request": "returnData([...document.querySelectorAll('li.item')].map(li => li.textContent))", "params": [{"key": "fr", "value": "fr"}]}))
        .await;
    let other = app.create_scrap(&alice, "Other thing").await["id"].as_str().unwrap().to_string();
    let all = key(
        &app,
        &alice,
        json!({"name": "agent", "scopes": ["svc:scraps:read", "svc:scraps:run", "svc:history:read"]}),
    )
    .await;
    let client = connect(&app, &all).await;

    let info = client.peer_info().expect("server info");
    assert!(info.capabilities.tools.is_some());
    let tools = client.list_all_tools().await.unwrap();
    let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    names.sort();
    assert_eq!(
        names,
        ["svc_get_history_row", "svc_get_scrap", "svc_get_scrap_history", "svc_list_scraps", "svc_run_scrap"]
    );
    let run_tool = tools.iter().find(|t| t.name == "svc_run_scrap").unwrap();
    let props = run_tool.input_schema.get("properties").unwrap().as_object().unwrap();
    assert!(props.contains_key("scrapId") && props.contains_key("wait") && props.contains_key("param"), "{props:?}");
    assert!(tools.iter().all(|t| t.description.as_ref().is_some_and(|d| d.len() > 40)));

    let listed = ok_json(&client, "svc_list_scraps", json!({"search": "big"})).await;
    assert_eq!(listed["total"], 1);
    assert_eq!(listed["data"][0]["id"], big.as_str());
    let listed = ok_json(&client, "svc_list_scraps", json!({"perPage": 1, "page": 2})).await;
    assert_eq!((listed["total"].as_i64(), listed["data"].as_array().unwrap().len()), (Some(2), 1));
    let scrap = ok_json(&client, "svc_get_scrap", json!({"scrapId": other})).await;
    let (_, rest) = app.get(&format!("/api/scraps/{other}"), &all).await;
    assert_eq!(scrap, rest, "the public Scrap shape, as REST gives it");

    // Run and wait: the finished row in the REST shape, its 250 items cut to
    // 100, `length` still the whole count, and a note on how to page.
    let (row, note) = ok_answer(&client, "svc_run_scrap", json!({"scrapId": big, "wait": 60, "param": "fr"})).await;
    assert_eq!(row["statusDetail"], "success", "{row}");
    assert_eq!(row["triggeredBy"], "api");
    assert_eq!(items(&row).len(), 100);
    assert_eq!(items(&row)[99], "Item 99");
    assert_eq!(row["length"], 250);
    assert!(note.as_deref().unwrap_or("").contains("dataOffset=100"), "{note:?}");
    assert!(row.get("costs").is_none(), "the cost contract: owners see no costs");
    let id = row["id"].as_str().unwrap().to_string();
    let (_, rest_row) = app.get(&format!("/api/historys/{id}"), &all).await;
    assert_eq!(keys(&row), keys(&rest_row), "exactly the REST row's fields");
    assert!(row.get("errorSnapshot").is_none() && rest_row.get("errorSnapshot").is_none());
    let (page3, note) = ok_answer(&client, "svc_get_history_row", json!({"historyId": id, "dataOffset": 200})).await;
    assert_eq!(items(&page3)[0], "Item 200");
    assert_eq!(items(&page3).len(), 50);
    assert_eq!(page3["length"], 250);
    assert!(!note.as_deref().unwrap_or("").contains("dataOffset="), "nothing after item 249: {note:?}");
    let (pending, note) = ok_answer(&client, "svc_run_scrap", json!({"scrapId": other})).await;
    assert_eq!(keys(&pending), ["historyId", "scrapId", "status", "triggeredBy"], "the REST 202 body");
    assert_eq!(pending["status"], Value::Null);
    assert!(note.unwrap().contains("svc_get_history_row"));
    let (history, note) = ok_answer(&client, "svc_get_scrap_history", json!({"scrapId": big, "limit": 5})).await;
    let rows = history.as_array().expect("an array of rows");
    assert_eq!(rows.len(), 1);
    assert_eq!(keys(&rows[0]), keys(&rest_row), "exactly the REST row's fields");
    assert_eq!(items(&rows[0]).len(), 10, "lists carry the first items only");
    assert_eq!(rows[0]["length"], 250);
    assert!(note.unwrap().contains(&id), "the note names the cut row");
    let (small, note) = ok_answer(&client, "svc_get_scrap_history", json!({"scrapId": other})).await;
    assert_eq!(small.as_array().map(Vec::len), Some(1), "the pending run: {small}");
    assert_eq!(note, None, "nothing was cut");

    // Bad arguments are tool errors that say what is wrong.
    assert!(tool_error(&client, "svc_get_scrap", json!({"scrapId": "nope"})).await.contains("24-character"));
    assert!(
        tool_error(&client, "svc_get_scrap_history", json!({"scrapId": big, "limit": 500})).await.contains("limit")
    );
    assert!(tool_error(&client, "svc_run_scrap", json!({"scrapId": big, "wait": 999})).await.contains("wait"));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn denials_are_tool_errors_that_reveal_nothing() {
    let app = TestApp::start().await;
    let alice = app.signup("alice@example.com").await;
    let bob = app.signup("bob@example.com").await;
    let mine = app.create_scrap(&alice, "mine").await["id"].as_str().unwrap().to_string();
    let excluded = app.create_scrap(&alice, "not for the key").await["id"].as_str().unwrap().to_string();
    let bobs = app.create_scrap(&bob, "bob's").await["id"].as_str().unwrap().to_string();
    let scoped = key(
        &app,
        &alice,
        json!({"name": "one scrap", "scopes": ["svc:scraps:read", "svc:history:read"], "scrapIds": [mine]}),
    )
    .await;
    let client = connect(&app, &scoped).await;

    assert_eq!(ok_json(&client, "svc_get_scrap", json!({"scrapId": mine})).await["id"], mine.as_str());
    let outside = tool_error(&client, "svc_get_scrap", json!({"scrapId": excluded})).await;
    let foreign = tool_error(&client, "svc_get_scrap", json!({"scrapId": bobs})).await;
    let unknown = tool_error(&client, "svc_get_scrap", json!({"scrapId": "0123456789abcdef01234567"})).await;
    assert_eq!(outside, foreign, "a scrap outside the allow-list looks like one that does not exist");
    assert_eq!(foreign, unknown);
    assert!(!outside.contains("not for the key") && !outside.contains(&excluded));
    let listed = ok_json(&client, "svc_list_scraps", json!({})).await;
    assert_eq!(listed["total"], 1, "the list is the allow-list");
    assert_eq!(
        tool_error(&client, "svc_get_scrap_history", json!({"scrapId": bobs})).await,
        tool_error(&client, "svc_get_scrap_history", json!({"scrapId": excluded})).await
    );

    // A missing scope: the tool says which, nothing about the scrap.
    let denied = tool_error(&client, "svc_run_scrap", json!({"scrapId": mine})).await;
    assert!(denied.contains("svc:scraps:run"), "{denied}");
    let reader = key(&app, &alice, json!({"name": "history only", "scopes": ["svc:history:read"]})).await;
    let reader = connect(&app, &reader).await;
    assert!(tool_error(&reader, "svc_list_scraps", json!({})).await.contains("svc:scraps:read"));
    assert!(app.store.list_history(alice.org(), &Default::default()).await.unwrap().items.is_empty(), "nothing ran");
}

#[tokio::test]
async fn a_platform_admin_sees_costs_through_mcp() {
    let app = TestApp::start().await;
    let alice = app.signup("admin@example.com").await;
    let sid = app.create_scrap(&alice, "metered").await["id"].as_str().unwrap().to_string();
    let row = app.insert_run(&alice, &sid, Some(svc_domain::history::StatusDetail::Success)).await;
    let plain = key(&app, &alice, json!({"name": "k", "scopes": ["svc:history:read"]})).await;
    let client = connect(&app, &plain).await;
    assert!(
        ok_json(&client, "svc_get_history_row", json!({"historyId": row.id.to_string()})).await.get("costs").is_none()
    );
    app.store.set_admin(alice.org(), svc_domain::UserId::parse(&alice.user_id).unwrap(), true).await.unwrap();
    let admin = key(&app, &alice, json!({"name": "admin", "scopes": ["svc:history:read"]})).await;
    let client = connect(&app, &admin).await;
    let seen = ok_json(&client, "svc_get_history_row", json!({"historyId": row.id.to_string()})).await;
    assert_eq!(seen["costs"]["bytes"], 2048, "{seen}");
    assert!(seen.get("errorSnapshot").is_none(), "snapshots are for the web app's admin view only: {seen}");
    let listed = ok_json(&client, "svc_get_scrap_history", json!({"scrapId": sid})).await;
    assert_eq!(listed[0]["meter"]["units"], 1, "{listed}");
    assert!(listed[0].get("errorSnapshot").is_none(), "{listed}");
}

/// `svc_get_history_row` says how many pages the run had: those a crawl
/// lists, 1 for a run of one page, none yet for a run not finished; the
/// JSON stays exactly the REST row, and a cut result's note joins the same
/// text item.
#[tokio::test]
async fn the_row_tool_says_how_many_pages_the_run_had() {
    let site = CatalogSite::start(false).await;
    let app = TestApp::start_with(&[("SVC_ALLOW_PRIVATE_NETWORKS", "127.0.0.0/8")]).await;
    let alice = app.signup("alice@example.com").await;
    app.store.set_plan(alice.org(), svc_domain::plan::Plan::Growth).await.unwrap();
    // The index, the first listing and its first 5 items.
    let crawl = app
        .scrap_with(
            &alice,
            json!({"title": "Catalog", "url": format!("{}/", site.base), "scrapper": "static",
                   "request": catalog_script("pages=7")}),
        )
        .await;
    let (status, run) = app.run_and_wait(&alice.token, &crawl).await;
    assert_eq!(
        (status, run["statusDetail"].as_str(), run["length"].as_i64()),
        (StatusCode::OK, Some("success"), Some(5)),
        "{run}"
    );
    let crawled = run["id"].as_str().unwrap().to_string();
    let one = app
        .scrap_with(
            &alice,
            json!({"title": "One page", "url": format!("{}/item/3", site.base), "scrapper": "static",
                   "request": "returnData([document.querySelector('h1').textContent])"}),
        )
        .await;
    let (status, run) = app.run_and_wait(&alice.token, &one).await;
    assert_eq!((status, run["statusDetail"].as_str()), (StatusCode::OK, Some("success")), "{run}");
    let single = run["id"].as_str().unwrap().to_string();
    let pending = app.insert_run(&alice, &one, None).await.id.to_string();
    let reader = key(&app, &alice, json!({"name": "reader", "scopes": ["svc:history:read"]})).await;
    let client = connect(&app, &reader).await;

    let (_, listed) = app.get(&format!("/api/historys/{crawled}/pages"), &reader).await;
    assert_eq!(listed["total"], 7, "{listed}");
    let (row, note) = ok_answer(&client, "svc_get_history_row", json!({"historyId": crawled})).await;
    let (_, rest) = app.get(&format!("/api/historys/{crawled}"), &reader).await;
    assert_eq!(row, rest, "exactly the REST row");
    let note = note.expect("a note says how many pages");
    assert!(note.starts_with("The run had 7 pages (a crawl)"), "{note}");
    assert!(note.contains(&format!("GET /api/historys/{crawled}/pages")), "{note}");
    let (_, note) = ok_answer(&client, "svc_get_history_row", json!({"historyId": crawled, "dataOffset": 3})).await;
    let note = note.unwrap();
    assert!(note.starts_with("The run had 7 pages") && note.contains("items 3 to 4 of 5"), "{note}");

    let (row, note) = ok_answer(&client, "svc_get_history_row", json!({"historyId": single})).await;
    assert_eq!(row["data"], "[\"Lamp 3\"]");
    assert_eq!(note.as_deref(), Some("The run had 1 page."));
    let (_, listed) = app.get(&format!("/api/historys/{single}/pages"), &reader).await;
    assert_eq!(listed["total"], 0, "a run of one page lists none: {listed}");

    let (row, note) = ok_answer(&client, "svc_get_history_row", json!({"historyId": pending})).await;
    assert_eq!(row["statusDetail"], Value::Null);
    let note = note.unwrap();
    assert!(note.contains("not finished") && !note.contains("had 1 page"), "{note}");
    client.cancel().await.unwrap();
}

/// How many more requests a bucket refilling `per_sec` may have let through
/// while the test ran for `since` (the limits refill continuously).
fn refill(since: tokio::time::Instant, per_sec: f64) -> usize {
    (since.elapsed().as_secs_f64() * per_sec).ceil() as usize + 1
}

async fn raw_mcp(app: &TestApp, ip: &str, bearer: &str, id: Value) -> reqwest::Response {
    app.http
        .post(format!("{}/api/mcp", app.base))
        .header("x-forwarded-for", ip)
        .header("accept", "application/json, text/event-stream")
        .bearer_auth(bearer)
        .json(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"}))
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn the_61st_request_from_one_ip_is_refused_before_authentication() {
    let app = TestApp::start_with(&[("SVC_TRUSTED_PROXIES", "127.0.0.1")]).await;
    let alice = app.signup("alice@example.com").await;
    let sid = app.create_scrap(&alice, "s").await["id"].as_str().unwrap().to_string();
    let k = key(&app, &alice, json!({"name": "k", "scopes": ["svc:scraps:read"]})).await;
    // initialize + initialized notification: 2 requests; then calls until refused.
    let started = tokio::time::Instant::now();
    let client = connect_from(&app, &k, Some("203.0.113.1")).await.unwrap();
    let mut calls = 0;
    let refused = loop {
        match call(&client, "svc_get_scrap", json!({"scrapId": sid})).await {
            Ok(_) => calls += 1,
            Err(e) => break e,
        }
        assert!(calls <= 200, "never refused");
    };
    assert!(is_rate_limited(&refused), "{refused:?}");
    assert!(
        (58..=58 + refill(started, 1.0)).contains(&calls),
        "60 requests a minute: {calls} calls after the handshake"
    );

    // Before authentication: from a fresh IP, requests with a bad credential
    // are 401 until that IP's 60 are spent, then rate_limited.
    let bad = "svc_notakey0000000000000000000000000000000000";
    let started = tokio::time::Instant::now();
    let mut unauthorized = 0;
    let refused = loop {
        let answer = raw_mcp(&app, "203.0.113.9", bad, json!(unauthorized)).await;
        if answer.status() == StatusCode::UNAUTHORIZED {
            unauthorized += 1;
            assert!(unauthorized <= 200, "never refused");
            continue;
        }
        break answer;
    };
    assert!((60..=60 + refill(started, 1.0)).contains(&unauthorized), "{unauthorized}");
    assert_eq!(refused.status(), StatusCode::OK);
    let retry: u64 = refused.headers()["retry-after"].to_str().unwrap().parse().unwrap();
    assert!(retry >= 1);
    let body: Value = refused.json().await.unwrap();
    assert_eq!(body["id"], unauthorized);
    assert_eq!(body["error"]["code"], -32005);
    assert_eq!(body["error"]["message"], "rate_limited");

    // Another client IP is not affected.
    let other = connect_from(&app, &k, Some("203.0.113.2")).await.unwrap();
    call(&other, "svc_get_scrap", json!({"scrapId": sid})).await.unwrap();
}

#[tokio::test]
async fn all_keys_of_one_user_share_a_bucket_across_servers() {
    let settings = [("SVC_TRUSTED_PROXIES", "127.0.0.1")];
    let a = TestApp::start_with(&settings).await;
    let b = a.another_on_same_db(&settings).await;
    let alice = a.signup("alice@example.com").await;
    let bob = a.signup("bob@example.com").await;
    let sid = a.create_scrap(&alice, "s").await["id"].as_str().unwrap().to_string();
    let k1 = key(&a, &alice, json!({"name": "one", "scopes": ["svc:scraps:read"]})).await;
    let k2 = key(&a, &alice, json!({"name": "two", "scopes": ["svc:scraps:read"]})).await;
    // 50 requests through server A with key 1, 50 through server B with key 2
    // (each from its own IP, so the per-IP limit stays out of the way) ...
    let started = tokio::time::Instant::now();
    for (app, k, ip) in [(&a, &k1, "198.51.100.1"), (&b, &k2, "198.51.100.2")] {
        let client = connect_from(app, k, Some(ip)).await.unwrap();
        for _ in 0..48 {
            call(&client, "svc_get_scrap", json!({"scrapId": sid})).await.unwrap();
        }
    }
    // ... then with the web session, alternating servers and IPs, until refused.
    let mut more = 0;
    let refused = loop {
        let app = if more % 2 == 0 { &a } else { &b };
        let body: Value =
            raw_mcp(app, &format!("198.51.101.{}", more % 200), &alice.token, json!(more)).await.json().await.unwrap();
        if body.get("error").is_some() {
            break body;
        }
        more += 1;
        assert!(more <= 200, "never refused");
    };
    assert_eq!(refused["error"]["message"], "rate_limited", "{refused}");
    assert!((20..=20 + refill(started, 2.0)).contains(&more), "120 a minute for the user: 100 + {more}");
    // Another user is not affected.
    let kb = key(&a, &bob, json!({"name": "bob", "scopes": ["svc:scraps:read"]})).await;
    let client = connect_from(&a, &kb, Some("198.51.100.5")).await.unwrap();
    ok_json(&client, "svc_list_scraps", json!({})).await;
}

#[tokio::test]
async fn svc_run_scrap_shares_the_trigger_limit_of_the_key() {
    let app = TestApp::start_with(&[("SVC_TRUSTED_PROXIES", "127.0.0.1"), ("SVC_EMBEDDED_WORKER", "false")]).await;
    let alice = app.signup("alice@example.com").await;
    let sid = app.create_scrap(&alice, "s").await["id"].as_str().unwrap().to_string();
    let k = key(&app, &alice, json!({"name": "runner", "scopes": ["svc:scraps:run"]})).await;
    let first = connect_from(&app, &k, Some("192.0.2.10")).await.unwrap();
    for _ in 0..50 {
        ok_json(&first, "svc_run_scrap", json!({"scrapId": sid})).await;
    }
    // Ten more over REST with the same key: 60 in all.
    for _ in 0..10 {
        let (status, _) =
            app.send(app.request(reqwest::Method::POST, &format!("/api/scraps/worker/{sid}"), Some(&k))).await;
        assert_eq!(status, StatusCode::ACCEPTED);
    }
    let second = connect_from(&app, &k, Some("192.0.2.11")).await.unwrap();
    let refused = call(&second, "svc_run_scrap", json!({"scrapId": sid})).await.unwrap_err();
    assert!(is_rate_limited(&refused), "{refused:?}");
    let rows = app
        .store
        .list_history(alice.org(), &svc_storage::HistoryFilter { limit: 100, ..Default::default() })
        .await
        .unwrap();
    assert_eq!(rows.total, 60, "the refused call ran nothing");
}

#[tokio::test]
async fn the_official_python_sdk_client_connects_lists_and_calls() {
    let Ok(python) = std::env::var("SVC_TEST_MCP_PYTHON") else {
        println!("skipped: SVC_TEST_MCP_PYTHON is not set (scripts/test.sh sets it)");
        return;
    };
    let app = TestApp::start().await;
    let alice = app.signup("alice@example.com").await;
    let sid = app.create_scrap(&alice, "python sees this").await["id"].as_str().unwrap().to_string();
    let older = app.insert_run(&alice, &sid, Some(svc_domain::history::StatusDetail::Success)).await;
    let newer = app.insert_run(&alice, &sid, Some(svc_domain::history::StatusDetail::Error)).await;
    let k = key(&app, &alice, json!({"name": "py", "scopes": ["svc:scraps:read", "svc:history:read"]})).await;
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/api/mcp_python_client.py");
    let out = tokio::time::timeout(
        Duration::from_secs(60),
        tokio::process::Command::new(python)
            .arg(script)
            .arg(format!("{}/api/mcp", app.base))
            .arg(&k)
            .arg(&sid)
            .output(),
    )
    .await
    .expect("python client finished in time")
    .expect("python runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    let report: Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    assert_eq!(report["tools"].as_array().unwrap().len(), 5);
    assert_eq!(report["scrap"]["title"], "python sees this");
    assert!(report["protocolVersion"].as_str().unwrap().starts_with("20"));

    // svc_get_scrap_history: a list of dicts, each exactly a REST row.
    let (_, rest) = app.get(&format!("/api/historys/{}", newer.id), &k).await;
    let history = report["history"].as_array().expect("the history parses as a list");
    let ids: Vec<&str> = history.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(ids, [newer.id.to_string(), older.id.to_string()], "newest first");
    for row in history {
        assert_eq!(keys(row), keys(&rest), "exactly the REST row's keys");
        assert_eq!(row["data"], "[{\"n\":1}]", "data is a JSON-encoded string");
    }
    assert_eq!(report["row"], rest, "svc_get_history_row is the REST row");
}

/// Whatever bytes reach the JSON-RPC entry (broken JSON, wrong shapes,
/// huge ids, unknown methods and tools), the answer is a JSON-RPC or HTTP
/// error, never a 500, and the server keeps answering.
#[tokio::test]
async fn any_body_gets_an_answer_and_never_a_500() {
    use proptest::strategy::{Strategy, ValueTree};
    use proptest::test_runner::TestRunner;

    let app = TestApp::start_with(&[("SVC_EMBEDDED_WORKER", "false")]).await;
    let alice = app.signup("alice@example.com").await;
    let (_, key) = app.create_key(&alice, json!({"name": "fuzz"})).await;
    let shapes = proptest::prop_oneof![
        "\\PC{0,200}".prop_map(|s| s.into_bytes()),
        proptest::collection::vec(proptest::prelude::any::<u8>(), 0..300),
        ("[a-z/_]{0,20}", "\\PC{0,30}", proptest::prelude::any::<i64>()).prop_map(|(method, arg, id)| {
            json!({"jsonrpc": "2.0", "id": id, "method": method, "params": {"name": arg, "arguments": {"scrapId": arg}}})
                .to_string()
                .into_bytes()
        }),
        ("\\PC{0,30}", "\\PC{0,30}").prop_map(|(tool, arg)| {
            json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": tool, "arguments": {"scrapId": arg, "page": arg}}})
                .to_string()
                .into_bytes()
        }),
    ];
    let mut runner = TestRunner::deterministic();
    for _ in 0..96 {
        let body = shapes.new_tree(&mut runner).unwrap().current();
        let response = app
            .http
            .post(format!("{}/api/mcp", app.base))
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .bearer_auth(&key)
            .body(body.clone())
            .send()
            .await
            .unwrap();
        let status = response.status();
        assert!(!status.is_server_error(), "{status} for {:?}", String::from_utf8_lossy(&body));
    }
    let (status, _) = app.get("/api/auth/me", &alice.token).await;
    assert_eq!(status, StatusCode::OK, "the server still answers");
}
