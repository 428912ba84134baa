// The front end in a real browser: Debian's chromium, driven by
// playwright-core, against the real webnnmd (tokens on, a temporary
// database, the front end served by --http-listen). Screenshots land in
// ARTIFACTS_DIR.
//
// usage: node browser_test.mjs WEBNNMD WEBNNMCTL SOURCE_DIR ARTIFACTS_DIR
import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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
const daemon = spawn(webnnmd, [
  "--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0",
  "--db", join(work, "webnnm.db"), "--tokens", join(work, "tokens"),
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
ctl("dataset", "upload", join(source, "configs/datasets/iris.csv"));

// A fresh profile folder (playwright passes it as --user-data-dir).
let context;
let page;
const shot = (name) => page?.screenshot({ path: join(artifacts, `${name}.png`), fullPage: true });
const iris = readFileSync(join(source, "configs/models/iris.wnm"), "utf8");

async function submitIris(epochs) {
  await page.goto(`http://${http}/#/new`);
  await page.fill("#model", iris);
  await page.fill("#h-epochs", String(epochs));
  await page.fill("#h-optimizer", "sgdm");
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
  await shot("diagnostics");

  // Checking the iris model shows its DAG summary.
  await page.fill("#model", iris);
  await page.click("#check");
  await page.waitForSelector("#summary table");
  check((await page.textContent("#summary")).includes("trainable parameters"), "a valid model's summary");

  // Submit iris, watch the chart until the job succeeds.
  const first = await submitIris(40);
  await page.waitForFunction(() => document.querySelector("#numbers")?.textContent.includes("epoch"));
  await page.waitForFunction(() => document.querySelector("#state")?.textContent === "SUCCEEDED", null, { timeout: 120000 });
  check((await page.textContent("#numbers")).includes("epoch 40/40"), "the chart followed every epoch");
  check((await page.textContent("#test")).includes("accuracy"), "the test result is shown");
  check((await page.textContent("#decisions")).includes("loss CCE"), "the expert system's decisions are shown");
  await page.fill("#values", "6.7,3.0,5.2,2.3");
  await page.click("#infer");
  await page.waitForFunction(() => document.querySelector("#inference")?.textContent.includes("→"));
  check((await page.textContent("#inference")).includes("virginica"), "an inference names its class");
  await shot("job");

  // A second job, then both compared.
  const second = await submitIris(20);
  await page.waitForFunction(() => document.querySelector("#state")?.textContent === "SUCCEEDED", null, { timeout: 120000 });
  await page.goto(`http://${http}/#/jobs`);
  await page.waitForSelector(".pick");
  for (const id of [first, second]) await page.check(`.pick[value="${id}"]`);
  await page.click("#compare");
  await page.waitForFunction(() => document.querySelectorAll("#legend span").length === 4);
  check(true, "two jobs compared (4 curves)");
  await shot("compare");
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
