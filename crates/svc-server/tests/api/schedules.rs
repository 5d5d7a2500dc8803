//! Cron schedules end to end: a seconds-level schedule on a real Chromium
//! worker, and the scheduler's policies driven through its `tick` seam with
//! chosen instants (overlap skipping, catch-up after downtime, schedule
//! changes, deletion, two servers on one database).

use crate::common;

use std::collections::BTreeMap;
use std::time::Duration;

use chrono::{DateTime, Datelike, Utc};
use common::{Account, TestApp, fixture};
use reqwest::StatusCode;
use serde_json::{Value, json};
use svc_storage::TickOutcome;

const PRIVATE_OK: (&str, &str) = ("SVC_ALLOW_PRIVATE_NETWORKS", "true");
/// The scheduler is driven by the test; runs stay queued.
const MANUAL: [(&str, &str); 2] = [("SVC_SCHEDULER", "false"), ("SVC_EMBEDDED_WORKER", "false")];

fn at(offset_secs: i64) -> DateTime<Utc> {
    Utc::now() + chrono::Duration::seconds(offset_secs)
}

async fn history(app: &TestApp, account: &Account, scrap: &str) -> Vec<Value> {
    let (status, page) = app.get(&format!("/api/historys?scrap={scrap}&perPage=100"), &account.token).await;
    assert_eq!(status, StatusCode::OK, "{page}");
    page["data"].as_array().unwrap().clone()
}

async fn activities(app: &TestApp, account: &Account, scrap: &str) -> Vec<Value> {
    let (status, page) = app.get(&format!("/api/scraps/{scrap}/activities?perPage=100"), &account.token).await;
    assert_eq!(status, StatusCode::OK, "{page}");
    page["data"].as_array().unwrap().clone()
}

async fn tick(app: &TestApp, now: DateTime<Utc>) -> Vec<svc_storage::FiredTick> {
    app.services.scheduler.tick(now).await.expect("tick").fired
}

fn outcomes(fired: &[svc_storage::FiredTick]) -> Vec<TickOutcome> {
    fired.iter().map(|f| f.outcome).collect()
}

#[tokio::test]
async fn a_seconds_schedule_runs_on_its_own_with_parameter_sets_from_the_scrap() {
    let site = fixture::start().await;
    let app = TestApp::start_with(&[PRIVATE_OK, ("SVC_CRON_MIN_INTERVAL", "1s")]).await;
    let alice = app.signup("alice@example.com").await;
    let params = json!([{"key": "fr", "value": {"lang": "fr"}}, {"key": "de", "value": {"lang": "de"}}]);
    let sid = app
        .scrap_with(
            &alice,
            json!({
                "title": "Every two seconds",
                "url": format!("{}/items/3", site.base),
                "request": "returnData([SVC.param, SVC.triggeredBy, SVC.params.length])",
                "cron": "*/2 * * * * *",
                "params": params,
            }),
        )
        .await;

    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    let finished = loop {
        let rows = history(&app, &alice, &sid).await;
        let done: Vec<Value> = rows.into_iter().filter(|r| !r["status"].is_null()).collect();
        if done.len() >= 3 {
            break done;
        }
        assert!(tokio::time::Instant::now() < deadline, "fewer than 3 cron runs in 60 s: {done:?}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    for row in &finished {
        assert_eq!(row["triggeredBy"], "cron", "{row}");
        assert_eq!(row["statusDetail"], "success", "{row}");
        let data: Value = serde_json::from_str(row["data"].as_str().unwrap()).unwrap();
        assert!(params.as_array().unwrap().contains(&data[0]), "SVC.param {} is one of the scrap's sets", data[0]);
        assert_eq!(data[1], "cron");
        assert_eq!(data[2], 2);
    }
    let logged = activities(&app, &alice, &sid).await;
    assert!(logged.iter().any(|a| a["message"] == "Run triggered (cron)"), "{logged:?}");

    // Clearing `cron` stops the schedule at once, without a restart.
    let (status, _) = app.put(&format!("/api/scraps/{sid}"), &alice.token, json!({"cron": null})).await;
    assert_eq!(status, StatusCode::OK);
    let report = app.services.scheduler.tick(at(3600)).await.unwrap();
    assert!(report.fired.is_empty(), "{:?}", report.fired);
    assert_eq!(report.next_due, None);
}

#[tokio::test]
async fn a_tick_is_skipped_while_the_previous_run_is_pending_and_the_log_says_so() {
    let app = TestApp::start_with(&MANUAL).await;
    let alice = app.signup("alice@example.com").await;
    let sid = app
        .scrap_with(&alice, json!({"title": "Minutely", "url": "https://example.com", "request": "returnData([1])", "cron": "* * * * *"}))
        .await;

    assert!(tick(&app, at(0)).await.is_empty(), "not due yet");
    assert_eq!(outcomes(&tick(&app, at(61)).await), vec![TickOutcome::Enqueued]);
    let rows = history(&app, &alice, &sid).await;
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["triggeredBy"], "cron");
    assert_eq!(rows[0]["status"], Value::Null, "queued: no worker serves it in this test");

    assert_eq!(outcomes(&tick(&app, at(121)).await), vec![TickOutcome::SkippedOverlap]);
    assert_eq!(history(&app, &alice, &sid).await.len(), 1, "no second run while the first is pending");
    let logged = activities(&app, &alice, &sid).await;
    let skipped: Vec<&Value> = logged.iter().filter(|a| a["type"] == "schedule.skipped").collect();
    assert_eq!(skipped.len(), 1, "{logged:?}");
    assert!(skipped[0]["message"].as_str().unwrap().contains("previous run is still pending or running"));
}

#[tokio::test]
async fn schedule_changes_apply_to_the_next_tick_and_deleting_stops_it() {
    let app = TestApp::start_with(&MANUAL).await;
    let alice = app.signup("alice@example.com").await;
    let sid = app
        .scrap_with(
            &alice,
            json!({"title": "Yearly", "url": "https://example.com", "request": "returnData([1])", "cron": "0 0 1 1 *"}),
        )
        .await;
    assert!(tick(&app, at(61)).await.is_empty(), "a yearly schedule is not due in a minute");

    let (status, _) = app.put(&format!("/api/scraps/{sid}"), &alice.token, json!({"cron": "* * * * *"})).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(outcomes(&tick(&app, at(61)).await), vec![TickOutcome::Enqueued]);

    // An edit that leaves the schedule alone does not move the pending tick.
    let before = app.services.scheduler.tick(at(61)).await.unwrap().next_due.unwrap();
    let (status, _) = app.put(&format!("/api/scraps/{sid}"), &alice.token, json!({"title": "Renamed"})).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(app.services.scheduler.tick(at(61)).await.unwrap().next_due, Some(before));

    // A time zone change re-plans it; so does deleting (no schedule left).
    let (status, _) = app
        .put(
            &format!("/api/scraps/{sid}"),
            &alice.token,
            json!({"cron": "0 9 * * *", "cronTimezone": "Asia/Kathmandu"}),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let next = app.services.scheduler.tick(at(61)).await.unwrap().next_due.unwrap();
    let local = next.with_timezone(&chrono_tz::Asia::Kathmandu);
    assert_eq!(local.format("%H:%M:%S").to_string(), "09:00:00");
    let (status, _) = app.delete(&format!("/api/scraps/{sid}"), &alice.token).await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let report = app.services.scheduler.tick(at(400 * 86_400)).await.unwrap();
    assert!(report.fired.is_empty());
    assert_eq!(report.next_due, None);
}

#[tokio::test]
async fn after_downtime_only_the_latest_tick_within_the_grace_period_runs() {
    let app = TestApp::start_with(&MANUAL).await;
    let alice = app.signup("alice@example.com").await;
    let minutely = app
        .scrap_with(&alice, json!({"title": "Minutely", "url": "https://example.com", "request": "returnData([1])", "cron": "* * * * *"}))
        .await;
    let yearly = app
        .scrap_with(
            &alice,
            json!({"title": "Yearly", "url": "https://example.com", "request": "returnData([1])", "cron": "0 0 1 1 *"}),
        )
        .await;

    // Three hours of downtime: one run for the minutely scrap, not 180.
    let restart = at(3 * 3600);
    let fired = tick(&app, restart).await;
    assert_eq!(outcomes(&fired), vec![TickOutcome::Enqueued]);
    assert!(restart - fired[0].scheduled_at < chrono::Duration::seconds(60), "the latest missed tick: {:?}", fired[0]);
    assert!(tick(&app, restart).await.is_empty(), "no burst of catch-up runs");
    assert_eq!(history(&app, &alice, &minutely).await.len(), 1);

    // Down across New Year and back an hour later: older than the 15 min
    // grace period, so the yearly tick is recorded as missed and not run.
    let new_year = chrono::NaiveDate::from_ymd_opt(Utc::now().year() + 1, 1, 1).unwrap();
    let back = new_year.and_hms_opt(1, 0, 0).unwrap().and_utc();
    let fired = tick(&app, back).await;
    let yearly_tick = fired.iter().find(|f| f.scrap_id.to_string() == yearly).expect("yearly tick handled");
    assert_eq!(yearly_tick.outcome, TickOutcome::Missed);
    assert!(history(&app, &alice, &yearly).await.is_empty());
    let logged = activities(&app, &alice, &yearly).await;
    assert!(logged.iter().any(|a| a["type"] == "schedule.missed"), "{logged:?}");
}

#[tokio::test]
async fn the_grace_period_is_configurable() {
    let app = TestApp::start_with(&[MANUAL[0], MANUAL[1], ("SVC_CRON_CATCHUP_GRACE", "2h")]).await;
    let alice = app.signup("alice@example.com").await;
    let yearly = app
        .scrap_with(
            &alice,
            json!({"title": "Yearly", "url": "https://example.com", "request": "returnData([1])", "cron": "0 0 1 1 *"}),
        )
        .await;
    let new_year = chrono::NaiveDate::from_ymd_opt(Utc::now().year() + 1, 1, 1).unwrap();
    let fired = tick(&app, new_year.and_hms_opt(1, 0, 0).unwrap().and_utc()).await;
    assert_eq!(outcomes(&fired), vec![TickOutcome::Enqueued]);
    assert_eq!(fired[0].scheduled_at, new_year.and_hms_opt(0, 0, 0).unwrap().and_utc());
    assert_eq!(history(&app, &alice, &yearly).await.len(), 1);
}

#[tokio::test]
async fn two_servers_on_one_database_fire_each_tick_once() {
    let a = TestApp::start_with(&MANUAL).await;
    let b = a.another_on_same_db(&MANUAL).await;
    let alice = a.signup("alice@example.com").await;
    let mut scraps = Vec::new();
    for i in 0..40 {
        let body = json!({"title": format!("s{i}"), "url": "https://example.com", "request": "returnData([1])", "cron": "* * * * *"});
        scraps.push(a.scrap_with(&alice, body).await);
    }
    let now = at(61);
    let (fa, fb) = tokio::join!(tick(&a, now), tick(&b, now));
    let mut per_scrap: BTreeMap<String, usize> = BTreeMap::new();
    for f in fa.iter().chain(&fb).filter(|f| f.outcome == TickOutcome::Enqueued) {
        *per_scrap.entry(f.scrap_id.to_string()).or_default() += 1;
    }
    assert_eq!(per_scrap.len(), 40, "every scrap fired");
    assert!(per_scrap.values().all(|n| *n == 1), "{per_scrap:?}");
    for sid in &scraps {
        assert_eq!(history(&b, &alice, sid).await.len(), 1, "one run of {sid}");
    }
    // Both schedulers running for real agree too: the next minute fires once.
    let (fa, fb) = tokio::join!(tick(&a, at(121)), tick(&b, at(121)));
    let enqueued = fa.iter().chain(&fb).filter(|f| f.outcome != TickOutcome::AlreadyFired).count();
    assert_eq!(enqueued, 40, "each scrap's second tick handled once (skipped: its first run is pending)");
}
