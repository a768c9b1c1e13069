#!/usr/bin/env bash
# Bench command: ingest the Guideline 36 corpus (../shared/data/docs: 65 HTML
# pages and 2 PDFs) into a fresh on-disk data directory with the release
# binary and report wall time, chunks written, chunks per second and the
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
bin="${1:-}"
if [[ -z "$bin" ]]; then
    cargo build --release --quiet
    bin="$CARGO_TARGET_DIR/release/daemoniq"
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

start=$(date +%s.%N)
"$bin" --log error --data-dir "$work/data" ingest --docs-root "$docs" \
    "$docs/g36" "$docs/pdf" > "$work/ingest.log" 2>&1
end=$(date +%s.%N)

python3 - "$work" "$start" "$end" <<'EOF'
import json, os, sys
work, start, end = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
meta = json.load(open(os.path.join(work, "data", "reports", "index_metadata.json")))
counts = meta["counts"]
def size(path):
    total = 0
    for root, _, files in os.walk(path):
        for f in files:
            total += os.path.getsize(os.path.join(root, f))
    return total
wall = end - start
chunks = counts["chunks_written"]
print(f"G36 ingest: {counts['documents']} documents, {counts['indexed']} indexed, "
      f"{chunks} chunks written, {counts['chunks_skipped']} left out")
print(f"wall {wall:.1f} s (process start, model load and ingest), {chunks / wall:.1f} chunks/s")
print(f"vector index on disk: {size(os.path.join(work, 'data', 'vectors')) / 1e6:.2f} MB")
EOF
