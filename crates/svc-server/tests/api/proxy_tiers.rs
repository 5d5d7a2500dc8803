//! Proxy tiers end to end: local upstream proxies on loopback that count
//! what passes and mark what they forward, and a target that answers 403
//! unless the request came through tier 2. Auto escalates 0 → 1 → 2 within
//! one run and starts the next run on tier 2; a fixed tier never
//! escalates; an unconfigured tier is refused; a private target is refused
//! on every tier; costs follow the bytes and the tier's price; proxy
//! credentials appear in no answer.

use std::sync::atomic::Ordering;

use reqwest::StatusCode;
use serde_json::{Value, json};
use svc_domain::HistoryId;
use svc_domain::costs::Costs;
use svc_domain::meter::Meter;

use crate::common::proxies::{CountingProxy, tier_site};
use crate::common::{Account, TestApp, assert_error};

const ITEMS: &str = "returnData([...document.querySelectorAll('li.item')].map(li => li.textContent))";
const PASSWORD: &str = "s3cret-tier-pass";

async fn run(app: &TestApp, account: &Account, scrap: &str) -> Value {
    let (status, row) = app.run_and_wait(&account.token, scrap).await;
    assert_eq!(status, StatusCode::OK, "{row}");
    row
}

async fn stored_costs(app: &TestApp, account: &Account, row: &Value) -> (Costs, Meter) {
    let id = HistoryId::parse(row["id"].as_str().unwrap()).unwrap();
    let stored = app.store.history_row(account.org(), id).await.unwrap().unwrap();
    (stored.costs.unwrap(), stored.meter.unwrap())
}

#[tokio::test]
async fn auto_escalates_to_the_tier_that_gets_through_and_starts_there_next_time() {
    let tier1 = CountingProxy::start("tier1", "one", PASSWORD).await;
    let tier2 = CountingProxy::start("tier2", "two", PASSWORD).await;
    let site = tier_site(&["tier2"]).await;
    let app = TestApp::start_with(&[
        ("SVC_ALLOW_PRIVATE_NETWORKS", "true"),
        ("SVC_PROXY_TIER1", tier1.url.as_str()),
        ("SVC_PROXY_TIER2", tier2.url.as_str()),
        ("SVC_PROXY_TIER1_PRICE", "1"),
        ("SVC_PROXY_TIER2_PRICE", "4"),
    ])
    .await;
    let alice = app.signup("alice@example.com").await;
    let url = format!("{}/items/3", site.base);
    let sid = app.scrap_with(&alice, json!({"title": "Gated", "url": url, "request": ITEMS})).await;
    let (_, scrap) = app.get(&format!("/api/scraps/{sid}"), &alice.token).await;
    assert_eq!(scrap["lastTierChangeAt"], Value::Null);

    let first = run(&app, &alice, &sid).await;
    assert_eq!(first["statusDetail"], "success", "{first}");
    assert_eq!(first["length"], 3);
    assert_eq!(first["proxyTier"], "tier2", "the tier that produced the result");
    let marks = site.seen.lock().unwrap().clone();
    assert_eq!(marks.first().map(String::as_str), Some("-"), "tier 0 first: {marks:?}");
    assert!(marks.contains(&"tier1".to_string()) && marks.contains(&"tier2".to_string()), "{marks:?}");
    let tier1_before = tier1.handled();
    assert!(tier1_before >= 1 && tier2.handled() >= 1);
    let (_, scrap) = app.get(&format!("/api/scraps/{sid}"), &alice.token).await;
    assert!(scrap["lastTierChangeAt"].is_string(), "stamped by a run that was not tier0: {scrap}");
    let (costs, meter) = stored_costs(&app, &alice, &first).await;
    assert_eq!(meter.breakdown.run, 3, "three page loads: {meter:?}");
    assert_eq!(meter.units(), 1 + 2 + 3, "tier multipliers 1, 2 and 3");
    let bytes = costs.bytes;
    let proxy = costs.proxy;
    assert!(bytes > 0 && proxy > 0.0 && proxy <= bytes as f64 * 4.0 / 1e9, "{costs:?}");
    assert!(costs.priced);
    let balance_after_first = app.store.organization(alice.org()).await.unwrap().unwrap().balance;

    // The next run starts on tier 2: nothing goes through tier 1 or direct.
    let seen_before = site.seen.lock().unwrap().len();
    let second = run(&app, &alice, &sid).await;
    assert_eq!((second["statusDetail"].as_str(), second["proxyTier"].as_str()), (Some("success"), Some("tier2")));
    assert_eq!(tier1.handled(), tier1_before, "tier 1 not tried again");
    let new_marks: Vec<String> = site.seen.lock().unwrap()[seen_before..].to_vec();
    assert!(new_marks.iter().all(|m| m == "tier2"), "{new_marks:?}");
    let (costs, meter) = stored_costs(&app, &alice, &second).await;
    assert_eq!(meter.units(), 3, "one load on tier 2: {meter:?}");
    let expected = costs.bytes as f64 * 4.0 / 1e9;
    assert!((costs.proxy - expected).abs() < 1e-15, "cost = bytes × price: {costs:?}");
    assert_eq!(costs.total(), costs.proxy);
    let balance = app.store.organization(alice.org()).await.unwrap().unwrap().balance;
    assert_eq!(balance_after_first - balance, 3, "the balance is charged from the meter");
    let memory = app.store.tier_memory(alice.org(), "127.0.0.1").await.unwrap().unwrap();
    assert_eq!((memory.tier, memory.runs), (2, 2));

    // Credentials appear in no answer.
    for path in [format!("/api/scraps/{sid}"), format!("/api/historys/{}", first["id"].as_str().unwrap())] {
        let (_, body) = app.get(&path, &alice.token).await;
        assert!(!body.to_string().contains(PASSWORD), "{path}");
    }
    let config = svc_server::Config::load(None, [("SVC_PROXY_TIER2".to_string(), tier2.url.clone())]).unwrap();
    assert!(!format!("{config:?}").contains(PASSWORD), "the config's Debug hides proxy passwords");
    let bad = svc_server::Config::load(None, [("SVC_PROXY_TIER2".to_string(), format!("ftp://u:{PASSWORD}@h:1"))]);
    assert!(!bad.unwrap_err().to_string().contains(PASSWORD), "a refused value is not echoed");
    assert!(tier2.authorizations.lock().unwrap().iter().all(|a| a.starts_with("Basic ")));
}

/// With only `tier0` (no proxy configured), a run can go nowhere but direct:
/// it runs and succeeds without reading or writing a host's tier memory.
/// With a tier configured, the same run is remembered on `tier0`.
#[tokio::test]
async fn a_host_is_remembered_only_when_there_is_a_tier_to_remember() {
    let site = crate::common::fixture::start().await;
    let direct_only = TestApp::start_with(&[("SVC_ALLOW_PRIVATE_NETWORKS", "true")]).await;
    let alice = direct_only.signup("alice@example.com").await;
    let url = format!("{}/items/2", site.base);
    let sid = direct_only.scrap_with(&alice, json!({"title": "Direct", "url": url, "request": ITEMS})).await;
    for _ in 0..2 {
        let row = run(&direct_only, &alice, &sid).await;
        assert_eq!(
            (row["statusDetail"].as_str(), row["proxyTier"].as_str()),
            (Some("success"), Some("tier0")),
            "{row}"
        );
    }
    assert_eq!(direct_only.store.tier_memory(alice.org(), "127.0.0.1").await.unwrap(), None);

    let tier1 = CountingProxy::start("tier1", "one", PASSWORD).await;
    let with_tier =
        TestApp::start_with(&[("SVC_ALLOW_PRIVATE_NETWORKS", "true"), ("SVC_PROXY_TIER1", tier1.url.as_str())]).await;
    let bob = with_tier.signup("bob@example.com").await;
    let sid = with_tier.scrap_with(&bob, json!({"title": "Direct", "url": url, "request": ITEMS})).await;
    let row = run(&with_tier, &bob, &sid).await;
    assert_eq!((row["statusDetail"].as_str(), row["proxyTier"].as_str()), (Some("success"), Some("tier0")), "{row}");
    assert_eq!(tier1.handled(), 0, "not blocked: no escalation");
    let memory = with_tier.store.tier_memory(bob.org(), "127.0.0.1").await.unwrap().unwrap();
    assert_eq!((memory.tier, memory.runs), (0, 1));
}

#[tokio::test]
async fn a_fixed_tier_never_escalates_and_unconfigured_tiers_are_refused() {
    let tier1 = CountingProxy::start("tier1", "one", PASSWORD).await;
    let tier2 = CountingProxy::start("tier2", "two", PASSWORD).await;
    let site = tier_site(&["tier2"]).await;
    let app = TestApp::start_with(&[
        ("SVC_ALLOW_PRIVATE_NETWORKS", "true"),
        ("SVC_PROXY_TIER1", tier1.url.as_str()),
        ("SVC_PROXY_TIER2", tier2.url.as_str()),
    ])
    .await;
    let alice = app.signup("alice@example.com").await;
    let url = format!("{}/items/2", site.base);
    let sid =
        app.scrap_with(&alice, json!({"title": "Fixed", "url": url, "request": ITEMS, "proxyTier": "tier1"})).await;
    let row = run(&app, &alice, &sid).await;
    assert_eq!(row["statusDetail"], "error");
    assert!(row["error"].as_str().unwrap().contains("403"), "{row}");
    assert_eq!(row["proxyTier"], "tier1");
    assert_eq!(tier2.handled(), 0, "a fixed tier never escalates");
    assert!(tier1.handled() >= 1);
    // No price configured: the run's cost cannot be priced.
    let (costs, _) = stored_costs(&app, &alice, &row).await;
    assert!(!costs.priced, "{costs:?}");

    for (body, what) in [
        (json!({"title": "x", "url": url, "request": ITEMS, "proxyTier": "tier3"}), "create"),
        (json!({"title": "x", "url": url, "request": ITEMS, "proxyTier": "tier9"}), "create"),
    ] {
        let (status, err) = app.post("/api/scraps", &alice.token, body).await;
        assert_error(status, &err, StatusCode::UNPROCESSABLE_ENTITY, "VALIDATION");
        assert!(err.to_string().contains("proxyTier"), "{what}: {err}");
    }
    let (status, err) = app.put(&format!("/api/scraps/{sid}"), &alice.token, json!({"proxyTier": "tier4"})).await;
    assert_error(status, &err, StatusCode::UNPROCESSABLE_ENTITY, "VALIDATION");
    assert!(err["description"].as_str().unwrap().contains("not configured"), "{err}");
    let (status, scrap) = app.put(&format!("/api/scraps/{sid}"), &alice.token, json!({"proxyTier": null})).await;
    assert_eq!(status, StatusCode::OK, "{scrap}");
    assert_eq!(scrap["proxyTier"], Value::Null);
}

#[tokio::test]
async fn a_private_target_is_refused_on_every_tier() {
    let tier1 = CountingProxy::start("tier1", "one", PASSWORD).await;
    let site = tier_site(&["tier1"]).await;
    let app = TestApp::start_with(&[("SVC_PROXY_TIER1", tier1.url.as_str())]).await;
    let alice = app.signup("alice@example.com").await;
    let url = format!("{}/items/2", site.base);
    for tier in [Value::Null, json!("tier1")] {
        let sid =
            app.scrap_with(&alice, json!({"title": "Inside", "url": url, "request": ITEMS, "proxyTier": tier})).await;
        let row = run(&app, &alice, &sid).await;
        assert_eq!(row["statusDetail"], "error", "{row}");
        assert!(row["error"].as_str().unwrap().contains("refused"), "{row}");
    }
    assert_eq!(tier1.handled(), 0, "nothing reached the upstream");
    assert!(site.seen.lock().unwrap().is_empty(), "nothing reached the target");
    assert_eq!(tier1.refused.load(Ordering::SeqCst), 0);
}
