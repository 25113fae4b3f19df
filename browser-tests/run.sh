#!/usr/bin/env bash
# Browser tests: Debian's Chromium (driven by playwright-core) against the real server binary.
#
#   bash browser-tests/run.sh [test files...]
#
# Installs Chromium with apt-get when /usr/bin/chromium is missing, installs playwright-core with
# npm, builds the release server (into $CARGO_TARGET_DIR, default ./target; PROFILE=debug builds
# and runs the debug binary instead, which also serves the client from disk), then runs every
# browser-tests/tests/*.test.js with Node's built-in test runner. Each test file starts its own
# server on a free port with a fresh data dir. Screenshots land in browser-tests/artifacts/.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
cd "$root"

if [ ! -x "${CHROMIUM:-/usr/bin/chromium}" ]; then
  echo "installing Chromium (apt-get)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq chromium fonts-dejavu-core >/dev/null
fi

# pdftoppm (poppler-utils) renders exported PDFs in the export tests (skipped when absent).
if ! command -v pdftoppm >/dev/null 2>&1; then
  echo "installing poppler-utils (apt-get)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq poppler-utils >/dev/null
fi

cd "$here"
if [ -f package-lock.json ]; then
  npm ci --no-audit --no-fund --loglevel=error
else
  npm install --no-audit --no-fund --loglevel=error
fi
cd "$root"

target="${CARGO_TARGET_DIR:-$root/target}"
case "$target" in /*) ;; *) target="$root/$target" ;; esac
if [ "${PROFILE:-release}" = debug ]; then
  cargo build -p server -j "${CARGO_BUILD_JOBS:-2}"
  export SERVER_BIN="$target/debug/server"
else
  cargo build --release -p server -j "${CARGO_BUILD_JOBS:-2}"
  export SERVER_BIN="$target/release/server"
fi

mkdir -p "$here/artifacts"
rm -f "$here/artifacts/"*.png
cd "$here"
if [ "$#" -gt 0 ]; then
  files=("$@")
else
  files=(tests/*.test.js)
fi
status=0
# One file at a time: each starts a server and a browser, and the machine has two cores.
node --test --test-concurrency=1 --test-timeout=180000 "${files[@]}" || status=$?
echo "screenshots: $here/artifacts/"
ls "$here/artifacts" | sed 's/^/  /'
exit $status
