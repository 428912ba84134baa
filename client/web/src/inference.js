// The job page's inference: a form field per model input (named, with the
// dataset's columns for a CSV job), the daemon's Infer, and the exported
// model run in this browser (in_browser.js) next to it.
import { $, api, guard, html, status } from "./api.js";
import { runInBrowser } from "./in_browser.js";

// The inference form: a field per model input, named, with the values it
// takes (from the model's text; an imported snapshot's job: one field).
export async function inferenceInputs(job) {
  let inputs = [{ name: "", shape: [] }];
  if (job.modelText) {
    const checked = await guard(() => api.checkModel({ modelText: job.modelText, fileName: "model.wnm" }));
    if (checked?.ok && checked.inputs.length) {
      inputs = checked.inputs.map((t) => ({ name: t.name, shape: t.shape.map(Number).slice(1), type: t.dataType }));
    }
  }
  const count = (shape) => (shape.length && shape.every((d) => d > 0) ? shape.reduce((a, b) => a * b, 1) : undefined);
  // A CSV job's first input takes the header's columns but the label's,
  // in order: they name its values.
  const header = job.dataset?.header ?? [];
  const label = job.data?.label || job.data?.chosenLabel;
  const features = header.filter((h) => h !== label);
  if (inputs.length && features.length && count(inputs[0].shape) === features.length) {
    inputs[0].features = features;
  }
  $("#infer-inputs").innerHTML = html`<p class="muted small">${inputs.length} ${inputs.length === 1 ? "input" : "inputs"}</p>` +
    inputs.map((t, i) => html`<label class="infer-input">${t.name || "input"}${t.shape.length ? ` [${t.shape.join(", ")}]` : ""}
      ${t.features ? html`<span class="features small">${t.features.join(", ")}</span>` : ""}
      <input id="values-${i}" class="values" data-name="${t.name}" placeholder="${t.features ? t.features.join(", ") : count(t.shape) ? `${count(t.shape)} comma-separated values` : "comma-separated values"}"></label>`).join("") +
    (inputs.some((t) => t.features) ? html`<p class="muted small">an empty value is a missing one: filled as the job's training filled them, or refused</p>` : "");
  return inputs;
}

// The form's values as the daemon's Infer takes them (batch 1); throws
// saying which input is wrong.
function formTensors(inputs) {
  return inputs.map((t, i) => {
    const text = $(`#values-${i}`).value.trim();
    // An empty value (a CSV job's) is a missing one: NaN.
    const values = text === "" ? [] : text.split(",").map((v) => (v.trim() === "" && t.features ? NaN : Number(v.trim())));
    if (values.length === 0 || values.some((v) => !Number.isFinite(v) && !(Number.isNaN(v) && t.features))) {
      throw new Error(`${t.name || "the input"}: type comma-separated numbers`);
    }
    const known = t.shape.length && t.shape.every((d) => d > 0);
    const count = known ? t.shape.reduce((a, b) => a * b, 1) : values.length;
    if (values.length !== count) {
      throw new Error(`${t.name || "the input"} takes ${count} values, not ${values.length}`);
    }
    return { name: t.name, shape: [1n, ...(known ? t.shape : [values.length]).map(BigInt)], values };
  });
}

// An answer's lines: each output's values, and the class they pick.
function answerText(outputs, classes) {
  return outputs.map((o) => {
    let text = `${o.name}: [${o.values.map((v) => v.toPrecision(4)).join(", ")}]`;
    if (classes.length === o.values.length) {
      const best = o.values.indexOf(Math.max(...o.values));
      text = `${o.name}: ${classes.map((c, k) => `${c} ${o.values[k].toPrecision(3)}`).join(" · ")}`;
      text += `\n→ ${classes[best]}`;
    }
    return text;
  }).join("\n");
}

export async function infer(jobId, inputs) {
  const out = $("#inference");
  out.textContent = "";  // a failed inference leaves no old answer behind
  out.classList.remove("error");
  try {
    const answer = await api.infer({ jobId, inputs: formTensors(inputs) });
    out.textContent = answerText(answer.outputs, answer.classes);
    status("inferred");
  } catch (e) {
    out.textContent = `error: ${e.rawMessage ?? e.message ?? e}`;
    out.classList.add("error");
    status(out.textContent, true);
  }
}

// The exported model run here, next to the daemon's answer: which
// provider ran, the largest difference, the time a call takes.
export async function inferInBrowser(jobId, inputs) {
  const out = $("#browser-inference");
  out.textContent = "running in this browser…";
  out.classList.remove("error");
  try {
    const tensors = formTensors(inputs);
    const [here, daemon] = await Promise.all([
      runInBrowser(jobId, tensors, inputs.map((t) => t.type)), api.infer({ jobId, inputs: tensors })]);
    let worst = 0;
    for (const o of here.outputs) {
      const theirs = daemon.outputs.find((d) => d.name === o.name)?.values ?? [];
      o.values.forEach((v, i) => { worst = Math.max(worst, Math.abs(v - (theirs[i] ?? NaN))); });
    }
    out.dataset.provider = here.provider;
    out.dataset.difference = String(worst);
    out.textContent = `in this browser (${here.provider === "webnn" ? "WebNN" : "WebAssembly"}, ` +
      `${here.ms.toFixed(3)} ms a call)${here.note ? `\n${here.note}` : ""}\n` +
      `${answerText(here.outputs, daemon.classes)}\nlargest difference from the daemon's: ${worst.toExponential(2)}`;
    status("ran in this browser");
  } catch (e) {
    out.textContent = `error: ${e.rawMessage ?? e.message ?? e}`;
    out.classList.add("error");
    status(out.textContent, true);
  }
}
