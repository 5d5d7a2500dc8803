//! API keys: creation rules, listing, revocation, expiry, scopes and allow-lists.

use crate::common;

use chrono::{DateTime, Duration, Months, Utc};
use common::{Account, TestApp, assert_error};
use reqwest::{Method, StatusCode, header};
use serde_json::{Value, json};
use svc_domain::api_key::ApiKey;
use svc_domain::scope::Scope;
use svc_domain::{KeyId, ObjectId, UserId};
use svc_service::accounts::key_material;

fn timestamp(v: &Value) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(v.as_str().unwrap_or_else(|| panic!("not a string: {v}")))
        .unwrap_or_else(|e| panic!("not an ISO 8601 timestamp: {v}: {e}"))
        .with_timezone(&Utc)
}

fn close(a: DateTime<Utc>, b: DateTime<Utc>, within: Duration) -> bool {
    (a - b).abs() <= within
}

async fn create_key_raw(app: &TestApp, account: &Account, body: Value) -> (StatusCode, Value) {
    app.post("/api/developers/keys", &account.token, body).await
}

/// Asserts a 422 VALIDATION naming `field`.
fn assert_validation(status: StatusCode, body: &Value, field: &str) {
    assert_error(status, body, StatusCode::UNPROCESSABLE_ENTITY, "VALIDATION");
    assert_eq!(body["field"], field, "{body}");
}

/// Status, `WWW-Authenticate` and body of a GET.
async fn get_full(app: &TestApp, path: &str, bearer: Option<&str>) -> (StatusCode, Option<String>, Value) {
    let response = app.request(Method::GET, path, bearer).send().await.unwrap();
    let status = response.status();
    let challenge = response.headers().get(header::WWW_AUTHENTICATE).map(|v| v.to_str().unwrap().to_string());
    let text = response.text().await.unwrap();
    let body = if text.is_empty() { Value::Null } else { serde_json::from_str(&text).unwrap() };
    (status, challenge, body)
}

async fn assert_unauthorized(app: &TestApp, path: &str, bearer: Option<&str>) {
    let (status, challenge, body) = get_full(app, path, bearer).await;
    assert_error(status, &body, StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
    assert_eq!(challenge.as_deref(), Some("Bearer"), "{path}: {body}");
}

/// Stores a key record straight in the database, as older versions (no
/// expiry) or the passage of time (past expiry) would leave it.
async fn store_key(app: &TestApp, account: &Account, expires_at: Option<DateTime<Utc>>) -> (ApiKey, String) {
    let plain = key_material::generate();
    let key = ApiKey {
        id: KeyId::new(),
        organization_id: account.org(),
        user_id: UserId::parse(&account.user_id).unwrap(),
        name: "stored".into(),
        prefix: key_material::shown_prefix(&plain),
        scopes: vec![],
        scrap_ids: vec![],
        expires_at,
        created_at: Utc::now() - Duration::days(400),
        revoked_at: None,
    };
    app.store.insert_key(&key, &key_material::hash(&plain), &[]).await.unwrap();
    (key, plain)
}

// ---------------------------------------------------------------- creation

#[tokio::test]
async fn a_new_key_is_shown_once_with_the_applied_defaults() {
    let app = TestApp::start().await;
    let account = app.signup("keys@example.com").await;
    let before = Utc::now();
    let (status, key) = create_key_raw(&app, &account, json!({"name": "  ci  "})).await;
    assert_eq!(status, StatusCode::OK, "{key}");

    let plain = key["plainKey"].as_str().expect("plainKey");
    assert_eq!(plain.len(), 44, "{plain}");
    assert!(plain.starts_with("svc_"), "{plain}");
    assert!(plain[4..].bytes().all(|b| b.is_ascii_alphanumeric()), "{plain}");

    let id = key["id"].as_str().expect("id");
    assert!(ObjectId::parse(id).is_some() && id.len() == 24 && id == id.to_lowercase(), "{key}");
    assert_eq!(key["name"], "ci", "the name is trimmed: {key}");
    let prefix = key["prefix"].as_str().expect("prefix");
    assert!(prefix.starts_with("svc_") && plain.starts_with(prefix) && prefix.len() < plain.len(), "{key}");
    assert_eq!(key["scopes"], json!([]));
    assert_eq!(key["scrapIds"], json!([]));

    let created = timestamp(&key["createdAt"]);
    assert!(close(created, before, Duration::seconds(30)), "{key}");
    let expires = timestamp(&key["expiresAt"]);
    let year = before.checked_add_months(Months::new(12)).unwrap();
    assert!(close(expires, year, Duration::seconds(30)), "default expiry is one year: {key}");

    // Every creation yields a different secret.
    let (_, other) = app.create_key(&account, json!({"name": "ci"})).await;
    assert_ne!(other, plain);
}

#[tokio::test]
async fn a_requested_expiry_is_applied() {
    let app = TestApp::start().await;
    let account = app.signup("expiry@example.com").await;
    let wanted = (Utc::now() + Duration::days(30)).with_nanosecond_zero();
    let (status, key) =
        create_key_raw(&app, &account, json!({"name": "month", "expiresAt": wanted.to_rfc3339()})).await;
    assert_eq!(status, StatusCode::OK, "{key}");
    assert_eq!(timestamp(&key["expiresAt"]), wanted);

    // Just under the two-year maximum is fine, and so is an offset other than Z.
    let near_max = Utc::now() + Duration::days(729);
    let (status, key) =
        create_key_raw(&app, &account, json!({"name": "long", "expiresAt": near_max.to_rfc3339()})).await;
    assert_eq!(status, StatusCode::OK, "{key}");
    let offset = (Utc::now() + Duration::days(2)).with_timezone(&chrono::FixedOffset::east_opt(2 * 3600).unwrap());
    let (status, key) = create_key_raw(&app, &account, json!({"name": "tz", "expiresAt": offset.to_rfc3339()})).await;
    assert_eq!(status, StatusCode::OK, "{key}");
    assert!(close(timestamp(&key["expiresAt"]), offset.with_timezone(&Utc), Duration::seconds(1)), "{key}");
}

trait NanosZero {
    fn with_nanosecond_zero(self) -> Self;
}

impl NanosZero for DateTime<Utc> {
    fn with_nanosecond_zero(self) -> Self {
        DateTime::from_timestamp(self.timestamp(), 0).unwrap()
    }
}

#[tokio::test]
async fn expiry_must_be_in_the_future_and_within_two_years() {
    let app = TestApp::start().await;
    let account = app.signup("bounds@example.com").await;
    let now = Utc::now();
    for bad in [
        (now - Duration::seconds(5)).to_rfc3339(),
        (now - Duration::days(365)).to_rfc3339(),
        (now + Duration::days(732)).to_rfc3339(),
        (now + Duration::days(3650)).to_rfc3339(),
        "tomorrow".to_string(),
        "2030-13-01T00:00:00Z".to_string(),
        String::new(),
    ] {
        let (status, body) = create_key_raw(&app, &account, json!({"name": "x", "expiresAt": bad})).await;
        assert_validation(status, &body, "expiresAt");
    }
    let (status, body) = create_key_raw(&app, &account, json!({"name": "x", "expiresAt": 1893456000})).await;
    assert_validation(status, &body, "expiresAt");

    // None of the refused requests created a key.
    let (status, list) = app.get("/api/developers/keys", &account.token).await;
    assert_eq!(status, StatusCode::OK, "{list}");
    assert_eq!(list["total"], 0, "{list}");
}

#[tokio::test]
async fn a_name_is_required() {
    let app = TestApp::start().await;
    let account = app.signup("name@example.com").await;
    for body in [json!({}), json!({"name": ""}), json!({"name": "   "}), json!({"name": null})] {
        let (status, response) = create_key_raw(&app, &account, body).await;
        assert_validation(status, &response, "name");
    }
    let (status, response) = create_key_raw(&app, &account, json!({"name": "x".repeat(101)})).await;
    assert_validation(status, &response, "name");
    let (status, response) = create_key_raw(&app, &account, json!({"name": 7})).await;
    assert_validation(status, &response, "name");
}

#[tokio::test]
async fn scopes_must_be_known() {
    let app = TestApp::start().await;
    let account = app.signup("scopes@example.com").await;
    for scopes in
        [json!(["svc:scraps:delete"]), json!(["svc:scraps:read", "admin"]), json!(["SVC:SCRAPS:READ"]), json!([""])]
    {
        let (status, body) = create_key_raw(&app, &account, json!({"name": "x", "scopes": scopes})).await;
        assert_validation(status, &body, "scopes");
    }
    let (status, body) = create_key_raw(&app, &account, json!({"name": "x", "scopes": "svc:scraps:read"})).await;
    assert_validation(status, &body, "scopes");

    // Known scopes are kept (duplicates once).
    let (status, key) = create_key_raw(
        &app,
        &account,
        json!({"name": "x", "scopes": ["svc:scraps:read", "svc:scraps:run", "svc:scraps:read"]}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{key}");
    assert_eq!(key["scopes"], json!(["svc:scraps:read", "svc:scraps:run"]));
}

#[tokio::test]
async fn every_documented_scope_is_accepted() {
    let app = TestApp::start().await;
    let account = app.signup("allscopes@example.com").await;
    let all: Vec<&str> = Scope::ALL.iter().map(|s| s.as_str()).collect();
    for name in [
        "svc:scraps:read",
        "svc:scraps:write",
        "svc:scraps:run",
        "svc:history:read",
        "svc:tasks:read",
        "svc:webhooks:manage",
        "svc:api-keys:manage",
        "svc:mail:announce",
    ] {
        assert!(all.contains(&name), "{name}");
        let (status, key) = create_key_raw(&app, &account, json!({"name": name, "scopes": [name]})).await;
        assert_eq!(status, StatusCode::OK, "{key}");
        assert_eq!(key["scopes"], json!([name]));
    }
}

#[tokio::test]
async fn scrap_ids_must_be_scraps_of_the_callers_organization() {
    let app = TestApp::start().await;
    let me = app.signup("mine@example.com").await;
    let other = app.signup("theirs@example.com").await;
    let mine = app.create_scrap(&me, "mine").await;
    let theirs = app.create_scrap(&other, "theirs").await;
    let mine_id = mine["id"].as_str().unwrap();

    for ids in [
        json!(["not-an-id"]),
        json!(["0123456789abcdef0123456"]),
        json!([ObjectId::new().to_string()]),
        json!([theirs["id"]]),
        json!([mine_id, theirs["id"]]),
        json!([mine_id, 5]),
        json!(mine_id),
    ] {
        let (status, body) = create_key_raw(&app, &me, json!({"name": "x", "scrapIds": ids})).await;
        assert_error(status, &body, StatusCode::UNPROCESSABLE_ENTITY, "VALIDATION");
        // `scrapIds`, or the offending element such as `scrapIds[1]`.
        assert!(body["field"].as_str().is_some_and(|f| f.starts_with("scrapIds")), "{ids}: {body}");
    }
    let (_, list) = app.get("/api/developers/keys", &me.token).await;
    assert_eq!(list["total"], 0, "refused requests create nothing: {list}");

    let (status, key) = create_key_raw(&app, &me, json!({"name": "x", "scrapIds": [mine_id, mine_id]})).await;
    assert_eq!(status, StatusCode::OK, "{key}");
    assert_eq!(key["scrapIds"], json!([mine_id]));
}

#[tokio::test]
async fn unknown_fields_are_refused() {
    let app = TestApp::start().await;
    let account = app.signup("typo@example.com").await;
    // A misspelt `scopes` must not silently create an all-powerful key.
    let (status, body) = create_key_raw(&app, &account, json!({"name": "x", "scope": ["svc:scraps:read"]})).await;
    assert_validation(status, &body, "scope");
    assert!(body["description"].as_str().unwrap().contains("scope"), "{body}");
    let (status, body) = create_key_raw(&app, &account, json!({"name": "x", "plainKey": "svc_chosen"})).await;
    assert_validation(status, &body, "plainKey");
    let (_, list) = app.get("/api/developers/keys", &account.token).await;
    assert_eq!(list["total"], 0, "{list}");
}

#[tokio::test]
async fn key_management_needs_a_web_session() {
    let app = TestApp::start().await;
    let account = app.signup("mgmt@example.com").await;
    let (id, key) = app.create_key(&account, json!({"name": "ci"})).await;

    let (status, body) = app.post("/api/developers/keys", &key, json!({"name": "from a key"})).await;
    assert_error(status, &body, StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
    let (status, body) = app.get("/api/developers/keys", &key).await;
    assert_error(status, &body, StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
    let (status, body) = app.delete(&format!("/api/developers/keys/{id}"), &key).await;
    assert_error(status, &body, StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
    // ... even with every scope, including the reserved management one.
    let (_, powerful) = app.create_key(&account, json!({"name": "all", "scopes": ["svc:api-keys:manage"]})).await;
    let (status, body) = app.post("/api/developers/keys", &powerful, json!({"name": "from a key"})).await;
    assert_error(status, &body, StatusCode::UNAUTHORIZED, "UNAUTHORIZED");

    let (status, body) =
        app.send(app.request(Method::POST, "/api/developers/keys", None).json(&json!({"name": "anonymous"}))).await;
    assert_error(status, &body, StatusCode::UNAUTHORIZED, "UNAUTHORIZED");

    // The key still works and nothing was created or revoked.
    let (status, _) = app.get("/api/scraps", &key).await;
    assert_eq!(status, StatusCode::OK);
    let (_, list) = app.get("/api/developers/keys", &account.token).await;
    assert_eq!(list["total"], 2, "{list}");
}

// ---------------------------------------------------------------- listing

#[tokio::test]
async fn the_list_shows_prefixes_never_plain_keys() {
    let app = TestApp::start().await;
    let account = app.signup("list@example.com").await;
    let scrap = app.create_scrap(&account, "s").await;
    let (first_id, first) = app.create_key(&account, json!({"name": "first"})).await;
    let (second_id, second) = app
        .create_key(&account, json!({"name": "second", "scopes": ["svc:history:read"], "scrapIds": [scrap["id"]]}))
        .await;

    let (status, list) = app.get("/api/developers/keys", &account.token).await;
    assert_eq!(status, StatusCode::OK, "{list}");
    assert_eq!(list["total"], 2);
    assert_eq!(list["page"], 1);
    assert_eq!(list["perPage"], 20);
    let data = list["data"].as_array().expect("data");
    assert_eq!(data.len(), 2);

    let text = list.to_string();
    assert!(!text.contains(&first) && !text.contains(&second), "plain keys leaked: {list}");
    assert!(!text.contains(&first[12..]) && !text.contains(&second[12..]), "secret part leaked: {list}");
    assert!(!text.contains("plainKey") && !text.to_lowercase().contains("hash"), "{list}");

    for (id, plain, name) in [(&first_id, &first, "first"), (&second_id, &second, "second")] {
        let row = data.iter().find(|k| k["id"] == id.as_str()).unwrap_or_else(|| panic!("{id} missing: {list}"));
        assert_eq!(row["name"], name);
        let prefix = row["prefix"].as_str().unwrap();
        assert!(prefix.starts_with("svc_") && plain.starts_with(prefix) && prefix.len() < plain.len(), "{row}");
        timestamp(&row["expiresAt"]);
        timestamp(&row["createdAt"]);
    }
    let second_row = data.iter().find(|k| k["id"] == second_id.as_str()).unwrap();
    assert_eq!(second_row["scopes"], json!(["svc:history:read"]));
    assert_eq!(second_row["scrapIds"], json!([scrap["id"]]));
}

#[tokio::test]
async fn the_list_holds_only_the_organizations_keys_and_pages() {
    let app = TestApp::start().await;
    let me = app.signup("pages@example.com").await;
    let other = app.signup("other@example.com").await;
    let mut mine = Vec::new();
    for n in 0..3 {
        mine.push(app.create_key(&me, json!({"name": format!("k{n}")})).await.0);
    }
    let (their_id, _) = app.create_key(&other, json!({"name": "theirs"})).await;

    let mut seen = Vec::new();
    for page in 1..=3 {
        let (status, list) = app.get(&format!("/api/developers/keys?page={page}&perPage=1"), &me.token).await;
        assert_eq!(status, StatusCode::OK, "{list}");
        assert_eq!(list["total"], 3);
        assert_eq!(list["page"], page);
        assert_eq!(list["perPage"], 1);
        let data = list["data"].as_array().unwrap();
        assert_eq!(data.len(), 1, "{list}");
        seen.push(data[0]["id"].as_str().unwrap().to_string());
    }
    seen.sort();
    mine.sort();
    assert_eq!(seen, mine, "pages cover every key once");
    assert!(!seen.contains(&their_id));

    let (status, list) = app.get("/api/developers/keys?page=4&perPage=1", &me.token).await;
    assert_eq!(status, StatusCode::OK, "{list}");
    assert_eq!(list["data"], json!([]));
    assert_eq!(list["total"], 3);

    let (_, theirs) = app.get("/api/developers/keys", &other.token).await;
    assert_eq!(theirs["total"], 1);
    assert_eq!(theirs["data"][0]["id"], their_id.as_str());
}

#[tokio::test]
async fn list_paging_parameters_are_validated() {
    let app = TestApp::start().await;
    let account = app.signup("paging@example.com").await;
    for (query, field) in [
        ("perPage=0", "perPage"),
        ("perPage=101", "perPage"),
        ("perPage=-1", "perPage"),
        ("perPage=ten", "perPage"),
        ("perPage=1.5", "perPage"),
        ("page=0", "page"),
        ("page=-3", "page"),
        ("page=abc", "page"),
        ("page=", "page"),
        ("page=99999999999999999999", "page"),
    ] {
        let (status, body) = app.get(&format!("/api/developers/keys?{query}"), &account.token).await;
        assert_validation(status, &body, field);
    }
    let (status, body) = app.get("/api/developers/keys?perPage=100&page=1", &account.token).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["perPage"], 100);
}

// ---------------------------------------------------------------- revocation

#[tokio::test]
async fn a_revoked_key_stops_working_on_the_very_next_request() {
    let app = TestApp::start().await;
    let account = app.signup("revoke@example.com").await;
    let (id, key) = app.create_key(&account, json!({"name": "ci"})).await;
    let (other_id, other_key) = app.create_key(&account, json!({"name": "kept"})).await;

    // Used first, so that the server has it verified (and possibly cached).
    let (status, body) = app.get("/api/scraps", &key).await;
    assert_eq!(status, StatusCode::OK, "{body}");

    let (status, body) = app.delete(&format!("/api/developers/keys/{id}"), &account.token).await;
    assert_eq!(status, StatusCode::NO_CONTENT, "{body}");
    assert_eq!(body, Value::Null, "204 has no body");

    assert_unauthorized(&app, "/api/scraps", Some(&key)).await;
    assert_unauthorized(&app, "/api/historys", Some(&key)).await;

    // Gone from the list; the other key is untouched.
    let (_, list) = app.get("/api/developers/keys", &account.token).await;
    assert_eq!(list["total"], 1, "{list}");
    assert_eq!(list["data"][0]["id"], other_id.as_str());
    let (status, _) = app.get("/api/scraps", &other_key).await;
    assert_eq!(status, StatusCode::OK);

    // Revoking again: there is no such (active) key.
    let (status, body) = app.delete(&format!("/api/developers/keys/{id}"), &account.token).await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "NOT_FOUND");
}

#[tokio::test]
async fn revoking_an_unknown_or_malformed_id() {
    let app = TestApp::start().await;
    let account = app.signup("unknown@example.com").await;
    let (status, body) = app.delete(&format!("/api/developers/keys/{}", ObjectId::new()), &account.token).await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "NOT_FOUND");
    for bad in ["nope", "0123456789abcdef0123456", "0123456789abcdef012345678", "zzzzzzzzzzzzzzzzzzzzzzzz"] {
        let (status, body) = app.delete(&format!("/api/developers/keys/{bad}"), &account.token).await;
        assert_validation(status, &body, "id");
    }
}

#[tokio::test]
async fn another_organizations_key_cannot_be_revoked() {
    let app = TestApp::start().await;
    let owner = app.signup("owner@example.com").await;
    let intruder = app.signup("intruder@example.com").await;
    let (id, key) = app.create_key(&owner, json!({"name": "precious"})).await;
    let (status, _) = app.get("/api/scraps", &key).await;
    assert_eq!(status, StatusCode::OK);

    let (status, body) = app.delete(&format!("/api/developers/keys/{id}"), &intruder.token).await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "NOT_FOUND");

    let (status, body) = app.get("/api/scraps", &key).await;
    assert_eq!(status, StatusCode::OK, "the key keeps working: {body}");
    let (_, list) = app.get("/api/developers/keys", &owner.token).await;
    assert_eq!(list["total"], 1, "{list}");
    // The owner can still revoke it.
    let (status, _) = app.delete(&format!("/api/developers/keys/{id}"), &owner.token).await;
    assert_eq!(status, StatusCode::NO_CONTENT);
}

// ---------------------------------------------------------------- expiry and bad keys

#[tokio::test]
async fn an_expired_key_is_refused() {
    let app = TestApp::start().await;
    let account = app.signup("expired@example.com").await;
    let (_, expired) = store_key(&app, &account, Some(Utc::now() - Duration::minutes(1))).await;
    assert_unauthorized(&app, "/api/scraps", Some(&expired)).await;
    assert_unauthorized(&app, "/api/historys", Some(&expired)).await;

    // A fresh key of the same organization works, so the refusal is the expiry.
    let (_, fresh) = store_key(&app, &account, Some(Utc::now() + Duration::days(1))).await;
    let (status, body) = app.get("/api/scraps", &fresh).await;
    assert_eq!(status, StatusCode::OK, "{body}");
}

#[tokio::test]
async fn a_key_stops_working_when_it_expires_even_after_use() {
    let app = TestApp::start().await;
    let account = app.signup("shortlived@example.com").await;
    let expires = Utc::now() + Duration::milliseconds(1500);
    let (status, created) =
        create_key_raw(&app, &account, json!({"name": "brief", "expiresAt": expires.to_rfc3339()})).await;
    assert_eq!(status, StatusCode::OK, "{created}");
    let key = created["plainKey"].as_str().unwrap();
    let (status, body) = app.get("/api/scraps", key).await;
    assert_eq!(status, StatusCode::OK, "{body}");

    let wait = (expires - Utc::now()).to_std().unwrap_or_default() + std::time::Duration::from_millis(100);
    tokio::time::sleep(wait).await;
    assert_unauthorized(&app, "/api/scraps", Some(key)).await;
}

#[tokio::test]
async fn a_key_without_expiry_keeps_working() {
    let app = TestApp::start().await;
    let account = app.signup("legacy@example.com").await;
    let (record, plain) = store_key(&app, &account, None).await;
    let (status, body) = app.get("/api/scraps", &plain).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, body) = app.get("/api/historys", &plain).await;
    assert_eq!(status, StatusCode::OK, "{body}");

    let (_, list) = app.get("/api/developers/keys", &account.token).await;
    let row =
        list["data"].as_array().unwrap().iter().find(|k| k["id"] == record.id.to_string()).cloned().expect("listed");
    assert_eq!(row["expiresAt"], Value::Null, "{row}");

    // And it can be revoked like any other.
    let (status, _) = app.delete(&format!("/api/developers/keys/{}", record.id), &account.token).await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    assert_unauthorized(&app, "/api/scraps", Some(&plain)).await;
}

#[tokio::test]
async fn missing_or_garbage_keys_are_401_with_a_bearer_challenge() {
    let app = TestApp::start().await;
    let account = app.signup("garbage@example.com").await;
    let (_, real) = app.create_key(&account, json!({"name": "real"})).await;
    let unknown = key_material::generate();
    let mut altered = real.clone();
    let last = altered.pop().unwrap();
    altered.push(if last == 'a' { 'b' } else { 'a' });

    let too_long = format!("{real}x");
    let bad_chars = format!("svc_{}", "!".repeat(40));
    for bearer in [
        None,
        Some(unknown.as_str()),
        Some(altered.as_str()),
        Some("svc_"),
        Some("svc_short"),
        Some(too_long.as_str()),
        Some(bad_chars.as_str()),
        Some("not-a-token"),
    ] {
        for path in ["/api/scraps", "/api/historys", "/api/developers/keys"] {
            assert_unauthorized(&app, path, bearer).await;
        }
    }

    // An empty bearer value or another scheme.
    for value in ["Bearer ", "Bearer", "Basic dXNlcjpwYXNz", real.as_str()] {
        let response =
            app.request(Method::GET, "/api/scraps", None).header(header::AUTHORIZATION, value).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED, "{value}");
        assert_eq!(response.headers().get(header::WWW_AUTHENTICATE).unwrap(), "Bearer");
    }
}

// ---------------------------------------------------------------- scopes

#[tokio::test]
async fn a_key_without_the_routes_scope_gets_403_insufficient_scope() {
    let app = TestApp::start().await;
    let account = app.signup("scope403@example.com").await;
    let scrap = app.create_scrap(&account, "s").await;
    let scrap_id = scrap["id"].as_str().unwrap();
    let (_, history_only) = app.create_key(&account, json!({"name": "h", "scopes": ["svc:history:read"]})).await;

    for path in ["/api/scraps".to_string(), format!("/api/scraps/{scrap_id}")] {
        let (status, challenge, body) = get_full(&app, &path, Some(&history_only)).await;
        assert_error(status, &body, StatusCode::FORBIDDEN, "INSUFFICIENT_SCOPE");
        assert_eq!(body["message"], "Forbidden", "{body}");
        assert_eq!(challenge.as_deref(), Some("Bearer error=\"insufficient_scope\", scope=\"svc:scraps:read\""));
        let description = body["description"].as_str().unwrap();
        assert!(description.contains("svc:scraps:read") && description.contains("scope"), "{body}");
    }
    // The scope it has is enough for its routes.
    let (status, body) = app.get("/api/historys", &history_only).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, body) = app.get(&format!("/api/scraps/{scrap_id}/activities"), &history_only).await;
    assert_eq!(status, StatusCode::OK, "{body}");

    let (_, read_only) =
        app.create_key(&account, json!({"name": "r", "scopes": ["svc:scraps:read", "svc:scraps:run"]})).await;
    let (status, body) = app.get("/api/scraps", &read_only).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let row = app.insert_run(&account, scrap_id, None).await;
    for path in
        ["/api/historys".to_string(), format!("/api/historys/{}", row.id), format!("/api/scraps/{scrap_id}/activities")]
    {
        let (status, challenge, body) = get_full(&app, &path, Some(&read_only)).await;
        assert_error(status, &body, StatusCode::FORBIDDEN, "INSUFFICIENT_SCOPE");
        assert_eq!(
            challenge.as_deref(),
            Some("Bearer error=\"insufficient_scope\", scope=\"svc:history:read\""),
            "{path}"
        );
        assert!(body["description"].as_str().unwrap().contains("svc:history:read"), "{body}");
    }
}

#[tokio::test]
async fn the_scope_check_does_not_reveal_other_organizations_scraps() {
    let app = TestApp::start().await;
    let me = app.signup("scopeorg@example.com").await;
    let other = app.signup("scopeother@example.com").await;
    let theirs = app.create_scrap(&other, "theirs").await;
    let (_, all) = app.create_key(&me, json!({"name": "all"})).await;
    let (status, body) = app.get(&format!("/api/scraps/{}", theirs["id"].as_str().unwrap()), &all).await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "NOT_FOUND");
}

/// Every KEY route that exists, for one scrap and one of its runs.
async fn key_routes(app: &TestApp, account: &Account) -> Vec<String> {
    let scrap = app.create_scrap(account, "routes").await;
    let id = scrap["id"].as_str().unwrap().to_string();
    let row = app.insert_run(account, &id, None).await;
    vec![
        "/api/scraps".into(),
        "/api/scraps?search=routes&page=1&perPage=5".into(),
        format!("/api/scraps/{id}"),
        format!("/api/scraps/{id}/activities"),
        "/api/historys".into(),
        format!("/api/historys?scrap={id}"),
        format!("/api/historys/{}", row.id),
    ]
}

#[tokio::test]
async fn a_key_with_empty_or_omitted_scopes_may_use_every_key_route() {
    let app = TestApp::start().await;
    let account = app.signup("allroutes@example.com").await;
    let routes = key_routes(&app, &account).await;
    let (_, omitted) = app.create_key(&account, json!({"name": "omitted"})).await;
    let (_, empty) = app.create_key(&account, json!({"name": "empty", "scopes": [], "scrapIds": []})).await;
    let (_, null) = app.create_key(&account, json!({"name": "null", "scopes": null})).await;
    for key in [&omitted, &empty, &null] {
        for path in &routes {
            let (status, body) = app.get(path, key).await;
            assert_eq!(status, StatusCode::OK, "{path}: {body}");
        }
    }
    let (_, scraps) = app.get("/api/scraps", &omitted).await;
    assert_eq!(scraps["total"], 1, "{scraps}");
}

#[tokio::test]
async fn a_key_with_every_needed_scope_may_use_every_key_route() {
    let app = TestApp::start().await;
    let account = app.signup("scoped@example.com").await;
    let routes = key_routes(&app, &account).await;
    let (_, key) =
        app.create_key(&account, json!({"name": "k", "scopes": ["svc:scraps:read", "svc:history:read"]})).await;
    for path in &routes {
        let (status, body) = app.get(path, &key).await;
        assert_eq!(status, StatusCode::OK, "{path}: {body}");
    }
}

#[tokio::test]
async fn a_web_session_reaches_every_key_route() {
    let app = TestApp::start().await;
    let account = app.signup("session@example.com").await;
    for path in key_routes(&app, &account).await {
        let (status, body) = app.get(&path, &account.token).await;
        assert_eq!(status, StatusCode::OK, "{path}: {body}");
    }
}

#[tokio::test]
async fn an_api_key_cannot_write_scraps() {
    let app = TestApp::start().await;
    let account = app.signup("nowrite@example.com").await;
    let scrap = app.create_scrap(&account, "kept").await;
    let id = scrap["id"].as_str().unwrap();
    let (_, key) = app.create_key(&account, json!({"name": "all"})).await;
    let (_, write) = app.create_key(&account, json!({"name": "write", "scopes": ["svc:scraps:write"]})).await;
    for k in [&key, &write] {
        let body = json!({"title": "t", "url": "https://example.com", "request": "returnData([])"});
        let (status, response) = app.post("/api/scraps", k, body).await;
        assert_error(status, &response, StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
        let (status, response) = app.put(&format!("/api/scraps/{id}"), k, json!({"title": "changed"})).await;
        assert_error(status, &response, StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
        let (status, response) = app.delete(&format!("/api/scraps/{id}"), k).await;
        assert_error(status, &response, StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
    }
    let (status, after) = app.get(&format!("/api/scraps/{id}"), &key).await;
    assert_eq!(status, StatusCode::OK, "{after}");
    assert_eq!(after["title"], "kept");
    let (_, list) = app.get("/api/scraps", &account.token).await;
    assert_eq!(list["total"], 1, "{list}");
}

// ---------------------------------------------------------------- allow-lists

#[tokio::test]
async fn a_key_with_scrap_ids_sees_only_those_scraps() {
    let app = TestApp::start().await;
    let account = app.signup("allow@example.com").await;
    let other = app.signup("allowother@example.com").await;
    let a = app.create_scrap(&account, "alpha").await;
    let b = app.create_scrap(&account, "beta").await;
    let theirs = app.create_scrap(&other, "gamma").await;
    let (a_id, b_id) = (a["id"].as_str().unwrap(), b["id"].as_str().unwrap());
    let run_a = app.insert_run(&account, a_id, None).await;
    let run_b = app.insert_run(&account, b_id, None).await;
    let (_, key) = app.create_key(&account, json!({"name": "only a", "scrapIds": [a_id]})).await;

    let (status, list) = app.get("/api/scraps", &key).await;
    assert_eq!(status, StatusCode::OK, "{list}");
    assert_eq!(list["total"], 1, "{list}");
    assert_eq!(list["data"][0]["id"], a_id);

    let (status, body) = app.get(&format!("/api/scraps/{a_id}"), &key).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, body) = app.get(&format!("/api/scraps/{b_id}"), &key).await;
    assert_error(status, &body, StatusCode::FORBIDDEN, "SCRAP_NOT_IN_KEY_SCOPE");
    assert_eq!(body["message"], "Forbidden");
    assert!(body["description"].as_str().unwrap().contains("not scoped to this scrap"), "{body}");
    let (status, body) = app.get(&format!("/api/scraps/{}", theirs["id"].as_str().unwrap()), &key).await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "NOT_FOUND");

    let (status, runs) = app.get("/api/historys", &key).await;
    assert_eq!(status, StatusCode::OK, "{runs}");
    assert_eq!(runs["total"], 1, "{runs}");
    assert_eq!(runs["data"][0]["id"], run_a.id.to_string());
    let (status, body) = app.get(&format!("/api/historys/{}", run_b.id), &key).await;
    assert_error(status, &body, StatusCode::FORBIDDEN, "SCRAP_NOT_IN_KEY_SCOPE");
    let (status, body) = app.get(&format!("/api/historys?scrap={b_id}"), &key).await;
    assert_error(status, &body, StatusCode::FORBIDDEN, "SCRAP_NOT_IN_KEY_SCOPE");

    // The session of the same user sees both.
    let (_, all) = app.get("/api/scraps", &account.token).await;
    assert_eq!(all["total"], 2, "{all}");
}

#[tokio::test]
async fn scope_and_allow_list_compose() {
    let app = TestApp::start().await;
    let account = app.signup("compose@example.com").await;
    let a = app.create_scrap(&account, "alpha").await;
    let b = app.create_scrap(&account, "beta").await;
    let (a_id, b_id) = (a["id"].as_str().unwrap(), b["id"].as_str().unwrap());
    let (_, key) =
        app.create_key(&account, json!({"name": "k", "scopes": ["svc:history:read"], "scrapIds": [a_id]})).await;
    // In the allow-list but without the action scope.
    let (status, body) = app.get(&format!("/api/scraps/{a_id}"), &key).await;
    assert_error(status, &body, StatusCode::FORBIDDEN, "INSUFFICIENT_SCOPE");
    // With the action scope but outside the allow-list.
    let (status, body) = app.get(&format!("/api/scraps/{b_id}/activities"), &key).await;
    assert_error(status, &body, StatusCode::FORBIDDEN, "SCRAP_NOT_IN_KEY_SCOPE");
    // Both granted.
    let (status, body) = app.get(&format!("/api/scraps/{a_id}/activities"), &key).await;
    assert_eq!(status, StatusCode::OK, "{body}");
}

#[tokio::test]
async fn keys_of_one_organization_never_see_another() {
    let app = TestApp::start().await;
    let a = app.signup("orga@example.com").await;
    let b = app.signup("orgb@example.com").await;
    let theirs = app.create_scrap(&b, "theirs").await;
    let theirs_id = theirs["id"].as_str().unwrap();
    let run = app.insert_run(&b, theirs_id, None).await;
    let (_, key) = app.create_key(&a, json!({"name": "a"})).await;

    let (_, list) = app.get("/api/scraps", &key).await;
    assert_eq!(list["total"], 0, "{list}");
    let (_, runs) = app.get("/api/historys", &key).await;
    assert_eq!(runs["total"], 0, "{runs}");
    let (status, body) = app.get(&format!("/api/historys/{}", run.id), &key).await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "NOT_FOUND");
    // Filtering on another organization's scrap shows nothing, and answers
    // exactly as for a scrap that does not exist at all.
    let (status, body) = app.get(&format!("/api/historys?scrap={theirs_id}"), &key).await;
    assert!(status == StatusCode::NOT_FOUND || body["total"] == 0, "{status} {body}");
    assert!(!body.to_string().contains(&run.id.to_string()), "{body}");
    let nowhere = app.get(&format!("/api/historys?scrap={}", ObjectId::new()), &key).await;
    assert_eq!((status, body), nowhere);
    let (status, body) = app.get(&format!("/api/scraps/{theirs_id}/activities"), &key).await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "NOT_FOUND");
}

/// A revocation while the key is in use: requests that were already under way
/// may finish, but none may leave the key usable after the 204.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_key_revoked_while_in_use_stays_revoked() {
    let app = std::sync::Arc::new(TestApp::start().await);
    let account = app.signup("busy@example.com").await;
    for trial in 0..300 {
        let (id, key) = app.create_key(&account, json!({"name": format!("busy{trial}")})).await;
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let mut hammers = Vec::new();
        for _ in 0..8 {
            let (app, key, stop) = (app.clone(), key.clone(), stop.clone());
            hammers.push(tokio::spawn(async move {
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    let _ = app.get("/api/scraps", &key).await;
                }
            }));
        }
        tokio::time::sleep(std::time::Duration::from_micros(250 * (trial % 8))).await;
        let (status, body) = app.delete(&format!("/api/developers/keys/{id}"), &account.token).await;
        assert_eq!(status, StatusCode::NO_CONTENT, "{body}");
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        for h in hammers {
            h.await.unwrap();
        }
        let (status, body) = app.get("/api/scraps", &key).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "trial {trial}: the revoked key still works: {body}");
    }
}
