#!/usr/bin/env bash
# Browser tests of the web UI: builds the debug binary, serves the demo
# campus (in memory, loopback, a free port) with a temporary copy of the
# demo corpus ingested, plus the test fixtures of tests/browser/fixtures
# (a model whose labels carry HTML and script, a large air handler, a
# document carrying HTML and script), and drives it in Debian's headless
# Chromium with playwright-core (pinned in tests/browser/package-lock.json,
# installed with `npm ci` into a cache outside the clone; no browser is
# downloaded). Every test saves a screenshot to the report directory;
# measurements of the large drawing go to measurements.json there.
#
#   bash scripts/browser-test.sh [BINARY]      (default: the debug build)
#
#   DAEMONIQ_BROWSER_REPORT  screenshots and measurements (default ~/.cache/daemoniq/browser-report)
#   DAEMONIQ_BROWSER_DEPS    where playwright-core is installed (default ~/.cache/daemoniq/browser-test-deps)
#   DAEMONIQ_CHROMIUM        the browser (default /usr/bin/chromium)
#   DAEMONIQ_BROWSER_TESTS   only the tests whose names match this pattern (node --test-name-pattern)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh

cache="${XDG_CACHE_HOME:-$HOME/.cache}/daemoniq"
report="${DAEMONIQ_BROWSER_REPORT:-$cache/browser-report}"
deps="${DAEMONIQ_BROWSER_DEPS:-$cache/browser-test-deps}"
chromium="${DAEMONIQ_CHROMIUM:-/usr/bin/chromium}"
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1

apt_install() {
  local sudo=""
  if [[ "$(id -u)" != 0 ]]; then sudo="sudo"; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$@" >/dev/null
}

# The tools: Node.js and npm for the driver, Debian's Chromium for the browser.
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "browser-test.sh: installing nodejs and npm (apt)"
  apt_install nodejs npm
fi
if [[ ! -x "$chromium" ]]; then
  echo "browser-test.sh: installing chromium (apt)"
  apt_install chromium
fi

# playwright-core, at the version the lock file pins, outside the clone;
# reinstalled only when package.json or the lock file changed.
want="$(cat tests/browser/package.json tests/browser/package-lock.json | sha256sum | cut -d' ' -f1)"
if [[ "$(cat "$deps/.installed" 2>/dev/null || true)" != "$want" || ! -d "$deps/node_modules/playwright-core" ]]; then
  rm -rf "$deps"
  mkdir -p "$deps"
  cp tests/browser/package.json tests/browser/package-lock.json "$deps/"
  (cd "$deps" && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error)
  echo "$want" >"$deps/.installed"
fi

# The web UI's vendor libraries and the model come from the asset cache.
bash scripts/setup.sh >/dev/null
bin="${1:-}"
if [[ -z "$bin" ]]; then
  use_clippy_build
  cargo build --quiet --locked --bin daemoniq
  bin="$CARGO_TARGET_DIR/debug/daemoniq"
fi

work="$(mktemp -d)"
trap 'stop_server; rm -rf "$work"' EXIT

mkdir -p "$report" "$work/docs/corpus" "$work/graph" "$work/reports"
rm -f "$report"/*.png "$report"/measurements.json "$report"/server.log
# A temporary copy of the demo corpus (the README describes it and is not one).
find golden/corpus -maxdepth 1 -type f \( -name '*.md' -o -name '*.pdf' \) ! -name README.md -exec cp {} "$work/docs/corpus/" \;
cp tests/browser/fixtures/xss_document.md "$work/docs/"
cp tests/browser/fixtures/xss_model.ttl "$work/graph/"
node tests/browser/fixtures/gen_big_ahu.mjs 60 >"$work/graph/big_ahu.ttl"

port="$(free_port)"
base="http://127.0.0.1:$port"
start_server "$base" "$work/server.log" \
  "$bin" --memory --log warn --graph-dir graph --graph-dir "$work/graph" serve --bind "127.0.0.1:$port" \
  --docs-root "$work/docs" --report-dir "$work/reports"

echo "== ingesting the demo corpus and the fixture document into $base"
python3 - "$base" <<'PY'
import json, sys, urllib.request
base = sys.argv[1]
req = urllib.request.Request(
    f"{base}/ingest",
    data=json.dumps({"paths": ["corpus", "xss_document.md"]}).encode(),
    headers={"Content-Type": "application/json", "Accept": "application/json"},
)
with urllib.request.urlopen(req, timeout=900) as r:
    body = json.load(r)
c = body["report"]["counts"]
print(f"   {c['documents']} documents, {c['chunks_written']} chunks written, {c['errors']} index errors")
if c["failed"]:
    sys.exit(f"browser-test.sh: {c['failed']} documents failed to ingest: {body['errors']}")
PY

echo "== browser tests (Chromium: $("$chromium" --version 2>/dev/null | head -n1))"
status=0
DAEMONIQ_BASE_URL="$base" DAEMONIQ_BROWSER_REPORT="$report" DAEMONIQ_BROWSER_DEPS="$deps" \
  DAEMONIQ_CHROMIUM="$chromium" \
  node --test --test-concurrency=1 ${DAEMONIQ_BROWSER_TESTS:+--test-name-pattern="$DAEMONIQ_BROWSER_TESTS"} \
  tests/browser/ui.test.mjs || status=$?
cp "$work/server.log" "$report/server.log"
echo "browser-test.sh: screenshots and measurements in $report"
if [[ "$status" != 0 ]]; then
  echo "FAILED: the browser tests (exit $status); the server's log is $report/server.log" >&2
fi
exit "$status"
