//! The real `svc server` logging as JSON at debug level through a whole
//! session of work (sign-up, log-in, an API key, a webhook, a site login, a
//! run on the static engine, its webhook delivery, a metrics scrape): every
//! line is JSON (or one of the start-up lines), requests are logged with
//! their request id, and none of the secrets the test made appears anywhere
//! in what the server wrote.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Bytes;
use axum::response::Html;
use axum::routing::{get, post};
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::binary::{Server, run, sqlite_url, svc};

const DEADLINE: Duration = Duration::from_secs(60);

/// A local page of items and a webhook receiver that records the bodies.
async fn stand_ins() -> (String, Arc<Mutex<Vec<Bytes>>>) {
    let received = Arc::new(Mutex::new(Vec::new()));
    let kept = received.clone();
    let app = Router::new()
        .route("/items", get(|| async { Html("<ul><li class=item>One</li><li class=item>Two</li></ul>") }))
        .route(
            "/hook",
            post(move |body: Bytes| {
                let kept = kept.clone();
                async move {
                    kept.lock().unwrap().push(body);
                    StatusCode::OK
                }
            }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (base, received)
}

async fn send(request: reqwest::RequestBuilder) -> (StatusCode, Value, String) {
    let response = request.send().await.expect("the server answers");
    let status = response.status();
    let id = response.headers().get("x-request-id").map(|v| v.to_str().unwrap().to_string()).unwrap_or_default();
    let text = response.text().await.unwrap();
    (status, serde_json::from_str(&text).unwrap_or(Value::String(text)), id)
}

#[tokio::test]
async fn json_logs_at_debug_carry_request_ids_and_no_secret() {
    let dir = tempfile::tempdir().unwrap();
    let (stand_in, received) = stand_ins().await;
    let database = sqlite_url(dir.path());
    let password = "correct-horse-battery-staple-77";
    let site_password = "s1te-Pa55word-only-the-page-sees";
    let metrics_token = "metrics-token-for-the-log-test-0451";
    let mut command = svc(dir.path());
    command
        .env("SVC_LISTEN", "127.0.0.1:0")
        .env("SVC_DATABASE_URL", &database)
        .env("SVC_LOG_FORMAT", "json")
        .env("RUST_LOG", "debug")
        .env("SVC_ALLOW_PRIVATE_NETWORKS", "true")
        .env("SVC_METRICS_TOKEN", metrics_token);
    let mut server = Server::start(command);
    let http = reqwest::Client::new();
    let api = |path: &str| format!("{}{path}", server.base);

    let email = "ada@example.com";
    let (status, signed_up, signup_id) =
        send(http.post(api("/api/auth/signup")).json(&json!({"email": email, "password": password}))).await;
    assert_eq!(status, StatusCode::CREATED, "{signed_up}");
    let signup_jwt = signed_up["token"].as_str().unwrap().to_string();
    let (status, logged_in, _) =
        send(http.post(api("/api/auth/login")).json(&json!({"email": email, "password": password}))).await;
    assert_eq!(status, StatusCode::OK, "{logged_in}");
    let jwt = logged_in["token"].as_str().unwrap().to_string();
    let (status, _, _) =
        send(http.post(api("/api/auth/login")).json(&json!({"email": email, "password": "not-the-password-0"}))).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);

    // Webhooks need Growth: the operator's command, on the same database.
    let mut admin = svc(dir.path());
    admin.env("SVC_DATABASE_URL", &database).env("SVC_LOG_FORMAT", "json").env("RUST_LOG", "debug");
    admin.args(["admin", "set-plan", "--email", email, "--plan", "growth"]);
    let admin = run(admin);
    assert!(admin.status.success(), "{}", String::from_utf8_lossy(&admin.stderr));

    let (status, key, _) = send(
        http.post(api("/api/developers/keys"))
            .bearer_auth(&jwt)
            .json(&json!({"name": "ci", "scopes": ["svc:scraps:run", "svc:scraps:read", "svc:history:read"]})),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{key}");
    let api_key = key["plainKey"].as_str().unwrap().to_string();
    let (status, hook, _) = send(
        http.post(api("/api/developers/webhooks"))
            .bearer_auth(&jwt)
            .json(&json!({"url": format!("{stand_in}/hook"), "events": ["scrap.success"]})),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{hook}");
    let webhook_secret = hook["plainSecret"].as_str().unwrap().to_string();

    // A static scrap whose script reads its site login (and returns the
    // password, which svc masks before storing).
    let script = "returnData([...document.querySelectorAll('li.item')].map(li => li.textContent)\
                  .concat([SVC.account.username, 'pw ' + SVC.account.password]))";
    let (status, scrap, _) = send(http.post(api("/api/scraps")).bearer_auth(&jwt).json(&json!({
        "title": "Items", "url": format!("{stand_in}/items"), "scrapper": "static", "request": script
    })))
    .await;
    assert_eq!(status, StatusCode::CREATED, "{scrap}");
    let scrap = scrap["id"].as_str().unwrap().to_string();
    let (status, account, _) = send(
        http.put(api(&format!("/api/scraps/{scrap}/account")))
            .bearer_auth(&jwt)
            .json(&json!({"username": "ada-at-the-shop", "password": site_password})),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{account}");

    let (status, row, _) =
        send(http.post(api(&format!("/api/scraps/worker/{scrap}?wait=60"))).bearer_auth(&api_key)).await;
    assert_eq!((status, row["statusDetail"].as_str()), (StatusCode::OK, Some("success")), "{row}");
    assert!(!row["data"].as_str().unwrap().contains(site_password), "masked in the data: {row}");
    let deadline = Instant::now() + DEADLINE;
    while received.lock().unwrap().is_empty() {
        assert!(Instant::now() < deadline, "no webhook delivery within {DEADLINE:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let (status, metrics, _) = send(http.get(api("/metrics")).bearer_auth(metrics_token)).await;
    assert_eq!(status, StatusCode::OK, "{metrics}");
    // The delivery's attempt is recorded after the receiver answered: wait
    // for it, so that its logging is part of what is checked.
    let deadline = Instant::now() + DEADLINE;
    loop {
        let (_, deliveries, _) = send(
            http.get(api(&format!("/api/developers/webhooks/{}/deliveries", hook["id"].as_str().unwrap())))
                .bearer_auth(&jwt),
        )
        .await;
        if deliveries["data"][0]["state"] == "delivered" {
            break;
        }
        assert!(Instant::now() < deadline, "the delivery was not recorded: {deliveries}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    assert!(server.terminate().success());
    // The logs (stderr) of the server and of the operator's command, and
    // what they printed on stdout (the command's answer).
    let mut logs = std::mem::take(&mut server.early);
    logs.extend(server.stderr.try_iter());
    logs.extend(String::from_utf8_lossy(&admin.stderr).lines().map(str::to_string));
    let mut lines = logs.clone();
    lines.extend(server.stdout.try_iter());
    lines.extend(String::from_utf8_lossy(&admin.stdout).lines().map(str::to_string));
    let everything = lines.join("\n");

    let secrets = [
        ("the password", password),
        ("the JWT of the sign-up", signup_jwt.as_str()),
        ("the JWT of the log-in", jwt.as_str()),
        ("the API key", api_key.as_str()),
        ("the webhook secret", webhook_secret.as_str()),
        ("the site password", site_password),
        ("the metrics token", metrics_token),
    ];
    for (what, secret) in secrets {
        assert!(!everything.contains(secret), "{what} is in the logs:\n{}", lines_with(&lines, secret));
    }
    // What is not secret is there: the check above reads the right text.
    let account_path = format!("/api/scraps/{scrap}/account");
    assert!(everything.contains(&account_path) && everything.contains(&signup_id), "requests are logged");
    // Nor the part of a JWT that is not a header (their headers are all alike).
    for token in [&signup_jwt, &jwt] {
        let claims_and_signature = token.split_once('.').unwrap().1;
        assert!(!everything.contains(claims_and_signature), "a JWT in the logs");
    }

    // Every line is a JSON object, but for the start-up lines svc prints itself.
    let mut events = Vec::new();
    for line in &logs {
        if line.starts_with("svc: ") {
            continue;
        }
        let event: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
        assert!(event["timestamp"].is_string() && event["level"].is_string(), "{line}");
        events.push(event);
    }
    assert!(events.len() > 20, "debug logging logs: {} events", events.len());
    // Requests are logged inside their span, which carries the request id
    // the client got back.
    let of_signup: Vec<&Value> = events
        .iter()
        .filter(|e| e["spans"].as_array().is_some_and(|spans| spans.iter().any(|s| s["request_id"] == signup_id)))
        .collect();
    assert!(!signup_id.is_empty() && !of_signup.is_empty(), "no event of request {signup_id}");
    assert!(
        of_signup.iter().any(|e| e["message"] == "answered" && e["status"] == 201),
        "the sign-up's answer is logged with its id: {of_signup:?}"
    );
    let span = of_signup[0]["spans"].as_array().unwrap().iter().find(|s| s["name"] == "request").unwrap();
    assert_eq!((span["method"].as_str(), span["path"].as_str()), (Some("POST"), Some("/api/auth/signup")));
}

/// The lines holding `needle`, for a failure message (the needle masked).
fn lines_with(lines: &[String], needle: &str) -> String {
    lines.iter().filter(|l| l.contains(needle)).map(|l| l.replace(needle, "<SECRET>")).collect::<Vec<_>>().join("\n")
}
