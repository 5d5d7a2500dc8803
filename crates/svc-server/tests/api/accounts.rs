//! Accounts: signup, login, the current account, and session tokens.

use crate::common;

use chrono::{DateTime, Duration, Utc};
use common::{TestApp, assert_error};
use reqwest::{Method, StatusCode, header};
use serde_json::{Value, json};
use svc_domain::{SessionId, UserId};
use svc_service::accounts::jwt::JwtKeys;

const SECRET: &str = "a-test-secret-that-is-long-enough-0123456789";

fn is_object_id(v: &Value) -> bool {
    v.as_str().is_some_and(|s| s.len() == 24 && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)))
}

fn timestamp(v: &Value) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(v.as_str().unwrap_or_else(|| panic!("not a string: {v}")))
        .unwrap_or_else(|e| panic!("not an ISO 8601 timestamp: {v}: {e}"))
        .with_timezone(&Utc)
}

async fn signup_raw(app: &TestApp, body: Value) -> (StatusCode, Value) {
    app.send(app.request(Method::POST, "/api/auth/signup", None).json(&body)).await
}

async fn login_raw(app: &TestApp, body: Value) -> (StatusCode, Value) {
    app.send(app.request(Method::POST, "/api/auth/login", None).json(&body)).await
}

/// Asserts a 401 in the error shape and `WWW-Authenticate: Bearer`.
async fn assert_unauthorized(app: &TestApp, bearer: Option<&str>, path: &str) {
    let response = app.request(Method::GET, path, bearer).send().await.unwrap();
    let status = response.status();
    let challenge = response.headers().get(header::WWW_AUTHENTICATE).map(|v| v.to_str().unwrap().to_string());
    let body: Value = response.json().await.unwrap();
    assert_error(status, &body, StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
    assert_eq!(challenge.as_deref(), Some("Bearer"), "{body}");
}

#[tokio::test]
async fn signup_creates_a_user_and_a_free_organization_with_the_grant() {
    let app = TestApp::start().await;
    let before = Utc::now();
    let (status, body) =
        signup_raw(&app, json!({"email": "Ada@Example.com", "password": "correct horse", "name": "Ada"})).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");

    assert!(body["token"].as_str().is_some_and(|t| !t.is_empty() && !t.starts_with("svc_")), "{body}");
    let expires = timestamp(&body["expiresAt"]);
    assert!(expires > before + Duration::hours(23) && expires <= Utc::now() + Duration::hours(24), "{body}");

    let user = &body["user"];
    assert!(is_object_id(&user["id"]), "{body}");
    assert_eq!(user["email"], "ada@example.com", "emails are stored lowercase: {body}");
    assert_eq!(user["name"], "Ada");
    assert_eq!(user["isAdmin"], false);
    assert_eq!(user["organizationId"], body["organization"]["id"]);

    let org = &body["organization"];
    assert!(is_object_id(&org["id"]), "{body}");
    assert_eq!(org["plan"], "free");
    assert_eq!(org["balance"], 1000);
    assert_eq!(org["defaultContainers"], json!(["default"]));

    let text = body.to_string().to_lowercase();
    assert!(!text.contains("correct horse") && !text.contains("password") && !text.contains("argon"), "{body}");
}

#[tokio::test]
async fn signup_without_a_name_uses_the_local_part_of_the_email() {
    let app = TestApp::start().await;
    let (status, body) = signup_raw(&app, json!({"email": "grace@example.com", "password": "password-123"})).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(body["user"]["name"], "grace");
}

#[tokio::test]
async fn each_signup_gets_its_own_organization() {
    let app = TestApp::start().await;
    let a = app.signup("a@example.com").await;
    let b = app.signup("b@example.com").await;
    assert_ne!(a.org_id, b.org_id);
    assert_ne!(a.user_id, b.user_id);
}

#[tokio::test]
async fn a_taken_email_is_a_conflict_whatever_its_case() {
    let app = TestApp::start().await;
    app.signup("taken@example.com").await;
    for email in ["taken@example.com", "TAKEN@Example.COM", "  taken@example.com  "] {
        let (status, body) = signup_raw(&app, json!({"email": email, "password": "another-password"})).await;
        assert_error(status, &body, StatusCode::CONFLICT, "EMAIL_TAKEN");
    }
    // The first account is untouched: its password still logs in.
    let (status, body) = login_raw(&app, json!({"email": "taken@example.com", "password": "password-123"})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, body) = login_raw(&app, json!({"email": "taken@example.com", "password": "another-password"})).await;
    assert_error(status, &body, StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
}

#[tokio::test]
async fn passwords_need_at_least_eight_characters() {
    let app = TestApp::start().await;
    for short in ["", "1234567", "ééééééé"] {
        let (status, body) = signup_raw(&app, json!({"email": "short@example.com", "password": short})).await;
        assert_error(status, &body, StatusCode::UNPROCESSABLE_ENTITY, "VALIDATION");
        assert_eq!(body["field"], "password", "{body}");
    }
    // Nothing was created by the refused attempts; exactly eight is enough.
    let (status, body) = signup_raw(&app, json!({"email": "short@example.com", "password": "12345678"})).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
}

#[tokio::test]
async fn signup_refuses_what_is_not_an_email() {
    let app = TestApp::start().await;
    for email in ["", "no-at-sign", "@example.com", "a@", "a b@example.com", "a@b@c"] {
        let (status, body) = signup_raw(&app, json!({"email": email, "password": "password-123"})).await;
        assert_error(status, &body, StatusCode::UNPROCESSABLE_ENTITY, "VALIDATION");
        assert_eq!(body["field"], "email", "{email:?}: {body}");
    }
}

#[tokio::test]
async fn signup_without_a_required_field_is_a_validation_error() {
    let app = TestApp::start().await;
    let (status, body) = signup_raw(&app, json!({"email": "x@example.com"})).await;
    assert_error(status, &body, StatusCode::UNPROCESSABLE_ENTITY, "VALIDATION");
    assert!(body["description"].as_str().unwrap().contains("password"), "{body}");

    let (status, body) = signup_raw(&app, json!({"email": 42, "password": "password-123"})).await;
    assert_error(status, &body, StatusCode::UNPROCESSABLE_ENTITY, "VALIDATION");
    assert_eq!(body["field"], "email", "{body}");
}

#[tokio::test]
async fn login_returns_a_working_token() {
    let app = TestApp::start().await;
    let account = app.signup("login@example.com").await;
    let before = Utc::now();
    // The email matches case-insensitively and ignores surrounding blanks.
    let (status, body) = login_raw(&app, json!({"email": " LOGIN@example.com ", "password": "password-123"})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let token = body["token"].as_str().expect("token").to_string();
    let expires = timestamp(&body["expiresAt"]);
    assert!(expires > before + Duration::hours(23) && expires <= Utc::now() + Duration::hours(24), "{body}");

    let (status, me) = app.get("/api/auth/me", &token).await;
    assert_eq!(status, StatusCode::OK, "{me}");
    assert_eq!(me["user"]["id"], account.user_id.as_str());
    assert_eq!(me["organization"]["id"], account.org_id.as_str());
}

#[tokio::test]
async fn login_with_wrong_credentials_is_401_and_does_not_tell_which_part_was_wrong() {
    let app = TestApp::start().await;
    app.signup("known@example.com").await;

    let (status, wrong_password) =
        login_raw(&app, json!({"email": "known@example.com", "password": "password-124"})).await;
    assert_error(status, &wrong_password, StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
    assert!(wrong_password.get("token").is_none(), "{wrong_password}");

    let (status, unknown_email) =
        login_raw(&app, json!({"email": "unknown@example.com", "password": "password-123"})).await;
    assert_error(status, &unknown_email, StatusCode::UNAUTHORIZED, "UNAUTHORIZED");

    assert_eq!(wrong_password, unknown_email, "the two failures must be indistinguishable");

    let (status, body) = login_raw(&app, json!({"email": "known@example.com", "password": ""})).await;
    assert_error(status, &body, StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
}

#[tokio::test]
async fn me_returns_the_user_and_the_organization() {
    let app = TestApp::start().await;
    let account = app.signup("me@example.com").await;
    let (status, body) = app.get("/api/auth/me", &account.token).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["user"]["id"], account.user_id.as_str());
    assert_eq!(body["user"]["email"], "me@example.com");
    assert_eq!(body["user"]["isAdmin"], false);
    assert_eq!(body["user"]["organizationId"], account.org_id.as_str());
    assert_eq!(body["organization"]["id"], account.org_id.as_str());
    assert_eq!(body["organization"]["plan"], "free");
    assert_eq!(body["organization"]["balance"], 1000);
    assert_eq!(body["organization"]["defaultContainers"], json!(["default"]));
    timestamp(&body["user"]["createdAt"]);
    timestamp(&body["organization"]["createdAt"]);
}

#[tokio::test]
async fn me_shows_each_caller_their_own_account() {
    let app = TestApp::start().await;
    let a = app.signup("first@example.com").await;
    let b = app.signup("second@example.com").await;
    let (_, me_a) = app.get("/api/auth/me", &a.token).await;
    let (_, me_b) = app.get("/api/auth/me", &b.token).await;
    assert_eq!(me_a["user"]["email"], "first@example.com");
    assert_eq!(me_b["user"]["email"], "second@example.com");
    assert_eq!(me_b["organization"]["id"], b.org_id.as_str());
}

#[tokio::test]
async fn me_reflects_operator_changes() {
    let app = TestApp::start().await;
    let account = app.signup("changed@example.com").await;
    app.services.admin.set_plan("Changed@Example.com", svc_domain::plan::Plan::Growth).await.unwrap();
    app.services.admin.grant_admin("changed@example.com").await.unwrap();
    assert_eq!(app.services.admin.add_balance("changed@example.com", 50).await.unwrap(), 1050);
    let (status, body) = app.get("/api/auth/me", &account.token).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["organization"]["plan"], "growth");
    assert_eq!(body["organization"]["balance"], 1050);
    assert_eq!(body["user"]["isAdmin"], true);
}

#[tokio::test]
async fn me_needs_valid_credentials() {
    let app = TestApp::start().await;
    let account = app.signup("creds@example.com").await;

    assert_unauthorized(&app, None, "/api/auth/me").await;
    assert_unauthorized(&app, Some("garbage"), "/api/auth/me").await;
    assert_unauthorized(&app, Some("a.b.c"), "/api/auth/me").await;

    // A tampered token (signature changed) is refused.
    let mut tampered = account.token.clone();
    let last = tampered.pop().unwrap();
    tampered.push(if last == 'A' { 'B' } else { 'A' });
    assert_unauthorized(&app, Some(&tampered), "/api/auth/me").await;

    // Not a Bearer credential.
    let (status, body) = app
        .send(
            app.request(Method::GET, "/api/auth/me", None)
                .header(header::AUTHORIZATION, format!("Basic {}", account.token)),
        )
        .await;
    assert_error(status, &body, StatusCode::UNAUTHORIZED, "UNAUTHORIZED");

    // The scheme is case-insensitive (RFC 7235).
    let (status, body) = app
        .send(
            app.request(Method::GET, "/api/auth/me", None)
                .header(header::AUTHORIZATION, format!("bearer {}", account.token)),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
}

#[tokio::test]
async fn an_api_key_cannot_reach_me() {
    let app = TestApp::start().await;
    let account = app.signup("keyme@example.com").await;
    let (_, key) = app.create_key(&account, json!({"name": "ci"})).await;
    assert_unauthorized(&app, Some(&key), "/api/auth/me").await;
    // The same key is fine on a KEY route, so the 401 is about the route.
    let (status, body) = app.get("/api/scraps", &key).await;
    assert_eq!(status, StatusCode::OK, "{body}");
}

#[tokio::test]
async fn expired_and_foreign_session_tokens_are_refused() {
    let app = TestApp::start_with(&[("SVC_JWT_SECRET", SECRET)]).await;
    let account = app.signup("expiry@example.com").await;
    let user = UserId::parse(&account.user_id).unwrap();
    let org = account.org();

    // Signed with the server's secret for the account's own session: valid
    // while fresh, refused once expired.
    let keys = JwtKeys::new(SECRET.as_bytes());
    let sid = crate::sessions::session_id_of(&account.token);
    let (fresh, _) = keys.sign(user, org, sid, Utc::now());
    let (status, body) = app.get("/api/auth/me", &fresh).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (expired, _) = keys.sign(user, org, sid, Utc::now() - Duration::hours(25));
    assert_unauthorized(&app, Some(&expired), "/api/auth/me").await;

    // Signed with another secret.
    let (foreign, _) = JwtKeys::new(b"some-other-secret-that-is-long-enough-xyz").sign(user, org, sid, Utc::now());
    assert_unauthorized(&app, Some(&foreign), "/api/auth/me").await;

    // Well signed, but for a session never opened, a user that does not
    // exist, or naming another organization than the user's.
    let (unopened, _) = keys.sign(user, org, SessionId::new(), Utc::now());
    assert_unauthorized(&app, Some(&unopened), "/api/auth/me").await;
    let (ghost, _) = keys.sign(UserId::new(), org, sid, Utc::now());
    assert_unauthorized(&app, Some(&ghost), "/api/auth/me").await;
    let other = app.signup("expiry-other@example.com").await;
    let (mixed, _) = keys.sign(user, other.org(), sid, Utc::now());
    assert_unauthorized(&app, Some(&mixed), "/api/auth/me").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_signups_with_one_email_create_one_account() {
    let app = std::sync::Arc::new(TestApp::start().await);
    let mut tasks = Vec::new();
    for n in 0..6 {
        let app = app.clone();
        let email = if n % 2 == 0 { "race@example.com" } else { "RACE@example.com" };
        tasks.push(tokio::spawn(
            async move { signup_raw(&app, json!({"email": email, "password": "password-123"})).await },
        ));
    }
    let mut created = 0;
    for task in tasks {
        let (status, body) = task.await.unwrap();
        if status == StatusCode::CREATED {
            created += 1;
        } else {
            assert_error(status, &body, StatusCode::CONFLICT, "EMAIL_TAKEN");
        }
    }
    assert_eq!(created, 1);
}

#[tokio::test]
async fn signup_bounds_the_name() {
    let app = TestApp::start().await;
    let (status, body) =
        signup_raw(&app, json!({"email": "long@example.com", "password": "password-123", "name": "n".repeat(201)}))
            .await;
    assert_error(status, &body, StatusCode::UNPROCESSABLE_ENTITY, "VALIDATION");
    assert_eq!(body["field"], "name", "{body}");
    let (status, body) =
        signup_raw(&app, json!({"email": "long@example.com", "password": "password-123", "name": "  "})).await;
    assert_eq!(status, StatusCode::CREATED, "a blank name falls back to the email's local part: {body}");
    assert_eq!(body["user"]["name"], "long");
}

fn database_and_key(db: &svc_storage::testing::TestDb) -> Vec<(String, String)> {
    vec![("SVC_DATABASE_URL".to_string(), db.url.clone()), ("SVC_SECRET_KEY".to_string(), db.key().to_base64())]
}

#[tokio::test]
async fn session_tokens_survive_a_restart_on_the_same_database() {
    // SVC_JWT_SECRET unset: the secret generated at first start is kept in the
    // database, so tokens issued before a restart still verify after it.
    let db = common::fresh_db().await;
    let token = {
        let config = svc_server::Config::load(None, database_and_key(&db)).unwrap();
        let app = svc_server::App::build(config).await.unwrap();
        let created = app
            .services()
            .accounts
            .signup(
                svc_service::accounts::Signup {
                    email: "restart@example.com".into(),
                    password: "password-123".into(),
                    name: None,
                },
                std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST),
            )
            .await
            .unwrap();
        app.store().close().await;
        created.token.token
    };
    let config = svc_server::Config::load(None, database_and_key(&db)).unwrap();
    let app = svc_server::App::build(config).await.unwrap();
    let session = app.services().auth.session(&token).await.expect("token issued before the restart");
    assert!(!session.is_platform_admin());
}
