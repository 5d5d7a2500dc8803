//! Issue 34, part 3: a script AI Fix wrote is approved by a person in the
//! web app. A repair applied to a scrap without a site login runs held to
//! the scrap's site until its owner approves it on the review page (the
//! diff shown); a repair of a scrap with a site login is only proposed,
//! and the owner approves or dismisses it there. The scrap page and the
//! activity log lead to the review; another organization gets 404.

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{Value, json};

use super::browser::{Tab, js_str};
use super::scrap_page::{PRIVATE_OK, log_in};
use super::{csrf_token_of, session_cookie};
use crate::common::canary::Canary;
use crate::common::openai::{Answer, OpenAiStandIn};
use crate::common::site::{Site, shop_as_cards, shop_as_list};
use crate::common::{Account, TestApp};

const BROKEN: &str = "throw new Error('the list moved');";
const CARDS: &str = "returnData([...document.querySelectorAll('div.product')].map(d => ({name: d.querySelector('.title').textContent})));";
const LIST: &str =
    "returnData([...document.querySelectorAll('li.item')].map(li => ({name: li.querySelector('.name').textContent})));";

fn js(code: &str) -> Answer {
    Answer::content(&format!("```js\n{code}\n```"), 800, 80)
}

async fn text_of(tab: &Tab, selector: &str) -> String {
    tab.eval(&format!("(document.querySelector({}) || {{}}).innerText || ''", js_str(selector))).await
}

async fn lines_of(tab: &Tab, kind: &str) -> Vec<String> {
    tab.eval(&format!("[...document.querySelectorAll('tr.line-{kind} td.code')].map(td => td.textContent)")).await
}

async fn activity_kinds(app: &TestApp, account: &Account, scrap: &str) -> Vec<String> {
    let (_, page) = app.get(&format!("/api/scraps/{scrap}/activities?perPage=100"), &account.token).await;
    page["data"].as_array().unwrap().iter().map(|a| a["type"].as_str().unwrap().to_string()).collect()
}

/// Waits (with a deadline) until the scrap's activity log has `count`
/// entries of one of `kinds`; returns the kinds then.
async fn wait_for(app: &TestApp, account: &Account, scrap: &str, kinds: &[&str], count: usize) -> Vec<String> {
    let give_up = tokio::time::Instant::now() + Duration::from_secs(90);
    loop {
        let seen = activity_kinds(app, account, scrap).await;
        if seen.iter().filter(|k| kinds.contains(&k.as_str())).count() >= count {
            return seen;
        }
        assert!(tokio::time::Instant::now() < give_up, "no {kinds:?} in time: {seen:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn run(app: &TestApp, account: &Account, scrap: &str) -> Value {
    let (status, row) = app.run_and_wait(&account.token, scrap).await;
    assert_eq!(status, StatusCode::OK, "{row}");
    row
}

async fn versions(app: &TestApp, account: &Account, scrap: &str) -> Vec<Value> {
    let (_, page) = app.get(&format!("/api/scraps/{scrap}/versions"), &account.token).await;
    page["data"].as_array().unwrap().clone()
}

#[tokio::test]
async fn an_applied_repair_reaches_only_its_site_until_its_owner_approves_it() {
    let ai = OpenAiStandIn::start().await;
    let site = Site::start().await;
    let canary = Canary::start().await;
    let app = TestApp::start_with(&[PRIVATE_OK, ("SVC_AI_BASE_URL", ai.base_url.as_str())]).await;
    let alice = app.signup("alice@example.com").await;
    // The scrap's site is `localhost`; the canary is at 127.0.0.1, another site.
    let url = site.url("/shop").replace("127.0.0.1", "localhost");
    site.set("/shop", 200, &shop_as_cards(4));
    let sid = app.scrap_with(&alice, json!({"title": "Lamps", "url": url, "request": BROKEN, "autoFix": true})).await;
    let beacon = format!("try {{ await fetch('{}/beacon', {{ mode: 'no-cors' }}); }} catch (e) {{}}", canary.base);
    let repair = format!("{beacon}\n{CARDS}");
    ai.answer([js(&repair)]);
    let broken = run(&app, &alice, &sid).await;
    assert_eq!(broken["statusDetail"], "error", "{broken}");
    wait_for(&app, &alice, &sid, &["script.fixed", "fix.failed"], 1).await;
    let listed = versions(&app, &alice, &sid).await;
    assert_eq!(listed.len(), 2);
    let (newest, first) = (&listed[0], &listed[1]);
    assert_eq!((newest["source"].as_str(), newest["request"].as_str()), (Some("ai_fix"), Some(repair.as_str())));
    assert_eq!(newest["approvedAt"], Value::Null, "the model's script waits for a person");
    assert!(first["approvedAt"].is_string(), "the owner's own script: {first}");

    // Until approved, the repaired script's runs reach only the scrap's site.
    let next = run(&app, &alice, &sid).await;
    assert_eq!((next["statusDetail"].as_str(), next["length"].as_i64()), (Some("success"), Some(4)), "{next}");
    assert!(canary.hits().is_empty(), "neither the trial run nor the next run reached the canary");

    let browser = super::browser::WebBrowser::launch().await;
    let tab = browser.tab(&app.base).await;
    log_in(&tab, &alice).await;
    tab.open(&format!("/scraps/{sid}")).await;
    let banner = text_of(&tab, ".fix-waiting").await;
    assert!(
        banner.contains("AI Fix waits for your approval")
            && banner.contains("its runs reach only the scrap's own site"),
        "{banner}"
    );
    tab.screenshots("scrap-ai-fix-waiting").await;
    tab.click_and_load("Review the change").await;
    assert_eq!(tab.path().await, format!("/scraps/{sid}/ai-fix"));
    let waiting = text_of(&tab, "#waiting-version").await;
    assert!(waiting.contains("Version 2, written by AI Fix") && waiting.contains("reach only localhost"), "{waiting}");
    assert_eq!(lines_of(&tab, "del").await, [BROKEN]);
    assert_eq!(lines_of(&tab, "add").await, [beacon.as_str(), CARDS]);
    assert!(tab.has_button("Restore version 1").await);
    tab.screenshots("ai-fix-review-version").await;
    tab.click_and_load("Approve version 2").await;
    assert!(text_of(&tab, ".alert-ok").await.starts_with("Approved."));
    assert!(text_of(&tab, "main").await.contains("Nothing waits for your approval"));

    // Approved: the script's runs reach the web as the owner's do.
    let approved = versions(&app, &alice, &sid).await;
    assert!(approved[0]["approvedAt"].is_string(), "{}", approved[0]);
    assert_eq!(approved.len(), 2, "approving made no new version");
    let after = run(&app, &alice, &sid).await;
    assert_eq!(after["statusDetail"], "success", "{after}");
    assert_eq!(canary.hits(), ["GET /beacon "], "the approved script reaches other sites");
    assert!(activity_kinds(&app, &alice, &sid).await.contains(&"fix.approved".to_string()));
    // And in the organization's audit log, with the approved version as its target.
    let (_, audit) = app.get("/api/organization/audit", &alice.token).await;
    let entry = audit["data"].as_array().unwrap().iter().find(|e| e["action"] == "fix.approved").cloned();
    let entry = entry.expect("an audit entry for the approval");
    assert_eq!(entry["targetId"], approved[0]["id"], "{entry}");
    assert_eq!(entry["actor"]["email"], "alice@example.com");
    tab.open(&format!("/scraps/{sid}")).await;
    let gone: bool = tab.eval("document.querySelector('.fix-waiting') === null").await;
    assert!(gone, "nothing waits any more");
    // Approving again is refused, said on the page.
    let version = approved[0]["id"].as_str().unwrap();
    let http = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
    let csrf = csrf_token_of(&app, &alice.token).await;
    let again = http
        .post(format!("{}/scraps/{sid}/ai-fix/versions/{version}/approve", app.base))
        .header("cookie", session_cookie(&alice.token))
        .header("origin", &app.base)
        .form(&[("csrf", csrf.as_str())])
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), StatusCode::CONFLICT);
    assert!(again.text().await.unwrap().contains("does not wait for approval"));
    browser.close().await;
}

#[tokio::test]
async fn a_repair_of_a_scrap_that_signs_in_waits_for_its_owner_who_approves_or_dismisses_it() {
    let ai = OpenAiStandIn::start().await;
    let site = Site::start().await;
    let app = TestApp::start_with(&[PRIVATE_OK, ("SVC_AI_BASE_URL", ai.base_url.as_str())]).await;
    let alice = app.signup("alice@example.com").await;
    let bob = app.signup("bob@example.com").await;
    site.set("/shop", 200, &shop_as_cards(4));
    let sid = app
        .scrap_with(&alice, json!({"title": "Lamps", "url": site.url("/shop"), "request": BROKEN, "autoFix": true}))
        .await;
    let (status, body) = app
        .put(&format!("/api/scraps/{sid}/account"), &alice.token, json!({"username": "ada", "password": "pw-5d1e"}))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    ai.answer([js(CARDS)]);
    run(&app, &alice, &sid).await;
    wait_for(&app, &alice, &sid, &["fix.proposed", "fix.failed", "script.fixed"], 1).await;
    let (_, scrap) = app.get(&format!("/api/scraps/{sid}"), &alice.token).await;
    assert_eq!(scrap["request"], BROKEN, "not applied");

    let browser = super::browser::WebBrowser::launch().await;
    let tab = browser.tab(&app.base).await;
    log_in(&tab, &alice).await;
    tab.open(&format!("/scraps/{sid}")).await;
    let banner = text_of(&tab, ".fix-waiting").await;
    assert!(banner.contains("It has a repair for this scrap that is not used until you approve it"), "{banner}");
    let review: String = tab
        .eval(
            "[...document.querySelectorAll('#activity a')].find(a => a.textContent === 'review').getAttribute('href')",
        )
        .await;
    assert_eq!(review, format!("/scraps/{sid}/ai-fix"), "the proposal's log entry leads to the review");
    tab.click_and_load("Review the change").await;
    let proposal = text_of(&tab, ".fix-proposal").await;
    assert!(proposal.contains("Proposed repair") && proposal.contains("found 4 items"), "{proposal}");
    assert!(proposal.contains("signs in to its site, so AI Fix did not apply the repair"), "{proposal}");
    assert_eq!(
        (lines_of(&tab, "del").await, lines_of(&tab, "add").await),
        (vec![BROKEN.to_string()], vec![CARDS.to_string()])
    );
    tab.screenshots("ai-fix-review-proposal").await;

    // Another organization: the page and the decisions are 404; a forged form is refused.
    let proposal_id: String = tab.eval("document.querySelector('.fix-proposal').dataset.proposalId").await;
    let http = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
    let post = |token: &str, path: String, csrf: &str| {
        http.post(format!("{}{path}", app.base))
            .header("cookie", session_cookie(token))
            .header("origin", &app.base)
            .form(&[("csrf", csrf)])
    };
    let bob_csrf = csrf_token_of(&app, &bob.token).await;
    let approve = format!("/scraps/{sid}/ai-fix/proposals/{proposal_id}/approve");
    let dismiss = format!("/scraps/{sid}/ai-fix/proposals/{proposal_id}/dismiss");
    for path in [&approve, &dismiss] {
        assert_eq!(post(&bob.token, path.clone(), &bob_csrf).send().await.unwrap().status(), StatusCode::NOT_FOUND);
        assert_eq!(post(&alice.token, path.clone(), "forged").send().await.unwrap().status(), StatusCode::FORBIDDEN);
    }
    let page = http.get(format!("{}/scraps/{sid}/ai-fix", app.base)).header("cookie", session_cookie(&bob.token));
    assert_eq!(page.send().await.unwrap().status(), StatusCode::NOT_FOUND);

    // Approved: the repair is the scrap's script, an approved AI Fix version.
    tab.run("window.confirm = (q) => { sessionStorage.setItem('asked', q); return true; }").await;
    tab.click_and_load("Approve and use it").await;
    let asked: String = tab.eval("sessionStorage.getItem('asked') || ''").await;
    assert!(asked.contains("site login"), "asked first: {asked}");
    assert!(text_of(&tab, ".alert-ok").await.starts_with("Approved."));
    let (_, scrap) = app.get(&format!("/api/scraps/{sid}"), &alice.token).await;
    assert_eq!(scrap["request"], CARDS);
    let listed = versions(&app, &alice, &sid).await;
    assert_eq!((listed.len(), listed[0]["source"].as_str()), (2, Some("ai_fix")));
    assert!(listed[0]["approvedAt"].is_string() && listed[0]["historyId"].is_string(), "{}", listed[0]);
    let alice_csrf = csrf_token_of(&app, &alice.token).await;
    let twice = post(&alice.token, approve.clone(), &alice_csrf).send().await.unwrap();
    assert_eq!(twice.status(), StatusCode::CONFLICT);
    assert!(twice.text().await.unwrap().contains("this proposal was approved already"));
    let good = run(&app, &alice, &sid).await;
    assert_eq!((good["statusDetail"].as_str(), good["length"].as_i64()), (Some("success"), Some(4)), "{good}");

    // The page changes back; the next repair is dismissed: the script stays.
    site.set("/shop", 200, &shop_as_list(3));
    ai.answer([js(LIST)]);
    run(&app, &alice, &sid).await;
    wait_for(&app, &alice, &sid, &["fix.proposed"], 2).await;
    tab.open(&format!("/scraps/{sid}/ai-fix")).await;
    assert_eq!(lines_of(&tab, "add").await, [LIST]);
    tab.click_and_load("Dismiss").await;
    assert!(text_of(&tab, ".alert-ok").await.starts_with("Dismissed."));
    assert!(text_of(&tab, "main").await.contains("Nothing waits for your approval"));
    let (_, scrap) = app.get(&format!("/api/scraps/{sid}"), &alice.token).await;
    assert_eq!(scrap["request"], CARDS, "a dismissed repair changes nothing");
    let kinds = activity_kinds(&app, &alice, &sid).await;
    assert!(kinds.contains(&"fix.approved".to_string()) && kinds.contains(&"fix.dismissed".to_string()), "{kinds:?}");
    tab.open(&format!("/scraps/{sid}")).await;
    let tags: Vec<String> = tab.eval("[...document.querySelectorAll('#activity .chip')].map(c => c.textContent)").await;
    assert!(
        tags.contains(&"AI Fix approved".to_string()) && tags.contains(&"AI Fix dismissed".to_string()),
        "{tags:?}"
    );
    browser.close().await;
}
