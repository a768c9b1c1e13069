# Shared environment for DaemonIQ's scripts: sourced, not run.
# Build output goes outside the clone so that CI and fresh clones reuse it.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/daemoniq-target}"
export DAEMONIQ_ASSETS="${DAEMONIQ_ASSETS:-${XDG_CACHE_HOME:-$HOME/.cache}/daemoniq/assets}"
