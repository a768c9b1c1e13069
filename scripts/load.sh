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
trap 'stop_server; rm -rf "$work"' EXIT

start() {
    local port
    port=$(free_port)
    base="http://127.0.0.1:$port"
    start_server "$base" "$work/server.log" \
        "$bin" --memory --log warn serve --bind "127.0.0.1:$port" "$@"
}

status=0
echo "== no rate limits"
start
python3 scripts/load.py --base "$base" --clients "$clients" --seconds "$seconds" --pid "$server_pid" || status=1
stop_server
echo "== --rate-limit-rps 5 --rate-limit-burst 10"
start --rate-limit-rps 5 --rate-limit-burst 10
python3 scripts/load.py --base "$base" --clients "$clients" --seconds "$seconds" --pid "$server_pid" || status=1
stop_server
echo "== runaway SPARQL"
start --query-timeout 2
python3 scripts/load.py --base "$base" --runaway 20 --pid "$server_pid" || status=1
stop_server
exit "$status"
