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

// Pages that answer a form with a one-time secret (a new API key or webhook
// secret) name their plain address: the history entry becomes a GET of it,
// so reloading shows the list again instead of sending the form twice.
const plainAddress = document.querySelector("[data-replace-url]");
if (plainAddress && window.history.replaceState) {
  window.history.replaceState(null, "", plainAddress.dataset.replaceUrl);
}
