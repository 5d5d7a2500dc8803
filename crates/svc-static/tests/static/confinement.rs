//! Runs held to their sites (AI Fix's candidates, `RunJob::confined_to`):
//! the job URL's site, and the sites the page request's redirects lead to;
//! nothing the script asks for beyond them, its redirects included.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::Ordering;

use serde_json::json;
use svc_engine::host_vetting::{PrivateNetworks, Resolver};
use svc_engine::{Engine, RunJob, Site};
use svc_static::{StaticConfig, StaticEngine};

use crate::dom_api::job;
use crate::engine_runs::{ITEMS, data, engine_resolving, error};
use crate::site;

/// A script that `fetch`es `target` and returns `status N`, or why it was refused.
fn fetching(target: &str) -> String {
    format!(
        "const r = await fetch('{target}').then(r => 'status ' + r.status, e => 'refused: ' + e.message); returnData([r]);"
    )
}

/// A URL of `site` that redirects to `target`.
fn redirecting(base: &str, target: &str) -> String {
    format!("{base}/redirect/{}", target.replace('/', "%2F"))
}

/// A run held to a site: its page and the script's `fetch` reach that site
/// only, and a redirect of the script's `fetch` does not leave it.
#[tokio::test]
async fn a_confined_run_reaches_its_site_only() {
    let site = site::start().await;
    let e = engine_resolving(true, &["shop.example.test", "cdn.example.test", "canary.test"]);
    let held = |url: String, script: &str| RunJob {
        confined_to: Site::of_url(&format!("http://shop.example.test:{}/", site.port)),
        ..job(&url, script)
    };
    let on_site = format!("http://shop.example.test:{}/items/2", site.port);
    let same_site = format!("http://cdn.example.test:{}/items/1", site.port);
    // The site's own hosts: allowed.
    assert_eq!(data(&e.run(held(on_site.clone(), ITEMS)).await), json!(["Item 0", "Item 1"]));
    assert_eq!(data(&e.run(held(on_site.clone(), &fetching(&same_site))).await), json!(["status 200"]));
    // Another site, by `fetch`: refused, and nothing reaches it.
    let before = site.hits.load(Ordering::Relaxed);
    let canary = format!("http://canary.test:{}/items/1?p=secret", site.port);
    let report = e.run(held(on_site.clone(), &fetching(&canary))).await;
    let answer = data(&report)[0].as_str().unwrap().to_string();
    assert!(answer.starts_with("refused") && answer.contains("outside the site"), "{answer}");
    assert_eq!(site.hits.load(Ordering::Relaxed), before + 1, "only the page itself was served");
    // Another site, by a redirect of the script's `fetch`: refused.
    let bounce = redirecting(&format!("http://shop.example.test:{}", site.port), &canary);
    let report = e.run(held(on_site.clone(), &fetching(&bounce))).await;
    let answer = data(&report)[0].as_str().unwrap().to_string();
    assert!(answer.contains("outside the site this run is held to (example.test)"), "{answer}");
    // Unconfined, the same fetch goes through.
    assert_eq!(data(&e.run(job(&on_site, &fetching(&canary))).await), json!(["status 200"]));
}

/// A scrap whose URL redirects to another site (here 127.0.0.1 to
/// `localhost`) runs where it lands: the page request's redirects add their
/// sites to the run's. The script's requests do not: a third host
/// (127.0.0.2) stays refused, by `fetch` or by a redirect of one.
#[tokio::test]
async fn a_confined_run_follows_its_pages_redirects_and_nothing_else() {
    let site = site::start().await;
    let third = site::start_on("127.0.0.2").await;
    let e = engine_resolving(true, &["localhost"]);
    let landing = format!("http://localhost:{}/items/2", site.port);
    let url = redirecting(&site.base, &landing);
    let held = |script: &str| RunJob { confined_to: Site::of_url(&url), ..job(&url, script) };
    assert_eq!(held("").confined_to.unwrap().as_str(), "127.0.0.1");
    let script = format!(
        r#"
        const tryFetch = (u) => fetch(u).then(r => 'status ' + r.status, e => 'refused: ' + e.message);
        returnData([
            location.href,
            [...document.querySelectorAll('li.item')].length,
            await tryFetch('/echo'),
            await tryFetch('http://localhost:{port}/items/1'),
            await tryFetch('http://127.0.0.1:{port}/items/1'),
            await tryFetch('{third}/echo?p=' + encodeURIComponent(SVC.url)),
            await tryFetch('{bounce}'),
        ]);
        "#,
        port = site.port,
        third = third.base,
        bounce = redirecting("", &format!("{}/echo", third.base)),
    );
    let got = data(&e.run(held(&script)).await);
    let outside = "outside the sites this run is held to (127.0.0.1, localhost)";
    assert_eq!(got[0], json!(landing));
    assert_eq!(
        got.as_array().unwrap()[1..5],
        [json!(2), json!("status 200"), json!("status 200"), json!("status 200")]
    );
    for refused in [&got[5], &got[6]] {
        let refused = refused.as_str().unwrap();
        assert!(refused.starts_with("refused") && refused.contains(outside), "{refused}");
    }
    assert_eq!(third.hits.load(Ordering::Relaxed), 0, "nothing reached the third host");

    // Without the confinement the same script reaches it, both ways.
    let got = data(&e.run(RunJob { confined_to: None, ..held(&script) }).await);
    assert_eq!(got.as_array().unwrap()[5..], [json!("status 200"), json!("status 200")]);
    assert_eq!(third.hits.load(Ordering::Relaxed), 2);

    // A redirect of the page is still vetted: here `localhost` resolves to
    // an address the engine may not reach.
    let e = StaticEngine::new(StaticConfig {
        allow_private_networks: PrivateNetworks::parse("127.0.0.1").unwrap(),
        resolver: Resolver::fixed(HashMap::from([("localhost".to_string(), vec![IpAddr::from([127, 0, 0, 2])])])),
        ..Default::default()
    });
    let message = error(&e.run(held(ITEMS)).await).to_string();
    assert!(message.contains("`localhost` resolves to the non-public address 127.0.0.2"), "{message}");
}
