//! The run page: outcome, data as a table and JSON, the downloads (CSV and
//! JSON equal to the run's data), what changed since the previous successful
//! run, navigation between runs, the admin-only costs and error snapshot,
//! and the 404s.

use reqwest::StatusCode;
use serde_json::{Value, json};
use svc_domain::history::StatusDetail;
use svc_domain::{ObjectId, UserId};

use super::browser::{Tab, WebBrowser, js_str};
use super::scrap_page::{PRIVATE_OK, log_in};
use super::session_cookie;
use crate::common::{TestApp, fixture, parse_csv};

/// What a CSV field holds for `value`: a string as it is, anything else as JSON.
fn csv_text(value: Option<&Value>) -> String {
    match value {
        None => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

fn data_of(row: &Value) -> Vec<Value> {
    serde_json::from_str(row["data"].as_str().expect("data is a JSON string")).unwrap()
}

async fn texts(tab: &Tab, selector: &str) -> Vec<String> {
    tab.eval(&format!("[...document.querySelectorAll({})].map(e => e.innerText.trim())", js_str(selector))).await
}

async fn text_of_diff(tab: &Tab) -> String {
    tab.eval("document.getElementById('run-diff').innerText").await
}

async fn href_of(tab: &Tab, text: &str) -> Option<String> {
    tab.eval(&format!(
        "(() => {{ const a = [...document.querySelectorAll('a')].find(a => a.textContent.trim() === {}); \
         return a ? a.getAttribute('href') : null; }})()",
        js_str(text)
    ))
    .await
}

const FIRST: &str = r#"returnData([
  {id: 1, name: "Lamp", price: 10},
  {id: 2, name: "Desk, oak", price: 200, tags: ["wood"]},
  {id: 3, name: 'Chair "Eames"', price: 90},
]);"#;
const SECOND: &str = r#"returnData([
  {id: 1, name: "Lamp", price: 10},
  {id: 2, name: "Desk, oak", price: 180, tags: ["wood", "sale"]},
  {id: 4, name: "Shelf\nfor the wall", price: 55, note: null},
]);"#;
const FAILING: &str = "await SVC.waitFor('#no-such-list', 300);\nreturnData([]);";

#[tokio::test]
async fn a_run_page_shows_its_data_downloads_and_what_changed() {
    let site = fixture::start().await;
    let app = TestApp::start_with(&[PRIVATE_OK]).await;
    let alice = app.signup("alice@example.com").await;
    let url = format!("{}/items/2", site.base);
    let sid = app.scrap_with(&alice, json!({"title": "Price list (EU)", "url": url, "request": FIRST})).await;
    let run = |request: &'static str| {
        let (app, alice, sid) = (&app, &alice, &sid);
        async move {
            let (status, _) = app.put(&format!("/api/scraps/{sid}"), &alice.token, json!({"request": request})).await;
            assert_eq!(status, StatusCode::OK);
            let (status, row) = app.run_and_wait(&alice.token, sid).await;
            assert_eq!(status, StatusCode::OK, "{row}");
            row
        }
    };
    let first = run(FIRST).await;
    let second = run(SECOND).await;
    let failed = run(FAILING).await;
    assert_eq!(first["statusDetail"], "success", "{first}");
    assert_eq!(second["statusDetail"], "success", "{second}");
    assert_eq!(failed["statusDetail"], "error", "{failed}");
    let id = |row: &Value| row["id"].as_str().unwrap().to_string();
    let page_of = |row: &Value| format!("/scraps/{sid}/history/{}", row["id"].as_str().unwrap());

    let browser = WebBrowser::launch().await;
    let tab = browser.tab(&app.base).await;
    log_in(&tab, &alice).await;
    tab.open(&page_of(&second)).await;
    let text = tab.text().await;
    for expected in ["Price list (EU)", "Success", "the script returned data", "Run now", "tier0"] {
        assert!(text.contains(expected), "{expected:?} in:\n{text}");
    }

    // The data as a table (columns in first-seen order) and as JSON.
    let headers = texts(&tab, "#run-data > .table-wrap thead th").await;
    assert_eq!(headers, ["id", "name", "price", "tags", "note"]);
    let rows: Vec<Vec<String>> =
        tab.eval("[...document.querySelectorAll('#run-data > .table-wrap tbody tr')].map(tr => [...tr.cells].map(td => td.textContent))").await;
    assert_eq!(rows[1], ["2", "Desk, oak", "180", r#"["wood","sale"]"#, ""]);
    assert_eq!(rows[2], ["4", "Shelf\nfor the wall", "55", "", "null"]);
    let pretty: String = tab.eval("document.querySelector('#run-data pre.json').textContent").await;
    assert!(pretty.contains("\n  {\n    \"id\": 2,"), "indented, keys in order: {pretty}");
    assert_eq!(serde_json::from_str::<Value>(&pretty).unwrap(), Value::Array(data_of(&second)));

    // What changed since the first run: matched on `id`.
    let summary = texts(&tab, "#run-diff .diff-summary li").await;
    assert_eq!(summary, ["1 added", "1 removed", "1 changed", "1 unchanged"]);
    let diff = text_of_diff(&tab).await;
    assert!(diff.contains("items matched on id."), "{diff}");
    let added = texts(&tab, "#run-diff h3.diff-added + .table-wrap tbody tr").await;
    assert_eq!(added.len(), 1);
    assert!(added[0].contains("Shelf"), "{added:?}");
    let removed = texts(&tab, "#run-diff h3.diff-removed + .table-wrap tbody tr").await;
    assert_eq!(removed.len(), 1);
    assert!(removed[0].contains("Chair \"Eames\""), "{removed:?}");
    let changed: Vec<Vec<String>> =
        tab.eval("[...document.querySelectorAll('#run-diff table.diff-changes tbody tr')].map(tr => [...tr.cells].map(td => td.textContent))").await;
    assert_eq!(changed, [vec!["2", "price", "200", "180"], vec!["2", "tags", r#"["wood"]"#, r#"["wood","sale"]"#]]);
    let against: String = tab.eval("document.querySelector('#run-diff .diff a').getAttribute('href')").await;
    assert_eq!(against, page_of(&first));

    // The runs before and after.
    assert_eq!(href_of(&tab, "← Previous run").await, Some(page_of(&first)));
    assert_eq!(href_of(&tab, "Next run →").await, Some(page_of(&failed)));
    // Costs are for platform admins only.
    assert!(!text.contains("Platform admin") && !text.contains("Costs"), "{text}");
    assert!(!tab.html().await.contains("pre class=\"json costs\""));
    tab.screenshots("run-diff").await;

    // The downloads: the browser's links, fetched with the session cookie.
    let csv_href = href_of(&tab, "Download CSV").await.expect("a CSV link");
    let json_href = href_of(&tab, "Download JSON").await.expect("a JSON link");
    let fetch = |href: String| {
        app.http.get(format!("{}{href}", app.base)).header("cookie", session_cookie(&alice.token)).send()
    };
    let csv = fetch(csv_href).await.unwrap();
    assert_eq!(csv.status(), StatusCode::OK);
    assert!(csv.headers()["content-type"].to_str().unwrap().starts_with("text/csv"));
    assert_eq!(
        csv.headers()["content-disposition"],
        format!("attachment; filename=\"price-list-eu-{}.csv\"", id(&second)).as_str()
    );
    let records = parse_csv(&csv.text().await.unwrap());
    let (header, records) = records.split_first().expect("a header row");
    assert_eq!(header, &["id", "name", "price", "tags", "note"]);
    let items = data_of(&second);
    assert_eq!(records.len(), items.len());
    for (record, item) in records.iter().zip(&items) {
        let expected: Vec<String> = header.iter().map(|column| csv_text(item.get(column))).collect();
        assert_eq!(record, &expected);
    }
    let json = fetch(json_href).await.unwrap();
    assert_eq!(json.status(), StatusCode::OK);
    assert!(json.headers()["content-type"].to_str().unwrap().starts_with("application/json"));
    assert_eq!(
        json.headers()["content-disposition"],
        format!("attachment; filename=\"price-list-eu-{}.json\"", id(&second)).as_str()
    );
    assert_eq!(json.text().await.unwrap(), second["data"].as_str().unwrap(), "exactly the row's data");
    // NDJSON: one item per line; XLSX: a workbook (its cells are compared
    // with the JSON by a real reader in `exports::`).
    let ndjson = fetch(href_of(&tab, "Download NDJSON").await.expect("an NDJSON link")).await.unwrap();
    assert_eq!(ndjson.status(), StatusCode::OK);
    assert_eq!(ndjson.headers()["content-type"], "application/x-ndjson");
    let lines: Vec<Value> = ndjson.text().await.unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines, items);
    let xlsx = fetch(href_of(&tab, "Download Excel (XLSX)").await.expect("an XLSX link")).await.unwrap();
    assert_eq!(xlsx.status(), StatusCode::OK);
    assert_eq!(
        xlsx.headers()["content-disposition"],
        format!("attachment; filename=\"price-list-eu-{}.xlsx\"", id(&second)).as_str()
    );
    assert!(xlsx.bytes().await.unwrap().starts_with(b"PK"), "a zip");

    // The first run has nothing before it.
    tab.click_and_load("← Previous run").await;
    assert_eq!(tab.path().await, page_of(&first));
    let text = tab.text().await;
    assert!(text.contains("There is no earlier successful run to compare with."), "{text}");
    let no_previous: bool = tab.eval("!!document.querySelector('span.disabled[aria-disabled=true]')").await;
    assert!(no_previous);

    // The failed run: its error, no comparison, no admin figures.
    tab.open(&page_of(&failed)).await;
    let text = tab.text().await;
    for expected in ["Error", "the run failed", "#no-such-list", "This run failed, so it has no data to compare."] {
        assert!(text.contains(expected), "{expected:?} in:\n{text}");
    }
    assert!(!text.contains("Error snapshot") && !text.contains("Costs"), "{text}");
    assert!(!tab.html().await.contains("data:image/png"));
    tab.screenshots("run-error").await;

    // A platform admin also sees costs, metering and the error snapshot.
    app.store.set_admin(alice.org(), UserId::parse(&alice.user_id).unwrap(), true).await.unwrap();
    tab.open(&page_of(&failed)).await;
    let text = tab.text().await;
    assert!(text.contains("Platform admin") && text.contains("Costs") && text.contains("Error snapshot"), "{text}");
    let costs: String = tab.eval("document.querySelector('pre.costs').textContent").await;
    let costs: Value = serde_json::from_str(&costs).unwrap();
    assert!(costs.get("total").is_some(), "{costs}");
    let meter: String = tab.eval("document.querySelector('pre.meter').textContent").await;
    assert!(serde_json::from_str::<Value>(&meter).unwrap().get("units").is_some(), "{meter}");
    let selector: String = tab.eval("document.querySelector('#run-admin dd code').textContent").await;
    assert_eq!(selector, "#no-such-list");
    let screenshot: String = tab.eval("document.querySelector('#run-admin img.screenshot').getAttribute('src')").await;
    assert!(screenshot.starts_with("data:image/png;base64,iVBORw0KGgo"), "{}", &screenshot[..40.min(screenshot.len())]);
    let shown: bool = tab.eval("document.querySelector('#run-admin img.screenshot').naturalWidth > 0").await;
    assert!(shown, "the screenshot loads under the CSP");
    let html_closed: bool = tab.eval("!document.querySelector('#run-admin details.snapshot-html').open").await;
    assert!(html_closed, "the page HTML is collapsed");
    let html: String = tab.eval("document.querySelector('#run-admin details.snapshot-html pre').textContent").await;
    assert!(html.contains("Item 0"), "the target page's markup: {}", &html[..200.min(html.len())]);
    tab.screenshots("run-error-admin").await;
    tab.open(&page_of(&second)).await;
    assert!(tab.text().await.contains("Costs"));
    browser.close().await;
}

#[tokio::test]
async fn a_pending_run_updates_its_page_when_it_finishes() {
    let site = fixture::start().await;
    let app = TestApp::start_with(&[PRIVATE_OK]).await;
    let alice = app.signup("alice@example.com").await;
    let script = "await SVC.sleep(2500);\nreturnData([{sku: 'A-1', stock: 3}]);";
    let sid = app
        .scrap_with(&alice, json!({"title": "Stock", "url": format!("{}/items/1", site.base), "request": script}))
        .await;
    let (status, pending) =
        app.send(app.request(reqwest::Method::POST, &format!("/api/scraps/worker/{sid}"), Some(&alice.token))).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{pending}");
    let hid = pending["historyId"].as_str().unwrap();
    let browser = WebBrowser::launch().await;
    let tab = browser.tab(&app.base).await;
    log_in(&tab, &alice).await;
    tab.open(&format!("/scraps/{sid}/history/{hid}")).await;
    tab.run("window.__svcMarker = 'still here'").await;
    let text = tab.text().await;
    assert!(text.contains("Running") && text.contains("The run has not finished yet."), "{text}");
    tab.screenshots("run-pending").await;
    tab.wait_for("document.querySelector('#run-outcome .chip-success')", "the finished run").await;
    tab.wait_for("document.querySelector('#run-data table.data')", "its data").await;
    let marker: String = tab.eval("window.__svcMarker || 'reloaded'").await;
    assert_eq!(marker, "still here");
    let cells = texts(&tab, "#run-data tbody td").await;
    assert_eq!(cells, ["A-1", "3"]);
    browser.close().await;
}

#[tokio::test]
async fn runs_of_other_scraps_and_organizations_are_not_found() {
    let app = TestApp::start().await;
    let alice = app.signup("alice@example.com").await;
    let bob = app.signup("bob@example.com").await;
    let mine = app.create_scrap(&alice, "Mine").await["id"].as_str().unwrap().to_string();
    let sibling = app.create_scrap(&alice, "Sibling").await["id"].as_str().unwrap().to_string();
    let bobs = app.create_scrap(&bob, "Bob's").await["id"].as_str().unwrap().to_string();
    let my_run = app.insert_run(&alice, &mine, Some(StatusDetail::Success)).await.id;
    let sibling_run = app.insert_run(&alice, &sibling, Some(StatusDetail::Success)).await.id;
    let get = |token: &str, path: String| {
        app.http.get(format!("{}{path}", app.base)).header("cookie", session_cookie(token)).send()
    };
    for suffix in ["", "/data.json", "/data.csv", "/data.ndjson", "/data.xlsx"] {
        let ok = get(&alice.token, format!("/scraps/{mine}/history/{my_run}{suffix}")).await.unwrap();
        assert_eq!(ok.status(), StatusCode::OK, "{suffix}");
        for (token, path) in [
            // Another organization's scrap and run.
            (&bob.token, format!("/scraps/{mine}/history/{my_run}{suffix}")),
            // Another organization's run under one's own scrap.
            (&bob.token, format!("/scraps/{bobs}/history/{my_run}{suffix}")),
            // A run of another scrap under this scrap's path.
            (&alice.token, format!("/scraps/{mine}/history/{sibling_run}{suffix}")),
            (&alice.token, format!("/scraps/{mine}/history/{}{suffix}", ObjectId::new())),
            (&alice.token, format!("/scraps/{mine}/history/nope{suffix}")),
        ] {
            let response = get(token, path.clone()).await.unwrap();
            assert_eq!(response.status(), StatusCode::NOT_FOUND, "{path}");
            assert!(response.headers()["content-type"].to_str().unwrap().starts_with("text/html"), "{path}");
            let body = response.text().await.unwrap();
            assert!(body.contains("Not found") && body.contains("does not exist"), "{path}: {body}");
        }
    }
    // Not signed in: to the log-in page, not the data.
    let anonymous = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
    let response =
        anonymous.get(format!("{}/scraps/{mine}/history/{my_run}/data.json", app.base)).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    assert!(response.headers()["location"].to_str().unwrap().starts_with("/login?next="));
}
