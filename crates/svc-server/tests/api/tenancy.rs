//! An object of another organization is 404 to everyone, on every route,
//! whether asked with a web session or with an API key.

use crate::common;

use common::{TestApp, assert_error};
use reqwest::{Method, StatusCode};
use serde_json::json;
use svc_domain::history::StatusDetail;

#[tokio::test]
async fn another_organizations_objects_are_404_on_every_route() {
    let app = TestApp::start().await;
    let alice = app.signup("alice@example.com").await;
    let mallory = app.signup("mallory@example.com").await;
    let scrap = app.create_scrap(&alice, "Alice's").await;
    let sid = scrap["id"].as_str().unwrap().to_string();
    let run = app.insert_run(&alice, &sid, Some(StatusDetail::Success)).await;
    let (alice_key_id, alice_key) = app.create_key(&alice, json!({"name": "alice"})).await;
    let mallory_own = app.create_scrap(&mallory, "Mallory's").await["id"].as_str().unwrap().to_string();
    let (_, mallory_key) = app.create_key(&mallory, json!({"name": "wide"})).await;
    let (_, mallory_scoped) = app.create_key(&mallory, json!({"name": "scoped", "scrapIds": [mallory_own]})).await;

    let reads = [
        format!("/api/scraps/{sid}"),
        format!("/api/scraps/{sid}/activities"),
        format!("/api/historys/{}", run.id),
        format!("/api/historys?scrap={sid}"),
    ];
    for bearer in [&mallory.token, &mallory_key, &mallory_scoped] {
        for path in &reads {
            let (status, err) = app.get(path, bearer).await;
            assert_error(status, &err, StatusCode::NOT_FOUND, "NOT_FOUND");
        }
        let (_, list) = app.get("/api/scraps", bearer).await;
        assert!(list["data"].as_array().unwrap().iter().all(|s| s["id"] != sid.as_str()));
        let (_, runs) = app.get("/api/historys", bearer).await;
        assert_eq!(runs["total"], 0, "{runs}");
    }

    let (status, err) = app.put(&format!("/api/scraps/{sid}"), &mallory.token, json!({"title": "mine"})).await;
    assert_error(status, &err, StatusCode::NOT_FOUND, "NOT_FOUND");
    let (status, err) = app.delete(&format!("/api/scraps/{sid}"), &mallory.token).await;
    assert_error(status, &err, StatusCode::NOT_FOUND, "NOT_FOUND");
    let (status, err) = app.delete(&format!("/api/developers/keys/{alice_key_id}"), &mallory.token).await;
    assert_error(status, &err, StatusCode::NOT_FOUND, "NOT_FOUND");
    let (status, err) =
        app.post("/api/developers/keys", &mallory.token, json!({"name": "steal", "scrapIds": [sid]})).await;
    assert_error(status, &err, StatusCode::UNPROCESSABLE_ENTITY, "VALIDATION");
    assert_eq!(err["field"], "scrapIds");
    let (_, keys) = app.get("/api/developers/keys", &mallory.token).await;
    assert!(keys["data"].as_array().unwrap().iter().all(|k| k["id"] != alice_key_id.as_str()));

    // Alice's objects are intact and her key still works.
    let (status, after) = app.get(&format!("/api/scraps/{sid}"), &alice_key).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(after["title"], "Alice's");
    assert_eq!(after["history"][0], run.id.to_string());
    let (status, _) = app.send(app.request(Method::GET, &format!("/api/historys/{}", run.id), Some(&alice_key))).await;
    assert_eq!(status, StatusCode::OK);
}
