// Exported models in ONNX Runtime (onnxruntime-node): each model of
// configs/models whose operations have an ONNX form is trained briefly,
// exported with `webnnmctl export --local`, checked by Debian's
// python3-onnx (check_model, full_check) and run on random inputs in
// batches of 37 and of 1 against `webnnmctl predict --local` on the same
// inputs: every value within rtol 1e-4, atol 1e-5, and the same predicted
// class unless the two likeliest classes are that close. A model with an
// operation that has no ONNX form is refused naming it and its line.
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
function imageSet(file, shape, n, rand) {
  const size = shape.reduce((a, b) => a * b, 1);
  const x = new Float32Array(n * size), y = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    y[i] = i % 10;
    for (let j = 0; j < size; j++) x[i * size + j] = 20 * y[i] + 40 * rand();
  }
  writeFileSync(file, npz({ x: { data: x, shape: [n, ...shape], type: "float32" },
                            y: { data: y, shape: [n], type: "int32" } }));
}

function within(a, b) {
  return Math.abs(a - b) <= ATOL + RTOL * Math.abs(b) || (Number.isNaN(a) && Number.isNaN(b));
}

// Runs the exported file on `x` ([n, ...shape]) in batches of `batch`;
// returns each output's values, concatenated.
async function runOnnx(session, x, shape, n, batch) {
  const size = shape.reduce((a, b) => a * b, 1);
  const outs = {};
  for (let at = 0; at < n; at += batch) {
    const m = Math.min(batch, n - at);
    const feed = { [session.inputNames[0]]: new ort.Tensor("float32", x.slice(at * size, (at + m) * size), [m, ...shape]) };
    const result = await session.run(feed);
    for (const name of session.outputNames) {
      (outs[name] ??= []).push(...Array.from(result[name].data, Number));
    }
  }
  return outs;
}

async function exportAndCompare({ name, data, shape, inputs, epochs = 3, extra = [] }) {
  const model = join(source, "configs/models", `${name}.wnm`);
  const snapshot = join(work, `${name}.wnms`);
  ctl("train", "--local", model, "--dataset", data, "--epochs", String(epochs), "--seeds", "1", "--save", snapshot, ...extra);
  const file = join(work, `${name}.onnx`);
  const exported = JSON.parse(ctl("-o", "json", "export", "--local", model, "--load", snapshot, "-o", file));
  check(exported.file === file && exported.format === "onnx", `${name}: exported (${exported.bytes} bytes)`);
  const checker = spawnSync("/usr/bin/python3", ["-c",
    "import onnx, sys; onnx.checker.check_model(onnx.load(sys.argv[1]), full_check=True)", file], { encoding: "utf8" });
  check(checker.status === 0, `${name}: onnx.checker.check_model(full_check=True) passes${checker.status ? ": " + checker.stderr.trim().split("\n").pop() : ""}`);

  const n = inputs.length / shape.reduce((a, b) => a * b, 1);
  const inputFile = join(work, `${name}-inputs.npz`);
  writeFileSync(inputFile, npz({ x: { data: inputs, shape: [n, ...shape], type: "float32" } }));
  const predicted = join(work, `${name}-predicted.npz`);
  ctl("predict", "--local", model, "--load", snapshot, "--dataset", inputFile, "--output", predicted);
  const expected = readNpz(readFileSync(predicted));

  const session = await ort.InferenceSession.create(file, { executionProviders: ["cpu"], intraOpNumThreads: 1 });
  for (const [batch, count] of [[37, n], [1, Math.min(n, 100)]]) {
    const got = await runOnnx(session, inputs, shape, count, batch);
    let worst = 0, where = "", mismatched = 0, classes = 0;
    for (const out of session.outputNames) {
      const want = expected[out];
      if (!want) { check(false, `${name}: predict wrote no ${out}`); continue; }
      const values = got[out];
      if (out.endsWith("_class")) {
        // The same class, unless the two likeliest are within tolerance.
        const probs = got[out.slice(0, -"_class".length)];
        const k = probs.length / count;
        for (let i = 0; i < count; i++) {
          classes++;
          if (values[i] === want.data[i]) continue;
          const row = probs.slice(i * k, (i + 1) * k).sort((a, b) => b - a);
          if (!within(row[0], row[1])) mismatched++;
        }
        continue;
      }
      check(values.length === count * (want.data.length / n), `${name}: ${out} has ${values.length / count} values a sample, as predict's`);
      for (let i = 0; i < values.length; i++) {
        const b = want.data[i];
        const err = Math.abs(values[i] - b) / (ATOL + RTOL * Math.abs(b));
        if (err > worst) { worst = err; where = `${out}[${i}] ${values[i]} vs ${b}`; }
      }
    }
    check(worst <= 1, `${name}, batches of ${batch}: every value within rtol ${RTOL}, atol ${ATOL} of predict's${worst > 1 ? ` (worst ${where})` : ` (worst at ${(worst * 100).toFixed(1)}% of the tolerance)`}`);
    if (classes) check(mismatched === 0, `${name}, batches of ${batch}: the same predicted classes (${mismatched} of ${classes} differ)`);
  }
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
    await exportAndCompare({ name, data, shape: [rows[0].length], inputs: nearRows(rows, 37 * 20, rand) });
  }
  // Missing values: iris with empty cells, imputed in the file as in predict.
  {
    const lines = readFileSync(join(source, "configs/datasets/iris.csv"), "utf8").trim().split("\n");
    const holed = lines.map((l, i) => i === 0 ? l : l.split(",").map((c, j, all) => j < all.length - 1 && rand() < 0.05 ? "" : c).join(","));
    const data = join(work, "iris-missing.csv");
    writeFileSync(data, holed.join("\n") + "\n");
    const { rows } = csvFeatures(join(source, "configs/datasets/iris.csv"));
    await exportAndCompare({ name: "iris", data, shape: [4], inputs: nearRows(rows, 37 * 20, rand, 0.1) });
  }
  for (const [name, shape] of [["fashion-mlp", [784]], ["fashion-mlp-wide", [784]],
                               ["fashion-cnn", [1, 28, 28]], ["fashion-cnn-wide", [1, 28, 28]]]) {
    const data = join(work, `${name}-train.npz`);
    imageSet(data, shape, 200, rand);
    const size = shape.reduce((a, b) => a * b, 1);
    const inputs = Float32Array.from({ length: 37 * 4 * size }, () => 255 * rand());
    await exportAndCompare({ name, data, shape, inputs, epochs: 2 });
  }
  {
    // The transformer block: attention's reshapes keep the batch symbolic.
    const shape = [16, 32], n = 200, size = 16 * 32;
    const x = Float32Array.from({ length: n * size }, () => rand.normal());
    const y = Int32Array.from({ length: n }, (_, i) => i % 4);
    const data = join(work, "tiny-transformer-train.npz");
    writeFileSync(data, npz({ x: { data: x, shape: [n, ...shape], type: "float32" }, y: { data: y, shape: [n], type: "int32" } }));
    const inputs = Float32Array.from({ length: 37 * 4 * size }, () => rand.normal());
    await exportAndCompare({ name: "tiny-transformer", data, shape, inputs, epochs: 2 });
  }
  // Refused, naming the operation and the line it was written on.
  {
    const model = join(source, "configs/models/fashion-lstm.wnm");
    const data = join(work, "lstm-train.npz");
    imageSet(data, [28, 28], 40, rand);
    const snapshot = join(work, "lstm.wnms");
    ctl("train", "--local", model, "--dataset", data, "--epochs", "1", "--seeds", "1", "--save", snapshot);
    const refused = spawnSync(webnnmctl, ["export", "--local", model, "--load", snapshot, "-o", join(work, "lstm.onnx")], { encoding: "utf8" });
    const line = readFileSync(model, "utf8").split("\n").findIndex((l) => l.includes("lstm(")) + 1;
    check(refused.status === 1 && refused.stderr.includes("lstm has no ONNX form") && refused.stderr.includes(`line ${line}`),
      `an lstm is refused with its line (exit ${refused.status}: ${refused.stderr.trim()})`);
    let written = true;
    try { readFileSync(join(work, "lstm.onnx")); } catch { written = false; }
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
