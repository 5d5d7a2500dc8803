//! Sampling the Chromium processes under a root process (Linux, /proc):
//! peak memory (RSS every 100 ms, PSS every second) per label, process
//! kinds, and CPU time split by process kind, for the benchmark reports.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
#[derive(Clone, Copy, Default)]
pub struct MemPeak {
    pub pss_kib: u64,
    pub rss_kib: u64,
    pub processes: usize,
}

#[derive(Default)]
pub struct SamplerState {
    pub label: Option<String>,
    pub root: u32,
    pub peaks: BTreeMap<String, MemPeak>,
    /// Chromium processes seen, by kind, per label (more than one browser
    /// means the browser was replaced during the phase; renderers are one
    /// or more per run).
    pub kinds: BTreeMap<String, HashMap<u32, String>>,
    /// At each label's peak PSS: processes and their PSS by kind.
    pub at_peak: BTreeMap<String, BTreeMap<String, (usize, Pss)>>,
    /// Sampling passes made and the time they took (the sampler's own cost).
    pub passes: u64,
    pub pass_ms: f64,
    /// CPU time of the sampler thread, ms.
    pub cpu_ms: f64,
}

/// Samples the Chromium processes under a root process every 100 ms and keeps
/// the peak summed PSS and RSS per label.
pub struct Sampler {
    pub state: Arc<Mutex<SamplerState>>,
    pub stop: Arc<AtomicBool>,
    pub thread: Option<std::thread::JoinHandle<()>>,
}

pub fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after = &stat[stat.rfind(')')? + 2..];
    after.split_whitespace().nth(1)?.parse().ok()
}

pub fn descendants(root: u32) -> Vec<u32> {
    let mut children: HashMap<u32, Vec<u32>> = HashMap::new();
    if let Ok(dir) = std::fs::read_dir("/proc") {
        for entry in dir.flatten() {
            if let Some(pid) = entry.file_name().to_str().and_then(|s| s.parse::<u32>().ok())
                && let Some(ppid) = parent_of(pid)
            {
                children.entry(ppid).or_default().push(pid);
            }
        }
    }
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(pid) = stack.pop() {
        if let Some(kids) = children.get(&pid) {
            out.extend(kids);
            stack.extend(kids);
        }
    }
    out
}

pub fn is_chromium(pid: u32) -> bool {
    std::fs::read_link(format!("/proc/{pid}/exe"))
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().contains("chrom")))
        .unwrap_or(false)
}

/// What a Chromium process is, from its command line; `None` for one that
/// has exited (a zombie has no command line). `root` started the browser.
pub fn process_kind(pid: u32, root: u32) -> Option<String> {
    let exe = std::fs::read_link(format!("/proc/{pid}/exe")).ok()?;
    if exe.to_string_lossy().contains("crashpad") {
        return Some("crashpad handler".into());
    }
    // Child processes rewrite their title: the arguments are then one string.
    let cmdline = String::from_utf8_lossy(&std::fs::read(format!("/proc/{pid}/cmdline")).ok()?).replace('\0', " ");
    let args: Vec<&str> = cmdline.split_whitespace().collect();
    if args.is_empty() {
        return None;
    }
    let value = |name: &str| args.iter().find_map(|a| a.strip_prefix(name).map(str::to_string));
    Some(match value("--type=").as_deref() {
        None if parent_of(pid) == Some(root) => "browser".into(),
        // A child the browser forked that has not yet become what it will be.
        None => "starting child".into(),
        Some("renderer") if args.contains(&"--top-chrome-webui") => "renderer (top-chrome WebUI)".into(),
        Some("utility") => format!("utility ({})", value("--utility-sub-type=").unwrap_or_default()),
        Some(other) => other.to_string(),
    })
}

/// CPU time of the calling thread, ms.
pub fn thread_cpu_ms() -> f64 {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").unwrap_or_default();
    let Some(close) = stat.rfind(')') else { return 0.0 };
    let f: Vec<u64> = stat[close + 2..].split_whitespace().skip(11).take(2).filter_map(|x| x.parse().ok()).collect();
    f.iter().sum::<u64>() as f64 * 10.0
}

/// RSS in KiB, from `statm` (cheap to read).
pub fn rss_of(pid: u32) -> Option<u64> {
    let statm = std::fs::read_to_string(format!("/proc/{pid}/statm")).ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4)
}

/// PSS is read (from `smaps_rollup`, which walks the page tables) on every
/// PSS_EVERY-th pass only; RSS on every pass.
pub const PSS_EVERY: u64 = 10;

/// A process's PSS in KiB, whole and split by what backs the pages:
/// anonymous memory (heaps), files (the binary's code and data, fonts) and
/// shared memory (what a renderer shares with the compositor).
#[derive(Clone, Copy, Default, Debug)]
pub struct Pss {
    pub total: u64,
    pub anon: u64,
    pub file: u64,
    pub shmem: u64,
}

impl std::ops::AddAssign for Pss {
    fn add_assign(&mut self, other: Pss) {
        self.total += other.total;
        self.anon += other.anon;
        self.file += other.file;
        self.shmem += other.shmem;
    }
}

/// (PSS, RSS) in KiB.
pub fn memory_of(pid: u32) -> Option<(Pss, u64)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).ok()?;
    let field = |name: &str| {
        text.lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse::<u64>().ok())
    };
    let pss = Pss {
        total: field("Pss:")?,
        anon: field("Pss_Anon:").unwrap_or(0),
        file: field("Pss_File:").unwrap_or(0),
        shmem: field("Pss_Shmem:").unwrap_or(0),
    };
    Some((pss, field("Rss:")?))
}

impl Sampler {
    pub fn start() -> Sampler {
        Sampler::start_with_pss_every(PSS_EVERY)
    }

    /// A sampler that reads PSS on every `pss_every`-th pass (1: every
    /// 100 ms, as the fleet benchmark does: its phases last seconds).
    pub fn start_with_pss_every(pss_every: u64) -> Sampler {
        let pss_every = pss_every.max(1);
        let state = Arc::new(Mutex::new(SamplerState { root: std::process::id(), ..Default::default() }));
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let (state, stop) = (state.clone(), stop.clone());
            std::thread::spawn(move || {
                // Whether each process seen is Chromium's; a new process
                // reusing a pid within a run is unlikely.
                let mut chromium: HashMap<u32, bool> = HashMap::new();
                let mut passes = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    let (label, root) = {
                        let s = state.lock().unwrap();
                        (s.label.clone(), s.root)
                    };
                    if let Some(label) = label {
                        let pass = Instant::now();
                        let with_pss = passes.is_multiple_of(pss_every);
                        passes += 1;
                        let mut sum = MemPeak::default();
                        let mut seen = Vec::new();
                        let mut by_kind: BTreeMap<String, (usize, Pss)> = BTreeMap::new();
                        for pid in descendants(root) {
                            if !*chromium.entry(pid).or_insert_with(|| is_chromium(pid)) {
                                continue;
                            }
                            let Some(kind) = process_kind(pid, root) else { continue };
                            if let Some(rss) = rss_of(pid) {
                                sum.rss_kib += rss;
                                sum.processes += 1;
                            }
                            if with_pss {
                                let pss = memory_of(pid).map_or(Pss::default(), |(pss, _)| pss);
                                sum.pss_kib += pss.total;
                                let entry = by_kind.entry(kind.clone()).or_default();
                                entry.0 += 1;
                                entry.1 += pss;
                            }
                            seen.push((kind, pid));
                        }
                        let mut s = state.lock().unwrap();
                        s.passes += 1;
                        s.cpu_ms = thread_cpu_ms();
                        s.pass_ms += pass.elapsed().as_secs_f64() * 1000.0;
                        if s.label.as_deref() == Some(label.as_str()) {
                            let peak = s.peaks.entry(label.clone()).or_default();
                            let new_peak = with_pss && sum.pss_kib > peak.pss_kib;
                            peak.pss_kib = peak.pss_kib.max(sum.pss_kib);
                            peak.rss_kib = peak.rss_kib.max(sum.rss_kib);
                            peak.processes = peak.processes.max(sum.processes);
                            if new_peak {
                                s.at_peak.insert(label.clone(), by_kind);
                            }
                            // A new process first looks like its parent (a
                            // starting child, or a zygote for a renderer): its
                            // later, more precise kind replaces those.
                            let kinds = s.kinds.entry(label).or_default();
                            for (kind, pid) in seen {
                                let keep = match kinds.get(&pid).map(String::as_str) {
                                    None | Some("starting child") => false,
                                    Some("zygote") => kind == "starting child",
                                    Some(_) => true,
                                };
                                if !keep {
                                    kinds.insert(pid, kind);
                                }
                            }
                        }
                    }
                    std::thread::sleep(Duration::from_millis(100));
                }
            })
        };
        Sampler { state, stop, thread: Some(thread) }
    }

    pub fn handle(&self) -> Arc<Mutex<SamplerState>> {
        self.state.clone()
    }

    pub fn set(state: &Mutex<SamplerState>, label: Option<&str>, root: u32) {
        let mut s = state.lock().unwrap();
        s.label = label.map(str::to_string);
        s.root = root;
    }

    pub fn peak(&self, label: &str) -> MemPeak {
        self.state.lock().unwrap().peaks.get(label).copied().unwrap_or_default()
    }

    /// Passes, mean wall time of one pass (ms), CPU time of the sampler (ms).
    pub fn cost(&self) -> (u64, f64, f64) {
        let s = self.state.lock().unwrap();
        (s.passes, s.pass_ms / s.passes.max(1) as f64, s.cpu_ms)
    }

    /// Processes and PSS by kind at the label's peak PSS, as `kind count:
    /// MiB (anon a, file f, shmem s)` items.
    pub fn at_peak(&self, label: &str) -> String {
        let s = self.state.lock().unwrap();
        let Some(kinds) = s.at_peak.get(label) else { return String::new() };
        let mib = |kib: u64| kib as f64 / 1024.0;
        kinds
            .iter()
            .map(|(kind, (count, pss))| {
                format!(
                    "{kind} {count}: {:.0} MiB (anon {:.0}, file {:.0}, shmem {:.0})",
                    mib(pss.total),
                    mib(pss.anon),
                    mib(pss.file),
                    mib(pss.shmem)
                )
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Distinct processes seen per kind.
    pub fn kinds(&self, label: &str) -> BTreeMap<String, usize> {
        let s = self.state.lock().unwrap();
        let mut counts = BTreeMap::new();
        for kind in s.kinds.get(label).into_iter().flat_map(HashMap::values) {
            *counts.entry(kind.clone()).or_insert(0) += 1;
        }
        counts
    }
}

impl Drop for Sampler {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Busy and total jiffies of the whole machine.
pub fn cpu_jiffies() -> (u64, u64) {
    let stat = std::fs::read_to_string("/proc/stat").unwrap_or_default();
    let line = stat.lines().next().unwrap_or_default();
    let v: Vec<u64> = line.split_whitespace().skip(1).filter_map(|x| x.parse().ok()).collect();
    let total: u64 = v.iter().take(8).sum();
    let idle = v.get(3).copied().unwrap_or(0) + v.get(4).copied().unwrap_or(0);
    (total - idle, total)
}

/// CPU time (ms, 100 ticks per second) of this process (the svc app, its
/// HTTP clients and the fixture), of the Chromium processes under `root`
/// (children they reaped included) and of the other processes under `root`
/// (node for the peer).
#[derive(Clone, Copy, Default)]
pub struct CpuSplit {
    pub bench: f64,
    pub chromium: f64,
    pub other: f64,
}

pub fn cpu_ticks(pid: u32, with_children: bool) -> Option<u64> {
    let (own, children) = cpu_ticks_apart(pid)?;
    Some(if with_children { own + children } else { own })
}

/// The ticks of `pid` itself and of its reaped children, from one reading
/// (two readings could see its own time move on between them, and their
/// difference go below zero).
pub fn cpu_ticks_apart(pid: u32) -> Option<(u64, u64)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let fields: Vec<u64> =
        stat[stat.rfind(')')? + 2..].split_whitespace().skip(11).take(4).filter_map(|x| x.parse().ok()).collect();
    Some((fields.first()? + fields.get(1)?, fields.get(2)? + fields.get(3)?))
}

pub fn cpu_split(root: u32) -> CpuSplit {
    let me = std::process::id();
    let mut split = CpuSplit { bench: cpu_ticks(me, false).unwrap_or(0) as f64 * 10.0, ..Default::default() };
    if root == me {
        // Browsers this process started and reaped (replaced or closed ones).
        split.chromium += cpu_ticks_apart(me).map_or(0, |(_, children)| children) as f64 * 10.0;
    } else {
        split.other += cpu_ticks(root, false).unwrap_or(0) as f64 * 10.0;
    }
    for pid in descendants(root) {
        if is_chromium(pid) {
            split.chromium += cpu_ticks(pid, true).unwrap_or(0) as f64 * 10.0;
        } else if pid != me {
            split.other += cpu_ticks(pid, false).unwrap_or(0) as f64 * 10.0;
        }
    }
    split
}

/// Chromium CPU ms by process kind; what exited processes used is counted
/// in their parent's kind as "exited children of <kind>" (the zygote reaps
/// the renderers).
pub fn chromium_cpu_by_kind(root: u32) -> BTreeMap<String, f64> {
    let mut out = BTreeMap::new();
    if root == std::process::id() {
        let children = cpu_ticks_apart(root).map_or(0, |(_, children)| children);
        out.insert("exited browsers (replaced or closed)".to_string(), children as f64 * 10.0);
    }
    for pid in descendants(root).into_iter().filter(|p| is_chromium(*p)) {
        let Some(kind) = process_kind(pid, root) else { continue };
        let (own, children) = cpu_ticks_apart(pid).unwrap_or((0, 0));
        let (own, children) = (own as f64 * 10.0, children as f64 * 10.0);
        *out.entry(kind.clone()).or_insert(0.0) += own;
        if children > 0.0 {
            *out.entry(format!("exited children of {kind}")).or_insert(0.0) += children;
        }
    }
    out
}

pub fn per_run_delta(
    before: &BTreeMap<String, f64>,
    after: &BTreeMap<String, f64>,
    runs: usize,
) -> BTreeMap<String, f64> {
    let keys: HashSet<&String> = before.keys().chain(after.keys()).collect();
    keys.into_iter()
        .map(|k| {
            let d = after.get(k).copied().unwrap_or(0.0) - before.get(k).copied().unwrap_or(0.0);
            (k.clone(), d / runs.max(1) as f64)
        })
        .collect()
}

pub fn cpu_split_per_run(before: CpuSplit, after: CpuSplit, runs: usize) -> CpuSplit {
    let n = runs.max(1) as f64;
    CpuSplit {
        bench: (after.bench - before.bench) / n,
        chromium: (after.chromium - before.chromium) / n,
        other: (after.other - before.other) / n,
    }
}

/// Machine CPU time (ms) spent between two readings (100 jiffies per second).
pub fn cpu_ms(before: (u64, u64), after: (u64, u64)) -> f64 {
    (after.0 - before.0) as f64 * 10.0
}
