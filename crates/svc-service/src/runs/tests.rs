use std::collections::HashMap;
use std::sync::Mutex;

use async_trait::async_trait;
use svc_domain::site_account::SiteAccount;
use svc_storage::HistoryFilter;

use std::sync::Arc;

use chrono::Utc;
use svc_domain::ObjectId;
use svc_domain::activity::Activity;
use svc_domain::history::{HistoryRow, StatusDetail};
use svc_domain::scrap::ParamSet;
use svc_domain::site_account::{SavedSession, SessionState};
use svc_storage::ClaimedRun;

use super::*;
use crate::accounts::rate_limits::TRIGGER_PER_KEY;
use crate::runs::engine_choice;
use crate::runs::history::HistoryView;
use crate::testing::TestServices;
use crate::{Principal, Result, ServiceError};
use svc_domain::meter::BYTES_PER_UNIT;
use svc_engine::{Engine, RunJob};
use svc_engine::{EngineReport, ScriptResult};

/// An engine that answers every job with one report and keeps the jobs.
struct Scripted {
    report: EngineReport,
    jobs: Mutex<Vec<RunJob>>,
}

#[async_trait]
impl Engine for Scripted {
    async fn run(&self, job: RunJob) -> EngineReport {
        self.jobs.lock().unwrap().push(job);
        self.report.clone()
    }
}

/// A caller waiting on a run a worker of this process finishes answers with
/// the row the finish stored (carried by the signal, not read again): the
/// same row a read gives. Another organization's caller waiting on the same
/// id is refused: its first read finds no such run, before any signal.
#[tokio::test]
async fn a_run_finished_here_answers_its_waiters_with_the_stored_row_of_their_own_organization() {
    let t = TestServices::start().await;
    let ada = t.signup("ada@example.com").await;
    let eve = t.signup("eve@example.com").await;
    let scrap = t.scrap(&ada, "Here").await;
    let me = Principal::Session(ada.session.clone());
    let stranger = Principal::Session(eve.session.clone());
    let run = t.services.runs.trigger(&me, Trigger::Worker, scrap, None).await.unwrap();
    let wait = std::time::Duration::from_secs(10);
    let waiters = async {
        tokio::join!(
            t.services.runs.wait_finished(&me, run.id, wait),
            t.services.runs.wait_finished(&stranger, run.id, wait),
        )
    };
    let engine = ToldOfClaims::default();
    let worker = async {
        let claim = t.services.runs.claim("default", "here", &[]).await.unwrap().unwrap();
        t.services.runs.execute(&claim, &engine).await.unwrap();
    };
    let ((seen, strangers), ()) = tokio::join!(waiters, worker);
    let seen = seen.unwrap().expect("seen finished before the wait ended");
    let stored = t.store.history_row(ada.session.org(), run.id).await.unwrap().unwrap();
    assert_eq!(seen, HistoryView::for_principal(stored, &me), "the row as a read of it gives");
    assert_eq!(seen.row.status_detail, Some(StatusDetail::Success));
    assert!(matches!(strangers, Err(ServiceError::NotFound(_))), "another organization's caller: {strangers:?}");
}

#[tokio::test]
async fn progress_follows_a_run_from_the_queue_to_its_row() {
    let t = TestServices::start().await;
    let ada = t.signup("ada@example.com").await;
    let eve = t.signup("eve@example.com").await;
    let scrap = t.scrap(&ada, "Watched").await;
    let me = Principal::Session(ada.session.clone());
    let row = t.services.runs.trigger(&me, Trigger::Worker, scrap, None).await.unwrap();
    assert_eq!(t.services.runs.progress(&me, row.id).await.unwrap(), RunProgress::Queued);
    let stranger = Principal::Session(eve.session.clone());
    assert!(matches!(t.services.runs.progress(&stranger, row.id).await, Err(ServiceError::NotFound(_))));
    let claim = t.services.runs.claim("default", "w-1", &[]).await.unwrap().unwrap();
    assert_eq!(t.services.runs.progress(&me, row.id).await.unwrap(), RunProgress::Running);
    let (_, pending) = t.services.runs.job(&claim).await.unwrap().unwrap();
    let report = EngineReport {
        result: ScriptResult::Data { json: "[1]".into(), length: 1 },
        duration_ms: 5,
        bytes: 10,
        snapshot: None,
        status: None,
        html: None,
        session: None,
        enqueued: vec![],
    };
    t.services.runs.finish(&claim, pending, report).await.unwrap();
    match t.services.runs.progress(&me, row.id).await.unwrap() {
        RunProgress::Finished(view) => assert_eq!(view.row.length, 1),
        other => panic!("expected the finished row, got {other:?}"),
    }
}

/// A run carries its scrap's engine; a static scrap's runs go direct
/// (no proxy tiers), and a proxy tier other than tier0 is refused for it.
#[tokio::test]
async fn a_run_names_its_scraps_engine_and_static_runs_go_direct() {
    let t = TestServices::start().await;
    let ada = t.signup("ada@example.com").await;
    let me = Principal::Session(ada.session.clone());
    let scrap = t.scrap(&ada, "Static").await;
    let to = |scrapper: &str, tier: Option<&str>| crate::scraps::input::ScrapChanges {
        scrapper: Some(scrapper.into()),
        proxy_tier: Some(tier.map(str::to_string)),
        ..Default::default()
    };
    let refused = t.services.scraps.update(&ada.session, scrap, to("static", Some("tier2"))).await;
    assert!(matches!(refused, Err(ServiceError::Validation { ref field, .. }) if field == "proxyTier"), "{refused:?}");
    t.services.scraps.update(&ada.session, scrap, to("static", Some("tier0"))).await.unwrap();

    let report = EngineReport {
        result: ScriptResult::Data { json: "[1]".into(), length: 1 },
        duration_ms: 5,
        bytes: 10,
        snapshot: None,
        status: Some(200),
        html: None,
        session: None,
        enqueued: vec![],
    };
    let engine = Scripted { report, jobs: Mutex::default() };
    t.services.runs.trigger(&me, Trigger::Worker, scrap, None).await.unwrap();
    let claim = t.services.runs.claim("default", "w-1", &[]).await.unwrap().unwrap();
    assert_eq!(t.services.runs.execute(&claim, &engine).await.unwrap(), Some(StatusDetail::Success));
    t.services.scraps.update(&ada.session, scrap, to("puppeteer", None)).await.unwrap();
    t.services.runs.trigger(&me, Trigger::Worker, scrap, None).await.unwrap();
    let claim = t.services.runs.claim("default", "w-1", &[]).await.unwrap().unwrap();
    t.services.runs.execute(&claim, &engine).await.unwrap();
    let jobs = engine.jobs.lock().unwrap().clone();
    let seen: Vec<(&str, u8)> = jobs.iter().map(|j| (j.scrapper.as_str(), j.tier)).collect();
    assert_eq!(seen, [("static", 0), ("puppeteer", 0)]);
}

/// Answers each engine with its own scripted data (a JSON array).
struct TwoEngines {
    answers: Mutex<HashMap<String, String>>,
    jobs: Mutex<Vec<RunJob>>,
}

impl TwoEngines {
    fn new(static_data: &str, browser_data: &str) -> Self {
        let engines = TwoEngines { answers: Mutex::default(), jobs: Mutex::default() };
        engines.answer(static_data, browser_data);
        engines
    }

    fn answer(&self, static_data: &str, browser_data: &str) {
        let mut answers = self.answers.lock().unwrap();
        answers.insert("static".into(), static_data.into());
        answers.insert("puppeteer".into(), browser_data.into());
    }

    /// The engines the jobs since the last call went to.
    fn seen(&self) -> Vec<String> {
        self.jobs.lock().unwrap().drain(..).map(|j| j.scrapper).collect()
    }
}

#[async_trait]
impl Engine for TwoEngines {
    async fn run(&self, job: RunJob) -> EngineReport {
        let json = self.answers.lock().unwrap()[&job.scrapper].clone();
        self.jobs.lock().unwrap().push(job.clone());
        let length = serde_json::from_str::<Vec<serde_json::Value>>(&json).unwrap().len() as i64;
        let bytes = if job.scrapper == "static" { 1_000 } else { 3_000 };
        EngineReport {
            result: ScriptResult::Data { json, length },
            duration_ms: 5,
            bytes,
            snapshot: None,
            status: Some(200),
            html: None,
            session: None,
            enqueued: vec![],
        }
    }
}

/// `auto` compares both engines on the first run, then runs static
/// alone while it finds items; falls back to (and then stays on) the
/// browser when static finds nothing; compares again once an hour has
/// passed (one run of those due at once) and for a new script; says so
/// in the activity log; meters every engine it ran.
#[tokio::test]
async fn auto_learns_which_engine_a_scrap_needs() {
    let t = TestServices::start().await;
    let ada = t.signup("ada@example.com").await;
    let me = Principal::Session(ada.session.clone());
    let scrap = t.scrap(&ada, "Auto").await;
    let runs = &t.services.runs;
    let set = |changes: crate::scraps::input::ScrapChanges| async {
        t.services.scraps.update(&ada.session, scrap, changes).await
    };
    let refused = set(crate::scraps::input::ScrapChanges {
        scrapper: Some("auto".into()),
        proxy_tier: Some(Some("tier1".into())),
        ..Default::default()
    })
    .await;
    assert!(matches!(refused, Err(ServiceError::Validation { ref field, .. }) if field == "proxyTier"), "{refused:?}");
    set(crate::scraps::input::ScrapChanges { scrapper: Some("auto".into()), ..Default::default() }).await.unwrap();

    let engines = TwoEngines::new(r#"[{"t":"a"},{"t":"b"}]"#, r#"[{"t":"A"},{"t":"B"}]"#);
    let run = || async {
        let row = runs.trigger(&me, Trigger::Worker, scrap, None).await.unwrap();
        let claim = runs.claim("default", "w-1", &[]).await.unwrap().unwrap();
        runs.execute(&claim, &engines).await.unwrap();
        t.store.history_row(ada.session.org(), row.id).await.unwrap().unwrap()
    };
    let memory = || async { t.store.engine_memory(ada.session.org(), scrap).await.unwrap() };
    let chosen = || async {
        let log = t.store.list_activities(ada.session.org(), scrap, 0, 100).await.unwrap();
        log.items.into_iter().filter(|a| a.kind == "engine.chosen").map(|a| a.message).collect::<Vec<_>>()
    };

    // 1: both run; the same items (same fields) → static, and its data is kept.
    let row = run().await;
    assert_eq!(engines.seen(), ["static", "puppeteer"]);
    assert_eq!(row.data, r#"[{"t":"a"},{"t":"b"}]"#);
    assert_eq!(row.meter.as_ref().map(|m| m.units()), Some(2), "both page loads are metered");
    let first = memory().await.unwrap();
    assert_eq!(first.engine, "static");
    assert_eq!(chosen().await, ["Automatic engine: static: static found the same 2 items as the browser"]);

    // 2: static alone, and nothing written.
    let row = run().await;
    assert_eq!(engines.seen(), ["static"]);
    assert_eq!((row.data.as_str(), row.proxy_tier.as_str()), (r#"[{"t":"a"},{"t":"b"}]"#, "tier0"));
    assert_eq!(memory().await, Some(first));

    // 3: the page now builds its list in the browser: static finds nothing → the browser's data.
    engines.answer("[]", r#"[{"t":"A"},{"t":"B"},{"t":"C"}]"#);
    let row = run().await;
    assert_eq!(engines.seen(), ["static", "puppeteer"]);
    assert_eq!((row.length, row.status_detail), (3, Some(StatusDetail::Success)));
    let fell_back = memory().await.unwrap();
    assert_eq!(fell_back.engine, "puppeteer");
    assert_eq!(
        chosen().await[0],
        "Automatic engine: puppeteer (was static): the browser found 3 items and static found nothing"
    );

    // 4..: the browser alone within the hour.
    engines.answer(r#"[{"t":"a"},{"t":"b"},{"t":"c"}]"#, r#"[{"t":"A"},{"t":"B"},{"t":"C"}]"#);
    for _ in 0..3 {
        run().await;
        assert_eq!(engines.seen(), ["puppeteer"]);
    }
    // An hour later (the memory says it was checked an hour ago): the next run compares.
    let an_hour_ago = svc_storage::EngineMemory { checked_at: Utc::now() - engine_choice::CHECK_PERIOD, ..fell_back };
    t.store.set_engine_memory(ada.session.org(), scrap, &an_hour_ago).await.unwrap();
    run().await;
    assert_eq!(engines.seen(), ["static", "puppeteer"], "the first run after an hour compares");
    let checked = memory().await.unwrap();
    assert_eq!(checked.engine, "static");
    assert!(checked.checked_at > an_hour_ago.checked_at, "{checked:?}");
    assert_eq!(chosen().await.len(), 3);
    run().await;
    assert_eq!(engines.seen(), ["static"], "then static alone for the hour");

    // A new script is decided afresh.
    set(crate::scraps::input::ScrapChanges {
        request: Some("returnData([{ t: document.title }])".into()),
        ..Default::default()
    })
    .await
    .unwrap();
    run().await;
    assert_eq!(engines.seen(), ["static", "puppeteer"]);
    let log = chosen().await;
    assert_eq!(log.len(), 4, "a new script's choice is announced: {log:?}");
    assert_eq!(log[0], "Automatic engine: static: static found the same 3 items as the browser");

    // Deleting the scrap forgets its engine.
    t.services.scraps.delete(&ada.session, scrap).await.unwrap();
    assert_eq!(memory().await, None);
}

fn draft(url: &str, script: &str) -> TestRun {
    TestRun { url: url.into(), script: script.into(), params: vec![], param: None, scrap: None, scrapper: None }
}

fn field_of(result: Result<TestRunOutcome>) -> String {
    match result {
        Err(ServiceError::Validation { field, .. }) => field,
        other => panic!("expected a validation error, got {other:?}"),
    }
}

#[tokio::test]
async fn a_test_run_checks_its_draft_like_a_scrap() {
    let t = TestServices::start().await;
    let ada = t.signup("ada@example.com").await;
    let runs = &t.services.runs;
    let ok = "https://example.com/";
    for (url, script, field) in [
        ("", "returnData([])", "url"),
        ("ftp://example.com/", "returnData([])", "url"),
        ("example.com", "returnData([])", "url"),
        (ok, "  \n", "request"),
        (ok, "// svc:load videos\nreturnData([])", "request"),
    ] {
        assert_eq!(field_of(runs.test_run(&ada.session, draft(url, script)).await), field, "{url} {script:?}");
    }
    let params = vec![ParamSet { key: "fr".into(), value: serde_json::json!({"lang": "fr"}) }];
    let unknown = TestRun { params: params.clone(), param: Some("de".into()), ..draft(ok, "returnData([])") };
    assert_eq!(field_of(runs.test_run(&ada.session, unknown).await), "param");
    let twice = TestRun { params: [params.clone(), params].concat(), ..draft(ok, "returnData([])") };
    assert_eq!(field_of(runs.test_run(&ada.session, twice).await), "params");
    let unknown_engine = TestRun { scrapper: Some("selenium".into()), ..draft(ok, "returnData([])") };
    assert_eq!(field_of(runs.test_run(&ada.session, unknown_engine).await), "scrapper");

    match runs.test_run(&ada.session, draft(ok, "returnData([])")).await {
        Err(ServiceError::Unavailable(message)) => assert_eq!(message, NO_ENGINE_HERE),
        other => panic!("expected no browser, got {other:?}"),
    }
}

#[tokio::test]
async fn a_test_run_runs_the_draft_charges_and_stores_nothing() {
    let t = TestServices::start().await;
    let ada = t.signup("ada@example.com").await;
    let runs = &t.services.runs;
    let report = EngineReport {
        result: ScriptResult::Data { json: "[1,2]".into(), length: 2 },
        duration_ms: 42,
        bytes: BYTES_PER_UNIT * 2,
        snapshot: Some(serde_json::json!({"html": "<p></p>", "selector": "#x", "screenshot": "iVBOR"})),
        status: None,
        html: None,
        session: None,
        enqueued: vec![],
    };
    let engine = Arc::new(Scripted { report: report.clone(), jobs: Mutex::default() });
    runs.attach_engine(engine.clone(), crate::schedule::RunSlots::new(1));
    // A second engine is ignored.
    let other = Arc::new(Scripted { report: report.clone(), jobs: Mutex::default() });
    runs.attach_engine(other.clone(), crate::schedule::RunSlots::new(1));

    let params = vec![
        ParamSet { key: "fr".into(), value: serde_json::json!({"lang": "fr"}) },
        ParamSet { key: "de".into(), value: serde_json::json!({"lang": "de"}) },
    ];
    let script = "// svc:load images\nreturnData([1, 2])";
    let run = TestRun {
        url: " https://example.com/items ".into(),
        script: script.into(),
        params: params.clone(),
        param: Some("de".into()),
        scrap: None,
        scrapper: Some("static".into()),
    };
    let outcome = runs.test_run(&ada.session, run).await.unwrap();
    assert_eq!(
        outcome,
        TestRunOutcome {
            result: report.result.clone(),
            duration_ms: 42,
            snapshot: Some(serde_json::json!({"selector": "#x", "screenshot": "iVBOR"})),
            units: 3,
            pages: vec![],
            static_alternative: None,
        },
        "the author sees the screenshot and selector; the page markup is for platform admins"
    );
    let jobs = engine.jobs.lock().unwrap().clone();
    assert_eq!(jobs.len(), 1);
    assert!(other.jobs.lock().unwrap().is_empty());
    let job = &jobs[0];
    assert_eq!((job.url.as_str(), job.script.as_str()), ("https://example.com/items", script));
    assert_eq!((job.param.clone(), job.params.clone()), (Some(params[1].clone()), params));
    assert_eq!((job.triggered_by, job.timeout), ("user", runs.run_timeout()));
    assert_eq!((&job.account, &job.session), (&None, &None), "a draft of no scrap runs logged out");
    assert!(job.loads.images && !job.loads.fonts);
    assert_eq!(job.scrapper, "static", "on the engine the editor names");
    assert!(ObjectId::parse(&job.history_id).is_some());

    let org = t.store.organization(ada.session.org()).await.unwrap().unwrap();
    assert_eq!(org.balance, 1000 - 3, "charged as a run of that many bytes");
    let filter = HistoryFilter { limit: 10, ..HistoryFilter::default() };
    assert_eq!(t.store.list_history(ada.session.org(), &filter).await.unwrap().total, 0, "no history row");

    // A platform admin sees the whole failure capture.
    t.store.set_admin(ada.session.org(), ada.session.user(), true).await.unwrap();
    let admin = t.services.auth.session(&ada.token).await.unwrap();
    let outcome = runs.test_run(&admin, draft("https://example.com/", "returnData([])")).await.unwrap();
    assert_eq!(outcome.snapshot, report.snapshot);
    // On the browser, with items: static was tried too, and gave the same data.
    let tried: Vec<String> = engine.jobs.lock().unwrap()[1..].iter().map(|j| j.scrapper.clone()).collect();
    assert_eq!(tried, ["puppeteer", "static"]);
    assert_eq!(
        outcome.static_alternative,
        Some(crate::runs::StaticAlternative { items: 2, static_ms: 42, browser_ms: 42 })
    );

    // No balance left: refused before any browser work.
    t.store.add_balance(ada.session.org(), -org.balance).await.unwrap();
    let refused = runs.test_run(&ada.session, draft("https://example.com/", "returnData([])")).await;
    assert!(matches!(refused, Err(ServiceError::InsufficientBalance)), "{refused:?}");
    assert_eq!(engine.jobs.lock().unwrap().len(), 3);
}

#[tokio::test]
async fn test_runs_are_limited_per_user() {
    let t = TestServices::start().await;
    let ada = t.signup("ada@example.com").await;
    let bob = t.signup("bob@example.com").await;
    let report = EngineReport {
        result: ScriptResult::Failed { message: "boom".into() },
        duration_ms: 1,
        bytes: 0,
        snapshot: None,
        status: None,
        html: None,
        session: None,
        enqueued: vec![],
    };
    t.services
        .runs
        .attach_engine(Arc::new(Scripted { report, jobs: Mutex::default() }), crate::schedule::RunSlots::new(1));
    let run = || draft("https://example.com/", "returnData([])");
    for _ in 0..TRIGGER_PER_KEY.limit {
        t.services.runs.test_run(&ada.session, run()).await.unwrap();
    }
    let refused = t.services.runs.test_run(&ada.session, run()).await;
    assert!(matches!(refused, Err(ServiceError::RateLimited(_))), "{refused:?}");
    let balance = t.store.organization(ada.session.org()).await.unwrap().unwrap().balance;
    assert_eq!(balance, 1000 - TRIGGER_PER_KEY.limit as i64, "the refused one is not charged");
    assert!(t.services.runs.test_run(&bob.session, run()).await.is_ok(), "another user has their own bucket");
}

/// An engine that answers jobs with the given reports, in order, and keeps the jobs.
struct Sequence {
    reports: Mutex<Vec<EngineReport>>,
    jobs: Mutex<Vec<RunJob>>,
}

#[async_trait]
impl Engine for Sequence {
    async fn run(&self, job: RunJob) -> EngineReport {
        self.jobs.lock().unwrap().push(job);
        self.reports.lock().unwrap().remove(0)
    }
}

fn report(result: ScriptResult, snapshot: Option<serde_json::Value>, session: Option<&str>) -> EngineReport {
    EngineReport {
        result,
        duration_ms: 5,
        bytes: 10,
        snapshot,
        status: Some(200),
        html: None,
        session: session.map(SessionState::new),
        enqueued: vec![],
    }
}

#[tokio::test]
async fn runs_log_in_keep_their_session_and_store_no_secret() {
    let t = TestServices::start().await;
    let ada = t.signup("ada@example.com").await;
    let scrap = t.scrap(&ada, "Members").await;
    let (username, password) = ("ada.lovelace", "Hunter2-Secret");
    t.services.site_accounts.set_account(&ada.session, scrap, username.into(), password.into()).await.unwrap();
    let me = Principal::Session(ada.session.clone());
    let leaky = format!(r#"[{{"user":"{username}","note":"pw {password}"}}]"#);
    let capture = serde_json::json!({
        "html": format!("<input value=\"{username}\"><input value=\"{password}\">"),
        "selector": "#members",
        "screenshot": "iVBOR",
    });
    let engine = Sequence {
        reports: Mutex::new(vec![
            report(ScriptResult::Data { json: leaky, length: 1 }, None, Some(r#"{"v":1,"cookies":[]}"#)),
            report(ScriptResult::Data { json: "[1]".into(), length: 1 }, None, Some(r#"{"v":1,"n":2}"#)),
            report(
                ScriptResult::Failed { message: format!("the script threw: no entry for {username}/{password}") },
                Some(capture),
                Some(r#"{"v":1,"n":3}"#),
            ),
            report(ScriptResult::Data { json: "[]".into(), length: 0 }, None, Some(r#"{"v":1,"n":4}"#)),
        ]),
        jobs: Mutex::default(),
    };
    let mut rows = Vec::new();
    for _ in 0..4 {
        let row = t.services.runs.trigger(&me, Trigger::Worker, scrap, None).await.unwrap();
        let claim = t.services.runs.claim("default", "w-1", &[]).await.unwrap().unwrap();
        t.services.runs.execute(&claim, &engine).await.unwrap();
        rows.push(t.store.history_row(ada.session.org(), row.id).await.unwrap().unwrap());
    }
    let jobs = engine.jobs.lock().unwrap().clone();
    let login = SiteAccount { username: username.into(), password: password.into() };
    assert!(jobs.iter().all(|j| j.account.as_ref() == Some(&login)), "every run gets the login");
    assert_eq!(jobs[0].session, None, "no session before the first success");
    assert_eq!(jobs[1].session, Some(SessionState::new(r#"{"v":1,"cookies":[]}"#)));
    assert_eq!(jobs[2].session, Some(SessionState::new(r#"{"v":1,"n":2}"#)), "the newest success's");
    assert_eq!(jobs[3].session, jobs[2].session, "an error keeps the session saved before it");

    // Nothing stored holds the login.
    assert_eq!(rows[0].data, r#"[{"user":"***","note":"pw ***"}]"#);
    assert_eq!(rows[2].error.as_deref(), Some("the script threw: no entry for ***/***"));
    let snapshot = rows[2].error_snapshot.clone().unwrap();
    assert_eq!(snapshot["html"], r#"<input value="***"><input value="***">"#);
    assert_eq!(snapshot["screenshot"], "iVBOR");
    for row in &rows {
        let all = format!("{} {:?} {:?}", row.data, row.error, row.error_snapshot);
        assert!(!all.contains(password) && !all.contains(username), "{all}");
    }
    let saved = t.store.site_session(ada.session.org(), scrap).await.unwrap().unwrap();
    assert_eq!(saved.state, SessionState::new(r#"{"v":1,"n":2}"#), "empty and error runs save nothing");
    assert_eq!(saved.history_id, Some(rows[1].id));

    // No login: `SVC.account` is null and nothing is restored.
    t.services.site_accounts.delete_account(&ada.session, scrap).await.unwrap();
    t.services.runs.trigger(&me, Trigger::Worker, scrap, None).await.unwrap();
    let claim = t.services.runs.claim("default", "w-1", &[]).await.unwrap().unwrap();
    let (job, _) = t.services.runs.job(&claim).await.unwrap().unwrap();
    assert_eq!((job.account, job.session), (None, None));
    t.services
        .runs
        .finish(&claim, job_row(&t, &claim).await, report(ScriptResult::Failed { message: "x".into() }, None, None))
        .await
        .unwrap();

    // A login sealed with another master key fails the run, saying so, without a browser.
    let stranger =
        svc_storage::connect(t.db_url(), svc_storage::Sealer::new(svc_storage::MasterKey::generate())).await.unwrap();
    let log = Activity::new(ada.session.org(), scrap, "account.set", "system".into(), "elsewhere".into());
    assert!(stranger.set_site_account(ada.session.org(), scrap, &login, Utc::now(), false, &log).await.unwrap());
    let row = t.services.runs.trigger(&me, Trigger::Worker, scrap, None).await.unwrap();
    let claim = t.services.runs.claim("default", "w-1", &[]).await.unwrap().unwrap();
    let before = engine.jobs.lock().unwrap().len();
    t.services.runs.execute(&claim, &engine).await.unwrap();
    assert_eq!(engine.jobs.lock().unwrap().len(), before, "no browser work");
    let row = t.store.history_row(ada.session.org(), row.id).await.unwrap().unwrap();
    assert_eq!(row.status_detail, Some(StatusDetail::Error));
    let error = row.error.unwrap();
    assert!(error.starts_with("the scrap's site login cannot be opened") && error.ends_with("set it again"), "{error}");
    let status = t.services.site_accounts.account_status(&me, scrap).await.unwrap();
    assert!(status.has_account && status.username_hint.is_none(), "{status:?}");
    stranger.close().await;
}

#[tokio::test]
async fn a_test_run_of_a_saved_scrap_signs_in_with_its_login_and_masks_it() {
    let t = TestServices::start().await;
    let ada = t.signup("ada@example.com").await;
    let eve = t.signup("eve@example.com").await;
    let scrap = t.scrap(&ada, "Members").await;
    t.services.site_accounts.set_account(&ada.session, scrap, "ada.l".into(), "pw-secret".into()).await.unwrap();
    let saved = SavedSession { state: SessionState::new("{}"), saved_at: Utc::now(), history_id: None };
    t.store.save_site_session(ada.session.org(), scrap, &saved).await.unwrap();
    let report = report(
        ScriptResult::Failed { message: "the script threw: ada.l / pw-secret".into() },
        Some(serde_json::json!({"html": "<b>pw-secret</b>", "selector": null, "screenshot": null})),
        Some(r#"{"v":1,"new":true}"#),
    );
    let engine = Arc::new(Scripted { report, jobs: Mutex::default() });
    t.services.runs.attach_engine(engine.clone(), crate::schedule::RunSlots::new(1));
    let draft = TestRun { scrap: Some(scrap), ..draft("https://example.com/", "returnData([])") };
    let outcome = t.services.runs.test_run(&ada.session, draft.clone()).await.unwrap();
    assert_eq!(outcome.result, ScriptResult::Failed { message: "the script threw: *** / ***".into() });
    let job = engine.jobs.lock().unwrap()[0].clone();
    assert_eq!(job.account.map(|a| a.password).as_deref(), Some("pw-secret"));
    assert_eq!(job.session, Some(SessionState::new("{}")));
    assert_eq!(
        t.store.site_session(ada.session.org(), scrap).await.unwrap().unwrap().state,
        SessionState::new("{}"),
        "a test run saves no session"
    );
    // Platform admins see the page markup: masked too.
    t.store.set_admin(ada.session.org(), ada.session.user(), true).await.unwrap();
    let admin = t.services.auth.session(&ada.token).await.unwrap();
    let outcome = t.services.runs.test_run(&admin, draft.clone()).await.unwrap();
    assert_eq!(outcome.snapshot.unwrap()["html"], "<b>***</b>");
    // Another organization's scrap: not found, nothing run.
    let refused = t.services.runs.test_run(&eve.session, draft).await;
    assert!(matches!(refused, Err(ServiceError::NotFound(_))), "{refused:?}");
    assert_eq!(engine.jobs.lock().unwrap().len(), 2);
}

async fn job_row(t: &TestServices, claim: &ClaimedRun) -> HistoryRow {
    t.store.history_row(claim.organization_id, claim.history_id).await.unwrap().unwrap()
}

/// A claim prefers the runs that fit what the engine keeps warm (the
/// organization, and the origin a warm page shows), else takes the oldest.
#[tokio::test]
async fn a_claim_prefers_the_runs_that_fit_what_the_engine_keeps_warm() {
    let t = TestServices::start().await;
    let ada = t.signup("ada@example.com").await;
    let eve = t.signup("eve@example.com").await;
    let (ada_scrap, eve_scrap) = (t.scrap(&ada, "Ada's").await, t.scrap(&eve, "Eve's").await);
    let (ada_me, eve_me) = (Principal::Session(ada.session.clone()), Principal::Session(eve.session.clone()));
    let oldest = t.services.runs.trigger(&ada_me, Trigger::Worker, ada_scrap, None).await.unwrap();
    let eves = t.services.runs.trigger(&eve_me, Trigger::Worker, eve_scrap, None).await.unwrap();
    let newest = t.services.runs.trigger(&ada_me, Trigger::Worker, ada_scrap, None).await.unwrap();
    let warm = |org, origin: &str| svc_engine::Warm { organization: org, origin: Some(origin.to_string()) };

    // A page of Eve's on the scrap's origin: Eve's run, though Ada's is older.
    let claim = t.services.runs.claim("default", "w", &[warm(eve.session.org(), "https://example.com")]).await;
    assert_eq!(claim.unwrap().unwrap().history_id, eves.id);
    // A page on another origin fits no run: the oldest.
    let claim = t.services.runs.claim("default", "w", &[warm(ada.session.org(), "https://example.org")]).await;
    assert_eq!(claim.unwrap().unwrap().history_id, oldest.id);
    let claim = t.services.runs.claim("default", "w", &[]).await.unwrap().unwrap();
    assert_eq!(claim.history_id, newest.id);
    assert!(
        t.services
            .runs
            .claim("default", "w", &[warm(ada.session.org(), "https://example.com")])
            .await
            .unwrap()
            .is_none()
    );
}

/// An engine that answers every job with data and keeps what it was told
/// of claims.
#[derive(Default)]
struct ToldOfClaims {
    claimed: Mutex<Vec<(svc_engine::ReuseKey, String, String)>>,
}

#[async_trait]
impl Engine for ToldOfClaims {
    async fn run(&self, _job: RunJob) -> EngineReport {
        report(ScriptResult::Data { json: "[1]".into(), length: 1 }, None, None)
    }

    fn claimed(&self, key: svc_engine::ReuseKey, url: &str, scrapper: &str) {
        self.claimed.lock().unwrap().push((key, url.to_string(), scrapper.to_string()));
    }
}

/// A worker tells the engine of each run it claims, with the scrap's URL
/// and engine, so that the engine keeps the warm page that fits it (`Engine::claimed`);
/// a worker whose claims do not prefer warm pages does not.
#[tokio::test]
async fn a_worker_tells_the_engine_of_each_claim() {
    let t = TestServices::start().await;
    let ada = t.signup("ada@example.com").await;
    let scrap = t.scrap(&ada, "Told").await;
    let me = Principal::Session(ada.session.clone());
    let engine = Arc::new(ToldOfClaims::default());
    let slots = crate::schedule::RunSlots::new(1);
    let worker = crate::runs::worker::Worker::new(t.shared(), engine.clone(), "default", slots.clone());
    let unaffine = crate::runs::worker::Worker::new(t.shared(), engine.clone(), "default", slots).with_affinity(false);

    t.services.runs.trigger(&me, Trigger::Worker, scrap, None).await.unwrap();
    assert!(worker.try_step().await.unwrap());
    let key = svc_engine::ReuseKey { organization: ada.session.org(), scrap };
    let told = (key, "https://example.com/items".to_string(), "puppeteer".to_string());
    assert_eq!(*engine.claimed.lock().unwrap(), vec![told]);
    t.services.runs.trigger(&me, Trigger::Worker, scrap, None).await.unwrap();
    assert!(unaffine.try_step().await.unwrap());
    assert_eq!(engine.claimed.lock().unwrap().len(), 1, "told once: the second worker does not prefer warm pages");
}

/// A caller waits on a run that a worker in another process finishes: no
/// signal of this process tells it, the poll its callers share does. The
/// callers' runs are read for all of them at once, and a caller's run is
/// watched only while it waits.
#[tokio::test]
async fn a_run_finished_in_another_process_is_seen_by_the_shared_poll() {
    let t = TestServices::start().await;
    let ada = t.signup("ada@example.com").await;
    let scrap = t.scrap(&ada, "Elsewhere").await;
    let me = Principal::Session(ada.session.clone());
    let (first, second) = (
        t.services.runs.trigger(&me, Trigger::Worker, scrap, None).await.unwrap(),
        t.services.runs.trigger(&me, Trigger::Worker, scrap, None).await.unwrap(),
    );
    let wait = std::time::Duration::from_secs(10);
    let waiters = async {
        tokio::join!(
            t.services.runs.wait_finished(&me, first.id, wait),
            t.services.runs.wait_finished(&me, second.id, wait),
        )
    };
    // The other process: its own services (its own signals) over the same database.
    let elsewhere = t.shared();
    let engine = ToldOfClaims::default();
    let other = async {
        for _ in 0..2 {
            let claim = elsewhere.runs.claim("default", "other-process", &[]).await.unwrap().unwrap();
            elsewhere.runs.execute(&claim, &engine).await.unwrap();
        }
    };
    let ((first_seen, second_seen), ()) = tokio::join!(waiters, other);
    for (seen, run) in [(first_seen, &first), (second_seen, &second)] {
        let seen = seen.unwrap().expect("seen finished before the wait ended");
        assert_eq!((seen.row.id, seen.row.status_detail), (run.id, Some(StatusDetail::Success)));
    }
    assert!(
        t.services.runs.signals.watched.lock().unwrap().runs.is_empty(),
        "no run is watched once its callers are gone"
    );
    assert_eq!(t.services.runs.poll_watched().await.unwrap(), 0, "nothing to poll");
}

/// A run triggered while this process's worker is idle (its lane says so)
/// with a slot free is queued claimed by that worker, in the same
/// transaction, and handed over its lane with the slot; otherwise (the
/// worker busy, another container, no slot, the lane closed) the run is
/// queued for the next claim, as before.
#[tokio::test]
async fn a_run_triggered_while_the_worker_is_idle_is_handed_to_it_claimed() {
    let t = TestServices::start().await;
    let ada = t.signup("ada@example.com").await;
    let scrap = t.scrap(&ada, "Handed").await;
    let me = Principal::Session(ada.session.clone());
    let org = ada.session.org();
    let runs = &t.services.runs;
    let slots = crate::schedule::RunSlots::new(1);
    let store = t.store.clone();
    let state = |id| {
        let store = store.clone();
        async move { store.queue_state(org, id).await.unwrap() }
    };

    // Not idle yet: queued.
    let mut lane = runs.open_direct_lane("default", "w-here", slots.clone());
    let row = runs.trigger(&me, Trigger::Worker, scrap, None).await.unwrap();
    assert_eq!(state(row.id).await, Some(svc_storage::QueueState::Queued));
    assert!(lane.claims.try_recv().is_err());

    // Idle with a slot: claimed for the worker and handed over with the slot.
    lane.set_idle(true);
    let row = runs.trigger(&me, Trigger::Worker, scrap, None).await.unwrap();
    assert_eq!(state(row.id).await, Some(svc_storage::QueueState::Running));
    let (claim, permit) = lane.claims.try_recv().expect("handed over");
    assert_eq!((claim.history_id, claim.worker_id.as_str(), claim.attempts), (row.id, "w-here", 1));
    assert!(slots.try_take().is_none(), "the run holds the worker's one slot");

    // No slot free: queued.
    let row = runs.trigger(&me, Trigger::Worker, scrap, None).await.unwrap();
    assert_eq!(state(row.id).await, Some(svc_storage::QueueState::Queued));
    drop(permit);

    // A worker of another container: queued.
    let other = runs.open_direct_lane("eu-1", "w-eu", slots.clone());
    other.set_idle(true);
    let row = runs.trigger(&me, Trigger::Worker, scrap, None).await.unwrap();
    assert_eq!(state(row.id).await, Some(svc_storage::QueueState::Queued));

    // The lane's worker gone between the claim and the hand-over: the run goes back to the queue.
    let mut lane = runs.open_direct_lane("default", "w-gone", slots.clone());
    lane.set_idle(true);
    lane.claims.close();
    let row = runs.trigger(&me, Trigger::Worker, scrap, None).await.unwrap();
    assert_eq!(state(row.id).await, Some(svc_storage::QueueState::Queued));
    assert!(slots.try_take().is_some(), "its slot is free again");
    runs.close_direct_lane("w-gone");
}

/// The worker's loop runs what it is handed: with the worker idle, a caller
/// that triggers and waits gets its finished run, and the engine was told
/// of the claim; once the worker stopped, a run is queued for any worker.
#[tokio::test]
async fn the_worker_runs_the_runs_handed_to_it_and_closes_its_lane_when_it_stops() {
    let t = TestServices::start().await;
    let ada = t.signup("ada@example.com").await;
    let scrap = t.scrap(&ada, "Looped").await;
    let me = Principal::Session(ada.session.clone());
    let services = t.shared();
    let engine = Arc::new(ToldOfClaims::default());
    let worker = Arc::new(crate::runs::worker::Worker::new(
        services.clone(),
        engine.clone(),
        "default",
        crate::schedule::RunSlots::new(2),
    ));
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let running = tokio::spawn(worker.clone().run(async {
        let _ = stopped.await;
    }));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !services.runs.direct.is_idle() {
        assert!(std::time::Instant::now() < deadline, "the worker never went idle");
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    let wait = std::time::Duration::from_secs(10);
    for _ in 0..3 {
        let done = services.runs.trigger_and_wait(&me, Trigger::Worker, scrap, None, wait).await.unwrap();
        let Triggered::Finished(done) = done else { panic!("not finished within the wait") };
        assert_eq!(done.row.status_detail, Some(StatusDetail::Success));
    }
    assert_eq!(engine.claimed.lock().unwrap().len(), 3, "the engine is told of every claim");

    stop.send(()).unwrap();
    running.await.unwrap();
    assert!(!services.runs.direct.is_idle(), "the lane is closed");
    let row = services.runs.trigger(&me, Trigger::Worker, scrap, None).await.unwrap();
    let queued = t.store.queue_state(ada.session.org(), row.id).await.unwrap();
    assert_eq!(queued, Some(svc_storage::QueueState::Queued));
}
