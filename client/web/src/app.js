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
import { divergedAt, drawChart, hover, palette } from "./chart.js";

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

// --- Charts (chart.js) ----------------------------------------------------

function legend(series) {
  return series.map((s, i) => html`<span style="color:${raw(s.color ?? palette[i % palette.length])}">
    ${s.dashed ? "┄" : "━"} ${s.name}</span>`).join("");
}

// --- Jobs ----------------------------------------------------------------

const isEnded = (state) => ["SUCCEEDED", "FAILED", "CANCELLED"].includes(stateName(state));

// Seconds as "12s", "3m04s", "1h02m".
function duration(seconds) {
  if (seconds === undefined) return "–";
  const s = Math.floor(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor(s / 60) % 60).padStart(2, "0")}m`;
}

const seconds = (t) => (t ? Number(t.seconds) + t.nanos / 1e9 : undefined);
function jobSeconds(j) {
  const start = seconds(j.started);
  if (start === undefined) return undefined;
  return Math.max(0, (seconds(j.finished) ?? Date.now() / 1000) - start);
}

// The main test figure: accuracy, else the first regression output's R².
function testFigure(j) {
  if (j.testAccuracy !== undefined) return `acc ${fixed(j.testAccuracy)}`;
  const r2 = j.summary?.metrics?.find((m) => !m.classification && m.r2.length)?.r2[0];
  return r2 !== undefined ? `R² ${fixed(r2)}` : "–";
}

const tagText = (j) => Object.entries(j.tags ?? {}).sort().map(([k, v]) => `${k}=${v}`).join(", ");

function jobRow(j, picked) {
  const done = j.epochs ? Math.min(100, (100 * j.epoch) / j.epochs) : 0;
  return html`<tr>
    <td><input type="checkbox" class="pick" value="${j.jobId}" ${raw(picked.has(j.jobId) ? "checked" : "")} aria-label="select ${j.jobId}"></td>
    <td><a href="#/job/${j.jobId}">${j.name || j.modelName || "–"}</a><div class="mono muted small">${j.jobId}</div></td>
    <td class="state-${stateName(j.state)}">${stateName(j.state)}</td>
    <td><div class="progress" title="${j.epoch}/${j.epochs}"><div style="width:${raw(done.toFixed(0))}%"></div></div>${j.epoch}/${j.epochs}</td>
    <td>${duration(jobSeconds(j))}</td>
    <td>${j.summary?.validationLoss !== undefined ? fixed(j.summary.validationLoss) : "–"}</td>
    <td>${testFigure(j)}</td>
    <td class="small">${tagText(j) || "–"}</td>
  </tr>`;
}

let refreshing = null;  // the jobs list's live refresh

async function showJobs() {
  view().innerHTML = html`
    <h2>Jobs</h2>
    <p><button id="compare" disabled>Compare the selected jobs</button>
      <span class="muted small" id="live"></span></p>
    <div class="scroll"><table>
      <thead><tr><th></th><th>run</th><th>state</th><th>epoch</th><th>duration</th>
        <th>best validation loss</th><th>test</th><th>tags</th></tr></thead>
      <tbody id="jobs"></tbody>
    </table></div>`;
  const picked = new Set();
  const body = $("#jobs");
  body.onchange = (e) => {
    if (!e.target.classList.contains("pick")) return;
    if (e.target.checked) picked.add(e.target.value); else picked.delete(e.target.value);
    $("#compare").disabled = picked.size === 0;
  };
  $("#compare").onclick = () => { location.hash = `#/compare?ids=${[...picked].join(",")}`; };
  const load = async () => {
    const answer = await guard(() => api.listJobs({ pageSize: 200 }));
    if (!answer || !document.body.contains(body)) return;
    body.innerHTML = answer.jobs.map((j) => jobRow(j, picked)).join("") ||
      '<tr><td colspan="8" class="empty">No jobs yet: <a href="#/new">write a model and submit it</a>.</td></tr>';
    $("#live").textContent = `${answer.jobs.length} jobs · refreshed ${new Date().toLocaleTimeString()}`;
  };
  await load();
  clearInterval(refreshing);
  refreshing = setInterval(() => {
    if (location.hash.startsWith("#/jobs") || location.hash === "") load();
    else clearInterval(refreshing);
  }, 2000);
}

// A job's epoch series from its metrics.
async function series(jobId) {
  const m = await api.getMetrics({ jobId });
  const get = (name) => (m.series.find((s) => s.name === name)?.points ?? [])
    .map((p) => [p.epoch, p.value]);
  return {
    train: get("trainLoss"), validation: get("validationLoss"), lr: get("lr"),
    trainAccuracy: get("trainAccuracy"), validationAccuracy: get("validationAccuracy"),
  };
}

// The hyperparameters' names in the specification's order (the proto's
// fields, camelCase).
const hyperNames = ["epochs", "lr", "warmupEpochs", "seeds", "patience", "lossWeights",
  "optimizer", "weightDecay", "momentumFactor", "beta1", "beta2", "freeze",
  "regularization", "lambda1", "lambda2", "optimizeFor", "gradientScaling",
  "gradientClipping", "scale", "growthInterval", "seed", "threads", "replicas", "batchSize",
  "clipAlpha", "agcLambda", "timeBudget"];

const shown = (v) => (typeof v === "number" ? String(Number(v.toPrecision(6))) : String(v));

// MLflow's Parameters table: each resolved value, and whether the user
// set it or the expert system (or a default) chose it.
function parametersTable(job) {
  const resolved = job.resolvedHyperparameters;
  const given = job.hyperparameters ?? {};
  const rows = hyperNames.map((name) => {
    const v = resolved?.[name] ?? given[name];
    if (v === undefined) return "";
    const set = given[name] !== undefined;
    return html`<tr><td>${name}</td><td class="mono">${shown(v)}</td><td class="${set ? "" : "muted"}">${set ? "set" : resolved ? "chosen" : "default"}</td></tr>`;
  }).join("");
  const d = job.data ?? {};
  const data = [
    ["dataset", job.dataset ? `${job.dataset.name} (${job.datasetId})` : job.datasetId || "–"],
    ["rows × columns", job.dataset?.rows !== undefined ? `${job.dataset.rows} × ${job.dataset.columns}` : "–"],
    ["label", d.label || (d.chosenLabel ? `${d.chosenLabel} (chosen for the model)` : "(chosen for the model)")], ["split", d.split || "70,15,15"],
    ["duration", duration(jobSeconds(job))],
  ].map(([k, v]) => html`<tr><td>${k}</td><td class="mono" colspan="2">${v}</td></tr>`).join("");
  return html`<div class="scroll"><table class="params"><thead><tr><th>parameter</th><th>value</th><th></th></tr></thead>
    <tbody>${raw(rows || '<tr><td colspan="3" class="muted">resolved when training starts</td></tr>')}${raw(data)}</tbody></table></div>`;
}

let watching = null;  // the AbortController of the job being watched

function noSuchJob(jobId, error) {
  const missing = error?.code === 5 || /no job/.test(error?.rawMessage ?? "");
  view().innerHTML = missing
    ? html`<h2>No such job</h2><p>There is no job <span class="mono">${jobId}</span> (it may have been deleted). <a href="#/jobs">Back to the jobs</a>.</p>`
    : html`<h2>Job <span class="mono">${jobId}</span></h2><p class="error">${error?.rawMessage ?? error?.message ?? error}</p>`;
  status(missing ? `no such job ${jobId}` : String(error?.rawMessage ?? error), true);
}

// Cancel, Resume and Delete enabled only when they apply.
function updateButtons(state) {
  const name = stateName(state);
  $("#cancel").disabled = !["QUEUED", "RUNNING"].includes(name);
  $("#resume").disabled = !["CANCELLED", "FAILED"].includes(name);
  $("#delete").disabled = !["SUCCEEDED", "FAILED", "CANCELLED"].includes(name);
  $("#state").textContent = name;
  $("#state").className = `state-${name}`;
}

async function showJob(jobId) {
  let job;
  try {
    job = await api.getJob({ jobId });
  } catch (e) {
    noSuchJob(jobId, e);
    return;
  }
  const title = job.name || job.modelName || jobId;
  view().innerHTML = html`
    <h2>${title} <small class="mono muted">${jobId}</small> <small id="state"></small></h2>
    <p class="small">${tagText(job) ? `tags: ${tagText(job)}` : ""} ${job.note ? `· ${job.note}` : ""}</p>
    <p>
      <button id="cancel">Cancel</button> <button id="resume">Resume</button>
      <button id="delete">Delete</button> <button id="download">Download snapshot</button>
    </p>
    <div class="grid">
      <div class="card"><h3>Loss</h3>
        <div class="controls"><label><input type="checkbox" id="log"> log scale</label>
          <label>smoothing <input type="range" id="smoothing" min="0" max="0.99" step="0.01" value="0"></label>
          <output id="smoothing-value">0</output></div>
        <div class="chart-wrap"><canvas id="chart"></canvas><div class="tooltip" id="tip" hidden></div></div>
        <div class="legend" id="legend"></div><p id="numbers"></p><p id="step" class="muted small"></p>
        <h3>Accuracy</h3>
        <div class="chart-wrap"><canvas id="accuracy"></canvas><div class="tooltip" id="accuracy-tip" hidden></div></div>
        <div class="legend" id="accuracy-legend"></div></div>
      <div class="card"><h3>Expert system</h3><div id="decisions"></div>
        <h3>Scouting</h3><div id="scout">–</div><h3>Test</h3><div id="test">–</div></div>
      <div class="card"><h3>Parameters</h3><div id="parameters">${raw(parametersTable(job))}</div></div>
      <div class="card"><h3>Inference</h3>
        <div id="infer-inputs"></div>
        <p><button id="infer">Infer</button></p><pre id="inference" class="mono"></pre></div>
      <div class="card"><h3>Predict a dataset</h3>
        <p><select id="predict-dataset"></select>
          <select id="predict-format"><option value="csv">CSV</option><option value="npz">NumPy .npz</option></select></p>
        <p><button id="predict">Predict and download</button></p><p id="predicted"></p></div>
    </div>`;
  updateButtons(job.state);
  guard(async () => {
    const { datasets } = await api.listDatasets({});
    $("#predict-dataset").innerHTML = datasets.map((d) => html`<option value="${d.datasetId}">${d.name} (${d.datasetId})</option>`).join("");
    if (job.datasetId) $("#predict-dataset").value = job.datasetId;
  });
  $("#predict").onclick = () => guard(() => predictDataset(jobId));
  const inputs = await inferenceInputs(job);
  const train = [], validation = [], lr = [], trainAccuracy = [], validationAccuracy = [];
  let loss = null, accuracy = null;
  // A run the trainer gave up on (it reports no diverged epoch).
  let note = /diverged/.test(job.error) ? `the run diverged: ${job.error}` : undefined;
  const best = () => {
    let at, lowest = Infinity;
    for (const [x, y] of validation.length ? validation : train) if (y < lowest) { lowest = y; at = x; }
    return at;
  };
  const redraw = () => {
    const s = [{ name: "training loss", points: train },
      { name: "validation loss", points: validation, dashed: true },
      { name: "learning rate", points: lr, axis: "right", color: "#8a8f99" }];
    loss = drawChart($("#chart"), s, {
      yTitle: "loss", rightTitle: "learning rate", log: $("#log").checked,
      smoothing: Number($("#smoothing").value), best: best(), note,
    });
    $("#legend").innerHTML = legend(loss.series);
    const a = [{ name: "training accuracy", points: trainAccuracy },
      { name: "validation accuracy", points: validationAccuracy, dashed: true }];
    accuracy = drawChart($("#accuracy"), a, {
      yTitle: "accuracy", smoothing: Number($("#smoothing").value),
      empty: "no accuracy (a regression model, or no epochs yet)",
    });
    $("#accuracy-legend").innerHTML = legend(accuracy.series);
    if (divergedAt(s) !== undefined) $("#numbers").classList.add("error");
  };
  hover($("#chart"), $("#tip"), () => loss);
  hover($("#accuracy"), $("#accuracy-tip"), () => accuracy);
  $("#log").onchange = redraw;
  $("#smoothing").oninput = () => { $("#smoothing-value").textContent = $("#smoothing").value; redraw(); };
  const action = (id, call) => ($(id).onclick = () => guard(async () => {
    await call();
    status(`${id.slice(1)}: done`);
  }));
  action("#cancel", () => api.cancelJob({ jobId }));
  action("#resume", async () => { await api.resumeJob({ jobId }); showJob(jobId); });
  action("#delete", async () => {
    if (!confirm(`Delete job ${title} (${jobId}) with its snapshots and metrics?`)) return;
    await api.deleteJob({ jobId });
    location.hash = "#/jobs";
  });
  action("#download", () => downloadSnapshot(jobId));
  $("#infer").onclick = () => infer(jobId, inputs);

  if (watching) watching.abort();
  watching = new AbortController();
  const signal = watching.signal;
  const decisions = $("#decisions");
  const refresh = () => guard(async () => {
    job = await api.getJob({ jobId });
    $("#parameters").innerHTML = parametersTable(job);
    updateButtons(job.state);
  });
  guard(async () => {
    for await (const e of api.watchJob({ jobId, fromSeq: 1n, progress: true }, { signal })) {
      switch (e.detail.case) {
        case "progress": {  // within an epoch (not stored; seq 0)
          const p = e.detail.value;
          $("#step").textContent = `epoch ${p.epoch}/${p.epochs}: step ${p.step}/${p.steps}` +
            (p.seconds > 0 ? ` · ${Math.round(Number(p.rows) / p.seconds)} samples/s` : "");
          break;
        }
        case "state":
          updateButtons(e.detail.value);
          if (isEnded(e.detail.value)) $("#step").textContent = "";
          refresh();
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
          if (p.epoch === 1) refresh();  // the resolved hyperparameters
          train.push([p.epoch, p.trainLoss]);
          lr.push([p.epoch, p.lr]);
          if (p.validationLoss !== undefined) validation.push([p.epoch, p.validationLoss]);
          if (p.trainAccuracy !== undefined) trainAccuracy.push([p.epoch, p.trainAccuracy]);
          if (p.validationAccuracy !== undefined) validationAccuracy.push([p.epoch, p.validationAccuracy]);
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
          if (/diverged/.test(e.detail.value)) {
            note = `the run diverged: ${e.detail.value}`;
            redraw();
          }
          break;
        default:
          break;
      }
    }
    status(`job ${jobId}: stream ended`);
  });
  redraw();
}

// The inference form: a field per model input, named, with the values it
// takes (from the model's text; an imported snapshot's job: one field).
async function inferenceInputs(job) {
  let inputs = [{ name: "", shape: [] }];
  if (job.modelText) {
    const checked = await guard(() => api.checkModel({ modelText: job.modelText, fileName: "model.wnm" }));
    if (checked?.ok && checked.inputs.length) {
      inputs = checked.inputs.map((t) => ({ name: t.name, shape: t.shape.map(Number).slice(1) }));
    }
  }
  const count = (shape) => (shape.length && shape.every((d) => d > 0) ? shape.reduce((a, b) => a * b, 1) : undefined);
  $("#infer-inputs").innerHTML = html`<p class="muted small">${inputs.length} ${inputs.length === 1 ? "input" : "inputs"}</p>` +
    inputs.map((t, i) => html`<label class="infer-input">${t.name || "input"}${t.shape.length ? ` [${t.shape.join(", ")}]` : ""}
      <input id="values-${i}" class="values" data-name="${t.name}" placeholder="${count(t.shape) ? `${count(t.shape)} comma-separated values` : "comma-separated values"}"></label>`).join("");
  return inputs;
}

async function infer(jobId, inputs) {
  const out = $("#inference");
  out.textContent = "";  // a failed inference leaves no old answer behind
  out.classList.remove("error");
  try {
    const tensors = inputs.map((t, i) => {
      const text = $(`#values-${i}`).value.trim();
      const values = text === "" ? [] : text.split(",").map((v) => Number(v.trim()));
      if (values.length === 0 || values.some((v) => !Number.isFinite(v))) {
        throw new Error(`${t.name || "the input"}: type comma-separated numbers`);
      }
      const known = t.shape.length && t.shape.every((d) => d > 0);
      const count = known ? t.shape.reduce((a, b) => a * b, 1) : values.length;
      if (values.length !== count) {
        throw new Error(`${t.name || "the input"} takes ${count} values, not ${values.length}`);
      }
      return { name: t.name, shape: [1n, ...(known ? t.shape : [values.length]).map(BigInt)], values };
    });
    const answer = await api.infer({ jobId, inputs: tensors });
    out.textContent = answer.outputs.map((o) => {
      let text = `${o.name}: [${o.values.map((v) => v.toPrecision(4)).join(", ")}]`;
      if (answer.classes.length === o.values.length) {
        const best = o.values.indexOf(Math.max(...o.values));
        text += `\n→ ${answer.classes[best]}`;
      }
      return text;
    }).join("\n");
    status("inferred");
  } catch (e) {
    out.textContent = `error: ${e.rawMessage ?? e.message ?? e}`;
    out.classList.add("error");
    status(out.textContent, true);
  }
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

// MLflow's compare view: the runs' parameters and final figures side by
// side (rows that differ marked), and their curves overlaid, by run name.
async function showCompare(ids) {
  if (ids.length === 0) {
    view().innerHTML = html`<h2>Compare</h2><div class="card empty">
      <p>Nothing to compare yet. Tick two or more runs on the <a href="#/jobs">Jobs</a> page, then press <b>Compare the selected jobs</b>.</p></div>`;
    status("");
    return;
  }
  view().innerHTML = html`<h2>Compare</h2>
    <div class="card"><h3>Loss</h3>
      <div class="controls"><label><input type="checkbox" id="log"> log scale</label>
        <label>smoothing <input type="range" id="smoothing" min="0" max="0.99" step="0.01" value="0"></label></div>
      <div class="chart-wrap"><canvas id="chart"></canvas><div class="tooltip" id="tip" hidden></div></div>
      <div class="legend" id="legend"></div></div>
    <div class="card"><h3>Runs</h3><div class="scroll" id="runs"></div></div>`;
  const runs = [];
  for (const id of ids) {
    const r = await guard(async () => ({ job: await api.getJob({ jobId: id }), s: await series(id) }));
    if (!r) return;
    runs.push(r);
  }
  const label = (j) => `${j.name || j.modelName || j.jobId} (${j.jobId.slice(0, 7)})`;
  let layout = null;
  const redraw = () => {
    const all = [];
    runs.forEach(({ job, s }, i) => {
      const color = palette[i % palette.length];
      all.push({ name: `${label(job)} training`, points: s.train, color });
      all.push({ name: `${label(job)} validation`, points: s.validation, color, dashed: true });
    });
    layout = drawChart($("#chart"), all, {
      yTitle: "loss", log: $("#log").checked, smoothing: Number($("#smoothing").value),
    });
    $("#legend").innerHTML = legend(layout.series);
  };
  hover($("#chart"), $("#tip"), () => layout);
  $("#log").onchange = redraw;
  $("#smoothing").oninput = redraw;
  redraw();
  const value = (job, name) => {
    const v = job.resolvedHyperparameters?.[name] ?? job.hyperparameters?.[name];
    return v === undefined ? "–" : shown(v);
  };
  const figures = [
    ["state", (j) => stateName(j.state)], ["epochs run", (j) => `${j.epoch}/${j.epochs}`],
    ["duration", (j) => duration(jobSeconds(j))],
    ["best validation loss", (j) => (j.summary?.validationLoss !== undefined ? fixed(j.summary.validationLoss) : "–")],
    ["test loss", (j) => fixed(j.testLoss)], ["test", (j) => testFigure(j)],
    ["dataset", (j) => j.dataset?.name ?? j.datasetId ?? "–"],
  ];
  const rows = [...figures, ...hyperNames.map((n) => [n, (j) => value(j, n)])]
    .map(([name, get]) => {
      const cells = runs.map(({ job }) => get(job));
      if (cells.every((c) => c === "–")) return "";
      const differs = new Set(cells).size > 1;
      return html`<tr class="${differs ? "differs" : ""}"><td>${name}</td>${raw(cells.map((c) => html`<td class="mono">${c}</td>`).join(""))}</tr>`;
    }).join("");
  $("#runs").innerHTML = html`<table class="compare"><thead><tr><th></th>${raw(runs.map(({ job }, i) =>
    html`<th><span style="color:${raw(palette[i % palette.length])}">━</span> <a href="#/job/${job.jobId}">${label(job)}</a></th>`).join(""))}</tr></thead>
    <tbody>${raw(rows)}</tbody></table>`;
  status(`${ids.length} runs`);
}

// --- A new job -----------------------------------------------------------

// The hyperparameter fields: [name, type, the spec's default, choices].
// After a preview, each field shows what the job would train with (a
// number's placeholder, a choice's first option).
const hyperFields = [
  ["epochs", "int", "auto"],
  ["optimizer", "choice", "auto", ["lion", "rlion", "nesterov", "sgdm", "adam", "adamw"]],
  ["lr", "float", "auto"], ["batchSize", "int", "auto"], ["seeds", "int", 100],
  ["patience", "int", "auto"], ["seed", "bigint", 1], ["warmupEpochs", "int", ""],
  ["weightDecay", "float", ""], ["regularization", "choice", "auto", ["auto", "L1", "L2", "L1+L2", "off"]],
  ["lambda1", "float", 0], ["lambda2", "float", 0],
  ["gradientClipping", "choice", "auto", ["auto", "global", "agc", "off"]],
  ["gradientScaling", "choice", "auto", ["auto", "on", "off"]],
  ["lossWeights", "text", "auto"], ["freeze", "float", 0], ["timeBudget", "float", "none"],
  ["epsilon", "float", "the optimizer's"],
];

// Why a field's text is not a value of its type, or "".
function invalidValue(type, v) {
  if (v === "") return "";
  if (type === "int" && !/^-?\d+$/.test(v)) return `${JSON.stringify(v)} is not a whole number`;
  if (type === "bigint" && !/^\d+$/.test(v)) return `${JSON.stringify(v)} is not a whole number of 0 or more`;
  if (type === "float" && !(v.trim() !== "" && Number.isFinite(Number(v)))) return `${JSON.stringify(v)} is not a number`;
  return "";
}

function hyperField([name, type, dflt, choices]) {
  if (type === "choice") {
    return html`<label>${name}<select id="h-${name}" data-default="${dflt}"><option value="">(${dflt})</option>${raw(
      choices.map((c) => html`<option>${c}</option>`).join(""))}</select></label>`;
  }
  return html`<label>${name}<input id="h-${name}" placeholder="${dflt}" data-type="${type}"
    ${raw(type === "text" ? "" : 'inputmode="decimal"')}><small class="field-error" id="e-${name}"></small></label>`;
}

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
        <p><button id="starter" disabled>Write a starter model for this dataset</button>
          <span class="muted">(replaces the model text)</span></p>
        <div class="fields">
          <label>label column<select id="label"><option value="">(chosen for the model)</option></select></label>
          <label>split<input id="split" placeholder="70,15,15"><small class="field-error" id="e-split"></small></label>
          <label>standardize<input id="standardize" type="checkbox"></label>
          <label>impute<select id="impute"><option value="">auto (the median, when any is missing)</option><option>none</option><option>mean</option><option>median</option></select></label>
          <label>resize images<input id="resize" type="checkbox"></label>
        </div>
        <h3>Hyperparameters</h3>
        <div class="fields">${raw(hyperFields.map(hyperField).join(""))}</div>
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
  $("#file").onchange = () => guard(async () => { await uploadPicked(); await datasetPicked(); });
  $("#dataset").onchange = () => guard(() => datasetPicked());
  $("#starter").onclick = () => guard(() => writeStarter());
  // Numbers are checked as they are typed, beside their field.
  for (const [name, type] of hyperFields) {
    if (type === "choice" || type === "text") continue;
    const field = $(`#h-${name}`);
    field.oninput = () => {
      const why = invalidValue(type, field.value.trim());
      $(`#e-${name}`).textContent = why;
      field.setAttribute("aria-invalid", why ? "true" : "false");
    };
  }
  $("#split").oninput = () => {
    const v = $("#split").value.trim();
    const ok = v === "" || /^\s*\d+(\.\d+)?\s*,\s*\d+(\.\d+)?\s*,\s*\d+(\.\d+)?\s*$/.test(v);
    $("#e-split").textContent = ok ? "" : "three percentages, such as 70,15,15";
    $("#split").setAttribute("aria-invalid", ok ? "false" : "true");
  };
  $("#check").onclick = () => checkModel();
  $("#preview").onclick = () => checkModel();
  $("#submit").onclick = () => submit();
  markDiagnostics([]);
}

// A dataset picked (or uploaded): its header's columns become the label
// field's choices, and a starter model can be written for it.
async function datasetPicked() {
  const id = $("#dataset").value;
  $("#starter").disabled = !id;
  const label = $("#label");
  label.innerHTML = html`<option value="">(chosen for the model)</option>`;
  if (!id) return;
  const { datasets } = await api.listDatasets({});
  const picked = datasets.find((d) => d.datasetId === id);
  for (const column of picked?.header ?? []) {
    label.insertAdjacentHTML("beforeend", html`<option>${column}</option>`);
  }
}

// The daemon's starter model for the picked dataset (InitModel), in the
// editor, then checked.
async function writeStarter() {
  const id = $("#dataset").value;
  if (!id) throw new Error("pick or upload a dataset first");
  const answer = await api.initModel({ datasetId: id, label: $("#label").value });
  $("#model").value = answer.modelText;
  markDiagnostics([]);
  status(`a starter model: ${answer.notes.join("; ")}`);
  await checkModel();
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

// The fields' values; throws naming every field that holds no value of
// its type (nothing is sent then).
function hyperparameters() {
  const out = {}, wrong = [];
  for (const [name, type] of hyperFields) {
    const v = $(`#h-${name}`).value.trim();
    if (v === "") continue;
    const why = invalidValue(type, v);
    if (why) { wrong.push(`${name}: ${why}`); continue; }
    out[name] = type === "text" || type === "choice" ? v : type === "bigint" ? BigInt(v) : Number(v);
  }
  if ($("#split").getAttribute("aria-invalid") === "true") wrong.push("split: three percentages, such as 70,15,15");
  if (wrong.length) throw new Error(`fix the fields first: ${wrong.join("; ")}`);
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
  for (const [name, type, dflt] of hyperFields) {
    const v = answer.resolved[name];
    const text = v === undefined ? String(dflt)
      : typeof v === "number" ? String(Number(v.toPrecision(6))) : String(v);
    const field = $(`#h-${name}`);
    field.dataset.resolved = text;
    if (type === "choice") field.options[0].textContent = `(${text})`;
    else field.placeholder = text;
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
