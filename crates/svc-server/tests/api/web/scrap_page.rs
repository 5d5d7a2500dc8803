//! The scrap page: what the scrap is, the latest data, Run now live
//! without a reload (and its refusals), the run history and activity log,
//! delete with a confirmation, the plain-form fallbacks and the 404s.

use reqwest::StatusCode;
use reqwest::header::LOCATION;
use serde_json::json;
use svc_domain::ObjectId;

use super::browser::{Tab, WebBrowser, js_str};
use super::{csrf_token_of, session_cookie};
use crate::common::{Account, TestApp, fixture};

pub const PRIVATE_OK: (&str, &str) = ("SVC_ALLOW_PRIVATE_NETWORKS", "true");

/// Logs `account` in through the log-in form.
pub async fn log_in(tab: &Tab, account: &Account) {
    tab.open("/login").await;
    tab.fill("Email", &account.email).await;
    tab.fill("Password", "password-123").await;
    tab.click_and_load("Log in").await;
    assert_eq!(tab.path().await, "/");
}

/// Empties the organization's compute balance.
pub async fn drain_balance(app: &TestApp, account: &Account) {
    let balance = app.store.organization(account.org()).await.unwrap().unwrap().balance;
    app.store.add_balance(account.org(), -balance).await.unwrap();
}

/// The text of the element `selector` (empty when there is none).
async fn text_of(tab: &Tab, selector: &str) -> String {
    tab.eval(&format!("(document.querySelector({}) || {{}}).innerText || ''", js_str(selector))).await
}

/// A reqwest client that does not follow redirects.
fn plain_http() -> reqwest::Client {
    reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap()
}

#[tokio::test]
async fn run_now_shows_the_result_in_place_without_a_reload() {
    let site = fixture::start().await;
    let app = TestApp::start_with(&[PRIVATE_OK]).await;
    let alice = app.signup("alice@example.com").await;
    let url = format!("{}/items/3", site.base);
    // The wait keeps the run pending long enough to see it so.
    let script = "await SVC.sleep(2500);\nreturnData([...document.querySelectorAll('li.item')].map(li => \
                  ({name: li.textContent, i: Number(li.dataset.i), tags: ['x', li.dataset.i]})));";
    let sid = app
        .scrap_with(
            &alice,
            json!({"title": "Shop items", "url": url, "description": "Everything the shop lists.\nChecked on weekdays.",
                   "cron": "0 8 * * 1-5", "cronTimezone": "Europe/Paris", "request": script}),
        )
        .await;

    let browser = WebBrowser::launch().await;
    let tab = browser.tab(&app.base).await;
    log_in(&tab, &alice).await;
    tab.open(&format!("/scraps/{sid}")).await;
    let text = tab.text().await;
    for expected in [
        "Shop items",
        "Everything the shop lists.",
        "every weekday at 08:00, Europe/Paris",
        "next run",
        "No successful run yet.",
        "This scrap has not run yet.",
        "Scrap created",
    ] {
        assert!(text.contains(expected), "{expected:?} in:\n{text}");
    }
    let rel: String = tab.eval(&format!("document.querySelector('a[href={}]').rel", js_str(&url))).await;
    assert_eq!(rel, "noopener noreferrer");
    let edit: String =
        tab.eval("[...document.querySelectorAll('a')].find(a => a.textContent === 'Edit').getAttribute('href')").await;
    assert_eq!(edit, format!("/scraps/{sid}/edit"));
    let live: String = tab.eval("document.getElementById('run-status').getAttribute('aria-live')").await;
    assert_eq!(live, "polite");
    tab.screenshots("scrap-never-run").await;

    // Run now: pending, then the outcome, the data and the history, in place.
    tab.run("window.__svcMarker = 'still here'").await;
    tab.click("Run now").await;
    tab.wait_for("document.getElementById('run-status').innerText.includes('Pending…')", "the pending run").await;
    tab.screenshots("scrap-running").await;
    tab.wait_for("document.querySelector('#run-status .chip-success')", "the run's outcome").await;
    tab.wait_for("document.querySelector('#latest-data table.data')", "the latest data").await;
    let marker: String = tab.eval("window.__svcMarker || 'reloaded'").await;
    assert_eq!(marker, "still here", "the page was not reloaded");
    assert_eq!(tab.path().await, format!("/scraps/{sid}"));
    let status = text_of(&tab, "#run-status").await;
    assert!(status.contains("Success") && status.contains("Run finished: 3 items."), "{status}");
    let headers: Vec<String> =
        tab.eval("[...document.querySelectorAll('#latest-data thead th')].map(th => th.textContent)").await;
    assert_eq!(headers, ["name", "i", "tags"]);
    let first_row: Vec<String> = tab
        .eval("[...document.querySelectorAll('#latest-data tbody tr:first-child td')].map(td => td.textContent)")
        .await;
    assert_eq!(first_row, ["Item 0", "0", r#"["x","0"]"#]);
    let history = text_of(&tab, "#run-history").await;
    assert!(history.contains("Success") && history.contains("Run now") && history.contains("1 run"), "{history}");
    let activity = text_of(&tab, "#activity").await;
    assert!(activity.contains("Run finished") && activity.contains("Run triggered"), "{activity}");
    // The outcome links to the run's page, as does the history row.
    let (_, rows) = app.get(&format!("/api/historys?scrap={sid}"), &alice.token).await;
    let run_id = rows["data"][0]["id"].as_str().unwrap().to_string();
    let link: String = tab.eval("document.querySelector('#run-status a').getAttribute('href')").await;
    assert_eq!(link, format!("/scraps/{sid}/history/{run_id}"));
    let row_link: String = tab
        .eval(&format!("document.querySelector('tr[data-history-id={}] a').getAttribute('href')", js_str(&run_id)))
        .await;
    assert_eq!(row_link, link);
    tab.screenshots("scrap-with-data").await;
    tab.color_scheme(true).await;
    tab.screenshots("scrap-with-data-dark").await;
    tab.color_scheme(false).await;

    // A refused trigger says why, in the same place.
    drain_balance(&app, &alice).await;
    tab.click("Run now").await;
    tab.wait_for("document.getElementById('run-status').innerText.includes('No compute balance left')", "the refusal")
        .await;
    let status = text_of(&tab, "#run-status").await;
    assert!(status.contains("balance"), "the description of the 402 is shown: {status}");
    let marker: String = tab.eval("window.__svcMarker || 'reloaded'").await;
    assert_eq!(marker, "still here");
    let enabled: bool = tab.eval("!document.querySelector('form[data-run-now] button').disabled").await;
    assert!(enabled, "Run now can be pressed again");
    tab.screenshots("scrap-run-refused").await;
    browser.close().await;
}

#[tokio::test]
async fn long_data_is_capped_and_links_to_the_run() {
    let site = fixture::start().await;
    let app = TestApp::start_with(&[PRIVATE_OK]).await;
    let alice = app.signup("alice@example.com").await;
    let script = "returnData([...document.querySelectorAll('li.item')].map(li => li.textContent))";
    let sid = app
        .scrap_with(&alice, json!({"title": "Many", "url": format!("{}/items/150", site.base), "request": script}))
        .await;
    let (status, row) = app.run_and_wait(&alice.token, &sid).await;
    assert_eq!((status, row["statusDetail"].as_str()), (StatusCode::OK, Some("success")), "{row}");
    let browser = WebBrowser::launch().await;
    let tab = browser.tab(&app.base).await;
    log_in(&tab, &alice).await;
    tab.open(&format!("/scraps/{sid}")).await;
    let rows: i64 = tab.eval("document.querySelectorAll('#latest-data tbody tr').length").await;
    assert_eq!(rows, 100);
    let header: Vec<String> =
        tab.eval("[...document.querySelectorAll('#latest-data thead th')].map(th => th.textContent)").await;
    assert_eq!(header, ["value"], "items that are not objects are in one column");
    let note = text_of(&tab, "#latest-data .data-note").await;
    assert!(note.contains("Showing 100 of 150 items."), "{note}");
    let more: String = tab.eval("document.querySelector('#latest-data .data-note a').getAttribute('href')").await;
    assert_eq!(more, format!("/scraps/{sid}/history/{}", row["id"].as_str().unwrap()));
    browser.close().await;
}

#[tokio::test]
async fn delete_asks_first_then_removes_the_scrap() {
    let app = TestApp::start().await;
    let alice = app.signup("alice@example.com").await;
    let sid = app.create_scrap(&alice, "Old prices").await["id"].as_str().unwrap().to_string();
    let browser = WebBrowser::launch().await;
    let tab = browser.tab(&app.base).await;
    log_in(&tab, &alice).await;
    tab.open(&format!("/scraps/{sid}")).await;

    // Declined: nothing happens.
    tab.run("window.confirm = (q) => { window.__svcAsked = q; return false; }").await;
    tab.click("Delete").await;
    tab.wait_for("window.__svcAsked", "the question").await;
    let asked: String = tab.eval("window.__svcAsked").await;
    assert!(asked.contains("Delete “Old prices”?"), "{asked}");
    assert_eq!(tab.path().await, format!("/scraps/{sid}"));
    assert_eq!(app.get(&format!("/api/scraps/{sid}"), &alice.token).await.0, StatusCode::OK);

    // Confirmed: gone, back to the list with a notice.
    tab.run("window.confirm = () => true").await;
    tab.click_and_load("Delete").await;
    assert_eq!(tab.path().await, "/?deleted=1");
    let text = tab.text().await;
    assert!(text.contains("The scrap was deleted.") && !text.contains("Old prices"), "{text}");
    tab.screenshots("scrap-deleted").await;
    assert_eq!(app.get(&format!("/api/scraps/{sid}"), &alice.token).await.0, StatusCode::NOT_FOUND);
    tab.open(&format!("/scraps/{sid}")).await;
    assert!(tab.text().await.contains("This scrap does not exist, or is not yours to see."));
    browser.close().await;
}

#[tokio::test]
async fn the_forms_work_without_the_script_and_refuse_what_they_must() {
    let app = TestApp::start().await;
    let alice = app.signup("alice@example.com").await;
    let bob = app.signup("bob@example.com").await;
    let sid = app.create_scrap(&alice, "Alice's").await["id"].as_str().unwrap().to_string();
    let http = plain_http();
    let page =
        |token: &str, path: String| http.get(format!("{}{path}", app.base)).header("cookie", session_cookie(token));
    let post = |token: &str, path: String, csrf: &str| {
        http.post(format!("{}{path}", app.base))
            .header("cookie", session_cookie(token))
            .header("origin", &app.base)
            .form(&[("csrf", csrf)])
    };
    let alice_csrf = csrf_token_of(&app, &alice.token).await;
    let bob_csrf = csrf_token_of(&app, &bob.token).await;

    // Another organization's scrap, or no scrap at all: the 404 page.
    for (token, path) in [
        (&bob.token, format!("/scraps/{sid}")),
        (&alice.token, format!("/scraps/{}", ObjectId::new())),
        (&alice.token, "/scraps/not-an-id".to_string()),
    ] {
        let response = page(token, path.clone()).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::NOT_FOUND, "{path}");
        let body = response.text().await.unwrap();
        assert!(body.contains("Not found") && body.contains("does not exist"), "{path}: {body}");
    }
    for action in ["run", "delete"] {
        let refused = post(&bob.token, format!("/scraps/{sid}/{action}"), &bob_csrf).send().await.unwrap();
        assert_eq!(refused.status(), StatusCode::NOT_FOUND, "bob cannot {action} alice's scrap");
        let forged = post(&alice.token, format!("/scraps/{sid}/{action}"), "forged").send().await.unwrap();
        assert_eq!(forged.status(), StatusCode::FORBIDDEN, "{action} without the CSRF token");
    }
    assert_eq!(app.get(&format!("/api/scraps/{sid}"), &alice.token).await.0, StatusCode::OK);

    // Run now as a plain form: the run starts, back to the page that watches it.
    let started = post(&alice.token, format!("/scraps/{sid}/run"), &alice_csrf).send().await.unwrap();
    assert_eq!(started.status(), StatusCode::SEE_OTHER);
    let location = started.headers()[LOCATION].to_str().unwrap().to_string();
    let prefix = format!("/scraps/{sid}?started=");
    assert!(location.starts_with(&prefix), "{location}");
    let run_id = location[prefix.len()..].split('#').next().unwrap().to_string();
    let (status, run) = app.get(&format!("/api/historys/{run_id}"), &alice.token).await;
    assert_eq!((status, run["triggeredBy"].as_str()), (StatusCode::OK, Some("user")), "{run}");
    let body = page(&alice.token, location.clone()).send().await.unwrap().text().await.unwrap();
    assert!(body.contains("Run started.") && body.contains(&format!("data-watch-run=\"{run_id}\"")), "{body}");

    // No balance: the plain form says why.
    drain_balance(&app, &alice).await;
    let refused = post(&alice.token, format!("/scraps/{sid}/run"), &alice_csrf).send().await.unwrap();
    assert_eq!(refused.status(), StatusCode::PAYMENT_REQUIRED);
    assert!(refused.text().await.unwrap().contains("No compute balance left"));

    // Delete as a plain form.
    let deleted = post(&alice.token, format!("/scraps/{sid}/delete"), &alice_csrf).send().await.unwrap();
    assert_eq!(deleted.status(), StatusCode::SEE_OTHER);
    assert_eq!(deleted.headers()[LOCATION], "/?deleted=1");
    assert_eq!(app.get(&format!("/api/scraps/{sid}"), &alice.token).await.0, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn the_run_history_and_the_activity_log_are_paged() {
    let app = TestApp::start().await;
    let alice = app.signup("alice@example.com").await;
    let sid = app.create_scrap(&alice, "Busy").await["id"].as_str().unwrap().to_string();
    let mut runs = Vec::new();
    for _ in 0..21 {
        runs.push(app.insert_run(&alice, &sid, Some(svc_domain::history::StatusDetail::Success)).await.id);
    }
    for n in 0..20 {
        let (status, _) =
            app.put(&format!("/api/scraps/{sid}"), &alice.token, json!({"title": format!("Busy {n}")})).await;
        assert_eq!(status, StatusCode::OK);
    }
    let page = |query: &'static str| {
        let url = format!("{}/scraps/{sid}{query}", app.base);
        let request = app.http.get(url).header("cookie", session_cookie(&alice.token));
        async move { request.send().await.unwrap().text().await.unwrap() }
    };
    let first = page("").await;
    assert_eq!(first.matches("data-history-id=").count(), 20);
    assert!(first.contains(&format!("data-history-id=\"{}\"", runs[20])), "newest first");
    assert!(first.contains("21 runs") && first.contains("21 entries"), "the totals");
    assert_eq!(first.matches("Page 1 of 2").count(), 2, "a pager for each list");
    assert!(
        first.contains("aria-label=\"Pages of the run history\"")
            && first.contains("aria-label=\"Pages of the activity log\"")
    );
    assert!(first.contains(&format!("href=\"/scraps/{sid}?runs=2&#38;log=1#run-history\"")), "{first}");
    assert!(first.contains(&format!("href=\"/scraps/{sid}?runs=1&#38;log=2#activity\"")));
    let second = page("?runs=2&log=2").await;
    assert_eq!(second.matches("data-history-id=").count(), 1);
    assert!(second.contains(&format!("data-history-id=\"{}\"", runs[0])), "the oldest run last");
    assert!(second.contains("Scrap created") && !second.contains("Scrap updated: title"), "the oldest entry last");
    // Pages past the end, or not numbers, are the first or an empty page, never an error.
    assert!(page("?runs=x&log=-3").await.contains("Page 1 of 2"));
    assert!(page("?runs=99").await.contains("Page 99 of 2"));
}

/// The ids in a page's path are read by one extractor: a malformed one is
/// the page of a thing that does not exist, named as before; a form's
/// session and CSRF checks still come first.
#[tokio::test]
async fn malformed_ids_in_page_paths_are_not_found_after_the_form_checks() {
    let app = TestApp::start_with(&[("SVC_EMBEDDED_WORKER", "false")]).await;
    let alice = app.signup("alice@example.com").await;
    let sid = app.create_scrap(&alice, "Alice's").await["id"].as_str().unwrap().to_string();
    let csrf = csrf_token_of(&app, &alice.token).await;
    let http = plain_http();
    let unknown = ObjectId::new();
    let not_found = |noun: &str| format!("This {noun} does not exist, or is not yours to see.");

    for (path, noun) in [
        ("/scraps/nope".to_string(), "scrap"),
        ("/scraps/nope/edit".to_string(), "scrap"),
        ("/scraps/nope/versions".to_string(), "scrap"),
        (format!("/scraps/nope/history/{unknown}"), "scrap"),
        (format!("/scraps/{sid}/history/nope"), "run"),
        (format!("/scraps/{sid}/history/nope/data.json"), "run"),
        (format!("/scraps/{sid}/history/nope/progress"), "run"),
        ("/developers/webhooks/nope".to_string(), "webhook"),
        ("/developers/webhooks/nope/edit".to_string(), "webhook"),
        ("/developers/webhooks/nope/deliveries".to_string(), "webhook"),
    ] {
        let response = http
            .get(format!("{}{path}", app.base))
            .header("cookie", session_cookie(&alice.token))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::NOT_FOUND, "{path}");
        let body = response.text().await.unwrap();
        assert!(body.contains(&not_found(noun)), "{path}: {body}");
    }
    // Not UTF-8 once decoded: no such page (axum's own answer is a plain-text 400).
    let response = http
        .get(format!("{}/scraps/%FF", app.base))
        .header("cookie", session_cookie(&alice.token))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
    assert!(response.text().await.unwrap().contains("There is no page at this address."));

    let post = |path: &str, csrf: &str| {
        http.post(format!("{}{path}", app.base))
            .header("cookie", session_cookie(&alice.token))
            .header("origin", &app.base)
            .form(&[("csrf", csrf)])
    };
    for (path, noun) in [
        ("/scraps/nope/run".to_string(), "scrap"),
        ("/scraps/nope/delete".to_string(), "scrap"),
        ("/scraps/nope/login/remove".to_string(), "scrap"),
        (format!("/scraps/{sid}/versions/nope/restore"), "version"),
        ("/developers/keys/nope/revoke".to_string(), "API key"),
        ("/developers/webhooks/nope/delete".to_string(), "webhook"),
        (format!("/developers/webhooks/{unknown}/deliveries/nope/redeliver"), "delivery"),
    ] {
        let response = post(&path, &csrf).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::NOT_FOUND, "{path}");
        let body = response.text().await.unwrap();
        assert!(body.contains(&not_found(noun)), "{path}: {body}");
        // Without the CSRF token: refused as a forgery, before the id is read.
        let forged = post(&path, "forged").send().await.unwrap();
        assert_eq!(forged.status(), StatusCode::FORBIDDEN, "{path}");
        // Without a session: to the log-in page, before the id is read.
        let anonymous =
            http.post(format!("{}{path}", app.base)).header("origin", &app.base).form(&[("csrf", "x")]).send();
        let anonymous = anonymous.await.unwrap();
        assert!(anonymous.status().is_redirection(), "{path}: {}", anonymous.status());
        let to = anonymous.headers().get(LOCATION).unwrap().to_str().unwrap().to_string();
        assert!(to.starts_with("/login"), "{path}: {to}");
    }
}
