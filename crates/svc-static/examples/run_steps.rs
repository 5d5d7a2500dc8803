//! Where a static run's CPU time goes, step by step, in this process (no
//! sandbox, no engine): each step repeated N times (`N`, 500 by default),
//! its thread CPU time per repetition printed. `ONLY=<text>` runs the steps
//! whose name contains it. Measurement for docs/benchmarks.md (issue 36,
//! part 3); the steps build on one another, so differences between lines
//! are what a step adds.
//!
//!     cargo build --release --workspace --example run_steps && target/release/examples/run_steps
//!     STRIP=0 ONLY="read from bytecode" target/release/examples/run_steps   # bytecode with source and debug info
//!     ONLY="full run" N=3000 perf record target/release/examples/run_steps
//!     PRELUDE_FILE=variant.js ONLY="set up" target/release/examples/run_steps   # another prelude's set-up
//!     PRINT_SCRIPT=script.js target/release/examples/run_steps   # one run of a script, its data printed

use std::rc::Rc;
use std::time::{Duration, Instant};

use rquickjs::{Context, Ctx, Function, Object, Runtime, Value, qjs};
use svc_static::document::Document;

const PRELUDE: &str = include_str!("../src/js/prelude.js");
const INTL: &str = include_str!("../src/js/intl/intl.js");
const STRIP: u32 = qjs::JS_WRITE_OBJ_STRIP_SOURCE | qjs::JS_WRITE_OBJ_STRIP_DEBUG;

/// `STRIP=0` writes the bytecode with source text and debug information (to compare).
fn strip() -> u32 {
    if std::env::var("STRIP").as_deref() == Ok("0") { 0 } else { STRIP }
}

fn page() -> String {
    let items: String = (0..50).map(|i| format!("<li class=\"item\" data-i=\"{i}\">Item {i}</li>")).collect();
    format!("<!doctype html><html><head><title>Items</title></head><body><ul id=\"list\">{items}</ul></body></html>")
}

/// CPU time of this thread, µs.
fn cpu_us() -> f64 {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes into `t`.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    t.tv_sec as f64 * 1e6 + t.tv_nsec as f64 / 1e3
}

/// The prelude's text: `PRELUDE_FILE=<path>` reads another (a variant with a
/// part cut out, to measure what that part costs to set up).
fn prelude() -> String {
    match std::env::var("PRELUDE_FILE") {
        Ok(path) => std::fs::read_to_string(path).unwrap(),
        Err(_) => PRELUDE.to_string(),
    }
}

/// The prelude's bytecode, as `script_runtime` makes it.
fn compile(ctx: &Ctx<'_>) -> Vec<u8> {
    let prelude = prelude();
    let text = std::ffi::CString::new(prelude.as_str()).unwrap();
    let raw = ctx.as_raw().as_ptr();
    let flags = qjs::JS_EVAL_TYPE_GLOBAL | qjs::JS_EVAL_FLAG_STRICT | qjs::JS_EVAL_FLAG_COMPILE_ONLY;
    // SAFETY: as in script_runtime::compile.
    unsafe {
        let f = qjs::JS_Eval(raw, text.as_ptr(), prelude.len() as _, c"prelude.js".as_ptr(), flags as i32);
        assert!(!qjs::JS_IsException(f));
        let mut len = std::mem::MaybeUninit::uninit();
        let buf = qjs::JS_WriteObject(raw, len.as_mut_ptr(), f, (qjs::JS_WRITE_OBJ_BYTECODE | strip()) as i32);
        qjs::JS_FreeValue(raw, f);
        let out = std::slice::from_raw_parts(buf, len.assume_init() as usize).to_vec();
        qjs::js_free(raw, buf.cast());
        eprintln!("prelude bytecode: {} bytes", out.len());
        out
    }
}

/// The prelude's function, read from `bytecode` into `ctx`.
fn read<'js>(ctx: &Ctx<'js>, bytecode: &[u8]) -> Function<'js> {
    let raw = ctx.as_raw().as_ptr();
    // SAFETY: as in script_runtime::evaluate.
    unsafe {
        let f = qjs::JS_ReadObject(raw, bytecode.as_ptr(), bytecode.len() as _, qjs::JS_READ_OBJ_BYTECODE as i32);
        assert!(!qjs::JS_IsException(f));
        let v = qjs::JS_EvalFunction(raw, f);
        assert!(!qjs::JS_IsException(v));
        Value::from_raw(ctx.clone(), v).into_function().unwrap()
    }
}

fn main() {
    let n: u32 = std::env::var("N").ok().and_then(|v| v.parse().ok()).unwrap_or(500);
    let only = std::env::var("ONLY").ok();
    let step = |name: &str, f: &mut dyn FnMut()| {
        if only.as_deref().is_some_and(|o| !name.contains(o)) {
            return;
        }
        for _ in 0..20 {
            f();
        }
        let t = cpu_us();
        for _ in 0..n {
            f();
        }
        println!("{name:52} {:8.1} µs CPU", (cpu_us() - t) / n as f64);
    };
    let html = page();
    let url = url::Url::parse("http://127.0.0.1/items/50").unwrap();
    let far = || Instant::now() + Duration::from_secs(60);
    let doc = || Rc::new(Document::parse(&html, url.clone(), far()).unwrap());
    let fresh = || {
        let rt = Runtime::new().unwrap();
        rt.set_gc_threshold(8 << 20);
        rt
    };
    let bytecode = {
        let rt = Runtime::new().unwrap();
        Context::full(&rt).unwrap().with(|ctx| compile(&ctx))
    };

    step("parse the page (html5ever)", &mut || drop(doc()));
    step("runtime + context", &mut || {
        let rt = fresh();
        drop(Context::full(&rt).unwrap());
    });
    step("+ native bindings", &mut || {
        let rt = fresh();
        let d = doc();
        Context::full(&rt).unwrap().with(|ctx| drop(svc_static::dom_bindings::native(&ctx, &d).unwrap()));
    });
    step("+ prelude compiled from its text (before)", &mut || {
        let rt = fresh();
        Context::full(&rt).unwrap().with(|ctx| drop(ctx.eval::<Function, _>(PRELUDE).unwrap()));
    });
    step("+ prelude read from bytecode (after)", &mut || {
        let rt = fresh();
        Context::full(&rt).unwrap().with(|ctx| drop(read(&ctx, &bytecode)));
    });
    step("+ native + prelude from bytecode, set up", &mut || {
        let rt = fresh();
        let d = doc();
        Context::full(&rt).unwrap().with(|ctx| {
            let native = svc_static::dom_bindings::native(&ctx, &d).unwrap();
            let _shown = svc_static::dom_bindings::show_page(&native, d).unwrap();
            drop(read(&ctx, &bytecode).call::<_, Object>((native,)).unwrap());
            svc_static::dom_members::release(&ctx);
        });
    });
    let shared = fresh();
    step("the same in a runtime kept across runs", &mut || {
        let d = doc();
        Context::full(&shared).unwrap().with(|ctx| {
            let native = svc_static::dom_bindings::native(&ctx, &d).unwrap();
            let _shown = svc_static::dom_bindings::show_page(&native, d).unwrap();
            drop(read(&ctx, &bytecode).call::<_, Object>((native,)).unwrap());
            svc_static::dom_members::release(&ctx);
        });
        shared.run_gc();
    });
    let job = svc_engine::RunJob {
        history_id: "0".repeat(24),
        url: url.to_string(),
        script: "returnData([...document.querySelectorAll('li')].map(li => li.textContent))".into(),
        param: None,
        params: vec![],
        triggered_by: "api",
        timeout: Duration::from_secs(60),
        loads: Default::default(),
        capture_page: svc_engine::PageCapture::Never,
        tier: 0,
        scrapper: "static".into(),
        account: None,
        session: None,
        reuse: None,
        confined_to: None,
        organization: None,
        page: svc_engine::PageInput::single(),
    };
    let wrapped = svc_static::script::wrap(&job);
    let limits = svc_static::ScriptLimits { memory: 256 << 20, stack: 4 << 20 };
    if let Ok(path) = std::env::var("PRINT_SCRIPT") {
        // One run of the script in that file over the page; prints its data
        // (to compare what two builds answer, e.g. the realm's shape).
        let mut one = job.clone();
        one.script = std::fs::read_to_string(path).unwrap();
        let run = svc_static::script_runtime::run(doc(), &svc_static::script::wrap(&one), far(), 60, limits).unwrap();
        match run.result {
            svc_engine::ScriptResult::Data { json, .. } => println!("{json}"),
            other => panic!("{other:?}"),
        }
        return;
    }
    step("full run: parse + script_runtime::run", &mut || {
        svc_static::script_runtime::run(doc(), &wrapped, far(), 60, limits).unwrap();
    });
    step("intl.js compiled from its text (per run before)", &mut || {
        let rt = fresh();
        Context::full(&rt).unwrap().with(|ctx| drop(ctx.eval::<Function, _>(INTL).unwrap()));
    });
    let mut intl = job.clone();
    intl.script = "returnData([(1234.5).toLocaleString('de-DE'), new Date(0).toLocaleDateString('en-US')])".into();
    let intl = svc_static::script::wrap(&intl);
    step("full run of a script using Intl", &mut || {
        svc_static::script_runtime::run(doc(), &intl, far(), 60, limits).unwrap();
    });
}
