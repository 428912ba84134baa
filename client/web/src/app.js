// WebNNM's browser front end: talks to webnnmd over grpc-web (the daemon
// serves this page and the API on the same origin), with connect-web and
// the messages generated from proto/webnnm/v1/webnnm.proto.
//
// Views (the URL's hash): #/jobs, #/job/<id>, #/compare?ids=a,b (here) and
// #/new (new_job.js); the job page's inference (inference.js) and test
// figures (results.js); the API and the helpers every view uses: api.js.
import {
  EventType,
  JobState,
  PredictFormat,
} from "../gen/webnnm/v1/webnnm_pb.js";
import {
  $, api, fixed, guard, html, raw, stateName, status, tokenKey, view,
} from "./api.js";
import { divergedAt, drawChart, hover, palette, zoom } from "./chart.js";
import { infer, inferInBrowser, inferenceInputs } from "./inference.js";
import { showNew } from "./new_job.js";
import { outputMetrics, standardizedTargets } from "./results.js";

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

// The two rates, each named: the training steps' own, and samples trained
// over the run's wall time (scouting, the range test, validation, tests).
function speedText(job) {
  const steps = job.summary?.trainSamplesPerSecond;
  if (!steps) return "–";
  const wall = jobSeconds(job) > 0 ? Number(job.summary.trainedSamples) / jobSeconds(job) : undefined;
  return `${Math.round(steps)} samples/s in the training steps` +
    (wall ? `; ${Math.round(wall)} samples/s over the run's wall time` : "");
}

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
    ["speed", speedText(job)],
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
  $("#download-onnx").disabled = name !== "SUCCEEDED";
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
      <button id="download-onnx" title="the model as an ONNX file: raw features in, predict's answers out (docs/interop.md)">Download ONNX</button>
    </p>
    <div class="grid">
      <div class="card"><h3>Loss</h3>
        <div class="controls"><label><input type="checkbox" id="log"> log scale</label>
          <label>smoothing <input type="range" id="smoothing" min="0" max="0.99" step="0.01" value="0"></label>
          <output id="smoothing-value">0</output>
          <label>x <select id="x-axis"><option value="epoch">epoch</option><option value="wall">wall time</option></select></label>
          <button id="zoom-out" hidden title="or double-click the chart">zoom out</button></div>
        <div class="chart-wrap" title="drag across the chart to zoom in"><canvas id="chart"></canvas><div class="tooltip" id="tip" hidden></div></div>
        <div class="legend" id="legend"></div><p id="numbers"></p><p id="step" class="muted small"></p>
        <p><button id="download-csv" title="every epoch's losses, learning rate and accuracies">Download CSV</button></p>
        <div id="accuracy-section"><h3>Accuracy</h3>
        <div class="chart-wrap"><canvas id="accuracy"></canvas><div class="tooltip" id="accuracy-tip" hidden></div></div>
        <div class="legend" id="accuracy-legend"></div></div>
        <p id="regression-note" class="muted" hidden>A regression model: no accuracy to chart — its errors (MAE, RMSE, R² in the target's units) are under Test.</p></div>
      <div class="card"><h3>Expert system</h3><div id="decisions"></div>
        <h3>Scouting</h3><div id="scout">–</div><h3>Test</h3><div id="test">–</div></div>
      <div class="card"><h3>Parameters</h3><div id="parameters">${raw(parametersTable(job))}</div></div>
      <div class="card"><h3>Inference</h3>
        <div id="infer-inputs"></div>
        <p><button id="infer">Infer</button>
          <button id="infer-browser" title="the exported ONNX file, run here by ONNX Runtime Web: WebNN where the browser has it, WebAssembly otherwise">Run in this browser</button></p>
        <pre id="inference" class="mono"></pre><pre id="browser-inference" class="mono"></pre></div>
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
  const epochTimes = new Map();  // epoch -> seconds since 1970 (its event's time)
  let loss = null, accuracy = null, xRange = null;
  // Epochs on x, or seconds since the first epoch's end (wall time).
  const onX = (points) => {
    if ($("#x-axis").value !== "wall") return points;
    const t0 = Math.min(...epochTimes.values());
    return points.filter(([epoch]) => epochTimes.has(epoch)).map(([epoch, v]) => [epochTimes.get(epoch) - t0, v]);
  };
  const xTitle = () => ($("#x-axis").value === "wall" ? "wall time (s)" : "epoch");
  // A run the trainer gave up on (it reports no diverged epoch).
  let note = /diverged/.test(job.error) ? `the run diverged: ${job.error}` : undefined;
  const best = () => {
    let at, lowest = Infinity;
    for (const [x, y] of validation.length ? validation : train) if (y < lowest) { lowest = y; at = x; }
    return at;
  };
  const redraw = () => {
    const s = [{ name: "training loss", points: onX(train) },
      { name: "validation loss", points: onX(validation), dashed: true },
      { name: "learning rate", points: onX(lr), axis: "right", color: "#8a8f99" }];
    loss = drawChart($("#chart"), s, {
      yTitle: "loss", rightTitle: "learning rate", log: $("#log").checked,
      smoothing: Number($("#smoothing").value), best: best(), note, xRange, xTitle: xTitle(),
    });
    $("#zoom-out").hidden = xRange === null;
    $("#legend").innerHTML = legend(loss.series);
    const a = [{ name: "training accuracy", points: onX(trainAccuracy) },
      { name: "validation accuracy", points: onX(validationAccuracy), dashed: true }];
    // A regression model has no accuracy: its errors are under Test.
    const regression = train.length > 0 && trainAccuracy.length === 0;
    $("#accuracy-section").hidden = regression;
    $("#regression-note").hidden = !regression;
    accuracy = drawChart($("#accuracy"), a, {
      yTitle: "accuracy", smoothing: Number($("#smoothing").value),
      empty: "no accuracy yet (no epochs)", xRange, xTitle: xTitle(),
    });
    $("#accuracy-legend").innerHTML = legend(accuracy.series);
    if (divergedAt(s) !== undefined) $("#numbers").classList.add("error");
  };
  hover($("#chart"), $("#tip"), () => loss);
  hover($("#accuracy"), $("#accuracy-tip"), () => accuracy);
  const zoomTo = (range) => { xRange = range; redraw(); };
  zoom($("#chart"), () => loss, zoomTo);
  zoom($("#accuracy"), () => accuracy, zoomTo);
  $("#zoom-out").onclick = () => zoomTo(null);
  $("#x-axis").onchange = () => { xRange = null; redraw(); };
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
  action("#download-onnx", () => downloadOnnx(jobId));
  $("#download-csv").onclick = () => {
    const columns = [["trainLoss", train], ["validationLoss", validation], ["lr", lr],
      ["trainAccuracy", trainAccuracy], ["validationAccuracy", validationAccuracy]];
    const byEpoch = new Map();
    columns.forEach(([, points], c) => points.forEach(([epoch, v]) => {
      if (!byEpoch.has(epoch)) byEpoch.set(epoch, Array(columns.length).fill(""));
      byEpoch.get(epoch)[c] = String(v);
    }));
    const text = ["epoch," + columns.map(([n]) => n).join(","),
      ...[...byEpoch.keys()].sort((a, b) => a - b).map((e) => `${e},${byEpoch.get(e).join(",")}`)].join("\n") + "\n";
    const a = document.createElement("a");
    a.href = URL.createObjectURL(new Blob([text], { type: "text/csv" }));
    a.download = `${jobId}-metrics.csv`;
    a.click();
    revokeLater(a.href);
  };
  $("#infer").onclick = () => infer(jobId, inputs);
  $("#infer-browser").onclick = () => inferInBrowser(jobId, inputs);

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
          if (e.time) epochTimes.set(p.epoch, Number(e.time.seconds) + e.time.nanos / 1e9);
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
          // Every output's figures, named: a class a row with its
          // confusion, or each unit's errors in the target's own units.
          for (const m of t.metrics) {
            $("#test").insertAdjacentHTML("beforeend", outputMetrics(m, standardizedTargets(job)));
          }
          if (t.testLoss < 0 && t.metrics.length > 1) {
            $("#test").insertAdjacentHTML("beforeend", html`<p class="muted small" id="negative-loss">The total test
              loss is below zero: with several outputs and lossWeights auto, each output's loss is weighed by a learned
              uncertainty (loss / 2σ² + log σ), whose log term is negative for an output learned well. Compare the
              outputs by their own figures above.</p>`);
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

// The daemon's ONNX export of the job's model (ExportModel), downloaded;
// a model it cannot export says which operation and line.
async function downloadOnnx(jobId) {
  const parts = [];
  let head;
  for await (const chunk of api.exportModel({ jobId, format: "onnx" })) {
    head ??= chunk;
    parts.push(chunk.data);
  }
  const url = URL.createObjectURL(new Blob(parts, { type: "application/octet-stream" }));
  const a = document.createElement("a");
  a.href = url;
  a.download = head.fileName;
  a.click();
  revokeLater(url);
  status(`downloaded ${head.fileName}`);
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
    <div class="card" id="accuracy-card"><h3>Validation accuracy</h3>
      <div class="chart-wrap"><canvas id="accuracy"></canvas><div class="tooltip" id="accuracy-tip" hidden></div></div>
      <div class="legend" id="accuracy-legend"></div></div>
    <div class="card"><h3>Runs</h3>
      <div class="controls"><label><input type="checkbox" id="only-differences"> only differences</label></div>
      <div class="scroll" id="runs"></div></div>`;
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
    // Accuracy overlaid (classifiers only; hidden when no run has any).
    const accuracies = runs.map(({ job, s }, i) => ({
      name: `${label(job)} validation accuracy`, points: s.validationAccuracy, color: palette[i % palette.length],
    })).filter((a) => a.points.length);
    $("#accuracy-card").hidden = accuracies.length === 0;
    if (accuracies.length) {
      accuracyLayout = drawChart($("#accuracy"), accuracies, {
        yTitle: "accuracy", smoothing: Number($("#smoothing").value),
      });
      $("#accuracy-legend").innerHTML = legend(accuracyLayout.series);
    }
  };
  let accuracyLayout = null;
  hover($("#chart"), $("#tip"), () => layout);
  hover($("#accuracy"), $("#accuracy-tip"), () => accuracyLayout);
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
    // The data settings (impute mean and median runs differ here).
    ["label", (j) => j.data?.label || j.data?.chosenLabel || "–"],
    ["split", (j) => j.data?.split || "70,15,15"],
    ["standardization", (j) => ["auto", "on", "off"][j.data?.standardization ?? 0] +
      (j.data?.standardize ? " (on)" : "")],
    ["impute", (j) => j.data?.impute || "auto"],
    ["resize", (j) => (j.data?.resize ? "yes" : "no")],
  ];
  const rows = [...figures, ...hyperNames.map((n) => [n, (j) => value(j, n)])]
    .map(([name, get]) => {
      const cells = runs.map(({ job }) => get(job));
      if (cells.every((c) => c === "–")) return "";
      const differs = new Set(cells).size > 1;
      return html`<tr class="${differs ? "differs" : ""}"><td>${name}</td>${raw(cells.map((c) => html`<td class="mono">${c}</td>`).join(""))}</tr>`;
    }).join("");
  $("#only-differences").onchange = () =>
    $("#runs table").classList.toggle("only-differences", $("#only-differences").checked);
  $("#runs").innerHTML = html`<table class="compare"><thead><tr><th></th>${raw(runs.map(({ job }, i) =>
    html`<th><span style="color:${raw(palette[i % palette.length])}">━</span> <a href="#/job/${job.jobId}">${label(job)}</a></th>`).join(""))}</tr></thead>
    <tbody>${raw(rows)}</tbody></table>`;
  status(`${ids.length} runs`);
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
// The token box only where the daemon asks for tokens (or one is kept).
(async () => {
  if (localStorage.getItem(tokenKey)) {
    $("#signin").hidden = false;
    return;
  }
  try {
    await api.listNodes({});
    $("#signin").hidden = true;
  } catch (e) {
    $("#signin").hidden = !(e?.code === 16 || /token/.test(e?.rawMessage ?? ""));
  }
})();
window.addEventListener("hashchange", route);
route();

export { EventType };  // (keeps the enum for debugging from the console)
