// The sandboxed runner (runner.html): runs an exported ONNX model with ONNX
// Runtime Web for the page that framed it. A message {id, model (bytes),
// feeds: [{name, type, shape, values}]} is answered {id, provider, note,
// ms, outputs: [{name, values}]} or {id, error}. The WebNN execution
// provider when navigator.ml makes a context (WebAssembly for what it
// cannot run), else — or when WebNN fails, saying why — WebAssembly.
const origin = new URL(import.meta.url).origin;  // the daemon's

async function runtime(webnn) {
  const ort = await import(`${origin}/ort/${webnn ? "ort.webgpu.min.mjs" : "ort.wasm.min.mjs"}`);
  ort.env.wasm.wasmPaths = `${origin}/ort/`;
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.proxy = false;
  return ort;
}

async function session(bytes) {
  let note = "";
  if (globalThis.navigator?.ml) {
    try {
      const context = await navigator.ml.createContext();
      const ort = await runtime(true);
      const s = await ort.InferenceSession.create(bytes, {
        executionProviders: [{ name: "webnn", context }, "wasm"],
      });
      return { ort, session: s, provider: "webnn", note };
    } catch (e) {
      note = `WebNN failed (${e.message ?? e}); WebAssembly instead`;
    }
  }
  const ort = await runtime(false);
  const s = await ort.InferenceSession.create(bytes, { executionProviders: ["wasm"] });
  return { ort, session: s, provider: "wasm", note };
}

// The file's inputs from the page's tensors ({name: the block, type,
// shape, values}): `<block>` or `<block>_input`, and a sequence's
// `<block>_lengths` (the whole sequence's length).
function feedsOf(ort, names, blocks) {
  const tensors = {};
  for (const name of names) {
    const lengths = name.endsWith("_lengths");
    const block = name.replace(/_(lengths|input)$/, "");
    const t = blocks.find((b) => b.name === name || b.name === block) ?? blocks[0];
    if (lengths) {
      tensors[name] = new ort.Tensor("int32", Int32Array.of(t.shape[1]), [1]);
    } else {
      const int = t.type === "int32";
      tensors[name] = new ort.Tensor(int ? "int32" : "float32",
        int ? Int32Array.from(t.values) : Float32Array.from(t.values), t.shape);
    }
  }
  return tensors;
}

async function run({ model, feeds }) {
  const { ort, session: s, provider, note } = await session(model);
  const tensors = feedsOf(ort, s.inputNames, feeds);
  let result = await s.run(tensors);
  const calls = 10;
  const start = performance.now();
  for (let i = 0; i < calls; i++) result = await s.run(tensors);
  const ms = (performance.now() - start) / calls;
  const outputs = s.outputNames.map((name) => ({ name, values: Array.from(result[name].data, Number) }));
  return { provider, note, ms, outputs };
}

window.addEventListener("message", async (event) => {
  if (event.source !== window.parent) return;
  const { id } = event.data;
  try {
    window.parent.postMessage({ id, ...(await run(event.data)) }, "*");
  } catch (e) {
    window.parent.postMessage({ id, error: String(e.message ?? e) }, "*");
  }
});
window.parent.postMessage({ ready: true }, "*");
