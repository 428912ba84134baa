// Runs the conformance cases webnnm-conformance-onnx exported (DIR/index.txt)
// in ONNX Runtime for Node: each DIR/<id>.onnx on DIR/<id>.json's inputs,
// its outputs (or the error) into DIR/<id>.out.json for `check`.
//
// usage: node conformance_onnx.mjs DIR
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as ort from "onnxruntime-node";

const [dir] = process.argv.slice(2);
const TYPES = {
  float32: [Float32Array, "float32"], float16: [Uint16Array, "float16"],
  int32: [Int32Array, "int32"], uint32: [Uint32Array, "uint32"],
  int64: [BigInt64Array, "int64"], uint64: [BigUint64Array, "uint64"],
  int8: [Int8Array, "int8"], uint8: [Uint8Array, "uint8"],
};

const ids = readFileSync(join(dir, "index.txt"), "utf8").split("\n").filter((l) => l);
let ran = 0, errors = 0;
for (const id of ids) {
  const spec = JSON.parse(readFileSync(join(dir, `${id}.json`), "utf8"));
  let answer;
  try {
    const session = await ort.InferenceSession.create(join(dir, `${id}.onnx`),
      { executionProviders: ["cpu"], intraOpNumThreads: 1, graphOptimizationLevel: "disabled" });
    const feeds = {};
    for (const input of spec.inputs) {
      const [T, type] = TYPES[input.type];
      const bytes = Buffer.from(input.data, "base64");
      const data = new T(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
      feeds[input.name] = new ort.Tensor(type, data, input.shape);
    }
    const result = await session.run(feeds);
    const outputs = {};
    for (const name of spec.outputs) {
      const t = result[name] ?? result[`${name}_output`];
      outputs[name] = Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength).toString("base64");
    }
    answer = { outputs };
    ran++;
  } catch (e) {
    answer = { error: String(e.message ?? e).split("\n")[0] };
    errors++;
  }
  writeFileSync(join(dir, `${id}.out.json`), JSON.stringify(answer));
}
console.log(`ran ${ran} cases in ONNX Runtime, ${errors} errors`);
