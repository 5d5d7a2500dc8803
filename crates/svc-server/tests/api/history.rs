//! History rows: their shape, the scrap's `history` id list, the cost
//! contract, scopes and allow-lists.

use crate::common;

use chrono::{Duration, Utc};
use common::{TestApp, assert_error};
use reqwest::StatusCode;
use serde_json::{Value, json};
use svc_domain::history::StatusDetail;
use svc_service::ServiceError;

#[tokio::test]
async fn a_row_has_the_interface_shape_and_no_cost_fields_for_owners() {
    let app = TestApp::start().await;
    let alice = app.signup("alice@example.com").await;
    let scrap = app.create_scrap(&alice, "S").await;
    let sid = scrap["id"].as_str().unwrap();
    let row = app.insert_run(&alice, sid, Some(StatusDetail::Success)).await;
    let (_, key) = app.create_key(&alice, json!({"name": "k"})).await;

    for bearer in [alice.token.as_str(), key.as_str()] {
        let (status, body) = app.get(&format!("/api/historys/{}", row.id), bearer).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_eq!(body["id"], row.id.to_string());
        assert_eq!(body["scrap"], sid);
        assert_eq!(body["organizationId"], alice.org_id.as_str());
        assert_eq!(body["status"], true);
        assert_eq!(body["statusDetail"], "success");
        assert_eq!(body["data"], "[{\"n\":1}]");
        assert_eq!(body["length"], 1);
        assert_eq!(body["time"], 120);
        assert_eq!(body["triggeredBy"], "api");
        assert_eq!(body["type"], "scrap_run");
        assert_eq!(body["proxyTier"], "tier0");
        assert_eq!(body["retries"], 0);
        assert_eq!(body["fixVersionId"], Value::Null);
        assert!(body.get("errorSnapshot").is_none(), "snapshots are for the web app's admin view: {body}");
        assert!(body.get("costs").is_none(), "costs key absent: {body}");
        assert!(body.get("meter").is_none(), "meter key absent: {body}");
    }
}

#[tokio::test]
async fn error_snapshots_are_read_by_platform_admin_sessions_of_the_organization_only() {
    let app = TestApp::start().await;
    let admin = app.signup("root@example.com").await;
    let owner = app.signup("owner@example.com").await;
    app.services.admin.grant_admin("root@example.com").await.unwrap();
    let admin_sid = app.create_scrap(&admin, "S").await["id"].as_str().unwrap().to_string();
    let owner_sid = app.create_scrap(&owner, "S").await["id"].as_str().unwrap().to_string();
    let admins_row = app.insert_run(&admin, &admin_sid, Some(StatusDetail::Error)).await;
    let owners_row = app.insert_run(&owner, &owner_sid, Some(StatusDetail::Error)).await;
    let history = &app.services.history;

    let session = app.services.auth.session(&admin.token).await.unwrap();
    let snap = history.error_snapshot(&session, admins_row.id).await.unwrap().expect("a snapshot");
    assert_eq!(snap["html"], "<html></html>");
    // Another organization's row is unknown, even to a platform admin.
    let foreign = history.error_snapshot(&session, owners_row.id).await;
    assert!(matches!(foreign, Err(ServiceError::NotFound(_))), "{foreign:?}");
    let plain = app.services.auth.session(&owner.token).await.unwrap();
    let refused = history.error_snapshot(&plain, owners_row.id).await;
    assert!(matches!(refused, Err(ServiceError::Forbidden(_))), "{refused:?}");
}

#[tokio::test]
async fn statuses_map_to_the_boolean_and_pending_is_null() {
    let app = TestApp::start().await;
    let alice = app.signup("alice@example.com").await;
    let sid = app.create_scrap(&alice, "S").await["id"].as_str().unwrap().to_string();
    for (detail, status) in [
        (None, Value::Null),
        (Some(StatusDetail::Success), json!(true)),
        (Some(StatusDetail::Error), json!(false)),
        (Some(StatusDetail::Empty), json!(false)),
        (Some(StatusDetail::Regression), json!(false)),
    ] {
        let row = app.insert_run(&alice, &sid, detail).await;
        let (_, body) = app.get(&format!("/api/historys/{}", row.id), &alice.token).await;
        assert_eq!(body["status"], status, "{detail:?}");
        assert_eq!(body["statusDetail"], detail.map_or(Value::Null, |d| json!(d.as_str())));
    }
}

#[tokio::test]
async fn platform_admins_and_their_keys_see_costs_and_meter() {
    let app = TestApp::start().await;
    let admin = app.signup("root@example.com").await;
    app.services.admin.grant_admin("root@example.com").await.unwrap();
    let sid = app.create_scrap(&admin, "S").await["id"].as_str().unwrap().to_string();
    let row = app.insert_run(&admin, &sid, Some(StatusDetail::Error)).await;
    let (_, key) = app.create_key(&admin, json!({"name": "admin key", "scopes": ["svc:history:read"]})).await;

    for bearer in [admin.token.as_str(), key.as_str()] {
        let (status, body) = app.get(&format!("/api/historys/{}", row.id), bearer).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(body["costs"]["bytes"], 2048, "{body}");
        assert_eq!(body["meter"]["units"], 1, "{body}");
        assert!(body.get("errorSnapshot").is_none(), "not over REST, even for admins: {body}");
        let (_, list) = app.get(&format!("/api/historys?scrap={sid}"), bearer).await;
        assert_eq!(list["data"][0]["costs"]["total"].as_f64(), Some(0.0), "{list}");
        assert_eq!(
            list["data"][0]["meter"]["breakdown"],
            serde_json::json!({"run": 1, "transfer": 0, "tier": 0}),
            "{list}"
        );
    }
}

#[tokio::test]
async fn lists_filter_by_scrap_newest_first_and_the_scrap_keeps_50_ids() {
    let app = TestApp::start().await;
    let alice = app.signup("alice@example.com").await;
    let a = app.create_scrap(&alice, "A").await["id"].as_str().unwrap().to_string();
    let b = app.create_scrap(&alice, "B").await["id"].as_str().unwrap().to_string();
    let mut ids = Vec::new();
    let start = Utc::now() - Duration::hours(1);
    for i in 0..55 {
        let mut row = app.insert_run(&alice, &a, Some(StatusDetail::Success)).await;
        // Rewrite with spaced-out creation times so the order is certain.
        row.id = svc_domain::HistoryId::new();
        row.created_at = start + Duration::seconds(i);
        app.store.insert_history(&row).await.unwrap();
        ids.push(row.id.to_string());
    }
    app.insert_run(&alice, &b, None).await;

    let (_, scrap) = app.get(&format!("/api/scraps/{a}"), &alice.token).await;
    let history = scrap["history"].as_array().unwrap();
    assert_eq!(history.len(), 50, "capped at 50");
    // 55 spaced rows plus 55 rows stamped now by insert_run: the newest 50 are
    // the "now" rows; the spaced ones come after them.
    let (_, page) = app.get(&format!("/api/historys?scrap={a}&perPage=100"), &alice.token).await;
    assert_eq!(page["total"], 110);
    let listed: Vec<&str> = page["data"].as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(&listed[..50], history.iter().map(|v| v.as_str().unwrap()).collect::<Vec<_>>().as_slice());
    let spaced_newest_first: Vec<&str> = ids.iter().rev().map(String::as_str).collect();
    assert_eq!(&listed[55..100], &spaced_newest_first[..45]);

    let (_, all) = app.get("/api/historys?perPage=5", &alice.token).await;
    assert_eq!(all["total"], 111);
    assert_eq!(all["data"].as_array().unwrap().len(), 5);
    let (_, only_b) = app.get(&format!("/api/historys?scrap={b}"), &alice.token).await;
    assert_eq!(only_b["total"], 1);
    assert_eq!(only_b["data"][0]["status"], Value::Null);
}

#[tokio::test]
async fn scopes_and_allow_lists_apply_to_history() {
    let app = TestApp::start().await;
    let alice = app.signup("alice@example.com").await;
    let a = app.create_scrap(&alice, "A").await["id"].as_str().unwrap().to_string();
    let b = app.create_scrap(&alice, "B").await["id"].as_str().unwrap().to_string();
    let ra = app.insert_run(&alice, &a, Some(StatusDetail::Success)).await;
    let rb = app.insert_run(&alice, &b, Some(StatusDetail::Success)).await;

    let (_, reader) = app.create_key(&alice, json!({"name": "scraps only", "scopes": ["svc:scraps:read"]})).await;
    for path in [format!("/api/historys/{}", ra.id), "/api/historys".into(), format!("/api/historys?scrap={a}")] {
        let (status, err) = app.get(&path, &reader).await;
        assert_error(status, &err, StatusCode::FORBIDDEN, "INSUFFICIENT_SCOPE");
        assert!(err["description"].as_str().unwrap().contains("svc:history:read"));
    }

    let (_, only_a) =
        app.create_key(&alice, json!({"name": "A", "scopes": ["svc:history:read"], "scrapIds": [a]})).await;
    let (status, list) = app.get("/api/historys", &only_a).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(list["total"], 1, "a scoped key sees only its scraps' runs: {list}");
    assert_eq!(list["data"][0]["id"], ra.id.to_string());
    let (status, _) = app.get(&format!("/api/historys/{}", ra.id), &only_a).await;
    assert_eq!(status, StatusCode::OK);
    let (status, err) = app.get(&format!("/api/historys/{}", rb.id), &only_a).await;
    assert_error(status, &err, StatusCode::FORBIDDEN, "SCRAP_NOT_IN_KEY_SCOPE");
    let (status, err) = app.get(&format!("/api/historys?scrap={b}"), &only_a).await;
    assert_error(status, &err, StatusCode::FORBIDDEN, "SCRAP_NOT_IN_KEY_SCOPE");

    let (status, err) = app.get("/api/historys?scrap=nothex", &alice.token).await;
    assert_error(status, &err, StatusCode::UNPROCESSABLE_ENTITY, "VALIDATION");
    let (status, err) = app.get("/api/historys/0123456789abcdef01234567", &alice.token).await;
    assert_error(status, &err, StatusCode::NOT_FOUND, "NOT_FOUND");
}
