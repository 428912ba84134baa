// Exported models in ONNX Runtime (onnxruntime-node): each model of
// configs/models whose operations have an ONNX form is trained briefly,
// exported with `webnnmctl export --local`, checked by Debian's
// python3-onnx (check_model, full_check) and run on random inputs in
// batches of 37 and of 1 against `webnnmctl predict --local` on the same
// inputs (the shipped datasets' own for the recurrent models: ragged
// sequences with their lengths, token ids, two inputs): every value within
// rtol 1e-4, atol 1e-5 (a sequence's padded steps aside), and the same
// predicted class unless the two likeliest classes are that close. A model
// with an operation that has no ONNX form is refused naming it and its
// line.
//
// The daemon's way: `webnnmctl export JOB` writes the same bytes as the
// local export of the job's snapshot. docs/interop.md's Node example runs
// as written.
//
// usage: node onnx_test.mjs WEBNNMCTL WEBNNMD SOURCE_DIR
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as ort from "onnxruntime-node";
import { npz, readNpz } from "./npz.mjs";

const [webnnmctl, webnnmd, source] = process.argv.slice(2);
const work = mkdtempSync(join(tmpdir(), "webnnm-onnx-"));
const RTOL = 1e-4, ATOL = 1e-5;
let failures = 0;
function check(condition, what) {
  console.log(`${condition ? "ok" : "not ok"} - ${what}`);
  if (!condition) failures++;
}
const ctl = (...args) => execFileSync(webnnmctl, args, { env: { ...process.env, OMP_NUM_THREADS: "1" } }).toString();

// A deterministic generator (mulberry32), and normal draws from it.
function generator(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  next.normal = () => Math.sqrt(-2 * Math.log(next() + 1e-12)) * Math.cos(2 * Math.PI * next());
  return next;
}

// A CSV's feature rows (every column but the last), as numbers.
function csvFeatures(path) {
  const lines = readFileSync(path, "utf8").trim().split("\n");
  return { header: lines[0].split(","), rows: lines.slice(1).map((l) => l.split(",").slice(0, -1).map(Number)) };
}

// Random rows near a CSV's: a row's features moved by a tenth of each
// column's spread; a share of `missing` of the cells NaN.
function nearRows(rows, n, rand, missing = 0) {
  const width = rows[0].length;
  const spread = [...Array(width).keys()].map((j) => {
    const v = rows.map((r) => r[j]);
    return Math.max(...v) - Math.min(...v) || 1;
  });
  const out = new Float32Array(n * width);
  for (let i = 0; i < n; i++) {
    const row = rows[Math.floor(rand() * rows.length)];
    for (let j = 0; j < width; j++) {
      out[i * width + j] = rand() < missing ? NaN : row[j] + 0.1 * spread[j] * rand.normal();
    }
  }
  return out;
}

// A small image set for the image models: each label a brightness.
function imageSet(file, shape, n, rand, classes = 10) {
  const size = shape.reduce((a, b) => a * b, 1);
  const x = new Float32Array(n * size), y = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    y[i] = i % classes;
    for (let j = 0; j < size; j++) x[i * size + j] = 20 * y[i] + 40 * rand();
  }
  writeFileSync(file, npz({ x: { data: x, shape: [n, ...shape], type: "float32" },
                            y: { data: y, shape: [n], type: "int32" } }));
}

function within(a, b) {
  return Math.abs(a - b) <= ATOL + RTOL * Math.abs(b) || (Number.isNaN(a) && Number.isNaN(b));
}

// Rows [at, at + m) of an array of `n` rows.
function rows(a, at, m, n) {
  const size = a.length / n;
  return a.slice(at * size, (at + m) * size);
}

// Runs the exported file on the first `count` rows of `feeds` (block ->
// {data, shape, type}, n rows each; `lengths` the sequences' real steps,
// or null) in batches of `batch`; returns each output's values,
// concatenated.
async function runOnnx(session, feeds, lengths, n, count, batch) {
  const outs = {};
  for (let at = 0; at < count; at += batch) {
    const m = Math.min(batch, count - at);
    const feed = {};
    for (const input of session.inputNames) {
      if (input.endsWith("_lengths")) {
        // Without ragged lengths, every sequence is whole.
        const steps = feeds[input.slice(0, -"_lengths".length)].shape[0];
        const real = lengths ? rows(lengths, at, m, n) : Int32Array.from({ length: m }, () => steps);
        feed[input] = new ort.Tensor("int32", Int32Array.from(real), [m]);
        continue;
      }
      const f = feeds[input] ?? feeds[input.replace(/_input$/, "")];
      feed[input] = new ort.Tensor(f.type, rows(f.data, at, m, n), [m, ...f.shape]);
    }
    const result = await session.run(feed);
    for (const name of session.outputNames) {
      (outs[name] ??= []).push(...Array.from(result[name].data, Number));
    }
  }
  return outs;
}

async function exportAndCompare({ name, data, feeds, lengths = null, epochs = 3, extra = [] }) {
  const model = join(source, "configs/models", `${name}.wnm`);
  const snapshot = join(work, `${name}.wnms`);
  ctl("train", "--local", model, "--dataset", data, "--epochs", String(epochs), "--seeds", "1", "--save", snapshot, ...extra);
  const file = join(work, `${name}.onnx`);
  const exported = JSON.parse(ctl("-o", "json", "export", "--local", model, "--load", snapshot, "-o", file));
  check(exported.file === file && exported.format === "onnx", `${name}: exported (${exported.bytes} bytes)`);
  const checker = spawnSync("/usr/bin/python3", ["-c",
    "import onnx, sys; onnx.checker.check_model(onnx.load(sys.argv[1]), full_check=True)", file], { encoding: "utf8" });
  check(checker.status === 0, `${name}: onnx.checker.check_model(full_check=True) passes${checker.status ? ": " + checker.stderr.trim().split("\n").pop() : ""}`);

  // predict's input: the same arrays (x for a model's only input).
  const blocks = Object.keys(feeds);
  const first = feeds[blocks[0]];
  const n = first.data.length / first.shape.reduce((a, b) => a * b, 1);
  const arrays = {};
  for (const block of blocks) arrays[blocks.length === 1 ? "x" : block] = { ...feeds[block], shape: [n, ...feeds[block].shape] };
  if (lengths) arrays[`${blocks.length === 1 ? "x" : blocks[0]}_lengths`] = { data: Int32Array.from(lengths), shape: [n], type: "int32" };
  const inputFile = join(work, `${name}-inputs.npz`);
  writeFileSync(inputFile, npz(arrays));
  const predicted = join(work, `${name}-predicted.npz`);
  ctl("predict", "--local", model, "--load", snapshot, "--dataset", inputFile, "--output", predicted);
  const expected = readNpz(readFileSync(predicted));

  const session = await ort.InferenceSession.create(file, { executionProviders: ["cpu"], intraOpNumThreads: 1 });
  for (const [batch, count] of [[37, n], [1, Math.min(n, 100)]]) {
    const got = await runOnnx(session, feeds, lengths, n, count, batch);
    let worst = 0, where = "", mismatched = 0, classes = 0;
    for (const out of session.outputNames) {
      const want = expected[out];
      if (!want) { check(false, `${name}: predict wrote no ${out}`); continue; }
      const values = got[out];
      // A sequenced output: predict leaves padded steps 0 (class -1).
      const steps = want.shape.length === (out.endsWith("_class") ? 2 : 3) ? want.shape[1] : 1;
      const padded = (i, perStep) => lengths && steps > 1 && Math.floor(i / perStep) % steps >= lengths[Math.floor(i / perStep / steps)];
      if (out.endsWith("_class")) {
        // The same class, unless the two likeliest are within tolerance.
        const probs = got[out.slice(0, -"_class".length)];
        const k = probs.length / values.length;
        for (let i = 0; i < values.length; i++) {
          if (padded(i, 1)) continue;
          classes++;
          if (values[i] === want.data[i]) continue;
          const row = probs.slice(i * k, (i + 1) * k).sort((a, b) => b - a);
          if (!within(row[0], row[1])) mismatched++;
        }
        continue;
      }
      const perStep = want.data.length / n / steps;
      check(values.length === count * (want.data.length / n), `${name}: ${out} has ${values.length / count} values a sample, as predict's`);
      for (let i = 0; i < values.length; i++) {
        if (padded(i, perStep)) continue;
        const b = want.data[i];
        const err = Math.abs(values[i] - b) / (ATOL + RTOL * Math.abs(b));
        if (err > worst) { worst = err; where = `${out}[${i}] ${values[i]} vs ${b}`; }
      }
    }
    check(worst <= 1, `${name}, batches of ${batch}: every value within rtol ${RTOL}, atol ${ATOL} of predict's${worst > 1 ? ` (worst ${where})` : ` (worst at ${(worst * 100).toFixed(1)}% of the tolerance)`}`);
    if (classes) check(mismatched === 0, `${name}, batches of ${batch}: the same predicted classes (${mismatched} of ${classes} differ)`);
  }
}

// A shipped .npz dataset's inputs (float16 and float64 as float32) and
// lengths, for predict and ONNX Runtime alike.
function shippedFeeds(file, blocks) {
  const arrays = readNpz(readFileSync(file));
  const feeds = {};
  for (const [block, array] of Object.entries(blocks)) {
    const a = arrays[array];
    const type = a.descr === "<i4" || a.descr === "<i8" ? "int32" : "float32";
    feeds[block] = { data: type === "int32" ? Int32Array.from(a.data) : Float32Array.from(a.data), shape: a.shape.slice(1), type };
  }
  const lengths = arrays.x_lengths ? Int32Array.from(arrays.x_lengths.data) : null;
  return { feeds, lengths };
}

// A job trained on a real webnnmd, exported by its id.
async function fromTheDaemon() {
  const daemon = spawn(webnnmd, ["--listen", "127.0.0.1:0", "--db", join(work, "webnnm.db")],
    { stdio: ["ignore", "pipe", "inherit"] });
  try {
    const ready = await new Promise((resolve, reject) => {
      let text = "";
      daemon.stdout.on("data", (d) => {
        text += d;
        if (text.includes("\n")) resolve(text.split("\n")[0]);
      });
      daemon.on("exit", (code) => reject(new Error(`webnnmd exited ${code}`)));
      setTimeout(() => reject(new Error("webnnmd did not start")), 30000);
    });
    const env = { ...process.env, WEBNNM_SERVER: ready.match(/grpc=(\S+)/)[1] };
    const remote = (...args) => execFileSync(webnnmctl, args, { env }).toString();
    const job = JSON.parse(remote("-o", "json", "submit", join(source, "configs/models/iris.wnm"), "--dataset",
      join(source, "configs/datasets/iris.csv"), "--epochs", "5", "--seeds", "1")).jobId;
    remote("watch", job);
    remote("snapshot", "export", job, "-f", join(work, "job.wnms"));
    ctl("export", "--local", "--load", join(work, "job.wnms"), "-o", join(work, "local.onnx"));
    const out = remote("export", job.slice(0, 8), "-o", join(work, "job.onnx"));
    check(out.startsWith(`wrote ${join(work, "job.onnx")}`) &&
          readFileSync(join(work, "job.onnx")).equals(readFileSync(join(work, "local.onnx"))),
      "export JOB (by a prefix of its id) writes the bytes of its snapshot's local export");
    // An unfinished job has no model to export yet.
    const stopped = JSON.parse(remote("-o", "json", "submit", join(source, "configs/models/iris.wnm"), "--dataset",
      join(source, "configs/datasets/iris.csv"), "--epochs", "1000000", "--patience", "1000000", "--seeds", "1")).jobId;
    remote("cancel", stopped);
    const unfinished = spawnSync(webnnmctl, ["export", stopped], { env, encoding: "utf8" });
    check(unfinished.status === 1 && unfinished.stderr.includes("not a finished training job"),
      `an unfinished job is refused (exit ${unfinished.status}: ${unfinished.stderr.trim()})`);
    const unknown = spawnSync(webnnmctl, ["export", "jnosuchjob"], { env, encoding: "utf8" });
    check(unknown.status === 1 && unknown.stderr.includes("jnosuchjob"), `an unknown job is refused (exit ${unknown.status}: ${unknown.stderr.trim()})`);
  } finally {
    daemon.kill("SIGTERM");
  }
}

// The Node example of docs/interop.md, as written, on an exported iris.
function docsExample() {
  const doc = readFileSync(join(source, "docs/interop.md"), "utf8");
  const script = doc.match(/node -e '\n([\s\S]*?)'\n/)[1];
  const trained = join(work, "docs.wnms");
  ctl("train", "--local", join(source, "configs/models/iris.wnm"), "--dataset",
    join(source, "configs/datasets/iris.csv"), "--save", trained);
  ctl("export", "--local", "--load", trained, "-o", join(work, "iris.onnx"));
  const run = spawnSync("node", ["-e", script], { cwd: work, encoding: "utf8",
    env: { ...process.env, NODE_PATH: join(source, "tests/interop/node_modules") } });
  const printed = run.stdout.replace(/\s+/g, " ");
  check(run.status === 0 && /Float32Array\(3\)/.test(printed) && /Int32Array\(1\) \[ 2 \]/.test(printed),
    `docs/interop.md's Node example prints the probabilities and class 2 (${printed.trim() || run.stderr.trim()})`);
}

try {
  const rand = generator(1);
  for (const name of ["iris", "wine", "breast-cancer", "digits", "diabetes"]) {
    const data = join(source, "configs/datasets", `${name}.csv`);
    const { rows } = csvFeatures(data);
    await exportAndCompare({ name, data, feeds: { model: { data: nearRows(rows, 37 * 20, rand), shape: [rows[0].length], type: "float32" } } });
  }
  // Missing values: iris with empty cells, imputed in the file as in predict.
  {
    const lines = readFileSync(join(source, "configs/datasets/iris.csv"), "utf8").trim().split("\n");
    const holed = lines.map((l, i) => i === 0 ? l : l.split(",").map((c, j, all) => j < all.length - 1 && rand() < 0.05 ? "" : c).join(","));
    const data = join(work, "iris-missing.csv");
    writeFileSync(data, holed.join("\n") + "\n");
    const { rows } = csvFeatures(join(source, "configs/datasets/iris.csv"));
    await exportAndCompare({ name: "iris", data, feeds: { model: { data: nearRows(rows, 37 * 20, rand, 0.1), shape: [4], type: "float32" } } });
  }
  for (const [name, shape] of [["fashion-mlp", [784]], ["fashion-mlp-wide", [784]],
                               ["fashion-cnn", [1, 28, 28]], ["fashion-cnn-wide", [1, 28, 28]]]) {
    const data = join(work, `${name}-train.npz`);
    imageSet(data, shape, 200, rand);
    const size = shape.reduce((a, b) => a * b, 1);
    const inputs = Float32Array.from({ length: 37 * 4 * size }, () => 255 * rand());
    await exportAndCompare({ name, data, feeds: { model: { data: inputs, shape, type: "float32" } }, epochs: 2 });
  }
  {
    // The transformer block: attention's reshapes keep the batch symbolic.
    const shape = [16, 32], n = 200, size = 16 * 32;
    const x = Float32Array.from({ length: n * size }, () => rand.normal());
    const y = Int32Array.from({ length: n }, (_, i) => i % 4);
    const data = join(work, "tiny-transformer-train.npz");
    writeFileSync(data, npz({ x: { data: x, shape: [n, ...shape], type: "float32" }, y: { data: y, shape: [n], type: "int32" } }));
    const inputs = Float32Array.from({ length: 37 * 4 * size }, () => rand.normal());
    await exportAndCompare({ name: "tiny-transformer", data, feeds: { model: { data: inputs, shape, type: "float32" } }, epochs: 2 });
  }
  // Recurrent layers as ONNX's LSTM and GRU: ragged sequences (their
  // lengths an input of the file), token ids, two inputs, fixed steps.
  for (const [name, file, blocks] of [
    ["ragged-lstm", "ragged.npz", { model: "x" }],
    ["text-lstm", "text.npz", { model: "x" }],
    ["tagger", "tagging.npz", { model: "x" }],
    ["multimodal", "multimodal.npz", { image: "image", sound: "sound" }],
  ]) {
    const data = join(source, "configs/datasets", file);
    const { feeds, lengths } = shippedFeeds(data, blocks);
    await exportAndCompare({ name, data, feeds, lengths, epochs: 2 });
  }
  for (const [name, shape, classes] of [["fashion-lstm", [28, 28], 10], ["fashion-gru", [28, 28], 10], ["sequence-lstm", [6, 32], 5]]) {
    const data = join(work, `${name}-train.npz`);
    imageSet(data, shape, 100, rand, classes);
    const size = shape.reduce((a, b) => a * b, 1);
    const inputs = Float32Array.from({ length: 37 * 2 * size }, () => 255 * rand());
    await exportAndCompare({ name, data, feeds: { model: { data: inputs, shape, type: "float32" } }, epochs: 1 });
  }
  // Refused, naming the operation and the line it was written on.
  {
    const model = join(work, "reordered.wnm");
    writeFileSync(model, [
      "# A normalization over its axes in another order than the tensor's.",
      "model:input shape={channels: 2, height: 4, width: 4};",
      "model:output shape=[10];",
      "model:layers",
      "    layerNormalization(axes=[width, height]),",
      "    reshape(newShape=[32]),",
      "    dense(shape=[10], activation=softmax);",
      "dense:layers matmul(w), add(b), activation();", ""].join("\n"));
    const data = join(work, "reordered-train.npz");
    imageSet(data, [2, 4, 4], 40, rand);
    const snapshot = join(work, "reordered.wnms");
    ctl("train", "--local", model, "--dataset", data, "--epochs", "1", "--seeds", "1", "--save", snapshot);
    const refused = spawnSync(webnnmctl, ["export", "--local", model, "--load", snapshot, "-o", join(work, "reordered.onnx")], { encoding: "utf8" });
    check(refused.status === 1 && refused.stderr.includes("layerNormalization") && refused.stderr.includes("has no ONNX form") &&
          refused.stderr.includes("line 5"),
      `an operation without an ONNX form is refused with its line (exit ${refused.status}: ${refused.stderr.trim()})`);
    let written = true;
    try { readFileSync(join(work, "reordered.onnx")); } catch { written = false; }
    check(!written, "a refused export writes no file");
  }
  await fromTheDaemon();
  docsExample();
} catch (e) {
  failures++;
  console.log(`not ok - ${e.stack ?? e.message}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
console.log(failures ? `${failures} failed` : "all passed");
process.exit(failures ? 1 : 0);
