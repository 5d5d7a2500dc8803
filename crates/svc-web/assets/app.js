// svc web app: the few behaviours plain HTML cannot give. Every form still
// works without this script; it adds confirmations, copy buttons, previews
// and live run status.
"use strict";

const csrf = () => document.querySelector('meta[name="csrf-token"]')?.content || "";

// Forms that destroy something ask first.
document.addEventListener("submit", (event) => {
  const form = event.target;
  const question = form.dataset.confirm;
  if (question && !window.confirm(question)) event.preventDefault();
});

// Copy buttons: <button data-copy="#id">.
document.addEventListener("click", async (event) => {
  const button = event.target.closest("[data-copy]");
  if (!button) return;
  const source = document.querySelector(button.dataset.copy);
  if (!source) return;
  const text = source.textContent.trim();
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    const range = document.createRange();
    range.selectNodeContents(source);
    const selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
    document.execCommand("copy");
  }
  const label = button.textContent;
  button.textContent = "Copied";
  setTimeout(() => { button.textContent = label; }, 1500);
});

// ---- Scrap editor ----------------------------------------------------------

// The cron preview follows the schedule and time zone as they are typed.
(() => {
  const inputs = document.querySelectorAll("[data-cron-preview]");
  if (!inputs.length) return;
  const target = document.querySelector(inputs[0].dataset.cronPreview);
  const cron = document.getElementById("cron");
  const zone = document.getElementById("cronTimezone");
  let timer = null;
  let asked = 0;
  const refresh = () => {
    const query = new URLSearchParams({ cron: cron.value, cronTimezone: zone.value });
    const mine = ++asked;
    fetch("/scraps/schedule-preview?" + query, { headers: { accept: "text/html" } })
      .then((r) => (r.ok ? r.text() : Promise.reject(r.status)))
      .then((html) => { if (mine === asked) target.innerHTML = html; })
      .catch(() => {});
  };
  inputs.forEach((input) => {
    input.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(refresh, 250); });
    input.addEventListener("change", refresh);
  });
})();

// Parameter rows: add and remove without a round trip.
document.addEventListener("click", (event) => {
  const add = event.target.closest("[data-add-param]");
  const remove = event.target.closest("[data-remove-param]");
  if (add) {
    const rows = document.querySelector("[data-param-rows]");
    const last = rows.querySelector("[data-param-row]:last-child");
    const row = last.cloneNode(true);
    const n = rows.querySelectorAll("[data-param-row]").length + 1;
    row.querySelectorAll("input").forEach((input) => { input.value = ""; });
    row.querySelectorAll("label").forEach((label) => {
      const input = row.querySelector("#" + CSS.escape(label.htmlFor));
      const id = label.htmlFor.replace(/-\d+$/, "-" + n);
      label.htmlFor = id;
      if (input) input.id = id;
    });
    rows.appendChild(row);
    row.querySelector("input").focus();
  } else if (remove) {
    const row = remove.closest("[data-param-row]");
    const rows = row.parentElement;
    if (rows.querySelectorAll("[data-param-row]").length > 1) row.remove();
    else row.querySelectorAll("input").forEach((input) => { input.value = ""; });
  }
});

// Tab indents in the script editor (Escape, then Tab, leaves it).
(() => {
  let escaped = false;
  document.addEventListener("keydown", (event) => {
    const area = event.target.closest && event.target.closest("textarea[data-code-editor]");
    if (!area) return;
    if (event.key === "Escape") { escaped = true; return; }
    if (event.key !== "Tab" || escaped || event.shiftKey) { escaped = false; return; }
    event.preventDefault();
    const { selectionStart: start, selectionEnd: end, value } = area;
    area.value = value.slice(0, start) + "  " + value.slice(end);
    area.selectionStart = area.selectionEnd = start + 2;
  });
})();

// After a test run, its result takes the focus (screen readers read it).
(() => {
  const result = document.getElementById("test-result");
  if (result && location.hash === "#test-result") result.focus();
})();

// ---- Scrap page and run page (web-scrap): Run now with live status ----
// <form data-run-now="<scrapId>" data-live-region="<id>"> triggers the run
// over REST (session cookie + X-CSRF-Token), then polls the run about every
// second (up to the 120 s wait bound) and, when it has finished, shows its
// outcome in the aria-live region and swaps the page's [data-live-section]
// elements for fresh copies (no reload). An element [data-watch-run="<id>"]
// inside a live region watches a run that is already under way (with
// data-watch-quiet, it stays as it is until the run ends).
(() => {
  const POLL_MS = 1000;
  const WAIT_MS = 120000;
  const CHIPS = {
    success: ["success", "Success"],
    empty: ["empty", "Empty"],
    regression: ["regression", "Regression"],
    error: ["error", "Error"],
  };
  const REFUSALS = { 402: "No compute balance left", 429: "Too many requests" };

  const el = (tag, className, text) => {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  };
  const chip = (kind, label) => el("span", "chip chip-" + kind, label);
  const show = (region, nodes, failed) => {
    const line = el("p", "live-result" + (failed ? " failed" : ""));
    line.append(...nodes);
    region.replaceChildren(line);
  };
  // A refusal: what it is, and the server's description as a sentence.
  const refuse = (region, heading, description) => {
    const box = el("p", "alert alert-error live-refusal");
    let said = String(description || "").trim();
    if (said && !/[.!?]$/.test(said)) said += ".";
    box.append(el("strong", null, heading + ". "), said.charAt(0).toUpperCase() + said.slice(1));
    box.setAttribute("role", "alert");
    region.replaceChildren(box);
  };
  const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

  // Fresh copies of the page's live sections, from the page itself.
  async function refreshSections() {
    const response = await fetch(location.href, { credentials: "same-origin", headers: { Accept: "text/html" } });
    if (!response.ok) return;
    const fresh = new DOMParser().parseFromString(await response.text(), "text/html");
    for (const section of document.querySelectorAll("[data-live-section][id]")) {
      const replacement = fresh.getElementById(section.id);
      if (replacement) section.replaceWith(document.importNode(replacement, true));
    }
  }

  function runLink(historyId) {
    const scrap = location.pathname.match(/^\/scraps\/([0-9a-f]{24})/);
    if (!scrap) return null;
    const link = el("a", null, "View the run");
    link.href = "/scraps/" + scrap[1] + "/history/" + historyId;
    return link;
  }

  // Polls run `historyId` until it has finished, then shows how it ended.
  async function watch(region, historyId, quiet) {
    if (!quiet) show(region, [chip("running", "Pending…"), el("span", "muted", "The run is queued or running.")]);
    const deadline = Date.now() + WAIT_MS;
    const scrap = location.pathname.match(/^\/scraps\/([0-9a-f]{24})/);
    while (Date.now() < deadline) {
      await pause(POLL_MS);
      // Queued or running: said as such until the row is finished.
      if (scrap) {
        let state = null;
        try {
          const progress = await fetch("/scraps/" + scrap[1] + "/history/" + encodeURIComponent(historyId) + "/progress", {
            credentials: "same-origin",
            headers: { Accept: "application/json" },
          });
          if (progress.ok) state = (await progress.json()).state;
        } catch {
          continue;
        }
        if (state === "queued" || state === "running") {
          if (!quiet) {
            show(region, state === "queued"
              ? [chip("pending", "Queued"), el("span", "muted", "Waiting for a worker.")]
              : [chip("running", "Running…"), el("span", "muted", "The script is running in the browser.")]);
          }
          continue;
        }
      }
      let row;
      try {
        const response = await fetch("/api/historys/" + encodeURIComponent(historyId), {
          credentials: "same-origin",
          headers: { Accept: "application/json" },
        });
        if (response.status === 404 || response.status === 401 || response.status === 403) {
          const body = await response.json().catch(() => ({}));
          refuse(region, "The run can no longer be read", body.description);
          return;
        }
        if (!response.ok) continue;
        row = await response.json();
      } catch {
        continue; // offline for a moment: try again
      }
      if (!row.statusDetail) continue;
      const [kind, label] = CHIPS[row.statusDetail] || ["none", row.statusDetail];
      const words = row.statusDetail === "error"
        ? "Run failed" + (row.error ? ": " + row.error : ".")
        : "Run finished: " + row.length + " item" + (row.length === 1 ? "" : "s") + ".";
      const nodes = [chip(kind, label), el("span", null, words)];
      const link = runLink(historyId);
      if (link) nodes.push(link);
      show(region, nodes, row.statusDetail === "error");
      await refreshSections().catch(() => {});
      return;
    }
    show(region, [el("span", null, "The run has not finished after 2 minutes. It goes on: reload the page later to see it.")]);
  }

  document.addEventListener("submit", async (event) => {
    const form = event.target.closest("form[data-run-now]");
    if (!form || event.defaultPrevented) return;
    const region = document.getElementById(form.dataset.liveRegion);
    if (!region || !window.fetch) return; // the plain form does it
    event.preventDefault();
    const button = form.querySelector("button[type=submit]");
    if (button) button.disabled = true;
    try {
      show(region, [chip("running", "Pending…"), el("span", "muted", "Starting the run.")]);
      const response = await fetch("/api/scraps/worker/" + encodeURIComponent(form.dataset.runNow), {
        method: "POST",
        credentials: "same-origin",
        headers: { Accept: "application/json", "X-CSRF-Token": csrf() },
      });
      const body = await response.json().catch(() => ({}));
      if (!response.ok || !body.historyId) {
        refuse(region, REFUSALS[response.status] || "The run could not start", body.description || "HTTP " + response.status + ".");
        return;
      }
      await watch(region, body.historyId);
    } catch {
      refuse(region, "Offline", "svc could not be reached. Try again.");
    } finally {
      if (button) button.disabled = false;
    }
  });

  for (const pending of document.querySelectorAll("[data-watch-run]")) {
    const region = pending.closest("[aria-live]");
    if (region) watch(region, pending.dataset.watchRun, "watchQuiet" in pending.dataset);
  }
})();
// Pages that answer a form with a one-time secret (a new API key or webhook
// secret) name their plain address: the history entry becomes a GET of it,
// so reloading shows the list again instead of sending the form twice.
const plainAddress = document.querySelector("[data-replace-url]");
if (plainAddress && window.history.replaceState) {
  window.history.replaceState(null, "", plainAddress.dataset.replaceUrl);
}

// ---- Scrap editor: Generate with AI (web-ai) ----
// The panel [data-ai-panel] calls the REST routes with the session cookie and
// X-CSRF-Token: POST /api/ai/wizard {url} ("Suggest fields") and
// POST /api/ai/generate {url, description, fields} ("Generate script"), both
// 202 {taskId}; then GET /api/tasks/:id?wait=N until the task has finished,
// saying whether it is queued or working. A generated script goes into the
// Script box (nothing is saved: the user saves); the proposals of the wizard
// are checkboxes that fill the field names. Refusals are said in words next
// to the panel, never as the raw answer.
(() => {
  const panel = document.querySelector("[data-ai-panel]");
  if (!panel || !window.fetch) return;
  const WAIT_S = 2;
  const GIVE_UP_MS = 5 * 60 * 1000;
  const PREVIEW_COLUMNS = 8;
  const CELL_CHARS = 120;
  const status = document.getElementById("ai-status");
  const result = document.getElementById("ai-result");
  const proposals = document.getElementById("ai-proposals");
  const description = document.getElementById("aiDescription");
  const fields = document.getElementById("aiFields");
  const url = document.getElementById("url");
  const script = document.getElementById("request");
  const buttons = panel.querySelectorAll("[data-ai-wizard], [data-ai-generate]");
  const REFUSALS = {
    402: "No compute balance left",
    429: "Too many requests",
    503: "AI is not set up on this server",
  };

  const el = (tag, className, text) => {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  };
  const chip = (kind, label) => el("span", "chip chip-" + kind, label);
  const sentence = (text) => {
    let said = String(text || "").trim();
    if (!said) return "";
    if (!/[.!?]$/.test(said)) said += ".";
    return said.charAt(0).toUpperCase() + said.slice(1);
  };
  const line = (nodes, className) => {
    const p = el("p", "live-result" + (className ? " " + className : ""));
    p.append(...nodes);
    return p;
  };
  const alertBox = (heading, text) => {
    const box = el("p", "alert alert-error");
    box.setAttribute("role", "alert");
    box.append(el("strong", null, heading + ". "), sentence(text));
    return box;
  };
  const fieldNames = () => fields.value.split(",").map((f) => f.trim()).filter(Boolean);
  const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

  function clearFieldErrors() {
    status.replaceChildren();
    for (const id of ["aiDescription", "aiFields"]) {
      const error = document.getElementById(id + "-error");
      const control = document.getElementById(id);
      error.hidden = true;
      error.textContent = "";
      control.removeAttribute("aria-invalid");
      control.removeAttribute("aria-describedby");
      control.closest(".field").classList.remove("invalid");
    }
  }

  function fieldError(id, message) {
    const error = document.getElementById(id + "-error");
    const control = document.getElementById(id);
    error.textContent = sentence(message);
    error.hidden = false;
    control.setAttribute("aria-invalid", "true");
    control.setAttribute("aria-describedby", id + "-error");
    control.closest(".field").classList.add("invalid");
  }

  // A refusal of the REST API, in words, next to the field it is about.
  function refused(response, body) {
    const said = String(body.description || body.message || "").trim();
    if (response.status === 422 && body.field) {
      const message = said.startsWith(body.field + ": ") ? said.slice(body.field.length + 2) : said;
      if (body.field === "description") return fieldError("aiDescription", message);
      if (body.field === "fields") return fieldError("aiFields", message);
      if (body.field === "url") {
        return status.replaceChildren(alertBox("The URL above cannot be used", message));
      }
    }
    const heading = REFUSALS[response.status] || "The request was refused";
    status.replaceChildren(alertBox(heading, said || "HTTP " + response.status));
  }

  function working(on) {
    buttons.forEach((b) => { b.disabled = on; });
    panel.classList.toggle("busy", on);
  }

  // Starts a task; its answer, or null when refused (said in the panel).
  async function start(path, body) {
    const response = await fetch(path, {
      method: "POST",
      credentials: "same-origin",
      headers: { Accept: "application/json", "Content-Type": "application/json", "X-CSRF-Token": csrf() },
      body: JSON.stringify(body),
    });
    const answer = await response.json().catch(() => ({}));
    if (!response.ok || !answer.taskId) {
      refused(response, answer);
      return null;
    }
    return answer.taskId;
  }

  // Waits for task `id` to finish, showing its state; the finished task, or null.
  async function follow(id, words) {
    const started = Date.now();
    let state = "queued";
    const show = () => {
      const seconds = Math.round((Date.now() - started) / 1000);
      const elapsed = el("span", "muted elapsed", seconds + " s");
      status.replaceChildren(line(state === "queued"
        ? [chip("pending", "Queued"), el("span", null, "Waiting for the task runner."), elapsed]
        : [chip("running", "Working…"), el("span", null, words), elapsed]));
    };
    show();
    const ticker = setInterval(show, 1000);
    try {
      while (Date.now() - started < GIVE_UP_MS) {
        let response;
        try {
          response = await fetch("/api/tasks/" + encodeURIComponent(id) + "?wait=" + WAIT_S, {
            credentials: "same-origin",
            headers: { Accept: "application/json" },
          });
        } catch {
          await pause(1000); // offline for a moment: try again
          continue;
        }
        const task = await response.json().catch(() => ({}));
        if (!response.ok) {
          if (response.status >= 500) { await pause(1000); continue; }
          refused(response, task);
          return null;
        }
        if (task.status === "succeeded" || task.status === "failed") return task;
        state = task.status;
        show();
      }
      status.replaceChildren(alertBox("Still working after 5 minutes",
        "The task goes on; try again later"));
      return null;
    } finally {
      clearInterval(ticker);
    }
  }

  function urlOrSay() {
    const value = url.value.trim();
    if (!value) {
      status.replaceChildren(alertBox("No URL yet", "Type the page's URL in the URL field above first"));
      url.focus();
      return null;
    }
    return value;
  }

  // ---- Suggest fields ----
  function showProposals(found) {
    proposals.replaceChildren();
    if (!found.length) { proposals.hidden = true; return; }
    const box = el("fieldset", "ai-proposal-list");
    box.append(el("legend", null, "Fields the page offers"));
    box.append(el("p", "hint", "Tick the ones every item must have: they fill the field names above."));
    const list = el("div", "checks");
    const chosen = new Set(fieldNames());
    found.forEach((f, i) => {
      const row = el("div", "check proposal");
      const box = el("input");
      box.type = "checkbox";
      box.id = "ai-proposal-" + i;
      box.value = f.name;
      box.checked = chosen.has(f.name);
      box.dataset.aiProposal = "";
      const label = el("label");
      label.htmlFor = box.id;
      label.append(el("code", null, f.name));
      if (f.description) label.append(" — ", el("span", null, f.description));
      if (f.example !== null && f.example !== undefined && f.example !== "") {
        const shown = typeof f.example === "string" ? f.example : JSON.stringify(f.example);
        label.append(" ", el("span", "muted example", "e.g. “" + shown.slice(0, 80) + "”"));
      }
      row.append(box, label);
      list.append(row);
    });
    box.append(list);
    proposals.append(box);
    proposals.hidden = false;
  }

  proposals.addEventListener("change", (event) => {
    const box = event.target.closest("[data-ai-proposal]");
    if (!box) return;
    const names = fieldNames().filter((n) => n !== box.value);
    if (box.checked) names.push(box.value);
    fields.value = names.join(", ");
    fields.dispatchEvent(new Event("input", { bubbles: true }));
  });

  panel.querySelector("[data-ai-wizard]").addEventListener("click", async () => {
    clearFieldErrors();
    const target = urlOrSay();
    if (!target) return;
    working(true);
    try {
      const id = await start("/api/ai/wizard", { url: target });
      if (!id) return;
      const task = await follow(id, "Loading the page and asking the model what it offers.");
      if (!task) return;
      const found = (task.result && Array.isArray(task.result.fields)) ? task.result.fields : [];
      if (task.status === "failed" || !found.length) {
        status.replaceChildren(alertBox("No fields suggested", task.error || "the model proposed none"));
        return;
      }
      showProposals(found);
      status.replaceChildren(line([chip("success", "Suggested"),
        el("span", null, found.length + " field" + (found.length === 1 ? "" : "s") + " proposed above.")]));
    } catch {
      status.replaceChildren(alertBox("Offline", "svc could not be reached. Try again"));
    } finally {
      working(false);
    }
  });

  // ---- Generate script ----
  const cell = (value) => {
    if (value === undefined) return el("td", "absent");
    let text = typeof value === "string" ? value : JSON.stringify(value);
    if (text.length > CELL_CHARS) text = text.slice(0, CELL_CHARS - 1) + "…";
    return el("td", null, text);
  };

  // Where the script names `key` (as `key:` or `"key":`): the preview's items
  // come with their keys sorted, so the columns follow the script instead.
  const placeIn = (source, key) => {
    const escaped = key.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    const at = source.search(new RegExp("(^|[^\\w$])[\"']?" + escaped + "[\"']?\\s*:"));
    return at < 0 ? Infinity : at;
  };

  function previewTable(items, total, source) {
    const objects = items.every((i) => i && typeof i === "object" && !Array.isArray(i));
    const columns = [];
    if (objects) {
      for (const item of items) {
        for (const key of Object.keys(item)) if (!columns.includes(key)) columns.push(key);
      }
      const places = new Map(columns.map((c) => [c, placeIn(source, c)]));
      columns.sort((a, b) => {
        const [x, y] = [places.get(a), places.get(b)];
        return x === y ? 0 : x < y ? -1 : 1;
      });
    }
    const shown = columns.slice(0, PREVIEW_COLUMNS);
    const wrap = el("div", "table-wrap ai-preview");
    const table = el("table", "list data");
    table.append(el("caption", "visually-hidden", "Items the generated script returned"));
    const head = el("tr");
    for (const c of objects ? shown : ["value"]) {
      const th = el("th", null, c);
      th.scope = "col";
      head.append(th);
    }
    const thead = el("thead");
    thead.append(head);
    const tbody = el("tbody");
    for (const item of items) {
      const tr = el("tr");
      if (objects) for (const c of shown) tr.append(cell(item[c]));
      else tr.append(cell(item));
      tbody.append(tr);
    }
    table.append(thead, tbody);
    wrap.append(table);
    const notes = [];
    if (total > items.length) notes.push("the first " + items.length + " of " + total + " items");
    if (columns.length > shown.length) notes.push(shown.length + " of " + columns.length + " fields");
    const parts = [wrap];
    if (notes.length) parts.push(el("p", "data-note", "Showing " + notes.join(", ") + "."));
    return parts;
  }

  function attemptsList(failed, open) {
    const details = el("details", "ai-attempts");
    if (open) details.open = true;
    const n = failed.length;
    details.append(el("summary", null, n + " attempt" + (n === 1 ? "" : "s") + " that did not work"));
    const list = el("ol");
    for (const a of failed) {
      const item = el("li");
      item.append(el("p", "problem", sentence(a.problem)));
      if (a.script) {
        const code = el("pre", "snippet");
        code.textContent = a.script;
        item.append(code);
      }
      list.append(item);
    }
    details.append(list);
    return details;
  }

  let previousScript = null;

  function generated(task) {
    const r = task.result || {};
    const failed = Array.isArray(r.failedAttempts) ? r.failedAttempts : [];
    result.replaceChildren();
    if (task.status !== "succeeded" || typeof r.script !== "string") {
      status.replaceChildren(alertBox("Generation failed", task.error || "no working script"));
      if (failed.length) result.append(attemptsList(failed, true));
      return;
    }
    previousScript = script.value;
    script.value = r.script;
    script.dispatchEvent(new Event("input", { bubbles: true }));
    const attempts = r.attempts || failed.length + 1;
    const length = Number(r.length || 0);
    const undo = el("button", "small ghost", "Put back the previous script");
    undo.type = "button";
    undo.dataset.aiUndo = "";
    status.replaceChildren(line([chip("success", "Script ready"),
      el("span", null, "Worked on attempt " + attempts + " and returned " + length + " item" + (length === 1 ? "" : "s") +
        ". It is in the Script box below: save to keep it."), undo]));
    const preview = Array.isArray(r.preview) ? r.preview : [];
    if (preview.length) {
      result.append(el("h3", null, "What it returned"), ...previewTable(preview, length, r.script));
    }
    if (failed.length) result.append(attemptsList(failed, false));
  }

  panel.addEventListener("click", (event) => {
    if (!event.target.closest("[data-ai-undo]") || previousScript === null) return;
    script.value = previousScript;
    script.dispatchEvent(new Event("input", { bubbles: true }));
    previousScript = null;
    event.target.closest("[data-ai-undo]").replaceWith(el("span", "muted", "The previous script is back."));
  });

  panel.querySelector("[data-ai-generate]").addEventListener("click", async () => {
    clearFieldErrors();
    const target = urlOrSay();
    if (!target) return;
    if (!description.value.trim()) {
      fieldError("aiDescription", "Say what to extract first");
      description.focus();
      return;
    }
    working(true);
    result.replaceChildren();
    try {
      const id = await start("/api/ai/generate", {
        url: target, description: description.value, fields: fieldNames(),
      });
      if (!id) return;
      const task = await follow(id,
        "Loading the page, asking the model for a script and trying it there (up to 3 attempts).");
      if (task) generated(task);
    } catch {
      status.replaceChildren(alertBox("Offline", "svc could not be reached. Try again"));
    } finally {
      working(false);
    }
  });

  // Enter in the panel's field names does not save the scrap.
  panel.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && event.target.matches("input[data-ai-input]")) event.preventDefault();
  });
})();
