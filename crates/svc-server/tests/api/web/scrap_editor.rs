//! The scrap editor: every writable field, errors next to their field with
//! what was typed kept, the live cron preview, and Test run (no history row,
//! charged like a run).

use svc_storage::HistoryFilter;

use super::browser::WebBrowser;
use super::sign_up_in;
use crate::common::TestApp;
use crate::common::fixture;

const ITEMS: &str = "returnData([...document.querySelectorAll('li.item')].map(li => ({name: li.textContent, i: Number(li.dataset.i)})))";

#[tokio::test]
async fn write_a_scrap_with_a_bad_cron_fix_it_test_run_and_save() {
    let site = fixture::start().await;
    let app = TestApp::start_with(&[("SVC_ALLOW_PRIVATE_NETWORKS", "true")]).await;
    let browser = WebBrowser::launch().await;
    let tab = browser.tab(&app.base).await;
    sign_up_in(&tab, "ed@example.com").await;

    tab.click_and_load("New scrap").await;
    assert_eq!(tab.path().await, "/scraps/new");
    tab.screenshots("scrap-new").await;
    let url = format!("{}/items/3", site.base);
    tab.fill("Title", "Shop items").await;
    tab.fill("URL", &url).await;
    tab.fill("Script", ITEMS).await;
    tab.fill("Schedule (cron)", "every morning").await;
    tab.click_and_load("Save").await;
    // Refused: the message sits with the cron field and nothing typed is lost.
    assert_eq!(tab.path().await, "/scraps/new");
    let error: String = tab.eval("document.getElementById('cron-error').textContent").await;
    assert!(error.contains("cron"), "{error}");
    let beside: bool = tab
        .eval("document.getElementById('cron-error').closest('.field').contains(document.getElementById('cron'))")
        .await;
    assert!(beside, "the error is next to its field");
    assert_eq!(tab.value("Title").await, "Shop items");
    assert_eq!(tab.value("URL").await, url);
    assert_eq!(tab.value("Script").await, ITEMS);
    assert_eq!(tab.value("Schedule (cron)").await, "every morning");
    tab.screenshots("scrap-new-error").await;
    let me = app.services.auth.session(&login_token(&app, "ed@example.com").await).await.unwrap();
    let none = app.services.scraps.overview(&me, None, false, Default::default()).await.unwrap();
    assert_eq!(none.total, 0, "nothing saved");

    // The preview follows what is typed, in the chosen time zone.
    tab.fill("Schedule (cron)", "*/15 * * * *").await;
    tab.fill("Time zone", "Europe/Paris").await;
    // The preview of the time zone typed last (an earlier answer, in UTC, may show first).
    tab.wait_for(
        "document.querySelectorAll('#cron-preview li').length === 5 && /CES?T/.test(document.querySelector('#cron-preview li').textContent)",
        "five next runs in Paris time",
    )
    .await;
    tab.fill("Schedule (cron)", "61 * * * *").await;
    tab.wait_for("document.querySelector('#cron-preview .field-error') !== null", "the preview's refusal").await;
    tab.fill("Schedule (cron)", "*/15 * * * *").await;
    tab.wait_for("document.querySelectorAll('#cron-preview li').length === 5", "five next runs again").await;

    // Test run: the data of the unsaved script, nothing stored, charged.
    let before = app.services.accounts.me(&me).await.unwrap().1.balance;
    tab.click_and_load("Test run").await;
    tab.wait_for("document.getElementById('test-result') !== null", "the test result").await;
    let result: String = tab.eval("document.getElementById('test-result').innerText").await;
    assert!(result.contains("Success") && result.contains("3 items"), "{result}");
    assert!(result.contains("Item 2"), "the data is shown: {result}");
    assert_eq!(tab.value("Title").await, "Shop items", "the form is kept across a test run");
    assert_eq!(tab.value("Time zone").await, "Europe/Paris");
    let rows = app.store.list_history(me.org(), &HistoryFilter { limit: 10, ..Default::default() }).await.unwrap();
    assert_eq!(rows.total, 0, "a test run writes no history row");
    let after = app.services.accounts.me(&me).await.unwrap().1.balance;
    assert!(after < before, "charged like a run: {before} -> {after}");
    tab.screenshots("scrap-test-run").await;

    // A failing test run shows the error and the page.
    tab.fill("Script", "throw new Error('no price on this page')").await;
    tab.click_and_load("Test run").await;
    let result: String = tab.eval("document.getElementById('test-result').innerText").await;
    assert!(result.contains("Error") && result.contains("no price on this page"), "{result}");
    let shot: bool = tab.eval("!!document.querySelector('#test-result img.screenshot[src^=\"data:image/png\"]')").await;
    assert!(shot, "a screenshot of the page");
    tab.screenshots("scrap-test-run-error").await;

    tab.fill("Script", ITEMS).await;
    tab.fill("Key", "first").await;
    tab.fill("Value", "{\"page\": 1}").await;
    tab.click_and_load("Save").await;
    let path = tab.path().await;
    assert!(path.starts_with("/scraps/") && path.ends_with("?saved=1"), "{path}");
    let list = app.services.scraps.overview(&me, None, false, Default::default()).await.unwrap();
    assert_eq!(list.total, 1);
    let scrap = &list.items[0].scrap;
    assert_eq!((scrap.title.as_str(), scrap.url.as_str()), ("Shop items", url.as_str()));
    assert_eq!((scrap.cron.as_deref(), scrap.cron_timezone.as_str()), (Some("*/15 * * * *"), "Europe/Paris"));
    assert_eq!(scrap.params.len(), 1);
    assert_eq!(scrap.params[0].value, serde_json::json!({"page": 1}));

    // The editor shows what is stored, and where the banner is set.
    tab.open(&format!("/scraps/{}/edit", scrap.id)).await;
    assert_eq!(tab.value("Title").await, "Shop items");
    assert_eq!(tab.value("Schedule (cron)").await, "*/15 * * * *");
    let banner_link: String = tab.eval("document.querySelector('.banner-note a').getAttribute('href')").await;
    assert_eq!(banner_link, format!("/scraps/{}#banner", scrap.id));
    assert!(tab.eval::<bool>("!document.querySelector('fieldset.inactive')").await, "no inactive settings left");
    assert!(tab.text().await.contains("Email is off on this server"), "email settings say when email is off");
    tab.screenshots("scrap-edit").await;
    tab.fill("Title", "").await;
    tab.run("document.getElementById('title').removeAttribute('required')").await;
    tab.click_and_load("Save").await;
    assert!(tab.eval::<bool>("!!document.getElementById('title-error')").await, "{}", tab.text().await);
    let kept = app.services.scraps.get(&me.clone().into(), scrap.id).await.unwrap();
    assert_eq!(kept.title, "Shop items", "a refused edit changes nothing");

    // Email settings: a bad address is refused next to its field; good ones are saved.
    tab.open(&format!("/scraps/{}/edit", scrap.id)).await;
    tab.fill("Alert address", "not an address").await;
    tab.run("document.getElementById('alert').type = 'text'").await;
    tab.click_and_load("Save").await;
    assert!(tab.eval::<bool>("!!document.getElementById('alert-error')").await, "{}", tab.text().await);
    tab.fill("Alert address", "ops@example.com").await;
    tab.check("Email the results of scheduled runs", true).await;
    tab.fill("Attachment format", "csv").await;
    assert!(tab.text().await.contains("No AI provider on this server"), "digest settings say when AI is off");
    tab.check("Write a digest of each run that returns data", true).await;
    tab.fill("Digest instructions", "Name the new items.").await;
    tab.click_and_load("Save").await;
    let saved = app.services.scraps.get(&me.clone().into(), scrap.id).await.unwrap();
    assert_eq!(saved.alert.as_deref(), Some("ops@example.com"));
    assert!(saved.email_notif);
    assert_eq!(saved.email_notif_format.as_str(), "csv");
    assert_eq!(saved.email_notif_recipient, None, "empty: the owner");
    assert!(saved.digest_enabled);
    assert_eq!(saved.digest_prompt.as_deref(), Some("Name the new items."));

    // The list shows it with its schedule in words.
    tab.open("/").await;
    let text = tab.text().await;
    assert!(text.contains("Shop items") && text.contains("every 15 minutes, Europe/Paris"), "{text}");
    assert!(text.contains("Never run"));
    tab.screenshots("scraps-list").await;
    browser.close().await;
}

/// A session token of `email` (signed up with the harness's password).
async fn login_token(app: &TestApp, email: &str) -> String {
    let login =
        svc_service::accounts::Login { email: email.into(), password: "password-123".into(), organization: None };
    app.services.accounts.login(login, std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST)).await.unwrap().token
}

/// A server started without its embedded worker has no browser for a test
/// run: the editor says so above the form, keeps what was typed, and
/// nothing is charged (it answered 500 before).
#[tokio::test]
async fn a_test_run_on_a_server_without_a_browser_says_why_and_keeps_the_draft() {
    let site = fixture::start().await;
    let app = TestApp::start_with(&[("SVC_ALLOW_PRIVATE_NETWORKS", "true"), ("SVC_EMBEDDED_WORKER", "false")]).await;
    let browser = WebBrowser::launch().await;
    let tab = browser.tab(&app.base).await;
    sign_up_in(&tab, "nobrowser@example.com").await;
    let me = app.services.auth.session(&login_token(&app, "nobrowser@example.com").await).await.unwrap();
    let before = app.services.accounts.me(&me).await.unwrap().1.balance;

    tab.click_and_load("New scrap").await;
    let url = format!("{}/items/3", site.base);
    tab.fill("Title", "Shop items").await;
    tab.fill("URL", &url).await;
    tab.fill("Script", ITEMS).await;
    tab.click_and_load("Test run").await;
    let alert: String = tab.eval("document.querySelector('.alert-error').textContent").await;
    assert!(alert.contains("SVC_EMBEDDED_WORKER=false"), "{alert}");
    assert!(alert.contains("Test runs need a browser"), "{alert}");
    let result: bool = tab.eval("document.getElementById('test-result') === null").await;
    assert!(result, "no test result is shown");
    assert_eq!(tab.value("Title").await, "Shop items", "what was typed stays");
    assert_eq!(tab.value("URL").await, url);
    assert_eq!(tab.value("Script").await, ITEMS);
    assert_eq!(app.services.accounts.me(&me).await.unwrap().1.balance, before, "nothing charged");
    tab.screenshots("scrap-test-run-no-browser").await;
}

/// Issue 36, part 3: a test run on the browser also tries `static`, says so
/// when it gives the very same data, and switches the scrap in one click;
/// a script whose data differs without a browser gets no such offer.
#[tokio::test]
async fn a_test_run_offers_static_when_it_gives_the_same_data() {
    let site = fixture::start().await;
    let app = TestApp::start_with(&[("SVC_ALLOW_PRIVATE_NETWORKS", "true")]).await;
    let browser = WebBrowser::launch().await;
    let tab = browser.tab(&app.base).await;
    sign_up_in(&tab, "switch@example.com").await;
    tab.click_and_load("New scrap").await;
    tab.fill("Title", "Shop items").await;
    tab.fill("URL", &format!("{}/items/5", site.base)).await;
    // A script that reads computed style: static has no layout, so it cannot give the same data.
    tab.fill("Script", "returnData([{ display: getComputedStyle(document.body).display }])").await;
    tab.click_and_load("Test run").await;
    let offered: bool = tab.eval("document.querySelector('.static-alternative') !== null").await;
    assert!(!offered, "no offer when static cannot give the same data");
    let result: String = tab.eval("document.getElementById('test-result').innerText").await;
    assert!(result.contains("1 item"), "the browser's run itself succeeded: {result}");

    tab.fill("Script", ITEMS).await;
    tab.click_and_load("Test run").await;
    let offer: String = tab.eval("(document.querySelector('.static-alternative') || {}).innerText || ''").await;
    assert!(offer.contains("The static engine gives the same 5 items without a browser"), "{offer}");
    assert_eq!(tab.value("Engine").await, "puppeteer", "nothing switched before the click");
    tab.screenshots("test-run-static-offer").await;
    tab.click_and_load("Switch to static and save").await;
    let me = app.services.auth.session(&login_token(&app, "switch@example.com").await).await.unwrap();
    let saved = app.services.scraps.overview(&me, None, false, Default::default()).await.unwrap();
    assert_eq!(saved.total, 1);
    assert_eq!(saved.items[0].scrap.scrapper, "static");
    assert_eq!(saved.items[0].scrap.request, ITEMS, "the script as typed");
    browser.close().await;
}
