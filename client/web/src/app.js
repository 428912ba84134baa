// WebNNM's browser front end: talks to webnnmd over grpc-web (the daemon
// serves this page and the API on the same origin), with connect-web and
// the messages generated from proto/webnnm/v1/webnnm.proto.
//
// Views (the URL's hash): #/jobs, #/job/<id>, #/new, #/compare?ids=a,b.
import { createClient } from "@connectrpc/connect";
import { createGrpcWebTransport } from "@connectrpc/connect-web";
import {
  DatasetFormat,
  EventType,
  JobKind,
  JobState,
  PredictFormat,
  Webnnm,
} from "../gen/webnnm/v1/webnnm_pb.js";

// --- The API -------------------------------------------------------------

const tokenKey = "webnnm.token";
const auth = (next) => async (req) => {
  const token = localStorage.getItem(tokenKey);
  if (token) req.header.set("authorization", `Bearer ${token}`);
  return next(req);
};
const api = createClient(
  Webnnm,
  createGrpcWebTransport({ baseUrl: location.origin, interceptors: [auth] }),
);

// --- Small helpers -------------------------------------------------------

const $ = (selector, root = document) => root.querySelector(selector);
const view = () => $("#view");
const enumName = (e, v) => String(e[v] ?? v).replace(/^(JOB_STATE|EVENT_TYPE)_/, "");
const stateName = (v) => enumName(JobState, v);
const fixed = (v, d = 4) => (v === undefined || v === null || Number.isNaN(v) ? "–" : Number(v).toFixed(d));

function html(strings, ...values) {
  const escape = (v) => String(v).replace(/[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
  return strings.reduce((out, s, i) =>
    out + s + (i < values.length ? (values[i]?.raw ?? escape(values[i])) : ""), "");
}
const raw = (s) => ({ raw: s });

function status(message, error = false) {
  const el = $("#status");
  el.textContent = message;
  el.className = error ? "error" : "";
}

async function guard(work) {
  try {
    return await work();
  } catch (e) {
    status(e.rawMessage ?? e.message ?? String(e), true);
    return undefined;
  }
}

// --- Charts: loss curves on a canvas -------------------------------------

const palette = ["#2f6fdd", "#e67e22", "#1f8a4c", "#8e44ad", "#c0392b", "#16a085"];

// series: [{ name, points: [[epoch, value], ...], dashed }]
function drawChart(canvas, series) {
  const ratio = window.devicePixelRatio || 1;
  const w = canvas.clientWidth, h = canvas.clientHeight;
  canvas.width = w * ratio;
  canvas.height = h * ratio;
  const g = canvas.getContext("2d");
  g.scale(ratio, ratio);
  g.clearRect(0, 0, w, h);
  const all = series.flatMap((s) => s.points).filter(([, v]) => Number.isFinite(v));
  if (all.length === 0) {
    g.fillStyle = "#6b7385";
    g.fillText("no epochs yet", 12, 20);
    return;
  }
  const pad = { l: 48, r: 10, t: 10, b: 24 };
  const xMax = Math.max(...all.map(([x]) => x), 1);
  let yMin = Math.min(...all.map(([, y]) => y)), yMax = Math.max(...all.map(([, y]) => y));
  if (yMax === yMin) { yMax += 1; yMin -= 1; }
  const X = (x) => pad.l + ((w - pad.l - pad.r) * (x - 1)) / Math.max(1, xMax - 1);
  const Y = (y) => h - pad.b - ((h - pad.t - pad.b) * (y - yMin)) / (yMax - yMin);
  g.strokeStyle = "#d9dde6";
  g.fillStyle = "#6b7385";
  g.font = "11px system-ui";
  for (let i = 0; i <= 4; i++) {
    const y = yMin + ((yMax - yMin) * i) / 4;
    g.beginPath(); g.moveTo(pad.l, Y(y)); g.lineTo(w - pad.r, Y(y)); g.stroke();
    g.fillText(y.toPrecision(3), 4, Y(y) + 4);
  }
  g.fillText(`epoch ${xMax}`, w - pad.r - 60, h - 6);
  series.forEach((s, i) => {
    g.strokeStyle = s.color ?? palette[i % palette.length];
    g.setLineDash(s.dashed ? [5, 4] : []);
    g.lineWidth = 1.8;
    g.beginPath();
    s.points.filter(([, v]) => Number.isFinite(v)).forEach(([x, y], k) =>
      k ? g.lineTo(X(x), Y(y)) : g.moveTo(X(x), Y(y)));
    g.stroke();
  });
  g.setLineDash([]);
}

function legend(series) {
  return series.map((s, i) => html`<span style="color:${raw(s.color ?? palette[i % palette.length])}">
    ${s.dashed ? "┄" : "━"} ${s.name}</span>`).join("");
}

// --- Jobs ----------------------------------------------------------------

async function showJobs() {
  const answer = await guard(() => api.listJobs({ pageSize: 200 }));
  if (!answer) return;
  const rows = answer.jobs.map((j) => {
    const done = j.epochs ? Math.min(100, (100 * j.epoch) / j.epochs) : 0;
    return html`<tr>
      <td><input type="checkbox" class="pick" value="${j.jobId}"></td>
      <td><a href="#/job/${j.jobId}" class="mono">${j.jobId}</a></td>
      <td>${j.modelName || "–"}</td>
      <td class="state-${stateName(j.state)}">${stateName(j.state)}</td>
      <td><div class="progress" title="${j.epoch}/${j.epochs}"><div style="width:${raw(done.toFixed(0))}%"></div></div></td>
      <td>${j.epoch}/${j.epochs}</td>
      <td>${j.summary?.validationLoss !== undefined ? fixed(j.summary.validationLoss) : "–"}</td>
      <td>${j.testAccuracy !== undefined ? fixed(j.testAccuracy) : "–"}</td>
    </tr>`;
  }).join("");
  view().innerHTML = html`
    <h2>Jobs</h2>
    <p><button id="compare">Compare the selected jobs</button></p>
    <table>
      <thead><tr><th></th><th>job</th><th>model</th><th>state</th><th>progress</th>
        <th>epoch</th><th>best validation loss</th><th>test accuracy</th></tr></thead>
      <tbody>${raw(rows || '<tr><td colspan="8">no jobs yet</td></tr>')}</tbody>
    </table>`;
  $("#compare").onclick = () => {
    const ids = [...document.querySelectorAll(".pick:checked")].map((c) => c.value);
    location.hash = `#/compare?ids=${ids.join(",")}`;
  };
  status(`${answer.jobs.length} jobs`);
}

// Fetches a job's epoch series from its metrics.
async function series(jobId) {
  const m = await api.getMetrics({ jobId, names: ["trainLoss", "validationLoss"] });
  const get = (name) => (m.series.find((s) => s.name === name)?.points ?? [])
    .map((p) => [p.epoch, p.value]);
  return { train: get("trainLoss"), validation: get("validationLoss") };
}

let watching = null;  // the AbortController of the job being watched

async function showJob(jobId) {
  const job = await guard(() => api.getJob({ jobId }));
  if (!job) return;
  view().innerHTML = html`
    <h2>Job <span class="mono">${jobId}</span> <small id="state"></small></h2>
    <p>
      <button id="cancel">Cancel</button> <button id="resume">Resume</button>
      <button id="delete">Delete</button> <button id="download">Download snapshot</button>
    </p>
    <div class="grid">
      <div class="card"><h3>Loss</h3><canvas id="chart"></canvas>
        <div class="legend" id="legend"></div><p id="numbers"></p></div>
      <div class="card"><h3>Expert system</h3><div id="decisions"></div>
        <h3>Scouting</h3><div id="scout">–</div><h3>Test</h3><div id="test">–</div></div>
      <div class="card"><h3>Inference</h3>
        <p><input id="values" size="40" placeholder="comma-separated inputs, e.g. 5.1,3.5,1.4,0.2"></p>
        <p><button id="infer">Infer</button></p><pre id="inference" class="mono"></pre></div>
      <div class="card"><h3>Predict a dataset</h3>
        <p><select id="predict-dataset"></select>
          <select id="predict-format"><option value="csv">CSV</option><option value="npz">NumPy .npz</option></select></p>
        <p><button id="predict">Predict and download</button></p><p id="predicted"></p></div>
      <div class="card"><h3>Job</h3><pre id="details" class="mono"></pre></div>
    </div>`;
  guard(async () => {
    const { datasets } = await api.listDatasets({});
    $("#predict-dataset").innerHTML = datasets.map((d) => html`<option value="${d.datasetId}">${d.name} (${d.datasetId})</option>`).join("");
    if (job.datasetId) $("#predict-dataset").value = job.datasetId;
  });
  $("#predict").onclick = () => guard(() => predictDataset(jobId));
  $("#details").textContent = JSON.stringify({
    model: job.modelName, dataset: job.datasetId,
    kind: String(JobKind[job.kind] ?? job.kind).replace(/^JOB_KIND_/, ""), backend: job.backend,
    attempt: job.attempt,
  }, null, 1);
  const train = [], validation = [];
  const redraw = () => {
    const s = [{ name: "training loss", points: train },
      { name: "validation loss", points: validation, dashed: true }];
    drawChart($("#chart"), s);
    $("#legend").innerHTML = legend(s);
  };
  const action = (id, call) => ($(id).onclick = () => guard(async () => {
    await call();
    status(`${id.slice(1)}: done`);
  }));
  action("#cancel", () => api.cancelJob({ jobId }));
  action("#resume", async () => { await api.resumeJob({ jobId }); showJob(jobId); });
  action("#delete", async () => { await api.deleteJob({ jobId }); location.hash = "#/jobs"; });
  action("#download", () => downloadSnapshot(jobId));
  $("#infer").onclick = () => guard(async () => {
    const values = $("#values").value.split(",").map(Number);
    const answer = await api.infer({
      jobId, inputs: [{ shape: [1n, BigInt(values.length)], values }],
    });
    const out = answer.outputs[0];
    let text = `${out.name}: [${out.values.map((v) => v.toPrecision(4)).join(", ")}]`;
    if (answer.classes.length === out.values.length) {
      const best = out.values.indexOf(Math.max(...out.values));
      text += `\n→ ${answer.classes[best]}`;
    }
    $("#inference").textContent = text;
  });

  if (watching) watching.abort();
  watching = new AbortController();
  const signal = watching.signal;
  const decisions = $("#decisions");
  guard(async () => {
    for await (const e of api.watchJob({ jobId, fromSeq: 1n }, { signal })) {
      switch (e.detail.case) {
        case "state":
          $("#state").textContent = stateName(e.detail.value);
          $("#state").className = `state-${stateName(e.detail.value)}`;
          break;
        case "decision":
          decisions.insertAdjacentHTML("beforeend", html`<div class="decision">
            <b>${e.detail.value.what}</b> — ${e.detail.value.why}</div>`);
          break;
        case "warning":
          decisions.insertAdjacentHTML("beforeend",
            html`<div class="warning">⚠ ${e.detail.value}</div>`);
          break;
        case "scout":
          $("#scout").textContent =
            `kept starting point ${e.detail.value.chosen} of ${e.detail.value.seeds}: ${e.detail.value.detail}`;
          break;
        case "epoch": {
          const p = e.detail.value;
          train.push([p.epoch, p.trainLoss]);
          if (p.validationLoss !== undefined) validation.push([p.epoch, p.validationLoss]);
          $("#numbers").textContent = `epoch ${p.epoch}/${p.epochs} · loss ${fixed(p.trainLoss)}` +
            ` · validation ${fixed(p.validationLoss)} · lr ${fixed(p.lr, 6)}` +
            ` · ${Math.round(p.samplesPerSecond)} samples/s`;
          redraw();
          break;
        }
        case "test": {
          const t = e.detail.value;
          $("#test").textContent = `${t.samples} samples · loss ${fixed(t.testLoss)}` +
            (t.testAccuracy !== undefined ? ` · accuracy ${fixed(t.testAccuracy)}` : "");
          // Every output's figures: accuracy, or each unit's MAE, RMSE, R².
          for (const m of t.metrics) {
            const figures = m.classification
              ? `accuracy ${fixed(m.accuracy)} · F1 ${m.f1.map((v) => fixed(v, 2)).join(" ")}`
              : `MAE ${m.mae.map((v) => fixed(v)).join(" ")} · RMSE ${m.rmse.map((v) => fixed(v)).join(" ")} · R² ${m.r2.map((v) => fixed(v)).join(" ")}`;
            $("#test").insertAdjacentHTML("beforeend",
              html`<div class="output-metrics" data-output="${m.name}"><b>${m.name}</b>: ${figures}</div>`);
          }
          break;
        }
        case "error":
          decisions.insertAdjacentHTML("beforeend",
            html`<div class="warning">error: ${e.detail.value}</div>`);
          break;
        default:
          break;
      }
    }
    status(`job ${jobId}: stream ended`);
  });
  redraw();
}

// Frees a download's object URL once the browser has surely started the
// download (revoking it in the click's own turn can cancel it).
function revokeLater(url) {
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

async function downloadSnapshot(jobId) {
  const parts = [];
  for await (const chunk of api.exportSnapshot({ jobId })) parts.push(chunk.data);
  const url = URL.createObjectURL(new Blob(parts, { type: "application/octet-stream" }));
  const a = document.createElement("a");
  a.href = url;
  a.download = `${jobId}.wnms`;
  a.click();
  revokeLater(url);
}

// The daemon's predictions of every sample of the picked dataset, as a
// downloaded CSV or .npz file.
async function predictDataset(jobId) {
  const datasetId = $("#predict-dataset").value;
  if (!datasetId) throw new Error("upload a dataset first (New job)");
  const npz = $("#predict-format").value === "npz";
  status("predicting…");
  const parts = [];
  let head;
  for await (const chunk of api.predict({
    jobId, data: { datasetId }, format: npz ? PredictFormat.NPZ : PredictFormat.CSV,
  })) {
    head ??= chunk;
    parts.push(chunk.data);
  }
  const url = URL.createObjectURL(new Blob(parts, { type: head.contentType }));
  const a = document.createElement("a");
  a.href = url;
  a.download = head.fileName;
  a.click();
  revokeLater(url);
  $("#predicted").textContent = `${head.samples} samples predicted (${head.outputs.map((o) =>
    o.classification ? `${o.name}: ${o.classes.length} classes`
      : `${o.name}: ${o.units} ${o.units === 1n ? "value" : "values"}`).join(", ")})`;
  status(`downloaded ${head.fileName}`);
}

async function showCompare(ids) {
  view().innerHTML = html`<h2>Compare</h2>
    <div class="card"><canvas id="chart"></canvas><div class="legend" id="legend"></div></div>`;
  if (ids.length === 0) {
    status("pick jobs on the Jobs page to compare them");
    return;
  }
  const all = [];
  for (const [i, id] of ids.entries()) {
    const s = await guard(() => series(id));
    if (!s) return;
    const color = palette[i % palette.length];
    all.push({ name: `${id} training`, points: s.train, color });
    all.push({ name: `${id} validation`, points: s.validation, color, dashed: true });
  }
  drawChart($("#chart"), all);
  $("#legend").innerHTML = legend(all);
  status(`${ids.length} jobs`);
}

// --- A new job -----------------------------------------------------------

// The hyperparameter fields: [name, type, the spec's default]. After a
// preview, each placeholder shows what the job would train with.
const hyperFields = [
  ["epochs", "int", "auto"], ["optimizer", "text", "rlion"], ["lr", "float", "auto"],
  ["batchSize", "int", "auto"], ["seeds", "int", 100], ["patience", "int", "auto"],
  ["seed", "bigint", 1], ["warmupEpochs", "int", ""], ["weightDecay", "float", ""],
  ["regularization", "text", "auto"], ["lambda1", "float", 0], ["lambda2", "float", 0],
  ["gradientClipping", "text", "auto"], ["gradientScaling", "text", "auto"],
  ["lossWeights", "text", "auto"], ["freeze", "float", 0], ["timeBudget", "float", "none"],
];

async function showNew() {
  const datasets = (await guard(() => api.listDatasets({})))?.datasets ?? [];
  view().innerHTML = html`
    <h2>New job</h2>
    <div class="grid">
      <div class="card"><h3>Model</h3>
        <div class="editor"><pre class="gutter" id="gutter" aria-hidden="true">1</pre>
          <div class="code"><pre class="marks" id="marks" aria-hidden="true"></pre>
            <textarea id="model" spellcheck="false" wrap="off"
              placeholder="model:input shape=[4]; ..."></textarea></div></div>
        <p><button id="check">Check</button></p>
        <div id="diagnostics"></div><div id="summary"></div></div>
      <div class="card"><h3>Data</h3>
        <p><select id="dataset"><option value="">(pick a dataset)</option>${raw(datasets.map((d) =>
          html`<option value="${d.datasetId}">${d.name} (${d.datasetId})</option>`).join(""))}</select></p>
        <p>or upload a CSV file, a NumPy .npz, a .zip of an image folder (a folder per class), or the four files of an IDX dataset:
          <input id="file" type="file" multiple></p>
        <div class="fields">
          <label>label column<input id="label"></label>
          <label>split<input id="split" placeholder="70,15,15"></label>
          <label>standardize<input id="standardize" type="checkbox"></label>
          <label>impute<select id="impute"><option value="">none</option><option>mean</option><option>median</option></select></label>
          <label>resize images<input id="resize" type="checkbox"></label>
        </div>
        <h3>Hyperparameters</h3>
        <div class="fields">${raw(hyperFields.map(([name, , dflt]) =>
          html`<label>${name}<input id="h-${name}" placeholder="${dflt}"></label>`).join(""))}</div>
        <p><button id="preview">Preview</button> <button id="submit">Submit</button></p>
        <h3>What the expert system would choose</h3>
        <div id="expert"><span class="muted">Check the model (with a dataset picked) to see it.</span></div></div>
    </div>`;
  const model = $("#model");
  model.oninput = () => markDiagnostics([]);
  model.onscroll = () => {
    $("#marks").scrollTop = $("#gutter").scrollTop = model.scrollTop;
    $("#marks").scrollLeft = model.scrollLeft;
  };
  $("#file").onchange = () => guard(() => uploadPicked());
  $("#check").onclick = () => checkModel();
  $("#preview").onclick = () => checkModel();
  $("#submit").onclick = () => submit();
  markDiagnostics([]);
}

// Line numbers beside the editor and, behind its text, the lines and
// columns the diagnostics point at (the text itself stays in the textarea).
function markDiagnostics(diagnostics) {
  const lines = $("#model").value.split("\n");
  const at = new Map();
  for (const d of diagnostics) if (d.line > 0) at.set(d.line, [...(at.get(d.line) ?? []), d]);
  $("#gutter").innerHTML = lines.map((_, i) => at.has(i + 1)
    ? html`<span class="err" title="${at.get(i + 1).map((d) => d.message).join("\n")}">${i + 1}</span>`
    : String(i + 1)).join("\n");
  $("#marks").innerHTML = lines.map((line, i) => {
    const here = at.get(i + 1);
    if (!here) return html`${line}`;
    const chars = Array.from(line + " ");
    const column = Math.min(Math.max(1, here[0].column), chars.length);
    return html`<span class="err-line">${chars.slice(0, column - 1).join("")}<span class="err-at">${chars[column - 1]}</span>${chars.slice(column).join("")}</span>`;
  }).join("\n");
}

// Moves the editor's caret to a diagnostic's line and column.
function goTo(line, column) {
  const model = $("#model");
  const lines = model.value.split("\n");
  let offset = 0;
  for (let i = 0; i < line - 1 && i < lines.length; i++) offset += lines[i].length + 1;
  offset += Math.max(0, column - 1);
  model.focus();
  model.setSelectionRange(offset, offset + 1);
}

function hyperparameters() {
  const out = {};
  for (const [name, type] of hyperFields) {
    const v = $(`#h-${name}`).value.trim();
    if (v === "") continue;
    out[name] = type === "text" ? v : type === "bigint" ? BigInt(v) : Number(v);
  }
  return out;
}

function dataSpec() {
  return {
    datasetId: $("#dataset").value, label: $("#label").value, split: $("#split").value,
    standardize: $("#standardize").checked,
    impute: $("#impute").value, resize: $("#resize").checked,
  };
}

async function checkModel() {
  const answer = await guard(() => api.checkModel({
    modelText: $("#model").value, fileName: "model.wnm",
    data: dataSpec(), hyperparameters: hyperparameters(),
  }));
  if (!answer) return;
  $("#diagnostics").innerHTML = answer.diagnostics.map((d) =>
    html`<div class="diagnostic" data-line="${d.line}" data-column="${d.column}">line ${d.line}, column ${d.column}: ${d.severity}: ${d.message}</div>`,
  ).join("") + answer.warnings.map((w) => html`<div class="warning">⚠ ${w}</div>`).join("");
  for (const el of document.querySelectorAll(".diagnostic")) {
    el.onclick = () => goTo(Number(el.dataset.line), Number(el.dataset.column));
  }
  markDiagnostics(answer.diagnostics);
  showPreview(answer);
  if (answer.ok) {
    const tensor = (t) => html`<tr><td>${t.name}</td><td>${t.dataType}</td><td>[${t.shape.join(", ")}]</td></tr>`;
    $("#summary").innerHTML = html`<p>model <b>${answer.modelName}</b>:
      ${answer.parameters} trainable parameters, ${answer.operations} operations</p>
      <table><thead><tr><th>inputs, outputs, parameters</th><th>type</th><th>shape</th></tr></thead>
      <tbody>${raw([...answer.inputs, ...answer.outputs, ...answer.parameterTensors].map(tensor).join(""))}</tbody></table>`;
    status(answer.previewError ? `the model checks; no preview: ${answer.previewError}` : "the model checks",
      answer.previewError !== "");
  } else {
    $("#summary").innerHTML = "";
    status(`${answer.diagnostics.length} problems`, true);
  }
}

// The expert system's decisions, and each hyperparameter's resolved value
// as its field's placeholder.
function showPreview(answer) {
  const expert = $("#expert");
  if (!answer.ok || answer.previewError || !answer.resolved) {
    expert.innerHTML = answer.previewError ? html`<div class="warning">no preview: ${answer.previewError}</div>` : "";
    return;
  }
  expert.innerHTML = answer.decisions.map((d) =>
    html`<div class="decision"><b>${d.what}</b> — ${d.why}</div>`).join("") ||
    "no decisions";
  if (!$("#dataset").value) {
    expert.insertAdjacentHTML("beforeend",
      '<div class="muted">(pick a dataset for the decisions that need the data)</div>');
  }
  // An unset value (lr: the range test chooses it in training) keeps the
  // field's default.
  for (const [name, , dflt] of hyperFields) {
    const v = answer.resolved[name];
    $(`#h-${name}`).placeholder = v === undefined ? String(dflt)
      : typeof v === "number" ? String(Number(v.toPrecision(6))) : String(v);
  }
}

async function sha256Hex(bytes) {
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

const idxNames = ["train-images-idx3-ubyte", "train-labels-idx1-ubyte",
  "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"];

// Uploads the picked files — one CSV file, one NumPy .npz archive, or the
// four IDX files (gzipped or not) — unless the daemon has their content,
// then picks the dataset.
async function uploadPicked() {
  const files = [...$("#file").files].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  if (files.length === 0) return;
  const isIdx = (f) => idxNames.includes(f.name.replace(/\.gz$/, ""));
  let format;
  if (files.length === 1 && files[0].name.endsWith(".npz")) {
    format = DatasetFormat.NPZ;
  } else if (files.length === 1 && files[0].name.endsWith(".zip")) {
    format = DatasetFormat.IMAGES;  // a zipped image folder
  } else if (files.length === 1 && !isIdx(files[0])) {
    format = DatasetFormat.CSV;
  } else if (files.length === 4 && files.every(isIdx) &&
             idxNames.every((n) => files.some((f) => f.name.replace(/\.gz$/, "") === n))) {
    format = DatasetFormat.IDX;
  } else {
    throw new Error(`pick one CSV, .npz or .zip (an image folder) file, or the four IDX files (${idxNames.join(", ")}[.gz])`);
  }
  const name = format === DatasetFormat.IDX ? "idx" : files[0].name;
  const id = await uploadDataset(name, format, files);
  const select = $("#dataset");
  if (![...select.options].some((o) => o.value === id)) {
    select.insertAdjacentHTML("beforeend", html`<option value="${id}">${name} (${id})</option>`);
  }
  select.value = id;
  status(`uploaded ${files.map((f) => f.name).join(", ")} as dataset ${id}`);
}

// The daemon's content hash: for each file by name, its name, NUL, its
// size in decimal, NUL and its bytes; uploads in 1 MiB chunks.
async function uploadDataset(name, format, files) {
  const contents = await Promise.all(files.map(async (f) => new Uint8Array(await f.arrayBuffer())));
  const encoder = new TextEncoder();
  const parts = files.flatMap((f, i) => [encoder.encode(`${f.name}\0${contents[i].length}\0`), contents[i]]);
  const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  parts.reduce((at, p) => { all.set(p, at); return at + p.length; }, 0);
  const total = contents.reduce((n, c) => n + c.length, 0);
  const start = await api.uploadDataset({
    name, format, sha256: await sha256Hex(all), totalBytes: BigInt(total),
  });
  if (start.dataset) return start.dataset.datasetId;
  const chunk = 1 << 20;
  let sent = 0;
  for (const [i, file] of files.entries()) {
    const bytes = contents[i];
    for (let at = 0; at < bytes.length; at += chunk) {
      status(`uploading ${file.name}: ${Math.round((100 * sent) / total)}%`);
      const data = bytes.subarray(at, at + chunk);
      await api.uploadDataset({ uploadId: start.uploadId, fileName: file.name, offset: BigInt(at), data });
      sent += data.length;
    }
  }
  const done = await api.uploadDataset({ uploadId: start.uploadId, finish: true });
  return done.dataset.datasetId;
}

async function submit() {
  await guard(async () => {
    if (!$("#dataset").value) throw new Error("pick or upload a dataset first");
    const answer = await api.submitJob({
      modelText: $("#model").value, fileName: "model.wnm",
      data: dataSpec(), hyperparameters: hyperparameters(),
    });
    location.hash = `#/job/${answer.job.jobId}`;
  });
}

// --- Routing and sign-in --------------------------------------------------

function route() {
  if (watching && !location.hash.startsWith("#/job/")) watching.abort();
  const hash = location.hash || "#/jobs";
  status("");
  if (hash.startsWith("#/job/")) return showJob(decodeURIComponent(hash.slice(6)));
  if (hash.startsWith("#/new")) return showNew();
  if (hash.startsWith("#/compare")) {
    const ids = new URLSearchParams(hash.split("?")[1] ?? "").get("ids");
    return showCompare(ids ? ids.split(",").filter(Boolean) : []);
  }
  return showJobs();
}

$("#signin").onsubmit = (e) => {
  e.preventDefault();
  const token = $("#token").value.trim();
  if (token) localStorage.setItem(tokenKey, token);
  else localStorage.removeItem(tokenKey);
  $("#token").value = "";
  $("#whoami").textContent = token ? "signed in" : "";
  route();
};
$("#whoami").textContent = localStorage.getItem(tokenKey) ? "signed in" : "";
window.addEventListener("hashchange", route);
route();

export { EventType };  // (keeps the enum for debugging from the console)
