//! Nothing grows forever (issue 37, part 5): the scheduler's housekeeping
//! step, run with a later clock, deletes what the retention settings no
//! longer keep, and keeps what is still needed.

use chrono::{Duration, Utc};
use reqwest::StatusCode;
use serde_json::json;
use svc_domain::history::StatusDetail;

use crate::common::TestApp;

const NO_WORKER: (&str, &str) = ("SVC_EMBEDDED_WORKER", "false");

/// A new session token: pruning as of days later removes the sessions
/// that would have expired by then, the test's own included.
async fn log_in(app: &TestApp) -> String {
    let (status, body) = app
        .send(
            app.request(reqwest::Method::POST, "/api/auth/login", None)
                .json(&json!({"email": "ada@example.com", "password": "password-123"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["token"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn housekeeping_deletes_old_rows_by_the_retention_settings() {
    let app = TestApp::start_with(&[NO_WORKER, ("SVC_RETAIN_AUDIT", "10d"), ("SVC_RETAIN_ACTIVITIES", "20d")]).await;
    let ada = app.signup("ada@example.com").await;
    let scrap = app.create_scrap(&ada, "Prices").await;
    let scrap_id = scrap["id"].as_str().unwrap();
    app.create_key(&ada, json!({"name": "ci"})).await;
    let old_success = app.insert_run(&ada, scrap_id, Some(StatusDetail::Success)).await;
    let error = app.insert_run(&ada, scrap_id, Some(StatusDetail::Error)).await;
    let newest_success = app.insert_run(&ada, scrap_id, Some(StatusDetail::Success)).await;
    let pending = app.insert_run(&ada, scrap_id, None).await;

    // Now: nothing is old.
    let pruned = app.services.scheduler.prune(Utc::now()).await.unwrap();
    assert_eq!((pruned.audit, pruned.activities, pruned.history), (0, 0, 0), "{pruned:?}");

    // Eleven days on: the audit entry goes (10 days), activities stay (20 days),
    // and history is kept (no age limit set).
    let pruned = app.services.scheduler.prune(Utc::now() + Duration::days(11)).await.unwrap();
    assert_eq!((pruned.audit, pruned.activities, pruned.history), (1, 0, 0), "{pruned:?}");
    let token = log_in(&app).await;
    let (_, log) = app.get("/api/organization/audit", &token).await;
    assert_eq!(log["total"], 0, "{log}");
    let (_, activities) = app.get(&format!("/api/scraps/{scrap_id}/activities"), &token).await;
    assert!(activities["total"].as_i64().unwrap() > 0);

    // With a 7-day history limit, 21 days on: old finished runs go; the
    // pending run and the newest success stay.
    let (status, body) = app.put("/api/organization/settings", &token, json!({"historyRetentionDays": 7})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let pruned = app.services.scheduler.prune(Utc::now() + Duration::days(21)).await.unwrap();
    assert_eq!(pruned.history, 2, "{pruned:?}");
    assert!(pruned.activities > 0, "{pruned:?}");
    let token = log_in(&app).await;
    let (_, history) = app.get(&format!("/api/historys?scrap={scrap_id}&perPage=100"), &token).await;
    let mut left: Vec<String> =
        history["data"].as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap().to_string()).collect();
    left.sort();
    let mut kept = vec![newest_success.id.to_string(), pending.id.to_string()];
    kept.sort();
    assert_eq!(left, kept);
    for gone in [old_success.id, error.id] {
        let (status, _) = app.get(&format!("/api/historys/{gone}"), &token).await;
        assert_eq!(status, StatusCode::NOT_FOUND);
    }
    // Done: a second pass finds nothing.
    let again = app.services.scheduler.prune(Utc::now() + Duration::days(21)).await.unwrap();
    assert_eq!((again.history, again.activities, again.audit), (0, 0, 0), "{again:?}");
}
