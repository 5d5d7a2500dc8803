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
