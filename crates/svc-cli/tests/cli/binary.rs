//! The `svc` executable itself: `svc server` start-up and shutdown,
//! configuration errors, and the operator commands (`svc admin ...`).

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, ExitStatus, Output, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use svc_server::secret_key::MasterKey;

const SVC: &str = env!("CARGO_BIN_EXE_svc");
const STARTUP: Duration = Duration::from_secs(30);
const SHUTDOWN: Duration = Duration::from_secs(15);
const LISTENING: &str = "svc: listening on http://";

/// `svc` with the test's `SVC_*` variables removed, run in `cwd`.
pub(crate) fn svc(cwd: &Path) -> Command {
    let mut command = Command::new(SVC);
    command.current_dir(cwd);
    for (key, _) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("SVC_") {
            command.env_remove(&key);
        }
    }
    command.env_remove("RUST_LOG");
    command.stdin(Stdio::null());
    command
}

/// A running `svc server`; killed on drop if it is still running.
pub(crate) struct Server {
    pid: u32,
    pub(crate) base: String,
    database: String,
    /// What the server wrote to stderr up to its listening line (included).
    pub(crate) early: Vec<String>,
    /// The rest of stderr, line by line (kept drained so the server never blocks on it).
    pub(crate) stderr: Receiver<String>,
    /// Its stdout, line by line (drained likewise).
    pub(crate) stdout: Receiver<String>,
    exited: Receiver<std::io::Result<ExitStatus>>,
    done: bool,
}

impl Server {
    /// Starts `svc server` and waits (with a deadline) for its listening line.
    pub(crate) fn start(mut command: Command) -> Server {
        command.arg("server").stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = command.spawn().expect("spawn svc server");
        let pid = child.id();
        let lines = drain(child.stderr.take().unwrap());
        let stdout = drain(child.stdout.take().unwrap());
        let (exit_tx, exited) = channel();
        std::thread::spawn(move || {
            let _ = exit_tx.send(child.wait());
        });

        let deadline = Instant::now() + STARTUP;
        let mut seen = Vec::new();
        let listening = loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match lines.recv_timeout(left) {
                Ok(line) => {
                    if let Some(rest) = line.strip_prefix(LISTENING) {
                        let rest = rest.to_string();
                        seen.push(line);
                        break rest;
                    }
                    seen.push(line);
                }
                Err(RecvTimeoutError::Timeout) => {
                    kill(pid, "KILL");
                    panic!("no listening line within {STARTUP:?}; stderr so far:\n{}", seen.join("\n"));
                }
                Err(RecvTimeoutError::Disconnected) => {
                    let status = exited.recv_timeout(SHUTDOWN);
                    panic!("svc server exited before listening ({status:?}); stderr:\n{}", seen.join("\n"));
                }
            }
        };
        // `ADDR (database: sqlite)`
        let (addr, database) = listening
            .split_once(" (database: ")
            .and_then(|(addr, rest)| Some((addr.to_string(), rest.strip_suffix(')')?.to_string())))
            .unwrap_or_else(|| panic!("unexpected listening line: {LISTENING}{listening}"));
        let port = addr.rsplit_once(':').and_then(|(_, p)| p.parse::<u16>().ok()).expect("a port");
        assert_ne!(port, 0, "the line shows the bound port, not the requested 0: {addr}");
        Server {
            pid,
            base: format!("http://{addr}"),
            database,
            early: seen,
            stderr: lines,
            stdout,
            exited,
            done: false,
        }
    }

    /// The server's process id.
    pub(crate) fn pid(&self) -> u32 {
        self.pid
    }

    /// Sends SIGTERM and returns the exit status (panics past the deadline).
    pub(crate) fn terminate(&mut self) -> ExitStatus {
        kill(self.pid, "TERM");
        let status = match self.exited.recv_timeout(SHUTDOWN) {
            Ok(status) => status.expect("wait for svc server"),
            Err(e) => {
                kill(self.pid, "KILL");
                panic!("svc server did not exit within {SHUTDOWN:?} of SIGTERM: {e:?}");
            }
        };
        self.done = true;
        status
    }

    /// What the server wrote to stderr after its listening line (and so far).
    fn rest_of_stderr(&self) -> String {
        self.stderr.try_iter().collect::<Vec<_>>().join("\n")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if !self.done && self.exited.try_recv().is_err() {
            kill(self.pid, "KILL");
        }
    }
}

/// The lines of `output`, sent as they come (kept drained so the server
/// never blocks on a full pipe, also once nobody listens).
fn drain(output: impl std::io::Read + Send + 'static) -> Receiver<String> {
    let (line_tx, lines) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(output).lines() {
            let Ok(line) = line else { break };
            let _ = line_tx.send(line);
        }
    });
    lines
}

pub(crate) fn kill(pid: u32, signal: &str) {
    let _ = Command::new("kill").arg(format!("-{signal}")).arg(pid.to_string()).status();
}

pub(crate) fn run(mut command: Command) -> Output {
    command.stdout(Stdio::piped()).stderr(Stdio::piped());
    let child = command.spawn().expect("spawn svc");
    let pid = child.id();
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(STARTUP) {
        Ok(output) => output.expect("svc output"),
        Err(_) => {
            kill(pid, "KILL");
            panic!("svc did not finish within {STARTUP:?}");
        }
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

pub(crate) fn sqlite_url(dir: &Path) -> String {
    format!("sqlite://{}", dir.join("svc.db").display())
}

fn admin(dir: &Path, database_url: &str, args: &[&str]) -> Output {
    let mut command = svc(dir);
    command.env("SVC_DATABASE_URL", database_url).arg("admin").args(args);
    run(command)
}

#[tokio::test]
async fn server_starts_with_defaults_serves_and_stops_on_sigterm() {
    let dir = tempfile::tempdir().unwrap();
    let mut command = svc(dir.path());
    command.env("SVC_LISTEN", "127.0.0.1:0");
    let mut server = Server::start(command);
    assert_eq!(server.database, "sqlite");
    assert!(server.base.starts_with("http://127.0.0.1:"), "{}", server.base);
    assert!(
        dir.path().join("svc-data").join("svc.db").is_file(),
        "the default database is svc-data/svc.db in the working folder"
    );

    // Without SVC_PUBLIC_URL, the public URL is the address actually bound.
    let deadline = Instant::now() + STARTUP;
    let public = loop {
        let line = server.stderr.recv_timeout(deadline.saturating_duration_since(Instant::now())).expect("more stderr");
        if let Some(url) = line.strip_prefix("svc: public URL ") {
            break url.to_string();
        }
    };
    assert_eq!(public, server.base, "the bound port, not the requested 0");
    // Without SVC_SMTP_URL, email is off, and a start-up line says why.
    let email = loop {
        let line = server.stderr.recv_timeout(deadline.saturating_duration_since(Instant::now())).expect("more stderr");
        if line.starts_with("svc: email") {
            break line;
        }
    };
    assert_eq!(email, "svc: email off: SVC_SMTP_URL is not set");
    // Chromium's sandbox is required unless the operator turns it off.
    let sandbox = loop {
        let line = server.stderr.recv_timeout(deadline.saturating_duration_since(Instant::now())).expect("more stderr");
        if line.starts_with("svc: browser sandbox") {
            break line;
        }
    };
    assert_eq!(sandbox, "svc: browser sandbox on: Chromium does not start without it (SVC_BROWSER_SANDBOX)");

    let http = reqwest::Client::new();
    let health = http.get(format!("{}/healthz", server.base)).send().await.unwrap();
    assert_eq!(health.status(), reqwest::StatusCode::OK);
    let body: Value = health.json().await.unwrap();
    assert_eq!(body["status"], "ok", "{body}");
    assert_eq!(body["database"], "sqlite", "{body}");

    let home = http.get(format!("{}/", server.base)).send().await.unwrap();
    assert_eq!(home.status(), reqwest::StatusCode::OK);
    let content_type = home.headers().get(reqwest::header::CONTENT_TYPE).unwrap().to_str().unwrap().to_string();
    assert!(content_type.starts_with("text/html"), "{content_type}");
    let page = home.text().await.unwrap();
    assert!(page.to_lowercase().contains("<html"), "{page}");
    assert!(page.contains("/api/"), "the page points to the API: {page}");

    // The API answers with its JSON errors.
    let anonymous = http.get(format!("{}/api/scraps", server.base)).send().await.unwrap();
    assert_eq!(anonymous.status(), reqwest::StatusCode::UNAUTHORIZED);

    let status = server.terminate();
    assert_eq!(status.code(), Some(0), "SIGTERM is a clean shutdown: {status:?}\n{}", server.rest_of_stderr());
    assert!(http.get(format!("{}/healthz", server.base)).send().await.is_err(), "nothing listens after exit");
}

#[test]
fn an_invalid_setting_exits_with_code_2_and_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut command = svc(dir.path());
    command.env("SVC_LISTEN", "nowhere").arg("server");
    let output = run(command);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("SVC_LISTEN"), "{stderr}");
    assert!(stderr.contains("nowhere"), "{stderr}");
    assert!(!dir.path().join("svc-data").exists(), "nothing is created before the configuration is valid");

    for (name, value) in
        [("SVC_DATABASE_URL", "mysql://db/svc"), ("SVC_WORKER_CONCURRENCY", "0"), ("SVC_RUN_TIMEOUT", "soon")]
    {
        let mut command = svc(dir.path());
        command.env("SVC_LISTEN", "127.0.0.1:0").env(name, value).arg("server");
        let output = run(command);
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{name}={value}: {stderr}");
        assert!(stderr.contains(name), "{stderr}");
    }
}

#[test]
fn usage_errors_exit_with_code_2() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        vec!["no-such-command"],
        vec!["admin", "set-plan", "--email", "a@example.com", "--plan", "platinum"],
        vec!["admin", "add-balance", "--email", "a@example.com"],
    ] {
        let mut command = svc(dir.path());
        command.env("SVC_DATABASE_URL", sqlite_url(dir.path())).args(&args);
        let output = run(command);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {}", text(&output.stderr));
    }
}

#[tokio::test]
async fn admin_commands_change_plan_admin_role_and_balance() {
    let dir = tempfile::tempdir().unwrap();
    let database_url = sqlite_url(dir.path());
    let http = reqwest::Client::new();
    let email = "operator-target@example.com";

    // Sign up through a first server on that database, then stop it.
    let start = || {
        let mut command = svc(dir.path());
        command.env("SVC_LISTEN", "127.0.0.1:0").env("SVC_DATABASE_URL", &database_url);
        Server::start(command)
    };
    let mut server = start();
    let signup = http
        .post(format!("{}/api/auth/signup", server.base))
        .json(&json!({"email": email, "password": "password-123"}))
        .send()
        .await
        .unwrap();
    assert_eq!(signup.status(), reqwest::StatusCode::CREATED);
    let signup: Value = signup.json().await.unwrap();
    assert_eq!(signup["organization"]["plan"], "free", "{signup}");
    assert_eq!(signup["organization"]["balance"], 1000, "{signup}");
    let token = signup["token"].as_str().unwrap().to_string();
    assert_eq!(server.terminate().code(), Some(0));
    assert!(dir.path().join("svc.db").is_file());
    assert!(!dir.path().join("svc-data").exists(), "SVC_DATABASE_URL is used, not the default");

    // The operator commands, with the email in another case.
    let output =
        admin(dir.path(), &database_url, &["set-plan", "--email", "Operator-Target@Example.com", "--plan", "growth"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(text(&output.stdout).contains("growth"), "{}", text(&output.stdout));
    let output = admin(dir.path(), &database_url, &["grant-admin", "--email", email]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let output = admin(dir.path(), &database_url, &["add-balance", "--email", email, "--units", "50"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(text(&output.stdout).contains("1050"), "the new balance is printed: {}", text(&output.stdout));

    // An unknown email is refused with exit code 1 and changes nothing.
    for args in [
        vec!["set-plan", "--email", "nobody@example.com", "--plan", "pro"],
        vec!["grant-admin", "--email", "nobody@example.com"],
        vec!["add-balance", "--email", "nobody@example.com", "--units", "5"],
    ] {
        let output = admin(dir.path(), &database_url, &args);
        assert_eq!(output.status.code(), Some(1), "{args:?}: {}", text(&output.stderr));
        assert!(!text(&output.stderr).trim().is_empty(), "a message explains the refusal");
    }

    // A restarted server sees the changes; the session token of before the
    // restart is still valid (the generated JWT secret lives in the database).
    let mut server = start();
    let me = http.get(format!("{}/api/auth/me", server.base)).bearer_auth(&token).send().await.unwrap();
    assert_eq!(me.status(), reqwest::StatusCode::OK);
    let me: Value = me.json().await.unwrap();
    assert_eq!(me["organization"]["plan"], "growth", "{me}");
    assert_eq!(me["organization"]["balance"], 1050, "{me}");
    assert_eq!(me["user"]["isAdmin"], true, "{me}");
    assert_eq!(me["user"]["email"], email, "{me}");
    assert_eq!(server.terminate().code(), Some(0));
}

/// `svc admin rotate-secret-key` with the default key file (beside the
/// SQLite database): the file holds a new key afterwards, nothing is printed
/// on stdout, and a session from before the rotation is still valid.
#[tokio::test]
async fn rotating_the_key_file_keeps_sessions_valid() {
    let dir = tempfile::tempdir().unwrap();
    let database_url = sqlite_url(dir.path());
    let key_file = dir.path().join("secret.key");
    let start = || {
        let mut command = svc(dir.path());
        command.env("SVC_LISTEN", "127.0.0.1:0").env("SVC_DATABASE_URL", &database_url);
        Server::start(command)
    };
    let mut server = start();
    let old_key = std::fs::read_to_string(&key_file).expect("generated at the first start");
    let old_id = MasterKey::from_base64(&old_key).unwrap().id().to_string();
    let deadline = Instant::now() + STARTUP;
    let sealed_line = loop {
        let line = server.stderr.recv_timeout(deadline.saturating_duration_since(Instant::now())).expect("more stderr");
        if line.starts_with("svc: secrets sealed") {
            break line;
        }
    };
    assert_eq!(sealed_line, format!("svc: secrets sealed with master key {old_id} (key file {})", key_file.display()));
    let http = reqwest::Client::new();
    let signup: Value = http
        .post(format!("{}/api/auth/signup", server.base))
        .json(&json!({"email": "rotate@example.com", "password": "password-123"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let token = signup["token"].as_str().unwrap().to_string();
    assert_eq!(server.terminate().code(), Some(0));

    let output = admin(dir.path(), &database_url, &["rotate-secret-key"]);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains(&format!("master key rotated from {old_id} to ")), "{stderr}");
    assert!(text(&output.stdout).is_empty(), "no key is printed when a key file holds it");
    let new_key = std::fs::read_to_string(&key_file).unwrap();
    assert_ne!(new_key, old_key);
    assert!(!dir.path().join("secret.key.new").exists());

    let mut server = start();
    let me = http.get(format!("{}/api/auth/me", server.base)).bearer_auth(&token).send().await.unwrap();
    assert_eq!(me.status(), reqwest::StatusCode::OK, "a session from before the rotation");
    assert_eq!(server.terminate().code(), Some(0));
}

/// A master key that does not fit the database is a configuration error
/// (exit code 2), for `svc server` and `svc admin` alike, and a missing key
/// file is never replaced by a new key.
#[test]
fn a_master_key_that_does_not_fit_exits_with_code_2() {
    let dir = tempfile::tempdir().unwrap();
    let database_url = sqlite_url(dir.path());
    let key_file = dir.path().join("secret.key");
    // The first command creates the database, its key file and key check.
    let output = admin(dir.path(), &database_url, &["grant-admin", "--email", "nobody@example.com"]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    let key_id = MasterKey::from_base64(&std::fs::read_to_string(&key_file).unwrap()).unwrap().id().to_string();

    let wrong = MasterKey::generate();
    for args in [vec!["server"], vec!["admin", "grant-admin", "--email", "nobody@example.com"]] {
        let mut command = svc(dir.path());
        command
            .env("SVC_LISTEN", "127.0.0.1:0")
            .env("SVC_DATABASE_URL", &database_url)
            .env("SVC_SECRET_KEY", wrong.to_base64())
            .args(&args);
        let output = run(command);
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(&key_id) && stderr.contains(wrong.id()), "names both keys: {stderr}");
        assert!(!stderr.contains(&wrong.to_base64()), "{stderr}");
    }

    std::fs::remove_file(&key_file).unwrap();
    let output = admin(dir.path(), &database_url, &["grant-admin", "--email", "nobody@example.com"]);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("is missing") && stderr.contains(&key_id), "{stderr}");
    assert!(!key_file.exists(), "no new key for a sealed database");
}

/// With `SVC_SECRET_KEY`, the rotation prints the new key on stdout; the old
/// key no longer opens the database, the new one does.
#[test]
fn rotating_an_environment_key_prints_the_new_one() {
    let dir = tempfile::tempdir().unwrap();
    let database_url = sqlite_url(dir.path());
    let old = MasterKey::generate();
    let with_key = |key: &str, args: &[&str]| {
        let mut command = svc(dir.path());
        command.env("SVC_DATABASE_URL", &database_url).env("SVC_SECRET_KEY", key).arg("admin").args(args);
        run(command)
    };
    let probe = ["grant-admin", "--email", "nobody@example.com"];
    assert_eq!(with_key(&old.to_base64(), &probe).status.code(), Some(1), "the database exists, the key fits");

    let output = with_key(&old.to_base64(), &["rotate-secret-key"]);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let stdout = text(&output.stdout);
    let new = stdout.trim().strip_prefix("SVC_SECRET_KEY=").unwrap_or_else(|| panic!("the new key: {stdout}"));
    let new = MasterKey::from_base64(new).unwrap();
    assert!(stderr.contains(&format!("from {} to {}", old.id(), new.id())), "{stderr}");
    assert!(stderr.contains("set SVC_SECRET_KEY"), "{stderr}");
    assert!(!dir.path().join("secret.key").exists(), "no key file with SVC_SECRET_KEY");

    let refused = with_key(&old.to_base64(), &probe);
    assert_eq!(refused.status.code(), Some(2), "{}", text(&refused.stderr));
    assert_eq!(with_key(&new.to_base64(), &probe).status.code(), Some(1), "the new key fits");
}

/// A one-page target site on a plain TCP listener (answers every request the same).
pub(crate) fn target_site() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            std::thread::spawn(move || {
                use std::io::{Read, Write};
                let mut buf = [0u8; 4096];
                let _ = stream.read(&mut buf);
                let body = "<!doctype html><html><body><ul><li>one</li><li>two</li></ul></body></html>";
                let response = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = stream.write_all(response.as_bytes());
            });
        }
    });
    format!("http://{addr}/")
}

/// `svc worker --id ID` in its own process runs the runs queued for its
/// container (here with `svc server`'s embedded worker switched off), and
/// stops on SIGTERM.
#[tokio::test]
async fn a_separate_worker_process_runs_its_containers_runs() {
    let dir = tempfile::tempdir().unwrap();
    let database = sqlite_url(dir.path());
    let target = target_site();
    let mut server_cmd = svc(dir.path());
    server_cmd
        .env("SVC_DATABASE_URL", &database)
        .env("SVC_LISTEN", "127.0.0.1:0")
        .env("SVC_EMBEDDED_WORKER", "false")
        .env("SVC_ALLOW_PRIVATE_NETWORKS", "true");
    let mut server = Server::start(server_cmd);
    let http = reqwest::Client::new();
    let signup: Value = http
        .post(format!("{}/api/auth/signup", server.base))
        .json(&json!({"email": "w@example.com", "password": "password-123"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let token = signup["token"].as_str().unwrap().to_string();
    let scrap: Value = http
        .post(format!("{}/api/scraps", server.base))
        .bearer_auth(&token)
        .json(&json!({"title": "Remote", "url": target, "containers": ["EU-1"],
            "request": "returnData([...document.querySelectorAll('li')].map(li => li.textContent))"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(scrap["containers"], json!(["eu-1"]), "{scrap}");
    let sid = scrap["id"].as_str().unwrap();
    let pending: Value = http
        .post(format!("{}/api/scraps/worker/{sid}", server.base))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let hid = pending["historyId"].as_str().unwrap().to_string();

    let mut worker_cmd = svc(dir.path());
    worker_cmd
        .env("SVC_DATABASE_URL", &database)
        .env("SVC_ALLOW_PRIVATE_NETWORKS", "true")
        .args(["worker", "--id", "eu-1"])
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let mut worker = worker_cmd.spawn().expect("spawn svc worker");

    let deadline = Instant::now() + Duration::from_secs(60);
    let row = loop {
        let row: Value = http
            .get(format!("{}/api/historys/{hid}", server.base))
            .bearer_auth(&token)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        if !row["status"].is_null() {
            break row;
        }
        assert!(Instant::now() < deadline, "the worker did not finish the run: {row}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(row["statusDetail"], "success", "{row}");
    assert_eq!(row["data"], "[\"one\",\"two\"]");

    kill(worker.id(), "TERM");
    let deadline = Instant::now() + SHUTDOWN;
    let status = loop {
        if let Some(status) = worker.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "svc worker did not stop on SIGTERM");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(status.success(), "{status:?}");
    assert!(server.terminate().success());

    let bad = run({
        let mut c = svc(dir.path());
        c.env("SVC_DATABASE_URL", &database).args(["worker", "--id", "bad id!"]);
        c
    });
    assert_eq!(bad.status.code(), Some(2), "{}", text(&bad.stderr));
}
