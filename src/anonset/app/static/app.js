// The workbench page: every value from the server is set as text (textContent), never as markup.
"use strict";
const token = new URLSearchParams(location.search).get("token") || "";
let job = null;

function $(id) { return document.getElementById(id); }

function say(list, items) {
  list.replaceChildren(...items.map((text) => { const li = document.createElement("li"); li.textContent = text; return li; }));
}

async function call(path, body) {
  $("error").textContent = "";
  const response = await fetch(path, {
    method: body === undefined ? "GET" : "POST",
    headers: { "X-Anonset-Token": token, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: "same-origin",
  });
  const data = await response.json().catch(() => ({ error: response.statusText }));
  if (!response.ok) { $("error").textContent = data.error || response.statusText; throw new Error(data.error); }
  return data;
}

async function tables() {
  const data = await call("/api/tables");
  $("table").replaceChildren(...data.tables.map((name) => { const o = document.createElement("option"); o.value = name; o.textContent = name; return o; }));
}

async function propose() {
  const data = await call("/api/propose", { path: $("table").value });
  $("config").value = data.config;
  say($("notes"), data.notes);
}

async function run() {
  $("running").textContent = "running…";
  try {
    const data = await call("/api/run", { config: $("config").value });
    job = data.job;
    say($("headline"), data.headline.concat(data.guarantees.map((g) => `${g.holds ? "holds" : "VIOLATED"}: ${g.requirement} (${g.detail})`)));
    say($("warnings"), data.warnings.map((w) => `warning: ${w}`));
    $("report").href = `/jobs/${job}/report`;
  } finally { $("running").textContent = ""; }
}

async function write() {
  if (!job) { $("error").textContent = "run the configuration first"; return; }
  const data = await call(`/api/jobs/${job}/release`, {
    release: $("release-name").value, config: $("config-name").value, report: $("report-name").value });
  $("written").textContent = "written: " + Object.values(data.written).join(", ");
}

document.addEventListener("DOMContentLoaded", () => {
  $("propose").addEventListener("click", () => propose().catch(() => {}));
  $("run").addEventListener("click", () => run().catch(() => {}));
  $("write").addEventListener("click", () => write().catch(() => {}));
  tables().catch(() => {});
});
