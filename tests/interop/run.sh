#!/usr/bin/env bash
# The interop suite (ctest label "interop"): exported ONNX files checked by
# Debian's python3-onnx and run in ONNX Runtime for Node (npm's
# onnxruntime-node, its CPU library bundled: its install step downloads
# nothing with ONNXRUNTIME_NODE_INSTALL=skip).
#   run.sh onnx WEBNNMCTL WEBNNMD SOURCE_DIR
#   run.sh conformance WEBNNM_CONFORMANCE_ONNX SOURCE_DIR
#       the WebNN conformance vectors exported one case a model, run in
#       ONNX Runtime, checked at the cases' tolerances
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
case "${1:-}" in
  onnx)
    if ! /usr/bin/python3 -c "import onnx" 2>/dev/null; then
      echo "Debian's python3-onnx is missing (scripts/bootstrap installs it)"
      exit 1
    fi
    (cd "$here" && ONNXRUNTIME_NODE_INSTALL_CUDA=skip ONNXRUNTIME_NODE_INSTALL=skip \
       npm ci --no-audit --no-fund --loglevel=error >/dev/null)
    exec node "$here/onnx_test.mjs" "$2" "$3" "$4"
    ;;
  conformance)
    work="$(mktemp -d)"
    trap 'rm -rf "$work"' EXIT
    vectors=("$3"/tests/conformance/wpt/*.json)
    "$2" export "$work" "${vectors[@]}"
    (cd "$here" && ONNXRUNTIME_NODE_INSTALL_CUDA=skip ONNXRUNTIME_NODE_INSTALL=skip \
       npm ci --no-audit --no-fund --loglevel=error >/dev/null)
    node "$here/conformance_onnx.mjs" "$work"
    "$2" check "$work" "${vectors[@]}"
    ;;
  *)
    echo "usage: run.sh onnx WEBNNMCTL WEBNNMD SOURCE_DIR | conformance WEBNNM_CONFORMANCE_ONNX SOURCE_DIR" >&2
    exit 2
    ;;
esac
