//! Whole static runs against the local site: fetching, vetting, redirects,
//! statuses, caps, timeouts and what the report carries.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use svc_engine::Engine;
use svc_engine::host_vetting::Resolver;
use svc_engine::{EngineReport, ScriptResult};
use svc_static::{StaticConfig, StaticEngine};

use crate::dom_api::job;
use crate::site;

pub(crate) const ITEMS: &str = "returnData([...document.querySelectorAll('li.item')].map(li => li.textContent))";

fn engine(allow_private: bool) -> StaticEngine {
    StaticEngine::new(StaticConfig { allow_private_networks: allow_private.into(), ..Default::default() })
}

/// An engine whose resolver answers `names` with 127.0.0.1.
pub(crate) fn engine_resolving(allow_private: bool, names: &[&str]) -> StaticEngine {
    let answers: HashMap<String, Vec<IpAddr>> =
        names.iter().map(|n| (n.to_string(), vec![IpAddr::V4(Ipv4Addr::LOCALHOST)])).collect();
    StaticEngine::new(StaticConfig {
        allow_private_networks: allow_private.into(),
        resolver: Resolver::fixed(answers),
        ..Default::default()
    })
}

pub(crate) fn data(report: &EngineReport) -> Value {
    match &report.result {
        ScriptResult::Data { json, .. } => serde_json::from_str(json).unwrap(),
        ScriptResult::Failed { message } => panic!("the run failed: {message}"),
    }
}

pub(crate) fn error(report: &EngineReport) -> &str {
    match &report.result {
        ScriptResult::Failed { message } => message,
        ScriptResult::Data { json, .. } => panic!("the run succeeded: {json}"),
    }
}

#[tokio::test]
async fn a_server_rendered_list_is_extracted() {
    let site = site::start().await;
    let report = engine(true).run(job(&format!("{}/items/50", site.base), ITEMS)).await;
    let items = data(&report);
    assert_eq!(items.as_array().unwrap().len(), 50);
    assert_eq!(items[0], "Item 0");
    assert_eq!(items[49], "Item 49");
    assert!(matches!(report.result, ScriptResult::Data { length: 50, .. }));
    assert_eq!(report.status, Some(200));
    assert_eq!(report.bytes, site::items_page(50).len() as u64, "the body's bytes");
    assert!(report.duration_ms >= 0 && report.duration_ms < 5_000, "{}", report.duration_ms);
    assert_eq!(report.snapshot, None);
    assert_eq!(report.html, None, "only when the job asks");

    let mut capture = job(&format!("{}/items/3", site.base), ITEMS);
    capture.capture_page = svc_engine::PageCapture::Always;
    let report = engine(true).run(capture).await;
    let html = report.html.expect("the page, as asked");
    assert!(html.starts_with("<html><head><title>Items</title></head><body><ul id=\"list\">"), "{html}");

    // Only to tell a blocked page: not from a run that found items.
    let unless = |script: &str| {
        let mut job = job(&format!("{}/items/3", site.base), script);
        job.capture_page = svc_engine::PageCapture::UnlessItems;
        job
    };
    let report = engine(true).run(unless(ITEMS)).await;
    assert!(matches!(report.result, ScriptResult::Data { length: 3, .. }));
    assert_eq!(report.html, None, "a run with items is not blocked");
    let report = engine(true).run(unless("returnData([])")).await;
    assert!(matches!(report.result, ScriptResult::Data { length: 0, .. }));
    assert!(report.html.is_some_and(|h| h.contains("<ul id=\"list\">")), "an empty run's page");
    let report = engine(true).run(unless("throw new Error('nope')")).await;
    assert!(error(&report).contains("nope"), "{}", error(&report));
    assert!(report.html.is_some_and(|h| h.contains("<ul id=\"list\">")), "a failed run's page");
}

#[tokio::test]
async fn redirects_are_followed_and_each_target_vetted() {
    let site = site::start().await;
    let e = engine(true);
    let script = "returnData([location.href, document.querySelectorAll('li').length])";
    let report = e.run(job(&format!("{}/hop/4/items/2", site.base), script)).await;
    assert_eq!(data(&report), json!([format!("{}/items/2", site.base), 2]), "4 redirects, then the page");

    let report = e.run(job(&format!("{}/hop/5/items/2", site.base), script)).await;
    assert_eq!(error(&report), "navigation failed: more than 5 redirects");

    // Every hop is vetted: a scheme that is not the web, and a name the vetting resolver refuses.
    let report = e.run(job(&format!("{}/redirect/file:%2F%2F%2Fetc%2Fpasswd", site.base), script)).await;
    assert_eq!(
        error(&report),
        "navigation refused: file:///etc/passwd: only http and https URLs are loaded, not `file:`"
    );
    let e = engine_resolving(true, &["known.test"]);
    let report = e.run(job(&format!("http://known.test:{}/hop/1/items/2", site.port), script)).await;
    assert_eq!(data(&report)[1], 2, "a name the resolver vets is dialled");
    let target = format!("http://unknown.test:{}/items/2", site.port);
    let report = e.run(job(&format!("{}/redirect/{}", site.base, target.replace('/', "%2F")), script)).await;
    assert_eq!(error(&report), format!("navigation refused: {target}: `unknown.test` does not resolve"));
}

#[tokio::test]
async fn private_addresses_are_refused_unless_allowed() {
    let site = site::start().await;
    let url = format!("{}/items/2", site.base);
    let report = engine(false).run(job(&url, ITEMS)).await;
    assert_eq!(
        error(&report),
        "target refused: `127.0.0.1` resolves to the non-public address 127.0.0.1; SVC_ALLOW_PRIVATE_NETWORKS (true, or a list of ranges) can allow it"
    );
    assert_eq!(report.bytes, 0);
    // A name that resolves to a private address: refused by the vetting resolver.
    let named = format!("http://intranet.test:{}/items/2", site.port);
    let report = engine_resolving(false, &["intranet.test"]).run(job(&named, ITEMS)).await;
    assert!(error(&report).starts_with("target refused: `intranet.test` resolves to the non-public address 127.0.0.1"));
    let served = site.hits.load(std::sync::atomic::Ordering::Relaxed);
    assert_eq!(served, 0, "nothing reached the site");
    // Allowed, both go through.
    assert_eq!(data(&engine(true).run(job(&url, ITEMS)).await), json!(["Item 0", "Item 1"]));
    assert_eq!(data(&engine_resolving(true, &["intranet.test"]).run(job(&named, ITEMS)).await)[1], "Item 1");
}

#[tokio::test]
async fn an_error_status_fails_the_run_with_the_status() {
    let site = site::start().await;
    let e = engine(true);
    for code in [404, 500, 403] {
        let report = e.run(job(&format!("{}/status/{code}", site.base), ITEMS)).await;
        assert_eq!(error(&report), format!("the page answered HTTP {code}"));
        assert_eq!(report.status, Some(code));
        let snapshot = report.snapshot.expect("a failure snapshot");
        assert!(snapshot["html"].as_str().unwrap().contains(&format!("status {code}")), "{snapshot}");
        assert_eq!(snapshot["screenshot"], Value::Null);
    }
    // The final status decides: a redirect to a 410.
    let report = e.run(job(&format!("{}/hop/1/status/410", site.base), ITEMS)).await;
    assert_eq!(error(&report), "the page answered HTTP 410");
}

#[tokio::test]
async fn the_timeout_covers_the_page_and_the_script() {
    let site = site::start().await;
    let e = engine(true);
    let mut slow = job(&format!("{}/slow", site.base), ITEMS);
    slow.timeout = Duration::from_secs(1);
    let started = Instant::now();
    let report = e.run(slow).await;
    assert_eq!(error(&report), "timed out after 1 s while opening the page");
    assert!(started.elapsed() >= Duration::from_secs(1), "not before the timeout");

    let mut spin = job(&format!("{}/items/3", site.base), "while (true) {}");
    spin.timeout = Duration::from_secs(1);
    let started = Instant::now();
    let report = e.run(spin).await;
    assert_eq!(error(&report), "timed out after 1 s");
    assert!(started.elapsed() >= Duration::from_secs(1), "not before the timeout: {:?}", started.elapsed());
    assert_eq!(report.status, Some(200));
    assert!(report.snapshot.unwrap()["html"].as_str().unwrap().contains("Item 2"), "the page, for the snapshot");

    // The engine goes on.
    assert_eq!(data(&e.run(job(&format!("{}/items/1", site.base), ITEMS)).await), json!(["Item 0"]));
}

#[tokio::test]
async fn bodies_over_the_cap_are_refused_and_metered() {
    let site = site::start().await;
    let cap = 1024 * 1024;
    let e = StaticEngine::new(StaticConfig {
        allow_private_networks: true.into(),
        max_body_bytes: cap,
        ..Default::default()
    });
    let report = e.run(job(&format!("{}/endless", site.base), ITEMS)).await;
    assert_eq!(error(&report), "the page is larger than 1 MiB");
    assert!(report.bytes > cap as u64, "what arrived is metered: {}", report.bytes);
    let report = e.run(job(&format!("{}/announced-huge", site.base), ITEMS)).await;
    assert_eq!(error(&report), "the page is larger than 1 MiB", "refused on its Content-Length");
}

#[tokio::test]
async fn memory_exhaustion_is_an_error_and_the_next_run_succeeds() {
    let site = site::start().await;
    let e = engine(true);
    let report = e
        .run(job(&format!("{}/items/3", site.base), "const a = []; for (;;) a.push('x'.repeat(1e6) + a.length);"))
        .await;
    assert!(error(&report).contains("out of memory"), "{}", error(&report));
    assert_eq!(data(&e.run(job(&format!("{}/items/2", site.base), ITEMS)).await), json!(["Item 0", "Item 1"]));
}

#[tokio::test]
async fn text_pages_decodings_and_other_types() {
    let site = site::start().await;
    let e = engine(true);
    let report =
        e.run(job(&format!("{}/text", site.base), "returnData([document.querySelector('pre').textContent])")).await;
    assert_eq!(data(&report), json!(["plain <text> & more"]));
    let report =
        e.run(job(&format!("{}/latin1", site.base), "returnData([document.getElementById('x').textContent])")).await;
    assert_eq!(data(&report), json!(["café"]));
    let report = e.run(job(&format!("{}/image", site.base), ITEMS)).await;
    assert!(
        error(&report).starts_with("the static engine reads HTML and text pages, not `image/png`"),
        "{}",
        error(&report)
    );
}

#[tokio::test]
async fn pages_built_by_javascript_come_up_empty_or_fail_clearly() {
    let site = site::start().await;
    let e = engine(true);
    let report =
        e.run(job(&format!("{}/app", site.base), "returnData([...document.querySelectorAll('li.late')])")).await;
    assert!(matches!(report.result, ScriptResult::Data { length: 0, .. }), "{:?}", report.result);
    let report = e.run(job(&format!("{}/app", site.base), "await SVC.waitFor('li.late'); returnData([1]);")).await;
    assert!(error(&report).contains("the static engine does not wait; the element is not in the page"));
    assert_eq!(report.snapshot.unwrap()["selector"], "li.late");
}

#[tokio::test]
async fn proxy_tiers_and_unreachable_targets() {
    let site = site::start().await;
    let e = engine(true);
    let mut tiered = job(&format!("{}/items/2", site.base), ITEMS);
    tiered.tier = 2;
    let report = e.run(tiered).await;
    assert!(error(&report).starts_with("the static engine does not use proxy tiers yet (this run is on tier2)"));

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let closed = format!("http://{}/", listener.local_addr().unwrap());
    drop(listener);
    let report = e.run(job(&closed, ITEMS)).await;
    assert!(error(&report).starts_with("navigation failed: "), "{}", error(&report));
}

/// A static script's `fetch` goes out like the page did: relative URLs
/// against the page, methods, bodies and headers (without the ones a page
/// may not set), JSON and text bodies, redirects; its bytes count towards
/// the run's.
#[tokio::test]
async fn scripts_fetch_through_the_engine() {
    let site = site::start().await;
    let script = r#"
        const list = await fetch('/api/items');
        const items = await list.json();
        const posted = await fetch(new URL('/echo', location.href).href, {
            method: 'post',
            body: JSON.stringify({ a: 1 }),
            headers: { 'X-Test': 'yes', 'Cookie': 'stolen=1', 'Content-Type': 'application/json' },
        });
        const echo = await posted.json();
        const moved = await fetch('/hop/1/api/items');
        let again = null;
        try { await list.text(); } catch (e) { again = e.message; }
        returnData([list.status, list.ok, list.headers.get('Content-Type'), items, echo,
            posted.headers.get('x-answer'), moved.redirected, moved.url.endsWith('/api/items'), again]);
    "#;
    let report = engine(true).run(job(&format!("{}/items/3", site.base), script)).await;
    let got = data(&report);
    assert_eq!(got[0], 200);
    assert_eq!(got[1], true);
    assert_eq!(got[2], "application/json");
    assert_eq!(got[3], json!([{"t": "a"}, {"t": "b"}]));
    assert_eq!(
        got[4],
        json!({"method": "POST", "body": "{\"a\":1}", "xTest": "yes", "cookie": null, "contentType": "application/json"}),
        "the forbidden Cookie header is not sent"
    );
    assert_eq!(got[5], "echo");
    assert_eq!((got[6].clone(), got[7].clone()), (json!(true), json!(true)));
    assert!(got[8].as_str().unwrap().contains("already read"), "{}", got[8]);
    let page = site::items_page(3).len() as u64;
    assert!(report.bytes > page, "the fetched bodies are metered: {} bytes against the page's {page}", report.bytes);
}

/// What a script fetches is vetted as the page is (the same request path:
/// `private_addresses_are_refused_unless_allowed` covers the addresses):
/// no other scheme, no name that does not resolve, no redirect to another
/// scheme, and no method beyond HTTP's usual ones. Each rejects as a
/// browser's `fetch` does (a `TypeError` the script can catch).
#[tokio::test]
async fn what_a_script_fetches_is_vetted_like_the_page() {
    let site = site::start().await;
    let script = r#"
        const tries = ['file:///etc/passwd', 'http://unknown.test/', '/redirect/file%3A%2F%2F%2Fetc%2Fpasswd'];
        const out = [];
        for (const url of tries) {
            try { await fetch(url); out.push('fetched ' + url); } catch (e) { out.push(e.name + ': ' + e.message); }
        }
        try { await fetch('/echo', { method: 'CONNECT' }); } catch (e) { out.push(e.name + ': ' + e.message); }
        returnData(out);
    "#;
    let report = engine_resolving(true, &[]).run(job(&format!("{}/items/3", site.base), script)).await;
    let got = data(&report);
    let got: Vec<&str> = got.as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    assert_eq!(got.len(), 4, "{got:?}");
    assert!(got[0].starts_with("TypeError: fetch of file:///etc/passwd failed: target refused"), "{got:?}");
    assert!(got[1].contains("`unknown.test` does not resolve"), "{got:?}");
    assert!(got[2].contains("navigation refused: file:///etc/passwd"), "{got:?}");
    assert!(got[3].contains("the method `CONNECT` is not allowed"), "{got:?}");
    assert!(got.iter().all(|g| !g.contains("root:")), "{got:?}");
}
