#!/usr/bin/env bash
# The browser suite's two tests (ctest label "browser"):
#   run.sh bundle SOURCE_DIR                  a rebuild of the front end's
#       bundle equals the committed client/web/dist
#   run.sh chromium WEBNNMD WEBNNMCTL SOURCE_DIR ARTIFACTS_DIR
#       the front end in Debian's chromium, driven by playwright-core
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
case "$1" in
  bundle)
    source="$2"
    out="$(mktemp -d)"
    trap 'rm -rf "$out"' EXIT
    "$source/client/web/build.sh" "$out"
    for f in index.html app.js style.css runner.html runner.js favicon.svg; do
      if ! cmp -s "$out/$f" "$source/client/web/dist/$f"; then
        echo "client/web/dist/$f differs from a rebuild: run client/web/build.sh"
        exit 1
      fi
    done
    echo "the committed bundle equals a rebuild"
    ;;
  chromium)
    if [ ! -x /usr/bin/chromium ]; then
      echo "Debian's chromium is missing (scripts/bootstrap installs it)"
      exit 1
    fi
    (cd "$here" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
    exec node "$here/browser_test.mjs" "$2" "$3" "$4" "$5"
    ;;
  *)
    echo "usage: run.sh bundle SOURCE_DIR | chromium WEBNNMD WEBNNMCTL SOURCE_DIR ARTIFACTS" >&2
    exit 2
    ;;
esac
