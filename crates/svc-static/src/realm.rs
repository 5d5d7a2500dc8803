//! The realm every run starts from: built once per thread, copied aside,
//! and copied back before each run.
//!
//! A run must not see anything of the run before it. Building a fresh
//! QuickJS runtime and context with svc's prelude for each run, and freeing
//! it after, was most of a run's CPU (docs/benchmarks.md, issue 36). Here
//! the realm is built once, before any page: the runtime and context, the
//! natives (over the page [`dom_bindings::show_page`] shows, not over one
//! page), svc's prelude set up, the wrapper evaluated. All of it lives in one
//! region ([`Heap`]); its used prefix is copied aside, and [`Realm::restore`]
//! copies it back before each run. Every object, atom, shape, job and
//! allocator list is then as it was before any run: a global or prototype a
//! script changed, a timer it left, a group of the DOM it made, are gone.
//!
//! What lives outside the region, and why it cannot carry a run's state:
//! - rquickjs's book keeping for the runtime (its opaque data, the native
//!   functions' closures, made once in the build and kept alive by the
//!   realm's own references, which no run can drop);
//! - `dom_members`' slots for the groups a run makes, emptied after each
//!   copy ([`dom_members::forget_run`]);
//! - the page, the network and the deadline of the run under way
//!   (thread-locals set for the run's length);
//! - `Math.random`'s state: a native of svc's seeded for each run (QuickJS's
//!   own is in the context, so it would give every run the same numbers).
//!
//! Two copies are kept: the realm as built, and the same with `Intl`'s
//! module already read (`controls.warm()`; the global `Intl` itself is
//! still the accessor a script sees first). A run whose script names
//! `Intl`, `toLocale...` or `localeCompare` starts from the second (reading
//! the module was ~0.9 ms of such a run); every other run from the first,
//! which is smaller to copy. A script that reaches `Intl` another way reads
//! the module then, as before.
//!
//! The realm lives as long as its thread (the sandbox process's one
//! thread): freeing it after each run was the cost this saves.

use std::cell::{Cell, OnceCell};
use std::ffi::c_int;
use std::rc::Rc;
use std::time::{Duration, Instant};

use rquickjs::{Context, Ctx, Function, Object, Persistent, Runtime, qjs};

use crate::document::Document;
use crate::heap::{Heap, Image};
use crate::script_runtime::{GC_THRESHOLD, ScriptLimits, compiled, evaluate};

/// The page the realm is built over (the natives answer about the page a
/// run shows them; the prelude reads only the root's handle and type).
const TEMPLATE_PAGE: &str = "<!DOCTYPE html><html><head></head><body></body></html>";
const TEMPLATE_URL: &str = "http://template.invalid/";

/// The cap while the realm is built (each run sets its own).
const BUILD_CAP: usize = 64 * 1024 * 1024;

thread_local! {
    static REALM: OnceCell<Result<Realm, String>> = const { OnceCell::new() };
    /// When the run under way must stop (the interrupt handler reads it).
    static DEADLINE: Cell<Option<Instant>> = const { Cell::new(None) };
    /// `Math.random`'s state (xorshift64*), seeded for each run.
    static RANDOM: Cell<u64> = const { Cell::new(1) };
}

/// Fields in the order they are dropped: the values, the context, the
/// runtime, then the region they were all in.
pub(crate) struct Realm {
    /// The prelude's `N` (the natives; the page's `url` and `characterSet`).
    pub native: Persistent<Object<'static>>,
    /// The prelude's answer: `begin` and `nextTimer`.
    pub controls: Persistent<Object<'static>>,
    /// `script::WRAPPER`'s function: `(input, script)` to the run's promise.
    pub wrapper: Persistent<Function<'static>>,
    pub context: Context,
    pub rt: Runtime,
    /// The realm as built, and with `Intl`'s module read.
    plain: Image,
    with_intl: Image,
    heap: Heap,
}

/// `f` with this thread's realm, built on first use (an error: why it cannot be).
pub(crate) fn with_realm<R>(f: impl FnOnce(&Realm) -> R) -> Result<R, String> {
    REALM.with(|cell| match cell.get_or_init(build) {
        Ok(realm) => Ok(f(realm)),
        Err(e) => Err(e.clone()),
    })
}

fn build() -> Result<Realm, String> {
    let heap = Heap::new(BUILD_CAP).map_err(|e| format!("the script's heap: {e}"))?;
    let rt = Runtime::new_with_alloc(heap.allocator()).map_err(|e| e.to_string())?;
    rt.set_gc_threshold(GC_THRESHOLD);
    rt.set_interrupt_handler(Some(Box::new(|| DEADLINE.get().is_some_and(|deadline| Instant::now() >= deadline))));
    let context = Context::full(&rt).map_err(|e| e.to_string())?;
    let url = url::Url::parse(TEMPLATE_URL).map_err(|e| e.to_string())?;
    let template = Document::parse(TEMPLATE_PAGE, url, Instant::now() + Duration::from_secs(60))
        .map_err(|_| "the template page did not parse".to_string())?;
    let built = set_up(&rt, &context, &heap, template);
    if built.is_err() {
        // What the prelude's set-up kept, freed before the runtime is.
        context.with(|ctx| crate::dom_members::release(&ctx));
    }
    let (native, controls, wrapper, plain, with_intl) = built?;
    Ok(Realm { native, controls, wrapper, context, rt, plain, with_intl, heap })
}

/// The realm's values and its two copies.
type Built = (Persistent<Object<'static>>, Persistent<Object<'static>>, Persistent<Function<'static>>, Image, Image);

/// Sets the realm up in `context` over `template`, and copies it aside twice.
fn set_up(rt: &Runtime, context: &Context, heap: &Heap, template: Document) -> Result<Built, String> {
    let compiled = compiled().map_err(|e| e.to_string())?;
    let (native, controls, wrapper) = context
        .with(|ctx| -> rquickjs::Result<_> {
            // SAFETY: `ctx` is live.
            unsafe { replace_random(&ctx)? };
            let native = crate::dom_bindings::native(&ctx, &template)?;
            crate::script_network::register(&ctx, &native)?;
            #[cfg(feature = "sandbox-probes")]
            crate::sandbox::probes::register(&ctx)?;
            let _shown = crate::dom_bindings::show_page(&native, Rc::new(template))?;
            let prelude: Function = evaluate(&ctx, &compiled.prelude)?.get()?;
            let controls: Object = prelude.call((native.clone(),))?;
            let wrapper: Function = evaluate(&ctx, &compiled.wrapper)?.get()?;
            Ok((Persistent::save(&ctx, native), Persistent::save(&ctx, controls), Persistent::save(&ctx, wrapper)))
        })
        .map_err(|e| format!("svc's prelude did not set up: {e}"))?;
    rt.run_gc();
    let plain = heap.snapshot();
    context
        .with(|ctx| -> rquickjs::Result<()> {
            let controls = controls.clone().restore(&ctx)?;
            controls.get::<_, Function>("warm")?.call(())
        })
        .map_err(|e| format!("svc's Intl did not load: {e}"))?;
    rt.run_gc();
    let with_intl = heap.snapshot();
    Ok((native, controls, wrapper, plain, with_intl))
}

/// Whether `script` names what `Intl`'s module serves (a run of it starts
/// from the copy with the module read).
pub(crate) fn wants_intl(script: &str) -> bool {
    ["Intl", "toLocale", "localeCompare"].iter().any(|name| script.contains(name))
}

impl Realm {
    /// The realm as built (with `Intl`'s module read when `intl`), for a
    /// run with `limits` until `deadline`.
    ///
    /// # Safety
    /// No value of a previous run is held (each run's values are dropped
    /// before it answers), and no JavaScript is running on this thread.
    pub unsafe fn restore(&self, intl: bool, limits: ScriptLimits, deadline: Instant) -> RunGuard {
        // SAFETY: the caller's promise; the realm's own values (native,
        // controls, wrapper, the natives' closures) are of both copies.
        unsafe {
            self.heap.restore(if intl { &self.with_intl } else { &self.plain });
            self.context.with(|ctx| crate::dom_members::forget_run(&ctx));
        }
        self.heap.set_cap(limits.memory);
        self.rt.set_gc_threshold(GC_THRESHOLD.min(limits.memory / 2));
        self.rt.set_max_stack_size(limits.stack);
        RANDOM.set(seed());
        DEADLINE.set(Some(deadline));
        RunGuard(())
    }
}

impl Drop for Realm {
    /// At the thread's end: the realm as built, then freed as QuickJS frees
    /// a runtime (the prelude's state kept by `dom_members` first).
    fn drop(&mut self) {
        // SAFETY: no run is under way (its values are gone with it), and no
        // JavaScript runs while the thread ends.
        unsafe {
            self.heap.restore(&self.plain);
            self.context.with(|ctx| {
                crate::dom_members::forget_run(&ctx);
                crate::dom_members::release(&ctx);
            });
        }
    }
}

/// While a run is under way: its deadline stands.
pub(crate) struct RunGuard(());

impl Drop for RunGuard {
    fn drop(&mut self) {
        DEADLINE.set(None);
    }
}

/// A seed for a run's `Math.random`: eight bytes of `getrandom` (allowed in
/// the sandbox), the clock and the previous state, mixed (splitmix64).
fn seed() -> u64 {
    let mut bytes = [0u8; 8];
    // SAFETY: getrandom writes at most `bytes.len()` bytes into `bytes`; on
    // failure they stay zero and the clock and the state are left.
    unsafe { libc::getrandom(bytes.as_mut_ptr().cast(), bytes.len(), libc::GRND_NONBLOCK) };
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes into `t` (the clock is allowed in the sandbox).
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut t) };
    let mut z =
        u64::from_ne_bytes(bytes) ^ RANDOM.get() ^ (t.tv_sec as u64).wrapping_mul(1_000_000_007) ^ t.tv_nsec as u64;
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (z ^ (z >> 31)).max(1)
}

/// `Math.random`, as QuickJS's (xorshift64*, 52 bits into [0, 1)), on this thread's state.
unsafe extern "C" fn random(
    _ctx: *mut qjs::JSContext,
    _this: qjs::JSValue,
    _argc: c_int,
    _argv: *mut qjs::JSValue,
) -> qjs::JSValue {
    let mut x = RANDOM.get();
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    RANDOM.set(x);
    let v = x.wrapping_mul(0x2545_F491_4F6C_DD1D);
    qjs::JS_NewFloat64(f64::from_bits((0x3ff << 52) | (v >> 12)) - 1.0)
}

/// Puts svc's `random` in place of QuickJS's on `Math` (same name, length
/// and attributes: a script sees no difference but fresh numbers per run).
///
/// # Safety
/// `ctx` is live.
unsafe fn replace_random(ctx: &Ctx<'_>) -> rquickjs::Result<()> {
    let raw = ctx.as_raw().as_ptr();
    let math: Object = ctx.globals().get("Math")?;
    // SAFETY: a C function of the right signature, named by a C string;
    // the property takes the new reference.
    let defined = unsafe {
        let function =
            qjs::JS_NewCFunction2(raw, Some(random), c"random".as_ptr(), 0, qjs::JSCFunctionEnum_JS_CFUNC_generic, 0);
        if qjs::JS_IsException(function) {
            return Err(rquickjs::Error::Exception);
        }
        qjs::JS_DefinePropertyValueStr(
            raw,
            math.as_raw(),
            c"random".as_ptr(),
            function,
            (qjs::JS_PROP_WRITABLE | qjs::JS_PROP_CONFIGURABLE) as c_int,
        )
    };
    if defined < 0 { Err(rquickjs::Error::Exception) } else { Ok(()) }
}
