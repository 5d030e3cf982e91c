// The workbench page: every value from the server is set as text (textContent), never as markup.
"use strict";
const token = new URLSearchParams(location.search).get("token") || "";
let job = null;
let space = null;        // the run's lattice overview
let opened = {};         // node key -> its details, as the server gave them
let comparing = [];      // node keys in the comparison, the released node first
let chosen = null;       // levels of the node to release (null: the run's release)

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
  $("preview-attribute").replaceChildren(...data.quasi.map((name) => { const o = document.createElement("option"); o.value = name; o.textContent = name; return o; }));
}

async function preview() {
  const data = await call("/api/preview", { config: $("config").value, attribute: $("preview-attribute").value });
  $("preview-about").textContent = `${data.attribute}: ${data.levels} levels above the values (${data.source}); a few values held by at least ${data.floor} records each, level by level.`;
  const rows = data.values.map((labels, level) => {
    const tr = cell("tr", "");
    tr.append(cell("th", `level ${level}: ${data.groups[level]} group${data.groups[level] === 1 ? "" : "s"}`), ...labels.map((v) => cell("td", v)));
    return tr;
  });
  $("preview-table").replaceChildren(...rows);
  $("preview-box").classList.remove("hidden");
}

function sleep(ms) { return new Promise((done) => setTimeout(done, ms)); }

function showProgress(steps) {
  const step = steps[steps.length - 1];
  $("progress-line").classList.remove("hidden");
  if (!step) { $("step").textContent = "working…"; $("progress").removeAttribute("value"); return; }
  $("step").textContent = step.total ? `${step.description}: ${step.completed} of ${step.total} ${step.unit}` : step.description;
  if (step.total) { $("progress").max = step.total; $("progress").value = step.completed; } else { $("progress").removeAttribute("value"); }
}

function cell(tag, text, cls) { const c = document.createElement(tag); c.textContent = text; if (cls) { c.className = cls; } return c; }
function key(levels) { return levels.join(","); }
function fmt(x) { return x === null || x === undefined ? "—" : (typeof x === "number" ? Number(x.toPrecision(4)).toString() : String(x)); }
function pct(x) { return `${(100 * x).toFixed(1)}%`; }

async function explore(id) {
  space = null; opened = {}; comparing = []; chosen = null;
  $("node").classList.add("hidden"); $("compare").classList.add("hidden");
  $("chosen").textContent = "The run's release.";
  $("front").classList.add("hidden");
  await showClasses(id);
  let data;
  try { data = await call(`/api/jobs/${id}/lattice`); } catch (e) { $("error").textContent = ""; $("space").classList.add("hidden"); return; }
  space = data;
  try { showFront(await call(`/api/jobs/${id}/front`)); } catch (e) { $("error").textContent = ""; }
  $("space").classList.remove("hidden");
  $("lattice-about").textContent = `${data.size} nodes (${data.quasi.join(", ")}); shown: ${data.shown}; the metric: ${data.metric}.`;
  $("legend").replaceChildren(...Object.entries(data.states).map(([code, words]) => cell("li", words, `s${code}`)));
  drawLattice();
}

async function showClasses(id) {
  let data;
  try { data = await call(`/api/jobs/${id}/classes`); } catch (e) { $("error").textContent = ""; $("classes").classList.add("hidden"); return; }
  $("classes").classList.remove("hidden");
  $("classes-about").textContent = `${data.classes} classes; listed: the ${data.listed.length} smallest of at least ${data.floor} records` +
    (data.unlisted ? `; ${data.unlisted} smaller classes are counted, never listed` : "") + ".";
  const head = cell("tr", "");
  head.append(...data.quasi.map((q) => cell("th", q)), cell("th", "records"), ...data.sensitive.map((s) => cell("th", `${s}: highest share`)));
  const rows = data.listed.map((c) => {
    const tr = cell("tr", "");
    tr.append(...c.values.map((v) => cell("td", v)), cell("td", String(c.records)), ...data.sensitive.map((s) => cell("td", pct(c.highest_share[s]))));
    return tr;
  });
  $("classes-table").replaceChildren(head, ...rows);
}

function showFront(front) {
  const head = cell("tr", "");
  head.append(cell("th", "node"), ...front.objectives.map((o) => cell("th", o)), cell("th", "suppressed"), cell("th", ""));
  const rows = front.members.map((m) => {
    const tr = cell("tr", "");
    const open = cell("button", "open");
    open.addEventListener("click", () => openNode(m.levels).catch(() => {}));
    tr.append(cell("td", `${m.levels.join("·")}${m.released ? " (released)" : ""}`),
      ...front.objectives.map((o) => cell("td", fmt(m.objectives[o]))), cell("td", String(m.suppressed_rows)), cell("td", ""));
    tr.lastChild.append(open);
    return tr;
  });
  $("front-table").replaceChildren(head, ...rows);
  $("front").classList.remove("hidden");
}

function drawLattice() {
  const only = $("checked-only").checked;
  const rows = new Map();
  for (const n of space.nodes) {
    if (only && n.state !== 1 && n.state !== 2 && key(n.levels) !== key(space.released)) { continue; }
    if (!rows.has(n.height)) { rows.set(n.height, []); }
    rows.get(n.height).push(n);
  }
  const out = [...rows.keys()].sort((a, b) => a - b).map((h) => {
    const row = cell("div", "", "row");
    row.append(cell("span", `height ${h}`));
    for (const n of rows.get(h)) {
      const b = cell("button", n.levels.join("·"), `node s${n.state}`);
      b.dataset.levels = key(n.levels);
      b.title = `${space.states[n.state]}${n.objective === null ? "" : `; ${space.metric} ${fmt(n.objective)}`}`;
      if (key(n.levels) === key(space.released)) { b.classList.add("released"); b.title += "; released"; }
      if (key(n.levels) === key(space.optimum)) { b.classList.add("optimum"); }
      b.addEventListener("click", () => openNode(n.levels).catch(() => {}));
      row.append(b);
    }
    return row;
  });
  $("lattice").replaceChildren(...out);
}

async function node(levels) {
  const k = key(levels);
  if (!opened[k]) {
    const started = performance.now();
    opened[k] = await call(`/api/jobs/${job}/node?levels=${encodeURIComponent(k)}`);
    opened[k].ms = performance.now() - started;
  }
  return opened[k];
}

async function openNode(levels) {
  const d = await node(levels);
  document.querySelectorAll(".node.open").forEach((b) => b.classList.remove("open"));
  const button = document.querySelector(`.node[data-levels="${key(levels)}"]`);
  if (button) { button.classList.add("open"); button.className = button.className.replace(/\bs\d\b/, `s${d.feasible ? 1 : 2}`); }
  $("node").classList.remove("hidden");
  $("node").dataset.levels = key(levels);
  $("node").dataset.ms = d.ms.toFixed(1);
  $("node-title").textContent = `Node ${levels.join("·")}: ${d.feasible ? "meets the requirements" : "does not meet the requirements"}${d.released ? " (the released node)" : ""}${d.optimum ? " (the optimum)" : ""}`;
  const rows = d.attributes.map((a) => [a.name, `level ${a.level} of ${a.top}${a.examples.length ? `, e.g. ${a.examples.join(", ")}` : ""}`]);
  rows.push(["suppressed records", `${d.suppressed_rows} (${pct(d.suppressed_share)}; the budget allows ${d.budget_rows})`],
    ["classes", `${d.classes}, the smallest of ${d.smallest_class} records`], [d.metric, fmt(d.objective)],
    ["prosecutor risk", `highest ${fmt(d.risk.highest_risk)}, average ${fmt(d.risk.average_risk)}, records above 0.2: ${pct(d.risk.records_above_0_2)}`]);
  $("node-table").replaceChildren(...rows.map(([name, value]) => { const tr = cell("tr", ""); tr.append(cell("th", name), cell("td", value)); return tr; }));
  const lines = [];
  for (const [name, v] of Object.entries(d.sensitive)) {
    lines.push(`${name}: one value is at most ${v.highest_share === null ? "—" : pct(v.highest_share)} of a class; ${v.homogeneous.classes} classes (${v.homogeneous.records} records) have one value for ${pct(v.homogeneous.threshold)} or more of their records`);
    for (const c of v.listed) { lines.push(`  ${Object.values(c.attributes).join(" · ")}: ${c.records} records, ${pct(c.share)} ${c.value}`); }
  }
  say($("node-sensitive"), lines);
}

async function compareAdd() {
  const k = $("node").dataset.levels;
  for (const levels of [space.released, k.split(",").map(Number)]) {
    if (!comparing.includes(key(levels))) { comparing.push(key(levels)); await node(levels); }
  }
  drawCompare();
}

function drawCompare() {
  const nodes = comparing.map((k) => opened[k]);
  const head = cell("tr", ""); head.append(cell("th", ""), ...nodes.map((d) => cell("th", `${d.levels.join("·")}${d.released ? " (released)" : ""}${d.optimum ? " (optimum)" : ""}`)));
  const rows = [["meets the requirements", (d) => (d.feasible ? "yes" : "no")]];
  space.quasi.forEach((q, i) => rows.push([q, (d) => `level ${d.levels[i]}`]));
  rows.push([space.metric, (d) => fmt(d.objective)], ["suppressed records", (d) => String(d.suppressed_rows)],
    ["classes", (d) => String(d.classes)], ["smallest class", (d) => String(d.smallest_class)],
    ["highest risk", (d) => fmt(d.risk.highest_risk)], ["average risk", (d) => fmt(d.risk.average_risk)]);
  for (const name of Object.keys(nodes[0].sensitive)) {
    rows.push([`${name}: highest share`, (d) => fmt(d.sensitive[name].highest_share)]);
  }
  $("compare-table").replaceChildren(head, ...rows.map(([name, f]) => { const tr = cell("tr", ""); tr.append(cell("th", name), ...nodes.map((d) => cell("td", f(d)))); return tr; }));
  $("compare").classList.remove("hidden");
}

function choose() {
  const levels = $("node").dataset.levels.split(",").map(Number);
  chosen = key(levels) === key(space.released) ? null : levels;
  $("chosen").textContent = chosen ? `Node ${levels.join("·")} (${space.quasi.map((q, i) => `${q} ${levels[i]}`).join(", ")}); the configuration written will release it.` : "The run's release.";
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
        await explore(id);
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
    release: $("release-name").value, config: $("config-name").value, report: $("report-name").value, levels: chosen });
  $("written").textContent = "written: " + Object.values(data.written).join(", ");
}

document.addEventListener("DOMContentLoaded", () => {
  $("propose").addEventListener("click", () => propose().catch(() => {}));
  $("run").addEventListener("click", () => run().catch(() => {}));
  $("preview").addEventListener("click", () => preview().catch(() => {}));
  $("cancel").addEventListener("click", () => cancel().catch(() => {}));
  $("write").addEventListener("click", () => write().catch(() => {}));
  $("checked-only").addEventListener("change", () => { if (space) { drawLattice(); } });
  $("compare-add").addEventListener("click", () => compareAdd().catch(() => {}));
  $("choose").addEventListener("click", choose);
  tables().catch(() => {});
});
