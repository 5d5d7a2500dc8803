//! Chat channels end to end, against a local server standing in for each
//! chat service (`common::chat_service`): recipient fields accept channel
//! URLs and `channel:NAME` (422 otherwise), saved channels are sealed,
//! redacted and scoped, each service gets its own message format, alerts
//! and cron results go through the outbox, a 4xx other than 429 fails at
//! once while a 429 is retried, private addresses are refused unless
//! allowed, and an SMTP relay refusing svc's credentials fails at once.

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::json;
use svc_domain::email::EmailState;
use svc_domain::{OrgId, ScrapId};

use crate::common::chat_service::ChatService;
use crate::common::smtp::{At, SmtpServer};
use crate::common::{TestApp, assert_error, fixture};

const PRIVATE_OK: (&str, &str) = ("SVC_ALLOW_PRIVATE_NETWORKS", "true");
const ITEMS: &str = "returnData([...document.querySelectorAll('li.item')].map(li => ({name: li.textContent, i: Number(li.dataset.i)})))";
const WITHIN: Duration = Duration::from_secs(60);

/// An app whose hostless services (Slack, Discord, Telegram, Teams) are `chat`.
async fn app_towards(chat: &ChatService, extra: &[(&str, &str)]) -> TestApp {
    let urls = format!("slack={0},discord={0},telegram={0},teams={0}", chat.base);
    let mut settings = vec![PRIVATE_OK, ("SVC_CHANNEL_API_URLS", urls.as_str())];
    settings.extend_from_slice(extra);
    TestApp::start_with(&settings).await
}

#[tokio::test]
async fn recipient_fields_take_channel_urls_and_refuse_unknown_or_malformed_ones() {
    let app = TestApp::start().await;
    let alice = app.signup("alice@example.com").await;
    let base = json!({"title": "T", "url": "https://example.com/", "request": "returnData([1])"});
    let with = |field: &str, value: &str| {
        let mut b = base.clone();
        b[field] = json!(value);
        b
    };
    for bad in ["foo://x", "slack://only/two", "tgram://nottoken/1", "ops", "channel:Not A Name"] {
        let (status, err) = app.post("/api/scraps", &alice.token, with("alert", bad)).await;
        assert_error(status, &err, StatusCode::UNPROCESSABLE_ENTITY, "VALIDATION");
        assert!(err["description"].as_str().unwrap().contains("alert"), "{bad}: {err}");
    }
    let (status, err) = app.post("/api/scraps", &alice.token, with("alert", "channel:ops")).await;
    assert_error(status, &err, StatusCode::UNPROCESSABLE_ENTITY, "VALIDATION");
    assert!(err["description"].as_str().unwrap().contains("no channel named `ops`"), "{err}");
    for good in ["slack://T1/B2/xyz", "discord://1/tok", "tgram://123:abc/42", "ntfy://alerts", "ops@example.com"] {
        let (status, scrap) = app.post("/api/scraps", &alice.token, with("alert", good)).await;
        assert_eq!(status, StatusCode::CREATED, "{good}: {scrap}");
    }
    let (status, scrap) = app.post("/api/scraps", &alice.token, with("digestRecipient", "jsons://h.example/x")).await;
    assert_eq!(status, StatusCode::CREATED, "{scrap}");
    let id = scrap["id"].as_str().unwrap();
    let (status, err) =
        app.put(&format!("/api/scraps/{id}"), &alice.token, json!({"emailNotifRecipient": "mmost://h"})).await;
    assert_error(status, &err, StatusCode::UNPROCESSABLE_ENTITY, "VALIDATION");
}

#[tokio::test]
async fn saved_channels_are_redacted_scoped_session_only_and_testable() {
    let chat = ChatService::start().await;
    let app = app_towards(&chat, &[]).await;
    let alice = app.signup("alice@example.com").await;
    let bob = app.signup("bob@example.com").await;
    let url = format!("json://{}/hooks/in", chat.authority);
    let (status, saved) = app.post("/api/developers/channels", &alice.token, json!({"name": "ops", "url": url})).await;
    assert_eq!(status, StatusCode::CREATED, "{saved}");
    assert_eq!((saved["reference"].as_str(), saved["service"].as_str()), (Some("channel:ops"), Some("json")));
    let (_, slack) = app
        .post(
            "/api/developers/channels",
            &alice.token,
            json!({"name": "team", "url": "slack://T0AAAA/B0BBBB/SeCrEtToKeNxyz1"}),
        )
        .await;
    assert!(
        !slack.to_string().contains("SeCrEtToKeN") && slack["redactedUrl"].as_str().unwrap().ends_with("xyz1"),
        "{slack}"
    );
    let (status, err) = app.post("/api/developers/channels", &alice.token, json!({"name": "ops", "url": url})).await;
    assert_error(status, &err, StatusCode::CONFLICT, "CHANNEL_EXISTS");
    let (status, err) =
        app.post("/api/developers/channels", &alice.token, json!({"name": "x", "url": "irc://nope"})).await;
    assert_error(status, &err, StatusCode::UNPROCESSABLE_ENTITY, "VALIDATION");
    let (_, list) = app.get("/api/developers/channels", &alice.token).await;
    assert_eq!(list["total"], 2);
    assert!(!list.to_string().contains("SeCrEtToKeN"), "{list}");

    // Another organization sees none of them; an API key is refused.
    let (_, theirs) = app.get("/api/developers/channels", &bob.token).await;
    assert_eq!(theirs["total"], 0);
    let ops = saved["id"].as_str().unwrap();
    let (status, err) = app.delete(&format!("/api/developers/channels/{ops}"), &bob.token).await;
    assert_error(status, &err, StatusCode::NOT_FOUND, "NOT_FOUND");
    let (status, _) = app.post(&format!("/api/developers/channels/{ops}/test"), &bob.token, json!({})).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (_, key) = app.create_key(&alice, json!({"name": "k", "scopes": ["svc:scraps:read"]})).await;
    let (status, _) = app.get("/api/developers/channels", &key).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);

    // The test message: Apprise's JSON body, sent now.
    let (status, outcome) = app.post(&format!("/api/developers/channels/{ops}/test"), &alice.token, json!({})).await;
    assert_eq!((status, outcome["delivered"].as_bool()), (StatusCode::OK, Some(true)), "{outcome}");
    let got = chat.wait_for(1, WITHIN).await;
    assert_eq!(got[0].path, "/hooks/in");
    let body = got[0].json();
    assert_eq!(body["version"], "1.0");
    assert_eq!(body["type"], "info");
    assert!(body["title"].as_str().unwrap().contains("channel:ops"), "{body}");
    assert!(body["message"].is_string() && body["attachments"].is_array(), "{body}");

    // A refusal is said, not retried.
    chat.answer(&[(404, "no_service")]);
    let (_, outcome) = app.post(&format!("/api/developers/channels/{ops}/test"), &alice.token, json!({})).await;
    assert_eq!(outcome["delivered"], false);
    assert!(outcome["error"].as_str().unwrap().contains("404"), "{outcome}");
    assert_eq!(chat.requests().len(), 2, "one request, no retry");

    let (status, _) = app.delete(&format!("/api/developers/channels/{ops}"), &alice.token).await;
    assert_eq!(status, StatusCode::NO_CONTENT);
}

/// Saves `url` as `name` and sends a test message; the request it caused.
async fn test_message(
    app: &TestApp,
    token: &str,
    chat: &ChatService,
    name: &str,
    url: &str,
) -> crate::common::chat_service::Request {
    let before = chat.requests().len();
    let (status, saved) = app.post("/api/developers/channels", token, json!({"name": name, "url": url})).await;
    assert_eq!(status, StatusCode::CREATED, "{url}: {saved}");
    let id = saved["id"].as_str().unwrap();
    let (_, outcome) = app.post(&format!("/api/developers/channels/{id}/test"), token, json!({})).await;
    assert_eq!(outcome["delivered"], true, "{url}: {outcome}");
    chat.wait_for(before + 1, WITHIN).await.remove(before)
}

#[tokio::test]
async fn each_service_gets_its_own_message_format() {
    let chat = ChatService::start().await;
    let app = app_towards(&chat, &[]).await;
    let alice = app.signup("alice@example.com").await;
    let t = &alice.token;
    let a = &chat.authority;

    let slack = test_message(&app, t, &chat, "slack", "slack://svc@T1AAA/B2BBB/tokentoken/#ops").await;
    assert_eq!(slack.path, "/services/T1AAA/B2BBB/tokentoken");
    let b = slack.json();
    assert_eq!(b["blocks"][0]["type"], "header");
    assert_eq!(b["blocks"][1]["text"]["type"], "mrkdwn");
    assert_eq!(b["blocks"][2]["elements"][0]["type"], "button");
    assert_eq!((b["channel"].as_str(), b["username"].as_str()), (Some("#ops"), Some("svc")));
    assert!(b["text"].is_string(), "the fallback text: {b}");

    let discord = test_message(&app, t, &chat, "discord", "discord://112233/tok-en_X").await;
    assert_eq!(discord.path, "/api/webhooks/112233/tok-en_X");
    let b = discord.json();
    assert!(b["embeds"][0]["title"].is_string() && b["embeds"][0]["description"].is_string(), "{b}");
    assert!(b["embeds"][0]["color"].is_u64() && b["embeds"][0]["url"].is_string(), "{b}");
    assert_eq!(b["allowed_mentions"]["parse"], json!([]), "no @everyone from a scraped text");

    let teams = test_message(&app, t, &chat, "teams", "workflows://prod-1.westus.logic.azure.com/wf123/sig456").await;
    assert!(teams.path.starts_with("/workflows/wf123/triggers/manual/paths/invoke?"), "{}", teams.path);
    assert!(teams.path.contains("sig=sig456") && teams.path.contains("api-version="), "{}", teams.path);
    let b = teams.json();
    assert_eq!(b["type"], "message");
    assert_eq!(b["attachments"][0]["contentType"], "application/vnd.microsoft.card.adaptive");
    let card = &b["attachments"][0]["content"];
    assert_eq!((card["type"].as_str(), card["version"].as_str()), (Some("AdaptiveCard"), Some("1.4")));
    assert_eq!(card["body"][0]["type"], "TextBlock");
    assert_eq!(card["actions"][0]["type"], "Action.OpenUrl");

    let telegram = test_message(&app, t, &chat, "telegram", "tgram://123456:AAbb-cc_dd/-100200300").await;
    assert_eq!(telegram.path, "/bot123456:AAbb-cc_dd/sendMessage");
    let b = telegram.json();
    assert_eq!((b["chat_id"].as_str(), b["parse_mode"].as_str()), (Some("-100200300"), Some("HTML")));
    assert!(b["text"].as_str().unwrap().starts_with("<b>svc: test message"), "{b}");

    let ntfy = test_message(&app, t, &chat, "ntfy", &format!("ntfy://user:pw@{a}/alerts")).await;
    assert_eq!(ntfy.path, "/alerts");
    assert!(ntfy.header("title").contains("test message"), "{:?}", ntfy.headers);
    assert_eq!(ntfy.header("tags"), "information_source");
    assert!(ntfy.header("click").ends_with("/settings/channels"));
    assert!(ntfy.header("authorization").starts_with("Basic "));
    assert!(ntfy.text().contains("Nothing is wrong"), "a plain-text body: {}", ntfy.text());

    let mm = test_message(&app, t, &chat, "mattermost", &format!("mmost://bot@{a}/chat/abc123tok")).await;
    assert_eq!(mm.path, "/chat/hooks/abc123tok");
    let b = mm.json();
    assert!(b["text"].as_str().unwrap().starts_with("#### svc: test message"), "{b}");
    assert_eq!(b["username"], "bot");
}

/// The organization and id of a scrap, for reading its outbox rows.
fn ids(account: &crate::common::Account, scrap: &str) -> (OrgId, ScrapId) {
    (account.org(), ScrapId::parse(scrap).unwrap())
}

async fn rows_settled(app: &TestApp, org: OrgId, scrap: ScrapId, n: usize) -> Vec<svc_domain::email::EmailRecord> {
    let deadline = tokio::time::Instant::now() + WITHIN;
    loop {
        let rows = app.store.scrap_emails(org, scrap, 20).await.unwrap();
        if rows.len() >= n && rows.iter().all(|r| r.state != EmailState::Queued || r.attempts > 0) {
            return rows;
        }
        assert!(tokio::time::Instant::now() < deadline, "fewer than {n} settled rows: {rows:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn alerts_and_cron_results_reach_a_channel_through_the_outbox_without_smtp() {
    let chat = ChatService::start().await;
    let site = fixture::start().await;
    let app = app_towards(&chat, &[("SVC_SCHEDULER", "false")]).await;
    let alice = app.signup("alice@example.com").await;
    let (status, _) =
        app.post("/api/developers/channels", &alice.token, json!({"name": "ops", "url": "slack://T1/B2/tok3"})).await;
    assert_eq!(status, StatusCode::CREATED);
    let body = json!({"title": "Shop items", "url": format!("{}/items/3", site.base), "request": ITEMS,
                      "scrapper": "static", "cron": "* * * * *", "emailNotif": true,
                      "emailNotifRecipient": format!("json://{}/results", chat.authority),
                      "alert": "channel:ops"});
    let sid = app.scrap_with(&alice, body).await;
    let (status, _) = app.run_and_wait(&alice.token, &sid).await;
    assert_eq!(status, StatusCode::OK);
    // A failure after a success: one alert, to the saved Slack channel.
    let (status, _) =
        app.put(&format!("/api/scraps/{sid}"), &alice.token, json!({"request": "throw new Error('no .price')"})).await;
    assert_eq!(status, StatusCode::OK);
    app.run_and_wait(&alice.token, &sid).await;
    let got = chat.wait_for(1, WITHIN).await;
    assert_eq!(got[0].path, "/services/T1/B2/tok3");
    let b = got[0].json();
    assert!(b["blocks"][0]["text"]["text"].as_str().unwrap().contains("Shop items is failing"), "{b}");
    assert!(b["blocks"][1]["text"]["text"].as_str().unwrap().contains("no .price"), "{b}");
    assert!(b["blocks"][2]["elements"][0]["url"].as_str().unwrap().contains(&format!("/scraps/{sid}/history/")), "{b}");

    // A cron run that succeeds: the recovery to Slack, the result to the JSON receiver.
    let (status, _) = app.put(&format!("/api/scraps/{sid}"), &alice.token, json!({"request": ITEMS})).await;
    assert_eq!(status, StatusCode::OK);
    app.services.scheduler.tick(chrono::Utc::now() + chrono::Duration::seconds(61)).await.unwrap();
    let got = chat.wait_for(3, WITHIN).await;
    let result = got.iter().find(|r| r.path == "/results").expect("the result").json();
    assert_eq!(result["title"], "Shop items: 3 items");
    let message = result["message"].as_str().unwrap();
    assert!(
        message.contains("3 items (success)") && message.contains("Nothing changed since the last success"),
        "{message}"
    );
    assert!(message.contains(&format!("/scraps/{sid}/history/")), "the run's link: {message}");
    let recovered = got
        .iter()
        .find(|r| r.path.starts_with("/services/") && r.json()["text"].as_str().unwrap().contains("recovered"));
    assert!(recovered.is_some(), "{got:?}");

    // The scrap's log says where each went, the channel URL redacted.
    let sent = app.activities_of(&alice, &sid, "channel.sent", 3).await;
    assert!(sent.iter().any(|a| a["message"].as_str().unwrap().contains("channel:ops")), "{sent:?}");
}

#[tokio::test]
async fn a_refusing_service_fails_at_once_a_rate_limit_is_retried_and_unknown_channels_fail() {
    let chat = ChatService::start().await;
    let app = app_towards(&chat, &[]).await;
    let alice = app.signup("alice@example.com").await;
    let json_url = format!("json://{}/in", chat.authority);
    let scrap = app
        .scrap_with(
            &alice,
            json!({"title": "T", "url": "https://example.com/", "request": "returnData([1])", "alert": json_url}),
        )
        .await;
    let (org, sid) = ids(&alice, &scrap);
    // Outbox rows as a finished run queues them (the alert path is tested above).
    let row = app.insert_run(&alice, &scrap, Some(svc_domain::history::StatusDetail::Error)).await;
    let queue = |to: &str, subject: &str| svc_domain::email::Email {
        id: svc_domain::ObjectId::new(),
        organization_id: org,
        kind: svc_domain::email::EmailKind::Alert,
        to: to.to_string(),
        subject: subject.to_string(),
        text: format!("The run failed.\nRun: {}/r", app.base),
        html: None,
        attachment: None,
        unsubscribe_url: None,
        scrap_id: Some(sid),
        history_id: Some(row.id),
        created_at: chrono::Utc::now(),
    };
    chat.answer(&[(400, "invalid_payload")]);
    app.store.queue_emails(&[queue(&json_url, "refused")], chrono::Utc::now()).await.unwrap();
    app.services.runs.signals.emails.notify_one();
    let rows = rows_settled(&app, org, sid, 1).await;
    assert_eq!((rows[0].state, rows[0].attempts), (EmailState::Failed, 1), "{rows:?}");
    assert!(rows[0].last_error.as_deref().unwrap().contains("400"), "{rows:?}");

    chat.answer(&[(429, "slow down")]);
    app.store.queue_emails(&[queue(&json_url, "limited")], chrono::Utc::now()).await.unwrap();
    app.services.runs.signals.emails.notify_one();
    let rows = rows_settled(&app, org, sid, 2).await;
    let limited = rows.iter().find(|r| r.email.subject == "limited").unwrap();
    assert_eq!(limited.state, EmailState::Queued, "due again later: {limited:?}");
    assert!(limited.next_attempt_at.is_some() && limited.last_error.as_deref().unwrap().contains("429"), "{limited:?}");

    app.store.queue_emails(&[queue("channel:gone", "unknown")], chrono::Utc::now()).await.unwrap();
    app.services.runs.signals.emails.notify_one();
    let rows = rows_settled(&app, org, sid, 3).await;
    let unknown = rows.iter().find(|r| r.email.subject == "unknown").unwrap();
    assert_eq!((unknown.state, unknown.attempts), (EmailState::Failed, 1), "{unknown:?}");
    assert!(unknown.last_error.as_deref().unwrap().contains("unknown channel `gone`"), "{unknown:?}");
    assert_eq!(chat.requests().len(), 2, "nothing sent for the unknown channel");
    let (_, log) = app.get(&format!("/api/scraps/{scrap}/activities?perPage=100"), &alice.token).await;
    assert!(log["data"].as_array().unwrap().iter().any(|a| a["type"] == "channel.failed"), "{log}");
}

#[tokio::test]
async fn a_channel_on_a_private_address_is_refused_unless_allowed() {
    let chat = ChatService::start().await;
    let app = TestApp::start().await;
    let alice = app.signup("alice@example.com").await;
    let url = format!("jsons://{}/in", chat.authority);
    let (status, saved) = app.post("/api/developers/channels", &alice.token, json!({"name": "lan", "url": url})).await;
    assert_eq!(status, StatusCode::CREATED);
    let id = saved["id"].as_str().unwrap();
    let (_, outcome) = app.post(&format!("/api/developers/channels/{id}/test"), &alice.token, json!({})).await;
    assert_eq!(outcome["delivered"], false);
    assert!(outcome["error"].as_str().unwrap().starts_with("refused"), "{outcome}");
    assert!(chat.requests().is_empty());
}

#[tokio::test]
async fn an_smtp_relay_refusing_svcs_credentials_fails_the_email_at_once() {
    let smtp = SmtpServer::start().await;
    let url = smtp.url();
    let app = TestApp::start_with(&[PRIVATE_OK, ("SVC_SMTP_URL", url.as_str())]).await;
    let alice = app.signup("alice@example.com").await;
    let scrap = app
        .scrap_with(&alice, json!({"title": "T", "url": "https://example.com/", "request": "returnData([1])"}))
        .await;
    let (org, sid) = ids(&alice, &scrap);
    let row = app.insert_run(&alice, &scrap, Some(svc_domain::history::StatusDetail::Error)).await;
    smtp.fail_next(1, At::Rcpt, 535, "5.7.8 Authentication credentials invalid");
    let email = svc_domain::email::Email {
        id: svc_domain::ObjectId::new(),
        organization_id: org,
        kind: svc_domain::email::EmailKind::Alert,
        to: "ops@example.com".into(),
        subject: "T is failing".into(),
        text: "The run failed.".into(),
        html: None,
        attachment: None,
        unsubscribe_url: None,
        scrap_id: Some(sid),
        history_id: Some(row.id),
        created_at: chrono::Utc::now(),
    };
    app.store.queue_emails(&[email], chrono::Utc::now()).await.unwrap();
    app.services.runs.signals.emails.notify_one();
    let rows = rows_settled(&app, org, sid, 1).await;
    assert_eq!((rows[0].state, rows[0].attempts), (EmailState::Failed, 1), "not retried for 80 minutes: {rows:?}");
    assert!(rows[0].last_error.as_deref().unwrap().contains("refused svc's credentials"), "{rows:?}");
    let (_, log) = app.get(&format!("/api/scraps/{scrap}/activities?perPage=100"), &alice.token).await;
    assert!(log["data"].as_array().unwrap().iter().any(|a| a["type"] == "email.failed"), "{log}");
}

/// Saved channels hold a service's tokens: owners and admins save, test and
/// delete them (as webhooks); an editor sees the redacted list only.
#[tokio::test]
async fn only_owners_and_admins_save_test_and_delete_channels() {
    let chat = ChatService::start().await;
    let app = app_towards(&chat, &[]).await;
    let owner = app.signup("owner@example.com").await;
    let url = format!("json://{}/hooks/in", chat.authority);
    let (status, saved) = app.post("/api/developers/channels", &owner.token, json!({"name": "ops", "url": url})).await;
    assert_eq!(status, StatusCode::CREATED, "{saved}");
    let (status, invite) =
        app.post("/api/organization/invites", &owner.token, json!({"email": "ed@example.com", "role": "editor"})).await;
    assert_eq!(status, StatusCode::CREATED, "{invite}");
    let ed = app.signup("ed@example.com").await;
    let token = invite["link"].as_str().unwrap().split("token=").nth(1).unwrap().to_string();
    let (status, joined) = app.post("/api/invites/accept", &ed.token, json!({"token": token})).await;
    assert_eq!(status, StatusCode::OK, "{joined}");
    let editor = joined["token"].as_str().unwrap().to_string();

    let (status, list) = app.get("/api/developers/channels", &editor).await;
    assert_eq!(status, StatusCode::OK, "{list}");
    assert!(!list.to_string().contains("/hooks/in") || list.to_string().contains("redacted"), "{list}");
    let id = saved["id"].as_str().unwrap();
    for (status, body) in [
        app.post("/api/developers/channels", &editor, json!({"name": "mine", "url": url})).await,
        app.post(&format!("/api/developers/channels/{id}/test"), &editor, json!({})).await,
        app.delete(&format!("/api/developers/channels/{id}"), &editor).await,
    ] {
        assert_error(status, &body, StatusCode::FORBIDDEN, "FORBIDDEN");
        assert!(body["description"].as_str().unwrap().contains("the editor role"), "{body}");
    }
    let (status, _) = app.delete(&format!("/api/developers/channels/{id}"), &owner.token).await;
    assert_eq!(status, StatusCode::NO_CONTENT);
}
