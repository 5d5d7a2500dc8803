//! Scrap writes with a web session, reads with keys and sessions, the
//! activity log, and the refusal of every write made with an API key.

use crate::common;

use std::collections::BTreeSet;

use common::{TestApp, assert_error};
use reqwest::StatusCode;
use serde_json::{Value, json};

const SCRAP_FIELDS: &[&str] = &[
    "id",
    "title",
    "description",
    "url",
    "request",
    "scrapper",
    "containers",
    "params",
    "history",
    "cron",
    "cronTimezone",
    "alert",
    "autoFix",
    "proxyTier",
    "lastTierChangeAt",
    "emailNotif",
    "emailNotifRecipient",
    "emailNotifFormat",
    "digestEnabled",
    "digestPrompt",
    "digestRecipient",
    "banner",
    "user",
    "organizationId",
    "createdAt",
    "updatedAt",
];

fn field_names(v: &Value) -> BTreeSet<String> {
    v.as_object().unwrap().keys().cloned().collect()
}

#[tokio::test]
async fn create_returns_exactly_the_scrap_shape_with_defaults() {
    let app = TestApp::start().await;
    let alice = app.signup("alice@example.com").await;
    let scrap = app.create_scrap(&alice, "Prices").await;
    assert_eq!(field_names(&scrap), SCRAP_FIELDS.iter().map(|s| s.to_string()).collect());
    let id = scrap["id"].as_str().unwrap();
    assert_eq!(id.len(), 24);
    assert!(id.chars().all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()));
    assert_eq!(scrap["scrapper"], "puppeteer");
    assert_eq!(scrap["containers"], json!(["default"]));
    assert_eq!(scrap["params"], json!([]));
    assert_eq!(scrap["history"], json!([]));
    assert_eq!(scrap["cron"], Value::Null);
    assert_eq!(scrap["cronTimezone"], "UTC");
    assert_eq!(scrap["autoFix"], false);
    assert_eq!(scrap["emailNotifFormat"], "json");
    assert_eq!(scrap["user"], alice.user_id.as_str());
    assert_eq!(scrap["organizationId"], alice.org_id.as_str());

    let (status, fetched) = app.get(&format!("/api/scraps/{id}"), &alice.token).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(fetched, scrap);
}

#[tokio::test]
async fn create_accepts_every_writable_field() {
    let app = TestApp::start().await;
    let alice = app.signup("alice@example.com").await;
    let body = json!({
        "title": "Jobs", "description": "d", "url": "http://jobs.example.org/list?q=1", "request": "returnData([])",
        "scrapper": "puppeteer", "containers": ["eu-1", "eu-2"], "params": [{"key": "fr", "value": {"lang": "fr"}}],
        "cron": "0 9 * * MON-FRI", "cronTimezone": "Europe/Paris", "alert": "ops@example.com", "autoFix": true,
        "proxyTier": "tier0", "emailNotif": true, "emailNotifRecipient": "me@example.com", "emailNotifFormat": "csv",
        "digestEnabled": true, "digestPrompt": "summarise", "digestRecipient": "boss@example.com", "banner": "/uploads/b.png"
    });
    let (status, scrap) = app.post("/api/scraps", &alice.token, body.clone()).await;
    assert_eq!(status, StatusCode::CREATED, "{scrap}");
    for (k, v) in body.as_object().unwrap() {
        assert_eq!(&scrap[k], v, "field {k}");
    }
    assert_eq!(scrap["lastTierChangeAt"], Value::Null);
}

#[tokio::test]
async fn invalid_scraps_are_refused_naming_the_field() {
    let app = TestApp::start_with(&[("SVC_CRON_MIN_INTERVAL", "300s")]).await;
    let alice = app.signup("alice@example.com").await;
    let base = json!({"title": "T", "url": "https://example.com", "request": "returnData([])"});
    let cases: Vec<(Value, &str)> = vec![
        (json!({"url": "https://example.com", "request": "x"}), "title"),
        (json!({"title": "T", "request": "x"}), "url"),
        (json!({"title": "T", "url": "https://example.com"}), "request"),
        (json!({"title": "  "}), "title"),
        (json!({"url": "ftp://example.com"}), "url"),
        (json!({"url": "file:///etc/passwd"}), "url"),
        (json!({"url": "not a url"}), "url"),
        (json!({"scrapper": "selenium"}), "scrapper"),
        (json!({"request": "// svc:load images, videos\nreturnData([])"}), "request"),
        (json!({"cron": "every day"}), "cron"),
        (json!({"cron": "* * * * *"}), "cron"),
        (json!({"cron": "*/5 * * * * *"}), "cron"),
        (json!({"cronTimezone": "Mars/Olympus"}), "cronTimezone"),
        (json!({"proxyTier": "tier9"}), "proxyTier"),
        // A tier the operator did not configure (no SVC_PROXY_TIER2 here).
        (json!({"proxyTier": "tier2"}), "proxyTier"),
        (json!({"emailNotifFormat": "xml"}), "emailNotifFormat"),
        (json!({"alert": "not-an-email"}), "alert"),
        (json!({"containers": []}), "containers"),
        (json!({"containers": ["bad id!"]}), "containers"),
        (json!({"params": [{"key": "a", "value": 1}, {"key": "a", "value": 2}]}), "params"),
        (json!({"autoFix": "yes"}), "autoFix"),
        (json!({"crontab": "* * * * *"}), "crontab"),
    ];
    for (patch, field) in cases {
        let mut body = base.clone();
        for (k, v) in patch.as_object().unwrap() {
            body[k] = v.clone();
        }
        // A case that omits a required field removes it from the base body.
        for required in ["title", "url", "request"] {
            if !patch.as_object().unwrap().contains_key(required) && field == required {
                body.as_object_mut().unwrap().remove(required);
            }
        }
        let (status, err) = app.post("/api/scraps", &alice.token, body.clone()).await;
        assert_error(status, &err, StatusCode::UNPROCESSABLE_ENTITY, "VALIDATION");
        assert!(err["field"].as_str().unwrap().contains(field), "{body} -> {err}");
    }
    let (_, list) = app.get("/api/scraps", &alice.token).await;
    assert_eq!(list["total"], 0, "nothing was stored");
}

#[tokio::test]
async fn update_is_partial_and_a_bad_update_changes_nothing() {
    let app = TestApp::start().await;
    let alice = app.signup("alice@example.com").await;
    let scrap = app.create_scrap(&alice, "Before").await;
    let id = scrap["id"].as_str().unwrap();
    let path = format!("/api/scraps/{id}");

    let (status, updated) = app.put(&path, &alice.token, json!({"title": "After", "cron": "*/10 * * * *"})).await;
    assert_eq!(status, StatusCode::OK, "{updated}");
    assert_eq!(updated["title"], "After");
    assert_eq!(updated["cron"], "*/10 * * * *");
    assert_eq!(updated["url"], scrap["url"]);
    assert_eq!(updated["request"], scrap["request"]);
    assert_eq!(updated["createdAt"], scrap["createdAt"]);

    // Sending back what was read works: read-only fields are ignored.
    let mut echo = updated.clone();
    echo["id"] = json!("000000000000000000000000");
    echo["organizationId"] = json!("000000000000000000000000");
    echo["description"] = json!("echoed");
    let (status, echoed) = app.put(&path, &alice.token, echo).await;
    assert_eq!(status, StatusCode::OK, "{echoed}");
    assert_eq!(echoed["id"], id);
    assert_eq!(echoed["organizationId"], alice.org_id.as_str());
    assert_eq!(echoed["description"], "echoed");

    // null clears a nullable field.
    let (_, cleared) = app.put(&path, &alice.token, json!({"cron": null})).await;
    assert_eq!(cleared["cron"], Value::Null);

    let bad_directive = json!({"request": "// svc:load pictures\nreturnData([])"});
    for bad in [
        json!({"url": "javascript:alert(1)"}),
        json!({"title": null}),
        json!({"cronTimezone": "Nowhere"}),
        json!({"unknown": 1}),
        bad_directive,
    ] {
        let (status, err) = app.put(&path, &alice.token, bad).await;
        assert_error(status, &err, StatusCode::UNPROCESSABLE_ENTITY, "VALIDATION");
    }
    let (_, after) = app.get(&path, &alice.token).await;
    assert_eq!(after, cleared, "failed updates left the scrap as it was");
}

#[tokio::test]
async fn delete_removes_the_scrap() {
    let app = TestApp::start().await;
    let alice = app.signup("alice@example.com").await;
    let scrap = app.create_scrap(&alice, "Doomed").await;
    let path = format!("/api/scraps/{}", scrap["id"].as_str().unwrap());
    let (status, body) = app.delete(&path, &alice.token).await;
    assert_eq!(status, StatusCode::NO_CONTENT, "{body}");
    let (status, body) = app.get(&path, &alice.token).await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "NOT_FOUND");
    let (status, body) = app.delete(&path, &alice.token).await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "NOT_FOUND");
}

#[tokio::test]
async fn every_scrap_write_with_an_api_key_is_401_and_changes_nothing() {
    let app = TestApp::start().await;
    let alice = app.signup("alice@example.com").await;
    let scrap = app.create_scrap(&alice, "Keep").await;
    let path = format!("/api/scraps/{}", scrap["id"].as_str().unwrap());
    let (_, key) = app.create_key(&alice, json!({"name": "all powers"})).await;
    let scoped = app.create_key(&alice, json!({"name": "write", "scopes": ["svc:scraps:write"]})).await.1;

    for k in [&key, &scoped] {
        let (status, err) = app
            .post("/api/scraps", k, json!({"title": "T", "url": "https://example.com", "request": "returnData([])"}))
            .await;
        assert_error(status, &err, StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
        let (status, err) = app.put(&path, k, json!({"title": "hijacked"})).await;
        assert_error(status, &err, StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
        let (status, err) = app.delete(&path, k).await;
        assert_error(status, &err, StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
    }
    let (_, list) = app.get("/api/scraps", &alice.token).await;
    assert_eq!(list["total"], 1);
    let (_, after) = app.get(&path, &alice.token).await;
    assert_eq!(after, scrap);
}

#[tokio::test]
async fn list_searches_pages_and_uses_the_envelope() {
    let app = TestApp::start().await;
    let alice = app.signup("alice@example.com").await;
    for i in 0..25 {
        app.create_scrap(&alice, &format!("Scrap {i:02}")).await;
    }
    let special = app
        .post(
            "/api/scraps",
            &alice.token,
            json!({"title": "Shoes", "description": "100% LEATHER", "url": "https://shop.example.net/a_b", "request": "returnData([])"}),
        )
        .await
        .1;

    let (status, page1) = app.get("/api/scraps", &alice.token).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(field_names(&page1), ["data", "page", "perPage", "total"].iter().map(|s| s.to_string()).collect());
    assert_eq!(page1["total"], 26);
    assert_eq!(page1["page"], 1);
    assert_eq!(page1["perPage"], 20);
    assert_eq!(page1["data"].as_array().unwrap().len(), 20);
    assert_eq!(page1["data"][0]["id"], special["id"], "newest first");

    let (_, page2) = app.get("/api/scraps?page=2&perPage=20", &alice.token).await;
    assert_eq!(page2["data"].as_array().unwrap().len(), 6);
    let (_, beyond) = app.get("/api/scraps?page=9", &alice.token).await;
    assert_eq!(beyond["data"], json!([]));
    assert_eq!(beyond["total"], 26);

    for (query, expected) in
        [("leather", 1), ("SHOP.EXAMPLE", 1), ("scrap 1", 10), ("100%", 1), ("a_b", 1), ("%", 1), ("_", 1), ("zzz", 0)]
    {
        let (status, found) = app.get(&format!("/api/scraps?search={}", urlencode(query)), &alice.token).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(found["total"], expected, "search {query:?}");
    }
    let long = "x".repeat(201);
    let (status, err) = app.get(&format!("/api/scraps?search={long}"), &alice.token).await;
    assert_error(status, &err, StatusCode::UNPROCESSABLE_ENTITY, "VALIDATION");
}

fn urlencode(s: &str) -> String {
    s.bytes()
        .map(|b| if b.is_ascii_alphanumeric() || b == b'.' { (b as char).to_string() } else { format!("%{b:02X}") })
        .collect()
}

#[tokio::test]
async fn a_key_with_an_allow_list_sees_a_shorter_list_and_403_elsewhere() {
    let app = TestApp::start().await;
    let alice = app.signup("alice@example.com").await;
    let a = app.create_scrap(&alice, "A").await;
    let b = app.create_scrap(&alice, "B").await;
    let (_, key) = app.create_key(&alice, json!({"name": "only A", "scrapIds": [a["id"]]})).await;

    let (status, list) = app.get("/api/scraps", &key).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(list["total"], 1);
    assert_eq!(list["data"][0]["id"], a["id"]);

    let (status, one) = app.get(&format!("/api/scraps/{}", a["id"].as_str().unwrap()), &key).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(one["id"], a["id"]);

    let (status, err) = app.get(&format!("/api/scraps/{}", b["id"].as_str().unwrap()), &key).await;
    assert_error(status, &err, StatusCode::FORBIDDEN, "SCRAP_NOT_IN_KEY_SCOPE");
    assert_eq!(err["message"], "Forbidden");
    assert!(err["description"].as_str().unwrap().contains("not scoped to this scrap"));

    // A scope check and an allow-list check compose: both must pass.
    let (_, history_only) =
        app.create_key(&alice, json!({"name": "h", "scopes": ["svc:history:read"], "scrapIds": [a["id"]]})).await;
    let (status, err) = app.get(&format!("/api/scraps/{}", a["id"].as_str().unwrap()), &history_only).await;
    assert_error(status, &err, StatusCode::FORBIDDEN, "INSUFFICIENT_SCOPE");
}

#[tokio::test]
async fn the_activity_log_records_writes_and_keys_and_outlives_the_scrap() {
    let app = TestApp::start().await;
    let alice = app.signup("alice@example.com").await;
    let scrap = app.create_scrap(&alice, "Logged").await;
    let id = scrap["id"].as_str().unwrap();
    app.put(&format!("/api/scraps/{id}"), &alice.token, json!({"title": "Renamed", "cron": "@daily"})).await;
    let (key_id, key) = app.create_key(&alice, json!({"name": "ci", "scrapIds": [id]})).await;

    let (status, log) = app.get(&format!("/api/scraps/{id}/activities"), &key).await;
    assert_eq!(status, StatusCode::OK, "{log}");
    let kinds: Vec<&str> = log["data"].as_array().unwrap().iter().map(|a| a["type"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["key.created", "scrap.updated", "scrap.created"]);
    let update = &log["data"][1];
    assert!(update["message"].as_str().unwrap().contains("title"), "{update}");
    assert!(update["message"].as_str().unwrap().contains("cron"), "{update}");
    assert_eq!(update["actor"], format!("user:{}", alice.user_id));

    let (status, _) = app.delete(&format!("/api/developers/keys/{key_id}"), &alice.token).await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let (status, _) = app.delete(&format!("/api/scraps/{id}"), &alice.token).await;
    assert_eq!(status, StatusCode::NO_CONTENT);

    let (status, log) = app.get(&format!("/api/scraps/{id}/activities"), &alice.token).await;
    assert_eq!(status, StatusCode::OK, "{log}");
    let kinds: Vec<&str> = log["data"].as_array().unwrap().iter().map(|a| a["type"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["scrap.deleted", "key.revoked", "key.created", "scrap.updated", "scrap.created"]);
    assert_eq!(log["total"], 5);

    // Scope: svc:history:read, not svc:scraps:read.
    let (_, reader) = app.create_key(&alice, json!({"name": "r", "scopes": ["svc:scraps:read"]})).await;
    let (status, err) = app.get(&format!("/api/scraps/{id}/activities"), &reader).await;
    assert_error(status, &err, StatusCode::FORBIDDEN, "INSUFFICIENT_SCOPE");

    let (status, err) = app.get("/api/scraps/0123456789abcdef01234567/activities", &alice.token).await;
    assert_error(status, &err, StatusCode::NOT_FOUND, "NOT_FOUND");
}
