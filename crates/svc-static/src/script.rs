//! The JavaScript a static run evaluates: the user's script as the body of an
//! async function, given a frozen `SVC` and `returnData`, exactly as the
//! browser engine wraps it (`svc-runner/src/script.rs`; the compatibility
//! test holds the two together). What differs is what a page without a
//! browser can do: `SVC.waitFor` answers at once (the element is in the
//! HTML or it never will be) and `SVC.sleep` skips ahead on the virtual
//! clock instead of waiting.
//!
//! The expression resolves to `{ok: true, json, length}` or
//! `{ok: false, error, selector}`.

use serde_json::json;
use svc_service::engine::RunJob;

/// Largest result, in characters of JSON, accepted from `returnData`.
pub const MAX_RESULT_CHARS: usize = 10 * 1024 * 1024;

pub fn wrap(job: &RunJob) -> String {
    let input = json!({
        "url": job.url,
        "param": job.param,
        "params": job.params,
        "historyId": job.history_id,
        "triggeredBy": job.triggered_by,
        "account": job.account.as_ref().map(|a| json!({"username": a.username, "password": a.password})),
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
      finish({{ ok: true, json, length: data.length }});
    }};
    const sleep = (ms) => new Promise((r) => setTimeout(r, Math.max(0, Number(ms) || 0)));
    const waitFor = async (selector, timeoutMs = 10000) => {{
      const found = document.querySelector(selector);
      if (found) return found;
      failingSelector = String(selector);
      throw new Error("SVC.waitFor(" + JSON.stringify(String(selector)) + "): the static engine does not wait; the element is not in the page");
    }};
    const SVC = Object.freeze({{
      url: input.url,
      param: deepFreeze(input.param),
      params: deepFreeze(input.params),
      historyId: input.historyId,
      triggeredBy: input.triggeredBy,
      account: deepFreeze(input.account),
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
        body = job.script,
    )
}
