#!/usr/bin/env bash
# Bench command: `/chat` latency of document questions. Runs the golden
# sets g36_docs and demo_campus in process with the given binary (the same
# pipeline as POST /chat, documents ingested into an in-memory store first)
# and reports p50 / p99 / max of the per-question processing time of the
# document questions (category `document`), per set.
#
#   bash scripts/bench_chat_docs.sh [BINARY]
#
# BINARY defaults to the release build (built first when missing); pass an
# older build to compare before and after on the same questions. Run it on
# an idle machine: the numbers are wall time. Run `bash scripts/setup.sh`
# first (model, Brick).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh

bin="$(bench_binary "${1:-}")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

for set in g36_docs demo_campus; do
    # Gates may fail (exit 1); the latencies still count.
    "$bin" --memory --log error eval --set "$set" --report-dir "$work/$set" \
        > "$work/$set.log" 2>&1 || true
    if [[ ! -f "$work/$set/eval_report.json" ]]; then
        echo "bench_chat_docs: $set produced no report:" >&2
        tail -n 5 "$work/$set.log" >&2
        exit 1
    fi
done

python3 - "$work" <<'PY'
import json, os, statistics, sys
work = sys.argv[1]
def pct(xs, p):
    xs = sorted(xs)
    k = (len(xs) - 1) * p / 100
    lo, hi = int(k), min(int(k) + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)
for name in ("g36_docs", "demo_campus"):
    r = json.load(open(os.path.join(work, name, "eval_report.json")))
    ms = [q["score"]["latency_ms"] for q in r["questions"]
          if q["category"] == "document" and q["score"].get("latency_ms") is not None]
    print(f"{name}: {len(ms)} document questions  p50 {pct(ms, 50):.0f} ms  "
          f"p99 {pct(ms, 99):.0f} ms  max {max(ms):.0f} ms  mean {statistics.mean(ms):.0f} ms")
PY
