//! When the browser engine hands back the page's HTML (`RunJob::capture_page`):
//! serializing a page is work on every run that asks, so a job asks only
//! when it may read it, and a run that found items never hands it back to a
//! job that wants it only to tell a blocked page.

use svc_engine::ScriptResult;
use svc_engine::{Engine, PageCapture};

use crate::sessions::{engine, job, session_site};

const ITEMS: &str = "returnData([...document.querySelectorAll('.item')].map((e) => e.textContent))";
const NOTHING: &str = "returnData([])";
const THROWS: &str = "throw new Error('no list here')";

#[tokio::test]
async fn the_page_is_handed_back_only_when_the_job_may_read_it() {
    let site = session_site().await;
    let engine = engine();
    let url = format!("{}/list", site.base);
    let cases = [
        (PageCapture::Never, ITEMS, false),
        (PageCapture::Never, NOTHING, false),
        (PageCapture::Never, THROWS, false),
        (PageCapture::UnlessItems, ITEMS, false),
        (PageCapture::UnlessItems, NOTHING, true),
        (PageCapture::UnlessItems, THROWS, true),
        (PageCapture::Always, ITEMS, true),
        (PageCapture::Always, NOTHING, true),
        (PageCapture::Always, THROWS, true),
    ];
    for (capture, script, handed_back) in cases {
        let mut run = job(url.clone(), script, None, None);
        run.capture_page = capture;
        let report = engine.run(run).await;
        match (script, &report.result) {
            (ITEMS, ScriptResult::Data { length: 1, .. }) | (NOTHING, ScriptResult::Data { length: 0, .. }) => {}
            (THROWS, ScriptResult::Failed { message }) => assert!(message.contains("no list here"), "{message}"),
            (_, other) => panic!("{capture:?} {script}: unexpected outcome {other:?}"),
        }
        match report.html {
            Some(html) => {
                assert!(handed_back, "{capture:?} {script}: the page was handed back");
                assert!(html.contains("<li class=\"item\">x</li>"), "{capture:?} {script}: {html}");
            }
            None => assert!(!handed_back, "{capture:?} {script}: no page handed back"),
        }
    }
    engine.close().await;
}
