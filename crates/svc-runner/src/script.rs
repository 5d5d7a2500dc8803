//! The JavaScript a run evaluates: the user's script as the body of an async
//! function, given a frozen `SVC` and `returnData`. It is evaluated in an
//! isolated world, so the page's own scripts can neither see `SVC` nor call
//! `returnData`. The expression resolves to
//! `{ok: true, json, length, storage}` or `{ok: false, error, selector}`.
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
          storage = items && {{ origin: location.origin, items }};
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
