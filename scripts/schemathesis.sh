#!/usr/bin/env bash
# Schemathesis against the server's own OpenAPI document: serves the demo
# campus (in memory, loopback, a free port, an empty docs root) with an API
# key and a read-only one, and runs `schemathesis run .../openapi.json`
# twice, once with each key. It fails on any 5xx, any response the document
# does not declare (status, content type, headers, body schema), a request
# the document calls invalid that is accepted, and auth that is ignored
# (a request without a key or with a wrong one that is not 401).
# Bounded: a fixed number of examples per operation, each run under a time
# limit; traffic only to 127.0.0.1.
#
#   bash scripts/schemathesis.sh [BINARY]     (default: the debug build)
#
#   DAEMONIQ_SCHEMATHESIS_EXAMPLES  test cases per operation and phase (default 25)
#   DAEMONIQ_SCHEMATHESIS_SEED      the generation seed (default fixed, so CI runs the same cases)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh

bin="${1:-$CARGO_TARGET_DIR/debug/daemoniq}"
examples="${DAEMONIQ_SCHEMATHESIS_EXAMPLES:-25}"
seed="${DAEMONIQ_SCHEMATHESIS_SEED:-20261124}"
python="$(bash scripts/python-venv.sh scripts/requirements-schemathesis.txt)"
schemathesis="$(dirname "$python")/schemathesis"
hooks="$PWD/scripts/schemathesis_hooks.py"

work="$(mktemp -d)"
trap 'stop_server; rm -rf "$work"' EXIT

# Throwaway keys for this server only.
full="schemathesis-full-$(python3 -c 'import secrets; print(secrets.token_hex(12))')"
read_only="schemathesis-read-$(python3 -c 'import secrets; print(secrets.token_hex(12))')"
mkdir -p "$work/docs"
port="$(free_port)"
base="http://127.0.0.1:$port"
# An empty docs root: generated `paths` must not ingest the repository.
start_server "$base" "$work/server.log" \
  "$bin" --memory --log warn serve --bind "127.0.0.1:$port" \
  --docs-root "$work/docs" --report-dir "$work/reports" \
  --api-key "$full" --read-only-api-key "$read_only"

# positive_data_acceptance is left out: the server's rules for its input go
# beyond what a schema can say (SPARQL grammar, an IRI that parses, paths
# that exist under the docs root, text that is not blank once trimmed), so
# a schema-valid request can rightly be a 400, which each operation's 400
# describes. Every other check runs.
run() {
  local name="$1" key="$2" status=0
  echo "== schemathesis, the $name key"
  (cd "$work" && SCHEMATHESIS_HOOKS="$hooks" timeout 600 "$schemathesis" --no-color run "$base/openapi.json" \
    --checks all --exclude-checks positive_data_acceptance \
    -H "Authorization: Bearer $key" \
    --max-examples "$examples" --seed "$seed" --generation-database none \
    --workers 2 --request-timeout 60 --suppress-health-check too_slow) || status=$?
  if [[ "$status" != 0 ]]; then
    echo "FAILED: schemathesis with the $name key (exit $status); the server's log:" >&2
    tail -n 40 "$work/server.log" >&2
    return 1
  fi
}
failed=0
run full "$full" || failed=1
run read-only "$read_only" || failed=1
exit "$failed"
