//! The sandbox processes seen from outside (`/proc`) and from a script
//! (`__svcProbe`, compiled into this test binary only): what they hold,
//! what they may do, which runs they serve, and that they end.

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use serde_json::Value;
use svc_domain::OrgId;
use svc_engine::{Engine, EngineReport, RunJob, ScriptResult};
use svc_static::{StaticConfig, StaticEngine};

use crate::dom_api::job;
use crate::site;

fn engine() -> StaticEngine {
    StaticEngine::new(StaticConfig { allow_private_networks: true.into(), ..Default::default() })
}

fn for_org(mut job: RunJob, organization: Option<OrgId>) -> RunJob {
    job.organization = organization;
    job
}

fn data(report: &EngineReport) -> Value {
    match &report.result {
        ScriptResult::Data { json, .. } => serde_json::from_str(json).unwrap(),
        ScriptResult::Failed { message } => panic!("the run failed: {message}"),
    }
}

/// A process's `/proc/<pid>/status` lines, by name.
fn status(pid: u32) -> HashMap<String, String> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("the process is there");
    text.lines().filter_map(|l| l.split_once(':')).map(|(k, v)| (k.to_string(), v.trim().to_string())).collect()
}

/// Present and not a zombie.
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| s.rsplit_once(')').map(|(_, rest)| rest.trim_start().chars().next()))
        .is_some_and(|state| state != Some('Z'))
}

/// Waits until none of `pids` is alive, failing after `within`.
async fn all_gone(pids: &HashSet<u32>, within: Duration) {
    let deadline = Instant::now() + within;
    loop {
        let left: Vec<u32> = pids.iter().copied().filter(|&p| alive(p)).collect();
        if left.is_empty() {
            return;
        }
        assert!(Instant::now() < deadline, "sandbox processes still alive: {left:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// From outside: no environment, only the channel and /dev/null as
/// descriptors, seccomp in filter mode with `no_new_privs`, the browser
/// user when the tests run as root, a child of this process. From the
/// script: the environment, a file, a socket, a new process and a signal
/// to another process are all refused.
#[tokio::test]
async fn a_sandbox_process_holds_nothing_and_may_do_nothing_but_its_run() {
    let site = site::start().await;
    let e = engine();
    let script = r#"returnData(['pid', 'environ', 'open', 'socket', 'spawn', 'kill'].map(__svcProbe))"#;
    let org = Some(OrgId::new());
    let got = data(&e.run(for_org(job(&format!("{}/items/1", site.base), script), org)).await);
    let got: Vec<&str> = got.as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    let pid: u32 = got[0].strip_prefix("ok: ").unwrap().parse().unwrap();
    for (probe, outcome) in ["environ", "open", "socket", "spawn", "kill"].iter().zip(&got[1..]) {
        assert!(outcome.starts_with("denied: Operation not permitted"), "{probe}: {outcome}");
    }

    assert!(e.sandbox_processes().contains(&pid), "kept for the organization's next run");
    let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap();
    assert!(environ.is_empty(), "{}", String::from_utf8_lossy(&environ));
    let status = status(pid);
    assert_eq!(status["Seccomp"], "2", "filter mode");
    assert_eq!(status["NoNewPrivs"], "1");
    assert_eq!(status["PPid"], std::process::id().to_string());
    if nix_is_root() {
        let nobody = nix::unistd::User::from_name("nobody").unwrap().expect("a nobody user");
        let uid = nobody.uid.as_raw().to_string();
        assert!(status["Uid"].split_whitespace().all(|u| u == uid), "runs as nobody: {}", status["Uid"]);
    }
    let mut fds: Vec<(u32, String)> = std::fs::read_dir(format!("/proc/{pid}/fd"))
        .unwrap()
        .flatten()
        .map(|f| {
            let fd = f.file_name().to_string_lossy().parse().unwrap();
            (fd, std::fs::read_link(f.path()).unwrap().display().to_string())
        })
        .collect();
    fds.sort();
    let names: Vec<&str> = fds.iter().map(|(_, target)| target.as_str()).collect();
    assert_eq!(fds.iter().map(|(fd, _)| *fd).collect::<Vec<_>>(), [0, 1, 2, 3], "{fds:?}");
    assert_eq!(&names[..3], ["/dev/null"; 3]);
    assert!(names[3].starts_with("socket:"), "{fds:?}");
    // Scheduled after svc's own threads: NICENESS nicer than this process, at most 19.
    let nice = |pid: &str| -> i32 {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
        stat.rsplit_once(')').unwrap().1.split_whitespace().nth(16).unwrap().parse().unwrap()
    };
    let expected = (nice("self") + svc_static::sandbox::launch::NICENESS).min(19);
    assert_eq!(nice(&pid.to_string()), expected, "the sandbox process's niceness");
    let limits = std::fs::read_to_string(format!("/proc/{pid}/limits")).unwrap();
    let core = limits.lines().find(|l| l.starts_with("Max core file size")).unwrap();
    assert!(core.split_whitespace().nth(4) == Some("0"), "{core}");

    drop(e);
    all_gone(&HashSet::from([pid]), Duration::from_secs(10)).await;
}

fn nix_is_root() -> bool {
    nix::unistd::geteuid().is_root()
}

/// The tenancy rule over 100 runs: runs of one organization may share a
/// process, runs of two never do, a run without an organization has one of
/// its own; a process is either waiting for its organization's next run or
/// gone, and once the engine is gone, so is every process.
#[tokio::test]
async fn a_hundred_runs_share_processes_within_an_organization_only_and_leave_none() {
    let site = site::start().await;
    let e = engine();
    let orgs = [Some(OrgId::new()), Some(OrgId::new()), Some(OrgId::new()), None];
    let url = format!("{}/items/3", site.base);
    let mut served: HashMap<Option<OrgId>, Vec<u32>> = HashMap::new();
    for i in 0..100 {
        let org = orgs[i % orgs.len()];
        let report = e.run(for_org(job(&url, "returnData([__svcProbe('pid')])"), org)).await;
        let pid: u32 = data(&report)[0].as_str().unwrap().strip_prefix("ok: ").unwrap().parse().unwrap();
        served.entry(org).or_default().push(pid);
    }
    let sets: HashMap<Option<OrgId>, HashSet<u32>> =
        served.iter().map(|(org, pids)| (*org, pids.iter().copied().collect())).collect();
    for (a, pa) in &sets {
        for (b, pb) in &sets {
            if a != b {
                assert!(pa.is_disjoint(pb), "{a:?} and {b:?} shared a process");
            }
        }
    }
    assert_eq!(sets[&None].len(), served[&None].len(), "a run without an organization has a process of its own");
    assert!(sets[&orgs[0]].len() < 25, "an organization's runs reuse its process: {:?}", sets[&orgs[0]]);

    // Every process that served a run is waiting for its organization's next one, or gone.
    let waiting: HashSet<u32> = e.sandbox_processes().into_iter().collect();
    assert!(waiting.len() <= 17, "16 idle at most, and one spare: {waiting:?}");
    let mut every: HashSet<u32> = sets.values().flatten().copied().collect();
    all_gone(&every.difference(&waiting).copied().collect(), Duration::from_secs(10)).await;
    every.extend(waiting);
    drop(e);
    all_gone(&every, Duration::from_secs(10)).await;
}

/// A process serves one organization's runs one after the other, and no
/// JavaScript state of a run reaches the next: a run that changes globals,
/// builtins' and the DOM's prototypes, the clock, and leaves a timer and a
/// promise job behind, then a run of another scrap of the same organization
/// in the same process, which finds everything as a first run does.
#[tokio::test]
async fn nothing_of_a_run_is_visible_to_the_next_run_in_its_process() {
    let site = site::start().await;
    let e = engine();
    let org = Some(OrgId::new());
    let spoil = r#"
        globalThis.leak = "run 1";
        var declared = "run 1";
        Object.prototype.leak = "run 1";
        Array.prototype.leak = "run 1";
        Element.prototype.leak = "run 1";
        Node.prototype.leak = "run 1";
        Object.defineProperty(document, "leak", { value: "run 1" });
        document.body.leak = "run 1";
        String.prototype.trim = () => "run 1";
        Date.now = () => 42;
        Math.random = () => 0.5;
        window.name = "run 1";
        setTimeout(() => { globalThis.timerLeak = "run 1"; }, 0);
        setInterval(() => { globalThis.intervalLeak = "run 1"; }, 1);
        returnData([__svcProbe('pid')]);
        Promise.resolve().then(() => { globalThis.lateLeak = "run 1"; });
    "#;
    let check = r#"
        const seen = {
            global: typeof leak, declared: typeof declared, timer: typeof timerLeak, interval: typeof intervalLeak,
            late: typeof lateLeak, object: ({}).leak, array: [].leak, element: Element.prototype.leak,
            node: Node.prototype.leak, body: document.body.leak, document: document.leak,
            trim: " x ".trim(), now: Date.now() === 42, random: Math.random() === 0.5 && Math.random() === 0.5,
            name: window.name ?? null,
        };
        returnData([__svcProbe('pid'), seen]);
    "#;
    let first = data(&e.run(for_org(job(&format!("{}/items/3", site.base), spoil), org)).await);
    let second = data(&e.run(for_org(job(&format!("{}/items/5", site.base), check), org)).await);
    assert_eq!(first[0], second[0], "the same process served both runs");
    let clean = serde_json::json!({
        "global": "undefined", "declared": "undefined", "timer": "undefined", "interval": "undefined",
        "late": "undefined", "trim": "x", "now": false, "random": false,
    });
    let mut seen = second[1].clone();
    let name = seen.as_object_mut().unwrap().remove("name");
    assert_eq!(seen, clean, "undefined properties are left out of the JSON");
    assert_ne!(name, Some(serde_json::json!("run 1")));
}

/// The realm a run starts from is built once per process and copied back
/// before each run: a run in a kept process still reads its own page
/// (`location`, `document.URL`, its nodes, its encoding), and its
/// `Math.random` is seeded for it: not the numbers of the run before, nor
/// those of another process's first run.
#[tokio::test]
async fn a_kept_process_shows_each_run_its_own_page_and_fresh_randomness() {
    let site = site::start().await;
    let e = engine();
    let org = Some(OrgId::new());
    let look = r#"returnData([__svcProbe('pid'), location.href, document.URL, document.characterSet,
        document.querySelectorAll('li').length, document.querySelector('li:last-child').textContent,
        [Math.random(), Math.random(), Math.random()], performance.now() >= 0])"#;
    let mut seen = Vec::new();
    for path in ["items/3", "items/5", "items/3"] {
        seen.push(data(&e.run(for_org(job(&format!("{}/{path}", site.base), look), org)).await));
    }
    assert!(seen.iter().all(|s| s[0] == seen[0][0]), "one process served the three runs: {seen:?}");
    for (s, (path, count)) in seen.iter().zip([("items/3", 3), ("items/5", 5), ("items/3", 3)]) {
        let url = format!("{}/{path}", site.base);
        assert_eq!((&s[1], &s[2], &s[3]), (&Value::from(url.clone()), &Value::from(url), &Value::from("UTF-8")));
        assert_eq!(s[4], count, "{s:?}");
        assert_eq!(s[5], format!("Item {}", count - 1));
        assert_eq!(s[7], true);
    }
    // And the first run of another process (another organization's).
    let other = data(&e.run(for_org(job(&format!("{}/items/3", site.base), look), Some(OrgId::new()))).await);
    assert_ne!(other[0], seen[0][0]);
    let randoms: HashSet<String> = seen.iter().chain([&other]).map(|s| s[6].to_string()).collect();
    assert_eq!(randoms.len(), 4, "each run has its own random numbers: {randoms:?}");
}

/// A run stopped by its deadline (in the middle of its script) or by its
/// memory cap leaves nothing for the next run of its process, and the cap
/// holds again for the run after.
#[tokio::test]
async fn a_run_stopped_by_its_deadline_or_its_memory_leaves_the_next_run_a_clean_realm() {
    let site = site::start().await;
    let e = engine();
    let org = Some(OrgId::new());
    let url = format!("{}/items/3", site.base);
    let check = r#"returnData([__svcProbe('pid'), typeof spoiled, [].spoiled ?? null,
        [...document.querySelectorAll('li')].map(li => li.textContent)])"#;
    let clean = |report: &EngineReport| {
        let seen = data(report);
        let items = serde_json::json!(["Item 0", "Item 1", "Item 2"]);
        assert_eq!(seen.as_array().unwrap()[1..], [Value::from("undefined"), Value::Null, items]);
        seen[0].clone()
    };
    let mut stop = for_org(job(&url, "globalThis.spoiled = 1; Array.prototype.spoiled = 1; for (;;) {}"), org);
    stop.timeout = Duration::from_secs(1);
    let stopped = e.run(stop).await;
    assert!(crate::engine_runs::error(&stopped).contains("timed out"), "{:?}", stopped.result);
    clean(&e.run(for_org(job(&url, check), org)).await);

    let exhaust = "globalThis.spoiled = 1; Array.prototype.spoiled = 1; const a = []; for (;;) a.push('x'.repeat(1e6) + a.length);";
    let first = e.run(for_org(job(&url, exhaust), org)).await;
    assert!(crate::engine_runs::error(&first).contains("out of memory"), "{:?}", first.result);
    let pid = clean(&e.run(for_org(job(&url, check), org)).await);
    let again = e.run(for_org(job(&url, exhaust), org)).await;
    assert!(crate::engine_runs::error(&again).contains("out of memory"), "the cap holds again: {:?}", again.result);
    assert_eq!(clean(&e.run(for_org(job(&url, check), org)).await), pid, "the same process served them");
}

/// A run whose script names `Intl` starts from the realm's copy with its
/// module read: what a run before changed in it is gone, a script that
/// reaches `Intl` without naming it still has it, and `Intl` is still the
/// accessor the realm's shape records until a script reads it.
#[tokio::test]
async fn intl_is_there_read_ahead_or_not_and_clean_in_every_run() {
    let site = site::start().await;
    let e = engine();
    let org = Some(OrgId::new());
    let url = format!("{}/items/3", site.base);
    let spoil = r#"Intl.NumberFormat.prototype.format = () => "spoiled";
        Number.prototype.toLocaleString = () => "spoiled";
        returnData([__svcProbe('pid'), (1234.5).toLocaleString('de-DE')])"#;
    let named = r#"returnData([__svcProbe('pid'), typeof Object.getOwnPropertyDescriptor(globalThis, "Intl").get,
        new Intl.NumberFormat('de-DE').format(1234.5), (1234.5).toLocaleString('en-US'), 'b'.localeCompare('a')])"#;
    let unnamed = r#"const I = globalThis['In' + 'tl'];
        returnData([__svcProbe('pid'), "function", new I.NumberFormat('de-DE').format(1234.5), (1234.5)['toLocale' + 'String']('en-US'), 1])"#;
    let first = data(&e.run(for_org(job(&url, spoil), org)).await);
    assert_eq!(first[1], "spoiled");
    for script in [named, unnamed, named] {
        let seen = data(&e.run(for_org(job(&url, script), org)).await);
        assert_eq!(seen[0], first[0], "one process served every run");
        assert_eq!(
            seen.as_array().unwrap()[1..],
            [Value::from("function"), "1.234,5".into(), "1,234.5".into(), 1.into()]
        );
    }
}

/// A selector whose matching takes minutes in native code (`:has` with a
/// sibling chain over 2,000 siblings: cubic), which the script's interrupt
/// cannot stop: the run
/// ends at its timeout, and the process that ran it is killed and reaped.
#[tokio::test]
async fn a_selector_spinning_in_native_code_ends_at_the_timeout_with_its_process() {
    let site = site::start().await;
    let e = engine();
    let org = Some(OrgId::new());
    let url = format!("{}/items/2000", site.base);
    let report = e.run(for_org(job(&url, "returnData([__svcProbe('pid')])"), org)).await;
    let pid: u32 = data(&report)[0].as_str().unwrap().strip_prefix("ok: ").unwrap().parse().unwrap();

    let mut spin = for_org(job(&url, "returnData([document.querySelectorAll('li:has(~ b ~ li)').length])"), org);
    spin.timeout = Duration::from_secs(2);
    let report = e.run(spin).await;
    match &report.result {
        ScriptResult::Failed { message } => assert_eq!(message, "timed out after 2 s"),
        other => panic!("the selector finished: {other:?}"),
    }
    assert!(report.snapshot.unwrap()["html"].as_str().unwrap().contains("Item 1999"), "the page, for the snapshot");
    all_gone(&HashSet::from([pid]), Duration::from_secs(10)).await;
    assert!(!e.sandbox_processes().contains(&pid));

    // The organization's next run has a new process.
    let report = e.run(for_org(job(&url, "returnData([__svcProbe('pid')])"), org)).await;
    assert_ne!(data(&report)[0], format!("ok: {pid}"));
}
