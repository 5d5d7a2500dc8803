//! Issue 35: one run of a scrap crawls. Against a local catalog (an index,
//! 5 listing pages of 20 items, a detail page per item), a script that
//! enqueues the next listings and the detail pages returns the 100 detail
//! records in order on both engines, and `GET /api/historys/:id/pages`
//! lists the 106 pages; `pages` and `depth` cut the crawl where they say;
//! a duplicate is visited once; a page answering 500 is an error page in a
//! run that succeeds; robots.txt is obeyed unless `ignore-robots`; pages
//! stay on the start page's site unless `any-site`; a private address is
//! refused like any other.

use reqwest::StatusCode;
use serde_json::{Value, json};
use svc_domain::plan::Plan;

use crate::common::catalog_site::{CatalogSite, catalog_script};
use crate::common::{Account, TestApp, assert_error};

/// The catalog is on 127.0.0.1: that address only, not every private range.
const LOOPBACK_ONLY: (&str, &str) = ("SVC_ALLOW_PRIVATE_NETWORKS", "127.0.0.0/8");
const ENGINES: [&str; 2] = ["static", "puppeteer"];

async fn crawl(app: &TestApp, alice: &Account, site: &CatalogSite, engine: &str, directive: &str) -> (String, Value) {
    let sid = app
        .scrap_with(
            alice,
            json!({"title": format!("Catalog on {engine}"), "url": format!("{}/", site.base), "scrapper": engine,
                   "request": catalog_script(directive)}),
        )
        .await;
    let (status, row) = app.run_and_wait(&alice.token, &sid).await;
    assert_eq!(status, StatusCode::OK, "{row}");
    (sid, row)
}

async fn pages(app: &TestApp, account: &Account, run: &Value) -> Vec<Value> {
    let id = run["id"].as_str().unwrap();
    let (status, page) = app.get(&format!("/api/historys/{id}/pages?perPage=100"), &account.token).await;
    assert_eq!(status, StatusCode::OK, "{page}");
    let mut all = page["data"].as_array().unwrap().clone();
    let total = page["total"].as_i64().unwrap();
    let mut n = 2;
    while (all.len() as i64) < total {
        let (_, more) = app.get(&format!("/api/historys/{id}/pages?perPage=100&page={n}"), &account.token).await;
        all.extend(more["data"].as_array().unwrap().iter().cloned());
        n += 1;
    }
    all
}

fn titles(run: &Value) -> Vec<String> {
    let data: Vec<Value> = serde_json::from_str(run["data"].as_str().unwrap()).unwrap();
    data.iter().map(|d| d["title"].as_str().unwrap_or_default().to_string()).collect()
}

fn count(pages: &[Value], field: &str, value: &str) -> usize {
    pages.iter().filter(|p| p[field] == value).count()
}

async fn app_for_crawls() -> (TestApp, Account) {
    let app = TestApp::start_with(&[LOOPBACK_ONLY]).await;
    let alice = app.signup("alice@example.com").await;
    app.store.set_plan(alice.org(), Plan::Growth).await.unwrap();
    (app, alice)
}

#[tokio::test]
async fn a_catalog_crawl_returns_every_detail_in_order_on_both_engines() {
    // Details answer after uneven delays: four at a time, they finish out of order.
    let site = CatalogSite::start_with(false, true).await;
    let (app, alice) = app_for_crawls().await;
    for engine in ENGINES {
        let (_, run) = crawl(&app, &alice, &site, engine, "pages=200 parallel=4").await;
        assert_eq!(
            (run["statusDetail"].as_str(), run["length"].as_i64()),
            (Some("success"), Some(100)),
            "{engine}: {run}"
        );
        let expected: Vec<String> = (1..=100).map(|k| format!("Lamp {k}")).collect();
        assert_eq!(titles(&run), expected, "{engine}: the details in the order they were enqueued");
        let data: Vec<Value> = serde_json::from_str(run["data"].as_str().unwrap()).unwrap();
        assert_eq!((data[0]["from"].as_str(), data[99]["from"].as_str()), (Some("1"), Some("5")), "SVC.data");

        let listed = pages(&app, &alice, &run).await;
        assert_eq!(listed.len(), 106, "{engine}: the index, 5 listings, 100 details");
        assert_eq!(listed[0]["url"], format!("{}/", site.base));
        assert_eq!((listed[0]["label"].as_str(), listed[0]["depth"].as_i64()), (Some("start"), Some(0)));
        assert_eq!(count(&listed, "status", "ok"), 106, "{engine}: {listed:?}");
        assert_eq!((count(&listed, "label", "list"), count(&listed, "label", "detail")), (5, 100));
        let positions: Vec<i64> = listed.iter().map(|p| p["position"].as_i64().unwrap()).collect();
        assert_eq!(positions, (0..106).collect::<Vec<_>>());
        let items: i64 = listed.iter().map(|p| p["items"].as_i64().unwrap()).sum();
        assert_eq!(items, 100);
        let deepest = listed.iter().map(|p| p["depth"].as_i64().unwrap()).max();
        assert_eq!(deepest, Some(6), "the last listing's items are six links from the index");
    }
    // Each page once per run: two runs, every item fetched twice.
    assert_eq!(site.hits("/item/37"), 2);
    assert_eq!(site.hits("/catalog?page=3"), 2);
}

#[tokio::test]
async fn limits_cut_the_crawl_where_they_say() {
    let site = CatalogSite::start(false).await;
    let (app, alice) = app_for_crawls().await;
    for engine in ENGINES {
        // Ten pages: the index, the first listing and 8 of its items.
        let (_, run) = crawl(&app, &alice, &site, engine, "pages=10").await;
        assert_eq!(
            (run["statusDetail"].as_str(), run["length"].as_i64()),
            (Some("success"), Some(8)),
            "{engine}: {run}"
        );
        let listed = pages(&app, &alice, &run).await;
        assert_eq!(count(&listed, "status", "ok"), 10, "{engine}: {listed:?}");
        assert_eq!(titles(&run), (1..=8).map(|k| format!("Lamp {k}")).collect::<Vec<_>>());
        // Depth 2: the index, the first listing, its 20 items and the second listing.
        let (_, run) = crawl(&app, &alice, &site, engine, "depth=2").await;
        assert_eq!(run["length"], 20, "{engine}: {run}");
        let listed = pages(&app, &alice, &run).await;
        assert_eq!(listed.len(), 23, "{engine}: {listed:?}");
        assert!(listed.iter().all(|p| p["depth"].as_i64().unwrap() <= 2));
    }
    // Without the directive a script is one page, as it always was:
    // `SVC.enqueue` answers false and no page is listed.
    let sid = app
        .scrap_with(
            &alice,
            json!({"title": "One page", "url": format!("{}/", site.base), "scrapper": "static",
                   "request": "returnData([{added: SVC.enqueue('/catalog?page=1'), label: SVC.label}])"}),
        )
        .await;
    let (_, run) = app.run_and_wait(&alice.token, &sid).await;
    assert_eq!(run["data"], r#"[{"added":false,"label":"start"}]"#, "{run}");
    assert!(pages(&app, &alice, &run).await.is_empty());
    // A directive that does not parse is refused when the scrap is saved.
    let (status, err) = app
        .post(
            "/api/scraps",
            &alice.token,
            json!({"title": "Bad", "url": site.base, "request": "// svc:crawl pages=0\nreturnData([])"}),
        )
        .await;
    assert_error(status, &err, StatusCode::UNPROCESSABLE_ENTITY, "VALIDATION");
    assert!(err.to_string().contains("pages=0"), "{err}");
}

#[tokio::test]
async fn duplicates_errors_robots_other_sites_and_private_addresses() {
    let site = CatalogSite::start(true).await;
    let (app, alice) = app_for_crawls().await;
    for engine in ENGINES {
        let (_, run) = crawl(&app, &alice, &site, engine, "depth=2").await;
        assert_eq!(
            (run["statusDetail"].as_str(), run["length"].as_i64()),
            (Some("success"), Some(20)),
            "{engine}: {run}"
        );
        let listed = pages(&app, &alice, &run).await;
        let by_url = |path: &str| listed.iter().find(|p| p["url"] == format!("{}{path}", site.base)).cloned();
        let broken = by_url("/broken").unwrap_or_else(|| panic!("{engine}: the broken page is listed: {listed:?}"));
        assert_eq!(broken["status"], "error", "{broken}");
        assert!(broken["error"].as_str().unwrap().contains("500"), "{broken}");
        let private = by_url("/private/secret").expect("the disallowed page is listed");
        assert_eq!(private["status"], "skipped_robots", "{private}");
        assert_eq!(listed.iter().filter(|p| p["url"] == format!("{}/item/1", site.base)).count(), 1, "once");
        assert!(listed.iter().all(|p| !p["url"].as_str().unwrap().contains("localhost")), "another site is refused");
        assert!(listed.iter().all(|p| !p["url"].as_str().unwrap().contains("10.255.255.1")));
    }
    assert_eq!(site.hits("/private/secret"), 0, "robots.txt was obeyed");
    assert_eq!(site.hits("/broken"), 2);

    // `ignore-robots` and `any-site`: the disallowed page and the other site
    // are visited; the private address is refused as any page's would be.
    let (_, run) = crawl(&app, &alice, &site, "static", "depth=2 ignore-robots any-site").await;
    assert_eq!(run["statusDetail"], "success", "{run}");
    let listed = pages(&app, &alice, &run).await;
    let find =
        |url: &str| listed.iter().find(|p| p["url"] == url).cloned().unwrap_or_else(|| panic!("{url} in {listed:?}"));
    assert_eq!(find(&format!("{}/private/secret", site.base))["status"], "ok");
    assert_eq!(find(&format!("{}/item/999", site.base.replace("127.0.0.1", "localhost")))["status"], "ok");
    let refused = find("http://10.255.255.1/item/1");
    assert_eq!(refused["status"], "error", "{refused}");
    assert!(refused["error"].as_str().unwrap().contains("non-public address"), "{refused}");
    assert_eq!(site.hits("/private/secret"), 1);
}

#[tokio::test]
async fn a_run_s_pages_are_its_organization_s_and_its_key_s() {
    let site = CatalogSite::start(false).await;
    let (app, alice) = app_for_crawls().await;
    let (sid, run) = crawl(&app, &alice, &site, "static", "pages=3").await;
    let id = run["id"].as_str().unwrap();
    let eve = app.signup("eve@example.com").await;
    let (status, err) = app.get(&format!("/api/historys/{id}/pages"), &eve.token).await;
    assert_error(status, &err, StatusCode::NOT_FOUND, "NOT_FOUND");
    // A key allowed other scraps only: refused as the row is.
    let other = app.scrap_with(&alice, json!({"title": "Other", "url": site.base, "request": "returnData([])"})).await;
    let (_, key) = app.create_key(&alice, json!({"name": "other only", "scrapIds": [other]})).await;
    let (status, err) = app.get(&format!("/api/historys/{id}/pages"), &key).await;
    assert_error(status, &err, StatusCode::FORBIDDEN, "SCRAP_NOT_IN_KEY_SCOPE");
    let (_, key) =
        app.create_key(&alice, json!({"name": "this one", "scrapIds": [sid], "scopes": ["svc:history:read"]})).await;
    let (status, page) = app.get(&format!("/api/historys/{id}/pages"), &key).await;
    assert_eq!((status, page["total"].as_i64()), (StatusCode::OK, Some(3)), "{page}");
}

#[tokio::test]
async fn one_run_can_cover_every_parameter_set() {
    let site = CatalogSite::start(false).await;
    let (app, alice) = app_for_crawls().await;
    let script = "// svc:crawl pages=10\n\
                  if (SVC.label === 'start') {\n\
                    for (const p of SVC.params) SVC.enqueue('/item/' + p.value, { label: 'item', data: { key: p.key } });\n\
                    returnData([]);\n\
                  } else {\n\
                    returnData([{ key: SVC.data.key, title: document.querySelector('h1').textContent, depth: SVC.depth }]);\n\
                  }";
    for engine in ENGINES {
        let sid = app
            .scrap_with(
                &alice,
                json!({"title": "Every set", "url": format!("{}/", site.base), "scrapper": engine, "request": script,
                       "params": [{"key": "a", "value": 3}, {"key": "b", "value": 7}, {"key": "c", "value": 11}]}),
            )
            .await;
        let (_, run) = app.run_and_wait(&alice.token, &sid).await;
        assert_eq!(run["statusDetail"], "success", "{engine}: {run}");
        let data: Value = serde_json::from_str(run["data"].as_str().unwrap()).unwrap();
        assert_eq!(
            data,
            json!([{"key": "a", "title": "Lamp 3", "depth": 1}, {"key": "b", "title": "Lamp 7", "depth": 1},
                   {"key": "c", "title": "Lamp 11", "depth": 1}]),
            "{engine}"
        );
    }
}

#[tokio::test]
async fn a_crawl_stops_when_the_balance_runs_out_and_says_so() {
    let site = CatalogSite::start(false).await;
    let (app, alice) = app_for_crawls().await;
    let balance = app.store.organization(alice.org()).await.unwrap().unwrap().balance;
    app.store.add_balance(alice.org(), 5 - balance).await.unwrap();
    let (_, run) = crawl(&app, &alice, &site, "static", "pages=200").await;
    assert_eq!(run["statusDetail"], "success", "the pages it ran found items: {run}");
    let listed = pages(&app, &alice, &run).await;
    let ran = count(&listed, "status", "ok");
    assert!((2..=6).contains(&ran), "about five pages of one unit each: {ran} in {listed:?}");
    let stopped: Vec<&Value> = listed.iter().filter(|p| p["status"] == "skipped_limit").collect();
    assert!(!stopped.is_empty(), "{listed:?}");
    assert!(stopped.iter().all(|p| p["error"].as_str().unwrap().contains("balance ran out")), "{stopped:?}");
    let left = app.store.organization(alice.org()).await.unwrap().unwrap().balance;
    assert!(left <= 0, "every page it ran was charged: {left}");
    // The next run is refused at once: nothing is left.
    let sid = run["scrap"].as_str().unwrap();
    let (status, err) = app.post(&format!("/api/scraps/worker/{sid}"), &alice.token, json!({})).await;
    assert_error(status, &err, StatusCode::PAYMENT_REQUIRED, "INSUFFICIENT_BALANCE");
}

#[tokio::test]
async fn the_10_mib_data_cap_holds_for_the_whole_crawl() {
    let site = CatalogSite::start(false).await;
    let (app, alice) = app_for_crawls().await;
    // Each detail page returns about 1.2 MiB of items: the run's data reaches 10 MiB after a few.
    let script = "// svc:crawl depth=2\n\
                  if (SVC.label === 'detail') {\n\
                    returnData(Array.from({ length: 20000 }, (_, i) => ({ i, pad: 'x'.repeat(50) })));\n\
                  } else {\n\
                    for (const a of document.querySelectorAll('a.item')) SVC.enqueue(a.href, { label: 'detail' });\n\
                    for (const a of document.querySelectorAll('a.next')) SVC.enqueue(a.href, { label: 'list' });\n\
                    returnData([]);\n\
                  }";
    let sid = app
        .scrap_with(
            &alice,
            json!({"title": "Too much", "url": format!("{}/", site.base), "scrapper": "static", "request": script}),
        )
        .await;
    let (_, run) = app.run_and_wait(&alice.token, &sid).await;
    assert_eq!(run["statusDetail"], "success", "the pages within the cap count: {}", run["error"]);
    let data = run["data"].as_str().unwrap();
    assert!(data.len() <= 10 * 1024 * 1024, "{} characters", data.len());
    let listed = pages(&app, &alice, &run).await;
    let over: Vec<&Value> = listed.iter().filter(|p| p["status"] == "error").collect();
    assert_eq!(over.len(), 1, "{over:?}");
    assert!(over[0]["error"].as_str().unwrap().contains("over 10 MiB"), "{}", over[0]);
    let ok_items: i64 = listed.iter().filter(|p| p["status"] == "ok").map(|p| p["items"].as_i64().unwrap()).sum();
    assert_eq!(run["length"].as_i64(), Some(ok_items), "the row counts the pages kept");
    let stopped = listed.iter().filter(|p| p["status"] == "skipped_limit").count();
    assert!(stopped > 0, "{listed:?}");
    assert!(
        listed.iter().filter(|p| p["status"] == "skipped_limit").all(|p| p["error"] == "the run's data reached 10 MiB"),
        "{listed:?}"
    );
}
