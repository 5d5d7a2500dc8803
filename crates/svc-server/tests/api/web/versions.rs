//! Script versions: the list (who made each, when), a line diff against the
//! version before, restore (a new version; the old script current again),
//! its refusals; and a run that AI Fix repaired, as the run page, the
//! versions page and the scrap's activity log show it.

use std::time::Duration;

use reqwest::StatusCode;
use reqwest::header::LOCATION;
use serde_json::{Value, json};
use svc_domain::ObjectId;

use super::browser::{Tab, WebBrowser, js_str};
use super::scrap_page::{PRIVATE_OK, log_in};
use super::{csrf_token_of, session_cookie};
use crate::common::openai::{Answer, OpenAiStandIn};
use crate::common::{TestApp, fixture};

const V1: &str = "// Prices\nconst rows = [...document.querySelectorAll('.price')];\nreturnData(rows.map(r => ({price: r.textContent})));\n";
const V2: &str = "// Prices\nconst rows = [...document.querySelectorAll('.product .price')];\nreturnData(rows.map(r => ({price: r.textContent.trim()})));\n";
const ITEMS: &str = "returnData([...document.querySelectorAll('li.item')].map(li => ({name: li.textContent, i: Number(li.dataset.i)})))";

async fn text_of(tab: &Tab, selector: &str) -> String {
    tab.eval(&format!("(document.querySelector({}) || {{}}).innerText || ''", js_str(selector))).await
}

async fn lines_of(tab: &Tab, kind: &str) -> Vec<String> {
    tab.eval(&format!("[...document.querySelectorAll('tr.line-{kind} td.code')].map(td => td.textContent)")).await
}

#[tokio::test]
async fn the_versions_page_shows_a_diff_and_restore_makes_an_old_script_current() {
    let app = TestApp::start().await;
    let alice = app.signup("alice@example.com").await;
    let sid = app.scrap_with(&alice, json!({"title": "Prices", "url": "https://example.com/p", "request": V1})).await;
    let (status, _) = app.put(&format!("/api/scraps/{sid}"), &alice.token, json!({"request": V2})).await;
    assert_eq!(status, StatusCode::OK);

    let browser = WebBrowser::launch().await;
    let tab = browser.tab(&app.base).await;
    log_in(&tab, &alice).await;
    tab.open(&format!("/scraps/{sid}")).await;
    tab.click_and_load("Versions").await;
    assert_eq!(tab.path().await, format!("/scraps/{sid}/versions"));
    let list = text_of(&tab, "table.versions").await;
    assert!(list.contains("v2") && list.contains("v1") && list.contains("Current") && list.contains("You"), "{list}");
    assert!(text_of(&tab, ".versions-list").await.contains("2 versions"));

    // The newest, selected by default: its changes from version 1.
    let detail = text_of(&tab, "#selected").await;
    assert!(detail.contains("Version 2") && detail.contains("Changes from version 1"), "{detail}");
    assert!(detail.contains("This is the current script."), "{detail}");
    assert!(!tab.has_button("Restore this version").await, "the current script cannot be restored");
    assert_eq!(
        lines_of(&tab, "del").await,
        [
            "const rows = [...document.querySelectorAll('.price')];",
            "returnData(rows.map(r => ({price: r.textContent})));"
        ]
    );
    assert_eq!(
        lines_of(&tab, "add").await,
        [
            "const rows = [...document.querySelectorAll('.product .price')];",
            "returnData(rows.map(r => ({price: r.textContent.trim()})));"
        ]
    );
    assert_eq!(lines_of(&tab, "same").await, ["// Prices"], "unchanged context");
    let colours: Vec<String> = tab
        .eval("[getComputedStyle(document.querySelector('tr.line-add td.code')).color, getComputedStyle(document.querySelector('tr.line-del td.code')).color]")
        .await;
    assert_ne!(colours[0], colours[1], "added and removed lines look different");
    tab.screenshots("versions-diff").await;
    tab.color_scheme(true).await;
    tab.screenshots("versions-diff-dark").await;
    tab.color_scheme(false).await;

    // Version 1: the first, all lines new; it can be restored.
    tab.click_and_load("v1").await;
    let detail = text_of(&tab, "#selected").await;
    assert!(detail.contains("Version 1") && detail.contains("The first version: every line is new."), "{detail}");
    assert_eq!(lines_of(&tab, "add").await.len(), 3);
    let selected: bool = tab.eval("document.querySelector('tr.selected a').textContent === 'v1'").await;
    assert!(selected, "the list marks the selected version");
    tab.screenshots("versions-old-selected").await;
    tab.run("window.confirm = (q) => { sessionStorage.setItem('asked', q); return true; }").await;
    tab.click_and_load("Restore this version").await;
    let asked: String = tab.eval("sessionStorage.getItem('asked') || ''").await;
    assert!(asked.contains("version 1"), "asked first: {asked}");
    assert!(tab.path().await.contains("restored=1"), "{}", tab.path().await);
    let notice = text_of(&tab, ".alert-ok").await;
    assert!(notice.contains("Version 1 is the scrap's script again"), "{notice}");
    let list = text_of(&tab, "table.versions").await;
    assert!(list.contains("v3") && list.contains("Rollback of v1"), "{list}");
    assert!(text_of(&tab, ".versions-list").await.contains("3 versions"));
    let detail = text_of(&tab, "#selected").await;
    assert!(detail.contains("Version 3") && detail.contains("Changes from version 2"), "{detail}");
    tab.screenshots("versions-restored").await;

    // The old script is current: over REST and in the editor.
    let (_, scrap) = app.get(&format!("/api/scraps/{sid}"), &alice.token).await;
    assert_eq!(scrap["request"], V1);
    tab.click_and_load("Edit the script").await;
    assert_eq!(tab.value("Script").await, V1);
    let (_, versions) = app.get(&format!("/api/scraps/{sid}/versions"), &alice.token).await;
    assert_eq!(versions["data"].as_array().map(Vec::len), Some(3), "{versions}");

    // The activity log says it.
    tab.open(&format!("/scraps/{sid}")).await;
    let activity = text_of(&tab, "#activity").await;
    assert!(activity.contains("Script restored"), "{activity}");
    browser.close().await;
}

#[tokio::test]
async fn restore_refuses_what_it_must() {
    let app = TestApp::start().await;
    let alice = app.signup("alice@example.com").await;
    let bob = app.signup("bob@example.com").await;
    let sid = app.scrap_with(&alice, json!({"title": "Prices", "url": "https://example.com/p", "request": V1})).await;
    app.put(&format!("/api/scraps/{sid}"), &alice.token, json!({"request": V2})).await;
    let (_, versions) = app.get(&format!("/api/scraps/{sid}/versions"), &alice.token).await;
    let newest = versions["data"][0]["id"].as_str().unwrap().to_string();
    let oldest = versions["data"][1]["id"].as_str().unwrap().to_string();
    let http = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
    let post = |token: &str, path: String, csrf: &str| {
        http.post(format!("{}{path}", app.base))
            .header("cookie", session_cookie(token))
            .header("origin", &app.base)
            .form(&[("csrf", csrf)])
    };
    let alice_csrf = csrf_token_of(&app, &alice.token).await;
    let bob_csrf = csrf_token_of(&app, &bob.token).await;
    let restore = format!("/scraps/{sid}/versions/{oldest}/restore");

    // Without the CSRF token: refused, nothing changed.
    let forged = post(&alice.token, restore.clone(), "forged").send().await.unwrap();
    assert_eq!(forged.status(), StatusCode::FORBIDDEN);
    // Another organization's scrap: 404, for the page and the restore.
    let refused = post(&bob.token, restore.clone(), &bob_csrf).send().await.unwrap();
    assert_eq!(refused.status(), StatusCode::NOT_FOUND);
    for path in [
        format!("/scraps/{sid}/versions"),
        format!("/scraps/{sid}/versions?v={oldest}"),
        format!("/scraps/{}/versions", ObjectId::new()),
    ] {
        let page = http.get(format!("{}{path}", app.base)).header("cookie", session_cookie(&bob.token)).send();
        let page = page.await.unwrap();
        assert_eq!(page.status(), StatusCode::NOT_FOUND, "{path}");
        assert!(page.text().await.unwrap().contains("does not exist"));
    }
    // A version of no such id: 404.
    let page = http
        .get(format!("{}/scraps/{sid}/versions?v={}", app.base, ObjectId::new()))
        .header("cookie", session_cookie(&alice.token))
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), StatusCode::NOT_FOUND);
    let (_, scrap) = app.get(&format!("/api/scraps/{sid}"), &alice.token).await;
    assert_eq!(scrap["request"], V2, "nothing was restored");

    // The current script: 409, said on the page.
    let current = post(&alice.token, format!("/scraps/{sid}/versions/{newest}/restore"), &alice_csrf).send().await;
    let current = current.unwrap();
    assert_eq!(current.status(), StatusCode::CONFLICT);
    let body = current.text().await.unwrap();
    assert!(body.contains("Nothing changed") && body.contains("current script"), "{body}");

    // The plain form: a redirect to the page with the notice.
    let done = post(&alice.token, restore, &alice_csrf).send().await.unwrap();
    assert_eq!(done.status(), StatusCode::SEE_OTHER);
    let location = done.headers()[LOCATION].to_str().unwrap();
    assert!(
        location.starts_with(&format!("/scraps/{sid}/versions?v=")) && location.contains("restored=1"),
        "{location}"
    );
    let (_, scrap) = app.get(&format!("/api/scraps/{sid}"), &alice.token).await;
    assert_eq!(scrap["request"], V1);
}

/// Waits (with a deadline) until AI Fix has amended run `run`.
async fn repaired_row(app: &TestApp, token: &str, run: &str) -> Value {
    let give_up = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        let (_, row) = app.get(&format!("/api/historys/{run}"), token).await;
        if !row["fixedAt"].is_null() {
            return row;
        }
        assert!(tokio::time::Instant::now() < give_up, "AI Fix did not amend the run: {row}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test]
async fn a_run_repaired_by_ai_fix_says_so_and_links_to_its_version() {
    let ai = OpenAiStandIn::start().await;
    let site = fixture::start().await;
    let app = TestApp::start_with(&[PRIVATE_OK, ("SVC_AI_BASE_URL", ai.base_url.as_str())]).await;
    let alice = app.signup("alice@example.com").await;
    let broken = "throw new Error('the list moved');";
    let sid = app
        .scrap_with(
            &alice,
            json!({"title": "Shop", "url": format!("{}/items/8", site.base), "request": broken, "autoFix": true}),
        )
        .await;
    ai.answer([Answer::content(&format!("```js\n{ITEMS}\n```"), 800, 80)]);
    let (status, row) = app.run_and_wait(&alice.token, &sid).await;
    assert_eq!((status, row["statusDetail"].as_str()), (StatusCode::OK, Some("error")), "{row}");
    let run = row["id"].as_str().unwrap().to_string();
    let fixed = repaired_row(&app, &alice.token, &run).await;
    assert_eq!((fixed["statusDetail"].as_str(), fixed["length"].as_i64()), (Some("success"), Some(8)), "{fixed}");
    let version = fixed["fixVersionId"].as_str().unwrap().to_string();

    let browser = WebBrowser::launch().await;
    let tab = browser.tab(&app.base).await;
    log_in(&tab, &alice).await;
    tab.open(&format!("/scraps/{sid}/history/{run}")).await;
    let note = text_of(&tab, "#repaired").await;
    assert!(note.starts_with("Repaired by AI Fix") && note.contains("version 2"), "{note}");
    let href: String = tab.eval("document.querySelector('#repaired a').getAttribute('href')").await;
    assert_eq!(href, format!("/scraps/{sid}/versions?v={version}#selected"));
    tab.screenshots("run-repaired-by-ai-fix").await;

    // The version it made: by AI Fix, linking to the run it repaired, the diff of the repair.
    tab.click_and_load("version 2").await;
    let detail = text_of(&tab, "#selected").await;
    assert!(
        detail.contains("Version 2") && detail.contains("AI Fix") && detail.contains("the run it repaired"),
        "{detail}"
    );
    assert_eq!(lines_of(&tab, "del").await, [broken]);
    assert_eq!(lines_of(&tab, "add").await, [ITEMS]);
    let run_link: String =
        tab.eval("[...document.querySelectorAll('#selected a')].find(a => a.textContent === 'the run it repaired').getAttribute('href')").await;
    assert_eq!(run_link, format!("/scraps/{sid}/history/{run}"));
    let list = text_of(&tab, "table.versions").await;
    assert!(list.contains("AI Fix") && list.contains("the repaired run"), "{list}");
    tab.screenshots("versions-ai-fix").await;

    // The scrap page: the run marked repaired, AI Fix's entries tagged and said as AI Fix's.
    tab.open(&format!("/scraps/{sid}")).await;
    let history = text_of(&tab, "#run-history").await;
    assert!(history.contains("repaired by AI Fix"), "{history}");
    let activity = text_of(&tab, "#activity").await;
    assert!(activity.contains("Script fixed") && activity.contains("AI Fix repaired the script"), "{activity}");
    let tags: Vec<String> = tab.eval("[...document.querySelectorAll('#activity .chip')].map(c => c.textContent)").await;
    assert!(tags.contains(&"AI Fix".to_string()) && tags.contains(&"Script fixed".to_string()), "{tags:?}");
    let see: bool =
        tab.eval("[...document.querySelectorAll('#activity a')].some(a => a.textContent === 'see versions')").await;
    assert!(see);
    tab.screenshots("scrap-activity-ai-fix").await;
    browser.close().await;
}
