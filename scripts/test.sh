#!/usr/bin/env bash
# The whole test suite: assets, the golden files' checker, formatting, lints,
# unit + integration tests, the demo campus validation and the golden
# evaluation. Exits non-zero on the first failure. With CI=true (as CI runs
# it) a test whose data is missing fails instead of skipping.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
bash scripts/setup.sh >/dev/null

echo "== scripts/check_goldens.py (pinned packages in a cached venv)"
python="$(bash scripts/python-venv.sh)"
"$python" scripts/check_goldens.py --require-held-out

# The remote SPARQL store suites run against a real Oxigraph server, started
# here unless DAEMONIQ_TEST_SPARQL_URL already names one. The Qdrant server
# suites run when DAEMONIQ_TEST_QDRANT_URL names a server (gRPC).
scratch="$(mktemp -d)"
# The eval runs in the background (below) end with the script.
remote_runs=""
trap 'if [ -n "$remote_runs" ]; then kill "$remote_runs" 2>/dev/null || true; fi; bash scripts/oxigraph-server.sh stop "$scratch"; bash scripts/oxigraph-server.sh stop "$scratch/union"; rm -rf "$scratch"' EXIT
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

# Clippy and the tests share one build: clippy-driver compiles the
# workspace's own crates (`cargo clippy` runs the same driver through the
# same variable) and lints them on the way, with every warning an error.
# A separate `cargo clippy` would check every dependency again, RocksDB's
# C++ included, which on a cold machine costs about as much as the tests'
# build. Every cargo command below runs with the same wrapper, so none
# rebuilds the workspace's crates for want of it.
use_clippy_build
echo "== cargo clippy + cargo test (one build; clippy lints --all-targets, -D warnings)"
cargo test --locked --all-targets --no-run
cargo test --locked --all-targets

if [ -n "$union_url" ]; then
  echo "== remote SPARQL store suites again, server default graph = union (--sparql-server-union)"
  DAEMONIQ_TEST_SPARQL_URL="$union_url" DAEMONIQ_TEST_SPARQL_SERVER_UNION=1 \
    cargo test --locked --test integration remote_store
fi

echo "== schemathesis against /openapi.json (the debug build, each API key)"
bash scripts/schemathesis.sh "$CARGO_TARGET_DIR/debug/daemoniq"

echo "== browser tests of the web UI (headless Chromium, the debug build)"
bash scripts/browser-test.sh "$CARGO_TARGET_DIR/debug/daemoniq"

echo "== daemoniq validate (demo campus)"
"$CARGO_TARGET_DIR/debug/daemoniq" --memory validate

# One golden set through `daemoniq eval`, which exits 0 when every enforced
# gate holds and 1 when one fails; any other status is an error (2: an
# unknown set, a failed ingest, …), a panic (101) or a signal, and fails
# this script whether or not the set is gated. So does a run whose report
# says the set was skipped (its files_root absent) or not evaluated.
#   eval_set NAME gated|ratchet|reported REPORT_DIR [daemoniq global flags…]
# gated: any failing enforced gate fails CI. ratchet (a set below its
# thresholds, scripts/ratchet.py): a question listed as passing in
# golden/passing.json that fails, or a failing contract gate
# (schema_compliance, citation_validity), fails CI; the failing threshold
# gates are printed as NOT GATED. reported: printed only.
eval_set() {
  local name="$1" gating="$2" dir="$3" status=0
  shift 3
  rm -f "$dir/eval_report.json" # never read a report of an earlier run
  "$CARGO_TARGET_DIR/debug/daemoniq" --memory --log warn "$@" \
    eval --set "$name" --report-dir "$dir" || status=$?
  case "$status" in
    0 | 1) ;;
    *)
      echo "FAILED: daemoniq eval --set $name exited $status (an error or a crash, not a gate)" >&2
      exit 1
      ;;
  esac
  python3 - "$dir/eval_report.json" "$name" "$status" <<'PY'
import json, sys

path, name, status = sys.argv[1], sys.argv[2], int(sys.argv[3])
try:
    with open(path) as f:
        report = json.load(f)
except (OSError, ValueError) as e:
    sys.exit(f"FAILED: no readable eval report for {name}: {e}")
problems = [f"{s['path']} was SKIPPED: {s['reason']}" for s in report["skipped"]]
files = [f for f in report["files"] if f["name"] == name]
if not any(f["evaluated"] and f["questions"] > 0 for f in files):
    problems.append(f"the report has no evaluated questions of {name}")
if report["passed"] != (status == 0):
    problems.append(f"the report says passed={json.dumps(report['passed'])} but eval exited {status}")
if problems:
    sys.exit("FAILED: eval --set " + name + ": " + "; ".join(problems))
PY
  if [ "$gating" = ratchet ]; then
    python3 scripts/ratchet.py "$dir/eval_report.json" "$name" || exit 1
    return 0
  fi
  if [ "$status" = 1 ]; then
    if [ "$gating" = gated ]; then
      echo "FAILED: an enforced gate fails on $name; see $dir/eval_report.md" >&2
      exit 1
    fi
    echo "NOT GATED: the $name set is below its gates; see $dir/eval_report.md"
  fi
}

echo "== daemoniq eval (golden questions)"
# Reports are outputs, never committed: a scratch directory unless
# DAEMONIQ_REPORT_DIR says where.
reports="${DAEMONIQ_REPORT_DIR:-$(mktemp -d)}"
# The two runs with the graph in the Oxigraph server go in the background,
# one after the other (they share the server), beside the embedded runs:
# the server evaluates their SPARQL on a core of its own, and the
# building-model run spends most of its time waiting for it (3 min 46 s
# wall for 25 s of CPU on 2026-11-29). Their output is printed when they
# end; either failing fails this script, as in the foreground.
remote_log="$reports/remote-runs.log"
(
  echo "== daemoniq eval --set demo_campus, the graph in the Oxigraph server"
  eval_set demo_campus ratchet "$reports/demo-remote" \
    --sparql-query-url "$DAEMONIQ_TEST_SPARQL_URL/query" \
    --sparql-update-url "$DAEMONIQ_TEST_SPARQL_URL/update"
  echo "== daemoniq eval --set building_models, the graph in the Oxigraph server"
  eval_set building_models ratchet "$reports/models-remote" \
    --sparql-query-url "$DAEMONIQ_TEST_SPARQL_URL/query" \
    --sparql-update-url "$DAEMONIQ_TEST_SPARQL_URL/update"
) >"$remote_log" 2>&1 &
remote_runs=$!
echo "== daemoniq eval --set demo_campus (the Oxigraph server runs go on in the background)"
eval_set demo_campus ratchet "$reports/demo"
# The G36 set (real Guideline 36 pages and PDFs in ../shared/data) stands
# below its thresholds (issue 15). It is gated by its ratchet; a crash, an
# error or a skipped set fails as for every set.
echo "== daemoniq eval --set g36_docs (ratchet)"
eval_set g36_docs ratchet "$reports/g36"
# The building-model set (real Brick and Haystack models in ../shared/data
# and the demo campus, each asked over its model alone, expected answers
# computed by SPARQL) is GATED on what the graph query engine answers: the
# mean entity-set F1 of the set (>= 0.85) and no wrong result (an answer
# whose direction, relation or count is wrong, or an answer not from the
# graph). Its other gates (evidence recall, file citations, false refusals
# of the old pipeline's answers) are held by its ratchet. It runs with
# the graph embedded and in the Oxigraph server, and both runs must score
# every question the same.
echo "== daemoniq eval --set building_models (entity F1 and wrong results gated)"
eval_set building_models ratchet "$reports/models"
remote_status=0
wait "$remote_runs" || remote_status=$?
remote_runs=""
cat "$remote_log"
if [ "$remote_status" != 0 ]; then
  echo "FAILED: an eval run with the graph in the Oxigraph server (exit $remote_status; see above)" >&2
  exit 1
fi
python3 - "$reports/models/eval_report.json" "$reports/models-remote/eval_report.json" <<'PY'
import json, sys

def scores(path):
    with open(path) as f:
        report = json.load(f)
    keep = ("status", "pass", "entity_f1", "wrong_result", "answer_text", "failures")
    return {q["id"]: {k: q["score"].get(k) for k in keep} for q in report["questions"]}

embedded, remote = scores(sys.argv[1]), scores(sys.argv[2])
differ = sorted(q for q in embedded.keys() | remote.keys() if embedded.get(q) != remote.get(q))
if differ:
    for q in differ[:10]:
        print(f"  {q}: embedded {embedded.get(q)}\n  {' ' * len(q)}  remote   {remote.get(q)}", file=sys.stderr)
    sys.exit(f"FAILED: building_models scores differ between the embedded and the Oxigraph server graph on {len(differ)} question(s)")
print(f"building_models: embedded and Oxigraph server runs score all {len(embedded)} questions the same")
PY
python3 - "$reports/models/eval_report.json" "$reports/models-remote/eval_report.json" <<'PY'
import json, sys

failed = []
for path in sys.argv[1:]:
    with open(path) as f:
        report = json.load(f)
    seen = set()
    for g in report["gates"]:
        if g["scope"] == "building_models" and g["metric"] in ("entity_f1", "wrong_results"):
            seen.add(g["metric"])
            print(f"  {path}: {g['metric']} {g['value']:.3f} (needs {g['op']} {g['threshold']})")
            if not g["pass"]:
                failed.append(f"{g['metric']} {g['value']:.3f} in {path}")
    if seen != {"entity_f1", "wrong_results"}:
        failed.append(f"{path} has no entity_f1 or wrong_results gate on building_models")
if failed:
    sys.exit("FAILED: building_models below its gate: " + "; ".join(failed))
print("building_models: entity F1 and wrong-result gates hold, embedded and remote")
PY
