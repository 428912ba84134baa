#!/usr/bin/env bash
# Rebuilds the front end's bundle in dist/ (committed, so that building
# webnnmd needs no npm): installs the pinned npm packages (package-lock.json)
# with the machine's Node.js, generates the messages and the service from
# proto/ with Debian's protoc and protoc-gen-es, and bundles src/ with
# esbuild. The same sources and lockfile give the same bytes.
# usage: build.sh [OUT_DIR]   (default: dist)
set -euo pipefail
cd "$(dirname "$0")"
out="${1:-dist}"
npm ci --no-audit --no-fund --loglevel=error >/dev/null
rm -rf gen && mkdir -p gen
protoc -I ../../proto --plugin=protoc-gen-es=node_modules/.bin/protoc-gen-es \
  --es_out gen --es_opt target=js,import_extension=js \
  webnnm/v1/hyperparameters.proto webnnm/v1/webnnm.proto
# The shipped models (configs/models) as the new-job view's templates.
node -e '
const fs = require("fs");
const dir = "../../configs/models";
const out = {};
for (const f of fs.readdirSync(dir).filter((f) => f.endsWith(".wnm")).sort()) {
  out[f.slice(0, -4)] = fs.readFileSync(`${dir}/${f}`, "utf8");
}
fs.writeFileSync("gen/templates.js", `export const templates = ${JSON.stringify(out, null, 1)};\n`);
'
mkdir -p "$out"
node_modules/.bin/esbuild src/app.js --bundle --format=esm --minify \
  --target=es2020 --legal-comments=none --log-level=warning \
  --outfile="$out/app.js"
cp src/index.html src/style.css src/runner.html src/runner.js src/favicon.svg "$out/"
