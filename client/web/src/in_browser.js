// "Run in this browser": a job's model as ONNX (the daemon's ExportModel),
// run here by ONNX Runtime Web in a sandboxed frame (runner.html: an
// opaque origin, so the runtime's WebNN build may use 'unsafe-eval' while
// this page never does) — WebNN when the browser has navigator.ml,
// WebAssembly otherwise — with the time a call takes. The runtime's files
// come from the daemon's /ort/ (webnnmd --web-runtime).
import { api } from "./api.js";

const models = new Map();  // job id -> the exported file's bytes
let frame;                 // the runner, once it said it is ready
let next = 0;

async function exported(jobId) {
  if (!models.has(jobId)) {
    const parts = [];
    for await (const chunk of api.exportModel({ jobId, format: "onnx" })) parts.push(chunk.data);
    models.set(jobId, new Uint8Array(await new Blob(parts).arrayBuffer()));
  }
  return models.get(jobId);
}

function runner() {
  frame ??= new Promise((resolve, reject) => {
    const f = document.createElement("iframe");
    f.sandbox = "allow-scripts";
    f.src = "/runner.html";
    f.hidden = true;
    const ready = (event) => {
      if (event.source !== f.contentWindow || !event.data?.ready) return;
      window.removeEventListener("message", ready);
      resolve(f.contentWindow);
    };
    window.addEventListener("message", ready);
    setTimeout(() => reject(new Error("the in-browser runner did not start")), 30000);
    document.body.append(f);
  });
  return frame;
}

// Runs `tensors` ([{name, shape (bigints, batch first), values}], as the
// daemon's Infer takes them; `types` the inputs' data types, in order)
// through the job's exported model; returns {provider, note, ms, outputs:
// [{name, values}]} (the `_class` outputs left out: the daemon's class
// names say it).
export async function runInBrowser(jobId, tensors, types) {
  const probe = await fetch("/ort/ort.wasm.min.mjs", { method: "HEAD" });
  if (!probe.ok) throw new Error("this daemon serves no ONNX Runtime Web (webnnmd --web-runtime DIR)");
  const model = await exported(jobId);
  const target = await runner();
  const feeds = tensors.map((t, i) => ({ name: t.name, type: types[i] ?? "float32", shape: t.shape.map(Number), values: t.values }));
  const id = ++next;
  const answer = await new Promise((resolve) => {
    const listen = (event) => {
      if (event.source !== target || event.data?.id !== id) return;
      window.removeEventListener("message", listen);
      resolve(event.data);
    };
    window.addEventListener("message", listen);
    target.postMessage({ id, model, feeds }, "*");
  });
  if (answer.error) throw new Error(answer.error);
  return { ...answer, outputs: answer.outputs.filter((o) => !o.name.endsWith("_class")) };
}
