//! The audit log (issue 37, part 2): every security-relevant action is an
//! entry with who, what, to what, when and from which address, read by the
//! organization's owners and admins over `GET /api/organization/audit`.

use reqwest::{Method, StatusCode, header};
use serde_json::{Value, json};
use svc_domain::plan::Plan;

use crate::common::{TestApp, assert_error};

const PROXIED: (&str, &str) = ("SVC_TRUSTED_PROXIES", "127.0.0.1");
const PRIVATE_OK: (&str, &str) = ("SVC_ALLOW_PRIVATE_NETWORKS", "true");
const NO_WORKER: (&str, &str) = ("SVC_EMBEDDED_WORKER", "false");

/// Sends `method path` as `bearer` from client address `from` (the app
/// trusts the loopback proxy's `X-Forwarded-For`).
async fn from(app: &TestApp, from: &str, method: Method, path: &str, bearer: &str, body: Value) -> (StatusCode, Value) {
    let request = app.request(method, path, Some(bearer)).header("x-forwarded-for", from);
    let request = if body.is_null() { request } else { request.json(&body) };
    app.send(request).await
}

async fn log_in_from(app: &TestApp, address: &str, email: &str) -> String {
    let request = app
        .request(Method::POST, "/api/auth/login", None)
        .header("x-forwarded-for", address)
        .header(header::USER_AGENT, "test")
        .json(&json!({"email": email, "password": "password-123"}));
    let (status, body) = app.send(request).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["token"].as_str().unwrap().to_string()
}

/// Every entry of the caller's log, newest first.
async fn audit_log(app: &TestApp, token: &str) -> Vec<Value> {
    let (status, body) = app.get("/api/organization/audit?perPage=100", token).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["data"].as_array().unwrap().clone()
}

fn actions(entries: &[Value]) -> Vec<&str> {
    entries.iter().map(|e| e["action"].as_str().unwrap()).collect()
}

#[tokio::test]
async fn security_actions_are_recorded_with_actor_target_and_address() {
    let app = TestApp::start_with(&[PROXIED, PRIVATE_OK, NO_WORKER]).await;
    let ada = app.signup("ada@example.com").await;
    let token = ada.token.clone();
    let at = "198.51.100.7";
    assert!(audit_log(&app, &token).await.is_empty(), "a sign-up is no new address");

    // Keys.
    let (status, key) = from(&app, at, Method::POST, "/api/developers/keys", &token, json!({"name": "ci"})).await;
    assert_eq!(status, StatusCode::OK, "{key}");
    let key_id = key["id"].as_str().unwrap();
    let (status, _) =
        from(&app, at, Method::DELETE, &format!("/api/developers/keys/{key_id}"), &token, json!(null)).await;
    assert_eq!(status, StatusCode::NO_CONTENT);

    // The plan, by the operator; then webhooks (Growth and Pro).
    app.services.admin.set_plan("ada@example.com", Plan::Growth).await.unwrap();
    let hook = json!({"url": "http://127.0.0.1:9/hook?token=secret-in-url", "events": ["scrap.success"]});
    let (status, created) = from(&app, at, Method::POST, "/api/developers/webhooks", &token, hook).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let hook_id = created["id"].as_str().unwrap();
    let path = format!("/api/developers/webhooks/{hook_id}");
    let (status, body) = from(&app, at, Method::PUT, &path, &token, json!({"active": false})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, _) = from(&app, at, Method::DELETE, &path, &token, json!(null)).await;
    assert_eq!(status, StatusCode::NO_CONTENT);

    // A restored version, a deleted scrap.
    let scrap = app.create_scrap(&ada, "Prices").await;
    let scrap_id = scrap["id"].as_str().unwrap();
    let (status, body) =
        app.put(&format!("/api/scraps/{scrap_id}"), &token, json!({"request": "returnData([4])"})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (_, versions) = app.get(&format!("/api/scraps/{scrap_id}/versions"), &token).await;
    let first = versions["data"].as_array().unwrap().last().unwrap()["id"].as_str().unwrap().to_string();
    let restore = format!("/api/scraps/{scrap_id}/versions/{first}/restore");
    let (status, restored) = from(&app, at, Method::POST, &restore, &token, json!(null)).await;
    assert_eq!(status, StatusCode::CREATED, "{restored}");
    let (status, _) = from(&app, at, Method::DELETE, &format!("/api/scraps/{scrap_id}"), &token, json!(null)).await;
    assert_eq!(status, StatusCode::NO_CONTENT);

    // The password.
    let change = json!({"currentPassword": "password-123", "newPassword": "password-456"});
    let (status, _) = from(&app, at, Method::PUT, "/api/auth/password", &token, change).await;
    assert_eq!(status, StatusCode::NO_CONTENT);

    let log = audit_log(&app, &token).await;
    assert_eq!(
        actions(&log),
        vec![
            "user.password_changed",
            "scrap.deleted",
            "version.restored",
            "webhook.deleted",
            "webhook.changed",
            "webhook.created",
            "organization.plan_changed",
            "key.revoked",
            "key.created",
        ],
        "newest first: {log:#?}"
    );
    let entry = |action: &str| log.iter().find(|e| e["action"] == action).unwrap().clone();
    let created = entry("key.created");
    assert_eq!(created["targetType"], "key");
    assert_eq!(created["targetId"], key_id);
    assert_eq!(created["actor"], json!({"type": "user", "id": ada.user_id, "email": "ada@example.com"}));
    assert_eq!(created["address"], at, "the client address the proxy names");
    assert!(created["detail"].as_str().unwrap().contains("\"ci\""), "{created}");
    assert!(created["createdAt"].as_str().unwrap().ends_with('Z'));
    let plan = entry("organization.plan_changed");
    assert_eq!(plan["actor"], json!({"type": "operator", "id": null, "email": null}));
    assert_eq!(plan["detail"], "free to growth");
    assert_eq!(plan["address"], Value::Null);
    assert_eq!(plan["targetId"], ada.org_id);
    for action in ["webhook.created", "webhook.changed", "webhook.deleted"] {
        let e = entry(action);
        assert_eq!(e["targetId"], hook_id);
        let detail = e["detail"].as_str().unwrap();
        assert!(detail.contains("127.0.0.1") && !detail.contains("secret-in-url"), "host only: {detail}");
    }
    assert!(entry("webhook.changed")["detail"].as_str().unwrap().contains("active"));
    assert_eq!(entry("scrap.deleted")["targetId"], scrap_id);
    assert_eq!(entry("scrap.deleted")["detail"], "\"Prices\"");
    assert_eq!(entry("version.restored")["targetId"], restored["id"]);
    assert_eq!(entry("user.password_changed")["targetId"], ada.user_id);
}

#[tokio::test]
async fn a_log_in_from_a_new_network_is_recorded_once() {
    let app = TestApp::start_with(&[PROXIED, NO_WORKER]).await;
    let signup = app
        .request(Method::POST, "/api/auth/signup", None)
        .header("x-forwarded-for", "198.51.100.7")
        .json(&json!({"email": "ada@example.com", "password": "password-123"}));
    let (status, body) = app.send(signup).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let token = body["token"].as_str().unwrap().to_string();

    log_in_from(&app, "198.51.100.7", "ada@example.com").await;
    assert!(audit_log(&app, &token).await.is_empty(), "the sign-up's address is known");
    let away = log_in_from(&app, "2001:db8:1:2::10", "ada@example.com").await;
    let log = audit_log(&app, &token).await;
    assert_eq!(actions(&log), vec!["login.new_address"]);
    assert_eq!(log[0]["address"], "2001:db8:1:2::10");
    assert_eq!(log[0]["targetType"], "session");
    assert_eq!(log[0]["targetId"], crate::sessions::session_id_of(&away).to_string(), "the session it opened");
    // Again from there, or from another address of the same /64: known.
    log_in_from(&app, "2001:db8:1:2::10", "ada@example.com").await;
    log_in_from(&app, "2001:db8:1:2::99", "ada@example.com").await;
    assert_eq!(audit_log(&app, &token).await.len(), 1);
    // A wrong password records nothing.
    let wrong = app
        .request(Method::POST, "/api/auth/login", None)
        .header("x-forwarded-for", "192.0.2.50")
        .json(&json!({"email": "ada@example.com", "password": "not-the-password"}));
    assert_eq!(app.send(wrong).await.0, StatusCode::UNAUTHORIZED);
    assert_eq!(audit_log(&app, &token).await.len(), 1);
}

#[tokio::test]
async fn the_audit_log_is_paged_scoped_and_for_web_sessions_only() {
    let app = TestApp::start_with(&[NO_WORKER]).await;
    let ada = app.signup("ada@example.com").await;
    let bob = app.signup("bob@example.com").await;
    let mut keys = Vec::new();
    for name in ["one", "two", "three"] {
        keys.push(app.create_key(&ada, json!({"name": name})).await);
    }
    app.create_key(&bob, json!({"name": "bob's"})).await;

    let (status, page) = app.get("/api/organization/audit?perPage=2&page=2", &ada.token).await;
    assert_eq!(status, StatusCode::OK, "{page}");
    assert_eq!((page["total"].as_i64(), page["page"].as_i64(), page["perPage"].as_i64()), (Some(3), Some(2), Some(2)));
    assert_eq!(page["data"].as_array().unwrap().len(), 1);
    assert_eq!(page["data"][0]["targetId"], keys[0].0, "the oldest last");
    let theirs = audit_log(&app, &bob.token).await;
    assert_eq!(theirs.len(), 1, "another organization's entries never show");
    assert!(theirs[0]["detail"].as_str().unwrap().contains("bob's"));

    let (status, body) = app.get("/api/organization/audit", &keys[1].1).await;
    assert_error(status, &body, StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
    let (status, body) = app.get("/api/organization/audit?perPage=101", &ada.token).await;
    assert_error(status, &body, StatusCode::UNPROCESSABLE_ENTITY, "VALIDATION");
    let (status, body) = app.send(app.request(Method::GET, "/api/organization/audit", None)).await;
    assert_error(status, &body, StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
}

#[tokio::test]
async fn the_history_age_limit_is_an_audited_organization_setting() {
    let app = TestApp::start_with(&[NO_WORKER]).await;
    let ada = app.signup("ada@example.com").await;
    let (status, body) = app.get("/api/organization/settings", &ada.token).await;
    assert_eq!((status, body.clone()), (StatusCode::OK, json!({"historyRetentionDays": null})), "kept by default");

    let (status, body) = app.put("/api/organization/settings", &ada.token, json!({"historyRetentionDays": 30})).await;
    assert_eq!((status, body), (StatusCode::OK, json!({"historyRetentionDays": 30})));
    let (_, body) = app.get("/api/organization/settings", &ada.token).await;
    assert_eq!(body["historyRetentionDays"], 30);
    for bad in [json!({"historyRetentionDays": 0}), json!({"historyRetentionDays": 3651})] {
        let (status, body) = app.put("/api/organization/settings", &ada.token, bad).await;
        assert_error(status, &body, StatusCode::UNPROCESSABLE_ENTITY, "VALIDATION");
        assert_eq!(body["field"], "historyRetentionDays", "{body}");
    }
    for bad in [json!({"historyRetentionDays": "forever"}), json!({"historyRetentionDays": 30.5})] {
        let (status, body) = app.put("/api/organization/settings", &ada.token, bad).await;
        assert_error(status, &body, StatusCode::UNPROCESSABLE_ENTITY, "VALIDATION");
    }
    // A whole number written as a float is a JSON Schema integer.
    let (status, body) = app.put("/api/organization/settings", &ada.token, json!({"historyRetentionDays": 30.0})).await;
    assert_eq!((status, body), (StatusCode::OK, json!({"historyRetentionDays": 30})));
    let (status, body) = app.put("/api/organization/settings", &ada.token, json!({"historyRetentionDays": null})).await;
    assert_eq!((status, body), (StatusCode::OK, json!({"historyRetentionDays": null})));

    let log = audit_log(&app, &ada.token).await;
    let details: Vec<&str> = log.iter().map(|e| e["detail"].as_str().unwrap()).collect();
    assert_eq!(details, vec!["history: 30 days to kept", "history: kept to 30 days"]);
    assert!(actions(&log).iter().all(|a| *a == "organization.settings_changed"));

    let (_, key) = app.create_key(&ada, json!({"name": "ci"})).await;
    let (status, body) = app.put("/api/organization/settings", &key, json!({"historyRetentionDays": 5})).await;
    assert_error(status, &body, StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
}

/// Member events are entries of the organization joined, and only owners
/// and admins read the log or change the organization's settings.
#[tokio::test]
async fn member_events_are_recorded_and_only_owners_and_admins_read_the_log() {
    let app = TestApp::start().await;
    let owner = app.signup("owner@example.com").await;
    let (status, invite) =
        app.post("/api/organization/invites", &owner.token, json!({"email": "ed@example.com", "role": "editor"})).await;
    assert_eq!(status, StatusCode::CREATED, "{invite}");
    let ed = app.signup("ed@example.com").await;
    let token = invite["link"].as_str().unwrap().split("token=").nth(1).unwrap().to_string();
    let (status, joined) = app.post("/api/invites/accept", &ed.token, json!({"token": token})).await;
    assert_eq!(status, StatusCode::OK, "{joined}");
    let ed_here = joined["token"].as_str().unwrap().to_string();

    // An editor neither reads the log nor changes the settings.
    let (status, body) = app.get("/api/organization/audit", &ed_here).await;
    assert_error(status, &body, StatusCode::FORBIDDEN, "FORBIDDEN");
    assert!(body["description"].as_str().unwrap().contains("the editor role"), "{body}");
    let (status, body) = app.put("/api/organization/settings", &ed_here, json!({"historyRetentionDays": 30})).await;
    assert_error(status, &body, StatusCode::FORBIDDEN, "FORBIDDEN");

    let path = format!("/api/organization/members/{}", ed.user_id);
    let (status, body) = app.put(&path, &owner.token, json!({"role": "admin"})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    // An admin reads it.
    assert!(!audit_log(&app, &ed_here).await.is_empty());
    let (status, _) = app.delete(&path, &owner.token).await;
    assert_eq!(status, StatusCode::NO_CONTENT);

    let entries = audit_log(&app, &owner.token).await;
    let found = actions(&entries);
    for action in ["member.invited", "member.joined", "member.role_changed", "member.removed"] {
        assert!(found.contains(&action), "{action} in {found:?}");
    }
    let joined = entries.iter().find(|e| e["action"] == "member.joined").unwrap();
    assert_eq!(joined["targetId"], ed.user_id.as_str(), "{joined}");
    // The editor's own organization has none of them.
    let theirs = audit_log(&app, &ed.token).await;
    assert!(!actions(&theirs).iter().any(|a| a.starts_with("member.")), "{theirs:?}");
}
