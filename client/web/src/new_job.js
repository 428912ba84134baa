// The new-job view (#/new): the model's editor with its diagnostics, the
// dataset (picked or uploaded) and its label, a starter model, the
// hyperparameters, CheckModel's preview and the submission.
import { DatasetFormat } from "../gen/webnnm/v1/webnnm_pb.js";
import { templates } from "../gen/templates.js";
import { $, api, guard, html, raw, status, view } from "./api.js";

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

export async function showNew() {
  const datasets = (await guard(() => api.listDatasets({})))?.datasets ?? [];
  view().innerHTML = html`
    <h2>New job</h2>
    <div class="grid">
      <div class="card"><h3>Model</h3>
        <div class="editor"><pre class="gutter" id="gutter" aria-hidden="true">1</pre>
          <div class="code"><pre class="marks" id="marks" aria-hidden="true"></pre>
            <textarea id="model" spellcheck="false" wrap="off"
              placeholder="model:input shape=[4]; ..."></textarea></div></div>
        <p><label>start from <select id="template"><option value="">(a shipped model)</option>${raw(
          Object.keys(templates).map((n) => html`<option>${n}</option>`).join(""))}</select></label>
          <label>or open a .wnm file <input id="open-model" type="file" accept=".wnm,text/plain"></label></p>
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
          <label>standardize<select id="standardize"><option value="0">auto (the expert system decides)</option><option value="1">on</option><option value="2">off</option></select></label>
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
  $("#template").onchange = () => {
    if (!$("#template").value) return;
    model.value = templates[$("#template").value];
    markDiagnostics([]);
    status(`the shipped model ${$("#template").value}.wnm`);
  };
  $("#open-model").onchange = () => guard(async () => {
    const file = $("#open-model").files[0];
    if (!file) return;
    model.value = await file.text();
    markDiagnostics([]);
    status(`opened ${file.name}`);
  });
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
    standardization: Number($("#standardize").value),
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
    // Each row says what it is: an input and an output may share a name.
    const tensor = (kind) => (t) => html`<tr class="${kind}"><td><span class="kind">${kind}</span> ${t.name}</td><td>${t.dataType}</td><td>[${t.shape.join(", ")}]</td></tr>`;
    $("#summary").innerHTML = html`<p>model <b>${answer.modelName}</b>:
      ${answer.parameters} trainable parameters, ${answer.operations} operations</p>
      <table><thead><tr><th>inputs, outputs, parameters</th><th>type</th><th>shape</th></tr></thead>
      <tbody>${raw([...answer.inputs.map(tensor("input")), ...answer.outputs.map(tensor("output")),
        ...answer.parameterTensors.map(tensor("parameter"))].join(""))}</tbody></table>`;
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
  // "auto" says what the expert system would do with the data.
  const scaling = answer.decisions.find((d) => /^(standardize the|.* left as they are)/.test(d.what));
  if (scaling) {
    const on = scaling.what.startsWith("standardize the");
    $("#standardize").options[0].textContent = `auto (${on ? "on" : "off"}: the expert system's choice)`;
    $("#standardize").dataset.resolved = on ? "on" : "off";
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
