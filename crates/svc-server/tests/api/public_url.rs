//! `SVC_PUBLIC_URL`: every address svc shows or sends of itself uses it.

use crate::common;

use common::TestApp;
use reqwest::StatusCode;
use serde_json::{Value, json};

#[tokio::test]
async fn the_home_page_and_the_mcp_server_info_name_the_public_url() {
    let app = TestApp::start_with(&[("SVC_PUBLIC_URL", "https://svc.example.com/")]).await;
    assert_eq!(app.services.public_url(), "https://svc.example.com", "kept without the trailing slash");

    let page = app.http.get(format!("{}/", app.base)).send().await.unwrap().text().await.unwrap();
    assert!(page.contains("https://svc.example.com/api/scraps"), "{page}");
    assert!(!page.contains(&app.base), "the public URL, not the listening address: {page}");

    let alice = app.signup("alice@example.com").await;
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let response = app
        .http
        .post(format!("{}/api/mcp", app.base))
        .header("accept", "application/json, text/event-stream")
        .bearer_auth(&alice.token)
        .json(&init)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let answer: Value = response.json().await.unwrap();
    let info = &answer["result"]["serverInfo"];
    assert_eq!(info["name"], "svc", "{answer}");
    assert_eq!(info["websiteUrl"], "https://svc.example.com", "{answer}");
}
