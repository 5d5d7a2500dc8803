//! Experiment: the cost of a forked copy per run of a process that holds a
//! QuickJS runtime with the prelude set up (issue 36, part 3).
use std::rc::Rc;
use std::time::{Duration, Instant};

use rquickjs::{Context, Function, Object, Runtime, Value, qjs};
use svc_static::document::Document;

const PRELUDE: &str = include_str!("../src/js/prelude.js");

fn page() -> String {
    let items: String = (0..50).map(|i| format!("<li class=\"item\" data-i=\"{i}\">Item {i}</li>")).collect();
    format!("<!doctype html><html><head><title>Items</title></head><body><ul id=\"list\">{items}</ul></body></html>")
}

fn cpu_us(who: i32) -> f64 {
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(who, &mut u) };
    let t = |tv: libc::timeval| tv.tv_sec as f64 * 1e6 + tv.tv_usec as f64;
    t(u.ru_utime) + t(u.ru_stime)
}

fn faults(who: i32) -> f64 {
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(who, &mut u) };
    u.ru_minflt as f64
}

fn main() {
    let n: u32 = std::env::var("N").ok().and_then(|v| v.parse().ok()).unwrap_or(1000);
    let html = page();
    let url = url::Url::parse("http://127.0.0.1/items/50").unwrap();
    let far = Instant::now() + Duration::from_secs(600);
    let rt = Runtime::new().unwrap();
    rt.set_gc_threshold(8 << 20);
    let context = Context::full(&rt).unwrap();
    let doc = Rc::new(Document::parse(&html, url.clone(), far).unwrap());
    context.with(|ctx| {
        let native = svc_static::dom_bindings::native(&ctx, doc.clone()).unwrap();
        let f: Function = ctx.eval(PRELUDE).unwrap();
        let controls: Object = f.call((native,)).unwrap();
        ctx.globals().set("__controls", controls).unwrap();
    });
    let script = "JSON.stringify([...document.querySelectorAll('li')].map(li => li.textContent))";
    let mode = std::env::var("MODE").unwrap_or_default();
    let t0 = Instant::now();
    let (me0, kids0) = (cpu_us(libc::RUSAGE_SELF), cpu_us(libc::RUSAGE_CHILDREN));
    let (mf0, kf0) = (faults(libc::RUSAGE_SELF), faults(libc::RUSAGE_CHILDREN));
    for _ in 0..n {
        let pid = unsafe { libc::fork() };
        if pid == 0 {
            if mode != "empty" {
                if mode != "js" {
                    let _d = Document::parse(&html, url.clone(), far).unwrap();
                }
                if mode != "parse" {
                    context.with(|ctx| {
                        let v: String = ctx.eval(script).unwrap();
                        assert!(v.len() > 100);
                    });
                }
                if mode == "free" {
                    let _ = rt.run_gc();
                }
            }
            unsafe { libc::_exit(0) };
        }
        let mut status = 0;
        unsafe { libc::waitpid(pid, &mut status, 0) };
        assert_eq!(status, 0);
    }
    let wall = t0.elapsed().as_secs_f64() * 1e6 / n as f64;
    let me = (cpu_us(libc::RUSAGE_SELF) - me0) / n as f64;
    let kids = (cpu_us(libc::RUSAGE_CHILDREN) - kids0) / n as f64;
    let mut rss = String::new();
    for line in std::fs::read_to_string("/proc/self/status").unwrap().lines() {
        if line.starts_with("VmRSS") || line.starts_with("VmSize") {
            rss.push_str(line);
            rss.push(' ');
        }
    }
    println!("mode {mode:?}: per run wall {wall:.1} µs, parent CPU {me:.1} µs, child CPU {kids:.1} µs; {rss}");
    println!("faults per run: parent {:.1}, child {:.1}", (faults(libc::RUSAGE_SELF) - mf0) / n as f64, (faults(libc::RUSAGE_CHILDREN) - kf0) / n as f64);
    // the same script in-process, no fork, for comparison
    let t = cpu_us(libc::RUSAGE_SELF);
    for _ in 0..n {
        let _d = Document::parse(&html, url.clone(), far).unwrap();
        context.with(|ctx| {
            let v: String = ctx.eval(script).unwrap();
            assert!(v.len() > 100);
        });
    }
    println!("in-process (no fork): {:.1} µs CPU", (cpu_us(libc::RUSAGE_SELF) - t) / n as f64);
    let _ = Value::new_undefined; let _ = qjs::JS_EVAL_TYPE_GLOBAL;
}
