#!/usr/bin/env bash
# Runs backend_fuzzer for a bounded time, seeded with the conformance vectors
# split one case per file. usage: run_backend_fuzzer.sh FUZZER SECONDS
# WORK_DIR WPT_DIR
set -euo pipefail
fuzzer="$1" seconds="$2" work="$3" wpt="$4"
here="$(cd "$(dirname "$0")" && pwd)"
rm -rf "$work-seeds"
python3 "$here/split_vectors.py" "$wpt" "$work-seeds" 4096
exec "$here/run_fuzzer.sh" "$fuzzer" "$seconds" "$work" "$work-seeds"
