//! Email end to end, through a local SMTP server speaking the real protocol:
//! result emails of cron runs (JSON and CSV attachments equal to the data),
//! alerts on the first failure and on recovery, announcements by an admin
//! key (refused otherwise) with one-click unsubscribe, a relay that is down
//! across a restart of svc, and two senders sharing one outbox.

use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use mail_parser::MimeHeaders;
use reqwest::StatusCode;
use serde_json::{Value, json};
use svc_server::Config;
use svc_server::mail_client::SmtpMailer;
use svc_service::outbox::mailer::Mailer;
use svc_storage::EmailOutcome;
use tokio::sync::Notify;

use crate::common::smtp::SmtpServer;
use crate::common::{Account, TestApp, assert_error, fixture, parse_csv};

const PRIVATE_OK: (&str, &str) = ("SVC_ALLOW_PRIVATE_NETWORKS", "true");
const ITEMS: &str = "returnData([...document.querySelectorAll('li.item')].map(li => ({name: li.textContent, i: Number(li.dataset.i)})))";
/// Long enough for a run in a real browser and its email.
const WITHIN: Duration = Duration::from_secs(60);

fn at(offset_secs: i64) -> DateTime<Utc> {
    Utc::now() + chrono::Duration::seconds(offset_secs)
}

/// The finished runs of a scrap, newest first, once there are `n`.
async fn finished_runs(app: &TestApp, account: &Account, scrap: &str, n: usize) -> Vec<Value> {
    let deadline = tokio::time::Instant::now() + WITHIN;
    loop {
        let (_, page) = app.get(&format!("/api/historys?scrap={scrap}&perPage=100"), &account.token).await;
        let done: Vec<Value> =
            page["data"].as_array().unwrap().iter().filter(|r| !r["status"].is_null()).cloned().collect();
        if done.len() >= n {
            return done;
        }
        assert!(tokio::time::Instant::now() < deadline, "fewer than {n} finished runs: {page}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn a_cron_run_emails_its_data_as_json_then_as_csv() {
    let smtp = SmtpServer::start().await;
    let site = fixture::start().await;
    let url = smtp.url();
    let app = TestApp::start_with(&[PRIVATE_OK, ("SVC_SMTP_URL", url.as_str()), ("SVC_SCHEDULER", "false")]).await;
    let alice = app.signup("alice@example.com").await;
    let body = json!({"title": "Shop items", "url": format!("{}/items/3", site.base), "request": ITEMS,
                      "cron": "* * * * *", "emailNotif": true, "emailNotifFormat": "json"});
    let sid = app.scrap_with(&alice, body).await;

    // A run now sends nothing: result emails follow scheduled runs.
    let (status, _) = app.run_and_wait(&alice.token, &sid).await;
    assert_eq!(status, StatusCode::OK);

    app.services.scheduler.tick(at(61)).await.unwrap();
    let runs = finished_runs(&app, &alice, &sid, 2).await;
    let cron = runs.iter().find(|r| r["triggeredBy"] == "cron").expect("the cron run");
    let mails = smtp.wait_for(1, WITHIN).await;
    assert_eq!(mails.len(), 1, "one email, for the cron run only");
    assert_eq!(mails[0].to, ["alice@example.com"], "the owner, without a recipient set");
    let message = mails[0].parsed();
    assert_eq!(message.subject(), Some("Shop items: 3 items"));
    let text = message.body_text(0).unwrap().to_string();
    let link = format!("{}/scraps/{sid}/history/{}", app.base, cron["id"].as_str().unwrap());
    assert!(text.contains(&link) && text.contains("success"), "{text}");
    let file = message.attachment(0).expect("the data attached");
    let date = Utc::now().format("%Y-%m-%d");
    assert_eq!(file.attachment_name(), Some(format!("shop-items-{date}.json").as_str()));
    assert_eq!(file.contents(), cron["data"].as_str().unwrap().as_bytes(), "the row's data, exactly");

    // As CSV, to another recipient: the parsed CSV equals the data.
    let (status, _) = app
        .put(
            &format!("/api/scraps/{sid}"),
            &alice.token,
            json!({"emailNotifFormat": "csv", "emailNotifRecipient": "team@example.com"}),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    // A stranger's address confirms first (issue 37).
    let mails = smtp.wait_for(2, WITHIN).await;
    assert_eq!(mails[1].to, ["team@example.com"]);
    app.confirm_by_mail(&mails[1]).await;
    app.services.scheduler.tick(at(121)).await.unwrap();
    let runs = finished_runs(&app, &alice, &sid, 3).await;
    let mails = smtp.wait_for(3, WITHIN).await;
    assert_eq!(mails.len(), 3);
    assert_eq!(mails[2].to, ["team@example.com"]);
    let message = mails[2].parsed();
    let file = message.attachment(0).unwrap();
    assert!(file.attachment_name().unwrap().ends_with(".csv"));
    let rows = parse_csv(std::str::from_utf8(file.contents()).unwrap());
    let data: Vec<Value> = serde_json::from_str(runs[0]["data"].as_str().unwrap()).unwrap();
    assert_eq!(rows[0], ["name", "i"]);
    let from_csv: Vec<Value> =
        rows[1..].iter().map(|r| json!({"name": r[0], "i": r[1].parse::<i64>().unwrap()})).collect();
    assert_eq!(from_csv, data);
    app.activities_of(&alice, &sid, "email.sent", 1).await;
}

#[tokio::test]
async fn alerts_come_on_the_first_failure_and_on_recovery_not_on_every_failure() {
    let smtp = SmtpServer::start().await;
    let site = fixture::start().await;
    let url = smtp.url();
    let app = TestApp::start_with(&[PRIVATE_OK, ("SVC_SMTP_URL", url.as_str())]).await;
    let alice = app.signup("alice@example.com").await;
    let body = json!({"title": "Shop items", "url": format!("{}/items/3", site.base), "request": ITEMS,
                      "alert": "ops@example.com"});
    let sid = app.scrap_with(&alice, body).await;
    // A stranger's address confirms first (issue 37): that mail is the first.
    app.confirm_by_mail(&smtp.wait_for(1, WITHIN).await[0]).await;
    let set_script = |script: &'static str| {
        let app = &app;
        let (token, sid) = (alice.token.clone(), sid.clone());
        async move {
            let (status, _) = app.put(&format!("/api/scraps/{sid}"), &token, json!({"request": script})).await;
            assert_eq!(status, StatusCode::OK);
        }
    };
    let run = || app.run_and_wait(&alice.token, &sid);
    assert_eq!(run().await.1["statusDetail"], "success");
    set_script("throw new Error('the price list moved')").await;
    assert_eq!(run().await.1["statusDetail"], "error");
    let alert = smtp.wait_for(2, WITHIN).await;
    assert_eq!(run().await.1["statusDetail"], "error");
    set_script(ITEMS).await;
    assert_eq!(run().await.1["statusDetail"], "success");
    let mails = smtp.wait_for(3, WITHIN).await[1..].to_vec();
    assert_eq!(mails.len(), 2, "the second failure sent nothing");
    assert_eq!(alert[1].to, ["ops@example.com"]);
    let first = mails[0].parsed();
    assert_eq!(first.subject(), Some("Shop items is failing (error)"));
    assert!(first.body_text(0).unwrap().contains("the price list moved"));
    let second = mails[1].parsed();
    assert_eq!(second.subject(), Some("Shop items recovered"));
    assert!(second.body_text(0).unwrap().contains("after 2 runs that did not"));

    // The scrap's page lists its emails and how they went.
    let deadline = tokio::time::Instant::now() + WITHIN;
    let page = loop {
        let page = app
            .http
            .get(format!("{}/scraps/{sid}", app.base))
            .header("cookie", format!("svc_session={}", alice.token))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        if page.matches(">Sent<").count() >= 2 || tokio::time::Instant::now() > deadline {
            break page;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(page.contains("Alert: Shop items is failing (error)") && page.contains("Recovered: Shop items recovered"));
    assert_eq!(page.matches(">Sent<").count(), 2, "both sent");
    let browser = crate::web::browser::WebBrowser::launch().await;
    let tab = browser.tab(&app.base).await;
    crate::web::scrap_page::log_in(&tab, &alice).await;
    tab.open(&format!("/scraps/{sid}")).await;
    tab.screenshots("scrap-emails").await;
    browser.close().await;
}

#[tokio::test]
async fn an_admin_key_announces_to_every_user_once_and_unsubscribing_stops_the_next() {
    let smtp = SmtpServer::start().await;
    let url = smtp.url();
    let app = TestApp::start_with(&[("SVC_SMTP_URL", url.as_str())]).await;
    let admin = app.signup("admin@example.com").await;
    let users: Vec<Account> =
        futures::future::join_all(["u1@example.com", "u2@example.com", "u3@example.com"].map(|e| app.signup(e))).await;
    app.services.admin.grant_admin("admin@example.com").await.unwrap();
    let body = json!({"subject": "svc 1.2: faster runs", "text": "Runs start **twice** as fast."});

    // Refused: a key without the scope, and a key of a user who is not an admin.
    let (_, narrow) = app.create_key(&admin, json!({"name": "reader", "scopes": ["svc:scraps:read"]})).await;
    let (status, refused) = app.post("/api/developers/announcements", &narrow, body.clone()).await;
    assert_error(status, &refused, StatusCode::FORBIDDEN, "INSUFFICIENT_SCOPE");
    let (_, not_admin) = app.create_key(&users[0], json!({"name": "a", "scopes": ["svc:mail:announce"]})).await;
    let (status, refused) = app.post("/api/developers/announcements", &not_admin, body.clone()).await;
    assert_error(status, &refused, StatusCode::FORBIDDEN, "FORBIDDEN");
    let (status, refused) = app.post("/api/developers/announcements", &users[0].token, body.clone()).await;
    assert_error(status, &refused, StatusCode::FORBIDDEN, "FORBIDDEN");
    let (_, key) = app.create_key(&admin, json!({"name": "announcer", "scopes": ["svc:mail:announce"]})).await;
    let (status, bad) = app.post("/api/developers/announcements", &key, json!({"subject": "", "text": "x"})).await;
    assert_error(status, &bad, StatusCode::UNPROCESSABLE_ENTITY, "VALIDATION");
    let long = "x".repeat(100 * 1024 + 1);
    let (status, bad) = app.post("/api/developers/announcements", &key, json!({"subject": "s", "text": long})).await;
    assert_error(status, &bad, StatusCode::UNPROCESSABLE_ENTITY, "VALIDATION");
    assert!(smtp.messages().is_empty(), "nothing sent for a refusal");

    let (status, queued) = app.post("/api/developers/announcements", &key, body.clone()).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{queued}");
    assert_eq!(queued["recipients"], 4);
    assert_eq!(queued["id"].as_str().unwrap().len(), 24);
    let mails = smtp.wait_for(4, WITHIN).await;
    let mut to: Vec<String> = mails.iter().flat_map(|m| m.to.clone()).collect();
    to.sort();
    assert_eq!(to, ["admin@example.com", "u1@example.com", "u2@example.com", "u3@example.com"], "every user once");
    let u2 = mails.iter().find(|m| m.to == ["u2@example.com"]).unwrap();
    let headers = u2.header_section();
    assert!(headers.contains("List-Unsubscribe-Post: List-Unsubscribe=One-Click"), "{headers}");
    let unsubscribe = headers
        .lines()
        .find_map(|l| l.strip_prefix("List-Unsubscribe: <"))
        .map(|l| l.trim_end_matches('>').to_string())
        .expect("a List-Unsubscribe header");
    assert!(unsubscribe.starts_with(&format!("{}/unsubscribe?token=", app.base)), "{unsubscribe}");

    // One-click (RFC 8058), as a mail client sends it: no cookie, no CSRF token.
    let clicked = app.http.post(&unsubscribe).form(&[("List-Unsubscribe", "One-Click")]).send().await.unwrap();
    assert_eq!(clicked.status(), StatusCode::OK);
    assert!(clicked.text().await.unwrap().contains("no longer receive"));
    let forged = app.http.post(unsubscribe.replace("token=", "token=x")).send().await.unwrap();
    assert_eq!(forged.status(), StatusCode::NOT_FOUND);

    let (status, queued) = app.post("/api/developers/announcements", &key, body).await;
    assert_eq!((status, queued["recipients"].clone()), (StatusCode::ACCEPTED, json!(3)));
    let mails = smtp.wait_for(7, WITHIN).await;
    assert_eq!(mails.len(), 7);
    assert!(!mails[4..].iter().any(|m| m.to == ["u2@example.com"]), "unsubscribed");
}

/// A mailer of the test's own over `app`'s store (the app's loop is off), ticked by hand.
fn mailer_of(app: &TestApp, smtp: &SmtpServer) -> Mailer {
    let config = Config::load(None, [("SVC_SMTP_URL".to_string(), smtp.url())]).unwrap();
    let settings = config.mail().unwrap();
    let transport = Arc::new(SmtpMailer::from_config(&settings).unwrap());
    Mailer::new(app.store.clone(), transport, 100, Duration::from_secs(5), Arc::new(Notify::new()))
}

async fn announce_to_all(app: &TestApp, admin: &Account) -> usize {
    let (status, queued) =
        app.post("/api/developers/announcements", &admin.token, json!({"subject": "Hello", "text": "News."})).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{queued}");
    queued["recipients"].as_u64().unwrap() as usize
}

#[tokio::test]
async fn a_relay_that_is_down_gets_the_email_later_even_across_a_restart_of_svc() {
    let smtp = SmtpServer::start().await;
    let url = smtp.url();
    let settings = [("SVC_SMTP_URL", url.as_str()), ("SVC_MAILER", "false")];
    let app = TestApp::start_with(&settings).await;
    let admin = app.signup("admin@example.com").await;
    app.services.admin.grant_admin("admin@example.com").await.unwrap();
    assert_eq!(announce_to_all(&app, &admin).await, 1);
    smtp.stop().await;

    let sent = mailer_of(&app, &smtp).tick(Utc::now()).await.unwrap();
    assert!(matches!(&sent[0].outcome, EmailOutcome::Retry { .. }), "{sent:?}");

    // svc restarts (a new process on the same database); the relay comes back.
    let again = app.another_on_same_db(&settings).await;
    let _db = app.stop();
    smtp.restart().await;
    let mailer = mailer_of(&again, &smtp);
    assert!(mailer.tick(Utc::now()).await.unwrap().is_empty(), "not before the retry is due");
    let sent = mailer.tick(at(120)).await.unwrap();
    assert!(matches!(sent[0].outcome, EmailOutcome::Sent { .. }), "{sent:?}");
    assert!(mailer.tick(at(7200)).await.unwrap().is_empty(), "sent once");
    assert_eq!(smtp.messages().len(), 1);
    assert_eq!(smtp.messages()[0].to, ["admin@example.com"]);
}

#[tokio::test]
async fn two_senders_on_one_database_send_each_email_once() {
    let smtp = SmtpServer::start().await;
    let url = smtp.url();
    let settings = [("SVC_SMTP_URL", url.as_str()), ("SVC_MAILER", "false")];
    let app = TestApp::start_with(&settings).await;
    let other = app.another_on_same_db(&settings).await;
    let admin = app.signup("admin@example.com").await;
    app.services.admin.grant_admin("admin@example.com").await.unwrap();
    // 24 more users, each signing up from an address of its own (sign-ups are limited per address).
    for i in 0..24u8 {
        let signup = svc_service::accounts::Signup {
            email: format!("user{i}@example.com"),
            password: "password-123".into(),
            name: None,
        };
        let from = std::net::IpAddr::V4(std::net::Ipv4Addr::new(198, 51, 100, i));
        app.services.accounts.signup(signup, from).await.unwrap();
    }
    let recipients = announce_to_all(&app, &admin).await;
    assert_eq!(recipients, 25);
    let (a, b) = (mailer_of(&app, &smtp), mailer_of(&other, &smtp));
    loop {
        let (x, y) = tokio::join!(a.tick(Utc::now()), b.tick(Utc::now()));
        if x.unwrap().is_empty() && y.unwrap().is_empty() {
            break;
        }
    }
    let mut to: Vec<String> = smtp.messages().iter().flat_map(|m| m.to.clone()).collect();
    to.sort();
    let before = to.len();
    to.dedup();
    assert_eq!((before, to.len()), (25, 25), "each of the 25 emails once");
}
