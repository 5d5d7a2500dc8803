//! The client libraries under `clients/` (docs/clients.md): the OpenAPI
//! document they are generated from is the one the code serves, and each
//! client's tests pass against the in-process app (list scraps, trigger
//! with wait, read history, a 403 for a missing scope, paging).
//!
//! `SVC_TEST_CLIENTS_PYTHON` names a Python that has the generated client's
//! dependencies (httpx, attrs, python-dateutil: scripts/clients.sh makes
//! it), `SVC_TEST_CLIENTS_NODE` a Node.js for which `clients/typescript`
//! has its `node_modules` (`npm ci` there); without them the tests that
//! need them are skipped, as the MCP Python client's test is without its
//! Python.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::common;

use common::{TestApp, fixture};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

/// `clients/` at the repository's root.
fn clients_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../clients").canonicalize().expect("clients/ exists")
}

/// The document as committed: the served one without `servers` (the
/// server's own address), pretty-printed, with a final newline.
fn committed_form(mut served: Value) -> String {
    served.as_object_mut().expect("an object").remove("servers");
    serde_json::to_string_pretty(&served).unwrap() + "\n"
}

/// `clients/openapi.json` is what the code serves: the generators read that
/// file, so a change to the API that is not in it would leave the clients
/// behind. `SVC_WRITE_OPENAPI=1` writes it instead of comparing
/// (`bash scripts/clients.sh update` does, then regenerates the clients).
#[tokio::test]
async fn the_committed_document_is_the_one_the_code_serves() {
    let app = TestApp::start_with(&[("SVC_EMBEDDED_WORKER", "false")]).await;
    let response = app.request(Method::GET, "/api/openapi.json", None).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let served = committed_form(response.json().await.unwrap());
    let path = clients_dir().join("openapi.json");
    if std::env::var("SVC_WRITE_OPENAPI").is_ok_and(|v| v == "1") {
        std::fs::write(&path, &served).unwrap();
        println!("wrote {}", path.display());
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    let first_difference = committed
        .lines()
        .zip(served.lines())
        .position(|(a, b)| a != b)
        .unwrap_or_else(|| committed.lines().count().min(served.lines().count()));
    assert!(
        committed == served,
        "clients/openapi.json differs from the document the code serves (first at line {}): run \
         `bash scripts/clients.sh update` (it writes the document and regenerates the clients) and commit clients/",
        first_difference + 1
    );
}

/// What the clients' tests run against: a server with its run worker and a
/// local site, three scraps on the static engine (so that lists page at two
/// a page and runs need no browser), a key with every scope and one that
/// may only read scraps.
struct Setup {
    app: TestApp,
    _site: fixture::Fixture,
    scraps: Vec<String>,
    key: String,
    read_only_key: String,
}

async fn setup() -> Setup {
    let site = fixture::start().await;
    let app = TestApp::start_with(&[("SVC_ALLOW_PRIVATE_NETWORKS", "true")]).await;
    let alice = app.signup("clients@example.com").await;
    let mut scraps = Vec::new();
    for n in 1..=3 {
        let body = json!({
            "title": format!("Items {n}"),
            "url": format!("{}/items/{n}", site.base),
            "request": "returnData([...document.querySelectorAll('li.item')].map(li => li.textContent))",
            "scrapper": "static",
        });
        scraps.push(app.scrap_with(&alice, body).await);
    }
    let (_, key) = app.create_key(&alice, json!({"name": "clients: every scope"})).await;
    let (_, read_only_key) =
        app.create_key(&alice, json!({"name": "clients: read scraps", "scopes": ["svc:scraps:read"]})).await;
    Setup { app, _site: site, scraps, key, read_only_key }
}

/// Runs a client's test command with the server's address and keys in its
/// environment, and returns the JSON report it writes to the file named by
/// `SVC_TEST_REPORT`.
async fn run_client(setup: &Setup, mut command: tokio::process::Command) -> Value {
    let report = tempfile::NamedTempFile::new().unwrap();
    command
        .env("SVC_TEST_REPORT", report.path())
        .env("SVC_BASE_URL", &setup.app.base)
        .env("SVC_API_KEY", &setup.key)
        .env("SVC_TEST_READ_ONLY_KEY", &setup.read_only_key)
        .env("SVC_TEST_SCRAPS", setup.scraps.join(","))
        // The scrap with three items: the one the clients run.
        .env("SVC_TEST_RUN_SCRAP", &setup.scraps[2])
        .kill_on_drop(true);
    let out = tokio::time::timeout(Duration::from_secs(120), command.output())
        .await
        .expect("the client's tests finished in time")
        .expect("the client's tests start");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the client's tests failed:\n{stdout}\n{stderr}");
    let written = std::fs::read_to_string(report.path()).unwrap();
    serde_json::from_str(&written).unwrap_or_else(|e| panic!("no report ({e}):\n{stdout}\n{stderr}"))
}

/// What each client's report says, checked against the server.
async fn check_report(setup: &Setup, report: &Value) {
    let listed: BTreeSet<&str> = report["scraps"].as_array().unwrap().iter().map(|s| s.as_str().unwrap()).collect();
    let created: BTreeSet<&str> = setup.scraps.iter().map(String::as_str).collect();
    assert_eq!(listed, created, "every scrap, once, over two pages: {report}");
    // The run the client waited for is finished and successful on the server.
    let run = report["run"].as_str().expect("the run's id");
    let (status, row) = setup.app.get(&format!("/api/historys/{run}"), &setup.key).await;
    assert_eq!(status, StatusCode::OK, "{row}");
    assert_eq!(
        (row["scrap"].as_str(), row["statusDetail"].as_str()),
        (Some(setup.scraps[2].as_str()), Some("success"))
    );
    assert_eq!(row["data"], "[\"Item 0\",\"Item 1\",\"Item 2\"]");
    assert_eq!(report["data"], json!(["Item 0", "Item 1", "Item 2"]), "the client decoded the run's data");
    assert_eq!(report["forbidden"], json!({"status": 403, "code": "INSUFFICIENT_SCOPE"}), "{report}");
    // The run it polled for (no wait on the server) ended too.
    let polled = report["polledRun"].as_str().expect("the polled run's id");
    let (_, row) = setup.app.get(&format!("/api/historys/{polled}"), &setup.key).await;
    assert_eq!((row["statusDetail"].as_str(), row["length"].as_i64()), (Some("success"), Some(3)), "{row}");
    // The refused trigger ran nothing: the two runs are the client's.
    let (_, history) = setup.app.get(&format!("/api/historys?scrap={}", setup.scraps[2]), &setup.key).await;
    let ids: Vec<&str> = history["data"].as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(ids, [polled, run], "{history}");
}

#[tokio::test]
async fn the_python_client_lists_triggers_reads_and_is_refused() {
    let Ok(python) = std::env::var("SVC_TEST_CLIENTS_PYTHON") else {
        println!("skipped: SVC_TEST_CLIENTS_PYTHON is not set (scripts/test.sh sets it)");
        return;
    };
    let setup = setup().await;
    let python_dir = clients_dir().join("python");
    let mut command = tokio::process::Command::new(python);
    command.arg(python_dir.join("tests/test_live.py")).env("PYTHONPATH", &python_dir);
    let report = run_client(&setup, command).await;
    check_report(&setup, &report).await;
}

#[tokio::test]
async fn the_typescript_client_lists_triggers_reads_and_is_refused() {
    let Ok(node) = std::env::var("SVC_TEST_CLIENTS_NODE") else {
        println!("skipped: SVC_TEST_CLIENTS_NODE is not set (scripts/test.sh sets it)");
        return;
    };
    let setup = setup().await;
    let ts_dir = clients_dir().join("typescript");
    let tsc = ts_dir.join("node_modules/typescript/bin/tsc");
    assert!(tsc.exists(), "{} is missing: run `bash scripts/clients.sh install`", tsc.display());
    // Compiled here, so that the test runs what the sources say.
    let compiled =
        tokio::process::Command::new(&node).arg(&tsc).arg("-p").arg(&ts_dir).output().await.expect("tsc starts");
    assert!(
        compiled.status.success(),
        "tsc failed:\n{}\n{}",
        String::from_utf8_lossy(&compiled.stdout),
        String::from_utf8_lossy(&compiled.stderr)
    );
    let mut command = tokio::process::Command::new(node);
    command.arg("--test").arg(ts_dir.join("dist/test/live.test.js"));
    let report = run_client(&setup, command).await;
    check_report(&setup, &report).await;
}
