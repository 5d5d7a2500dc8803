//! Requests the server must refuse, each in the error shape of docs/decisions.md.

use crate::common;

use common::{Account, TestApp, assert_error};
use reqwest::{Method, StatusCode, header};
use serde_json::{Value, json};
use svc_domain::ObjectId;

/// Sends `body` as-is with `content_type` (none when `None`).
async fn send_raw(
    app: &TestApp,
    method: Method,
    path: &str,
    bearer: Option<&str>,
    content_type: Option<&str>,
    body: impl Into<reqwest::Body>,
) -> (StatusCode, reqwest::header::HeaderMap, Value) {
    let mut request = app.request(method, path, bearer).body(body);
    if let Some(ct) = content_type {
        request = request.header(header::CONTENT_TYPE, ct);
    }
    let response = request.send().await.expect("request");
    let status = response.status();
    let headers = response.headers().clone();
    let text = response.text().await.unwrap();
    let body = serde_json::from_str(&text).unwrap_or_else(|_| panic!("not JSON ({status}): {text:?}"));
    (status, headers, body)
}

fn assert_validation(status: StatusCode, body: &Value, field: &str) {
    assert_error(status, body, StatusCode::UNPROCESSABLE_ENTITY, "VALIDATION");
    assert_eq!(body["field"], field, "{body}");
}

/// The JSON-body routes, with the credential each needs.
fn json_routes<'a>(account: &'a Account, scrap_id: &str) -> Vec<(Method, String, Option<&'a str>)> {
    let token = Some(account.token.as_str());
    vec![
        (Method::POST, "/api/auth/signup".into(), None),
        (Method::POST, "/api/auth/login".into(), None),
        (Method::POST, "/api/scraps".into(), token),
        (Method::PUT, format!("/api/scraps/{scrap_id}"), token),
        (Method::PATCH, format!("/api/scraps/{scrap_id}"), token),
        (Method::POST, "/api/developers/keys".into(), token),
    ]
}

async fn setup() -> (TestApp, Account, String) {
    let app = TestApp::start().await;
    let account = app.signup("bad@example.com").await;
    let scrap = app.create_scrap(&account, "original").await;
    let id = scrap["id"].as_str().unwrap().to_string();
    (app, account, id)
}

/// The scrap is still as `create_scrap` made it and the org has no keys.
async fn assert_nothing_changed(app: &TestApp, account: &Account, scrap_id: &str) {
    let (_, scraps) = app.get("/api/scraps", &account.token).await;
    assert_eq!(scraps["total"], 1, "{scraps}");
    let (_, scrap) = app.get(&format!("/api/scraps/{scrap_id}"), &account.token).await;
    assert_eq!(scrap["title"], "original", "{scrap}");
    let (_, keys) = app.get("/api/developers/keys", &account.token).await;
    assert_eq!(keys["total"], 0, "{keys}");
}

#[tokio::test]
async fn malformed_json_is_400_invalid_json() {
    let (app, account, id) = setup().await;
    for (method, path, bearer) in json_routes(&account, &id) {
        for raw in ["{", "{\"", "not json", "", "   ", "{'name': 'x'}", "\u{feff}{}", "{,}", "nul"] {
            let (status, _, body) =
                send_raw(&app, method.clone(), &path, bearer, Some("application/json"), raw.to_string()).await;
            assert_error(status, &body, StatusCode::BAD_REQUEST, "INVALID_JSON");
            assert!(body.get("field").is_none(), "{method} {path} {raw:?}: {body}");
        }
        // Invalid UTF-8 inside a string.
        let (status, _, body) =
            send_raw(&app, method.clone(), &path, bearer, Some("application/json"), b"{\"\xff\": 1}".to_vec()).await;
        assert_error(status, &body, StatusCode::BAD_REQUEST, "INVALID_JSON");
    }
    assert_nothing_changed(&app, &account, &id).await;
}

/// A body that is not JSON is 400 even when what can be read of it already
/// has the wrong shape (an unknown field, a wrong type, a missing field).
#[tokio::test]
async fn malformed_json_is_400_even_when_its_readable_part_has_a_shape_error() {
    let (app, account, id) = setup().await;
    let token = Some(account.token.as_str());
    for (method, path, bearer, raw) in [
        (Method::POST, "/api/developers/keys".to_string(), token, "{\"title\": }"),
        (Method::POST, "/api/developers/keys".to_string(), token, "{\"name\": 5, "),
        (Method::POST, "/api/scraps".to_string(), token, "{\"title\": 5, \"url\": "),
        (Method::POST, "/api/scraps".to_string(), token, "{\"name\": \"x\"} trailing"),
        (Method::PUT, format!("/api/scraps/{id}"), token, "{\"titel\": \"x\""),
        (Method::POST, "/api/auth/signup".to_string(), None, "{\"email\": \"a@example.com\"} trailing"),
        (Method::POST, "/api/auth/login".to_string(), None, "{\"email\": []"),
    ] {
        let (status, _, body) = send_raw(&app, method.clone(), &path, bearer, Some("application/json"), raw).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{method} {path} {raw:?}: {body}");
        assert_error(status, &body, StatusCode::BAD_REQUEST, "INVALID_JSON");
    }
    assert_nothing_changed(&app, &account, &id).await;
}

#[tokio::test]
async fn a_body_that_is_json_but_not_an_object_is_422() {
    let (app, account, id) = setup().await;
    for raw in ["[]", "\"text\"", "42", "null"] {
        let (status, _, body) =
            send_raw(&app, Method::POST, "/api/scraps", Some(&account.token), Some("application/json"), raw).await;
        assert_error(status, &body, StatusCode::UNPROCESSABLE_ENTITY, "VALIDATION");
        assert!(body["field"].is_string(), "{raw}: {body}");
    }
    assert_nothing_changed(&app, &account, &id).await;
}

#[tokio::test]
async fn wrong_types_on_scrap_create_name_the_field() {
    let (app, account, id) = setup().await;
    let base = json!({"title": "t", "url": "https://example.com", "request": "returnData([])"});
    for (field, value) in [
        ("title", json!(5)),
        ("url", json!(["https://example.com"])),
        ("request", json!({"script": "x"})),
        ("autoFix", json!("yes")),
        ("emailNotif", json!(1)),
        ("containers", json!("default")),
        ("params", json!("a=b")),
        ("cron", json!(5)),
        ("digestEnabled", json!("true")),
    ] {
        let mut body = base.clone();
        body[field] = value;
        let (status, response) = app.post("/api/scraps", &account.token, body).await;
        assert_validation(status, &response, field);
    }
    assert_nothing_changed(&app, &account, &id).await;
}

#[tokio::test]
async fn wrong_types_on_scrap_update_name_the_field() {
    let (app, account, id) = setup().await;
    for (field, value) in [
        ("title", json!(false)),
        ("autoFix", json!("yes")),
        ("proxyTier", json!(1)),
        ("alert", json!(["a@example.com"])),
        ("cronTimezone", json!(0)),
    ] {
        let (status, response) = app.put(&format!("/api/scraps/{id}"), &account.token, json!({field: value})).await;
        assert_validation(status, &response, field);
    }
    assert_nothing_changed(&app, &account, &id).await;
}

#[tokio::test]
async fn unknown_fields_on_scrap_create_and_update_are_refused() {
    let (app, account, id) = setup().await;
    let body = json!({"title": "t", "url": "https://example.com", "request": "returnData([])", "titel": "typo"});
    let (status, response) = app.post("/api/scraps", &account.token, body).await;
    assert_validation(status, &response, "titel");

    let (status, response) =
        app.put(&format!("/api/scraps/{id}"), &account.token, json!({"title": "new", "crons": "@hourly"})).await;
    assert_validation(status, &response, "crons");
    assert_nothing_changed(&app, &account, &id).await;

    // Read-only fields of the Scrap shape may be sent back as they were read.
    let (_, read) = app.get(&format!("/api/scraps/{id}"), &account.token).await;
    let mut echoed = read.clone();
    echoed["title"] = json!("renamed");
    let (status, updated) = app.put(&format!("/api/scraps/{id}"), &account.token, echoed).await;
    assert_eq!(status, StatusCode::OK, "{updated}");
    assert_eq!(updated["title"], "renamed");
    assert_eq!(updated["id"], read["id"]);
    assert_eq!(updated["createdAt"], read["createdAt"]);
}

#[tokio::test]
async fn wrong_types_and_unknown_fields_on_key_create() {
    let (app, account, id) = setup().await;
    for (field, value) in
        [("name", json!(["ci"])), ("expiresAt", json!(true)), ("scopes", json!({"a": 1})), ("scrapIds", json!(5))]
    {
        let mut body = json!({"name": "ci"});
        body[field] = value;
        let (status, response) = app.post("/api/developers/keys", &account.token, body).await;
        assert_validation(status, &response, field);
    }
    let (status, response) = app.post("/api/developers/keys", &account.token, json!({"name": "ci", "scope": []})).await;
    assert_validation(status, &response, "scope");
    assert_nothing_changed(&app, &account, &id).await;
}

#[tokio::test]
async fn a_body_without_a_json_content_type_is_415() {
    let (app, account, id) = setup().await;
    let valid_scrap = json!({"title": "t", "url": "https://example.com", "request": "returnData([])"}).to_string();
    for (method, path, bearer) in json_routes(&account, &id) {
        for content_type in [
            None,
            Some("text/plain"),
            Some("application/x-www-form-urlencoded"),
            Some("multipart/form-data; boundary=x"),
            Some("application/jsonx"),
            Some("json"),
        ] {
            let (status, _, body) =
                send_raw(&app, method.clone(), &path, bearer, content_type, valid_scrap.clone()).await;
            assert_error(status, &body, StatusCode::UNSUPPORTED_MEDIA_TYPE, "UNSUPPORTED_MEDIA_TYPE");
        }
    }
    assert_nothing_changed(&app, &account, &id).await;
}

#[tokio::test]
async fn json_content_types_with_parameters_or_suffixes_are_accepted() {
    let (app, account, _) = setup().await;
    let valid_scrap = json!({"title": "t", "url": "https://example.com", "request": "returnData([])"}).to_string();
    for content_type in ["application/json; charset=utf-8", "Application/JSON", "application/merge-patch+json"] {
        let (status, _, body) =
            send_raw(&app, Method::POST, "/api/scraps", Some(&account.token), Some(content_type), valid_scrap.clone())
                .await;
        assert_eq!(status, StatusCode::CREATED, "{content_type}: {body}");
    }
}

#[tokio::test]
async fn a_body_over_two_mebibytes_is_413() {
    let (app, account, id) = setup().await;
    let limit = 2 * 1024 * 1024;
    // Valid JSON, one byte over the limit.
    let padding = "x".repeat(limit);
    let big = format!("{{\"title\": \"t\", \"url\": \"https://example.com\", \"request\": \"{padding}\"}}");
    assert!(big.len() > limit);
    for (method, path) in [
        (Method::POST, "/api/scraps".to_string()),
        (Method::PUT, format!("/api/scraps/{id}")),
        (Method::POST, "/api/developers/keys".to_string()),
    ] {
        let (status, _, body) =
            send_raw(&app, method, &path, Some(&account.token), Some("application/json"), big.clone()).await;
        assert_error(status, &body, StatusCode::PAYLOAD_TOO_LARGE, "PAYLOAD_TOO_LARGE");
    }
    let (status, _, body) = send_raw(&app, Method::POST, "/api/auth/signup", None, Some("application/json"), big).await;
    assert_error(status, &body, StatusCode::PAYLOAD_TOO_LARGE, "PAYLOAD_TOO_LARGE");
    assert_nothing_changed(&app, &account, &id).await;

    // Just under the limit is read (and then judged on its content).
    let under =
        format!("{{\"title\": \"t\", \"url\": \"https://example.com\", \"request\": \"{}\"}}", "x".repeat(limit - 200));
    assert!(under.len() < limit);
    let (status, _, body) =
        send_raw(&app, Method::POST, "/api/scraps", Some(&account.token), Some("application/json"), under).await;
    assert_validation(status, &body, "request");
}

#[tokio::test]
async fn malformed_path_ids_are_422_naming_id() {
    let (app, account, _) = setup().await;
    for bad in
        ["nope", "123", "0123456789abcdef0123456", "0123456789abcdef012345678", "g123456789abcdef01234567", "%20"]
    {
        for (method, path) in [
            (Method::GET, format!("/api/scraps/{bad}")),
            (Method::PUT, format!("/api/scraps/{bad}")),
            (Method::DELETE, format!("/api/scraps/{bad}")),
            (Method::GET, format!("/api/scraps/{bad}/activities")),
            (Method::GET, format!("/api/historys/{bad}")),
            (Method::DELETE, format!("/api/developers/keys/{bad}")),
        ] {
            let request = app.request(method.clone(), &path, Some(&account.token)).json(&json!({"title": "x"}));
            let (status, body) = app.send(request).await;
            assert_validation(status, &body, "id");
        }
    }
    // A well-formed id that names nothing is 404.
    let (status, body) = app.get(&format!("/api/scraps/{}", ObjectId::new()), &account.token).await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "NOT_FOUND");
    let (status, body) = app.get(&format!("/api/historys/{}", ObjectId::new()), &account.token).await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "NOT_FOUND");
}

#[tokio::test]
async fn a_malformed_scrap_filter_is_422_naming_scrap() {
    let (app, account, _) = setup().await;
    for bad in ["nope", "0123456789abcdef0123456"] {
        let (status, body) = app.get(&format!("/api/historys?scrap={bad}"), &account.token).await;
        assert_validation(status, &body, "scrap");
    }
}

#[tokio::test]
async fn list_paging_and_search_are_validated_on_every_list() {
    let (app, account, id) = setup().await;
    let lists = [
        "/api/scraps".to_string(),
        "/api/historys".to_string(),
        format!("/api/scraps/{id}/activities"),
        "/api/developers/keys".to_string(),
    ];
    for list in &lists {
        for (query, field) in [
            ("perPage=0", "perPage"),
            ("perPage=101", "perPage"),
            ("perPage=abc", "perPage"),
            ("perPage=2.5", "perPage"),
            ("page=0", "page"),
            ("page=-1", "page"),
            ("page=one", "page"),
            ("page=1e3", "page"),
        ] {
            let (status, body) = app.get(&format!("{list}?{query}"), &account.token).await;
            assert_validation(status, &body, field);
        }
        let (status, body) = app.get(&format!("{list}?page=2&perPage=100"), &account.token).await;
        assert_eq!(status, StatusCode::OK, "{list}: {body}");
        assert_eq!((body["page"].as_i64(), body["perPage"].as_i64()), (Some(2), Some(100)), "{body}");
        let (status, body) = app.get(list, &account.token).await;
        assert_eq!(status, StatusCode::OK, "{list}: {body}");
        assert_eq!((body["page"].as_i64(), body["perPage"].as_i64()), (Some(1), Some(20)), "{body}");
        assert!(body["data"].is_array() && body["total"].is_i64(), "{body}");
    }
    let long = "a".repeat(201);
    let (status, body) = app.get(&format!("/api/scraps?search={long}"), &account.token).await;
    assert_validation(status, &body, "search");
    let (status, body) = app.get(&format!("/api/scraps?search={}", "a".repeat(200)), &account.token).await;
    assert_eq!(status, StatusCode::OK, "{body}");
}

#[tokio::test]
async fn unknown_routes_are_404_json() {
    let (app, account, _) = setup().await;
    // Outside `/api` an unknown address is the web app's 404 page (web::sessions tests it).
    for path in ["/api/nope", "/api/scraps/a/b/c", "/api/developers/keys/x/y", "/api"] {
        for bearer in [None, Some(account.token.as_str())] {
            let response = app.request(Method::GET, path, bearer).send().await.unwrap();
            let status = response.status();
            let content_type = response.headers().get(header::CONTENT_TYPE).map(|v| v.to_str().unwrap().to_string());
            let body: Value = response.json().await.unwrap();
            assert_error(status, &body, StatusCode::NOT_FOUND, "NOT_FOUND");
            assert!(content_type.is_some_and(|ct| ct.starts_with("application/json")), "{path}");
        }
    }
    let (status, _, body) = send_raw(&app, Method::POST, "/api/nope", None, Some("application/json"), "{}").await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "NOT_FOUND");
}

#[tokio::test]
async fn wrong_methods_are_405_json() {
    let (app, account, id) = setup().await;
    for (method, path, allowed) in [
        (Method::DELETE, "/api/auth/signup".to_string(), "POST"),
        (Method::GET, "/api/auth/login".to_string(), "POST"),
        (Method::POST, "/api/auth/me".to_string(), "GET"),
        (Method::PUT, "/api/developers/keys".to_string(), "POST"),
        (Method::GET, format!("/api/developers/keys/{id}"), "DELETE"),
        (Method::DELETE, "/api/historys".to_string(), "GET"),
        (Method::POST, format!("/api/scraps/{id}"), "PUT"),
        (Method::POST, "/healthz".to_string(), "GET"),
    ] {
        let response = app.request(method.clone(), &path, Some(&account.token)).send().await.unwrap();
        let status = response.status();
        // RFC 9110: a 405 lists the methods the route does accept.
        let allow = response.headers().get(header::ALLOW).map(|v| v.to_str().unwrap().to_string()).unwrap_or_default();
        let body: Value = response.json().await.unwrap();
        assert_error(status, &body, StatusCode::METHOD_NOT_ALLOWED, "METHOD_NOT_ALLOWED");
        assert!(allow.split(',').any(|m| m.trim() == allowed), "{method} {path}: Allow: {allow:?}");
        assert!(!allow.split(',').any(|m| m.trim() == method.as_str()), "{method} {path}: Allow: {allow:?}");
    }
}

#[tokio::test]
async fn protected_routes_without_credentials_are_401_before_anything_else() {
    let (app, account, id) = setup().await;
    let routes = [
        (Method::GET, "/api/auth/me".to_string()),
        (Method::GET, "/api/scraps".to_string()),
        (Method::GET, format!("/api/scraps/{id}")),
        (Method::GET, format!("/api/scraps/{id}/activities")),
        (Method::POST, "/api/scraps".to_string()),
        (Method::PUT, format!("/api/scraps/{id}")),
        (Method::DELETE, format!("/api/scraps/{id}")),
        (Method::GET, "/api/historys".to_string()),
        (Method::GET, format!("/api/historys/{}", ObjectId::new())),
        (Method::GET, "/api/developers/keys".to_string()),
        (Method::POST, "/api/developers/keys".to_string()),
        (Method::DELETE, format!("/api/developers/keys/{}", ObjectId::new())),
    ];
    for (method, path) in &routes {
        for bearer in [None, Some("garbage"), Some("svc_0000000000000000000000000000000000000000")] {
            // Even with a malformed body the credential is checked first.
            let (status, headers, body) =
                send_raw(&app, method.clone(), path, bearer, Some("application/json"), "{not json").await;
            assert_error(status, &body, StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
            assert_eq!(
                headers.get(header::WWW_AUTHENTICATE).map(|v| v.to_str().unwrap()),
                Some("Bearer"),
                "{method} {path}"
            );
        }
    }
    // Bad ids and paging are not reported to anonymous callers either.
    let (status, _, body) = send_raw(&app, Method::GET, "/api/scraps/nope", None, None, "").await;
    assert_error(status, &body, StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
    let (status, _, body) = send_raw(&app, Method::GET, "/api/scraps?perPage=0", None, None, "").await;
    assert_error(status, &body, StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
    assert_nothing_changed(&app, &account, &id).await;
}

#[tokio::test]
async fn public_routes_answer_without_credentials() {
    let app = TestApp::start().await;
    let response = app.request(Method::GET, "/healthz", None).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["status"], "ok");

    // `/` is the web app: a visitor lands on its log-in page.
    let response = app.request(Method::GET, "/", None).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.url().path(), "/login");
    let content_type = response.headers().get(header::CONTENT_TYPE).unwrap().to_str().unwrap().to_string();
    assert!(content_type.starts_with("text/html"), "{content_type}");
    let page = response.text().await.unwrap();
    assert!(page.contains("/api/"), "the page points to the API: {page}");
}

#[tokio::test]
async fn every_error_carries_a_request_id() {
    let app = TestApp::start().await;
    let first = app.request(Method::GET, "/api/scraps", None).send().await.unwrap();
    let second = app.request(Method::GET, "/api/nope", None).send().await.unwrap();
    let a = first.headers().get("x-request-id").expect("x-request-id").to_str().unwrap().to_string();
    let b = second.headers().get("x-request-id").expect("x-request-id").to_str().unwrap().to_string();
    assert!(!a.is_empty() && a != b, "{a} {b}");
    // A client's own request id is echoed.
    let mine =
        app.request(Method::GET, "/api/scraps", None).header("x-request-id", "client-chosen-42").send().await.unwrap();
    assert_eq!(mine.headers().get("x-request-id").unwrap(), "client-chosen-42");
}

/// A query parameter given twice is 422 naming it on every route that
/// reads a query (axum's own refusal is a plain-text 400), and a blank or
/// signed `wait` is refused as the document's integer is.
#[tokio::test]
async fn repeated_and_blank_query_parameters_are_422_naming_them() {
    let app = TestApp::start_with(&[("SVC_EMBEDDED_WORKER", "false")]).await;
    let account = app.signup("query@example.com").await;
    let id = app.create_scrap(&account, "queried").await["id"].as_str().unwrap().to_string();
    let task = ObjectId::new();
    let routes = [
        (Method::POST, format!("/api/scraps/worker/{id}"), json!(null)),
        (Method::GET, format!("/api/scraps/load/{id}"), json!(null)),
        (Method::GET, format!("/api/tasks/{task}"), json!(null)),
        (Method::POST, "/api/ai/wizard".to_string(), json!({"url": "https://example.com"})),
        (Method::POST, "/api/ai/generate".to_string(), json!({"url": "https://example.com", "description": "d"})),
    ];
    for (method, path, body) in &routes {
        for (query, field) in [
            ("wait=1&wait=2", "wait"),
            ("wait=0&wait=0", "wait"),
            ("wait=", "wait"),
            ("wait=%20", "wait"),
            ("wait=+1", "wait"),
            ("wait=1.0", "wait"),
            ("wait=121", "wait"),
        ] {
            let mut request = app.request(method.clone(), &format!("{path}?{query}"), Some(&account.token));
            if !body.is_null() {
                request = request.json(body);
            }
            let (status, answer) = app.send(request).await;
            assert_validation(status, &answer, field);
        }
    }
    for (method, path, _) in &routes[..2] {
        let request = app.request(method.clone(), &format!("{path}?param=a&param=b"), Some(&account.token));
        let (status, body) = app.send(request).await;
        assert_validation(status, &body, "param");
    }
    for list in ["/api/scraps", "/api/historys", "/api/developers/keys"] {
        let (status, body) = app.get(&format!("{list}?page=1&page=2"), &account.token).await;
        assert_validation(status, &body, "page");
        let (status, body) = app.get(&format!("{list}?perPage=5&perPage=5"), &account.token).await;
        assert_validation(status, &body, "perPage");
    }
    let (status, body) = app.get(&format!("/api/historys?scrap={id}&scrap={id}"), &account.token).await;
    assert_validation(status, &body, "scrap");
    // Nothing was queued by the refused triggers; `wait=0` and no wait are a plain trigger.
    let (_, rows) = app.get(&format!("/api/historys?scrap={id}"), &account.token).await;
    assert_eq!(rows["total"], 0, "{rows}");
    for query in ["", "?wait=0", "?wait=00"] {
        let request = app.request(Method::POST, &format!("/api/scraps/worker/{id}{query}"), Some(&account.token));
        let (status, body) = app.send(request).await;
        assert_eq!(status, StatusCode::ACCEPTED, "{query}: {body}");
    }
}

/// A path id that is not UTF-8 once percent-decoded is 422 JSON too (axum's
/// own refusal is a plain-text 400), and each id of a two-id path is named.
#[tokio::test]
async fn undecodable_and_second_path_ids_are_422_naming_them() {
    let (app, account, id) = setup().await;
    for (method, path) in [
        (Method::GET, "/api/scraps/%FF"),
        (Method::GET, "/api/historys/%C3%28"),
        (Method::DELETE, "/api/developers/keys/%FF%FE"),
    ] {
        let (status, body) = app.send(app.request(method, path, Some(&account.token))).await;
        assert_error(status, &body, StatusCode::UNPROCESSABLE_ENTITY, "VALIDATION");
    }
    let (status, body) = app.get(&format!("/api/scraps/{id}/versions/nope"), &account.token).await;
    assert_validation(status, &body, "version");
    let (status, body) = app.get(&format!("/api/scraps/nope/versions/{}", ObjectId::new()), &account.token).await;
    assert_validation(status, &body, "id");
    let hook = ObjectId::new();
    let request = app.request(
        Method::POST,
        &format!("/api/developers/webhooks/{hook}/deliveries/nope/redeliver"),
        Some(&account.token),
    );
    let (status, body) = app.send(request).await;
    assert_validation(status, &body, "deliveryId");
}
