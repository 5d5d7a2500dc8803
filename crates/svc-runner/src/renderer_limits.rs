//! The memory and CPU caps of a page's renderer process.
//!
//! V8's heap flag (`--max-old-space-size`, browser.rs) caps a page's
//! JavaScript objects, but not what lives outside that heap: array
//! buffers, images, canvases. So while a browser runs, its renderers are
//! read from `/proc` a few times a second, and a renderer over
//! [`RENDERER_MEMORY_CAP`] is killed: its page crashes, and the run in it
//! fails with that (chromium.rs), while other runs, each in its own
//! context and renderer, go on.
//!
//! A renderer serves one run at a time (a page left for its scrap's next
//! run waits idle, warm_pages.rs), so one that has used more CPU since it
//! was last idle than the longest run may last is one whose run timed out
//! while its script kept going (`while (true) {}`): Chromium's full browser
//! keeps such a renderer spinning after its context is disposed. It is
//! killed too. (Runs of one scrap back to back with no idle look between
//! them count as one stretch: a renderer busy without a pause for that long
//! is killed as well, and the run in it fails as crashed.)

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// The most resident memory a renderer may use.
pub const RENDERER_MEMORY_CAP: u64 = 1024 * 1024 * 1024;
/// How often the renderers are looked at.
pub const INTERVAL: Duration = Duration::from_millis(200);

/// The CPU a renderer may use: half again the longest run timeout seen
/// (`longest_run_ms`), and 10 s.
pub fn cpu_cap(longest_run_ms: u64) -> Duration {
    Duration::from_millis(longest_run_ms.saturating_mul(3) / 2) + Duration::from_secs(10)
}

/// At most this much CPU between two looks, and a renderer counts as idle.
pub const IDLE_SLACK: Duration = Duration::from_millis(10);

/// What the watch remembers of a renderer between looks: its CPU time at
/// the last look, and at the last look that found it idle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Track {
    last: Duration,
    idle_at: Duration,
}

impl Track {
    /// The renderer's record after a look that found `cpu` used in all. A
    /// renderer seen for the first time has been busy since it started.
    pub fn after(previous: Option<Track>, cpu: Duration) -> Track {
        match previous {
            None => Track { last: cpu, idle_at: Duration::ZERO },
            Some(t) if cpu.saturating_sub(t.last) <= IDLE_SLACK => Track { last: cpu, idle_at: cpu },
            Some(t) => Track { last: cpu, idle_at: t.idle_at },
        }
    }

    /// The CPU it has used since it was last idle.
    pub fn busy(&self) -> Duration {
        self.last.saturating_sub(self.idle_at)
    }
}

/// What a renderer is using.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Usage {
    /// Resident memory, in bytes.
    pub rss: u64,
    /// User and system CPU time since it was last idle.
    pub cpu: Duration,
}

/// Why a renderer is to be killed, if it is.
pub fn over_cap(usage: Usage, longest_run_ms: u64) -> Option<&'static str> {
    if usage.rss > RENDERER_MEMORY_CAP {
        Some("over its memory cap")
    } else if usage.cpu > cpu_cap(longest_run_ms) {
        Some("still running past its run's timeout")
    } else {
        None
    }
}

/// Watches the renderers of the browser process `browser` until the task
/// is aborted; `longest_run_ms` is the longest run timeout the engine has
/// been given.
pub async fn watch(browser: u32, longest_run_ms: Arc<AtomicU64>) {
    let mut ticker = tokio::time::interval(INTERVAL);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut tracks: HashMap<u32, Track> = HashMap::new();
    loop {
        ticker.tick().await;
        let longest = longest_run_ms.load(Ordering::Relaxed);
        let seen = renderers(browser);
        // Renderers gone since the last look are forgotten (a pid may come back).
        tracks.retain(|pid, _| seen.iter().any(|(p, _)| p == pid));
        for (pid, total) in seen {
            let track = Track::after(tracks.get(&pid).copied(), total.cpu);
            tracks.insert(pid, track);
            let usage = Usage { cpu: track.busy(), ..total };
            if let Some(why) = over_cap(usage, longest) {
                tracing::warn!(
                    renderer = pid,
                    rss_mib = usage.rss >> 20,
                    cpu_s = usage.cpu.as_secs(),
                    "a page's renderer is {why}; killing it"
                );
                let _ =
                    nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid as i32), nix::sys::signal::Signal::SIGKILL);
            }
        }
    }
}

/// The renderer processes under `browser` (children, and their children:
/// renderers are started by a zygote), with what they use (`cpu`: since
/// they started).
pub fn renderers(browser: u32) -> Vec<(u32, Usage)> {
    let mut found = Vec::new();
    let mut parents = vec![browser];
    // Browser → zygotes → renderers: three levels are enough; four for slack.
    for _ in 0..4 {
        let children: Vec<u32> = parents.iter().flat_map(|pid| children(*pid)).collect();
        if children.is_empty() {
            break;
        }
        for child in &children {
            if is_renderer(*child)
                && let (Some(rss), Some(cpu)) = (resident_bytes(*child), cpu_time(*child))
            {
                found.push((*child, Usage { rss, cpu }));
            }
        }
        parents = children;
    }
    found
}

/// The children of every thread of `pid`.
fn children(pid: u32) -> Vec<u32> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else { return Vec::new() };
    tasks
        .flatten()
        .filter_map(|task| std::fs::read_to_string(task.path().join("children")).ok())
        .flat_map(|list| list.split_whitespace().filter_map(|p| p.parse().ok()).collect::<Vec<u32>>())
        .collect()
}

/// A zygote-started process rewrites its command line as one string, so
/// its arguments are separated by spaces as well as NULs.
fn is_renderer(pid: u32) -> bool {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .is_ok_and(|cmdline| cmdline.split(|b| *b == 0 || *b == b' ').any(|arg| arg == b"--type=renderer"))
}

/// `VmRSS` of `/proc/<pid>/status`, in bytes.
fn resident_bytes(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    parse_rss(&status)
}

/// User and system time of `/proc/<pid>/stat` (in the kernel's fixed 100
/// ticks a second).
fn cpu_time(pid: u32) -> Option<Duration> {
    parse_cpu(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

fn parse_cpu(stat: &str) -> Option<Duration> {
    // After the command name in parentheses: state is field 3, utime 14, stime 15.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    Some(Duration::from_millis(ticks * 10))
}

fn parse_rss(status: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resident_memory_is_read_from_the_status() {
        let status = "Name:\tchromium\nVmPeak:\t 9000 kB\nVmRSS:\t  123456 kB\nRssAnon:\t 1 kB\n";
        assert_eq!(parse_rss(status), Some(123456 * 1024));
        assert_eq!(parse_rss("Name:\tkthreadd\n"), None, "a kernel thread has no VmRSS");
    }

    #[test]
    fn cpu_time_is_read_from_the_stat() {
        let stat = "4138 (chromium (x) y) R 4108 1 1 0 -1 4194560 100 0 0 0 250 51 0 0 20 0 9 0 1 2 3";
        assert_eq!(parse_cpu(stat), Some(Duration::from_millis(3010)));
        assert_eq!(parse_cpu("garbage"), None);
    }

    #[test]
    fn a_renderer_is_killed_over_either_cap() {
        let mib = |n: u64| n * 1024 * 1024;
        let usage = |rss, cpu| Usage { rss, cpu: Duration::from_secs(cpu) };
        // A 10 s run timeout: 25 s of CPU.
        assert_eq!(cpu_cap(10_000), Duration::from_secs(25));
        assert_eq!(over_cap(usage(mib(300), 20), 10_000), None);
        assert_eq!(over_cap(usage(mib(1025), 1), 10_000), Some("over its memory cap"));
        assert_eq!(over_cap(usage(mib(300), 26), 10_000), Some("still running past its run's timeout"));
        assert_eq!(over_cap(usage(mib(300), 26), 60_000), None);
    }

    #[test]
    fn cpu_counts_from_the_last_idle_look() {
        let ms = Duration::from_millis;
        // First seen after 3 s of work: busy 3 s (a fresh renderer's whole life).
        let t = Track::after(None, ms(3000));
        assert_eq!(t.busy(), ms(3000));
        // Then idle (10 ms in a look at most): nothing counts from before.
        let t = Track::after(Some(t), ms(3010));
        assert_eq!(t.busy(), ms(0));
        // A next run's work counts from there, across looks.
        let t = Track::after(Some(t), ms(3200));
        let t = Track::after(Some(t), ms(3400));
        assert_eq!(t.busy(), ms(390));
        // A spinning renderer is never idle: its busy time only grows.
        let mut t = t;
        for step in 1..=100 {
            t = Track::after(Some(t), ms(3400 + step * 200));
        }
        assert_eq!(t.busy(), ms(20_390));
        assert_eq!(
            over_cap(Usage { rss: 0, cpu: Duration::from_secs(26) }, 10_000),
            Some("still running past its run's timeout")
        );
    }

    #[test]
    fn a_process_without_renderers_has_none() {
        // This test process starts no browser.
        assert_eq!(renderers(std::process::id()), vec![]);
        assert_eq!(resident_bytes(std::process::id()).map(|b| b > 0), Some(true));
    }
}
