//! `GET /api/historys/:id/data?format=json|csv|ndjson|xlsx`: a run's data as
//! a file, over REST under `svc:history:read` and the key's allow-list. The
//! workbook is opened with a real reader (Python's `openpyxl`, run by
//! `readers_check.py`) and every cell compared with the JSON;
//! `SVC_TEST_READERS_PYTHON` names a Python that has it (scripts/test.sh
//! makes the venv); without it that comparison is skipped with a printed
//! line, the rest of the test runs.

use crate::common;

use std::time::Duration;

use chrono::Utc;
use common::{Account, TestApp, assert_error, parse_csv};
use reqwest::StatusCode;
use serde_json::{Value, json};
use svc_domain::ScrapId;
use svc_domain::history::{HistoryRow, StatusDetail, TriggeredBy};

/// Data that exercises every kind of cell: numbers (integer, float,
/// negative, exponent, beyond 2^53), booleans, null, missing keys, text
/// with commas, quotes, newlines, a formula's look and non-ASCII, nested
/// arrays and objects, and items that are not objects (the `value` column).
const RICH: &str = r#"[
  {"id": 1, "name": "Lamp, desk", "price": 12.5, "stock": true, "tags": ["a", "b"]},
  {"id": 2, "name": "Say \"hi\"\nnow", "price": -3, "stock": false, "dims": {"w": 10, "h": 2.25}, "note": null},
  {"id": 3, "name": "=1+1", "price": 1e3, "big": 12345678901234567890, "ünï": "çødé 😀"},
  "a bare string",
  42,
  {"id": 4}
]"#;

/// Stores a finished successful run of `scrap` with `data`.
pub async fn insert_run_with(app: &TestApp, account: &Account, scrap: &str, data: &str) -> HistoryRow {
    let mut row =
        HistoryRow::pending(ScrapId::parse(scrap).unwrap(), account.org(), TriggeredBy::Api, "tier0", Utc::now());
    row.status_detail = Some(StatusDetail::Success);
    let items: Value = serde_json::from_str(data).unwrap();
    row.length = items.as_array().map_or(1, Vec::len) as i64;
    row.data = data.into();
    row.time_ms = Some(100);
    row.finished_at = Some(Utc::now());
    app.store.insert_history(&row).await.unwrap();
    row
}

/// The Python with `openpyxl` and `feedparser`, when set.
pub fn readers_python() -> Option<String> {
    std::env::var("SVC_TEST_READERS_PYTHON").ok()
}

/// Runs `readers_check.py KIND FILE EXPECTED` and asserts it says `ok`.
pub async fn readers_check(python: &str, kind: &str, file: &[u8], expected: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    // openpyxl goes by the file's extension.
    let name = if kind == "xlsx" { "book.xlsx" } else { "feed.xml" };
    let (file_path, expected_path) = (dir.path().join(name), dir.path().join("expected.json"));
    std::fs::write(&file_path, file).unwrap();
    std::fs::write(&expected_path, expected).unwrap();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/api/readers_check.py");
    let out = tokio::time::timeout(
        Duration::from_secs(60),
        tokio::process::Command::new(python).arg(script).arg(kind).arg(&file_path).arg(&expected_path).output(),
    )
    .await
    .expect("the reader finished in time")
    .expect("python runs");
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "{kind}: {stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.starts_with("ok"), "{stdout}");
    stdout
}

async fn download(app: &TestApp, bearer: &str, run: &str, format: Option<&str>) -> reqwest::Response {
    let query = format.map(|f| format!("?format={f}")).unwrap_or_default();
    app.request(reqwest::Method::GET, &format!("/api/historys/{run}/data{query}"), Some(bearer)).send().await.unwrap()
}

#[tokio::test]
async fn a_runs_data_in_every_format() {
    let app = TestApp::start().await;
    let alice = app.signup("alice@example.com").await;
    let sid = app.create_scrap(&alice, "Price list (EU)").await["id"].as_str().unwrap().to_string();
    let run = insert_run_with(&app, &alice, &sid, RICH).await.id.to_string();
    let (_, key) = app.create_key(&alice, json!({"name": "exports", "scopes": ["svc:history:read"]})).await;
    let items: Vec<Value> = serde_json::from_str(RICH).unwrap();
    let disposition = |format: &str| format!("attachment; filename=\"price-list-eu-{run}.{format}\"");

    // JSON (the default): the data exactly as stored.
    for format in [None, Some("json")] {
        let r = download(&app, &key, &run, format).await;
        assert_eq!(r.status(), StatusCode::OK);
        assert_eq!(r.headers()["content-type"], "application/json");
        assert_eq!(r.headers()["content-disposition"], disposition("json").as_str());
        assert_eq!(r.text().await.unwrap(), RICH);
    }

    // CSV: the columns of the data table, one record per item.
    let r = download(&app, &key, &run, Some("csv")).await;
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.headers()["content-type"], "text/csv; charset=utf-8");
    let records = parse_csv(&r.text().await.unwrap());
    assert_eq!(records[0], ["id", "name", "price", "stock", "tags", "dims", "note", "big", "ünï", "value"]);
    assert_eq!(records.len(), items.len() + 1);
    assert_eq!(records[2][1], "Say \"hi\"\nnow");
    assert_eq!(records[4][9], "a bare string");

    // NDJSON: each item on its own line, as compact JSON.
    let r = download(&app, &key, &run, Some("ndjson")).await;
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.headers()["content-type"], "application/x-ndjson");
    assert_eq!(r.headers()["content-disposition"], disposition("ndjson").as_str());
    let text = r.text().await.unwrap();
    assert!(text.ends_with('\n'));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), items.len());
    assert_eq!(lines[0], r#"{"id":1,"name":"Lamp, desk","price":12.5,"stock":true,"tags":["a","b"]}"#, "keys in order");
    let parsed: Vec<Value> = lines.iter().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(parsed, items);

    // XLSX: a workbook whose every cell is compared with the JSON by openpyxl.
    let r = download(&app, &key, &run, Some("xlsx")).await;
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.headers()["content-type"], "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet");
    assert_eq!(r.headers()["content-disposition"], disposition("xlsx").as_str());
    let book = r.bytes().await.unwrap();
    assert!(book.starts_with(b"PK"), "a zip");
    let Some(python) = readers_python() else {
        println!("skipped the openpyxl comparison: SVC_TEST_READERS_PYTHON is not set (scripts/test.sh sets it)");
        return;
    };
    let said = readers_check(&python, "xlsx", &book, RICH).await;
    assert!(said.contains("60 cells of 6 items in 10 columns"), "{said}");
    // An empty run: an empty sheet.
    let empty = insert_run_with(&app, &alice, &sid, "[]").await.id.to_string();
    let r = download(&app, &key, &empty, Some("xlsx")).await;
    assert_eq!(r.status(), StatusCode::OK);
    readers_check(&python, "xlsx", &r.bytes().await.unwrap(), "[]").await;
    // The reader does fail on a difference: the same workbook against other data.
    let other = r#"[{"id": 1, "name": "Lamp, desk", "price": 12.6}]"#;
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/api/readers_check.py");
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("b.xlsx"), &book).unwrap();
    std::fs::write(dir.path().join("d.json"), other).unwrap();
    let out = tokio::process::Command::new(&python)
        .arg(script)
        .arg("xlsx")
        .arg(dir.path().join("b.xlsx"))
        .arg(dir.path().join("d.json"))
        .output()
        .await
        .unwrap();
    assert!(!out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
}

#[tokio::test]
async fn exports_are_refused_as_the_row_is() {
    let app = TestApp::start().await;
    let alice = app.signup("alice@example.com").await;
    let bob = app.signup("bob@example.com").await;
    let sid = app.create_scrap(&alice, "Mine").await["id"].as_str().unwrap().to_string();
    let other = app.create_scrap(&alice, "Other").await["id"].as_str().unwrap().to_string();
    let run = insert_run_with(&app, &alice, &sid, r#"[{"a":1}]"#).await.id.to_string();
    let path = format!("/api/historys/{run}/data");

    // An unknown format, a repeated one: 422 naming `format`.
    for query in ["?format=xml", "?format=XLSX", "?format=", "?format=csv&format=xlsx"] {
        let (status, body) = app.get(&format!("{path}{query}"), &alice.token).await;
        assert_error(status, &body, StatusCode::UNPROCESSABLE_ENTITY, "VALIDATION");
        assert_eq!(body["field"], "format", "{query}: {body}");
    }
    let (_, body) = app.get(&format!("{path}?format=xml"), &alice.token).await;
    assert!(body["description"].as_str().unwrap().contains("json, csv, ndjson, xlsx"), "{body}");

    // No credential: 401. Another organization: 404, in every format.
    let (status, body) = app.send(app.request(reqwest::Method::GET, &path, None)).await;
    assert_error(status, &body, StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
    for format in ["json", "csv", "ndjson", "xlsx"] {
        let (status, body) = app.get(&format!("{path}?format={format}"), &bob.token).await;
        assert_error(status, &body, StatusCode::NOT_FOUND, "NOT_FOUND");
    }
    let (status, body) = app.get(&format!("/api/historys/{}/data", svc_domain::ObjectId::new()), &alice.token).await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "NOT_FOUND");

    // A key without `svc:history:read`: 403 naming it; one scoped to another scrap: 403.
    let (_, reader) = app.create_key(&alice, json!({"name": "r", "scopes": ["svc:scraps:read"]})).await;
    let (status, body) = app.get(&format!("{path}?format=xlsx"), &reader).await;
    assert_error(status, &body, StatusCode::FORBIDDEN, "INSUFFICIENT_SCOPE");
    let (_, elsewhere) = app.create_key(&alice, json!({"name": "e", "scrapIds": [other]})).await;
    let (status, body) = app.get(&format!("{path}?format=csv"), &elsewhere).await;
    assert_error(status, &body, StatusCode::FORBIDDEN, "SCRAP_NOT_IN_KEY_SCOPE");
    let (_, here) = app.create_key(&alice, json!({"name": "h", "scrapIds": [sid]})).await;
    assert_eq!(app.get(&format!("{path}?format=ndjson"), &here).await.0, StatusCode::OK);

    // Data a worksheet cannot hold: 422 naming `format`, and CSV still works.
    let keys: Vec<String> = (0..16_385).map(|i| format!("\"k{i}\":{i}")).collect();
    let wide = insert_run_with(&app, &alice, &sid, &format!("[{{{}}}]", keys.join(","))).await.id.to_string();
    let (status, body) = app.get(&format!("/api/historys/{wide}/data?format=xlsx"), &alice.token).await;
    assert_error(status, &body, StatusCode::UNPROCESSABLE_ENTITY, "VALIDATION");
    assert_eq!(body["field"], "format", "{body}");
    assert!(body["description"].as_str().unwrap().contains("16385 columns"), "{body}");
    let r = download(&app, &alice.token, &wide, Some("csv")).await;
    assert_eq!(r.status(), StatusCode::OK);
}
