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
