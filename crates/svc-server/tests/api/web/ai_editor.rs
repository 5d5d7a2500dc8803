//! The editor's AI: Generate with AI (field suggestions from the wizard, a
//! generated script after a failing first attempt, put in the Script box
//! and saved by the user), its refusals in words, the panel off without a
//! provider, and AI Fix as an active setting that saves.

use super::browser::{Tab, WebBrowser, js_str};
use super::scrap_page::{PRIVATE_OK, drain_balance, log_in};
use crate::common::openai::{Answer, OpenAiStandIn};
use crate::common::{TestApp, fixture};

const ITEMS: &str = "returnData([...document.querySelectorAll('li.item')].map(li => ({name: li.textContent, i: Number(li.dataset.i)})))";

/// The wizard's answer: two fields with examples.
const PROPOSALS: &str = "Here is what the page offers:\n```json\n[{\"name\": \"name\", \"description\": \"The item's label\", \"example\": \"Item 0\"}, {\"name\": \"i\", \"description\": \"Its position in the list\", \"example\": 0}]\n```";

async fn text_of(tab: &Tab, selector: &str) -> String {
    tab.eval(&format!("(document.querySelector({}) || {{}}).innerText || ''", js_str(selector))).await
}

async fn with_ai(ai: &OpenAiStandIn) -> TestApp {
    TestApp::start_with(&[PRIVATE_OK, ("SVC_AI_BASE_URL", ai.base_url.as_str()), ("SVC_AI_MODEL", "tiny-model")]).await
}

#[tokio::test]
async fn generate_fills_the_script_after_a_failing_attempt_and_saving_keeps_it() {
    let ai = OpenAiStandIn::start().await;
    let site = fixture::start().await;
    let app = with_ai(&ai).await;
    let alice = app.signup("alice@example.com").await;
    let browser = WebBrowser::launch().await;
    let tab = browser.tab(&app.base).await;
    log_in(&tab, &alice).await;

    tab.open("/scraps/new").await;
    let url = format!("{}/items/4", site.base);
    tab.fill("Title", "Shop items").await;
    tab.fill("URL", &url).await;
    let off: bool = tab.eval("document.querySelector('[data-ai-generate]').disabled").await;
    assert!(!off, "the panel is on with a provider");
    assert!(!tab.text().await.contains("No AI provider on this server"));
    tab.screenshots("ai-panel-idle").await;

    // Suggest fields: the proposals with their examples, as checkboxes that fill the field names.
    ai.answer([Answer::content(PROPOSALS, 900, 60)]);
    tab.click("Suggest fields").await;
    tab.wait_for("document.querySelectorAll('#ai-proposals input[type=checkbox]').length === 2", "the proposals").await;
    let proposals = text_of(&tab, "#ai-proposals").await;
    for expected in ["Fields the page offers", "name", "The item's label", "e.g. “Item 0”", "Its position in the list"]
    {
        assert!(proposals.contains(expected), "{expected:?} in {proposals}");
    }
    assert!(text_of(&tab, "#ai-status").await.contains("2 fields proposed"));
    tab.check("name — The item's label", true).await;
    assert_eq!(tab.value("Fields every item must have").await, "name");
    tab.check("i — Its position", true).await;
    assert_eq!(tab.value("Fields every item must have").await, "name, i");
    tab.check("i — Its position", false).await;
    assert_eq!(tab.value("Fields every item must have").await, "name");
    let asked = ai.asked();
    assert!(asked[0].prompt().contains(&url), "the wizard read the page at the URL typed");
    tab.screenshots("ai-panel-proposals").await;

    // Generate: the first script throws, the second works; the panel shows it working.
    tab.fill("Describe what to extract", "Every item of the list, with its name and position").await;
    ai.hold();
    ai.answer([
        Answer::content("```js\nthrow new Error('no list here');\n```", 1200, 40),
        Answer::content(&format!("Try this:\n```javascript\n{ITEMS}\n```"), 1400, 60),
    ]);
    tab.click("Generate script").await;
    tab.wait_for("document.querySelector('#ai-status .chip-running') !== null", "the generation at work").await;
    let busy: bool = tab.eval("document.querySelector('[data-ai-generate]').disabled").await;
    assert!(busy, "one generation at a time");
    assert!(text_of(&tab, "#ai-status").await.contains("Working…"));
    tab.screenshots("ai-panel-working").await;
    ai.release();
    tab.wait_for("document.querySelector('#ai-status .chip-success') !== null", "the generated script").await;
    assert_eq!(tab.value("Script").await, ITEMS, "the script is in the Script box");
    let status = text_of(&tab, "#ai-status").await;
    assert!(status.contains("Worked on attempt 2") && status.contains("4 items"), "{status}");
    let headers: Vec<String> =
        tab.eval("[...document.querySelectorAll('#ai-result thead th')].map(th => th.textContent)").await;
    assert_eq!(headers, ["name", "i"]);
    let first: Vec<String> = tab
        .eval("[...document.querySelectorAll('#ai-result tbody tr:first-child td')].map(td => td.textContent)")
        .await;
    assert_eq!(first, ["Item 0", "0"]);
    let result = tab.eval::<String>("document.getElementById('ai-result').textContent").await;
    assert!(result.contains("1 attempt that did not work") && result.contains("no list here"), "{result}");
    let prompts = ai.asked();
    assert_eq!(prompts.len(), 3);
    assert!(prompts[2].prompt().contains("no list here"), "the second attempt was told what went wrong");
    let enabled: bool = tab.eval("!document.querySelector('[data-ai-generate]').disabled").await;
    assert!(enabled);
    tab.screenshots("ai-panel-result").await;
    tab.color_scheme(true).await;
    tab.screenshots("ai-panel-result-dark").await;
    tab.color_scheme(false).await;

    // Nothing is stored until the user saves; saving keeps the generated script.
    let me = app.services.auth.session(&alice.token).await.unwrap();
    assert_eq!(app.services.scraps.overview(&me, None, false, Default::default()).await.unwrap().total, 0);
    tab.click_and_load("Save").await;
    let path = tab.path().await;
    assert!(path.ends_with("?saved=1"), "{path}");
    let sid = path.trim_start_matches("/scraps/").split('?').next().unwrap().to_string();
    let (_, scrap) = app.get(&format!("/api/scraps/{sid}"), &alice.token).await;
    assert_eq!(scrap["request"], ITEMS);
    assert_eq!(scrap["url"], url.as_str());
    browser.close().await;
}

#[tokio::test]
async fn a_failed_generation_says_why_and_each_attempt_and_refusals_are_words() {
    let ai = OpenAiStandIn::start().await;
    let site = fixture::start().await;
    let app = with_ai(&ai).await;
    let alice = app.signup("alice@example.com").await;
    let browser = WebBrowser::launch().await;
    let tab = browser.tab(&app.base).await;
    log_in(&tab, &alice).await;
    tab.open("/scraps/new").await;
    tab.fill("URL", &format!("{}/items/2", site.base)).await;
    let before = tab.value("Script").await;

    // Three scripts that fail: the error, and each attempt's problem; the script box is left alone.
    ai.answer([
        Answer::content("```js\nthrow new Error('first miss');\n```", 100, 10),
        Answer::content("```js\nreturnData([]);\n```", 100, 10),
        Answer::content("```python\nprint('no')\n```", 100, 10),
    ]);
    tab.fill("Describe what to extract", "The prices").await;
    tab.click("Generate script").await;
    tab.wait_for("document.querySelector('#ai-status .alert-error') !== null", "the failure").await;
    let status = text_of(&tab, "#ai-status").await;
    assert!(status.contains("Generation failed") && status.contains("after 3 attempts"), "{status}");
    let attempts: Vec<String> =
        tab.eval("[...document.querySelectorAll('#ai-result .problem')].map(p => p.textContent)").await;
    assert_eq!(attempts.len(), 3, "{attempts:?}");
    assert!(attempts[0].contains("first miss"), "{attempts:?}");
    assert!(attempts[1].contains("no items"), "{attempts:?}");
    assert!(attempts[2].contains("no script"), "{attempts:?}");
    assert_eq!(tab.value("Script").await, before, "a failure leaves the script as it was");
    tab.screenshots("ai-panel-failed").await;

    // Bad input: next to its field, in words.
    tab.fill("Describe what to extract", &"x".repeat(4001)).await;
    tab.click("Generate script").await;
    tab.wait_for("!document.getElementById('aiDescription-error').hidden", "the description's error").await;
    let error = text_of(&tab, "#aiDescription-error").await;
    assert!(error.contains("at most 4000 characters") && !error.contains('{'), "{error}");
    let beside: bool = tab
        .eval("document.getElementById('aiDescription-error').closest('.field').contains(document.getElementById('aiDescription'))")
        .await;
    assert!(beside);
    tab.fill("URL", "ftp://example.com/list").await;
    tab.fill("Describe what to extract", "The prices").await;
    tab.click("Suggest fields").await;
    tab.wait_for("document.querySelector('#ai-status .alert-error') !== null", "the URL's refusal").await;
    let status = text_of(&tab, "#ai-status").await;
    assert!(status.contains("The URL above cannot be used") && status.contains("http"), "{status}");

    // No balance: said next to the panel, not as the API's JSON.
    tab.fill("URL", &format!("{}/items/2", site.base)).await;
    drain_balance(&app, &alice).await;
    tab.click("Generate script").await;
    tab.wait_for("document.getElementById('ai-status').innerText.includes('No compute balance left')", "the refusal")
        .await;
    let status = text_of(&tab, "#ai-status").await;
    assert!(status.contains("balance") && !status.contains('{') && !status.contains("INSUFFICIENT"), "{status}");
    let enabled: bool = tab.eval("!document.querySelector('[data-ai-generate]').disabled").await;
    assert!(enabled, "it can be pressed again");
    tab.screenshots("ai-panel-refused").await;
    browser.close().await;
}

#[tokio::test]
async fn without_a_provider_the_panel_is_off_and_ai_fix_still_saves() {
    let app = TestApp::start().await;
    let alice = app.signup("alice@example.com").await;
    let browser = WebBrowser::launch().await;
    let tab = browser.tab(&app.base).await;
    log_in(&tab, &alice).await;
    tab.open("/scraps/new").await;
    let note = text_of(&tab, "#ai-panel-off").await;
    assert!(note.contains("No AI provider on this server") && note.contains("SVC_AI_BASE_URL"), "{note}");
    let disabled: bool = tab
        .eval("['[data-ai-wizard]', '[data-ai-generate]', '#aiDescription', '#aiFields'].every(s => document.querySelector(s).disabled)")
        .await;
    assert!(disabled, "the panel's buttons are off");
    tab.screenshots("ai-panel-off").await;

    // AI Fix is an active setting, beside the digest, with the same note; no longer in the inactive box.
    let place: bool = tab
        .eval("!document.querySelector('fieldset.inactive #autoFix') && !document.getElementById('autoFix').disabled")
        .await;
    assert!(place);
    let ai_card = text_of(&tab, "#ai-off").await;
    assert!(ai_card.contains("AI Fix"), "{ai_card}");
    tab.fill("Title", "Fixable").await;
    tab.fill("URL", "https://example.com/list").await;
    tab.fill("Script", "returnData([1])").await;
    tab.check("AI Fix", true).await;
    tab.click_and_load("Save").await;
    let path = tab.path().await;
    let sid = path.trim_start_matches("/scraps/").split('?').next().unwrap().to_string();
    let (_, scrap) = app.get(&format!("/api/scraps/{sid}"), &alice.token).await;
    assert_eq!(scrap["autoFix"], true, "{scrap}");

    // The editor shows it stored; unticked and saved, it is off.
    tab.open(&format!("/scraps/{sid}/edit")).await;
    let ticked: bool = tab.eval("document.getElementById('autoFix').checked").await;
    assert!(ticked);
    let versions: String = tab
        .eval("[...document.querySelectorAll('a')].find(a => a.textContent === 'Script versions').getAttribute('href')")
        .await;
    assert_eq!(versions, format!("/scraps/{sid}/versions"));
    tab.screenshots("scrap-edit-ai-fix").await;
    tab.check("AI Fix", false).await;
    tab.click_and_load("Save").await;
    let (_, scrap) = app.get(&format!("/api/scraps/{sid}"), &alice.token).await;
    assert_eq!(scrap["autoFix"], false, "{scrap}");
    browser.close().await;
}
