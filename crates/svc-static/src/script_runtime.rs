//! Runs the wrapped script in QuickJS (rquickjs) over a parsed page: a fresh
//! runtime per run, a memory limit, a stack limit, and an interrupt handler
//! that stops the script at the run's deadline (a `while (true) {}` ends
//! there). Blocking: the engine calls it in its sandbox process
//! (`sandbox/child.rs`).
//!
//! The event loop is the host's: microtasks run until none is left, then the
//! earliest timer of the prelude's virtual clock fires; when neither is left
//! and the script's promise is still pending, nothing can ever settle it.

use std::rc::Rc;
use std::time::Instant;

use rquickjs::convert::Coerced;
use rquickjs::promise::PromiseState;
use rquickjs::{Context, Ctx, Exception, Function, Object, Persistent, Promise, Runtime, Value};
use svc_engine::ScriptResult;

use crate::document::Document;
use crate::error::StaticError;
use crate::script_network::ScriptFetch;
use svc_engine::script::MAX_RESULT_CHARS;

const PRELUDE: &str = include_str!("js/prelude.js");

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

/// Runs `source` (the script as `script::wrap` made it) on `document`
/// until it settles or `deadline` passes; `timeout_secs` is for the message.
/// Without a network: `fetch` throws.
pub fn run(
    document: Rc<Document>,
    source: &str,
    deadline: Instant,
    timeout_secs: u64,
    limits: ScriptLimits,
) -> Result<ScriptRun, StaticError> {
    run_with_network(document, source, deadline, timeout_secs, limits, None)
}

/// [`run`], with `fetch` going out through `network`.
pub fn run_with_network(
    document: Rc<Document>,
    source: &str,
    deadline: Instant,
    timeout_secs: u64,
    limits: ScriptLimits,
    network: Option<Rc<dyn ScriptFetch>>,
) -> Result<ScriptRun, StaticError> {
    let internal = |e: rquickjs::Error| StaticError::Internal(e.to_string());
    let timed_out = || StaticError::TimedOut(timeout_secs);
    let rt = Runtime::new_with_alloc(crate::heap::CappedHeap::new(limits.memory)).map_err(internal)?;
    rt.set_max_stack_size(limits.stack);
    rt.set_interrupt_handler(Some(Box::new(move || Instant::now() >= deadline)));
    let context = Context::full(&rt).map_err(internal)?;

    // Set up: the prelude over the page, then the script up to its first await.
    let started = context.with(|ctx| -> Result<_, StaticError> {
        let native = crate::dom_bindings::native(&ctx, document).map_err(internal)?;
        crate::script_network::register(&ctx, &native, network).map_err(internal)?;
        #[cfg(feature = "sandbox-probes")]
        crate::sandbox::probes::register(&ctx).map_err(internal)?;
        let prelude: Function = ctx.eval(PRELUDE).map_err(|e| StaticError::Internal(error_of(&ctx, e)))?;
        let controls: Object = prelude.call((native,)).map_err(|e| StaticError::Internal(error_of(&ctx, e)))?;
        let next_timer: Function = controls.get("nextTimer").map_err(internal)?;
        let promise: Promise = match ctx.eval(source) {
            Ok(promise) => promise,
            Err(_) if Instant::now() >= deadline => return Err(timed_out()),
            Err(e) => return Err(StaticError::Script(error_of(&ctx, e))),
        };
        Ok((Persistent::save(&ctx, promise), Persistent::save(&ctx, next_timer)))
    });
    let (promise, next_timer) = started?;

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

    let outcome = context.with(|ctx| -> Result<ScriptRun, StaticError> {
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
    });
    drop(context);
    drop(rt);
    outcome
}
