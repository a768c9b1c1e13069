#!/usr/bin/env bash
# Bench command: ingest the Guideline 36 corpus (../shared/data/docs: 65 HTML
# pages and 2 PDFs) into a fresh on-disk data directory with the release
# binary and report the run's time, chunks written, chunks per second and the
# size of the embedded vector index (dense + lexical) on disk.
#
#   bash scripts/bench_ingest_g36.sh [BINARY]
#
# BINARY defaults to the release build (built first when missing); pass an
# older build to compare. Run `bash scripts/setup.sh` first (model, Brick).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh

docs="$(cd .. && pwd)/shared/data/docs"
if [[ ! -d "$docs/g36" ]]; then
    echo "bench_ingest_g36: $docs/g36 not found (../shared/data beside the project)" >&2
    exit 1
fi
bin="$(bench_binary "${1:-}")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

start=$(date +%s.%N)
# A run where a document fails exits non-zero; its numbers still count.
status=0
"$bin" --log error --data-dir "$work/data" ingest --docs-root "$docs" \
    "$docs/g36" "$docs/pdf" > "$work/ingest.log" 2>&1 || status=$?
end=$(date +%s.%N)
tail -n 1 "$work/ingest.log"
[[ $status -eq 0 ]] || echo "(ingest exited $status: a document failed, see the line above)"

python3 - "$work" "$start" "$end" <<'EOF'
import json, os, sys
work, start, end = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
meta = json.load(open(os.path.join(work, "data", "index_metadata.json")))
counts = meta["counts"]
def size(path):
    """Apparent bytes and bytes allocated on disk (mmap segment files are
    preallocated and sparse)."""
    apparent = allocated = 0
    for root, _, files in os.walk(path):
        for f in files:
            st = os.stat(os.path.join(root, f))
            apparent += st.st_size
            allocated += st.st_blocks * 512
    return apparent, allocated
wall = end - start
run = meta["elapsed_ms"] / 1e3
chunks = counts["chunks_written"]
print(f"G36 ingest: {counts['documents']} documents, {counts['indexed']} indexed, "
      f"{chunks} chunks written, {counts['chunks_skipped']} left out")
print(f"ingest run {run:.1f} s: {chunks / run:.1f} chunks/s "
      f"(process wall {wall:.1f} s with store set-up and model load)")
apparent, allocated = size(os.path.join(work, "data", "vectors"))
print(f"vector index: {apparent / 1e6:.2f} MB apparent, {allocated / 1e6:.2f} MB allocated on disk")
EOF
