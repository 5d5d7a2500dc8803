//! Logged-in scraping in the engine, on a real Chromium: `SVC.account`, the
//! session a run with a login hands back (cookies and the target origin's
//! localStorage), and its restoration into the next run's fresh context,
//! which no other job sees.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use svc_domain::ObjectId;
use svc_domain::site_account::{SessionState, SiteAccount};
use svc_engine::{Engine, RunJob};
use svc_engine::{EngineReport, ScriptResult};
use svc_runner::{ChromiumEngine, EngineConfig};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpListener;

use crate::stand_ins::read_head;

/// A site on loopback: `/login` sets the cookie `sid=S-<n>` (HttpOnly), and
/// every page shows the `Cookie` header it got in `#seen`. It remembers the
/// cookie header of every request.
pub(crate) struct SessionSite {
    pub(crate) base: String,
    cookies: Arc<Mutex<Vec<String>>>,
}

pub(crate) async fn session_site() -> SessionSite {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let cookies = Arc::new(Mutex::new(Vec::new()));
    let log = cookies.clone();
    tokio::spawn(async move {
        let mut logins = 0;
        while let Ok((mut stream, _)) = listener.accept().await {
            let Some((head, _)) = read_head(&mut stream).await else { continue };
            let path = head.split_whitespace().nth(1).unwrap_or("/").to_string();
            let cookie = head
                .split("\r\n")
                .filter_map(|l| l.split_once(':'))
                .find(|(name, _)| name.trim().eq_ignore_ascii_case("cookie"))
                .map(|(_, value)| value.trim().to_string())
                .unwrap_or_default();
            log.lock().unwrap().push(cookie.clone());
            let mut extra = String::new();
            if path == "/login" {
                logins += 1;
                extra = format!("set-cookie: sid=S-{logins}; Path=/; HttpOnly; Max-Age=3600\r\n");
            }
            let body =
                format!("<!doctype html><title>{path}</title><p id=\"seen\">{cookie}</p><li class=\"item\">x</li>");
            let answer = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: text/html\r\n{extra}content-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = stream.write_all(answer.as_bytes()).await;
        }
    });
    SessionSite { base, cookies }
}

pub(crate) fn engine() -> ChromiumEngine {
    ChromiumEngine::new(EngineConfig {
        chromium: svc_runner::browser::find_chromium(std::env::var("SVC_TEST_CHROMIUM").ok().as_deref()),
        browser_user: svc_runner::sandbox::DEFAULT_BROWSER_USER.into(),
        sandbox: Default::default(),
        allow_private_networks: true.into(),
        runs_per_browser: 100,
        spare_pages: 1,
        warm_pages: 0,
        resolver: Default::default(),
        tiers: Default::default(),
    })
}

pub(crate) fn job(url: String, script: &str, account: Option<&SiteAccount>, session: Option<SessionState>) -> RunJob {
    RunJob {
        history_id: ObjectId::new().to_string(),
        url,
        script: script.to_string(),
        param: None,
        params: vec![],
        triggered_by: "user",
        timeout: Duration::from_secs(30),
        loads: Default::default(),
        capture_page: svc_engine::PageCapture::Never,
        tier: 0,
        scrapper: "puppeteer".into(),
        account: account.cloned(),
        session,
        reuse: None,
        confined_to: None,
        organization: None,
        page: svc_engine::PageInput::single(),
    }
}

fn data(report: &EngineReport) -> Value {
    match &report.result {
        ScriptResult::Data { json, .. } => serde_json::from_str(json).unwrap(),
        ScriptResult::Failed { message } => panic!("the run failed: {message}"),
    }
}

/// What a page shows of its session: the cookie header it was sent, the
/// cookies its script can read, and the localStorage token.
const SHOW: &str =
    "returnData([document.getElementById('seen').textContent, document.cookie, localStorage.getItem('token')])";

#[tokio::test]
async fn a_session_goes_from_one_run_to_the_next_of_the_same_job_only() {
    let site = session_site().await;
    let engine = engine();
    let login = SiteAccount { username: "ada".into(), password: "pw-123 \"quoted\"".into() };

    // SVC.account: the login, frozen; the run leaves its session.
    let first = engine
        .run(job(
            format!("{}/login", site.base),
            "localStorage.setItem('token', 't-1'); \
             returnData([SVC.account.username, SVC.account.password, Object.isFrozen(SVC.account), Object.isFrozen(SVC)])",
            Some(&login),
            None,
        ))
        .await;
    assert_eq!(data(&first), json!(["ada", "pw-123 \"quoted\"", true, true]));
    let session = first.session.clone().expect("a run with a login that returned items leaves its session");
    let saved: Value = serde_json::from_str(session.as_str()).unwrap();
    assert_eq!(saved["cookies"][0]["name"], "sid");
    assert_eq!(saved["cookies"][0]["value"], "S-1");
    assert_eq!(saved["origin"], site.base.as_str());
    assert_eq!(saved["localStorage"], json!([["token", "t-1"]]));

    // The next run of that job starts logged in: the cookie reaches the
    // server on the first request, the storage is there before the page's scripts.
    let again = engine.run(job(format!("{}/members", site.base), SHOW, Some(&login), Some(session.clone()))).await;
    assert_eq!(data(&again), json!(["sid=S-1", "", "t-1"]), "HttpOnly stays HttpOnly");
    assert_eq!(site.cookies.lock().unwrap().last().map(String::as_str), Some("sid=S-1"));
    assert!(again.session.unwrap().as_str().contains("S-1"), "handed back again");

    // Any other job (another scrap) starts with an empty context, even on the
    // spare page made while the logged-in run ran.
    for _ in 0..2 {
        let other = engine.run(job(format!("{}/members", site.base), SHOW, None, None)).await;
        assert_eq!(data(&other), json!(["", "", null]));
        assert_eq!(other.session, None, "no login: no session is read");
    }
    let logged_out = engine.run(job(format!("{}/members", site.base), SHOW, Some(&login), None)).await;
    assert_eq!(data(&logged_out), json!(["", "", null]));
    assert_eq!(site.cookies.lock().unwrap().last().map(String::as_str), Some(""));

    // No items, or a failure: no session.
    let empty = engine.run(job(format!("{}/login", site.base), "returnData([])", Some(&login), None)).await;
    assert_eq!(empty.session, None);
    let failed = engine.run(job(format!("{}/login", site.base), "throw new Error('x')", Some(&login), None)).await;
    assert_eq!(failed.session, None);
    // No login: `SVC.account` is null.
    let anonymous = engine.run(job(format!("{}/members", site.base), "returnData([SVC.account])", None, None)).await;
    assert_eq!(data(&anonymous), json!([null]));
    // A session that is not one is skipped: the run starts logged out.
    let broken =
        engine.run(job(format!("{}/members", site.base), SHOW, Some(&login), Some(SessionState::new("{oops")))).await;
    assert_eq!(data(&broken), json!(["", "", null]));
    engine.close().await;
}
