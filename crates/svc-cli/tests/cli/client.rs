//! The command-line client end to end: the built `svc` binary against a
//! running server (in-process, port 0, fresh SQLite, real Chromium for
//! runs), a local target site, and a recording server for credentials and
//! rate-limit retries.

use std::collections::VecDeque;
use std::path::Path;
use std::process::Output;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{Html, IntoResponse};
use axum::routing::get;
use serde_json::{Value, json};
use svc_domain::plan::Plan;
use svc_server::{App, Config};
use tempfile::TempDir;
use tokio::net::TcpListener;

const SVC: &str = env!("CARGO_BIN_EXE_svc");

struct Server {
    base: String,
    app: Arc<svc_service::Services>,
    _stop: tokio::sync::oneshot::Sender<()>,
    _dir: TempDir,
}

async fn server() -> Server {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("svc.db").display());
    let env = [("SVC_DATABASE_URL", url.as_str()), ("SVC_ALLOW_PRIVATE_NETWORKS", "true"), ("SVC_SCHEDULER", "false")];
    let config = Config::load(None, env.map(|(k, v)| (k.to_string(), v.to_string()))).unwrap();
    let app = App::build(config).await.unwrap();
    let services = app.services().clone();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(app.serve(listener, async move {
        let _ = stopped.await;
    }));
    Server { base, app: services, _stop: stop, _dir: dir }
}

/// A target site: `/items` lists three items, `/missing` is a 404.
async fn site() -> String {
    let app = Router::new()
        .route("/items", get(|| async { Html("<ul><li>alpha</li><li>beta</li><li>gamma</li></ul>") }))
        .route("/missing", get(|| async { (StatusCode::NOT_FOUND, Html("<h1>gone</h1>")) }));
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    base
}

/// Runs `svc args...` against `base` with its own config directory.
async fn svc(base: &str, config: &Path, env: &[(&str, &str)], stdin: Option<&str>, args: &[&str]) -> Output {
    let mut command = tokio::process::Command::new(SVC);
    for (key, _) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("SVC_") {
            command.env_remove(&key);
        }
    }
    command.env("SVC_BASE_URL", base).env("SVC_CONFIG_DIR", config).args(args);
    for (k, v) in env {
        command.env(k, v);
    }
    command.stdin(if stdin.is_some() { std::process::Stdio::piped() } else { std::process::Stdio::null() });
    command.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped());
    let mut child = command.spawn().expect("spawn svc");
    if let Some(text) = stdin {
        use tokio::io::AsyncWriteExt;
        let mut pipe = child.stdin.take().unwrap();
        pipe.write_all(text.as_bytes()).await.unwrap();
        drop(pipe);
    }
    tokio::time::timeout(std::time::Duration::from_secs(120), child.wait_with_output())
        .await
        .expect("svc finished")
        .unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn code(o: &Output) -> i32 {
    o.status.code().unwrap_or(-1)
}

fn json_out(o: &Output) -> Value {
    assert_eq!(code(o), 0, "stdout: {}\nstderr: {}", stdout(o), stderr(o));
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", stdout(o)))
}

async fn signup(base: &str, email: &str) -> Value {
    reqwest::Client::new()
        .post(format!("{base}/api/auth/signup"))
        .json(&json!({"email": email, "password": "password-123"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_user_logs_in_manages_scraps_runs_them_and_reads_history() {
    let server = server().await;
    let target = site().await;
    let config = tempfile::tempdir().unwrap();
    let cfg = config.path();
    let base = server.base.as_str();
    signup(base, "dev@example.com").await;

    // Not logged in: a clear refusal.
    let o = svc(base, cfg, &[], None, &["scraps", "list"]).await;
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains("svc login"), "{}", stderr(&o));

    let o = svc(base, cfg, &[], Some("wrong-password\n"), &["login", "--email", "dev@example.com", "--password-stdin"])
        .await;
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let o =
        svc(base, cfg, &[], Some("password-123\n"), &["login", "--email", "dev@example.com", "--password-stdin"]).await;
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let saved = cfg.join("session.json");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&saved).unwrap().permissions().mode() & 0o777, 0o600);
    }
    let me = json_out(&svc(base, cfg, &[], None, &["whoami", "--json"]).await);
    assert_eq!(me["user"]["email"], "dev@example.com");

    // Create from flags and from a YAML file.
    let script = "returnData([...document.querySelectorAll('li')].map(li => ({name: li.textContent, len: li.textContent.length})))";
    let created = json_out(
        &svc(
            base,
            cfg,
            &[],
            None,
            &[
                "scraps",
                "create",
                "--json",
                "--title",
                "Items",
                "--url",
                &format!("{target}/items"),
                "--request",
                script,
            ],
        )
        .await,
    );
    let id = created["id"].as_str().unwrap().to_string();
    let yaml = cfg.join("broken.yaml");
    std::fs::write(&yaml, format!("title: Broken\nurl: {target}/missing\nrequest: returnData([1])\ncron: null\n"))
        .unwrap();
    let broken =
        json_out(&svc(base, cfg, &[], None, &["scraps", "create", "--json", "--file", yaml.to_str().unwrap()]).await);
    let broken_id = broken["id"].as_str().unwrap().to_string();

    let list = json_out(&svc(base, cfg, &[], None, &["scraps", "list", "--json"]).await);
    assert_eq!(list["total"], 2);
    let (_, rest) = (
        0,
        reqwest::Client::new()
            .get(format!("{base}/api/scraps/{id}"))
            .bearer_auth(me_token(cfg))
            .send()
            .await
            .unwrap()
            .json::<Value>()
            .await
            .unwrap(),
    );
    assert_eq!(
        json_out(&svc(base, cfg, &[], None, &["scraps", "get", &id, "--json"]).await),
        rest,
        "--json prints the API's shape"
    );
    let table = stdout(&svc(base, cfg, &[], None, &["scraps", "list"]).await);
    assert!(table.contains("Items") && table.contains("Broken") && table.contains("TITLE"), "{table}");
    let updated = json_out(
        &svc(base, cfg, &[], None, &["scraps", "update", &id, "--json", "--description", "three items"]).await,
    );
    assert_eq!(updated["description"], "three items");

    // Run and wait: the summary line; a failing run exits 4.
    let o = svc(base, cfg, &[], None, &["scraps", "run", &id, "--wait"]).await;
    assert_eq!(code(&o), 0, "{}\n{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("success: 3 items in"), "{}", stdout(&o));
    let o = svc(base, cfg, &[], None, &["scraps", "run", &broken_id, "--wait"]).await;
    assert_eq!(code(&o), 4, "{}\n{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("error: 0 items"), "{}", stdout(&o));
    let queued = svc(base, cfg, &[], None, &["scraps", "run", &id, "--quiet"]).await;
    assert_eq!(code(&queued), 0);
    assert_eq!(stdout(&queued).trim().len(), 24, "--quiet prints the run id");

    // History: list, get, the data as JSON and CSV.
    let rows = json_out(&svc(base, cfg, &[], None, &["history", "list", "--scrap", &id, "--json"]).await);
    let row_id = rows["data"].as_array().unwrap().iter().find(|r| r["statusDetail"] == "success").unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let data = json_out(&svc(base, cfg, &[], None, &["history", "get", &row_id, "--data"]).await);
    assert_eq!(data[1], json!({"name": "beta", "len": 4}));
    let csv = svc(base, cfg, &[], None, &["history", "get", &row_id, "--data", "--csv"]).await;
    assert_eq!(stdout(&csv), "len,name\n5,alpha\n4,beta\n5,gamma\n");
    let shown = stdout(&svc(base, cfg, &[], None, &["history", "get", &row_id]).await);
    assert!(shown.contains("success: 3 items"), "{shown}");

    // Export: a file per format, written as the server made it.
    let files = tempfile::tempdir().unwrap();
    let book = files.path().join("run.xlsx");
    let o =
        svc(base, cfg, &[], None, &["history", "export", &row_id, "--format", "xlsx", "-o", book.to_str().unwrap()])
            .await;
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stdout(&o).starts_with(&format!("Wrote {}", book.display())), "{}", stdout(&o));
    let bytes = std::fs::read(&book).unwrap();
    assert!(bytes.starts_with(b"PK"), "a zip");
    let names = String::from_utf8_lossy(&bytes);
    assert!(names.contains("xl/worksheets/sheet1.xml") && names.contains("[Content_Types].xml"), "a workbook");
    let lines = svc(base, cfg, &[], None, &["history", "export", &row_id, "--format", "ndjson"]).await;
    assert_eq!(code(&lines), 0, "{}", stderr(&lines));
    assert_eq!(
        stdout(&lines),
        "{\"name\":\"alpha\",\"len\":5}\n{\"name\":\"beta\",\"len\":4}\n{\"name\":\"gamma\",\"len\":5}\n"
    );
    let csv_file = files.path().join("run.csv");
    let o = svc(
        base,
        cfg,
        &[],
        None,
        &["history", "export", &row_id, "--format", "csv", "-o", csv_file.to_str().unwrap(), "--quiet"],
    )
    .await;
    assert_eq!((code(&o), stdout(&o)), (0, String::new()), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&csv_file).unwrap(), "name,len\r\nalpha,5\r\nbeta,4\r\ngamma,5\r\n");
    // A format the command does not know: usage (2); a run that is not there: the server's no (1).
    let o = svc(base, cfg, &[], None, &["history", "export", &row_id, "--format", "xml"]).await;
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    let o = svc(base, cfg, &[], None, &["history", "export", "6b0270b21c2d3e4f5a6b7c8d", "--format", "csv"]).await;
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains("NOT_FOUND"), "{}", stderr(&o));

    // Delete.
    assert_eq!(code(&svc(base, cfg, &[], None, &["scraps", "delete", &broken_id]).await), 0);
    assert_eq!(code(&svc(base, cfg, &[], None, &["scraps", "get", &broken_id]).await), 1);

    // Logout ends the session on the server and forgets it.
    let token = me_token(cfg);
    assert_eq!(code(&svc(base, cfg, &[], None, &["logout"]).await), 0);
    assert!(!saved.exists());
    let me = reqwest::Client::new().get(format!("{base}/api/auth/me")).bearer_auth(&token).send().await.unwrap();
    assert_eq!(me.status().as_u16(), 401, "the token no longer opens anything");
    drop(server);
}

fn me_token(cfg: &Path) -> String {
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(cfg.join("session.json")).unwrap()).unwrap();
    saved["token"].as_str().unwrap().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_and_webhooks_round_trip() {
    let server = server().await;
    let config = tempfile::tempdir().unwrap();
    let cfg = config.path();
    let base = server.base.as_str();
    let account = signup(base, "dev@example.com").await;
    assert!(account["organization"]["id"].is_string(), "{account}");
    server.app.admin.set_plan("dev@example.com", Plan::Growth).await.unwrap();
    svc(base, cfg, &[], Some("password-123\n"), &["login", "--email", "dev@example.com", "--password-stdin"]).await;

    let o =
        svc(base, cfg, &[], None, &["keys", "create", "--name", "ci", "--scope", "svc:scraps:read", "--quiet"]).await;
    let key = stdout(&o).trim().to_string();
    assert!(key.starts_with("svc_") && key.len() == 44, "{key}");
    let keys = json_out(&svc(base, cfg, &[], None, &["keys", "list", "--json"]).await);
    assert_eq!(keys["data"][0]["name"], "ci");
    assert!(!keys.to_string().contains(&key), "the key itself is never listed");
    let key_id = keys["data"][0]["id"].as_str().unwrap().to_string();
    // The key works, then is revoked.
    let o = svc(base, cfg, &[("SVC_API_KEY", &key)], None, &["scraps", "list", "--json"]).await;
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(code(&svc(base, cfg, &[], None, &["keys", "revoke", &key_id]).await), 0);
    let o = svc(base, cfg, &[("SVC_API_KEY", &key)], None, &["scraps", "list"]).await;
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("UNAUTHORIZED"), "{}", stderr(&o));

    let created = json_out(
        &svc(
            base,
            cfg,
            &[],
            None,
            &["webhooks", "create", "--json", "--url", "https://hooks.example.com/in", "--event", "scrap.success"],
        )
        .await,
    );
    assert!(created["plainSecret"].as_str().unwrap().starts_with("whsec_"));
    let hook = created["id"].as_str().unwrap().to_string();
    let updated = json_out(
        &svc(base, cfg, &[], None, &["webhooks", "update", &hook, "--json", "--inactive", "--event", "scrap.failure"])
            .await,
    );
    assert_eq!((updated["active"].clone(), updated["events"].clone()), (json!(false), json!(["scrap.failure"])));
    let listed = json_out(&svc(base, cfg, &[], None, &["webhooks", "list", "--json"]).await);
    assert_eq!(listed["total"], 1);
    let log = json_out(&svc(base, cfg, &[], None, &["webhooks", "deliveries", &hook, "--json"]).await);
    assert_eq!(log["total"], 0);
    let bad = svc(base, cfg, &[], None, &["webhooks", "create", "--url", "ftp://x", "--event", "scrap.success"]).await;
    assert_eq!(code(&bad), 1);
    assert!(stderr(&bad).contains("VALIDATION") && stderr(&bad).contains("url"), "{}", stderr(&bad));
    assert_eq!(code(&svc(base, cfg, &[], None, &["webhooks", "delete", &hook]).await), 0);
    assert_eq!(json_out(&svc(base, cfg, &[], None, &["webhooks", "list", "--json"]).await)["total"], 0);

    // `svc members`: the organization's members and roles; a key cannot list them.
    let members = json_out(&svc(base, cfg, &[], None, &["members", "--json"]).await);
    assert_eq!((members["total"].clone(), members["data"][0]["email"].clone()), (json!(1), json!("dev@example.com")));
    assert_eq!(members["data"][0]["role"], "owner");
    let table = stdout(&svc(base, cfg, &[], None, &["members"]).await);
    assert!(table.contains("ROLE") && table.contains("dev@example.com") && table.contains("owner"), "{table}");
    let o = svc(base, cfg, &[], None, &["keys", "create", "--name", "reader", "--quiet"]).await;
    let reader = stdout(&o).trim().to_string();
    let o = svc(base, cfg, &[("SVC_API_KEY", &reader)], None, &["members"]).await;
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains("UNAUTHORIZED"), "{}", stderr(&o));
}

/// `svc history pages` against a crawl of the catalog (with a page that
/// answers 500 and one robots.txt disallows): 108 pages, more than one
/// request's worth, each listed with its status; a run of one page says
/// so; an unknown id is the server's 404.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn history_pages_lists_every_page_of_a_crawl_with_its_status() {
    let server = server().await;
    let site = crate::catalog_site::CatalogSite::start(true).await;
    let config = tempfile::tempdir().unwrap();
    let cfg = config.path();
    let base = server.base.as_str();
    signup(base, "crawler@example.com").await;
    server.app.admin.set_plan("crawler@example.com", Plan::Growth).await.unwrap();
    svc(base, cfg, &[], Some("password-123\n"), &["login", "--email", "crawler@example.com", "--password-stdin"]).await;

    // The index, 5 listings, 100 items, /broken and /private/secret.
    let file = cfg.join("crawl.json");
    let scrap = json!({"title": "Catalog", "url": format!("{}/", site.base), "scrapper": "static",
                       "request": crate::catalog_site::catalog_script("pages=200 parallel=4")});
    std::fs::write(&file, scrap.to_string()).unwrap();
    let created =
        json_out(&svc(base, cfg, &[], None, &["scraps", "create", "--json", "--file", file.to_str().unwrap()]).await);
    let sid = created["id"].as_str().unwrap().to_string();
    let run = json_out(&svc(base, cfg, &[], None, &["scraps", "run", &sid, "--wait", "--json"]).await);
    assert_eq!((run["statusDetail"].as_str(), run["length"].as_i64()), (Some("success"), Some(100)), "{run}");
    let rid = run["id"].as_str().unwrap().to_string();

    let o = svc(base, cfg, &[], None, &["history", "pages", &rid]).await;
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let table = stdout(&o);
    let lines: Vec<&str> = table.lines().collect();
    let header: Vec<&str> = lines[0].split_whitespace().collect();
    assert_eq!(header, ["#", "STATUS", "LABEL", "DEPTH", "ITEMS", "TIME", "URL", "ERROR"], "{table}");
    // One line per page (positions 0 to 107, in order), then the count.
    let rows: Vec<Vec<&str>> = lines[1..lines.len() - 1].iter().map(|l| l.split_whitespace().collect()).collect();
    let positions: Vec<String> = rows.iter().map(|r| r[0].to_string()).collect();
    assert_eq!(positions, (0..108).map(|p| p.to_string()).collect::<Vec<_>>(), "every page, not 20: {table}");
    assert_eq!(*lines.last().unwrap(), "108 pages: 106 ok, 1 error, 1 skipped_robots", "{table}");
    let row_of = |path: &str| {
        let url = format!("{}{path}", site.base);
        rows.iter().find(|r| r.contains(&url.as_str())).unwrap_or_else(|| panic!("{url} in {table}")).clone()
    };
    let start = row_of("/");
    assert_eq!(start[..5], ["0", "ok", "start", "0", "0"], "{table}");
    assert!(start[5].parse::<u64>().is_ok() && start[6] == "ms", "{table}");
    let broken = row_of("/broken");
    assert_eq!(broken[1..5], ["error", "detail", "2", "0"], "{table}");
    assert!(broken.iter().any(|w| w.contains("500")), "the error, shortened: {table}");
    assert!(
        broken.iter().skip(8).map(|w| w.chars().count() + 1).sum::<usize>() <= 61,
        "at most 60 characters of the error: {table}"
    );
    let robots = row_of("/private/secret");
    assert_eq!(robots[1..6], ["skipped_robots", "detail", "2", "0", "-"], "{table}");
    assert_eq!(robots[7..], ["robots.txt", "disallows", "it"], "{table}");
    let detail = row_of("/item/37");
    assert_eq!(detail[1..5], ["ok", "detail", "3", "1"], "{table}");
    let last = row_of("/item/100");
    assert_eq!((last[0], last[1], last[3], last[8]), ("107", "ok", "6", "-"), "{table}");

    // --json: the API's list shape, holding every page.
    let listed = json_out(&svc(base, cfg, &[], None, &["history", "pages", &rid, "--json"]).await);
    assert_eq!((listed["total"].as_i64(), listed["page"].as_i64()), (Some(108), Some(1)), "{listed}");
    let data = listed["data"].as_array().unwrap();
    assert_eq!(data.len(), 108);
    assert_eq!(data[107]["url"], format!("{}/item/100", site.base));
    let robots = data.iter().find(|p| p["status"] == "skipped_robots").expect("listed");
    assert_eq!(robots["error"], "robots.txt disallows it");
    let quiet = svc(base, cfg, &[], None, &["history", "pages", &rid, "--quiet"]).await;
    assert_eq!(stdout(&quiet).lines().count(), 108, "--quiet: one URL a line");

    // A run of one page says so plainly.
    let one = json!({"title": "One page", "url": format!("{}/item/5", site.base), "scrapper": "static",
                     "request": "returnData([document.querySelector('h1').textContent])"});
    std::fs::write(&file, one.to_string()).unwrap();
    let created =
        json_out(&svc(base, cfg, &[], None, &["scraps", "create", "--json", "--file", file.to_str().unwrap()]).await);
    let run = json_out(
        &svc(base, cfg, &[], None, &["scraps", "run", created["id"].as_str().unwrap(), "--wait", "--json"]).await,
    );
    let one_id = run["id"].as_str().unwrap();
    let o = svc(base, cfg, &[], None, &["history", "pages", one_id]).await;
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(stdout(&o), format!("Run {one_id} had one page (it was not a crawl): no pages are listed.\n"));
    let empty = json_out(&svc(base, cfg, &[], None, &["history", "pages", one_id, "--json"]).await);
    assert_eq!(empty, json!({"data": [], "total": 0, "page": 1, "perPage": 0}));

    // An id that is not a run: the server's 404, exit code 1.
    let o = svc(base, cfg, &[], None, &["history", "pages", "0123456789abcdef01234567"]).await;
    assert_eq!(code(&o), 1, "{}", stdout(&o));
    assert!(stderr(&o).contains("NOT_FOUND") && stdout(&o).is_empty(), "{}", stderr(&o));
    drop(server);
}

/// Records every request's `Authorization` header; answers the scripted
/// statuses first (with `Retry-After: 1` on 429), then an empty list.
async fn recorder(script: &[u16]) -> (String, Arc<Mutex<Vec<Vec<String>>>>) {
    let seen: Arc<Mutex<Vec<Vec<String>>>> = Arc::default();
    let answers = Arc::new(Mutex::new(script.iter().copied().collect::<VecDeque<u16>>()));
    let record = seen.clone();
    let app = Router::new().fallback(move |headers: HeaderMap| {
        let record = record.clone();
        let answers = answers.clone();
        async move {
            let auth: Vec<String> = headers.get_all("authorization").iter().map(|v| v.to_str().unwrap().to_string()).collect();
            record.lock().unwrap().push(auth);
            match answers.lock().unwrap().pop_front() {
                Some(429) => (
                    StatusCode::TOO_MANY_REQUESTS,
                    [("retry-after", "1")],
                    axum::Json(json!({"type": "error", "message": "Too many requests", "description": "slow down", "code": "RATE_LIMITED"})),
                )
                    .into_response(),
                _ => axum::Json(json!({"data": [], "total": 0, "page": 1, "perPage": 20})).into_response(),
            }
        }
    });
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (base, seen)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_api_key_wins_over_the_saved_session_and_only_one_is_sent() {
    let (base, seen) = recorder(&[]).await;
    let config = tempfile::tempdir().unwrap();
    std::fs::write(
        config.path().join("session.json"),
        json!({"baseUrl": base, "email": "e@x", "token": "jwt-from-the-session", "expiresAt": "2030-01-01T00:00:00Z"})
            .to_string(),
    )
    .unwrap();
    let key = "svc_abcdefghijABCDEFGHIJ0123456789abcdefghij";
    let o = svc(&base, config.path(), &[("SVC_API_KEY", key)], None, &["scraps", "list", "--json"]).await;
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let o = svc(&base, config.path(), &[], None, &["scraps", "list", "--json"]).await;
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen, vec![vec![format!("Bearer {key}")], vec!["Bearer jwt-from-the-session".to_string()]]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_429_is_retried_after_retry_after_with_a_message() {
    let (base, seen) = recorder(&[429]).await;
    let config = tempfile::tempdir().unwrap();
    let o = svc(&base, config.path(), &[("SVC_API_KEY", "svc_k")], None, &["scraps", "list", "--json"]).await;
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stderr(&o).contains("rate limited by the server; retrying in 1 s"), "{}", stderr(&o));
    assert_eq!(seen.lock().unwrap().len(), 2);
    // Past the bound it gives up with the server's message.
    let (base, seen) = recorder(&[429, 429, 429, 429, 429]).await;
    let o = svc(&base, config.path(), &[("SVC_API_KEY", "svc_k")], None, &["scraps", "list"]).await;
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("RATE_LIMITED"), "{}", stderr(&o));
    assert_eq!(seen.lock().unwrap().len(), 4, "one try and three retries");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exit_codes_for_usage_and_unreachable_servers() {
    let config = tempfile::tempdir().unwrap();
    let o = svc("http://127.0.0.1:9", config.path(), &[("SVC_API_KEY", "svc_k")], None, &["scraps", "list"]).await;
    assert_eq!(code(&o), 3, "{}", stderr(&o));
    assert!(stderr(&o).contains("cannot connect to http://127.0.0.1:9"), "{}", stderr(&o));
    for args in [
        &["scraps"][..],
        &["scraps", "get"],
        &["scraps", "list", "--page"],
        &["history", "get", "x", "--csv"],
        &["nonsense"],
    ] {
        let o = svc("http://127.0.0.1:9", config.path(), &[], None, args).await;
        assert_eq!(code(&o), 2, "{args:?}: {}", stderr(&o));
    }
    let o = svc(
        "http://127.0.0.1:9",
        config.path(),
        &[],
        None,
        &["scraps", "create", "--title", "only a title", "--file", "/nonexistent.yaml"],
    )
    .await;
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    // Every command's help shows examples.
    for args in [
        &["login"][..],
        &["logout"],
        &["whoami"],
        &["completions"],
        &["scraps"],
        &["scraps", "list"],
        &["scraps", "get"],
        &["scraps", "run"],
        &["scraps", "create"],
        &["scraps", "update"],
        &["scraps", "delete"],
        &["history"],
        &["history", "list"],
        &["history", "get"],
        &["history", "pages"],
        &["keys"],
        &["keys", "list"],
        &["keys", "create"],
        &["keys", "revoke"],
        &["webhooks"],
        &["webhooks", "list"],
        &["webhooks", "create"],
        &["webhooks", "update"],
        &["webhooks", "delete"],
        &["webhooks", "deliveries"],
        &["members"],
    ] {
        let mut with_help = args.to_vec();
        with_help.push("--help");
        let o = svc("http://127.0.0.1:9", config.path(), &[], None, &with_help).await;
        assert_eq!(code(&o), 0, "{args:?}");
        assert!(stdout(&o).contains("Example"), "{args:?} --help has examples: {}", stdout(&o));
    }
    for shell in ["bash", "zsh", "fish"] {
        let o = svc("http://127.0.0.1:9", config.path(), &[], None, &["completions", shell]).await;
        assert_eq!(code(&o), 0);
        assert!(stdout(&o).contains("scraps"), "{shell}");
    }
    let o = svc("http://127.0.0.1:9", config.path(), &[], None, &["login", "--email", "a@b.c"]).await;
    assert_eq!(code(&o), 2, "no terminal for the password prompt: {}", stderr(&o));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_a_terminal_the_run_shows_a_spinner_and_lists_are_tables() {
    let server = server().await;
    let target = site().await;
    let config = tempfile::tempdir().unwrap();
    let cfg = config.path();
    let base = server.base.as_str();
    signup(base, "tty@example.com").await;
    svc(base, cfg, &[], Some("password-123\n"), &["login", "--email", "tty@example.com", "--password-stdin"]).await;
    let created = json_out(
        &svc(
            base,
            cfg,
            &[],
            None,
            &[
                "scraps",
                "create",
                "--json",
                "--title",
                "Tty",
                "--url",
                &format!("{target}/items"),
                "--request",
                "await SVC.sleep(1500); returnData([1, 2])",
            ],
        )
        .await,
    );
    let id = created["id"].as_str().unwrap();
    // `script` runs the command on a pseudo-terminal and copies what it shows.
    let run_line = format!("{SVC} scraps run {id} --wait");
    let o = svc(base, cfg, &[], None, &["--version"]).await;
    assert_eq!(code(&o), 0);
    let shown = tokio::process::Command::new("script")
        .args(["-qec", &run_line, "/dev/null"])
        .env("SVC_BASE_URL", base)
        .env("SVC_CONFIG_DIR", cfg)
        .env_remove("SVC_API_KEY")
        .output()
        .await
        .expect("script (util-linux) runs");
    let screen = String::from_utf8_lossy(&shown.stdout);
    assert!(screen.contains("running") && screen.contains(id), "a spinner with the scrap: {screen:?}");
    assert!(screen.contains("success: 2 items in"), "{screen:?}");
    let shown = tokio::process::Command::new("script")
        .args(["-qec", &format!("stty cols 160; {SVC} scraps list"), "/dev/null"])
        .env("SVC_BASE_URL", base)
        .env("SVC_CONFIG_DIR", cfg)
        .env_remove("SVC_API_KEY")
        .output()
        .await
        .unwrap();
    let screen = String::from_utf8_lossy(&shown.stdout);
    assert!(screen.contains("│") && screen.contains("TITLE") && screen.contains("Tty"), "a table: {screen}");
}
