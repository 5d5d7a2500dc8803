//! A real `svc` process on a test database, for the suites that run
//! several (`workers`, `scale_out`): inherited `SVC_*` variables cleared,
//! stdout dropped, stderr kept line by line; killed on drop.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use svc_storage::testing::TestDb;

use crate::binary::svc;

/// How long a process may take to print a line the test waits for (its
/// start-up on a busy machine, migrations included).
const LINE_DEADLINE: Duration = Duration::from_secs(60);

/// A process's stderr so far, and whether it has ended.
#[derive(Default)]
struct Output {
    lines: Mutex<(Vec<String>, bool)>,
    grew: Condvar,
}

pub struct SvcProcess {
    child: Child,
    output: Arc<Output>,
    /// How many lines [`SvcProcess::wait_line`] has looked at.
    cursor: Mutex<usize>,
}

impl SvcProcess {
    /// Starts `svc ARGS` on `db` (its URL, its master key, private networks
    /// allowed, `RUST_LOG=info`), with `env` on top. `SVC_TEST_CHROMIUM`,
    /// when set, is the browser (`SVC_CHROMIUM`).
    pub fn start(db: &TestDb, args: &[&str], env: &[(&str, &str)]) -> SvcProcess {
        // In a folder of no consequence: nothing is written there (the master
        // key is SVC_SECRET_KEY, the database PostgreSQL).
        let mut command = svc(&std::env::temp_dir());
        if let Some(chromium) = std::env::var_os("SVC_TEST_CHROMIUM").filter(|c| !c.is_empty()) {
            command.env("SVC_CHROMIUM", chromium);
        }
        command
            .env("SVC_DATABASE_URL", &db.url)
            .env("SVC_SECRET_KEY", db.key().to_base64())
            .env("SVC_ALLOW_PRIVATE_NETWORKS", "true")
            .env("RUST_LOG", "info")
            .env("NO_COLOR", "1")
            .envs(env.iter().copied())
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let mut child = command.spawn().expect("spawn svc");
        let output = Arc::new(Output::default());
        let pipe = child.stderr.take().unwrap();
        let kept = output.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(pipe).lines() {
                let Ok(line) = line else { break };
                kept.lines.lock().unwrap().0.push(line);
                kept.grew.notify_all();
            }
            kept.lines.lock().unwrap().1 = true;
            kept.grew.notify_all();
        });
        SvcProcess { child, output, cursor: Mutex::new(0) }
    }

    /// `svc worker --id ID` on `db`; returns once it says it has started.
    pub fn worker(db: &TestDb, id: &str, env: &[(&str, &str)]) -> SvcProcess {
        let worker = SvcProcess::start(db, &["worker", "--id", id], env);
        worker.wait_line(|l| l.starts_with(&format!("svc: worker for container `{id}` (database: postgres)")));
        worker
    }

    /// Waits for `svc server`'s line `svc: listening on http://ADDR (database: postgres)`;
    /// returns `http://ADDR`.
    pub fn listening(&self) -> String {
        const PREFIX: &str = "svc: listening on http://";
        self.wait_line(|l| l.starts_with(PREFIX) && l.ends_with("(database: postgres)"));
        let lines = self.lines();
        let line = lines.iter().rev().find(|l| l.starts_with(PREFIX)).expect("the line just seen");
        let address: SocketAddr = line[PREFIX.len()..].split(' ').next().unwrap().parse().expect("an address");
        format!("http://{address}")
    }

    /// Waits (with a deadline) for a stderr line after the ones already
    /// looked at that `matches`; returns the lines before it.
    pub fn wait_line(&self, matches: impl Fn(&str) -> bool) -> Vec<String> {
        let deadline = Instant::now() + LINE_DEADLINE;
        let mut cursor = self.cursor.lock().unwrap();
        let mut seen = Vec::new();
        let mut output = self.output.lines.lock().unwrap();
        loop {
            while let Some(line) = output.0.get(*cursor) {
                *cursor += 1;
                if matches(line) {
                    return seen;
                }
                seen.push(line.clone());
            }
            let left = deadline.saturating_duration_since(Instant::now());
            assert!(!output.1 && !left.is_zero(), "no such line; stderr so far:\n{}", seen.join("\n"));
            output = self.output.grew.wait_timeout(output, left).unwrap().0;
        }
    }

    /// Every stderr line so far.
    pub fn lines(&self) -> Vec<String> {
        self.output.lines.lock().unwrap().0.clone()
    }

    pub fn signal(&self, signal: &str) {
        let sent = Command::new("kill").arg(format!("-{signal}")).arg(self.child.id().to_string()).status().unwrap();
        assert!(sent.success(), "kill -{signal}");
    }

    /// Waits (with a deadline) for the process to exit.
    pub fn exited(&mut self) -> ExitStatus {
        let deadline = Instant::now() + LINE_DEADLINE;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(Instant::now() < deadline, "svc did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for SvcProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
