//! The developer area in a browser: API keys (created with a scrap
//! allow-list, shown once, working over REST until revoked), webhooks on
//! Free (explained, and refused when forged) and on Growth (create, edit,
//! the delivery log after a real run, redeliver, delete), and the refusals
//! over plain HTTP.

use std::time::Duration;

use reqwest::StatusCode;
use reqwest::header::CACHE_CONTROL;
use serde_json::{Value, json};
use svc_domain::plan::Plan;
use svc_domain::{ObjectId, WebhookId};
use svc_service::outbox::webhook_signing::verify_hex;
use svc_service::paging::PageRequest;

use super::browser::{Tab, WebBrowser, js_str};
use super::{csrf_token_of, session_cookie};
use crate::common::receiver::Receiver;
use crate::common::{Account, TestApp, fixture};

/// Logs `account` in through the form (password of `TestApp::signup`).
pub(super) async fn log_in(tab: &Tab, account: &Account) {
    tab.open("/login").await;
    tab.fill("Email", &account.email).await;
    tab.fill("Password", "password-123").await;
    tab.click_and_load("Log in").await;
    assert_eq!(tab.path().await, "/");
}

/// Reloads the page as the browser's reload button does.
pub(super) async fn reload(tab: &Tab) {
    tab.run("window.__svcOldPage = true; location.reload()").await;
    tab.wait_for("window.__svcOldPage === undefined && document.readyState === 'complete'", "the reloaded page").await;
}

/// Says yes to the page's next `confirm()` and remembers its question.
async fn accept_confirm(tab: &Tab) {
    tab.run("window.confirm = (q) => { sessionStorage.setItem('asked', q); return true; }").await;
}

/// Submits the form whose `data-confirm` mentions `what` (a row's button).
async fn submit_confirmed(tab: &Tab, what: &str) {
    accept_confirm(tab).await;
    tab.run(&format!(
        "window.__svcOldPage = true; [...document.querySelectorAll('form[data-confirm]')]\
         .find(f => f.dataset.confirm.includes({})).querySelector('button').click()",
        js_str(what)
    ))
    .await;
    tab.wait_for(
        "window.__svcOldPage === undefined && document.readyState === 'complete'",
        "the page after confirming",
    )
    .await;
}

async fn text_of(tab: &Tab, selector: &str) -> String {
    tab.eval(&format!("document.querySelector({}).textContent.trim()", js_str(selector))).await
}

/// Whether the error `#error_id` sits in the same `.field` as `#control_id`.
async fn error_next_to(tab: &Tab, error_id: &str, control_id: &str) -> bool {
    tab.eval(&format!(
        "(() => {{ const e = document.getElementById({}); return !!e && e.closest('.field').querySelector('#' + {}) !== null; }})()",
        js_str(error_id),
        js_str(control_id)
    ))
    .await
}

fn id_of(value: &Value) -> String {
    value["id"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn a_key_made_in_the_browser_is_shown_once_works_over_rest_and_stops_when_revoked() {
    let app = TestApp::start().await;
    let alice = app.signup("alice@example.com").await;
    let prices = id_of(&app.create_scrap(&alice, "Prices").await);
    app.create_scrap(&alice, "Stock levels").await;
    let browser = WebBrowser::launch().await;
    let tab = browser.tab(&app.base).await;
    log_in(&tab, &alice).await;

    tab.open("/developers/keys").await;
    let text = tab.text().await;
    assert!(text.contains("No API keys yet"), "{text}");
    assert!(text.contains("every action") && text.contains("svc:scraps:run"), "the scopes are listed: {text}");
    assert_eq!(tab.eval::<i64>("document.querySelectorAll('input[name=scopes]').length").await, 0);
    tab.screenshots("keys-empty").await;

    // Created: the plain key is shown once, with a curl example on svc's URL.
    tab.fill("Name", "reporting").await;
    tab.click_and_load("Create key").await;
    let plain = text_of(&tab, "#new-key").await;
    assert!(plain.starts_with("svc_") && plain.len() == 44, "{plain}");
    let curl = text_of(&tab, "#curl-example").await;
    assert_eq!(curl, format!("curl -H \"Authorization: Bearer {plain}\" {}/api/scraps", app.base));
    assert!(tab.has_button("Copy").await);
    assert_eq!(tab.path().await, "/developers/keys", "the address is the list's, never the key");
    tab.screenshots("keys-created").await;
    tab.color_scheme(true).await;
    tab.screenshots("keys-created-dark").await;
    tab.color_scheme(false).await;

    let (status, list) = app.get("/api/scraps", &plain).await;
    assert_eq!((status, list["total"].clone()), (StatusCode::OK, json!(2)), "{list}");

    // Reloading shows the list, not the key, and creates nothing.
    reload(&tab).await;
    let text = tab.text().await;
    assert!(!text.contains(&plain) && !tab.html().await.contains(&plain), "shown once");
    assert!(text.contains(&plain[..12]), "the prefix is listed: {text}");
    assert_eq!(
        app.services.keys.list(&app_session(&app, &alice).await, PageRequest::default()).await.unwrap().total,
        1
    );

    // A key allow-listed to one scrap lists only that scrap.
    tab.fill("Name", "prices only").await;
    tab.check("Prices", true).await;
    tab.click_and_load("Create key").await;
    let narrow = text_of(&tab, "#new-key").await;
    let (status, list) = app.get("/api/scraps", &narrow).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(list["total"], 1, "{list}");
    assert_eq!(list["data"][0]["id"], prices.as_str());
    let link: String = tab
        .eval("[...document.querySelectorAll('table.keys .scrap-links a')].map(a => a.textContent + ' ' + a.getAttribute('href')).join('|')")
        .await;
    assert_eq!(link, format!("Prices /scraps/{prices}"));

    // A past expiry date: the service's message next to the field, the name kept.
    tab.fill("Name", "too late").await;
    tab.run("document.getElementById('key-expires').removeAttribute('min')").await;
    tab.fill("Expiry date", "2020-01-31").await;
    tab.click_and_load("Create key").await;
    let text = tab.text().await;
    assert!(text.contains("must be in the future"), "{text}");
    assert!(error_next_to(&tab, "key-expires-error", "key-expires").await);
    assert_eq!(tab.value("Name").await, "too late");
    assert_eq!(tab.value("Expiry date").await, "2020-01-31");
    tab.screenshots("keys-expiry-error").await;
    // A date two years and more ahead: refused too.
    tab.run("document.getElementById('key-expires').removeAttribute('max')").await;
    let far = (chrono::Utc::now() + chrono::Duration::days(800)).format("%Y-%m-%d").to_string();
    tab.fill("Expiry date", &far).await;
    tab.click_and_load("Create key").await;
    assert!(tab.text().await.contains("must be at most 2 years after creation"));
    // A date within the bounds is the key's expiry (00:00 UTC that day).
    let soon = (chrono::Utc::now() + chrono::Duration::days(30)).date_naive();
    tab.fill("Expiry date", &soon.format("%Y-%m-%d").to_string()).await;
    tab.click_and_load("Create key").await;
    assert!(tab.text().await.contains("Key “too late” created"));
    let keys = app.services.keys.list(&app_session(&app, &alice).await, PageRequest::default()).await.unwrap();
    let dated = keys.items.iter().find(|k| k.name == "too late").unwrap();
    assert_eq!(dated.expires_at.unwrap(), soon.and_hms_opt(0, 0, 0).unwrap().and_utc());
    tab.screenshots("keys-list").await;

    // Revoked from the browser: gone from the list, refused at once.
    tab.open("/developers/keys").await;
    submit_confirmed(&tab, "reporting").await;
    let asked: String = tab.eval("sessionStorage.getItem('asked') || ''").await;
    assert!(asked.starts_with("Revoke the key “reporting”?"), "{asked}");
    assert_eq!(tab.path().await, "/developers/keys?revoked=1");
    let text = tab.text().await;
    assert!(text.contains("The key was revoked"), "{text}");
    assert!(!text.contains(&plain[..12]), "{text}");
    let (status, _) = app.get("/api/scraps", &plain).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, _) = app.get("/api/scraps", &narrow).await;
    assert_eq!(status, StatusCode::OK, "the other keys still work");
    browser.close().await;
}

/// The session of `account` as the services know it.
async fn app_session(app: &TestApp, account: &Account) -> svc_service::Session {
    app.services.auth.session(&account.token).await.unwrap()
}

#[tokio::test]
async fn key_forms_are_once_only_csrf_checked_and_scoped_to_the_organization() {
    let app = TestApp::start().await;
    let alice = app.signup("alice@example.com").await;
    let csrf = csrf_token_of(&app, &alice.token).await;
    let post = |path: &str, form: Vec<(&str, String)>| {
        app.http
            .post(format!("{}{path}", app.base))
            .header("cookie", session_cookie(&alice.token))
            .header("origin", &app.base)
            .form(&form)
    };

    // The answer that shows a key is never stored by the browser.
    let created = post("/developers/keys", vec![("csrf", csrf.clone()), ("name", "ci".into())]).send().await.unwrap();
    assert_eq!(created.status(), StatusCode::OK);
    assert_eq!(created.headers()[CACHE_CONTROL], "no-store");
    let page = created.text().await.unwrap();
    let start = page.find("id=\"new-key\">").unwrap() + 13;
    let plain = &page[start..start + 44];
    assert!(plain.starts_with("svc_"), "{plain}");
    let again = app
        .http
        .get(format!("{}/developers/keys", app.base))
        .header("cookie", session_cookie(&alice.token))
        .send()
        .await
        .unwrap();
    assert_eq!(again.headers()[CACHE_CONTROL], "no-store");
    assert!(!again.text().await.unwrap().contains(plain));

    // No token, or a token of another session: refused, nothing created.
    let tokenless = post("/developers/keys", vec![("name", "forged".into())]).send().await.unwrap();
    assert_eq!(tokenless.status(), StatusCode::FORBIDDEN);
    assert!(tokenless.text().await.unwrap().contains("Request refused"));
    let mallory = app.signup("mallory@example.com").await;
    let foreign_csrf = csrf_token_of(&app, &mallory.token).await;
    let swapped =
        post("/developers/keys", vec![("csrf", foreign_csrf), ("name", "forged".into())]).send().await.unwrap();
    assert_eq!(swapped.status(), StatusCode::FORBIDDEN);
    let keys = app.services.keys.list(&app_session(&app, &alice).await, PageRequest::default()).await.unwrap();
    assert_eq!(keys.total, 1);
    let key_id = keys.items[0].id.to_string();

    // Validation: 422 with the message; another organization's scrap is refused by name.
    let blank = post("/developers/keys", vec![("csrf", csrf.clone()), ("name", " ".into())]).send().await.unwrap();
    assert_eq!(blank.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(blank.text().await.unwrap().contains("is required"));
    let theirs = id_of(&app.create_scrap(&mallory, "theirs").await);
    let foreign = post("/developers/keys", vec![("csrf", csrf.clone()), ("name", "x".into()), ("scrapIds", theirs)])
        .send()
        .await
        .unwrap();
    assert_eq!(foreign.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(foreign.text().await.unwrap().contains("in this organization"));

    // Revoking: without the token refused; another organization's key is not found.
    let tokenless = post(&format!("/developers/keys/{key_id}/revoke"), vec![]).send().await.unwrap();
    assert_eq!(tokenless.status(), StatusCode::FORBIDDEN);
    let (status, _) = app.get("/api/scraps", plain).await;
    assert_eq!(status, StatusCode::OK, "still valid");
    let mallory_csrf = csrf_token_of(&app, &mallory.token).await;
    let cross = app
        .http
        .post(format!("{}/developers/keys/{key_id}/revoke", app.base))
        .header("cookie", session_cookie(&mallory.token))
        .header("origin", &app.base)
        .form(&[("csrf", mallory_csrf)])
        .send()
        .await
        .unwrap();
    assert_eq!(cross.status(), StatusCode::NOT_FOUND);
    let (status, _) = app.get("/api/scraps", plain).await;
    assert_eq!(status, StatusCode::OK, "still valid");
    let unknown = post(&format!("/developers/keys/{}/revoke", ObjectId::new()), vec![("csrf", csrf.clone())])
        .send()
        .await
        .unwrap();
    assert_eq!(unknown.status(), StatusCode::NOT_FOUND);
}

const PRIVATE_OK: (&str, &str) = ("SVC_ALLOW_PRIVATE_NETWORKS", "true");

#[tokio::test]
async fn a_free_organization_sees_why_it_cannot_change_webhooks_and_forged_posts_are_refused() {
    let app = TestApp::start_with(&[PRIVATE_OK]).await;
    let bob = app.signup("bob@example.com").await;
    // A webhook from when the organization was on Growth.
    app.store.set_plan(bob.org(), Plan::Growth).await.unwrap();
    let (status, hook) = app
        .post(
            "/api/developers/webhooks",
            &bob.token,
            json!({"url": "https://hooks.example.com/in", "events": ["scrap.success"]}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{hook}");
    let hook = id_of(&hook);
    app.store.set_plan(bob.org(), Plan::Free).await.unwrap();

    let browser = WebBrowser::launch().await;
    let tab = browser.tab(&app.base).await;
    log_in(&tab, &bob).await;
    tab.open("/developers/webhooks").await;
    let text = tab.text().await;
    assert!(text.contains("Webhooks need the Growth or Pro plan"), "{text}");
    assert!(text.contains("on the Free plan"), "{text}");
    assert!(text.contains("https://hooks.example.com/in"), "listing works on Free: {text}");
    assert!(!tab.has_button("Create webhook").await && !tab.has_button("Edit").await);
    tab.screenshots("webhooks-free").await;
    tab.click_and_load("Delivery log").await;
    assert_eq!(tab.path().await, format!("/developers/webhooks/{hook}/deliveries"));
    assert!(tab.text().await.contains("No deliveries yet"));
    tab.open(&format!("/developers/webhooks/{hook}/edit")).await;
    let text = tab.text().await;
    assert!(text.contains("Webhooks need the Growth or Pro plan") && !tab.has_button("Save webhook").await, "{text}");
    browser.close().await;

    // Forged forms (with a valid token) are refused by the service's plan rule.
    let csrf = csrf_token_of(&app, &bob.token).await;
    let post = |path: String, form: Vec<(&str, &str)>| {
        app.http
            .post(format!("{}{path}", app.base))
            .header("cookie", session_cookie(&bob.token))
            .header("origin", &app.base)
            .form(&form)
            .send()
    };
    let form = vec![("csrf", csrf.as_str()), ("url", "https://hooks.example.com/two"), ("events", "scrap.success")];
    for path in [
        "/developers/webhooks".to_string(),
        format!("/developers/webhooks/{hook}"),
        format!("/developers/webhooks/{hook}/delete"),
        format!("/developers/webhooks/{hook}/deliveries/{}/redeliver", ObjectId::new()),
    ] {
        let refused = post(path.clone(), form.clone()).await.unwrap();
        assert_eq!(refused.status(), StatusCode::FORBIDDEN, "{path}");
        let page = refused.text().await.unwrap();
        assert!(page.contains("Webhooks need the Growth or Pro plan") && page.contains("Free plan"), "{path}: {page}");
    }
    let (_, list) = app.get("/api/developers/webhooks", &bob.token).await;
    assert_eq!(list["total"], 1);
    assert_eq!(list["data"][0]["url"], "https://hooks.example.com/in", "unchanged");
}

#[tokio::test]
async fn on_growth_webhooks_are_created_edited_delivered_redelivered_and_deleted_in_the_browser() {
    let site = fixture::start().await;
    // The receiver fails the first attempt (its retry is a minute away), then answers 200.
    let receiver = Receiver::start(&[500]).await;
    let app = TestApp::start_with(&[PRIVATE_OK]).await;
    let alice = app.signup("alice@example.com").await;
    app.store.set_plan(alice.org(), Plan::Growth).await.unwrap();
    let items = app
        .scrap_with(
            &alice,
            json!({"title": "Items", "url": format!("{}/items/3", site.base), "request": "returnData([...document.querySelectorAll('li.item')].map(li => li.textContent))"}),
        )
        .await;
    app.create_scrap(&alice, "Other").await;
    let session = app_session(&app, &alice).await;

    let browser = WebBrowser::launch().await;
    let tab = browser.tab(&app.base).await;
    log_in(&tab, &alice).await;
    tab.open("/developers/webhooks").await;
    assert!(tab.text().await.contains("No webhooks yet"));
    tab.screenshots("webhooks-empty").await;

    // A bad URL: the service's message next to the field, what was typed kept.
    tab.fill("URL", "ftp://hooks.example.com/in").await;
    tab.check("scrap.failure", false).await;
    tab.click_and_load("Create webhook").await;
    assert!(tab.text().await.contains("must be https"), "{}", tab.text().await);
    assert!(error_next_to(&tab, "hook-url-error", "hook-url").await);
    assert_eq!(tab.value("URL").await, "ftp://hooks.example.com/in");
    assert!(!tab.eval::<bool>("document.getElementById('event-scrap.failure').checked").await, "kept unticked");
    tab.screenshots("webhooks-error").await;

    // Created: the secret once, with how to verify signatures.
    tab.fill("URL", &receiver.url).await;
    tab.check("scrap.failure", true).await;
    tab.click_and_load("Create webhook").await;
    let secret = text_of(&tab, "#new-secret").await;
    assert!(secret.starts_with("whsec_"), "{secret}");
    let text = tab.text().await;
    assert!(text.contains("X-Webhook-Signature") && text.contains("webhook-signature"), "{text}");
    assert_eq!(tab.path().await, "/developers/webhooks");
    tab.screenshots("webhooks-created").await;
    reload(&tab).await;
    assert!(!tab.html().await.contains(&secret), "shown once");
    let hooks = app.services.webhooks.list(&session, PageRequest::default()).await.unwrap();
    assert_eq!(hooks.total, 1, "the reload sent nothing");
    let hook = hooks.items[0].id.to_string();
    tab.screenshots("webhooks-list").await;

    // Edited: one event, one scrap.
    tab.click_and_load("Edit").await;
    assert_eq!(tab.path().await, format!("/developers/webhooks/{hook}/edit"));
    assert_eq!(tab.value("URL").await, receiver.url);
    tab.check("scrap.failure", false).await;
    tab.check("Items", true).await;
    tab.screenshots("webhook-edit").await;
    tab.click_and_load("Save webhook").await;
    assert_eq!(tab.path().await, "/developers/webhooks?saved=1");
    assert!(tab.text().await.contains("The webhook was saved."));
    let saved = app.services.webhooks.get(&session, WebhookId::parse(&hook).unwrap()).await.unwrap();
    assert_eq!(saved.events.iter().map(|e| e.as_str()).collect::<Vec<_>>(), ["scrap.success"]);
    assert_eq!(saved.scrap_ids.iter().map(|s| s.to_string()).collect::<Vec<_>>(), std::slice::from_ref(&items));
    assert!(saved.active);
    let link: String = tab.eval("document.querySelector('table.webhooks .scrap-links a').getAttribute('href')").await;
    assert_eq!(link, format!("/scraps/{items}"));

    // A run is sent, signed with the secret the page showed, and logged.
    let (status, row) = app.run_and_wait(&alice.token, &items).await;
    assert_eq!(status, StatusCode::OK, "{row}");
    let hits = receiver.wait_for(1, Duration::from_secs(30)).await;
    assert!(verify_hex(&secret, &hits[0].body, &hits[0].header("x-webhook-signature")));
    let hook_id = WebhookId::parse(&hook).unwrap();
    attempts_until(&app, &session, hook_id, 1).await;
    tab.click_and_load("Delivery log").await;
    let cells = |row: usize| {
        format!("[...document.querySelectorAll('table.deliveries tbody tr')[{row}].cells].map(c => c.innerText.trim())")
    };
    let first: Vec<String> = tab.eval(&cells(0)).await;
    assert_eq!(first[..5], ["Retry pending", "scrap.success", row["id"].as_str().unwrap(), "1", "500"], "{first:?}");
    assert_eq!(first[7], "in 1 min", "the next retry: {first:?}");
    let run_link: String = tab.eval("document.querySelector('td.run-cell a').getAttribute('href')").await;
    assert_eq!(run_link, format!("/scraps/{items}/history/{}", row["id"].as_str().unwrap()));
    tab.screenshots("webhook-deliveries").await;

    // Redeliver: a new attempt of the same run, delivered this time.
    tab.click_and_load("Redeliver").await;
    assert_eq!(tab.path().await, format!("/developers/webhooks/{hook}/deliveries?redelivered=1"));
    attempts_until(&app, &session, hook_id, 2).await;
    let hits = receiver.wait_for(2, Duration::from_secs(30)).await;
    assert_eq!(hits[1].json()["historyId"], row["id"]);
    assert_ne!(hits[1].header("webhook-id"), hits[0].header("webhook-id"));
    reload(&tab).await;
    assert_eq!(tab.eval::<i64>("document.querySelectorAll('table.deliveries tbody tr').length").await, 2);
    let newest: Vec<String> = tab.eval(&cells(0)).await;
    assert_eq!(newest[..5], ["Delivered", "scrap.success", row["id"].as_str().unwrap(), "1", "200"], "{newest:?}");
    tab.screenshots("webhook-redelivered").await;

    // Deleted from its edit page, after the question.
    tab.click_and_load("Edit webhook").await;
    submit_confirmed(&tab, "Delete this webhook").await;
    assert_eq!(tab.path().await, "/developers/webhooks?deleted=1");
    assert!(tab.text().await.contains("The webhook was deleted"));
    assert_eq!(app.services.webhooks.list(&session, PageRequest::default()).await.unwrap().total, 0);
    browser.close().await;
}

/// Waits (with a deadline) until the webhook's log holds `n` attempts.
async fn attempts_until(app: &TestApp, session: &svc_service::Session, hook: WebhookId, n: i64) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        let log = app.services.webhooks.deliveries(session, hook, PageRequest::default()).await.unwrap();
        if log.total >= n {
            return;
        }
        assert!(tokio::time::Instant::now() < deadline, "{} of {n} attempts", log.total);
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn another_organizations_webhook_is_not_found_on_every_page_and_form() {
    let app = TestApp::start_with(&[PRIVATE_OK]).await;
    let alice = app.signup("alice@example.com").await;
    let mallory = app.signup("mallory@example.com").await;
    for account in [&alice, &mallory] {
        app.store.set_plan(account.org(), Plan::Growth).await.unwrap();
    }
    let (status, hook) = app
        .post(
            "/api/developers/webhooks",
            &alice.token,
            json!({"url": "https://hooks.example.com/in", "events": ["scrap.success"]}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{hook}");
    let hook = id_of(&hook);
    let as_mallory = |r: reqwest::RequestBuilder| r.header("cookie", session_cookie(&mallory.token));
    for path in [format!("/developers/webhooks/{hook}/edit"), format!("/developers/webhooks/{hook}/deliveries")] {
        let page = as_mallory(app.http.get(format!("{}{path}", app.base))).send().await.unwrap();
        assert_eq!(page.status(), StatusCode::NOT_FOUND, "{path}");
        assert!(page.text().await.unwrap().contains("does not exist, or is not yours to see"));
    }
    let csrf = csrf_token_of(&app, &mallory.token).await;
    for path in [
        format!("/developers/webhooks/{hook}"),
        format!("/developers/webhooks/{hook}/delete"),
        format!("/developers/webhooks/{hook}/deliveries/{}/redeliver", ObjectId::new()),
    ] {
        let form = [("csrf", csrf.as_str()), ("url", "https://evil.example.com/in"), ("events", "scrap.success")];
        let refused = as_mallory(app.http.post(format!("{}{path}", app.base)))
            .header("origin", &app.base)
            .form(&form)
            .send()
            .await
            .unwrap();
        assert_eq!(refused.status(), StatusCode::NOT_FOUND, "{path}");
    }
    let (_, kept) = app.get(&format!("/api/developers/webhooks/{hook}"), &alice.token).await;
    assert_eq!(kept["url"], "https://hooks.example.com/in");
    // A path that is no webhook id is not found either.
    let bad =
        as_mallory(app.http.get(format!("{}/developers/webhooks/not-an-id/edit", app.base))).send().await.unwrap();
    assert_eq!(bad.status(), StatusCode::NOT_FOUND);
}
