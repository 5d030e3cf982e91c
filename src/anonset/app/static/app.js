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

function sleep(ms) { return new Promise((done) => setTimeout(done, ms)); }

function showProgress(steps) {
  const step = steps[steps.length - 1];
  $("progress-line").classList.remove("hidden");
  if (!step) { $("step").textContent = "working…"; $("progress").removeAttribute("value"); return; }
  $("step").textContent = step.total ? `${step.description}: ${step.completed} of ${step.total} ${step.unit}` : step.description;
  if (step.total) { $("progress").max = step.total; $("progress").value = step.completed; } else { $("progress").removeAttribute("value"); }
}

async function run() {
  job = null;
  say($("headline"), []); say($("warnings"), []);
  const started = await call("/api/run", { config: $("config").value });
  const id = started.job;
  $("run").disabled = true; $("cancel").disabled = false; $("cancel").dataset.job = id;
  try {
    for (;;) {
      const status = await call(`/api/jobs/${id}`);
      if (status.state === "running") { showProgress(status.steps); await sleep(300); continue; }
      if (status.state === "done") {
        job = id;
        const r = status.result;
        say($("headline"), r.headline.concat(r.guarantees.map((g) => `${g.holds ? "holds" : "VIOLATED"}: ${g.requirement} (${g.detail})`)));
        say($("warnings"), r.warnings.map((w) => `warning: ${w}`));
        $("report").href = `/jobs/${id}/report`;
      } else if (status.state === "cancelled") {
        say($("headline"), ["the run was cancelled"]);
      } else {
        $("error").textContent = status.error || "the run failed";
      }
      return;
    }
  } finally {
    $("run").disabled = false; $("cancel").disabled = true; $("progress-line").classList.add("hidden");
  }
}

async function cancel() {
  const id = $("cancel").dataset.job;
  if (id) { await call(`/api/jobs/${id}/cancel`, {}); }
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
  $("cancel").addEventListener("click", () => cancel().catch(() => {}));
  $("write").addEventListener("click", () => write().catch(() => {}));
  tables().catch(() => {});
});
