//! The JavaScript a run calls: one function, called in an isolated world
//! (`Runtime.callFunctionOn` with the world's context, awaited, by value),
//! that compiles the user's script as the body of an async function of
//! `SVC` and `returnData`, runs it, and hands back what it returned. The
//! isolated world keeps the page's own scripts from seeing `SVC` or calling
//! `returnData`.
//!
//! The script's text is an argument of the call, compiled by the
//! `AsyncFunction` constructor, never spliced into the caller's text: a
//! script cannot end the function it runs in and return something else.
//! It shares the world with the caller, though, and may replace what the
//! world offers (a prototype method, a getter) or hand any value to
//! `returnData`'s promise; so the caller reads the outcome field by field
//! once, keeps only strings and numbers within their caps, and returns a
//! new object of those alone. Nothing over 10 MiB crosses the DevTools
//! connection that every concurrent run shares. The call resolves to
//! `{ok: true, json, length, storage, enqueued}` or `{ok: false, error,
//! selector, enqueued}`; `enqueued` is the JSON of the pages the script
//! added to a crawl with `SVC.enqueue` (`svc_engine::crawl`).
//!
//! `SVC.account` is the scrap's site login (`{username, password}`, frozen)
//! or `null`. For a job with a login, `returnData` with items also hands
//! back the page's `localStorage` (`storage: {origin, items: [[k, v]...]}`,
//! `null` when over [`MAX_STORAGE_CHARS`] or unreadable), which the engine
//! keeps in the run's session.

use std::sync::LazyLock;

use serde_json::{Value, json};
use svc_engine::RunJob;
pub use svc_engine::script::{MAX_RESULT_CHARS, NOT_RUN};

/// Largest `localStorage` (characters of keys and values) kept in a session.
pub const MAX_STORAGE_CHARS: usize = 256 * 1024;
/// Largest error message or selector read back from a failed script.
pub const MAX_MESSAGE_CHARS: usize = 16 * 1024;

/// The function a run calls with [`arguments`]: `(input, body)`.
pub static RUN: LazyLock<String> = LazyLock::new(|| {
    format!(
        r#"async function (input, body) {{
  const text = (v, max) => (typeof v === "string" && v.length <= max ? v : null);
  const AsyncFunction = (async function () {{}}).constructor;
  let script;
  try {{
    script = new AsyncFunction("SVC", "returnData", body);
  }} catch (e) {{
    const what = e instanceof Error ? e.name + ": " + e.message : String(e);
    return {{ ok: false, error: {not_run:?} + (text(what, {max_message}) ?? "it does not compile"), selector: null }};
  }}
  const stringify = JSON.stringify, isArray = Array.isArray, freeze = Object.freeze, values = Object.values;
  const deepFreeze = (v) => {{ if (v && typeof v === "object") {{ values(v).forEach(deepFreeze); freeze(v); }} return v; }};
  let failingSelector = null;
  // Pages the script adds to a crawl (`SVC.enqueue`), handed back as JSON
  // whatever the outcome.
  const enqueued = [];
  const enqueue = ({enqueue_js})(input.page, location.href, enqueued);
  const r = await new Promise((resolve) => {{
    let done = false;
    const finish = (v) => {{ if (!done) {{ done = true; resolve(v); }} }};
    const returnData = (data) => {{
      if (done) return;
      if (!isArray(data)) {{
        finish({{ ok: false, error: "returnData expects an array, got " + (data === null ? "null" : typeof data) }});
        return;
      }}
      let json;
      try {{ json = stringify(data); }} catch (e) {{
        finish({{ ok: false, error: "returnData: the data cannot be turned into JSON: " + (e && e.message) }});
        return;
      }}
      if (json.length > {max}) {{
        finish({{ ok: false, error: "returnData: the result is larger than 10 MiB of JSON (" + json.length + " characters)" }});
        return;
      }}
      let storage = null;
      if (input.captureStorage && data.length > 0) {{
        try {{
          let items = [], size = 0;
          for (let i = 0; i < localStorage.length; i++) {{
            const key = localStorage.key(i), value = localStorage.getItem(key);
            size += key.length + (value === null ? 0 : value.length);
            if (size > {max_storage}) {{ items = null; break; }}
            items.push([key, value]);
          }}
          storage = items && stringify({{ origin: location.origin, items }});
        }} catch (e) {{ storage = null; }}
      }}
      finish({{ ok: true, json, length: data.length, storage }});
    }};
    const sleep = (ms) => new Promise((r) => setTimeout(r, Math.max(0, Number(ms) || 0)));
    const waitFor = async (selector, timeoutMs = 10000) => {{
      const deadline = Date.now() + timeoutMs;
      for (;;) {{
        const found = document.querySelector(selector);
        if (found) return found;
        if (Date.now() >= deadline) {{
          failingSelector = String(selector);
          throw new Error("SVC.waitFor(" + stringify(String(selector)) + ") timed out after " + timeoutMs + " ms");
        }}
        await sleep(50);
      }}
    }};
    const SVC = freeze({{
      url: input.url,
      param: deepFreeze(input.param),
      params: deepFreeze(input.params),
      historyId: input.historyId,
      triggeredBy: input.triggeredBy,
      account: input.account ? deepFreeze(input.account) : null,
      label: input.page.label,
      data: deepFreeze(input.page.data),
      depth: input.page.depth,
      enqueue,
      waitFor,
      sleep,
    }});
    Promise.resolve().then(() => script(SVC, returnData)).then(
      () => finish({{ ok: false, error: "the script finished without calling returnData" }}),
      (e) => finish({{ ok: false, error: "the script threw: " + (e && e.message !== undefined ? e.message : String(e)), selector: failingSelector }}),
    );
  }});
  // What came back, whatever the script made of it: each field read once,
  // only primitives within their caps kept, in a new object.
  let queued = null;
  try {{ queued = text(stringify(enqueued), {max_enqueued}); }} catch (e) {{ queued = null; }}
  if (r === null || typeof r !== "object") return {{ ok: false, error: "the script's result could not be read", enqueued: queued }};
  const ok = r.ok === true, json = r.json, length = r.length, storage = r.storage, error = r.error, selector = r.selector;
  if (!ok) return {{ ok: false, error: text(error, {max_message}) ?? "the script failed", selector: text(selector, {max_message}), enqueued: queued }};
  if (typeof json !== "string") return {{ ok: false, error: "the script's result could not be read", enqueued: queued }};
  if (json.length > {max}) return {{ ok: false, error: "returnData: the result is larger than 10 MiB of JSON (" + json.length + " characters)", enqueued: queued }};
  return {{ ok: true, json, length: typeof length === "number" ? length : 0, storage: text(storage, {max_storage_json}), enqueued: queued }};
}}"#,
        max = MAX_RESULT_CHARS,
        max_storage = MAX_STORAGE_CHARS,
        max_message = MAX_MESSAGE_CHARS,
        // Keys and values, quoted and escaped, with the origin.
        max_storage_json = MAX_STORAGE_CHARS * 6 + 4096,
        not_run = NOT_RUN,
        enqueue_js = svc_engine::crawl::ENQUEUE_JS,
        max_enqueued = svc_engine::crawl::MAX_ENQUEUED_CHARS,
    )
});

/// The arguments of [`RUN`] for `job`: what `SVC` shows, and the script.
pub fn arguments(job: &RunJob) -> [Value; 2] {
    let mut input = job.script_input();
    input["captureStorage"] = json!(job.account.is_some());
    [input, Value::String(job.script.clone())]
}
