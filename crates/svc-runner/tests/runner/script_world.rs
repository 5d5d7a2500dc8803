//! The world a run's script runs in: made by Chromium at the start of every
//! document the engine's pages load (fresh and warm alike), so that no run
//! asks for one, and new with each document: nothing a run's script left
//! in it is there for the next run in the same page.

use svc_domain::{OrgId, ScrapId};
use svc_engine::ScriptResult;
use svc_engine::{Engine, ReuseKey};
use svc_runner::{ChromiumEngine, EngineConfig};

use crate::sessions::{job, session_site};

#[tokio::test]
async fn every_document_has_the_scripts_world_from_its_start() {
    let site = session_site().await;
    let engine = ChromiumEngine::new(EngineConfig {
        chromium: svc_runner::browser::find_chromium(std::env::var("SVC_TEST_CHROMIUM").ok().as_deref()),
        browser_user: svc_runner::sandbox::DEFAULT_BROWSER_USER.into(),
        sandbox: Default::default(),
        allow_private_networks: true.into(),
        runs_per_browser: 100,
        spare_pages: 1,
        warm_pages: 2,
        resolver: Default::default(),
        tiers: Default::default(),
    });
    let key = ReuseKey { organization: OrgId::new(), scrap: ScrapId::new() };
    let script = "const seen = typeof window.leftover; window.leftover = 1; \
                  returnData([document.querySelectorAll('.item').length, seen, typeof SVC])";
    for (i, reuse) in [None, Some(key), Some(key), Some(key), None].into_iter().enumerate() {
        let mut run = job(format!("{}/page-{i}", site.base), script, None, None);
        run.reuse = reuse;
        let report = engine.run(run).await;
        match &report.result {
            ScriptResult::Data { json, .. } => assert_eq!(json, r#"[1,"undefined","object"]"#, "run {i}"),
            ScriptResult::Failed { message } => panic!("run {i} failed: {message}"),
        }
    }
    assert!(engine.runs_in_warm_pages() >= 1, "warm pages were used");
    assert_eq!(engine.worlds_made_for_runs(), 0, "every run found its world made with its document");
    engine.close().await;
}
