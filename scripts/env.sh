# Shared environment for DaemonIQ's scripts: sourced, not run.
# Build output goes outside the clone so that CI and fresh clones reuse it.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/daemoniq-target}"
export DAEMONIQ_ASSETS="${DAEMONIQ_ASSETS:-${XDG_CACHE_HOME:-$HOME/.cache}/daemoniq/assets}"

# The binary a bench command runs: the one it was given (an older build, to
# compare before and after), else the release build, built first.
bench_binary() {
    if [[ -n "${1:-}" ]]; then
        echo "$1"
    else
        cargo build --release --quiet >&2
        echo "$CARGO_TARGET_DIR/release/daemoniq"
    fi
}

# A free TCP port on the loopback interface.
free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
