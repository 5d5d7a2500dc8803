//! Sessions that end (issue #37, part 3): log-out, a password change, the
//! list of sessions and signing out one or all of them; a token whose
//! session ended is refused at once by every server on the database.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use reqwest::{Method, StatusCode, header};
use serde_json::{Value, json};
use svc_domain::SessionId;

use crate::common::{TestApp, assert_error};

/// The `sid` claim of a session token.
pub fn session_id_of(token: &str) -> SessionId {
    let payload = token.split('.').nth(1).expect("a JWT has three parts");
    let claims: Value = serde_json::from_slice(&URL_SAFE_NO_PAD.decode(payload).unwrap()).unwrap();
    SessionId::parse(claims["sid"].as_str().expect("a sid claim")).unwrap()
}

async fn log_in(app: &TestApp, email: &str, password: &str, device: &str) -> String {
    let request = app
        .request(Method::POST, "/api/auth/login", None)
        .header(header::USER_AGENT, device)
        .json(&json!({"email": email, "password": password}));
    let (status, body) = app.send(request).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["token"].as_str().unwrap().to_string()
}

/// Whether `token` still opens the session routes and the KEY routes.
async fn assert_open(app: &TestApp, token: &str) {
    for path in ["/api/auth/me", "/api/scraps"] {
        let (status, body) = app.get(path, token).await;
        assert_eq!(status, StatusCode::OK, "{path}: {body}");
    }
}

async fn assert_ended(app: &TestApp, token: &str) {
    for path in ["/api/auth/me", "/api/scraps", "/api/auth/sessions"] {
        let (status, body) = app.get(path, token).await;
        assert_error(status, &body, StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
        assert!(body["description"].as_str().unwrap().contains("ended"), "{body}");
    }
}

#[tokio::test]
async fn logout_ends_that_session_only() {
    let app = TestApp::start().await;
    let ada = app.signup("ada@example.com").await;
    let laptop = log_in(&app, "ada@example.com", "password-123", "Laptop browser").await;
    assert_open(&app, &laptop).await;

    let (status, body) = app.post("/api/auth/logout", &laptop, json!(null)).await;
    assert_eq!(status, StatusCode::NO_CONTENT, "{body}");
    assert_ended(&app, &laptop).await;
    let (status, body) = app.post("/api/auth/logout", &laptop, json!(null)).await;
    assert_error(status, &body, StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
    assert_open(&app, &ada.token).await;

    // An API key cannot log out (it is no session), and keeps working.
    let (_, key) = app.create_key(&ada, json!({"name": "ci"})).await;
    let (status, body) = app.post("/api/auth/logout", &key, json!(null)).await;
    assert_error(status, &body, StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
    let (status, _) = app.get("/api/scraps", &key).await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test]
async fn a_password_change_ends_every_other_session() {
    let app = TestApp::start().await;
    let ada = app.signup("ada@example.com").await;
    let phone = log_in(&app, "ada@example.com", "password-123", "Phone").await;
    let bob = app.signup("bob@example.com").await;

    let (status, body) = app
        .put("/api/auth/password", &ada.token, json!({"currentPassword": "wrong-one", "newPassword": "new-password-1"}))
        .await;
    assert_error(status, &body, StatusCode::UNPROCESSABLE_ENTITY, "VALIDATION");
    assert_eq!(body["field"], "currentPassword", "{body}");
    let (status, body) = app
        .put("/api/auth/password", &ada.token, json!({"currentPassword": "password-123", "newPassword": "short"}))
        .await;
    assert_error(status, &body, StatusCode::UNPROCESSABLE_ENTITY, "VALIDATION");
    assert_eq!(body["field"], "newPassword", "{body}");
    let (status, body) = app.put("/api/auth/password", &ada.token, json!({"currentPassword": "password-123"})).await;
    assert_error(status, &body, StatusCode::UNPROCESSABLE_ENTITY, "VALIDATION");
    assert_open(&app, &phone).await;

    let (status, body) = app
        .put(
            "/api/auth/password",
            &ada.token,
            json!({"currentPassword": "password-123", "newPassword": "new-password-1"}),
        )
        .await;
    assert_eq!(status, StatusCode::NO_CONTENT, "{body}");
    assert_ended(&app, &phone).await;
    assert_open(&app, &ada.token).await;
    assert_open(&app, &bob.token).await;
    log_in(&app, "ada@example.com", "new-password-1", "Phone").await;
    let (status, _) = app
        .send(
            app.request(Method::POST, "/api/auth/login", None)
                .json(&json!({"email": "ada@example.com", "password": "password-123"})),
        )
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn sessions_are_listed_and_signed_out_one_or_all() {
    let app = TestApp::start().await;
    let ada = app.signup("ada@example.com").await;
    let phone = log_in(&app, "ada@example.com", "password-123", "Mozilla/5.0 (iPhone) Safari/604.1").await;
    let bob = app.signup("bob@example.com").await;

    let (status, list) = app.get("/api/auth/sessions", &ada.token).await;
    assert_eq!(status, StatusCode::OK, "{list}");
    assert_eq!((list["total"].as_i64(), list["page"].as_i64(), list["perPage"].as_i64()), (Some(2), Some(1), Some(20)));
    let sessions = list["data"].as_array().unwrap();
    let newest = &sessions[1 - sessions.iter().position(|s| s["current"] == true).unwrap()];
    assert_eq!(newest["id"], session_id_of(&phone).to_string(), "{list}");
    assert_eq!(newest["device"], "Mozilla/5.0 (iPhone) Safari/604.1");
    assert_eq!(newest["address"], "127.0.0.1");
    for field in ["createdAt", "lastSeenAt", "expiresAt"] {
        assert!(newest[field].as_str().is_some_and(|t| t.ends_with('Z')), "{field}: {newest}");
    }
    let (_, bobs) = app.get("/api/auth/sessions", &bob.token).await;
    assert_eq!(bobs["total"], 1, "only one's own: {bobs}");
    let (status, body) = app.get("/api/auth/sessions?perPage=0", &ada.token).await;
    assert_error(status, &body, StatusCode::UNPROCESSABLE_ENTITY, "VALIDATION");

    // Another user's session, an unknown one, a malformed id: not found.
    let bob_sid = session_id_of(&bob.token);
    let (status, body) = app.delete(&format!("/api/auth/sessions/{bob_sid}"), &ada.token).await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "NOT_FOUND");
    assert_open(&app, &bob.token).await;
    let (status, body) = app.delete(&format!("/api/auth/sessions/{}", SessionId::new()), &ada.token).await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "NOT_FOUND");
    let (status, body) = app.delete("/api/auth/sessions/not-an-id", &ada.token).await;
    assert!(status == StatusCode::NOT_FOUND || status == StatusCode::UNPROCESSABLE_ENTITY, "{status} {body}");
    assert_eq!(body["type"], "error");

    // One: the phone.
    let (status, body) = app.delete(&format!("/api/auth/sessions/{}", session_id_of(&phone)), &ada.token).await;
    assert_eq!(status, StatusCode::NO_CONTENT, "{body}");
    assert_ended(&app, &phone).await;
    let (_, list) = app.get("/api/auth/sessions", &ada.token).await;
    assert_eq!(list["total"], 1, "{list}");

    // All, this one included.
    let tablet = log_in(&app, "ada@example.com", "password-123", "Tablet").await;
    let (status, body) = app.delete("/api/auth/sessions", &ada.token).await;
    assert_eq!(status, StatusCode::NO_CONTENT, "{body}");
    assert_ended(&app, &ada.token).await;
    assert_ended(&app, &tablet).await;
    assert_open(&app, &bob.token).await;
}

/// Two servers on one database (PostgreSQL with `SVC_TEST_BACKEND=postgres`):
/// a session ended on one is refused by the other on the very next request.
#[tokio::test]
async fn an_ended_session_is_refused_at_once_on_every_server() {
    let one = TestApp::start().await;
    let two = one.another_on_same_db(&[]).await;
    let ada = one.signup("ada@example.com").await;
    let phone = log_in(&two, "ada@example.com", "password-123", "Phone").await;
    let tablet = log_in(&one, "ada@example.com", "password-123", "Tablet").await;
    for app in [&one, &two] {
        assert_open(app, &ada.token).await;
        assert_open(app, &phone).await;
    }

    // Logged out on server one: refused by server two.
    let (status, _) = one.post("/api/auth/logout", &phone, json!(null)).await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    assert_ended(&two, &phone).await;
    assert_ended(&one, &phone).await;

    // The password changed on server two: the tablet's session is refused by server one.
    assert_open(&one, &tablet).await;
    let body = json!({"currentPassword": "password-123", "newPassword": "new-password-1"});
    let (status, _) = two.put("/api/auth/password", &ada.token, body).await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    assert_ended(&one, &tablet).await;
    assert_open(&one, &ada.token).await;

    // Signed out everywhere through server one: server two refuses the last one.
    let (status, _) = one.delete("/api/auth/sessions", &ada.token).await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    assert_ended(&two, &ada.token).await;
}

/// A run trigger riding on the session cookie proves it comes from svc's
/// page on every method (issue #37, part 4): a link or an image elsewhere
/// cannot start runs with `GET /api/scraps/load/:id`.
#[tokio::test]
async fn run_triggers_through_the_cookie_need_the_csrf_token_on_every_method() {
    let app = TestApp::start_with(&[("SVC_EMBEDDED_WORKER", "false")]).await;
    let ada = app.signup("ada@example.com").await;
    let scrap = app.create_scrap(&ada, "Prices").await["id"].as_str().unwrap().to_string();
    let csrf = crate::web::csrf_token_of(&app, &ada.token).await;
    let cookie = crate::web::session_cookie(&ada.token);
    let load = format!("/api/scraps/load/{scrap}");
    let runs = || async {
        let (_, rows) = app.get(&format!("/api/historys?scrap={scrap}"), &ada.token).await;
        rows["total"].as_i64().unwrap()
    };

    // A cookie alone (what a cross-site link or image sends): refused, no run.
    let (status, body) = app.send(app.request(Method::GET, &load, None).header(header::COOKIE, &cookie)).await;
    assert_error(status, &body, StatusCode::FORBIDDEN, "FORBIDDEN");
    assert!(body["description"].as_str().unwrap().contains("CSRF"), "{body}");
    let foreign = app
        .request(Method::GET, &load, None)
        .header(header::COOKIE, &cookie)
        .header("x-csrf-token", &csrf)
        .header(header::ORIGIN, "https://evil.example");
    let (status, body) = app.send(foreign).await;
    assert_error(status, &body, StatusCode::FORBIDDEN, "FORBIDDEN");
    let (status, body) = app
        .send(app.request(Method::POST, &format!("/api/scraps/worker/{scrap}"), None).header(header::COOKIE, &cookie))
        .await;
    assert_error(status, &body, StatusCode::FORBIDDEN, "FORBIDDEN");
    assert_eq!(runs().await, 0);

    // The cookie with the token from svc's own page (as the web app's fetch sends it).
    let own = app
        .request(Method::GET, &load, None)
        .header(header::COOKIE, &cookie)
        .header("x-csrf-token", &csrf)
        .header(header::REFERER, format!("{}/scraps/{scrap}", app.base));
    let (status, body) = app.send(own).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{body}");
    // A bearer header is unchanged: no CSRF token needed.
    let (status, body) = app.get(&load, &ada.token).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{body}");
    assert_eq!(runs().await, 2);
    // Reads through the cookie alone stay open.
    let (status, body) =
        app.send(app.request(Method::GET, &format!("/api/scraps/{scrap}"), None).header(header::COOKIE, &cookie)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
}
