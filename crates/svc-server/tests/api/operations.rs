//! What the operator relies on: `GET /metrics` (behind its token, or on
//! `SVC_METRICS_LISTEN`) with figures that move with the work, and the
//! limits every connection and request is held to (headers, body, time).

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{Value, json};
use svc_domain::plan::Plan;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::Instant;

use crate::common::receiver::Receiver;
use crate::common::{TestApp, assert_error, fixture};

const PRIVATE_OK: (&str, &str) = ("SVC_ALLOW_PRIVATE_NETWORKS", "true");
const TOKEN: &str = "metrics-token-0123456789abcdef";
const DEADLINE: Duration = Duration::from_secs(30);

/// The families `GET /metrics` exposes, with their types.
const FAMILIES: [(&str, &str); 12] = [
    ("svc_runs", "counter"),
    ("svc_run_duration_seconds", "histogram"),
    ("svc_run_queue_depth", "gauge"),
    ("svc_run_queue_oldest_age_seconds", "gauge"),
    ("svc_webhook_attempts", "counter"),
    ("svc_webhook_deliveries_pending", "gauge"),
    ("svc_email_attempts", "counter"),
    ("svc_emails_queued", "gauge"),
    ("svc_rate_limit_refusals", "counter"),
    ("svc_browser_restarts", "counter"),
    ("svc_db_pool_connections", "gauge"),
    ("svc_db_pool_max_connections", "gauge"),
];

/// The value of one sample (`name{labels}` exactly as written), 0 when absent.
fn sample(text: &str, series: &str) -> f64 {
    text.lines()
        .find_map(|line| line.strip_prefix(series).and_then(|rest| rest.strip_prefix(' ')))
        .map(|value| value.trim().parse().unwrap_or_else(|_| panic!("{series}: `{value}` is not a number")))
        .unwrap_or(0.0)
}

async fn scrape(url: &str, token: Option<&str>) -> (StatusCode, String, String) {
    let mut request = reqwest::Client::new().get(url);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.unwrap();
    let status = response.status();
    let content_type = response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default();
    (status, content_type, response.text().await.unwrap())
}

/// Scrapes until `done` holds (or panics at the deadline).
async fn scrape_until(url: &str, token: Option<&str>, what: &str, done: impl Fn(&str) -> bool) -> String {
    let deadline = Instant::now() + DEADLINE;
    loop {
        let (status, _, text) = scrape(url, token).await;
        assert_eq!(status, StatusCode::OK, "{text}");
        if done(&text) {
            return text;
        }
        assert!(Instant::now() < deadline, "{what} not seen within {DEADLINE:?}:\n{text}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn metrics_need_the_token_and_move_with_the_work() {
    let site = fixture::start().await;
    let receiver = Receiver::start(&[]).await;
    let app =
        TestApp::start_with(&[PRIVATE_OK, ("SVC_METRICS_TOKEN", TOKEN), ("SVC_TRUSTED_PROXIES", "127.0.0.1")]).await;
    let url = format!("{}/metrics", app.base);

    // Without the token, or with another one: 401 in the error shape.
    for token in [None, Some("metrics-token-0123456789abcdeX"), Some("")] {
        let response = scrape(&url, token).await;
        let body: Value = serde_json::from_str(&response.2).expect("a JSON error");
        assert_error(response.0, &body, StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
    }
    // A user's own credential is not the operator's token.
    let alice = app.signup("alice@example.com").await;
    let (status, _, _) = scrape(&url, Some(&alice.token)).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);

    let (status, content_type, before) = scrape(&url, Some(TOKEN)).await;
    assert_eq!(status, StatusCode::OK, "{before}");
    assert_eq!(content_type, svc_api::OPENMETRICS);
    for (family, kind) in FAMILIES {
        assert!(before.contains(&format!("# TYPE {family} {kind}\n")), "no {kind} {family} in:\n{before}");
    }
    assert!(before.ends_with("# EOF\n"), "a complete OpenMetrics exposition");
    assert!(sample(&before, "svc_db_pool_max_connections") >= 1.0, "{before}");

    // A run on the static engine, with a webhook delivery.
    app.store.set_plan(alice.org(), Plan::Growth).await.unwrap();
    let (status, hook) = app
        .post("/api/developers/webhooks", &alice.token, json!({"url": receiver.url, "events": ["scrap.success"]}))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{hook}");
    let scrap = app
        .scrap_with(
            &alice,
            json!({"title": "Items", "url": format!("{}/items/5", site.base), "scrapper": "static",
                   "request": "returnData([...document.querySelectorAll('li.item')].map(li => li.textContent))"}),
        )
        .await;
    let (status, row) = app.run_and_wait(&alice.token, &scrap).await;
    assert_eq!((status, row["statusDetail"].as_str()), (StatusCode::OK, Some("success")), "{row}");
    receiver.wait_for(1, DEADLINE).await;

    let runs = "svc_runs_total{engine=\"static\",status=\"success\"}";
    let durations = "svc_run_duration_seconds_count{engine=\"static\"}";
    let delivered = "svc_webhook_attempts_total{state=\"delivered\"}";
    let after = scrape_until(&url, Some(TOKEN), "the delivery counted", |text| {
        sample(text, delivered) == sample(&before, delivered) + 1.0
    })
    .await;
    assert_eq!(sample(&after, runs), sample(&before, runs) + 1.0, "{after}");
    assert_eq!(sample(&after, durations), sample(&before, durations) + 1.0, "{after}");
    assert_eq!(sample(&after, "svc_runs_total{engine=\"static\",status=\"error\"}"), 0.0);
    assert_eq!(sample(&after, "svc_run_queue_depth{state=\"queued\"}"), 0.0, "the run has left the queue");

    // Refusals of the MCP limit per client IP (60 a minute, before any
    // credential is checked) are counted under that limit's name.
    let refusals = "svc_rate_limit_refusals_total{limit=\"mcp:ip\"}";
    let mut sent = 0;
    loop {
        let answer = app
            .http
            .post(format!("{}/api/mcp", app.base))
            .header("x-forwarded-for", "203.0.113.77")
            .header("accept", "application/json, text/event-stream")
            .bearer_auth("svc_notakey0000000000000000000000000000000000")
            .json(&json!({"jsonrpc": "2.0", "id": sent, "method": "tools/list"}))
            .send()
            .await
            .unwrap();
        sent += 1;
        if answer.status() == StatusCode::OK {
            break;
        }
        assert!(sent <= 200, "never refused");
    }
    let (_, _, limited) = scrape(&url, Some(TOKEN)).await;
    assert_eq!(sample(&limited, refusals), sample(&before, refusals) + 1.0, "{limited}");
    assert!(!limited.contains("203.0.113.77"), "no client address as a label");
}

#[tokio::test]
async fn the_metrics_address_answers_without_a_token_and_shows_the_queue() {
    let app = TestApp::start_with(&[("SVC_METRICS_LISTEN", "127.0.0.1:0"), ("SVC_EMBEDDED_WORKER", "false")]).await;
    let metrics = format!("{}/metrics", app.metrics_base.as_deref().expect("SVC_METRICS_LISTEN bound"));
    let (status, content_type, text) = scrape(&metrics, None).await;
    assert_eq!((status, content_type.as_str()), (StatusCode::OK, svc_api::OPENMETRICS), "{text}");
    assert_eq!(sample(&text, "svc_run_queue_depth{state=\"queued\"}"), 0.0);
    // Nothing else is served there; and without SVC_METRICS_TOKEN the main
    // listener has no /metrics.
    let (status, _, _) = scrape(&format!("{}/api/scraps", app.metrics_base.as_deref().unwrap()), None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _, _) = scrape(&format!("{}/metrics", app.base), Some(TOKEN)).await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    // A run waits in the queue (no worker here): counted, and aging.
    let alice = app.signup("alice@example.com").await;
    let scrap = app.create_scrap(&alice, "Queued").await["id"].as_str().unwrap().to_string();
    let (status, _) =
        app.send(app.request(reqwest::Method::POST, &format!("/api/scraps/worker/{scrap}"), Some(&alice.token))).await;
    assert_eq!(status, StatusCode::ACCEPTED);
    let queued = scrape_until(&metrics, None, "the queued run aging", |text| {
        sample(text, "svc_run_queue_oldest_age_seconds") > 0.0
    })
    .await;
    assert_eq!(sample(&queued, "svc_run_queue_depth{state=\"queued\"}"), 1.0, "{queued}");
    assert_eq!(sample(&queued, "svc_run_queue_depth{state=\"running\"}"), 0.0, "{queued}");
}

/// Writes `head` on a new connection to `app`, then reads the answer to its end.
async fn raw_exchange(app: &TestApp, head: &[u8]) -> String {
    let mut stream = TcpStream::connect(app.base.trim_start_matches("http://")).await.unwrap();
    stream.write_all(head).await.unwrap();
    read_to_close(&mut stream).await
}

/// Reads until the server closes the connection (or panics at the deadline).
async fn read_to_close(stream: &mut TcpStream) -> String {
    let mut answer = Vec::new();
    match tokio::time::timeout(DEADLINE, stream.read_to_end(&mut answer)).await {
        Ok(Ok(_)) => {}
        // A reset after the answer (the server closed with unread input).
        Ok(Err(e)) if !answer.is_empty() => eprintln!("read ended with {e}"),
        Ok(Err(e)) => panic!("reading the answer: {e}"),
        Err(_) => panic!("the server kept the connection open past {DEADLINE:?}"),
    }
    String::from_utf8_lossy(&answer).into_owned()
}

fn body_of(answer: &str) -> Value {
    let (_, body) = answer.split_once("\r\n\r\n").unwrap_or_else(|| panic!("no head end in {answer}"));
    serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body}"))
}

#[tokio::test]
async fn a_client_that_trickles_its_headers_is_disconnected() {
    let app = TestApp::start_with(&[("SVC_HEADER_READ_TIMEOUT", "1s")]).await;
    let mut stream = TcpStream::connect(app.base.trim_start_matches("http://")).await.unwrap();
    stream.write_all(b"GET /healthz HTTP/1.1\r\nHost: svc\r\nX-Slow: ").await.unwrap();
    let (mut read, mut write) = stream.into_split();
    // One byte of a header that never ends, every 100 ms: the connection is
    // never idle, so only a deadline for the whole head can drop it.
    let trickle = async {
        loop {
            if write.write_all(b"a").await.is_err() {
                return "writing failed";
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    };
    let mut buffer = Vec::new();
    let ended = tokio::time::timeout(DEADLINE, async {
        tokio::select! {
            why = trickle => why,
            _ = read.read_to_end(&mut buffer) => "the server closed the connection",
        }
    })
    .await;
    let why = ended.unwrap_or_else(|_| panic!("a client trickling its headers was kept for {DEADLINE:?}"));
    assert!(buffer.is_empty() || String::from_utf8_lossy(&buffer).starts_with("HTTP/1.1 408"), "{why}: {buffer:?}");
    // The server itself is fine.
    let (status, body) = app.send(app.request(reqwest::Method::GET, "/healthz", None)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
}

#[tokio::test]
async fn a_body_that_does_not_arrive_is_408_and_a_long_poll_outlives_the_request_timeout() {
    let app = TestApp::start_with(&[
        ("SVC_RUN_TIMEOUT", "500ms"),
        ("SVC_REQUEST_TIMEOUT", "1s"),
        ("SVC_EMBEDDED_WORKER", "false"),
    ])
    .await;
    // 10 of the 100 bytes announced, then nothing.
    let answer = raw_exchange(
        &app,
        b"POST /api/auth/login HTTP/1.1\r\nHost: svc\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\
          x-request-id: slow-client-1\r\n\r\n{\"email\":",
    )
    .await;
    assert!(answer.starts_with("HTTP/1.1 408 "), "{answer}");
    assert!(answer.to_ascii_lowercase().contains("\r\nx-request-id: slow-client-1\r\n"), "{answer}");
    let body = body_of(&answer);
    assert_error(StatusCode::REQUEST_TIMEOUT, &body, StatusCode::REQUEST_TIMEOUT, "REQUEST_TIMEOUT");

    // `?wait=2` on a run that cannot finish (no worker): the request takes
    // longer than the 1 s timeout, and still answers as the route says.
    let alice = app.signup("alice@example.com").await;
    let scrap = app.create_scrap(&alice, "Never runs").await["id"].as_str().unwrap().to_string();
    let (_, key) = app.create_key(&alice, json!({"name": "k", "scopes": ["svc:scraps:run"]})).await;
    let (status, body) =
        app.send(app.request(reqwest::Method::POST, &format!("/api/scraps/worker/{scrap}?wait=2"), Some(&key))).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{body}");
    assert_eq!(body["status"], Value::Null, "{body}");
}

#[tokio::test]
async fn bodies_over_the_limit_are_413_whether_announced_or_streamed() {
    let app = TestApp::start().await;
    let alice = app.signup("alice@example.com").await;
    let limit = svc_api::MAX_BODY_BYTES;

    // Announced: refused from the head alone, on any route (this one reads no body).
    for path in ["/api/scraps", "/healthz", "/api/mcp"] {
        let head = format!(
            "POST {path} HTTP/1.1\r\nHost: svc\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            limit + 1
        );
        let answer = raw_exchange(&app, head.as_bytes()).await;
        assert!(answer.starts_with("HTTP/1.1 413 "), "{path}: {answer}");
        assert_error(
            StatusCode::PAYLOAD_TOO_LARGE,
            &body_of(&answer),
            StatusCode::PAYLOAD_TOO_LARGE,
            "PAYLOAD_TOO_LARGE",
        );
    }
    // The web app's pages say it as a page.
    let answer = raw_exchange(
        &app,
        format!("POST /login HTTP/1.1\r\nHost: svc\r\nContent-Length: {}\r\n\r\n", limit + 1).as_bytes(),
    )
    .await;
    assert!(answer.starts_with("HTTP/1.1 413 ") && answer.contains("text/html"), "{answer}");

    // Streamed without a length: read up to the limit, then refused.
    let chunk = "x".repeat(64 * 1024);
    let chunks = limit / chunk.len() + 2;
    let stream = futures::stream::iter(
        std::iter::once(Ok::<_, std::io::Error>(bytes::Bytes::from_static(b"{\"title\": \"")))
            .chain((0..chunks).map(move |_| Ok(bytes::Bytes::from(chunk.clone())))),
    );
    let (status, body) = app
        .send(
            app.request(reqwest::Method::POST, "/api/scraps", Some(&alice.token))
                .header("content-type", "application/json")
                .body(reqwest::Body::wrap_stream(stream)),
        )
        .await;
    assert_error(status, &body, StatusCode::PAYLOAD_TOO_LARGE, "PAYLOAD_TOO_LARGE");
    let (_, list) = app.get("/api/scraps", &alice.token).await;
    assert_eq!(list["total"], 0, "nothing was created");
}

#[tokio::test]
async fn oversized_or_too_many_headers_are_431() {
    let app = TestApp::start().await;
    let big = format!(
        "GET /healthz HTTP/1.1\r\nHost: svc\r\nX-Big: {}\r\n\r\n",
        "a".repeat(svc_server::serve::MAX_HEADER_BYTES)
    );
    let answer = raw_exchange(&app, big.as_bytes()).await;
    assert!(answer.starts_with("HTTP/1.1 431 "), "{}", &answer[..answer.len().min(200)]);

    let mut many = String::from("GET /healthz HTTP/1.1\r\nHost: svc\r\n");
    for i in 0..svc_server::serve::MAX_HEADERS {
        many.push_str(&format!("X-H{i}: v\r\n"));
    }
    many.push_str("\r\n");
    let answer = raw_exchange(&app, many.as_bytes()).await;
    assert!(answer.starts_with("HTTP/1.1 431 "), "{answer}");

    // Within the limits: served.
    let fine = format!("GET /healthz HTTP/1.1\r\nHost: svc\r\nX-Ok: {}\r\nConnection: close\r\n\r\n", "a".repeat(8000));
    let answer = raw_exchange(&app, fine.as_bytes()).await;
    assert!(answer.starts_with("HTTP/1.1 200 "), "{answer}");
}
