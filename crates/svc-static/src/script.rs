//! The JavaScript a static run evaluates: the user's script compiled as the
//! body of an async function of a frozen `SVC` and `returnData` (by the
//! `AsyncFunction` constructor, from a string, so that its text cannot end
//! the function it runs in), by [`WRAPPER`], a function of `(input, body)`
//! called with the run's input (JSON) and the script, as the browser engine
//! calls its own (`svc-runner/src/script.rs`, `RUN`). The wrapper's text is
//! the same for every run, so a sandbox process compiles it once
//! (`script_runtime.rs`). It runs the script exactly as the browser engine runs it
//! (`svc-runner/src/script.rs`; the compatibility test holds the two
//! together). What differs is what a page without a
//! browser can do: `SVC.waitFor` answers at once (the element is in the
//! HTML or it never will be) and `SVC.sleep` skips ahead on the virtual
//! clock instead of waiting.
//!
//! The expression resolves to `{ok: true, json, length, enqueued}` or
//! `{ok: false, error, selector, enqueued}` (`enqueued`: the JSON of the
//! pages the script added to a crawl with `SVC.enqueue`).

use std::sync::LazyLock;

use serde::{Deserialize, Serialize};
use svc_engine::RunJob;
use svc_engine::script::{MAX_RESULT_CHARS, NOT_RUN};

/// What a run evaluates: [`WRAPPER`] called with `input` (parsed) and `script`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Wrapped {
    /// The run's input (`RunJob::script_input`), as JSON.
    pub input: String,
    /// The user's script, compiled by the wrapper from this string.
    pub script: String,
}

impl Wrapped {
    /// The whole as one expression (the wrapper called with the input as a
    /// literal and the script as a string literal), for reading.
    pub fn source(&self) -> String {
        // A JSON string is a JavaScript string literal: the text stays data.
        let body = serde_json::to_string(&self.script).expect("a string is JSON");
        format!("({})(JSON.parse({}), {body})", *WRAPPER, serde_json::to_string(&self.input).expect("a string is JSON"))
    }
}

/// The run of `job`.
pub fn wrap(job: &RunJob) -> Wrapped {
    Wrapped { input: job.script_input().to_string(), script: job.script.clone() }
}

/// The function every run calls with `(input, body)`; its value is an
/// expression (evaluating it answers the function).
pub static WRAPPER: LazyLock<String> = LazyLock::new(|| {
    format!(
        r#"(async function (input, body) {{
  let script;
  try {{
    script = new (async function () {{}}).constructor("SVC", "returnData", body);
  }} catch (e) {{
    return {{ ok: false, error: {not_run:?} + (e instanceof Error ? e.name + ": " + e.message : String(e)) }};
  }}
  const deepFreeze = (v) => {{ if (v && typeof v === "object") {{ Object.values(v).forEach(deepFreeze); Object.freeze(v); }} return v; }};
  let failingSelector = null;
  const stringify = JSON.stringify;
  // Pages the script adds to a crawl (`SVC.enqueue`), handed back as JSON
  // whatever the outcome.
  const enqueued = [];
  const enqueue = ({enqueue_js})(input.page, location.href, enqueued);
  return await new Promise((resolve) => {{
    let done = false;
    const finish = (v) => {{
      if (done) return;
      done = true;
      let queued = null;
      try {{ queued = stringify(enqueued); }} catch (e) {{ queued = null; }}
      v.enqueued = queued !== null && queued.length <= {max_enqueued} ? queued : null;
      resolve(v);
    }};
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
}})"#,
        max = MAX_RESULT_CHARS,
        not_run = NOT_RUN,
        enqueue_js = svc_engine::crawl::ENQUEUE_JS,
        max_enqueued = svc_engine::crawl::MAX_ENQUEUED_CHARS,
    )
});
