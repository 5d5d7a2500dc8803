//! The REST limits of interface.md: 60 triggers per 15 minutes per API key,
//! the per-organization quota of `GET /api/scraps/load/:id`, the 429 shape,
//! and limits shared by servers on one database.

use crate::common;

use common::{Account, TestApp, assert_error};
use reqwest::{Method, StatusCode};
use serde_json::json;

const NO_WORKER: (&str, &str) = ("SVC_EMBEDDED_WORKER", "false");

async fn trigger(app: &TestApp, key: &str, scrap: &str) -> (StatusCode, reqwest::header::HeaderMap, serde_json::Value) {
    let response = app.request(Method::POST, &format!("/api/scraps/worker/{scrap}"), Some(key)).send().await.unwrap();
    let status = response.status();
    let headers = response.headers().clone();
    (status, headers, response.json().await.unwrap_or_default())
}

async fn setup(app: &TestApp, email: &str) -> (Account, String, String) {
    let account = app.signup(email).await;
    let scrap = app.create_scrap(&account, "limited").await["id"].as_str().unwrap().to_string();
    let (_, key) =
        app.create_key(&account, json!({"name": "runner", "scopes": ["svc:scraps:run", "svc:scraps:read"]})).await;
    (account, scrap, key)
}

#[tokio::test]
async fn the_61st_trigger_within_15_minutes_is_refused_for_that_key_only() {
    let app = TestApp::start_with(&[NO_WORKER]).await;
    let (alice, scrap, key) = setup(&app, "alice@example.com").await;
    for i in 0..60 {
        let (status, _, body) = trigger(&app, &key, &scrap).await;
        assert_eq!(status, StatusCode::ACCEPTED, "trigger {i}: {body}");
    }
    let (status, headers, body) = trigger(&app, &key, &scrap).await;
    assert_error(status, &body, StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED");
    let retry: u64 = headers["retry-after"].to_str().unwrap().parse().unwrap();
    assert!(
        (800..=900).contains(&retry),
        "at most 60 in any 15 minutes: the next is possible when the first leaves the window: {retry}"
    );
    assert_eq!(headers["ratelimit-policy"], "60;w=900");
    assert!(
        headers["ratelimit"].to_str().unwrap().starts_with("limit=60, remaining=0, reset="),
        "{:?}",
        headers["ratelimit"]
    );

    // Another key of the same organization, and the web session, are not affected.
    let (_, other) = app.create_key(&alice, json!({"name": "second", "scopes": ["svc:scraps:run"]})).await;
    assert_eq!(trigger(&app, &other, &scrap).await.0, StatusCode::ACCEPTED);
    assert_eq!(trigger(&app, &alice.token, &scrap).await.0, StatusCode::ACCEPTED);
    // Reads are not throttled.
    for _ in 0..100 {
        assert_eq!(app.get(&format!("/api/scraps/{scrap}"), &key).await.0, StatusCode::OK);
    }
}

#[tokio::test]
async fn servers_on_one_database_share_the_trigger_limit() {
    let a = TestApp::start_with(&[NO_WORKER]).await;
    let b = a.another_on_same_db(&[NO_WORKER]).await;
    let (_, scrap, key) = setup(&a, "alice@example.com").await;
    for i in 0..60 {
        let app = if i % 2 == 0 { &a } else { &b };
        assert_eq!(trigger(app, &key, &scrap).await.0, StatusCode::ACCEPTED, "trigger {i}");
    }
    assert_eq!(trigger(&a, &key, &scrap).await.0, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(trigger(&b, &key, &scrap).await.0, StatusCode::TOO_MANY_REQUESTS);
}

#[tokio::test]
async fn load_is_gated_by_the_organization_quota() {
    let app = TestApp::start_with(&[NO_WORKER]).await;
    let (_, scrap, key) = setup(&app, "alice@example.com").await;
    let (_, bob_scrap, bob_key) = setup(&app, "bob@example.com").await;
    for i in 0..60 {
        let (status, body) = app.get(&format!("/api/scraps/load/{scrap}"), &key).await;
        assert_eq!(status, StatusCode::ACCEPTED, "load {i}: {body}");
    }
    let (status, body) = app.get(&format!("/api/scraps/load/{scrap}"), &key).await;
    assert_error(status, &body, StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED");
    assert_eq!(app.get(&format!("/api/scraps/load/{bob_scrap}"), &bob_key).await.0, StatusCode::ACCEPTED);
}

/// Posts a log-in as the client at `ip` (believed: the tests' loopback is a trusted proxy).
async fn login_from(app: &TestApp, ip: &str, email: &str, password: &str) -> (StatusCode, reqwest::header::HeaderMap) {
    let response = app
        .request(Method::POST, "/api/auth/login", None)
        .header("x-forwarded-for", ip)
        .json(&json!({"email": email, "password": password}))
        .send()
        .await
        .unwrap();
    (response.status(), response.headers().clone())
}

/// One address guessing accounts, each refused for a wrong password, until
/// the address itself is refused with at least two seconds to wait: what
/// follows then happens while the refusal still holds, however slow the
/// machine. The limit lets 60 through at once and one more every 15 s, so a
/// slow machine may get a few more than 60 in; never more than 100.
async fn exhaust_from(app: &TestApp, ip: &str) {
    let mut guesses = 0;
    for i in 0..100 {
        let (status, headers) = login_from(app, ip, &format!("guess{i}@example.com"), "wrong-password").await;
        match status {
            StatusCode::UNAUTHORIZED => guesses += 1,
            StatusCode::TOO_MANY_REQUESTS => {
                assert!(guesses >= 60, "refused after {guesses} guesses: the limit lets 60 through");
                let wait: u64 = headers["retry-after"].to_str().unwrap().parse().unwrap();
                if wait >= 2 {
                    return;
                }
            }
            other => panic!("attempt {i}: {other}"),
        }
    }
    panic!("not refused after 100 log-ins from one address ({guesses} guesses went through)");
}

#[tokio::test]
async fn log_ins_are_limited_per_client_ip_and_per_email() {
    let app = TestApp::start_with(&[NO_WORKER, ("SVC_TRUSTED_PROXIES", "127.0.0.1")]).await;
    app.signup("alice@example.com").await;
    // One address guessing many accounts: 60 attempts, then 429 whatever the email.
    exhaust_from(&app, "203.0.113.5").await;
    let (status, headers) = login_from(&app, "203.0.113.5", "alice@example.com", "password-123").await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "even the right password: the address is limited");
    assert!(headers["retry-after"].to_str().unwrap().parse::<u64>().unwrap() >= 1);
    // Another address is not limited by that.
    let (status, _) = login_from(&app, "203.0.113.6", "alice@example.com", "password-123").await;
    assert_eq!(status, StatusCode::OK);
    // One account guessed from many addresses: 20 attempts per email (the
    // log-in above was one), then each address that has not failed on it
    // gets one try, and no more.
    for i in 0..19 {
        let (status, _) = login_from(&app, &format!("198.51.100.{i}"), "alice@example.com", "wrong-password").await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "attempt {i}");
    }
    let (status, _) = login_from(&app, "198.51.100.3", "alice@example.com", "password-123").await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "an address that failed on the email is refused");
    let (status, _) = login_from(&app, "198.51.100.100", "alice@example.com", "wrong-password").await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "a new address gets its one guess");
    let (status, headers) = login_from(&app, "198.51.100.100", "alice@example.com", "password-123").await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "and no second one, right or wrong");
    assert!(headers["retry-after"].to_str().unwrap().parse::<u64>().unwrap() >= 1);
    // An IPv6 client is its /64: one guess for the whole network.
    let (status, _) = login_from(&app, "2001:db8:7:1::1", "alice@example.com", "wrong-password").await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, _) = login_from(&app, "2001:db8:7:1:ffff::2", "alice@example.com", "wrong-password").await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "another address of the same /64");
    // The owner, from an address that has not failed, gets in meanwhile, and again.
    for _ in 0..2 {
        let (status, _) = login_from(&app, "198.51.100.200", "alice@example.com", "password-123").await;
        assert_eq!(status, StatusCode::OK, "the right password from a clean address is not locked out");
    }
    // Someone else's email is not.
    app.signup("bob@example.com").await;
    let (status, _) = login_from(&app, "198.51.100.201", "bob@example.com", "password-123").await;
    assert_eq!(status, StatusCode::OK);
}

/// Per-address limits count an IPv6 client by its /64: the addresses of one
/// /64 share a bucket, the next /64 has its own.
#[tokio::test]
async fn ipv6_clients_are_limited_by_their_64() {
    let app = TestApp::start_with(&[NO_WORKER, ("SVC_TRUSTED_PROXIES", "127.0.0.1")]).await;
    app.signup("alice@example.com").await;
    exhaust_from(&app, "2001:db8:5:6::1").await;
    for same_64 in ["2001:db8:5:6::2", "2001:db8:5:6:ffff:ffff:ffff:fffe", "2001:db8:5:6:1234::abcd"] {
        let (status, _) = login_from(&app, same_64, "alice@example.com", "password-123").await;
        assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{same_64}");
    }
    let (status, _) = login_from(&app, "2001:db8:5:7::1", "alice@example.com", "password-123").await;
    assert_eq!(status, StatusCode::OK, "the next /64 is another client");
    // Sign-ups too.
    let signup = |ip: &'static str, n: usize| {
        app.request(Method::POST, "/api/auth/signup", None)
            .header("x-forwarded-for", ip)
            .json(&json!({"email": format!("v6user{n}@example.com"), "password": "password-123"}))
    };
    for n in 0..20 {
        let ip = if n % 2 == 0 { "2001:db8:9:9::1" } else { "2001:db8:9:9::2" };
        let (status, body) = app.send(signup(ip, n)).await;
        assert_eq!(status, StatusCode::CREATED, "sign-up {n}: {body}");
    }
    let (status, body) = app.send(signup("2001:db8:9:9::3", 20)).await;
    assert_error(status, &body, StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED");
}

/// The scheduler's hourly housekeeping removes the buckets that decide like
/// new ones at the time it is given, and keeps every limit that still holds.
#[tokio::test]
async fn pruning_rate_buckets_keeps_every_limit_that_still_holds() {
    let app = TestApp::start_with(&[NO_WORKER, ("SVC_TRUSTED_PROXIES", "127.0.0.1")]).await;
    app.signup("alice@example.com").await;
    exhaust_from(&app, "203.0.113.5").await;
    // Now: the address's bucket still refuses, and it is kept.
    app.services.scheduler.prune(chrono::Utc::now()).await.unwrap();
    let (status, _) = login_from(&app, "203.0.113.5", "alice@example.com", "password-123").await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "the limit holds after pruning");
    // An hour on, every bucket (the address's, the 60 emails', the sign-up's) decides like a new one.
    let later = chrono::Utc::now() + chrono::Duration::hours(1);
    let pruned = app.services.scheduler.prune(later).await.unwrap();
    assert!(pruned.rate_buckets >= 62, "{pruned:?}");
    assert_eq!(app.services.scheduler.prune(later).await.unwrap().rate_buckets, 0, "nothing left to remove");
    let (status, _) = login_from(&app, "203.0.113.5", "alice@example.com", "password-123").await;
    assert_eq!(status, StatusCode::OK, "the address's bucket was removed with the rest");
}

#[tokio::test]
async fn sign_ups_are_limited_per_client_ip_and_can_be_closed() {
    let app = TestApp::start_with(&[NO_WORKER, ("SVC_TRUSTED_PROXIES", "127.0.0.1")]).await;
    let signup = |ip: &'static str, n: usize| {
        app.request(Method::POST, "/api/auth/signup", None)
            .header("x-forwarded-for", ip)
            .json(&json!({"email": format!("user{n}@example.com"), "password": "password-123"}))
    };
    for n in 0..20 {
        let (status, body) = app.send(signup("203.0.113.7", n)).await;
        assert_eq!(status, StatusCode::CREATED, "sign-up {n}: {body}");
    }
    let (status, body) = app.send(signup("203.0.113.7", 20)).await;
    assert_error(status, &body, StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED");
    let (status, _) = app.send(signup("203.0.113.8", 21)).await;
    assert_eq!(status, StatusCode::CREATED, "another address may");

    let closed = TestApp::start_with(&[NO_WORKER, ("SVC_SIGNUP", "closed")]).await;
    let (status, body) = closed
        .send(
            closed
                .request(Method::POST, "/api/auth/signup", None)
                .json(&json!({"email": "x@example.com", "password": "password-123"})),
        )
        .await;
    assert_error(status, &body, StatusCode::FORBIDDEN, "FORBIDDEN");
    assert!(body["description"].as_str().unwrap().contains("closed"), "{body}");
    let bad = svc_server::Config::load(None, [("SVC_SIGNUP".to_string(), "sometimes".to_string())]);
    assert!(bad.unwrap_err().to_string().contains("SVC_SIGNUP"));
}
