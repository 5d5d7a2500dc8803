//! The static engine's sandbox processes of a real `svc server` (started
//! through its hidden `svc sandbox`), seen from outside through `/proc`:
//! nothing of svc's environment, seccomp on, the browser user, and gone
//! when svc is killed (docs/engines.md, "`static`").

use std::time::{Duration, Instant};

use crate::binary::{kill, target_site};
use crate::browser_process::{alive, command_line, descendants, server_after_a_run};

const CANARY_SECRET: &str = "canary-jwt-secret-5b1e7d3a9c2f4e6a8b0d";

#[tokio::test]
async fn static_sandbox_processes_hold_no_secret_and_die_with_a_killed_svc() {
    let dir = tempfile::tempdir().unwrap();
    let target = target_site();
    let server = server_after_a_run(dir.path(), &target, "s@example.com", "static", CANARY_SECRET).await;

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
