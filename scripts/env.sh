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

# The wrapper of scripts/test.sh's one build: clippy-driver compiles (and
# lints, every warning an error) the workspace's own crates. A cargo
# command that runs without it rebuilds those crates.
use_clippy_build() {
    export RUSTC_WORKSPACE_WRAPPER="${RUSTC_WORKSPACE_WRAPPER:-$(rustup which clippy-driver 2>/dev/null || command -v clippy-driver)}"
    export CLIPPY_ARGS="${CLIPPY_ARGS:--D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__}"
}

# A server a script runs in the background: `start_server BASE LOG COMMAND…`
# starts COMMAND with its output in LOG and waits (up to four minutes) until
# BASE/health answers; if it does not, prints the end of LOG and exits 1.
# `stop_server` stops it (the scripts call it from their EXIT trap).
server_pid=""
server_up() {
    python3 -c "import urllib.request; urllib.request.urlopen('$1/health', timeout=2)" 2>/dev/null
}
start_server() {
    local base="$1" log="$2"
    shift 2
    "$@" >"$log" 2>&1 &
    server_pid=$!
    for _ in $(seq 1 480); do
        if server_up "$base" || ! kill -0 "$server_pid" 2>/dev/null; then break; fi
        sleep 0.5
    done
    if ! server_up "$base"; then
        echo "$(basename "$0"): the server did not start:" >&2
        tail -n 30 "$log" >&2
        exit 1
    fi
}
stop_server() {
    if [[ -n "$server_pid" ]]; then
        kill "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
        server_pid=""
    fi
}
