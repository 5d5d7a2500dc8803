//! Webhooks end to end: management rules, signed deliveries of real runs to
//! a local receiver, dispatch filters, the retry schedule (with shortened
//! delays), a restart between attempts, redelivery, and the address guard.

use crate::common;

use std::collections::HashMap;
use std::net::IpAddr;
use std::time::Duration;

use base64::Engine;
use common::receiver::{Hit, Receiver};
use common::{Account, TestApp, assert_error, fixture};
use reqwest::StatusCode;
use serde_json::{Value, json};
use svc_domain::plan::Plan;
use svc_server::webhook_client::{HttpWebhookClient, PublicOnlyResolver};
use svc_service::outbox::dispatcher::WebhookTransport;
use svc_service::outbox::webhook_signing::{verify_hex, verify_standard};

const PRIVATE_OK: (&str, &str) = ("SVC_ALLOW_PRIVATE_NETWORKS", "true");
const FAST_SWEEP: (&str, &str) = ("SVC_WEBHOOK_SWEEP_INTERVAL", "100ms");

async fn growth(app: &TestApp, email: &str) -> Account {
    let account = app.signup(email).await;
    app.store.set_plan(account.org(), Plan::Growth).await.unwrap();
    account
}

async fn create_webhook(app: &TestApp, account: &Account, body: Value) -> (String, String) {
    let (status, hook) = app.post("/api/developers/webhooks", &account.token, body).await;
    assert_eq!(status, StatusCode::CREATED, "{hook}");
    (hook["id"].as_str().unwrap().to_string(), hook["plainSecret"].as_str().unwrap().to_string())
}

/// A scrap on the fixture site whose result carries a secret-looking value.
async fn items_scrap(app: &TestApp, account: &Account, site: &fixture::Fixture) -> String {
    let script = "returnData([...document.querySelectorAll('li.item')].map(li => li.textContent).concat(['token svc_abcdefghijABCDEFGHIJ0123456789abcdefghij']))";
    app.scrap_with(account, json!({"title": "Items", "url": format!("{}/items/3", site.base), "request": script})).await
}

async fn attempts(app: &TestApp, account: &Account, hook: &str) -> Vec<Value> {
    let (status, page) =
        app.get(&format!("/api/developers/webhooks/{hook}/deliveries?perPage=100"), &account.token).await;
    assert_eq!(status, StatusCode::OK, "{page}");
    page["data"].as_array().unwrap().clone()
}

/// Polls the delivery log until `done` holds, with a deadline.
async fn log_until(app: &TestApp, account: &Account, hook: &str, done: impl Fn(&[Value]) -> bool) -> Vec<Value> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        let log = attempts(app, account, hook).await;
        if done(&log) {
            return log;
        }
        assert!(tokio::time::Instant::now() < deadline, "delivery log never got there: {log:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn verify(hit: &Hit, secret: &str) {
    assert!(verify_hex(secret, &hit.body, &hit.header("x-webhook-signature")), "hex signature");
    let ts: i64 = hit.header("webhook-timestamp").parse().unwrap();
    let now = chrono::Utc::now().timestamp();
    assert!(verify_standard(secret, &hit.header("webhook-id"), ts, &hit.body, &hit.header("webhook-signature"), now));
    assert!(!verify_hex("whsec_not-the-secret", &hit.body, &hit.header("x-webhook-signature")));
}

#[tokio::test]
async fn management_follows_the_plan_gate_validation_and_put_semantics() {
    let app = TestApp::start_with(&[PRIVATE_OK]).await;
    let free = app.signup("free@example.com").await;
    let body = json!({"url": "https://hooks.example.com/in", "events": ["scrap.success"]});
    let (status, err) = app.post("/api/developers/webhooks", &free.token, body.clone()).await;
    assert_error(status, &err, StatusCode::FORBIDDEN, "PLAN_REQUIRED");
    let (status, list) = app.get("/api/developers/webhooks", &free.token).await;
    assert_eq!((status, list["total"].clone()), (StatusCode::OK, json!(0)), "listing works on every plan");

    let alice = growth(&app, "alice@example.com").await;
    let s1 = app.create_scrap(&alice, "one").await["id"].as_str().unwrap().to_string();
    let s2 = app.create_scrap(&alice, "two").await["id"].as_str().unwrap().to_string();
    let (status, created) = app
        .post(
            "/api/developers/webhooks",
            &alice.token,
            json!({"url": "https://hooks.example.com/in", "events": ["scrap.success"], "scrapIds": [s1]}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let secret = created["plainSecret"].as_str().unwrap();
    let raw = base64::engine::general_purpose::STANDARD.decode(secret.strip_prefix("whsec_").unwrap()).unwrap();
    assert_eq!(raw.len(), 32);
    assert_eq!(created["active"], true);
    assert_eq!(created["scrapIds"], json!([s1]));
    let id = created["id"].as_str().unwrap().to_string();

    let (_, shown) = app.get(&format!("/api/developers/webhooks/{id}"), &alice.token).await;
    assert!(shown.get("plainSecret").is_none() && !shown.to_string().contains(secret), "the secret is shown once");
    let (_, list) = app.get("/api/developers/webhooks", &alice.token).await;
    assert!(!list.to_string().contains("whsec_"));

    // PUT: absent scrapIds keep the scope, present ones replace it, [] widens it.
    let (status, same) = app
        .put(
            &format!("/api/developers/webhooks/{id}"),
            &alice.token,
            json!({"events": ["scrap.success", "scrap.failure"]}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{same}");
    assert_eq!(same["scrapIds"], json!([s1]));
    assert_eq!(same["events"], json!(["scrap.success", "scrap.failure"]));
    let (_, replaced) =
        app.put(&format!("/api/developers/webhooks/{id}"), &alice.token, json!({"scrapIds": [s2]})).await;
    assert_eq!(replaced["scrapIds"], json!([s2]));
    let (_, wide) = app.put(&format!("/api/developers/webhooks/{id}"), &alice.token, json!({"scrapIds": []})).await;
    assert_eq!(wide["scrapIds"], json!([]));
    let (_, off) = app.put(&format!("/api/developers/webhooks/{id}"), &alice.token, json!({"active": false})).await;
    assert_eq!(off["active"], false);

    // Bad input: 422 naming the field; nothing stored changes.
    let bob = growth(&app, "bob@example.com").await;
    let bobs = app.create_scrap(&bob, "bob's").await["id"].as_str().unwrap().to_string();
    for (bad, field) in [
        (json!({"url": "ftp://hooks.example.com", "events": ["scrap.success"]}), "url"),
        (json!({"url": "not a url", "events": ["scrap.success"]}), "url"),
        (json!({"events": ["scrap.success"]}), "url"),
        (json!({"url": "https://hooks.example.com", "events": []}), "events"),
        (json!({"url": "https://hooks.example.com", "events": ["scrap.deleted"]}), "events"),
        (json!({"url": "https://hooks.example.com"}), "events"),
        (json!({"url": "https://hooks.example.com", "events": ["scrap.success"], "scrapIds": [bobs]}), "scrapIds"),
        (json!({"url": "https://hooks.example.com", "events": ["scrap.success"], "scrapIds": ["nope"]}), "scrapIds"),
        (json!({"url": "https://hooks.example.com", "events": ["scrap.success"], "secret": "mine"}), "secret"),
    ] {
        let (status, err) = app.post("/api/developers/webhooks", &alice.token, bad.clone()).await;
        assert_error(status, &err, StatusCode::UNPROCESSABLE_ENTITY, "VALIDATION");
        assert_eq!(err["field"], field, "{bad}");
    }
    let (status, err) = app.put(&format!("/api/developers/webhooks/{id}"), &alice.token, json!({"events": []})).await;
    assert_error(status, &err, StatusCode::UNPROCESSABLE_ENTITY, "VALIDATION");
    let (_, kept) = app.get(&format!("/api/developers/webhooks/{id}"), &alice.token).await;
    assert_eq!(kept["events"], json!(["scrap.success", "scrap.failure"]));

    // Another organization's webhook does not exist for anyone else.
    for (method, path) in [
        (reqwest::Method::GET, format!("/api/developers/webhooks/{id}")),
        (reqwest::Method::PUT, format!("/api/developers/webhooks/{id}")),
        (reqwest::Method::DELETE, format!("/api/developers/webhooks/{id}")),
        (reqwest::Method::GET, format!("/api/developers/webhooks/{id}/deliveries")),
    ] {
        let (status, err) = app.send(app.request(method, &path, Some(&bob.token)).json(&json!({}))).await;
        assert_error(status, &err, StatusCode::NOT_FOUND, "NOT_FOUND");
    }
    // API keys cannot manage webhooks.
    let (_, key) = app.create_key(&alice, json!({"name": "k"})).await;
    let (status, _) = app.get("/api/developers/webhooks", &key).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);

    // Back on Free: the webhook can be listed and read, not changed.
    app.store.set_plan(alice.org(), Plan::Free).await.unwrap();
    let (status, err) = app.put(&format!("/api/developers/webhooks/{id}"), &alice.token, json!({"active": true})).await;
    assert_error(status, &err, StatusCode::FORBIDDEN, "PLAN_REQUIRED");
    let (status, err) = app.delete(&format!("/api/developers/webhooks/{id}"), &alice.token).await;
    assert_error(status, &err, StatusCode::FORBIDDEN, "PLAN_REQUIRED");
    let (status, err) =
        app.post(&format!("/api/developers/webhooks/{id}/deliveries/{id}/redeliver"), &alice.token, json!({})).await;
    assert_error(status, &err, StatusCode::FORBIDDEN, "PLAN_REQUIRED");
    let (status, _) = app.get(&format!("/api/developers/webhooks/{id}/deliveries"), &alice.token).await;
    assert_eq!(status, StatusCode::OK);
    app.store.set_plan(alice.org(), Plan::Pro).await.unwrap();

    let (status, _) = app.delete(&format!("/api/developers/webhooks/{id}"), &alice.token).await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let (status, _) = app.get(&format!("/api/developers/webhooks/{id}"), &alice.token).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn a_receiver_that_does_not_answer_in_time_is_a_failed_attempt() {
    let site = fixture::start().await;
    let receiver = Receiver::start(&[0]).await;
    let app = TestApp::start_with(&[
        PRIVATE_OK,
        FAST_SWEEP,
        ("SVC_WEBHOOK_TIMEOUT", "1s"),
        ("SVC_WEBHOOK_RETRY_DELAYS", "1s,1s"),
    ])
    .await;
    let alice = growth(&app, "alice@example.com").await;
    let sid = items_scrap(&app, &alice, &site).await;
    let (hook, _) = create_webhook(&app, &alice, json!({"url": receiver.url, "events": ["scrap.success"]})).await;
    app.run_and_wait(&alice.token, &sid).await;
    let log = log_until(&app, &alice, &hook, |l| l.iter().any(|a| a["state"] == "delivered")).await;
    let first = log.iter().find(|a| a["attempt"] == 1).unwrap();
    assert_eq!(first["state"], "failed");
    assert_eq!(first["error"], "timed out");
    assert_eq!(first["responseStatus"], Value::Null);
    assert!(first["durationMs"].as_i64().unwrap() >= 1000);
    assert_eq!(receiver.hits().len(), 2, "the retry went through");
}

#[tokio::test]
async fn receiver_urls_must_be_public_https_unless_private_networks_are_allowed() {
    let app = TestApp::start().await;
    let alice = growth(&app, "alice@example.com").await;
    for url in [
        "http://93.184.216.34/in",
        "https://127.0.0.1/in",
        "https://10.1.2.3/in",
        "https://169.254.169.254/",
        "https://[::1]/in",
        "https://localhost/in",
    ] {
        let (status, err) =
            app.post("/api/developers/webhooks", &alice.token, json!({"url": url, "events": ["scrap.success"]})).await;
        assert_error(status, &err, StatusCode::UNPROCESSABLE_ENTITY, "VALIDATION");
        assert_eq!(err["field"], "url", "{url}");
    }
}

#[tokio::test]
async fn a_finished_run_is_delivered_signed_with_exactly_the_allow_listed_payload() {
    let site = fixture::start().await;
    let receiver = Receiver::start(&[]).await;
    let app = TestApp::start_with(&[PRIVATE_OK]).await;
    let alice = growth(&app, "alice@example.com").await;
    let sid = items_scrap(&app, &alice, &site).await;
    let (hook, secret) =
        create_webhook(&app, &alice, json!({"url": receiver.url, "events": ["scrap.success", "scrap.failure"]})).await;

    let (status, row) = app.run_and_wait(&alice.token, &sid).await;
    assert_eq!(status, StatusCode::OK, "{row}");
    let hits = receiver.wait_for(1, Duration::from_secs(30)).await;
    let hit = &hits[0];
    assert_eq!(hit.header("x-webhook-event"), "scrap.success");
    assert_eq!(hit.header("content-type"), "application/json");
    let agent = hit.header("user-agent");
    assert!(
        agent.starts_with("svc-webhooks/") && agent.ends_with(&format!("(+{})", app.base)),
        "the sender names its public URL (here derived from the bound address): {agent}"
    );
    verify(hit, &secret);
    let body = hit.json();
    let mut keys: Vec<&str> = body.as_object().unwrap().keys().map(String::as_str).collect();
    keys.sort();
    assert_eq!(
        keys,
        ["historyId", "resultPreview", "runtime", "scrapId", "status", "statusDetail", "timestamp", "triggeredBy"]
    );
    assert_eq!(body["historyId"], row["id"]);
    assert_eq!(body["scrapId"], sid.as_str());
    assert_eq!(body["status"], "success");
    assert_eq!(body["statusDetail"], "success");
    assert_eq!(body["triggeredBy"], "user");
    assert_eq!(body["runtime"], row["time"]);
    let preview = body["resultPreview"].as_str().unwrap();
    assert!(preview.starts_with("[\"Item 0\",\"Item 1\",\"Item 2\""), "{preview}");
    assert!(!preview.contains("svc_abcdefghij") && preview.contains("[REDACTED]"), "{preview}");
    let sent_at = chrono::DateTime::parse_from_rfc3339(body["timestamp"].as_str().unwrap()).unwrap();
    let finished = chrono::DateTime::parse_from_rfc3339(row["createdAt"].as_str().unwrap()).unwrap();
    assert!(sent_at >= finished);

    let log = log_until(&app, &alice, &hook, |l| !l.is_empty()).await;
    assert_eq!(log.len(), 1);
    assert_eq!(log[0]["attempt"], 1);
    assert_eq!(log[0]["state"], "delivered");
    assert_eq!(log[0]["responseStatus"], 200);
    assert_eq!(log[0]["event"], "scrap.success");
    assert_eq!(log[0]["historyId"], row["id"]);
    assert_eq!(log[0]["nextRetryAt"], Value::Null);

    // A failing run raises scrap.failure with the finer state.
    let broken = app
        .scrap_with(
            &alice,
            json!({"title": "404", "url": format!("{}/status/404", site.base), "request": "returnData([1])"}),
        )
        .await;
    app.run_and_wait(&alice.token, &broken).await;
    let hits = receiver.wait_for(2, Duration::from_secs(30)).await;
    assert_eq!(hits[1].header("x-webhook-event"), "scrap.failure");
    let failure = hits[1].json();
    assert_eq!((failure["status"].as_str(), failure["statusDetail"].as_str()), (Some("failure"), Some("error")));
    assert_eq!(failure["resultPreview"], Value::Null);
    assert!(!hits[1].body.windows(5).any(|w| w == b"stack"), "no stacks or messages in the payload");
}

#[tokio::test]
async fn only_subscribed_active_in_scope_webhooks_receive_an_event() {
    let site = fixture::start().await;
    let (catch_all, failures_only, other_scope, inactive) = (
        Receiver::start(&[]).await,
        Receiver::start(&[]).await,
        Receiver::start(&[]).await,
        Receiver::start(&[]).await,
    );
    let app = TestApp::start_with(&[PRIVATE_OK]).await;
    let alice = growth(&app, "alice@example.com").await;
    let sid = items_scrap(&app, &alice, &site).await;
    let other = app.create_scrap(&alice, "other").await["id"].as_str().unwrap().to_string();
    create_webhook(&app, &alice, json!({"url": catch_all.url, "events": ["scrap.success"], "scrapIds": [sid]})).await;
    create_webhook(&app, &alice, json!({"url": failures_only.url, "events": ["scrap.failure"]})).await;
    create_webhook(&app, &alice, json!({"url": other_scope.url, "events": ["scrap.success"], "scrapIds": [other]}))
        .await;
    let (off, _) = create_webhook(&app, &alice, json!({"url": inactive.url, "events": ["scrap.success"]})).await;
    app.put(&format!("/api/developers/webhooks/{off}"), &alice.token, json!({"active": false})).await;
    // Bob's webhook never hears of Alice's runs.
    let bob = growth(&app, "bob@example.com").await;
    let bobs = Receiver::start(&[]).await;
    create_webhook(&app, &bob, json!({"url": bobs.url, "events": ["scrap.success", "scrap.failure"]})).await;

    let (status, _) = app.run_and_wait(&alice.token, &sid).await;
    assert_eq!(status, StatusCode::OK);
    catch_all.wait_for(1, Duration::from_secs(30)).await;
    // The dispatcher sends every delivery of an event together; one more
    // run through the catch-all proves the others had their chance.
    app.run_and_wait(&alice.token, &sid).await;
    catch_all.wait_for(2, Duration::from_secs(30)).await;
    for (name, r) in
        [("failures only", &failures_only), ("other scope", &other_scope), ("inactive", &inactive), ("bob", &bobs)]
    {
        assert!(r.hits().is_empty(), "{name} got {:?}", r.hits().len());
    }
}

#[tokio::test]
async fn failed_attempts_are_retried_at_the_configured_delays_with_one_webhook_id() {
    let site = fixture::start().await;
    let receiver = Receiver::start(&[500, 500, 200]).await;
    let app = TestApp::start_with(&[PRIVATE_OK, FAST_SWEEP, ("SVC_WEBHOOK_RETRY_DELAYS", "1s,2s")]).await;
    let alice = growth(&app, "alice@example.com").await;
    let sid = items_scrap(&app, &alice, &site).await;
    let (hook, secret) = create_webhook(&app, &alice, json!({"url": receiver.url, "events": ["scrap.success"]})).await;
    app.run_and_wait(&alice.token, &sid).await;

    let hits = receiver.wait_for(3, Duration::from_secs(30)).await;
    let ids: Vec<String> = hits.iter().map(|h| h.header("webhook-id")).collect();
    assert!(ids.iter().all(|i| i == &ids[0] && !i.is_empty()), "{ids:?}");
    assert!(hits[1].at - hits[0].at >= Duration::from_secs(1), "{:?}", hits[1].at - hits[0].at);
    assert!(hits[2].at - hits[1].at >= Duration::from_secs(2), "{:?}", hits[2].at - hits[1].at);
    for h in &hits {
        verify(h, &secret);
    }
    let log = log_until(&app, &alice, &hook, |l| l.iter().any(|a| a["state"] == "delivered")).await;
    let states: Vec<(i64, &str)> =
        log.iter().map(|a| (a["attempt"].as_i64().unwrap(), a["state"].as_str().unwrap())).collect();
    assert_eq!(states, vec![(3, "delivered"), (2, "failed"), (1, "failed")]);
    assert_eq!(log[1]["responseStatus"], 500);
}

#[tokio::test]
async fn three_failures_make_three_attempts_and_a_failed_record_even_across_a_restart() {
    let site = fixture::start().await;
    let receiver = Receiver::start(&[500, 500, 500, 500, 500]).await;
    let settings = [PRIVATE_OK, FAST_SWEEP, ("SVC_WEBHOOK_RETRY_DELAYS", "1s,1s")];
    let first = TestApp::start_with(&settings).await;
    let alice = growth(&first, "alice@example.com").await;
    let sid = items_scrap(&first, &alice, &site).await;
    let (hook, _) = create_webhook(&first, &alice, json!({"url": receiver.url, "events": ["scrap.success"]})).await;
    first.run_and_wait(&alice.token, &sid).await;
    let log = log_until(&first, &alice, &hook, |l| l.len() == 1).await;
    assert_eq!(log[0]["state"], "pending_retry");
    assert!(log[0]["nextRetryAt"].is_string());

    // The server stops between attempt 1 and attempt 2; another one (same
    // database) takes over the pending retries.
    let second = first.another_on_same_db(&settings).await;
    let _db = first.stop();
    let log =
        log_until(&second, &alice, &hook, |l| l.iter().any(|a| a["state"] == "failed" && a["attempt"] == 3)).await;
    let states: Vec<(i64, &str)> =
        log.iter().map(|a| (a["attempt"].as_i64().unwrap(), a["state"].as_str().unwrap())).collect();
    assert_eq!(states, vec![(3, "failed"), (2, "failed"), (1, "failed")]);
    assert_eq!(log[0]["nextRetryAt"], Value::Null);
    assert_eq!(receiver.hits().len(), 3, "exactly three attempts");
    // Nothing is left to send: a sweep far in the future finds nothing.
    let due = second
        .store
        .claim_deliveries(
            chrono::Utc::now() + chrono::Duration::days(1),
            chrono::Utc::now() + chrono::Duration::days(2),
            10,
        )
        .await
        .unwrap();
    assert!(due.is_empty(), "no fourth attempt is scheduled");

    // Redelivery sends the event again as a new chain.
    let (status, again) = second
        .post(
            &format!("/api/developers/webhooks/{hook}/deliveries/{}/redeliver", log[0]["id"].as_str().unwrap()),
            &alice.token,
            json!({}),
        )
        .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{again}");
    let hits = receiver.wait_for(4, Duration::from_secs(30)).await;
    assert_ne!(hits[3].header("webhook-id"), hits[0].header("webhook-id"));
    assert_eq!(hits[3].json()["historyId"], hits[0].json()["historyId"]);
}

#[tokio::test]
async fn a_deactivated_webhook_skips_its_pending_retry() {
    let site = fixture::start().await;
    let receiver = Receiver::start(&[500]).await;
    let app = TestApp::start_with(&[PRIVATE_OK, FAST_SWEEP, ("SVC_WEBHOOK_RETRY_DELAYS", "1s,1s")]).await;
    let alice = growth(&app, "alice@example.com").await;
    let sid = items_scrap(&app, &alice, &site).await;
    let (hook, _) = create_webhook(&app, &alice, json!({"url": receiver.url, "events": ["scrap.success"]})).await;
    app.run_and_wait(&alice.token, &sid).await;
    log_until(&app, &alice, &hook, |l| l.len() == 1 && l[0]["state"] == "pending_retry").await;
    app.put(&format!("/api/developers/webhooks/{hook}"), &alice.token, json!({"active": false})).await;
    let log = log_until(&app, &alice, &hook, |l| l.iter().any(|a| a["state"] == "skipped")).await;
    assert_eq!(log.len(), 1);
    assert_eq!(log[0]["nextRetryAt"], Value::Null);
    assert_eq!(receiver.hits().len(), 1, "nothing sent after deactivation");
}

#[tokio::test]
async fn the_client_refuses_non_public_addresses_as_literals_and_behind_host_names() {
    let forms: [&str; 14] = [
        "127.0.0.1",
        "10.0.0.1",
        "172.16.5.4",
        "192.168.0.1",
        "169.254.169.254",
        "100.64.0.1",
        "0.0.0.0",
        "224.0.0.1",
        "::1",
        "fe80::1",
        "fd00::1",
        "ff02::1",
        "::ffff:127.0.0.1",
        "::ffff:169.254.169.254",
    ];
    let answers: HashMap<String, Vec<IpAddr>> =
        forms.iter().enumerate().map(|(i, ip)| (format!("host{i}.example.test"), vec![ip.parse().unwrap()])).collect();
    let client =
        HttpWebhookClient::with_resolver(Duration::from_secs(2), false.into(), PublicOnlyResolver::fixed(answers));
    for (i, ip) in forms.iter().enumerate() {
        let literal = if ip.contains(':') { format!("https://[{ip}]/hook") } else { format!("https://{ip}/hook") };
        let err = client.post(&literal, &[], b"{}".to_vec()).await.expect_err(&literal);
        assert!(err.contains("not a public address"), "{literal}: {err}");
        let named = format!("https://host{i}.example.test/hook");
        let err = client.post(&named, &[], b"{}".to_vec()).await.expect_err(&named);
        assert!(err.contains("non-public address"), "{named} ({ip}): {err}");
    }
    // Plain http is refused too (unless private networks are allowed).
    let err = client.post("http://93.184.216.34/hook", &[], vec![]).await.unwrap_err();
    assert!(err.contains("https"), "{err}");
    // With private networks allowed, a local receiver is reached; redirects are not followed.
    let receiver = Receiver::start(&[302]).await;
    let open = HttpWebhookClient::new(Duration::from_secs(2), true.into());
    let answer = open.post(&receiver.url, &[], b"{}".to_vec()).await.unwrap();
    assert_eq!(answer.status, 302, "a redirect is an answer, not followed");
}
