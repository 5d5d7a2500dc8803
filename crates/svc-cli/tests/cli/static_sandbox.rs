//! The static engine's sandbox processes of a real `svc server` (started
//! through its hidden `svc sandbox`), seen from outside through `/proc`:
//! nothing of svc's environment, seccomp on, the browser user, and gone
//! when svc is killed (docs/engines.md, "`static`").

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::binary::{Server, kill, sqlite_url, svc, target_site};
use crate::browser_process::{alive, command_line, descendants};

const CANARY_SECRET: &str = "canary-jwt-secret-5b1e7d3a9c2f4e6a8b0d";

#[tokio::test]
async fn static_sandbox_processes_hold_no_secret_and_die_with_a_killed_svc() {
    let dir = tempfile::tempdir().unwrap();
    let target = target_site();
    let mut command = svc(dir.path());
    command
        .env("SVC_DATABASE_URL", sqlite_url(dir.path()))
        .env("SVC_LISTEN", "127.0.0.1:0")
        .env("SVC_ALLOW_PRIVATE_NETWORKS", "true")
        .env("SVC_JWT_SECRET", CANARY_SECRET);
    let server = Server::start(command);
    let http = reqwest::Client::new();
    let post = |path: String, token: Option<&str>, body: Value| {
        let mut request = http.post(format!("{}{path}", server.base)).json(&body);
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        async move { request.send().await.unwrap().json::<Value>().await.unwrap() }
    };
    let signup =
        post("/api/auth/signup".into(), None, json!({"email": "s@example.com", "password": "password-123"})).await;
    let token = signup["token"].as_str().unwrap().to_string();
    let items = "returnData([...document.querySelectorAll('li')].map(li => li.textContent))";
    let scrap = post(
        "/api/scraps".into(),
        Some(&token),
        json!({"title": "Items", "url": target, "scrapper": "static", "request": items}),
    )
    .await;
    let sid = scrap["id"].as_str().unwrap_or_else(|| panic!("{scrap}"));
    let row = post(format!("/api/scraps/worker/{sid}?wait=60"), Some(&token), Value::Null).await;
    assert_eq!(row["statusDetail"], "success", "a static run: {row}");

    // The run's process stays for the organization's next run.
    let sandboxes: Vec<u32> = descendants(server.pid())
        .into_iter()
        .filter(|&pid| command_line(pid).starts_with("svc-static-sandbox sandbox"))
        .collect();
    assert!(!sandboxes.is_empty(), "a sandbox process below svc");
    let root = std::fs::read_to_string("/proc/self/status").unwrap().contains("\nUid:\t0\t");
    for &pid in &sandboxes {
        let environ = std::fs::read(format!("/proc/{pid}/environ")).expect("root reads any environment");
        assert!(environ.is_empty(), "process {pid} has an environment: {}", String::from_utf8_lossy(&environ));
        // A spare may still be starting: it locks down at the end of its start-up.
        let locked_down = Instant::now() + Duration::from_secs(15);
        let status = loop {
            let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
            if status.contains("\nSeccomp:\t2\n") || Instant::now() >= locked_down {
                break status;
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        assert!(status.contains("\nSeccomp:\t2\n"), "{status}");
        assert!(status.contains("\nNoNewPrivs:\t1\n"), "{status}");
        if root {
            assert!(!status.contains("\nUid:\t0\t"), "not root: {status}");
        }
    }

    kill(server.pid(), "KILL");
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let left: Vec<u32> = sandboxes.iter().copied().filter(|&pid| alive(pid)).collect();
        if left.is_empty() {
            break;
        }
        assert!(Instant::now() < deadline, "sandbox processes outlived a killed svc: {left:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
}
