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

echo "== daemoniq eval (golden questions)"
# Reports are outputs, never committed: a scratch directory unless
# DAEMONIQ_REPORT_DIR says where. Non-zero exit when an enforced gate fails.
"$CARGO_TARGET_DIR/debug/daemoniq" --memory eval --report-dir "${DAEMONIQ_REPORT_DIR:-$(mktemp -d)}"
