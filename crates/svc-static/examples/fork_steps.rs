//! What a forked copy per run would cost (the "zygote" design of issue 36,
//! part 3): a process holds a QuickJS runtime with the prelude set up over
//! a page, then forks once per run; the child parses the page and runs a
//! script in the inherited context, then `_exit`s. Prints, per run, the wall
//! time, the CPU time of the parent (the fork) and of the children, and the
//! page faults of both; then the same work in-process without a fork.
//! `MODE=empty` forks and exits at once; `parse` only parses; `js` only
//! runs the script; `run` (default) both. Measurement for
//! docs/benchmarks.md; the engine does not fork.
//!
//!     cargo build --release --workspace --example fork_steps
//!     MODE=run N=2000 target/release/examples/fork_steps

use std::rc::Rc;
use std::time::{Duration, Instant};

use rquickjs::{Context, Function, Object, Runtime};
use svc_static::document::Document;

const PRELUDE: &str = include_str!("../src/js/prelude.js");
const SCRIPT: &str = "JSON.stringify([...document.querySelectorAll('li')].map(li => li.textContent))";

fn page() -> String {
    let items: String = (0..50).map(|i| format!("<li class=\"item\" data-i=\"{i}\">Item {i}</li>")).collect();
    format!("<!doctype html><html><head><title>Items</title></head><body><ul id=\"list\">{items}</ul></body></html>")
}

/// CPU µs and minor page faults of `who` (`RUSAGE_SELF` or `RUSAGE_CHILDREN`).
fn usage(who: i32) -> (f64, f64) {
    // SAFETY: getrusage writes into the zeroed struct it is given.
    let u = unsafe {
        let mut u: libc::rusage = std::mem::zeroed();
        libc::getrusage(who, &mut u);
        u
    };
    let us = |tv: libc::timeval| tv.tv_sec as f64 * 1e6 + tv.tv_usec as f64;
    (us(u.ru_utime) + us(u.ru_stime), u.ru_minflt as f64)
}

fn main() {
    let n: u32 = std::env::var("N").ok().and_then(|v| v.parse().ok()).unwrap_or(1000);
    let mode = std::env::var("MODE").unwrap_or_else(|_| "run".into());
    let html = page();
    let url = url::Url::parse("http://127.0.0.1/items/50").unwrap();
    let far = Instant::now() + Duration::from_secs(600);
    let rt = Runtime::new().unwrap();
    rt.set_gc_threshold(8 << 20);
    let context = Context::full(&rt).unwrap();
    let document = Rc::new(Document::parse(&html, url.clone(), far).unwrap());
    context.with(|ctx| {
        let native = svc_static::dom_bindings::native(&ctx, &document).unwrap();
        // Shown for the process's life: this probe runs one page.
        std::mem::forget(svc_static::dom_bindings::show_page(&native, document).unwrap());
        let prelude: Function = ctx.eval(PRELUDE).unwrap();
        let _: Object = prelude.call((native,)).unwrap();
    });
    let work = || {
        if mode != "js" {
            drop(Document::parse(&html, url.clone(), far).unwrap());
        }
        if mode != "parse" {
            context.with(|ctx| assert!(ctx.eval::<String, _>(SCRIPT).unwrap().len() > 100));
        }
    };

    let started = Instant::now();
    let (me, kids) = (usage(libc::RUSAGE_SELF), usage(libc::RUSAGE_CHILDREN));
    for _ in 0..n {
        // SAFETY: this process has one thread; the child only runs the
        // work and leaves with `_exit` (no destructor, no atexit handler).
        let pid = unsafe { libc::fork() };
        if pid == 0 {
            if mode != "empty" {
                work();
            }
            // SAFETY: ends the child at once.
            unsafe { libc::_exit(0) };
        }
        let mut status = 0;
        // SAFETY: waits for the child just forked.
        unsafe { libc::waitpid(pid, &mut status, 0) };
        assert_eq!(status, 0, "the child failed");
    }
    let per = |a: f64, b: f64| (a - b) / n as f64;
    let (me2, kids2) = (usage(libc::RUSAGE_SELF), usage(libc::RUSAGE_CHILDREN));
    println!(
        "MODE={mode}: per run {:.1} µs wall; CPU {:.1} µs in the parent, {:.1} µs in the child; page faults {:.1} / {:.1}",
        started.elapsed().as_secs_f64() * 1e6 / n as f64,
        per(me2.0, me.0),
        per(kids2.0, kids.0),
        per(me2.1, me.1),
        per(kids2.1, kids.1),
    );
    let before = usage(libc::RUSAGE_SELF).0;
    for _ in 0..n {
        work();
    }
    println!("the same work in-process, no fork: {:.1} µs CPU", per(usage(libc::RUSAGE_SELF).0, before));
}
