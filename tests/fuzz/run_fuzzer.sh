#!/usr/bin/env bash
# Runs a libFuzzer target for a bounded time on a fresh copy of its seed
# corpus. Fails on any crash, leak, timeout or sanitizer report.
# usage: run_fuzzer.sh FUZZER SECONDS WORK_DIR SEED_DIR...
set -euo pipefail
fuzzer="$1" seconds="$2" work="$3"
shift 3
rm -rf "$work"
mkdir -p "$work/corpus" "$work/artifacts"
for seeds in "$@"; do
  if [ -d "$seeds" ]; then
    cp "$seeds"/*.wnm "$seeds"/*.json "$seeds"/*.wnms "$seeds"/*.bin \
      "$work/corpus/" \
      2>/dev/null || true
  fi
done
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:symbolize=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
exec "$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
  -max_len=4096 -print_final_stats=1 -artifact_prefix="$work/artifacts/" \
  "$work/corpus"
