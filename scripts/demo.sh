#!/usr/bin/env bash
# The main job: set up the pinned assets, build, and serve the demo campus.
#   bash scripts/demo.sh [extra `daemoniq serve` flags]
# Listens on DAEMONIQ_BIND (default 127.0.0.1:8080); data in DAEMONIQ_DATA_DIR (default ./data).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
bash scripts/setup.sh >/dev/null
cargo build --release --locked --bin daemoniq
exec "$CARGO_TARGET_DIR/release/daemoniq" serve "$@"
