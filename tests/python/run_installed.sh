#!/bin/sh
# The Python client as a user installs it: a fresh virtual environment that
# sees Debian's packages, `pip install --no-index client/python` (no
# network), then the same pytest suite against the installed copy.
# Usage: run_installed.sh SOURCE_DIR WEBNNMD
set -eu
source_dir=$1
webnnmd=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
/usr/bin/python3 -m venv --system-site-packages "$tmp/venv"
"$tmp/venv/bin/pip" install --no-index --no-cache-dir --quiet \
  --disable-pip-version-check "$source_dir/client/python"
cd "$tmp"
# The installed copy, not the source tree's or the build tree's.
"$tmp/venv/bin/python" -c '
import sys, webnnm
assert webnnm.__file__.startswith(sys.prefix), webnnm.__file__
print("webnnm", webnnm.__version__, "from", webnnm.__file__)'
WEBNNMD=$webnnmd WEBNNM_SOURCE=$source_dir PYTHONDONTWRITEBYTECODE=1 \
  exec "$tmp/venv/bin/python" -m pytest -q -p no:cacheprovider \
  "$source_dir/tests/python"
