#!/usr/bin/env bash
# The whole test suite: assets, formatting, lints, unit + integration tests,
# and the demo campus validation. Exits non-zero on the first failure.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
bash scripts/setup.sh >/dev/null

echo "== cargo fmt --check"
cargo fmt --all -- --check

echo "== cargo clippy"
cargo clippy --locked --all-targets -- -D warnings

echo "== cargo test"
cargo test --locked --all-targets

echo "== daemoniq validate (demo campus)"
"$CARGO_TARGET_DIR/debug/daemoniq" --memory validate
