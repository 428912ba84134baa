// The front end in a real browser: Debian's chromium, driven by
// playwright-core, against the real webnnmd (tokens on, a temporary
// database, the front end served by --http-listen). Screenshots land in
// ARTIFACTS_DIR.
//
// usage: node browser_test.mjs WEBNNMD WEBNNMCTL SOURCE_DIR ARTIFACTS_DIR
import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";

const [webnnmd, webnnmctl, source, artifacts] = process.argv.slice(2);
mkdirSync(artifacts, { recursive: true });
const work = mkdtempSync(join(tmpdir(), "webnnm-browser-"));
const token = "browser-test-token";
writeFileSync(join(work, "tokens"), `${token} tester admin\n`);

let failures = 0;
function check(condition, what) {
  if (condition) {
    console.log(`ok - ${what}`);
  } else {
    failures++;
    console.log(`not ok - ${what}`);
  }
}

// The daemon, and its ready line.
// ONNX Runtime Web's files (npm's onnxruntime-web, installed beside
// playwright-core) for the job page's "Run in this browser".
const ortDist = join(source, "tests/browser/node_modules/onnxruntime-web/dist");
const daemon = spawn(webnnmd, [
  "--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0",
  "--db", join(work, "webnnm.db"), "--tokens", join(work, "tokens"),
  "--web-runtime", ortDist,
], { stdio: ["ignore", "pipe", "inherit"] });
const ready = await new Promise((resolve, reject) => {
  let text = "";
  daemon.stdout.on("data", (d) => {
    text += d;
    const line = text.split("\n")[0];
    if (text.includes("\n")) resolve(line);
  });
  daemon.on("exit", (code) => reject(new Error(`webnnmd exited ${code}`)));
  setTimeout(() => reject(new Error("webnnmd did not start")), 30000);
});
const grpc = ready.match(/grpc=(\S+)/)[1];
const http = ready.match(/http=(\S+)/)[1];
const ctl = (...args) => execFileSync(webnnmctl, args, {
  env: { ...process.env, WEBNNM_SERVER: grpc, WEBNNM_TOKEN: token },
}).toString();
const irisId = JSON.parse(ctl("dataset", "upload", join(source, "configs/datasets/iris.csv"), "-o", "json")).datasetId;

// A small IDX dataset (MNIST's four files, two of them gzipped): 28x28
// images whose brightness follows their label, labels 0..9 in turn.
function idxFiles(folder) {
  mkdirSync(folder);
  const images = (n) => {
    const b = Buffer.alloc(16 + n * 784);
    b.writeUInt32BE(0x803, 0); b.writeUInt32BE(n, 4); b.writeUInt32BE(28, 8); b.writeUInt32BE(28, 12);
    for (let i = 0; i < n; i++) b.fill(20 * (i % 10) + 5, 16 + i * 784, 16 + (i + 1) * 784);
    return b;
  };
  const labels = (n) => {
    const b = Buffer.alloc(8 + n);
    b.writeUInt32BE(0x801, 0); b.writeUInt32BE(n, 4);
    for (let i = 0; i < n; i++) b[8 + i] = i % 10;
    return b;
  };
  const files = {
    "train-images-idx3-ubyte.gz": gzipSync(images(60)), "train-labels-idx1-ubyte": labels(60),
    "t10k-images-idx3-ubyte": images(20), "t10k-labels-idx1-ubyte.gz": gzipSync(labels(20)),
  };
  for (const [name, bytes] of Object.entries(files)) writeFileSync(join(folder, name), bytes);
  return Object.keys(files).map((name) => join(folder, name));
}

// A fresh profile folder (playwright passes it as --user-data-dir).
let context;
let page;
const shot = (name) => page?.screenshot({ path: join(artifacts, `${name}.png`), fullPage: true });
// The page at 1280 and at 390 px: a screenshot of each, and at 390 px no
// sideways scrolling (nothing wider than the screen).
async function bothWidths(name) {
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
    await page.waitForTimeout(150);
    await page.screenshot({ path: join(artifacts, `${name}-${width}.png`), fullPage: true });
    if (width === 390) {
      const wide = await page.evaluate(() => document.documentElement.scrollWidth);
      check(wide <= 390, `${name} at 390 px does not scroll sideways (${wide} px)`);
      if (wide > 390) {
        // What sticks out: the innermost elements past the right edge.
        console.log(await page.evaluate(() => [...document.querySelectorAll("body *")]
          .filter((e) => e.getBoundingClientRect().right > 391 && ![...e.children].some((c) => c.getBoundingClientRect().right > 391))
          .slice(0, 5).map((e) => `${e.tagName}#${e.id}.${e.className} ${Math.round(e.getBoundingClientRect().right)}px`).join("\n")));
      }
    }
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}
const iris = readFileSync(join(source, "configs/models/iris.wnm"), "utf8");

// Runs the job page's model in this browser and checks the answer: the
// provider, the daemon's class when given, the difference.
async function runHere(what, className) {
  await page.click("#infer-browser");
  await page.waitForFunction(() => document.querySelector("#browser-inference")?.dataset.difference !== undefined ||
    document.querySelector("#browser-inference")?.classList.contains("error"), null, { timeout: 60000 });
  const text = await page.textContent("#browser-inference");
  const difference = Number(await page.getAttribute("#browser-inference", "data-difference"));
  check((await page.getAttribute("#browser-inference", "data-provider")) === "wasm" && difference <= 1e-4 &&
        (!className || text.includes(className)) && /\d ms a call/.test(text),
    `${what} runs in this browser with WebAssembly, within 1e-4 of the daemon's Infer (${text.replace(/\n/g, " | ")})`);
  return text;
}

async function submitIris(epochs) {
  await page.goto(`http://${http}/#/new`);
  await page.fill("#model", iris);
  await page.selectOption("#dataset", irisId);
  await page.fill("#h-epochs", String(epochs));
  await page.selectOption("#h-optimizer", "sgdm");
  await page.fill("#h-lr", "0.05");
  await page.fill("#h-seeds", "20");
  await page.fill("#h-batchSize", "16");
  await page.fill("#split", "60,20,20");
  await page.click("#submit");
  await page.waitForURL(/#\/job\//);
  return decodeURIComponent(page.url().split("#/job/")[1]);
}

try {
  context = await chromium.launchPersistentContext(join(work, "profile"), {
    executablePath: "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu",
      "--disable-background-networking", "--disable-component-update",
      "--disable-sync", "--no-first-run"],
  });
  page = context.pages()[0] ?? await context.newPage();
  page.setDefaultTimeout(60000);
  await page.goto(`http://${http}/`);
  check((await page.title()) === "WebNNM", "the page title names WebNNM");
  // Signed out, the daemon refuses: the error is shown.
  await page.waitForSelector("#status.error");
  check((await page.textContent("#status")).includes("token"), "without a token the page says so");
  await page.waitForSelector("#signin:not([hidden])");
  check(true, "a daemon with tokens gets the token box");
  const icon = await page.request.get(`http://${http}/favicon.ico`);
  check(icon.status() === 200 && icon.headers()["content-type"] === "image/svg+xml" &&
        (await icon.text()).startsWith("<svg"), "/favicon.ico is the page's icon");
  await page.fill("#token", token);
  await page.click("#signin button");
  await page.waitForSelector("table");
  check((await page.textContent("#whoami")) === "signed in", "signing in with a token");

  // A malformed model: its diagnostic at the right line.
  await page.goto(`http://${http}/#/new`);
  await page.fill("#model", "model:input shape=[4];\nmodel:output shape=[3];\nmodel:layers dense(shape=[3], activation=nope);\n");
  await page.click("#check");
  const diagnostic = await page.waitForSelector(".diagnostic");
  check((await diagnostic.getAttribute("data-line")) === "3", "a malformed model's diagnostic is at line 3");
  check((await page.textContent("#gutter .err")) === "3", "the editor marks line 3 in its gutter");
  const marked = await page.$$eval(".marks .err-line", (lines) => lines.map((l) => l.textContent));
  check(marked.length === 1 && marked[0].startsWith("model:layers dense"), "the editor marks the diagnostic's line behind its text");
  check((await page.textContent(".marks .err-at")).length === 1, "the editor marks the diagnostic's column");
  await page.click(".diagnostic");
  const caret = await page.$eval("#model", (t) => t.value.slice(0, t.selectionStart).split("\n").length);
  check(caret === 3, "clicking a diagnostic puts the caret on its line");
  await shot("diagnostics");

  // Checking the iris model shows its DAG summary.
  await page.fill("#model", iris);
  await page.click("#check");
  await page.waitForSelector("#summary table");
  check((await page.textContent("#summary")).includes("trainable parameters"), "a valid model's summary");
  const kinds = await page.$$eval("#summary tbody tr", (rows) => rows.map((r) => `${r.className}:${r.cells[0].textContent}`));
  check(kinds[0] === "input:input model" && kinds[1] === "output:output model" && kinds.slice(2).every((k) => k.startsWith("parameter:")),
    "the summary marks the input, the output and the parameters (iris's input and output share the name model)");

  // The expert system's preview: without data, then with iris.
  await page.waitForSelector("#expert .decision");
  check((await page.textContent("#expert")).includes("pick a dataset"), "without a dataset the preview says what it leaves out");
  await page.selectOption("#dataset", irisId);
  await page.selectOption("#h-optimizer", "sgdm");
  await page.click("#preview");
  await page.waitForFunction(() => !document.querySelector("#expert").textContent.includes("pick a dataset"));
  const expert = await page.textContent("#expert");
  check(expert.includes("loss CCE"), "the preview shows the expert system's loss decision");
  check((await page.getAttribute("#h-regularization", "data-resolved")) !== "auto" &&
        (await page.textContent("#h-regularization option")) !== "(auto)" &&
        (await page.getAttribute("#h-batchSize", "placeholder")) === "16" &&
        (await page.getAttribute("#h-lr", "placeholder")) === "auto", "the preview fills each field with what the job would use");
  await shot("preview");
  await bothWidths("new-job");

  // Fields validated in the page: a word in a number field says so, and
  // nothing is sent; the choices are lists.
  const options = await page.$$eval("#h-optimizer option", (o) => o.map((x) => x.value));
  check(["lion", "rlion", "nesterov", "sgdm", "adam", "adamw"].every((o) => options.includes(o)) &&
        (await page.getAttribute("#h-optimizer", "data-default")) === "auto", "the optimizer is a choice, auto by default");
  check((await page.textContent("#impute option")).startsWith("auto"), "missing values are imputed by default");

  // The label field lists the picked dataset's columns; a starter model is
  // written for the dataset, and checked.
  await page.selectOption("#dataset", "");
  await page.selectOption("#dataset", irisId);
  await page.waitForFunction(() => document.querySelectorAll("#label option").length > 1);
  const columns = await page.$$eval("#label option", (o) => o.map((x) => x.value));
  check(columns[0] === "" && columns.includes("species") && columns.includes("sepal_length"),
    "the label field is a list of the dataset's columns");
  const written = await page.inputValue("#model");
  await page.click("#starter");
  // The iris model in the editor has the same input line: wait for the
  // starter's own header (the first CI failure was this race).
  const starter = await page.waitForFunction(
    () => document.querySelector("#model").value.includes("written by webnnmctl init"),
    null, { timeout: 30000 }).then(() => true, () => false);
  check(starter && (await page.inputValue("#model")).includes("model:input shape=[4];"),
    "a starter model for the dataset");
  await page.waitForFunction(() => document.querySelector("#status").textContent.startsWith("the model checks"));
  await page.fill("#model", written);
  check((await page.$$eval("#h-regularization option", (o) => o.map((x) => x.value))).includes("L1+L2"),
    "regularization is a choice");
  await page.fill("#h-epochs", "abc");
  check((await page.textContent("#e-epochs")).includes("not a whole number"), "typing abc into epochs says so beside it");
  await page.click("#submit");
  await page.waitForSelector("#status.error");
  check((await page.textContent("#status")).includes("epochs") && page.url().includes("#/new"),
    "submitting with a bad field names it and sends nothing");
  await page.fill("#h-epochs", "");
  check((await page.textContent("#e-epochs")) === "", "the message goes once the field is right");

  // An IDX dataset uploaded from the browser (four files), previewed with
  // the Fashion-MNIST MLP.
  await page.setInputFiles("#file", idxFiles(join(work, "idx")));
  await page.waitForFunction(() => document.querySelector("#status").textContent.startsWith("uploaded"));
  const idxId = await page.inputValue("#dataset");
  const stored = JSON.parse(ctl("dataset", "list", "-o", "json")).datasets.find((d) => d.datasetId === idxId);
  check(stored?.format === "IDX" && stored.files.length === 4, "an IDX dataset uploaded from the browser");
  check(stored?.rows === 80 && stored?.columns === 784, "its images counted (60 + 20 of 28 x 28) from the IDX headers, two gzipped");
  await page.fill("#model", readFileSync(join(source, "configs/models/fashion-mlp.wnm"), "utf8"));
  await page.selectOption("#h-optimizer", "");
  await page.click("#preview");
  // The recipe for a wide dense model on 60 images: AdamW.
  await page.waitForFunction(() => document.querySelector("#h-optimizer").dataset.resolved === "adamw");
  check(!(await page.textContent("#status")).includes("no preview"), "the daemon reads the uploaded IDX dataset for the preview");

  // Submit iris, watch the chart until the job succeeds.
  const first = await submitIris(40);
  await page.waitForFunction(() => document.querySelector("#numbers")?.textContent.includes("epoch"));
  await page.waitForFunction(() => document.querySelector("#state")?.textContent === "SUCCEEDED", null, { timeout: 120000 });
  check((await page.textContent("#numbers")).includes("epoch 40/40"), "the chart followed every epoch");
  check((await page.textContent("#test")).includes("accuracy"), "the test result is shown");
  check((await page.textContent("#decisions")).includes("loss CCE"), "the expert system's decisions are shown");
  await page.fill("#values-0", "6.7,3.0,5.2,2.3");
  await page.click("#infer");
  await page.waitForFunction(() => document.querySelector("#inference")?.textContent.includes("→"));
  check((await page.textContent("#inference")).includes("virginica"), "an inference names its class");
  const inputLabels = await page.$$eval(".infer-input", (l) => l.map((x) => x.textContent));
  check(inputLabels.length === 1 && inputLabels[0].includes("[4]") &&
        inputLabels[0].includes("sepal_length, sepal_width, petal_length, petal_width") &&
        (await page.getAttribute("#values-0", "placeholder")) === "sepal_length, sepal_width, petal_length, petal_width",
  "the inference form names the model's input, its size and the dataset's columns");
  check(/setosa [\d.e-]+ · versicolor [\d.e-]+ · virginica [\d.e-]+/.test(await page.textContent("#inference")),
    "an inference names each class beside its probability");
  // The test figures: a class a row, the confusion matrix named.
  const perClass = await page.$$eval("#test table.per-class tbody tr", (rows) => rows.map((r) => r.cells[0].textContent));
  const confusion = await page.$$eval("#test table.confusion tbody tr", (rows) => rows.map((r) =>
    [...r.cells].map((c) => c.textContent)));
  const testGot = JSON.parse(ctl("get", first, "-o", "json")).testMetrics.model;
  check(perClass.join() === "setosa,versicolor,virginica" &&
        JSON.stringify(confusion.map((r) => r.slice(1).map(Number))) === JSON.stringify(testGot.confusionMatrix) &&
        confusion.map((r) => r[0]).join() === "setosa,versicolor,virginica",
  "the test card shows precision, recall and F1 a class a row and the confusion matrix with class names");
  await page.fill("#values-0", "1,2");
  await page.click("#infer");
  await page.waitForFunction(() => document.querySelector("#inference").textContent.startsWith("error:"));
  check(!(await page.textContent("#inference")).includes("virginica") &&
        (await page.textContent("#inference")).includes("takes 4 values, not 2"), "a failed inference clears the old answer and says why");
  // The exported model run in this page by ONNX Runtime Web (headless
  // chromium has no navigator.ml: WebAssembly), next to the daemon's.
  await page.fill("#values-0", "6.7,3.0,5.2,2.3");
  await runHere("iris", "virginica");

  // Buttons by state; the charts' read-out, scales, smoothing and best epoch.
  check(await page.isDisabled("#cancel") && await page.isDisabled("#resume") && !(await page.isDisabled("#delete")),
    "a finished job offers Delete, not Cancel or Resume");
  const got = JSON.parse(ctl("get", first, "-o", "json"));
  check((await page.getAttribute("#chart", "data-best")) === String(got.bestEpoch), "the loss chart marks the best epoch");
  await page.hover("#chart");
  await page.waitForSelector("#tip:not([hidden])", { timeout: 10000 });
  const tip = await page.textContent("#tip");
  check(/epoch \d+/.test(tip) && tip.includes("training loss:") && tip.includes("validation loss:") &&
        tip.includes("learning rate:"), "hovering the chart reads out every series");
  const before = await page.$eval("#chart", (c) => c.toDataURL());
  await page.check("#log");
  const logged = await page.$eval("#chart", (c) => c.toDataURL());
  await page.uncheck("#log");
  await page.fill("#smoothing", "0.9");
  await page.dispatchEvent("#smoothing", "input");
  const smoothed = await page.$eval("#chart", (c) => c.toDataURL());
  check(logged !== before && smoothed !== before, "log scale and smoothing redraw the curves");
  check((await page.textContent("#accuracy-legend")).includes("validation accuracy"), "an accuracy chart beside the loss");
  // Zoom: drag across a stretch of the loss chart; a double click zooms out.
  const box = await page.$eval("#chart", (c) => { const r = c.getBoundingClientRect(); return { x: r.x, y: r.y, w: r.width, h: r.height }; });
  await page.mouse.move(box.x + box.w * 0.4, box.y + box.h / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.w * 0.7, box.y + box.h / 2);
  await page.mouse.up();
  const zoomed = (await page.getAttribute("#chart", "data-x-range")).split("-").map(Number);
  check(zoomed.length === 2 && zoomed[0] > 1 && zoomed[1] < 40 && zoomed[0] < zoomed[1] && !(await page.isHidden("#zoom-out")) &&
        (await page.getAttribute("#accuracy", "data-x-range")) === zoomed.join("-"),
  `dragging across the chart zooms both charts into epochs ${zoomed.join("-")}`);
  await page.dblclick("#chart");
  check((await page.getAttribute("#chart", "data-x-range")) === "" && await page.isHidden("#zoom-out"), "a double click zooms out");
  // Wall time on x.
  await page.selectOption("#x-axis", "wall");
  await page.hover("#chart");
  await page.waitForSelector("#tip:not([hidden])", { timeout: 10000 });
  check((await page.getAttribute("#chart", "data-x-title")) === "wall time (s)" &&
        (await page.textContent("#tip")).startsWith("wall time (s) "), "the curves over wall time");
  await page.selectOption("#x-axis", "epoch");
  check((await page.textContent("#parameters")).includes("samples/s in the training steps") &&
        (await page.textContent("#parameters")).includes("samples/s over the run's wall time"), "both speeds, each named");
  const [curves] = await Promise.all([page.waitForEvent("download"), page.click("#download-csv")]);
  const csvLines = readFileSync(await curves.path(), "utf8").trim().split("\n");
  check(csvLines[0] === "epoch,trainLoss,validationLoss,lr,trainAccuracy,validationAccuracy" && csvLines.length === 41 &&
        csvLines[40].startsWith("40,"), "the curves download as a CSV file, an epoch a row");
  const params = await page.textContent("#parameters");
  check(params.includes("optimizer") && params.includes("sgdm") && params.includes("set") && params.includes("chosen") &&
        params.includes("iris.csv"), "the job's parameters: set and chosen values, the dataset");
  await shot("job");
  await bothWidths("job");

  // The snapshot download is the daemon's snapshot, byte for byte.
  const [download] = await Promise.all([page.waitForEvent("download"), page.click("#download")]);
  const downloaded = readFileSync(await download.path());
  ctl("snapshot", "export", first, "-f", join(work, "exported.wnms"));
  check(download.suggestedFilename() === `${first}.wnms` &&
        downloaded.equals(readFileSync(join(work, "exported.wnms"))), "a downloaded snapshot equals webnnmctl's export");

  // The model as ONNX (the daemon's ExportModel): webnnmctl export's bytes.
  const [onnx] = await Promise.all([page.waitForEvent("download"), page.click("#download-onnx")]);
  ctl("export", first, "-o", join(work, "exported.onnx"));
  check(onnx.suggestedFilename() === `${first}.onnx` &&
        readFileSync(await onnx.path()).equals(readFileSync(join(work, "exported.onnx"))),
    "a downloaded ONNX file equals webnnmctl export's");

  // Predictions of the whole dataset, downloaded: the daemon's CSV, as
  // webnnmctl predict gets it.
  await page.selectOption("#predict-dataset", irisId);
  const [predicted] = await Promise.all([page.waitForEvent("download"), page.click("#predict")]);
  const csv = readFileSync(await predicted.path(), "utf8");
  check(predicted.suggestedFilename() === `${first}-predictions.csv` &&
        csv === ctl("predict", first, "--dataset", irisId), "a downloaded prediction equals webnnmctl predict's");
  check(csv.split("\n")[0] === "model:class,model:setosa,model:versicolor,model:virginica" &&
        csv.trim().split("\n").length === 151, "the predictions name the classes, a row per sample");
  check((await page.textContent("#predicted")).includes("150 samples predicted"), "the page says how many samples it predicted");

  // A two-input, two-output model from an .npz uploaded in the browser:
  // trained, each output's test figures shown, predictions as an .npz.
  await page.goto(`http://${http}/#/new`);
  await page.fill("#model", readFileSync(join(source, "configs/models/multimodal.wnm"), "utf8"));
  await page.setInputFiles("#file", join(source, "configs/datasets/multimodal.npz"));
  await page.waitForFunction(() => document.querySelector("#status").textContent.startsWith("uploaded"));
  await page.fill("#h-seeds", "5");
  await page.click("#submit");
  await page.waitForURL(/#\/job\//);
  const multimodal = decodeURIComponent(page.url().split("#/job/")[1]);
  await page.waitForFunction(() => document.querySelector("#state")?.textContent === "SUCCEEDED", null, { timeout: 120000 });
  await page.waitForSelector(".output-metrics[data-output=score]");
  const figures = await page.$$eval(".output-metrics", (rows) => rows.map((r) => r.textContent));
  check(figures.length === 2 && figures[0].startsWith("label: accuracy") && figures[1].includes("R²"),
    "a two-output job shows each output's test figures");
  const total = JSON.parse(ctl("get", multimodal, "-o", "json")).testLoss;
  check(total >= 0 || (await page.textContent("#negative-loss")).includes("below zero"),
    `a negative total test loss (${total}) is explained`);
  await page.selectOption("#predict-format", "npz");
  const [npz] = await Promise.all([page.waitForEvent("download"), page.click("#predict")]);
  const archive = readFileSync(await npz.path());
  check(npz.suggestedFilename() === `${multimodal}-predictions.npz` && archive.subarray(0, 2).toString() === "PK" &&
        ["label.npy", "label_class.npy", "label_classes.npy", "score.npy"].every((n) => archive.includes(n)),
  "a two-input model's predictions download as an .npz of every output");
  await shot("multimodal");

  // A CNN and a text LSTM (token ids, a lengths input) in the browser too.
  const textId = JSON.parse(ctl("dataset", "upload", join(source, "configs/datasets/text.npz"), "-o", "json")).datasetId;
  for (const [model, dataset, values] of [
    ["fashion-cnn", idxId, Array.from({ length: 784 }, (_, i) => (i * 37) % 255).join(",")],
    ["text-lstm", textId, "3,17,5,22,9,1"],
  ]) {
    const job = JSON.parse(ctl("submit", join(source, `configs/models/${model}.wnm`), "--dataset", dataset,
      "--epochs", "1", "--seeds", "1", "-o", "json")).jobId;
    ctl("watch", job);  // to its end
    await page.goto(`http://${http}/#/job/${job}`);
    // This job's page (the previous one's state may still be on screen).
    await page.waitForFunction((id) => document.querySelector("h2 small.mono")?.textContent === id &&
      document.querySelector("#state")?.textContent === "SUCCEEDED", job, { timeout: 120000 });
    await page.waitForSelector("#values-0");
    await page.fill("#values-0", values);
    await runHere(model);
  }

  // The daemon serves the runtime's few files by name, nothing else of
  // the folder; the runner is sandboxed by its own header too.
  const served = await Promise.all(["ort.wasm.min.mjs", "ort.all.min.mjs", "..%2F..%2Fpackage.json", "../package.json"]
    .map((name) => fetch(`http://${http}/ort/${name}`).then((r) => r.status)));
  const runnerPolicy = (await fetch(`http://${http}/runner.html`)).headers.get("content-security-policy") ?? "";
  check(served.join(",") === "200,404,404,404" && runnerPolicy.startsWith("sandbox allow-scripts;"),
    `/ort/ serves the runtime's files only (${served.join(", ")}); the runner is sandboxed (${runnerPolicy})`);

  // WebNN where navigator.ml makes a context: a stub that records its
  // calls (and makes nothing ONNX Runtime can use) — the page tries WebNN
  // first, says it failed and runs on WebAssembly.
  {
    const stubbed = await context.newPage();
    await stubbed.addInitScript(() => {
      window.mlCalls = [];
      Object.defineProperty(navigator, "ml", { value: { createContext: async (o) => { window.mlCalls.push(o ?? {}); return {}; } } });
    });
    await stubbed.goto(`http://${http}/#/job/${first}`);
    await stubbed.waitForFunction(() => document.querySelector("#state")?.textContent === "SUCCEEDED");
    await stubbed.fill("#values-0", "6.7,3.0,5.2,2.3");
    await stubbed.click("#infer-browser");
    await stubbed.waitForFunction(() => document.querySelector("#browser-inference")?.dataset.difference !== undefined ||
      document.querySelector("#browser-inference")?.classList.contains("error"), null, { timeout: 90000 });
    const text = await stubbed.textContent("#browser-inference");
    // The runner's frame (sandboxed: the init script ran there too).
    const runnerFrame = stubbed.frames().find((f) => f.url().endsWith("/runner.html"));
    const calls = await runnerFrame.evaluate(() => window.mlCalls.length);
    check(calls === 1 && text.includes("WebNN failed") && text.includes("virginica") &&
          (await stubbed.getAttribute("#browser-inference", "data-provider")) === "wasm",
      `with navigator.ml the page asks WebNN first (${calls} createContext call), then WebAssembly (${text.replace(/\n/g, " | ")})`);
    await stubbed.close();
  }

  // docs/onnx-in-a-page.html as a user copies it: its CDN's ONNX Runtime
  // Web served from npm's copy, the model exported by webnnmctl.
  {
    ctl("export", first, "-o", join(work, "model.onnx"));
    const docs = await context.newPage();
    await docs.route("https://cdn.jsdelivr.net/npm/onnxruntime-web@1.30.0/dist/**", (route) => {
      const name = new URL(route.request().url()).pathname.split("/").pop();
      route.fulfill({ path: join(ortDist, name), contentType: name.endsWith(".wasm") ? "application/wasm" : "text/javascript",
        headers: { "Access-Control-Allow-Origin": "*" } });
    });
    await docs.route("http://docs.test/**", (route) => {
      const name = new URL(route.request().url()).pathname.split("/").pop();
      route.fulfill(name === "model.onnx" ? { path: join(work, "model.onnx") }
        : { path: join(source, "docs/onnx-in-a-page.html"), contentType: "text/html" });
    });
    await docs.goto("http://docs.test/onnx-in-a-page.html");
    await docs.click("#run");
    await docs.waitForFunction(() => document.querySelector("#answer").textContent !== "", null, { timeout: 60000 });
    const answer = await docs.textContent("#answer");
    check(answer.startsWith("WebAssembly") && /model_class: \[2\]/.test(answer),
      `docs/onnx-in-a-page.html runs the exported iris (${answer.replace(/\n/g, " | ")})`);
    await docs.close();
  }

  // Start from a shipped model, or open a .wnm file; standardize shows
  // what auto will do.
  await page.goto(`http://${http}/#/new`);
  await page.selectOption("#template", "wine");
  check((await page.inputValue("#model")) === readFileSync(join(source, "configs/models/wine.wnm"), "utf8"),
    "a shipped model as the start of a new one");
  await page.setInputFiles("#open-model", join(source, "configs/models/iris.wnm"));
  await page.waitForFunction((t) => document.querySelector("#model").value === t, iris);
  check(true, "a .wnm file opened into the editor");
  await page.selectOption("#dataset", irisId);
  await page.click("#preview");
  await page.waitForFunction(() => document.querySelector("#standardize").dataset.resolved !== undefined);
  check((await page.$eval("#standardize", (s) => s.options[0].textContent)).startsWith("auto (on"),
    "the standardize choice says what auto will do");

  // A regression job shows its errors, not an empty accuracy chart.
  const diabetesId = JSON.parse(ctl("dataset", "upload", join(source, "configs/datasets/diabetes.csv"), "-o", "json")).datasetId;
  const diabetes = JSON.parse(ctl("submit", join(source, "configs/models/diabetes.wnm"), "--dataset", diabetesId,
    "--epochs", "5", "-o", "json")).jobId;
  await page.goto(`http://${http}/#/job/${diabetes}`);
  await page.waitForFunction(() => document.querySelector("#state")?.textContent === "SUCCEEDED", null, { timeout: 120000 });
  await page.waitForSelector(".output-metrics table.metrics");
  check(await page.isHidden("#accuracy-section") && !(await page.isHidden("#regression-note")) &&
        (await page.textContent("#test")).includes("in the target's own units"),
  "a regression job shows its errors in the target's units instead of an accuracy chart");

  // A daemon without tokens: no token box.
  {
    const open = spawn(webnnmd, ["--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0",
      "--db", join(work, "open.db")], { stdio: ["ignore", "pipe", "inherit"] });
    const line = await new Promise((resolve) => {
      let text = "";
      open.stdout.on("data", (d) => { text += d; if (text.includes("\n")) resolve(text.split("\n")[0]); });
    });
    const openPage = await context.newPage();
    await openPage.addInitScript(() => localStorage.clear());
    await openPage.goto(`http://${line.match(/http=(\S+)/)[1]}/`);
    await openPage.waitForSelector("table");
    await openPage.waitForTimeout(500);
    check(await openPage.isHidden("#signin"), "a daemon without tokens gets no token box");
    await openPage.close();
    open.kill("SIGTERM");
  }

  // A second job, then both compared.
  const second = await submitIris(20);
  await page.waitForFunction(() => document.querySelector("#state")?.textContent === "SUCCEEDED", null, { timeout: 120000 });
  await page.goto(`http://${http}/#/jobs`);
  await page.waitForSelector(".pick");
  for (const id of [first, second]) await page.check(`.pick[value="${id}"]`);
  await page.click("#compare");
  await page.waitForFunction(() => document.querySelectorAll("#legend span").length === 4);
  check(true, "two jobs compared (4 curves)");
  const runs = await page.textContent("#runs");
  check(runs.includes("epochs") && runs.includes("40/40") && runs.includes("20/20") && runs.includes("best validation loss"),
    "the compare table puts the runs' parameters and figures side by side");
  check((await page.$$("#runs tr.differs")).length >= 1, "the compare table marks what differs");
  check(runs.includes("impute") && runs.includes("standardization") && runs.includes("split"),
    "the compare table shows the data settings");
  const visibleRows = () => page.$$eval("#runs tbody tr", (rows) => rows.filter((r) => r.offsetParent !== null).length);
  const allRows = await visibleRows();
  await page.check("#only-differences");
  const differing = await visibleRows();
  check(differing === (await page.$$("#runs tr.differs")).length && differing < allRows,
    "only differences hides the rows that agree");
  check(!(await page.isHidden("#accuracy-card")) &&
        (await page.textContent("#accuracy-legend")).includes("validation accuracy"), "the runs' accuracy overlaid");
  check((await page.textContent("#legend")).includes("test-model ("), "the curves are named by run");
  await shot("compare");
  await bothWidths("compare");
  await page.goto(`http://${http}/#/compare`);
  await page.waitForSelector(".empty");
  check((await page.textContent(".empty")).includes("Tick two or more runs"), "an empty compare view says what to do");

  // The jobs list refreshes by itself.
  await page.goto(`http://${http}/#/jobs`);
  await page.waitForSelector(".pick");
  const rowsBefore = (await page.$$(".pick")).length;
  const named = JSON.parse(ctl("submit", join(source, "configs/models/iris.wnm"), "--dataset", irisId,
    "--epochs", "1", "--name", "from-the-cli", "--tag", "team=web", "-o", "json")).jobId;
  await page.waitForFunction((n) => document.querySelectorAll(".pick").length === n + 1, rowsBefore, { timeout: 15000 });
  check((await page.textContent("#jobs")).includes("from-the-cli") && (await page.textContent("#jobs")).includes("team=web"),
    "a job submitted elsewhere appears in the list with its name and tags");
  await bothWidths("jobs");

  // A missing job says so, instead of the previous job's page.
  await page.goto(`http://${http}/#/job/${first}`);
  await page.waitForSelector("#chart");
  await page.goto(`http://${http}/#/job/jdoesnotexist`);
  await page.waitForSelector("h2:has-text('No such job')");
  check(!(await page.$("#chart")), "a missing job id shows no such job, not the previous page");

  // Delete asks first: dismissed, the job stays; accepted, it goes.
  await page.goto(`http://${http}/#/job/${named}`);
  await page.waitForFunction(() => document.querySelector("#state")?.textContent === "SUCCEEDED", null, { timeout: 120000 });
  page.once("dialog", (d) => d.dismiss());
  await page.click("#delete");
  await page.waitForTimeout(300);
  check(page.url().includes(named) && ctl("get", named).includes("SUCCEEDED"), "dismissing the question keeps the job");
  page.once("dialog", (d) => d.accept());
  await page.click("#delete");
  await page.waitForURL(/#\/jobs/);
  let gone = false;
  try { ctl("get", named); } catch { gone = true; }
  check(gone, "accepting it deletes the job");

  // A run that diverges says so on its chart.
  const diverging = JSON.parse(ctl("submit", join(source, "configs/models/iris.wnm"), "--dataset", irisId,
    "--epochs", "20", "--optimizer", "sgdm", "--lr", "1e6", "--seeds", "1", "-o", "json")).jobId;
  await page.goto(`http://${http}/#/job/${diverging}`);
  await page.waitForFunction(() => document.querySelector("#state")?.textContent === "FAILED", null, { timeout: 120000 });
  await page.waitForFunction(() => document.querySelector("#chart")?.dataset.note?.includes("diverged"));
  // The buttons follow the state in the same render, or the next one on a
  // loaded machine: wait (bounded) for them rather than look once.
  const offers = await page.waitForFunction(
    () => !document.querySelector("#resume")?.disabled && document.querySelector("#cancel")?.disabled === true,
    null, { timeout: 10000 }).then(() => true, () => false);
  check(offers, "a failed job offers Resume, not Cancel");
  await shot("diverged");
} catch (e) {
  failures++;
  console.log(`not ok - ${e.message}`);
  await shot("failure")?.catch(() => {});
} finally {
  await context?.close();
  daemon.kill("SIGTERM");
  rmSync(work, { recursive: true, force: true });
}
console.log(failures ? `${failures} failed` : "all passed");
process.exit(failures ? 1 : 0);
