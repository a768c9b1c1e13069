#!/usr/bin/env bash
# The main job: set up the pinned assets, build, ingest the demo corpus and
# serve the demo campus.
#   bash scripts/demo.sh [extra `daemoniq serve` flags]
# Listens on DAEMONIQ_BIND (default 127.0.0.1:8080); data in DAEMONIQ_DATA_DIR (default ./data).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
bash scripts/setup.sh >/dev/null
cargo build --release --locked --bin daemoniq
bin="$CARGO_TARGET_DIR/release/daemoniq"
# Documents about the campus (the corpus README describes them; it is not one).
mapfile -t corpus < <(find golden/corpus -type f \( -name '*.md' -o -name '*.pdf' \) ! -name README.md | sort)
"$bin" ingest "${corpus[@]}"
exec "$bin" serve "$@"
