//! The browser processes of a real `svc server`, seen from outside through
//! `/proc`: what their environment holds, and that they end when svc is
//! killed (docs/engines.md, "The browser's process").

use std::collections::HashMap;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::binary::{Server, kill, sqlite_url, svc, target_site};

/// A secret svc holds, looked for in every browser process's environment.
const CANARY_SECRET: &str = "canary-jwt-secret-3f9c1a7e5b2d4c6a8e0f";

/// Every process below `root` in the process tree (by `/proc/*/stat`'s parent id).
pub(crate) fn descendants(root: u32) -> Vec<u32> {
    let mut parent_of = HashMap::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else { continue };
        if let Some((_, ppid)) = stat(pid) {
            parent_of.insert(pid, ppid);
        }
    }
    let mut found: Vec<u32> = Vec::new();
    let mut frontier = vec![root];
    while let Some(p) = frontier.pop() {
        for (&child, _) in parent_of.iter().filter(|(_, parent)| **parent == p) {
            found.push(child);
            frontier.push(child);
        }
    }
    found
}

/// A process's state letter and parent id, `None` once it is gone.
fn stat(pid: u32) -> Option<(char, u32)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // `pid (comm) S ppid ...`: comm may hold spaces and parentheses.
    let rest = &text[text.rfind(')')? + 2..];
    let mut fields = rest.split(' ');
    let state = fields.next()?.chars().next()?;
    Some((state, fields.next()?.parse().ok()?))
}

/// Alive: present and not a zombie (a zombie has ended; only its parent's
/// wait is missing, and an orphan's new parent may never wait).
pub(crate) fn alive(pid: u32) -> bool {
    stat(pid).is_some_and(|(state, _)| state != 'Z')
}

pub(crate) fn command_line(pid: u32) -> String {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|b| String::from_utf8_lossy(&b).replace('\0', " "))
        .unwrap_or_default()
}

/// A process as `/proc` names it: its pid and its start time (field 22 of
/// `stat`, in clock ticks since boot), so that a pid the kernel hands to
/// another program later is not taken for it.
type Process = (u32, u64);

fn start_time(pid: u32) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    text[text.rfind(')')? + 2..].split(' ').nth(19)?.parse().ok()
}

/// Still running, and still the same process.
fn still_alive(&(pid, started): &Process) -> bool {
    alive(pid) && start_time(pid) == Some(started)
}

/// A Chromium process that runs pages for svc holds none of svc's settings
/// or secrets in its environment, and dies with svc when svc is killed
/// with SIGKILL (no chance to close anything); a restart loop (the same
/// database, killed three times after a run) leaves none behind.
#[tokio::test]
async fn browser_processes_hold_no_secret_and_die_with_a_killed_svc() {
    let dir = tempfile::tempdir().unwrap();
    let target = target_site();
    let mut all_browsers = Vec::new();
    for restart in 0..3 {
        let browsers = run_then_kill(dir.path(), &target, restart).await;
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            let left: Vec<(u32, String)> =
                browsers.iter().filter(|p| still_alive(p)).map(|&(pid, _)| (pid, command_line(pid))).collect();
            if left.is_empty() {
                break;
            }
            assert!(Instant::now() < deadline, "browser processes outlived a killed svc (start {restart}): {left:?}");
            std::thread::sleep(Duration::from_millis(50));
        }
        all_browsers.extend(browsers);
    }
    let piled: Vec<Process> = all_browsers.into_iter().filter(still_alive).collect();
    assert!(piled.is_empty(), "browsers of earlier starts came back or stayed: {piled:?}");
}

/// Starts `svc server` on the database in `dir`, runs a scrap in the
/// browser, checks every browser process's environment, kills svc with
/// SIGKILL, and returns the browser's processes as they were.
async fn run_then_kill(dir: &std::path::Path, target: &str, restart: usize) -> Vec<Process> {
    let server = server_after_a_run(dir, target, &format!("b{restart}@example.com"), "puppeteer", CANARY_SECRET).await;

    // Every process below svc is the browser's: the browser, its zygotes,
    // renderers and helpers (svc starts no other program).
    let browsers = descendants(server.pid());
    assert!(
        browsers.iter().any(|&pid| command_line(pid).contains("--type=renderer")),
        "the run's browser and its renderer run below svc: {:?}",
        browsers.iter().map(|&p| command_line(p)).collect::<Vec<_>>()
    );
    for &pid in &browsers {
        let environ = std::fs::read(format!("/proc/{pid}/environ")).expect("root reads any environment");
        let variables: Vec<String> = environ
            .split(|b| *b == 0)
            .filter(|v| !v.is_empty())
            .map(|v| String::from_utf8_lossy(v).into_owned())
            .collect();
        assert!(!variables.iter().any(|v| v.starts_with("SVC_")), "process {pid} has svc's settings: {variables:?}");
        assert!(!variables.iter().any(|v| v.contains(CANARY_SECRET)), "process {pid} has the secret: {variables:?}");
    }
    let browsers = browsers.into_iter().filter_map(|pid| Some((pid, start_time(pid)?))).collect();
    kill(server.pid(), "KILL");
    browsers
}

/// A real `svc server` on the SQLite database in `dir` (private networks
/// allowed, `secret` as its JWT secret, `SVC_TEST_CHROMIUM` as its browser
/// when set) after one successful run of a `scrapper` scrap of `target`,
/// made by a new account `email`.
pub(crate) async fn server_after_a_run(
    dir: &std::path::Path,
    target: &str,
    email: &str,
    scrapper: &str,
    secret: &str,
) -> Server {
    let mut command = svc(dir);
    if let Some(chromium) = std::env::var_os("SVC_TEST_CHROMIUM").filter(|c| !c.is_empty()) {
        command.env("SVC_CHROMIUM", chromium);
    }
    command
        .env("SVC_DATABASE_URL", sqlite_url(dir))
        .env("SVC_LISTEN", "127.0.0.1:0")
        .env("SVC_ALLOW_PRIVATE_NETWORKS", "true")
        .env("SVC_JWT_SECRET", secret);
    let server = Server::start(command);
    let http = reqwest::Client::new();
    let post = |path: String, token: Option<&str>, body: Value| {
        let mut request = http.post(format!("{}{path}", server.base)).json(&body);
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        async move { request.send().await.unwrap().json::<Value>().await.unwrap() }
    };
    let signup = post("/api/auth/signup".into(), None, json!({"email": email, "password": "password-123"})).await;
    let token = signup["token"].as_str().unwrap_or_else(|| panic!("{signup}")).to_string();
    let items = "returnData([...document.querySelectorAll('li')].map(li => li.textContent))";
    let scrap = post(
        "/api/scraps".into(),
        Some(&token),
        json!({"title": "Items", "url": target, "scrapper": scrapper, "request": items}),
    )
    .await;
    let sid = scrap["id"].as_str().unwrap_or_else(|| panic!("{scrap}"));
    let row = post(format!("/api/scraps/worker/{sid}?wait=60"), Some(&token), Value::Null).await;
    assert_eq!(row["statusDetail"], "success", "a {scrapper} run: {row}");
    server
}
