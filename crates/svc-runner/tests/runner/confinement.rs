//! A confined run (AI Fix's candidates, `RunJob::confined_to`) on a real
//! Chromium: its URL's site and the sites its first navigation is
//! redirected to are reached, nothing else is (a `fetch`, an image, a
//! navigation, or a redirect of a `fetch` or of a navigation).

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use svc_engine::{Engine, EngineReport, Loads, RunJob, ScriptResult, Site};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpListener;

use crate::sessions::{engine, job};
use crate::stand_ins::read_head;

/// A server on `ip`: `/go` redirects to `/page` on `localhost` (the same
/// server under another site), `/page` is a page of two items, `/redirect?to=URL`
/// redirects to `URL`, and anything else answers `hit` to any origin. It
/// remembers every request (`host path`).
struct Server {
    base: String,
    port: u16,
    seen: Arc<Mutex<Vec<String>>>,
}

async fn server(ip: &str) -> Server {
    let listener = TcpListener::bind((ip, 0)).await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let log = log.clone();
            tokio::spawn(async move {
                let Some((head, _)) = read_head(&mut stream).await else { return };
                let target = head.split_whitespace().nth(1).unwrap_or("/").to_string();
                let host = head
                    .split("\r\n")
                    .filter_map(|l| l.split_once(':'))
                    .find(|(name, _)| name.trim().eq_ignore_ascii_case("host"))
                    .map(|(_, value)| value.trim().to_string())
                    .unwrap_or_default();
                log.lock().unwrap().push(format!("{host} {target}"));
                let url = url::Url::parse(&format!("http://{host}{target}")).unwrap();
                let to = url.query_pairs().find(|(k, _)| k == "to").map(|(_, v)| v.into_owned());
                let (status, extra, body) = match (url.path(), to) {
                    ("/go", _) => ("302 Found", format!("location: http://localhost:{port}/page\r\n"), String::new()),
                    ("/redirect", Some(to)) => ("302 Found", format!("location: {to}\r\n"), String::new()),
                    ("/page", _) => (
                        "200 OK",
                        "content-type: text/html\r\n".into(),
                        "<!doctype html><title>landed</title><li class=\"item\">a</li><li class=\"item\">b</li>".into(),
                    ),
                    _ => (
                        "200 OK",
                        "content-type: text/plain\r\naccess-control-allow-origin: *\r\n".into(),
                        "hit".into(),
                    ),
                };
                let answer = format!(
                    "HTTP/1.1 {status}\r\n{extra}content-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = stream.write_all(answer.as_bytes()).await;
            });
        }
    });
    Server { base: format!("http://{ip}:{port}"), port, seen }
}

impl Server {
    fn seen(&self) -> Vec<String> {
        self.seen.lock().unwrap().clone()
    }
}

fn data(report: &EngineReport) -> Value {
    match &report.result {
        ScriptResult::Data { json, .. } => serde_json::from_str(json).unwrap(),
        ScriptResult::Failed { message } => panic!("the run failed: {message}"),
    }
}

/// What the page's script reaches: its page, the landing site by `fetch`,
/// and the third host by `fetch`, by a redirect of a same-site `fetch`, and
/// by an image.
fn reaching(third: &str) -> String {
    format!(
        r#"
        const tryFetch = (u) => fetch(u).then((r) => r.text().then((t) => r.status + ' ' + t), () => 'refused');
        const tryImage = (u) => new Promise((done) => {{
            const img = new Image();
            img.onload = () => done('loaded');
            img.onerror = () => done('not loaded');
            img.src = u;
        }});
        returnData([
            location.href,
            [...document.querySelectorAll('.item')].map((e) => e.textContent).join(','),
            await tryFetch('/echo'),
            await tryFetch('{third}/fetch?p=' + encodeURIComponent(String(SVC.url))),
            await tryFetch('/redirect?to=' + encodeURIComponent('{third}/fetch-redirected')),
            await tryImage('{third}/image'),
        ]);
        "#
    )
}

/// A script that navigates the page to `to` and waits: the run ends when
/// its document goes (or at the timeout).
fn navigating(to: &str) -> String {
    format!("location.href = {}; await new Promise(() => {{}});", json!(to))
}

#[tokio::test]
async fn a_confined_run_follows_its_first_navigations_redirects_and_nothing_else() {
    let site = server("127.0.0.1").await;
    let third = server("127.0.0.2").await;
    let engine = engine();
    let url = format!("{}/go", site.base);
    let held = |script: &str| RunJob {
        confined_to: Site::of_url(&url),
        loads: Loads { images: true, ..Loads::default() },
        ..job(url.clone(), script, None, None)
    };
    assert_eq!(held("").confined_to.unwrap().as_str(), "127.0.0.1");

    // The URL redirects to `localhost`, another site: the run lands there,
    // and its script reaches it; the third host stays out of reach.
    let report = engine.run(held(&reaching(&third.base))).await;
    let landing = format!("http://localhost:{}/page", site.port);
    assert_eq!(data(&report), json!([landing, "a,b", "200 hit", "refused", "refused", "not loaded"]));
    assert_eq!(third.seen(), Vec::<String>::new(), "nothing reached the third host");
    let port = site.port;
    let expected = [
        format!("127.0.0.1:{port} /go"),
        format!("localhost:{port} /page"),
        format!("localhost:{port} /echo"),
        format!("localhost:{port} /redirect?to=http%3A%2F%2F127.0.0.2%3A{}%2Ffetch-redirected", third.port),
    ];
    assert_eq!(site.seen(), expected);

    // A navigation the script starts, to the third host or through a
    // redirect on the landing site: refused, the run ends without its data.
    for to in [format!("{}/navigated", third.base), format!("/redirect?to={}%2Fnavigated-redirected", third.base)] {
        let report = engine.run(held(&navigating(&to))).await;
        assert!(matches!(report.result, ScriptResult::Failed { .. }), "{to}: {:?}", report.result);
        assert_eq!(third.seen(), Vec::<String>::new(), "{to}: nothing reached the third host");
    }

    // Unconfined, the same script reaches the third host every way.
    let report = engine.run(RunJob { confined_to: None, ..held(&reaching(&third.base)) }).await;
    let got = data(&report);
    assert_eq!(got[3], json!("200 hit"), "{got}");
    assert_eq!(got[4], json!("200 hit"), "{got}");
    let reached: Vec<String> = third.seen().into_iter().map(|s| s.split(' ').nth(1).unwrap().to_string()).collect();
    assert!(reached.iter().any(|p| p.starts_with("/fetch?p=")), "{reached:?}");
    assert!(
        reached.contains(&"/fetch-redirected".to_string()) && reached.contains(&"/image".to_string()),
        "{reached:?}"
    );
    engine.close().await;
}
