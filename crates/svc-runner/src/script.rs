//! The JavaScript a run evaluates: the user's script as the body of an async
//! function, given a frozen `SVC` and `returnData`. It is evaluated in an
//! isolated world, so the page's own scripts can neither see `SVC` nor call
//! `returnData`. The expression resolves to
//! `{ok: true, json, length, storage}` or `{ok: false, error, selector}`.
//!
//! The engine does not take that object by value: the user's script shares
//! the world and can hand any value to the wrapper's internals (its text
//! is spliced into the wrapper), so the engine reads the result through
//! [`read_result`], which copies out only strings and numbers within the
//! caps. Nothing over 10 MiB crosses the DevTools connection that every
//! concurrent run shares.
//!
//! `SVC.account` is the scrap's site login (`{username, password}`, frozen)
//! or `null`. For a job with a login, `returnData` with items also hands
//! back the page's `localStorage` (`storage: {origin, items: [[k, v]...]}`,
//! `null` when over [`MAX_STORAGE_CHARS`] or unreadable), which the engine
//! keeps in the run's session.

use serde_json::json;
use svc_service::engine::RunJob;

/// Largest result, in characters of JSON, accepted from `returnData`.
pub const MAX_RESULT_CHARS: usize = 10 * 1024 * 1024;
/// Largest `localStorage` (characters of keys and values) kept in a session.
pub const MAX_STORAGE_CHARS: usize = 256 * 1024;
/// Largest error message or selector read back from a failed script.
pub const MAX_MESSAGE_CHARS: usize = 16 * 1024;

/// The function the engine calls on the object `wrap` resolved to
/// (`Runtime.callFunctionOn`, by value): each field is read once, kept only
/// when it is a primitive within its cap, and copied into a new object, so
/// neither a getter nor a replaced prototype method of the script's can
/// pass more. A too-large result becomes `{ok: false}` in the page.
pub fn read_result() -> String {
    format!(
        r#"function () {{
  const r = this;
  if (r === null || typeof r !== "object") return {{ ok: false, error: "the script's result could not be read" }};
  const ok = r.ok === true, json = r.json, length = r.length, storage = r.storage, error = r.error, selector = r.selector;
  const text = (v, max) => (typeof v === "string" && v.length <= max ? v : null);
  if (!ok) return {{ ok: false, error: text(error, {max_message}) ?? "the script failed", selector: text(selector, {max_message}) }};
  if (typeof json !== "string") return {{ ok: false, error: "the script's result could not be read" }};
  if (json.length > {max}) return {{ ok: false, error: "returnData: the result is larger than 10 MiB of JSON (" + json.length + " characters)" }};
  return {{ ok: true, json, length: typeof length === "number" ? length : 0, storage: text(storage, {max_storage_json}) }};
}}"#,
        max = MAX_RESULT_CHARS,
        max_message = MAX_MESSAGE_CHARS,
        // Keys and values, quoted and escaped, with the origin.
        max_storage_json = MAX_STORAGE_CHARS * 6 + 4096,
    )
}

pub fn wrap(job: &RunJob) -> String {
    let account = job.account.as_ref().map(|a| json!({"username": a.username, "password": a.password}));
    let input = json!({
        "url": job.url,
        "param": job.param,
        "params": job.params,
        "historyId": job.history_id,
        "triggeredBy": job.triggered_by,
        "account": account,
        "captureStorage": job.account.is_some(),
    });
    format!(
        r#"(async () => {{
  const input = {input};
  const deepFreeze = (v) => {{ if (v && typeof v === "object") {{ Object.values(v).forEach(deepFreeze); Object.freeze(v); }} return v; }};
  let failingSelector = null;
  return await new Promise((resolve) => {{
    let done = false;
    const finish = (v) => {{ if (!done) {{ done = true; resolve(v); }} }};
    const returnData = (data) => {{
      if (done) return;
      if (!Array.isArray(data)) {{
        finish({{ ok: false, error: "returnData expects an array, got " + (data === null ? "null" : typeof data) }});
        return;
      }}
      let json;
      try {{ json = JSON.stringify(data); }} catch (e) {{
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
          storage = items && JSON.stringify({{ origin: location.origin, items }});
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
          throw new Error("SVC.waitFor(" + JSON.stringify(String(selector)) + ") timed out after " + timeoutMs + " ms");
        }}
        await sleep(50);
      }}
    }};
    const SVC = Object.freeze({{
      url: input.url,
      param: deepFreeze(input.param),
      params: deepFreeze(input.params),
      historyId: input.historyId,
      triggeredBy: input.triggeredBy,
      account: input.account ? deepFreeze(input.account) : null,
      waitFor,
      sleep,
    }});
    const script = async function (SVC, returnData) {{
{body}
    }};
    Promise.resolve().then(() => script(SVC, returnData)).then(
      () => finish({{ ok: false, error: "the script finished without calling returnData" }}),
      (e) => finish({{ ok: false, error: "the script threw: " + (e && e.message !== undefined ? e.message : String(e)), selector: failingSelector }}),
    );
  }});
}})()"#,
        max = MAX_RESULT_CHARS,
        max_storage = MAX_STORAGE_CHARS,
        body = job.script,
    )
}
