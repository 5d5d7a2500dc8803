//! `SVC_PUBLIC_URL`: every address svc shows or sends of itself uses it.

use crate::common;

use common::TestApp;
use reqwest::StatusCode;
use serde_json::{Value, json};

#[tokio::test]
async fn the_home_page_and_the_mcp_server_info_name_the_public_url() {
    let app = TestApp::start_with(&[("SVC_PUBLIC_URL", "https://svc.example.com/")]).await;
    assert_eq!(app.services.public_url(), "https://svc.example.com", "kept without the trailing slash");

    // `/` sends a visitor to the log-in page, whose footer names the API.
    let page = app.http.get(format!("{}/", app.base)).send().await.unwrap().text().await.unwrap();
    assert!(page.contains("https://svc.example.com/api/mcp"), "{page}");
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

/// `launch`, the library start-up: serves on the listener it is given,
/// names itself by the address bound, and stops when `shutdown` resolves.
#[tokio::test]
async fn launch_serves_on_its_listener_until_shutdown() {
    let db = common::fresh_db().await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let settings = [
        ("SVC_DATABASE_URL".to_string(), db.url.clone()),
        ("SVC_SECRET_KEY".into(), db.key().to_base64()),
        ("SVC_EMBEDDED_WORKER".into(), "false".into()),
    ];
    let config = svc_server::Config::load(None, settings).unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(svc_server::launch(config, listener, async move {
        let _ = stopped.await;
    }));
    let http = reqwest::Client::new();
    let health: Value = http.get(format!("{base}/healthz")).send().await.unwrap().json().await.unwrap();
    assert_eq!(health["status"], "ok", "{health}");
    let page = http.get(format!("{base}/")).send().await.unwrap().text().await.unwrap();
    assert!(page.contains(&format!("{base}/api/mcp")), "the bound address, not the default one: {page}");
    stop.send(()).unwrap();
    let ended = tokio::time::timeout(std::time::Duration::from_secs(30), server).await;
    assert!(matches!(ended, Ok(Ok(Ok(())))), "launch returns Ok after shutdown: {ended:?}");
    assert!(http.get(format!("{base}/healthz")).send().await.is_err(), "nothing listens afterwards");
}
