#!/usr/bin/env bash
# Load command: serves the demo campus (in memory, loopback, a free port)
# with the release binary and runs scripts/load.py against it three times:
#   1. 200 clients for 60 s of mixed /chat, /sparql, /api/topology, no limits;
#   2. the same with --rate-limit-rps 5 --rate-limit-burst 10;
#   3. 20 expensive SPARQL queries at once (--query-timeout 2): /health and
#      /chat latency while they run, and when the CPU is idle again.
# Bounded: about three and a half minutes; traffic only to 127.0.0.1.
#
#   bash scripts/load.sh [BINARY] [CLIENTS] [SECONDS]
#
# Run `bash scripts/setup.sh` first (model, Brick).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh

bin="$(bench_binary "${1:-}")"
clients="${2:-200}"
seconds="${3:-60}"
work="$(mktemp -d)"
pid=""
stop() {
    if [[ -n "$pid" ]]; then
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
        pid=""
    fi
}
trap 'stop; rm -rf "$work"' EXIT

start() {
    local port
    port=$(free_port)
    base="http://127.0.0.1:$port"
    "$bin" --memory --log warn serve --bind "127.0.0.1:$port" "$@" > "$work/server.log" 2>&1 &
    pid=$!
    for _ in $(seq 1 240); do
        if python3 -c "import urllib.request; urllib.request.urlopen('$base/health', timeout=2)" 2>/dev/null; then
            return 0
        fi
        sleep 0.5
    done
    echo "load.sh: the server did not start:" >&2
    tail -n 20 "$work/server.log" >&2
    exit 1
}

status=0
echo "== no rate limits"
start
python3 scripts/load.py --base "$base" --clients "$clients" --seconds "$seconds" --pid "$pid" || status=1
stop
echo "== --rate-limit-rps 5 --rate-limit-burst 10"
start --rate-limit-rps 5 --rate-limit-burst 10
python3 scripts/load.py --base "$base" --clients "$clients" --seconds "$seconds" --pid "$pid" || status=1
stop
echo "== runaway SPARQL"
start --query-timeout 2
python3 scripts/load.py --base "$base" --runaway 20 --pid "$pid" || status=1
stop
exit "$status"
