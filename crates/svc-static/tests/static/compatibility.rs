//! The same scripts on the same pages through the browser engine
//! (`svc_runner::ChromiumEngine`, a real Chromium) and the static engine:
//! the data must be identical. The scripts are those the API suites run
//! against their fixture (`svc-server/tests/api/runs.rs`, `run_faults.rs`,
//! `common/fixture.rs`, whose 50-item page `site::items_page` serves
//! byte for byte) and the run benchmark's, plus probes of the DOM API the
//! static engine offers, on that page and on a richer one.

use serde_json::json;
use svc_domain::scrap::ParamSet;
use svc_engine::ScriptResult;
use svc_engine::{Engine, RunJob};
use svc_static::{StaticConfig, StaticEngine};

use crate::dom_api::job;
use crate::site;

/// `(page path, script)`, each expected to succeed on both engines.
const CASES: &[(&str, &str)] = &[
    // runs.rs: a_triggered_run_extracts_and_is_recorded
    ("/items/50", "returnData([...document.querySelectorAll('li.item')].map(li => li.textContent))"),
    // run_faults.rs: ITEMS
    ("/items/3", "returnData(Array.from(document.querySelectorAll('.item')).map((li) => li.textContent));"),
    // runs.rs: live_json_is_for_growth_and_pro
    ("/items/50", "returnData([...document.querySelectorAll('li')].map(li => ({ name: li.textContent })))"),
    // run_faults.rs: broken_targets (on a page that loads)
    ("/items/3", "returnData([document.title]);"),
    // runs.rs: the_scrap_keeps_the_50_newest_run_ids
    ("/items/1", "returnData([SVC.historyId])"),
    // runs.rs: empty_and_regression_outcomes (with a parameter set)
    ("/items/2", "returnData(Array.from({ length: SVC.param ? SVC.param.value : 0 }, (_, i) => i))"),
    // run-bench's extraction
    ("/items/50", "returnData([...document.querySelectorAll('li')].map(li => li.textContent))"),
    // The DOM API on the fixture page.
    (
        "/items/50",
        r#"const list = document.getElementById('list');
           const first = document.querySelector('li');
           returnData([{
             list: list.innerText, body: document.body.innerText, first: first.outerHTML,
             inner: list.innerHTML.length, data: [...document.querySelectorAll('li')].map(li => li.dataset.i),
             kids: list.children.length, closest: first.closest('ul').id, next: first.nextElementSibling.textContent,
             matches: first.matches('ul > li:first-child'), attr: first.getAttribute('data-i'),
             has: first.classList.contains('item'), parent: first.parentElement.tagName,
             even: document.querySelectorAll('li:nth-child(2n)').length, byClass: document.getElementsByClassName('item').length,
             href: location.href === SVC.url, title: document.title, html: document.documentElement.outerHTML.length,
           }]);"#,
    ),
    // The DOM API on a richer page: links, base URL, table, form, attributes.
    (
        "/rich",
        r#"const h1 = document.getElementById('t');
           const rel = document.getElementById('rel');
           const f = document.getElementById('f');
           returnData([{
             rel: rel.href, abs: document.getElementById('abs').href, none: document.getElementById('none').href,
             pathname: rel.pathname, search: rel.search, hash: rel.hash, src: document.getElementById('pic').src,
             title: document.title, h1: h1.innerText, h1text: h1.textContent, price: document.querySelector('.price').innerText,
             rows: [...document.getElementById('specs').rows].map(r => [...r.cells].map(c => c.innerText)),
             tbody: document.querySelector('#specs tbody').innerText,
             q: f.querySelector('[name=q]').value, checked: f.querySelector('[name=c]').checked,
             select: f.querySelector('select').value, textarea: f.querySelector('textarea').value,
             dataset: { ...h1.dataset }, classes: [...document.querySelector('main').classList],
             hidden: document.getElementById('hidden').innerText, attrs: h1.getAttributeNames(),
             small: h1.querySelector('small').outerHTML, links: [...document.links].map(a => a.href),
           }]);"#,
    ),
    ("/rich", "returnData([document.querySelector('main').innerText, document.body.innerText])"),
];

fn params() -> (Option<ParamSet>, Vec<ParamSet>) {
    let set = ParamSet { key: "two".into(), value: json!(2) };
    (Some(set.clone()), vec![set])
}

fn job_for(base: &str, path: &str, script: &str) -> RunJob {
    let mut job = job(&format!("{base}{path}"), script);
    (job.param, job.params) = params();
    job.timeout = std::time::Duration::from_secs(20);
    job
}

#[tokio::test]
async fn the_static_engine_returns_what_the_browser_returns() {
    let site = site::start().await;
    let chromium = svc_runner::ChromiumEngine::new(svc_runner::EngineConfig {
        chromium: svc_runner::browser::find_chromium(std::env::var("SVC_TEST_CHROMIUM").ok().as_deref()),
        browser_user: svc_runner::sandbox::DEFAULT_BROWSER_USER.into(),
        sandbox: Default::default(),
        allow_private_networks: true.into(),
        runs_per_browser: 200,
        spare_pages: 1,
        warm_pages: 0,
        resolver: Default::default(),
        tiers: Default::default(),
    });
    let fast = StaticEngine::new(StaticConfig { allow_private_networks: true.into(), ..Default::default() });
    let mut differences = Vec::new();
    for (path, script) in CASES {
        let job = job_for(&site.base, path, script);
        let browser = chromium.run(job.clone()).await;
        let static_ = fast.run(job).await;
        let (ScriptResult::Data { json: expected, length: n }, ScriptResult::Data { json: got, length: m }) =
            (&browser.result, &static_.result)
        else {
            panic!("{path} {script}: browser {:?}, static {:?}", browser.result, static_.result);
        };
        if (expected, n) != (got, m) {
            differences.push(format!("{path} {script}\n  browser: {expected}\n  static:  {got}"));
        }
        assert_eq!(browser.status, static_.status, "{path}");
    }

    // Failures read the same too.
    for (path, needle) in
        [("/status/404", "the page answered HTTP 404"), ("/hop/1/status/410", "the page answered HTTP 410")]
    {
        let job = job_for(&site.base, path, "returnData([1])");
        for report in [chromium.run(job.clone()).await, fast.run(job).await] {
            match report.result {
                ScriptResult::Failed { message } => assert_eq!(message, needle, "{path}"),
                other => panic!("{path}: {other:?}"),
            }
        }
    }
    chromium.close().await;
    assert!(differences.is_empty(), "the engines differ:\n{}", differences.join("\n"));
}
