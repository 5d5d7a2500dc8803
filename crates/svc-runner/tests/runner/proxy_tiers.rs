//! Proxy tiers: the egress proxy chained to upstream proxies over real
//! sockets, then jobs on a tier on a real Chromium. Local counting proxies
//! stand in for the operator's upstreams, and a site that lets only tier 2
//! in shows which way a run went.

use std::sync::atomic::Ordering;
use std::time::Duration;

use svc_domain::ObjectId;
use svc_engine::{Engine, RunJob};
use svc_engine::{EngineReport, ScriptResult};
use svc_runner::egress_proxy::{ANSWER_HEADER, EgressProxy};
use svc_runner::upstream::UpstreamProxy;
use svc_runner::{ChromiumEngine, EngineConfig};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::egress_proxy::{answers, ask, connect, get, target};
use crate::stand_ins::{CountingProxy, tier_site};

fn upstream(url: &str) -> UpstreamProxy {
    UpstreamProxy::parse(url).unwrap()
}

async fn closed_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    listener.local_addr().unwrap().port()
}

/// Opens a tunnel through `proxy` and sends `ping` through it; hands back
/// the answer to the `CONNECT` and what came back.
async fn tunnel(proxy: &EgressProxy, host_port: &str, ping: &[u8]) -> (String, Vec<u8>) {
    let mut stream = TcpStream::connect(proxy.addr()).await.unwrap();
    stream.write_all(connect(host_port).as_bytes()).await.unwrap();
    let mut head = vec![0u8; 1024];
    let n = stream.read(&mut head).await.unwrap();
    let head = String::from_utf8_lossy(&head[..n]).to_string();
    if !head.starts_with("HTTP/1.1 200") {
        return (head, Vec::new());
    }
    stream.write_all(ping).await.unwrap();
    let mut echoed = vec![0u8; 256];
    let n = tokio::time::timeout(Duration::from_secs(10), stream.read(&mut echoed)).await.unwrap().unwrap();
    (head, echoed[..n].to_vec())
}

#[tokio::test]
async fn a_tier_proxy_goes_through_its_upstream_with_its_credentials() {
    let site = target().await;
    let host_port = format!("127.0.0.1:{}", site.port());
    let up = CountingProxy::start("tier1", "alice", "p@ss:hunter2").await;
    // The credentials as written in a URL: percent-encoded.
    let url = format!("http://alice:p%40ss%3Ahunter2@{}", up.addr);
    let proxy = EgressProxy::start(true.into(), answers(), vec![upstream(&url)]).await.unwrap();

    // The browser's own Proxy-Authorization is dropped; the upstream's is sent.
    let request = format!(
        "GET http://{host_port}/page?q=1 HTTP/1.1\r\nhost: {host_port}\r\nproxy-authorization: Basic Ym9ndXM=\r\n\
         connection: close\r\n\r\n"
    );
    let answer = ask(&proxy, &request).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains("the target saw `GET /page?q=1 HTTP/1.1`"), "{answer}");
    assert!(!answer.to_lowercase().contains(ANSWER_HEADER), "{answer}");

    let (head, echoed) = tunnel(&proxy, &host_port, b"ping through two proxies").await;
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert_eq!(echoed, b"ping through two proxies");

    let requests = up.requests.lock().unwrap().clone();
    assert_eq!(
        requests,
        [format!("GET http://{host_port}/page?q=1 HTTP/1.1"), format!("CONNECT {host_port} HTTP/1.1")],
        "absolute form, and CONNECT host:port"
    );
    let expected = format!("Basic {}", base64_of("alice:p@ss:hunter2"));
    assert_eq!(*up.authorizations.lock().unwrap(), [expected.clone(), expected], "decoded credentials, and only them");
    assert_eq!((up.forwarded.load(Ordering::SeqCst), up.tunnels.load(Ordering::SeqCst)), (1, 1));

    let stats = proxy.stats();
    assert_eq!(stats.forwarded.load(Ordering::Relaxed), 1);
    assert_eq!(stats.tunnels.load(Ordering::Relaxed), 1);
    assert_eq!(stats.upstream_connections.iter().map(|c| c.load(Ordering::Relaxed)).collect::<Vec<_>>(), [2]);
    assert!(stats.bytes_up.load(Ordering::Relaxed) > 24, "{stats:?}");
    assert!(stats.bytes_down.load(Ordering::Relaxed) > 24, "{stats:?}");

    // A direct proxy counts its bytes too.
    let direct = EgressProxy::start(true.into(), answers(), Vec::new()).await.unwrap();
    assert!(ask(&direct, &get(&host_port)).await.starts_with("HTTP/1.1 200"));
    assert!(direct.stats().bytes_down.load(Ordering::Relaxed) > 0);
    assert!(direct.stats().bytes_up.load(Ordering::Relaxed) > 0);
    assert!(direct.stats().upstream_connections.is_empty());
}

fn base64_of(text: &str) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(text)
}

#[tokio::test]
async fn an_upstream_refusing_the_credentials_is_a_failure_that_names_it_without_them() {
    let site = target().await;
    let port = site.port();
    let host_port = format!("127.0.0.1:{port}");
    let up = CountingProxy::start("tier1", "alice", "right").await;
    let proxy = EgressProxy::start(true.into(), answers(), vec![upstream(&up.url_with("alice", "wrong-hunter2"))])
        .await
        .unwrap();
    let since = std::time::Instant::now();

    let answer = ask(&proxy, &get(&host_port)).await;
    let (connect_answer, _) = tunnel(&proxy, &host_port, b"").await;
    for answer in [&answer, &connect_answer] {
        assert!(answer.starts_with("HTTP/1.1 502"), "not the upstream's 407: {answer}");
        assert!(answer.to_lowercase().contains(ANSWER_HEADER), "the proxy's own answer: {answer}");
        assert!(answer.contains(&format!("upstream proxy `{}` answered HTTP 407", up.addr)), "{answer}");
        assert!(answer.contains("refused the configured credentials"), "{answer}");
        assert!(!answer.contains("hunter2") && !answer.contains("alice"), "{answer}");
    }
    assert_eq!(up.refused.load(Ordering::SeqCst), 2);
    let why = proxy.failure_since("127.0.0.1", port, since).expect("recorded for the target");
    assert!(why.contains("407") && !why.contains("hunter2"), "{why}");

    // An upstream that wants credentials, given none.
    let proxy =
        EgressProxy::start(true.into(), answers(), vec![upstream(&format!("http://{}", up.addr))]).await.unwrap();
    let answer = ask(&proxy, &get(&host_port)).await;
    assert!(answer.starts_with("HTTP/1.1 502") && answer.contains("wants credentials"), "{answer}");

    // An upstream that cannot be reached.
    let dead = closed_port().await;
    let proxy =
        EgressProxy::start(true.into(), answers(), vec![upstream(&format!("http://u:hunter2@127.0.0.1:{dead}"))])
            .await
            .unwrap();
    for answer in [ask(&proxy, &get(&host_port)).await, tunnel(&proxy, &host_port, b"").await.0] {
        assert!(answer.starts_with("HTTP/1.1 502"), "{answer}");
        assert!(answer.contains(&format!("cannot connect to upstream proxy `127.0.0.1:{dead}`")), "{answer}");
        assert!(!answer.contains("hunter2"), "{answer}");
    }
}

#[tokio::test]
async fn a_tier_proxy_still_refuses_private_targets_unless_they_are_allowed() {
    let site = target().await;
    let up = CountingProxy::start("tier1", "alice", "hunter2").await;
    let proxy = EgressProxy::start(false.into(), answers(), vec![upstream(&up.url)]).await.unwrap();
    for host in ["127.0.0.1", "site.test", "metadata.test"] {
        let host_port = format!("{host}:{}", site.port());
        for answer in [ask(&proxy, &get(&host_port)).await, tunnel(&proxy, &host_port, b"").await.0] {
            assert!(answer.starts_with("HTTP/1.1 403"), "{host}: {answer}");
            assert!(answer.contains("non-public address"), "{host}: {answer}");
        }
    }
    assert_eq!(up.handled() + up.refused.load(Ordering::SeqCst), 0, "nothing reached the upstream");
    assert!(up.requests.lock().unwrap().is_empty());
    assert_eq!(proxy.stats().refused.load(Ordering::Relaxed), 6);
    assert_eq!(proxy.stats().upstream_connections[0].load(Ordering::Relaxed), 0);
}

#[tokio::test]
async fn a_tier_with_several_upstreams_takes_them_in_turn_and_skips_one_that_is_down() {
    let site = target().await;
    let host_port = format!("127.0.0.1:{}", site.port());
    let a = CountingProxy::start("a", "u", "hunter2").await;
    let b = CountingProxy::start("b", "u", "hunter2").await;
    let proxy = EgressProxy::start(true.into(), answers(), vec![upstream(&a.url), upstream(&b.url)]).await.unwrap();
    for _ in 0..4 {
        assert!(ask(&proxy, &get(&host_port)).await.starts_with("HTTP/1.1 200"));
    }
    let (head, _) = tunnel(&proxy, &host_port, b"x").await;
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert_eq!((a.forwarded.load(Ordering::SeqCst), b.forwarded.load(Ordering::SeqCst)), (2, 2));
    assert_eq!((a.tunnels.load(Ordering::SeqCst), b.tunnels.load(Ordering::SeqCst)), (1, 0));
    let counts: Vec<u64> = proxy.stats().upstream_connections.iter().map(|c| c.load(Ordering::Relaxed)).collect();
    assert_eq!(counts, [3, 2]);

    let dead = format!("http://u:hunter2@127.0.0.1:{}", closed_port().await);
    let proxy = EgressProxy::start(true.into(), answers(), vec![upstream(&dead), upstream(&a.url)]).await.unwrap();
    for _ in 0..3 {
        assert!(ask(&proxy, &get(&host_port)).await.starts_with("HTTP/1.1 200"));
    }
    let counts: Vec<u64> = proxy.stats().upstream_connections.iter().map(|c| c.load(Ordering::Relaxed)).collect();
    assert_eq!(counts, [0, 3]);
}

// ---- On a real Chromium.

fn engine(allow_private: bool, tiers: [Vec<UpstreamProxy>; 4]) -> ChromiumEngine {
    ChromiumEngine::new(EngineConfig {
        chromium: svc_runner::browser::find_chromium(std::env::var("SVC_TEST_CHROMIUM").ok().as_deref()),
        browser_user: svc_runner::sandbox::DEFAULT_BROWSER_USER.into(),
        sandbox: Default::default(),
        allow_private_networks: allow_private.into(),
        runs_per_browser: 100,
        spare_pages: 1,
        warm_pages: 0,
        resolver: Default::default(),
        tiers,
    })
}

fn job(url: &str, script: &str, tier: u8) -> RunJob {
    RunJob {
        history_id: ObjectId::new().to_string(),
        url: url.to_string(),
        script: script.to_string(),
        param: None,
        params: vec![],
        triggered_by: "user",
        timeout: Duration::from_secs(30),
        loads: Default::default(),
        capture_page: svc_engine::PageCapture::Never,
        tier,
        account: None,
        session: None,
        scrapper: "puppeteer".into(),
        reuse: None,
        confined_to: None,
        organization: None,
        page: svc_engine::PageInput::single(),
    }
}

fn failure(report: &EngineReport) -> &str {
    match &report.result {
        ScriptResult::Failed { message } => message,
        ScriptResult::Data { json, .. } => panic!("expected a failure, got data {json}"),
    }
}

const ITEMS: &str = "returnData([...document.querySelectorAll('li.item')].map(li => li.textContent))";

/// The site lets only tier 2 in. Tier 0 gets its 403; tier 2 goes through
/// its two upstreams in turn (page, fetches and a WebSocket's `CONNECT`),
/// and no other proxy sees anything; tier 1 is refused by the site; wrong
/// credentials and an unconfigured tier fail clearly; no password shows.
#[tokio::test]
async fn jobs_run_on_the_proxy_tier_they_name() {
    let site = tier_site(&["tier2"]).await;
    let tier1 = CountingProxy::start("tier1", "one", "one-hunter2").await;
    let tier2a = CountingProxy::start("tier2", "two", "two-hunter2").await;
    let tier2b = CountingProxy::start("tier2", "two", "two-hunter2").await;
    let tier3 = CountingProxy::start("tier3", "three", "right-hunter2").await;
    let tiers = [
        vec![upstream(&tier1.url)],
        vec![upstream(&tier2a.url), upstream(&tier2b.url)],
        vec![upstream(&tier3.url_with("three", "wrong%2Fhunter2"))],
        vec![],
    ];
    let shown = format!("{:?}", engine_config_shown(&tiers));
    assert!(shown.contains("two:***@") && !shown.contains("hunter2"), "{shown}");
    let engine = engine(true, tiers);
    let items = format!("{}/items/3", site.base);
    let mut reports = Vec::new();

    // Tier 0: direct; the site refuses.
    let direct = engine.run(job(&items, ITEMS, 0)).await;
    assert!(failure(&direct).contains("HTTP 403"), "{direct:?}");
    assert_eq!(direct.status, Some(403));
    assert_eq!(tier1.handled() + tier2a.handled() + tier2b.handled(), 0);
    let direct_forwarded = engine.egress_stats().unwrap().forwarded.load(Ordering::Relaxed);
    assert!(direct_forwarded >= 1);
    assert!(engine.tier_egress_stats(2).is_none(), "a tier's proxy starts with its first run");
    reports.push(direct);

    // Tier 2: the page, three fetches and a WebSocket, through both upstreams in turn.
    let script = r#"
        const statuses = [];
        for (let i = 0; i < 3; i++) statuses.push(await fetch('/items/1').then((r) => r.status));
        const socket = await new Promise((resolve) => {
          const ws = new WebSocket('ws://' + location.host + '/socket');
          ws.onopen = () => resolve('open');
          ws.onerror = () => resolve('error');
        });
        returnData([...document.querySelectorAll('li.item')].map(li => li.textContent).concat(statuses, [socket]));
    "#;
    let report = engine.run(job(&items, script, 2)).await;
    // A WebSocket goes through a tunnel, which no proxy marks: the site refuses it.
    let ScriptResult::Data { json, .. } = &report.result else { panic!("{report:?}") };
    assert_eq!(json, r#"["Item 0","Item 1","Item 2",200,200,200,"error"]"#);
    assert_eq!(report.status, Some(200));
    assert!(report.bytes > 0, "bytes are counted in a tier's context: {report:?}");
    let (a, b) = (tier2a.handled(), tier2b.handled());
    assert!(a >= 2 && b >= 2 && a.abs_diff(b) <= 1, "taken in turn: {a} and {b}");
    assert_eq!(tier2a.forwarded.load(Ordering::SeqCst) + tier2b.forwarded.load(Ordering::SeqCst), a + b - 1);
    assert_eq!(tier2a.tunnels.load(Ordering::SeqCst) + tier2b.tunnels.load(Ordering::SeqCst), 1, "the WebSocket");
    assert_eq!(tier1.handled(), 0, "tier 1's proxy saw nothing");
    assert_eq!(
        engine.egress_stats().unwrap().forwarded.load(Ordering::Relaxed),
        direct_forwarded,
        "nothing of a tier's run left through tier 0's proxy"
    );
    let stats = engine.tier_egress_stats(2).expect("tier 2's proxy runs");
    assert_eq!(stats.forwarded.load(Ordering::Relaxed) + stats.tunnels.load(Ordering::Relaxed), a + b);
    assert!(stats.bytes_down.load(Ordering::Relaxed) > 0 && stats.bytes_up.load(Ordering::Relaxed) > 0);
    let per_upstream: Vec<u64> = stats.upstream_connections.iter().map(|c| c.load(Ordering::Relaxed)).collect();
    assert_eq!(per_upstream, [a, b]);
    assert!(tier2a.bytes.load(Ordering::SeqCst) + tier2b.bytes.load(Ordering::SeqCst) > 0);
    let seen = site.seen.lock().unwrap().clone();
    assert_eq!(seen.iter().filter(|mark| *mark == "tier2").count() as u64, a + b - 1, "{seen:?}");
    reports.push(report);

    // Tier 1: its own proxy, which the site does not let in.
    let report = engine.run(job(&items, ITEMS, 1)).await;
    assert!(failure(&report).contains("HTTP 403"), "{report:?}");
    assert!(tier1.forwarded.load(Ordering::SeqCst) >= 1);
    reports.push(report);

    // Tier 3: the upstream refuses the credentials.
    let report = engine.run(job(&items, ITEMS, 3)).await;
    let message = failure(&report);
    assert!(message.starts_with("navigation failed on proxy tier 3: "), "{message}");
    assert!(message.contains(&format!("upstream proxy `{}` answered HTTP 407", tier3.addr)), "{message}");
    assert!(message.contains("refused the configured credentials"), "{message}");
    assert!(tier3.refused.load(Ordering::SeqCst) >= 1);
    assert_eq!(tier3.forwarded.load(Ordering::SeqCst), 0);
    reports.push(report);

    // Tier 4 is not configured, and there is no tier 5.
    for tier in [4, 5] {
        let report = engine.run(job(&items, ITEMS, tier)).await;
        assert_eq!(failure(&report), format!("proxy tier {tier} is not configured"));
        reports.push(report);
    }

    for report in &reports {
        let shown = format!("{report:?}");
        assert!(!shown.contains("hunter2"), "a password in a report: {shown}");
    }
    engine.close().await;
}

/// An `EngineConfig` to show with `Debug` (the same tiers, no browser).
fn engine_config_shown(tiers: &[Vec<UpstreamProxy>; 4]) -> EngineConfig {
    EngineConfig {
        chromium: None,
        browser_user: svc_runner::sandbox::DEFAULT_BROWSER_USER.into(),
        sandbox: Default::default(),
        allow_private_networks: false.into(),
        runs_per_browser: 1,
        spare_pages: 0,
        warm_pages: 0,
        resolver: Default::default(),
        tiers: tiers.clone(),
    }
}

/// Unless private networks are allowed, a private target is refused on a
/// tier as on tier 0, before anything reaches the tier's upstream (the
/// tier's own egress proxy refuses it too: see above).
#[tokio::test]
async fn a_private_target_is_refused_on_a_tier_when_private_networks_are_not_allowed() {
    let site = tier_site(&["tier2"]).await;
    let up = CountingProxy::start("tier2", "two", "two-hunter2").await;
    let engine = engine(false, [vec![], vec![upstream(&up.url)], vec![], vec![]]);
    let report = engine.run(job(&format!("{}/items/3", site.base), ITEMS, 2)).await;
    let message = failure(&report);
    assert!(message.starts_with("target refused: ") && message.contains("non-public address 127.0.0.1"), "{message}");
    assert_eq!(up.handled() + up.refused.load(Ordering::SeqCst), 0);
    assert!(site.seen.lock().unwrap().is_empty());
    assert!(!format!("{report:?}").contains("hunter2"));
    engine.close().await;
}
