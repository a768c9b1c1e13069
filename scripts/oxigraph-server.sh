#!/usr/bin/env bash
# Starts an Oxigraph SPARQL server (oxigraph-cli) on a free loopback port for
# the remote-store tests, and prints its base URL. The binary is the `oxigraph`
# wheel from PyPI (the same release's oxigraph-cli, prebuilt), installed into
# a venv in the cache by scripts/python-venv.sh; where PyPI has no wheel for
# the platform it is built from the `oxigraph-cli` crate on crates.io into the
# tool cache instead (that compiles RocksDB: half an hour on two cores).
#
#   url=$(bash scripts/oxigraph-server.sh start "$dir" [serve flags…])   # store in $dir
#   bash scripts/oxigraph-server.sh stop "$dir"
#   bash scripts/oxigraph-server.sh install                            # prints the binary
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh

version=0.5.13
tools="${DAEMONIQ_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/daemoniq-tools}"

has_version() { [ -x "$1" ] && "$1" --version 2>/dev/null | grep -q "$version"; }

# Prints the path of an oxigraph binary of $version.
install() {
  local python bin
  if python="$(bash scripts/python-venv.sh scripts/requirements-oxigraph.txt)"; then
    bin="$(dirname "$python")/oxigraph"
    if has_version "$bin"; then
      echo "$bin"
      return
    fi
  fi
  bin="$tools/bin/oxigraph"
  if ! has_version "$bin"; then
    echo "no oxigraph $version wheel for this platform: building oxigraph-cli" \
      "$version into $tools (once; it compiles RocksDB)" >&2
    # Optimised at level 1, not the release profile's 3: a test server over
    # small graphs needs no more, and a cold build takes about half as long.
    CARGO_TARGET_DIR="$tools/target" CARGO_PROFILE_RELEASE_OPT_LEVEL=1 \
      cargo install --quiet --locked oxigraph-cli --version "$version" --root "$tools" >&2
  fi
  echo "$bin"
}

case "${1:-}" in
  start)
    dir="${2:?usage: $0 start DIR [serve flags...]}"
    shift 2
    bin="$(install)"
    mkdir -p "$dir/store"
    port=$(free_port)
    "$bin" serve --location "$dir/store" --bind "127.0.0.1:$port" "$@" >"$dir/oxigraph.log" 2>&1 &
    echo $! >"$dir/oxigraph.pid"
    for _ in $(seq 1 100); do
      if curl -fs -o /dev/null "http://127.0.0.1:$port/query?query=ASK%7B%7D"; then
        echo "http://127.0.0.1:$port"
        exit 0
      fi
      sleep 0.2
    done
    echo "oxigraph server did not start; its log:" >&2
    cat "$dir/oxigraph.log" >&2
    exit 1
    ;;
  stop)
    dir="${2:?usage: $0 stop DIR}"
    if [ -f "$dir/oxigraph.pid" ]; then
      kill "$(cat "$dir/oxigraph.pid")" 2>/dev/null || true
      rm -f "$dir/oxigraph.pid"
    fi
    ;;
  install)
    install
    ;;
  *)
    echo "usage: $0 start DIR | stop DIR | install" >&2
    exit 2
    ;;
esac
