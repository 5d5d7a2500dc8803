//! Runs the wrapped script in QuickJS (rquickjs) over a parsed page: in a
//! realm as it was before any run (`realm.rs`: built once per thread, copied
//! back before each run), a memory limit, a stack limit, and an interrupt handler
//! that stops the script at the run's deadline (a `while (true) {}` ends
//! there). Blocking: the engine calls it in its sandbox process
//! (`sandbox/child.rs`).
//!
//! The prelude and the wrapper (`script::WRAPPER`) are svc's own text, the
//! same for every run: they are compiled to bytecode once per process
//! ([`prepare`]; parsing the prelude was two thirds of a run), and the realm
//! reads that bytecode into its context once; the groups of the DOM's
//! members and `Intl` are read into a run's realm when it first uses them.
//!
//! The event loop is the host's: microtasks run until none is left, then the
//! earliest timer of the prelude's virtual clock fires; when neither is left
//! and the script's promise is still pending, nothing can ever settle it.

use std::ffi::{CStr, CString};
use std::rc::Rc;
use std::sync::OnceLock;
use std::time::Instant;

use rquickjs::FromJs;
use rquickjs::convert::Coerced;
use rquickjs::promise::PromiseState;
use rquickjs::{Context, Ctx, Exception, Function, Object, Persistent, Promise, Runtime, Value, qjs};
use svc_engine::ScriptResult;

use crate::document::Document;
use crate::error::StaticError;
use crate::script::{WRAPPER, Wrapped};
use crate::script_network::ScriptFetch;
use svc_engine::script::MAX_RESULT_CHARS;

const PRELUDE: &str = include_str!("js/prelude.js");
/// `Intl`, evaluated on the script's first use of it (`js/prelude.js`).
const INTL: &str = include_str!("js/intl/intl.js");

/// The bytecode is written without the functions' source text and debug
/// information: reading them back was a fifth of reading the prelude, and
/// what they served (`toString()` of svc's own functions, line numbers in
/// their frames of a stack trace) no script relies on; a browser answers
/// `[native code]` for its DOM functions too.
const STRIP: u32 = qjs::JS_WRITE_OBJ_STRIP_SOURCE | qjs::JS_WRITE_OBJ_STRIP_DEBUG;

/// Bytes allocated before QuickJS first collects garbage (its default,
/// 256 KiB, is less than the prelude allocates: most runs collected several
/// times before the script even started, then once more at the end).
pub(crate) const GC_THRESHOLD: usize = 8 * 1024 * 1024;

/// The bytecode of svc's own JavaScript, compiled once per process.
pub(crate) struct Compiled {
    pub(crate) prelude: Vec<u8>,
    pub(crate) wrapper: Vec<u8>,
    intl: Vec<u8>,
    /// `dom_members::GROUPS`, in its order.
    groups: Vec<Vec<u8>>,
}

static COMPILED: OnceLock<Result<Compiled, String>> = OnceLock::new();

/// Compiles the prelude and the wrapper to bytecode and builds this
/// thread's realm (`realm.rs`), if not done yet (the sandbox process does it
/// at start-up, before it says it is ready; otherwise the first run does).
pub fn prepare() -> Result<(), StaticError> {
    compiled()?;
    crate::realm::with_realm(|_| ()).map_err(StaticError::Internal)
}

pub(crate) fn compiled() -> Result<&'static Compiled, StaticError> {
    let compiled = COMPILED.get_or_init(|| {
        let rt = Runtime::new().map_err(|e| e.to_string())?;
        let context = Context::full(&rt).map_err(|e| e.to_string())?;
        context.with(|ctx| {
            Ok(Compiled {
                prelude: compile(&ctx, PRELUDE, c"prelude.js")?,
                wrapper: compile(&ctx, &WRAPPER, c"eval_script")?,
                intl: compile(&ctx, INTL, c"intl.js")?,
                groups: crate::dom_members::GROUPS
                    .iter()
                    .map(|(name, source)| compile(&ctx, source, name))
                    .collect::<Result<_, _>>()?,
            })
        })
    });
    compiled.as_ref().map_err(|e| StaticError::Internal(format!("svc's JavaScript does not compile: {e}")))
}

/// `js/intl/intl.js`'s function, read into `ctx` from its bytecode (the
/// prelude asks for it on the script's first use of `Intl`).
pub(crate) fn intl_module<'js>(ctx: &Ctx<'js>) -> rquickjs::Result<Function<'js>> {
    let compiled = compiled().map_err(|e| Exception::throw_message(ctx, &e.to_string()))?;
    evaluate(ctx, &compiled.intl).and_then(|v| Function::from_js(ctx, v))
}

/// The function of `dom_members::GROUPS[index]`, read into `ctx` from its
/// bytecode (a new reference), or `JS_EXCEPTION` with the error thrown.
///
/// # Safety
/// `ctx` is a live context.
pub(crate) unsafe fn group_function(ctx: *mut qjs::JSContext, index: usize) -> qjs::JSValue {
    let bytecode = match compiled() {
        Ok(compiled) => compiled.groups.get(index),
        Err(_) => None,
    };
    // SAFETY: the caller's `ctx` is live; the format has no `%`.
    unsafe {
        match bytecode {
            Some(bytecode) => read_and_run(ctx, bytecode),
            None => qjs::JS_ThrowInternalError(ctx, c"svc's DOM: a group did not compile".as_ptr()),
        }
    }
}

/// `source` compiled as a strict global script, as bytecode.
fn compile(ctx: &Ctx<'_>, source: &str, name: &CStr) -> Result<Vec<u8>, String> {
    let text = CString::new(source).map_err(|e| e.to_string())?;
    let raw = ctx.as_raw().as_ptr();
    let flags = qjs::JS_EVAL_TYPE_GLOBAL | qjs::JS_EVAL_FLAG_STRICT | qjs::JS_EVAL_FLAG_COMPILE_ONLY;
    // SAFETY: `text` is NUL-terminated and `source.len()` bytes long before
    // the NUL, as JS_Eval wants; the compiled function is freed below, and
    // the buffer JS_WriteObject allocates is copied and freed with js_free.
    unsafe {
        let function = qjs::JS_Eval(raw, text.as_ptr(), source.len() as _, name.as_ptr(), flags as i32);
        if qjs::JS_IsException(function) {
            return Err(describe(ctx.catch()));
        }
        let mut length = std::mem::MaybeUninit::uninit();
        let buffer =
            qjs::JS_WriteObject(raw, length.as_mut_ptr(), function, (qjs::JS_WRITE_OBJ_BYTECODE | STRIP) as i32);
        qjs::JS_FreeValue(raw, function);
        if buffer.is_null() {
            return Err(describe(ctx.catch()));
        }
        let bytes = std::slice::from_raw_parts(buffer, length.assume_init() as usize).to_vec();
        qjs::js_free(raw, buffer.cast());
        Ok(bytes)
    }
}

/// Evaluates `bytecode` (from [`compile`]) in `ctx`: read into this context
/// (its functions are of this realm), then run; answers the script's value.
pub(crate) fn evaluate<'js>(ctx: &Ctx<'js>, bytecode: &[u8]) -> rquickjs::Result<Value<'js>> {
    // SAFETY: `ctx` is live; the value answered is a new reference, handed
    // to a `Value`.
    unsafe {
        let value = read_and_run(ctx.as_raw().as_ptr(), bytecode);
        if qjs::JS_IsException(value) {
            return Err(rquickjs::Error::Exception);
        }
        Ok(Value::from_raw(ctx.clone(), value))
    }
}

/// [`evaluate`] on a raw context: the script's value (a new reference), or
/// `JS_EXCEPTION` with the error pending.
///
/// # Safety
/// `ctx` is a live context.
unsafe fn read_and_run(ctx: *mut qjs::JSContext, bytecode: &[u8]) -> qjs::JSValue {
    // SAFETY: `bytecode` is what JS_WriteObject wrote for a script compiled
    // in this process by the same QuickJS; JS_EvalFunction takes ownership
    // of the function read.
    unsafe {
        let function =
            qjs::JS_ReadObject(ctx, bytecode.as_ptr(), bytecode.len() as _, qjs::JS_READ_OBJ_BYTECODE as i32);
        if qjs::JS_IsException(function) {
            return function;
        }
        qjs::JS_EvalFunction(ctx, function)
    }
}

/// Bounds on one script's runtime.
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub struct ScriptLimits {
    /// Bytes QuickJS may allocate (beyond it, allocations fail as a
    /// catchable "out of memory" error).
    pub memory: usize,
    /// Bytes of native stack JavaScript may use (deep recursion fails as a
    /// catchable `RangeError`); the thread's stack must be larger.
    pub stack: usize,
}

/// What the script did.
pub struct ScriptRun {
    pub result: ScriptResult,
    /// The selector `SVC.waitFor` did not find, when that is why it failed.
    pub selector: Option<String>,
    /// The JSON of the pages the script added with `SVC.enqueue`.
    pub enqueued: Option<String>,
}

/// `name: message` of a thrown value.
fn describe<'js>(value: Value<'js>) -> String {
    if let Some(object) = value.as_object()
        && let Some(exception) = Exception::from_object(object.clone())
    {
        let name: Option<String> = object.get("name").ok();
        let message = exception.message().unwrap_or_default();
        return match name {
            Some(name) if !name.is_empty() => format!("{name}: {message}"),
            _ => message,
        };
    }
    value.get::<Coerced<String>>().map(|s| s.0).unwrap_or_else(|_| "an exception".into())
}

fn error_of<'js>(ctx: &Ctx<'js>, e: rquickjs::Error) -> String {
    match e {
        rquickjs::Error::Exception => describe(ctx.catch()),
        other => other.to_string(),
    }
}

/// Runs `wrapped` (the script as `script::wrap` made it) on `document`
/// until it settles or `deadline` passes; `timeout_secs` is for the message.
/// Without a network: `fetch` throws.
pub fn run(
    document: Rc<Document>,
    wrapped: &Wrapped,
    deadline: Instant,
    timeout_secs: u64,
    limits: ScriptLimits,
) -> Result<ScriptRun, StaticError> {
    run_with_network(document, wrapped, deadline, timeout_secs, limits, None)
}

/// [`run`], with `fetch` going out through `network`.
pub fn run_with_network(
    document: Rc<Document>,
    wrapped: &Wrapped,
    deadline: Instant,
    timeout_secs: u64,
    limits: ScriptLimits,
    network: Option<Rc<dyn ScriptFetch>>,
) -> Result<ScriptRun, StaticError> {
    crate::realm::with_realm(|realm| {
        run_in(realm, RunInput { document, wrapped, deadline, timeout_secs, limits, network })
    })
    .map_err(StaticError::Internal)?
}

/// What [`run_with_network`] runs.
struct RunInput<'a> {
    document: Rc<Document>,
    wrapped: &'a Wrapped,
    deadline: Instant,
    timeout_secs: u64,
    limits: ScriptLimits,
    network: Option<Rc<dyn ScriptFetch>>,
}

/// [`run_with_network`] in this thread's realm.
fn run_in(realm: &crate::realm::Realm, input: RunInput<'_>) -> Result<ScriptRun, StaticError> {
    let RunInput { document, wrapped, deadline, timeout_secs, limits, network } = input;
    let internal = |e: rquickjs::Error| StaticError::Internal(e.to_string());
    let timed_out = || StaticError::TimedOut(timeout_secs);
    // SAFETY: no value of a previous run is held (each is dropped before
    // its run answers, below), and no JavaScript runs on this thread now.
    let _run = unsafe { realm.restore(crate::realm::wants_intl(&wrapped.script), limits, deadline) };
    let _network = crate::script_network::give(network);
    let (rt, context) = (&realm.rt, &realm.context);

    // Set up: the page shown, the prelude's `begin`, then the script up to its first await.
    let started = context.with(|ctx| -> Result<_, StaticError> {
        let failed = |e| StaticError::Internal(error_of(&ctx, e));
        let native = realm.native.clone().restore(&ctx).map_err(internal)?;
        let shown = crate::dom_bindings::show_page(&native, document).map_err(failed)?;
        let controls = realm.controls.clone().restore(&ctx).map_err(internal)?;
        let begin: Function = controls.get("begin").map_err(internal)?;
        begin.call::<_, ()>(()).map_err(failed)?;
        let next_timer: Function = controls.get("nextTimer").map_err(internal)?;
        let wrapper = realm.wrapper.clone().restore(&ctx).map_err(internal)?;
        let input = ctx.json_parse(wrapped.input.as_str()).map_err(failed)?;
        let promise: Promise = match wrapper.call((input, wrapped.script.as_str())) {
            Ok(promise) => promise,
            Err(_) if Instant::now() >= deadline => return Err(timed_out()),
            Err(e) => return Err(StaticError::Script(error_of(&ctx, e))),
        };
        Ok((Persistent::save(&ctx, promise), Persistent::save(&ctx, next_timer), shown))
    });
    let (promise, next_timer, _shown) = started?;

    // The event loop.
    let settled = loop {
        loop {
            match rt.execute_pending_job() {
                Ok(true) => {}
                Ok(false) => break,
                Err(_) if Instant::now() >= deadline => return Err(timed_out()),
                Err(job) => {
                    let message = job.0.with(|ctx| describe(ctx.catch()));
                    return Err(StaticError::ScriptAborted(message));
                }
            }
        }
        let state = context.with(|ctx| promise.clone().restore(&ctx).map(|p| p.state()));
        match state.map_err(internal)? {
            PromiseState::Pending => {}
            PromiseState::Resolved => break true,
            PromiseState::Rejected => break false,
        }
        if Instant::now() >= deadline {
            return Err(timed_out());
        }
        let fired = context.with(|ctx| {
            let next = next_timer.clone().restore(&ctx)?;
            next.call::<_, bool>(()).map_err(|e| match e {
                rquickjs::Error::Exception => {
                    let _ = ctx.catch();
                    rquickjs::Error::Exception
                }
                other => other,
            })
        });
        match fired {
            Ok(true) => {}
            Ok(false) => return Err(StaticError::Stalled),
            Err(_) if Instant::now() >= deadline => return Err(timed_out()),
            Err(e) => return Err(StaticError::ScriptAborted(e.to_string())),
        }
    };

    context.with(|ctx| -> Result<ScriptRun, StaticError> {
        let promise = promise.restore(&ctx).map_err(internal)?;
        drop(next_timer);
        if !settled {
            let reason = match promise.result::<Value>() {
                Some(Err(e)) => error_of(&ctx, e),
                _ => "the script failed".to_string(),
            };
            return Err(StaticError::ScriptAborted(reason));
        }
        let value: Object = match promise.result::<Object>() {
            Some(Ok(value)) => value,
            Some(Err(e)) => return Err(StaticError::ScriptAborted(error_of(&ctx, e))),
            None => return Err(StaticError::Internal("the script's promise is not settled".into())),
        };
        let read = || -> rquickjs::Result<ScriptRun> {
            let enqueued: Option<String> = value.get("enqueued")?;
            if value.get::<_, bool>("ok")? {
                let json: String = value.get("json")?;
                if json.len() > MAX_RESULT_CHARS {
                    let result =
                        ScriptResult::Failed { message: "returnData: the result is larger than 10 MiB of JSON".into() };
                    return Ok(ScriptRun { result, selector: None, enqueued });
                }
                let length: f64 = value.get("length")?;
                Ok(ScriptRun { result: ScriptResult::Data { json, length: length as i64 }, selector: None, enqueued })
            } else {
                let message: Option<String> = value.get("error")?;
                let selector: Option<String> = value.get("selector")?;
                let message = message.unwrap_or_else(|| "the script failed".into());
                Ok(ScriptRun { result: ScriptResult::Failed { message }, selector, enqueued })
            }
        };
        read().map_err(|e| StaticError::ScriptAborted(error_of(&ctx, e)))
    })
}
