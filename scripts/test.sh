#!/usr/bin/env bash
# The whole test suite: assets, formatting, lints, unit + integration tests,
# and the demo campus validation. Exits non-zero on the first failure.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
bash scripts/setup.sh >/dev/null

# The remote SPARQL store suites run against a real Oxigraph server, started
# here unless DAEMONIQ_TEST_SPARQL_URL already names one. The Qdrant server
# suites run when DAEMONIQ_TEST_QDRANT_URL names a server (gRPC).
scratch="$(mktemp -d)"
trap 'bash scripts/oxigraph-server.sh stop "$scratch"; bash scripts/oxigraph-server.sh stop "$scratch/union"; rm -rf "$scratch"' EXIT
union_url=""
if [ -z "${DAEMONIQ_TEST_SPARQL_URL:-}" ]; then
  echo "== oxigraph servers (for the remote SPARQL store; one with a union default graph)"
  DAEMONIQ_TEST_SPARQL_URL="$(bash scripts/oxigraph-server.sh start "$scratch")"
  export DAEMONIQ_TEST_SPARQL_URL
  union_url="$(bash scripts/oxigraph-server.sh start "$scratch/union" --union-default-graph)"
fi
echo "remote SPARQL store suites run against $DAEMONIQ_TEST_SPARQL_URL"
if [ -n "${DAEMONIQ_TEST_QDRANT_URL:-}" ]; then
  echo "Qdrant server suites run against $DAEMONIQ_TEST_QDRANT_URL"
else
  echo "SKIPPED: the Qdrant server suites (remote_vectors::*) do not run:" \
    "DAEMONIQ_TEST_QDRANT_URL is not set (they need a Qdrant server)"
fi

echo "== cargo fmt --check"
cargo fmt --all -- --check

echo "== cargo clippy"
cargo clippy --locked --all-targets -- -D warnings

echo "== cargo test"
cargo test --locked --all-targets

if [ -n "$union_url" ]; then
  echo "== remote SPARQL store suites again, server default graph = union (--sparql-server-union)"
  DAEMONIQ_TEST_SPARQL_URL="$union_url" DAEMONIQ_TEST_SPARQL_SERVER_UNION=1 \
    cargo test --locked --test integration remote_store
fi

echo "== daemoniq validate (demo campus)"
"$CARGO_TARGET_DIR/debug/daemoniq" --memory validate

echo "== daemoniq eval (golden questions)"
# Reports are outputs, never committed: a scratch directory unless
# DAEMONIQ_REPORT_DIR says where. Non-zero exit when an enforced gate fails.
reports="${DAEMONIQ_REPORT_DIR:-$(mktemp -d)}"
"$CARGO_TARGET_DIR/debug/daemoniq" --memory --log warn eval --set demo_campus --report-dir "$reports/demo"
echo "== daemoniq eval --set demo_campus, the graph in the Oxigraph server"
"$CARGO_TARGET_DIR/debug/daemoniq" --memory --log warn \
  --sparql-query-url "$DAEMONIQ_TEST_SPARQL_URL/query" \
  --sparql-update-url "$DAEMONIQ_TEST_SPARQL_URL/update" \
  eval --set demo_campus --report-dir "$reports/demo-remote"
# The G36 set (real documents in ../shared/data) is evaluated and reported
# but NOT gated yet: about a fifth of its answers sit in chunks the ingest
# leaves unindexed because they name no graph node (issue 5 stays open
# until it meets its gates).
echo "== daemoniq eval --set g36_docs (reported, not gated)"
if ! "$CARGO_TARGET_DIR/debug/daemoniq" --memory --log warn eval --set g36_docs --report-dir "$reports/g36"; then
  echo "NOT GATED: the g36_docs set is below its gates; see $reports/g36/eval_report.md"
fi
