#!/usr/bin/env bash
# The Python environment of the check scripts: a venv in the cache with the
# pinned packages of scripts/requirements.txt from PyPI. Prints the venv's
# python. Idempotent: the venv is (re)made only when it is missing, broken or
# was made from other pins, so a warm machine pays one interpreter start.
# Another requirements file, given as the argument, gets a venv of its own
# beside that one, named for the file (requirements-NAME.txt -> venv-NAME).
#
#   py="$(bash scripts/python-venv.sh)"; "$py" scripts/check_goldens.py
#   py="$(bash scripts/python-venv.sh scripts/requirements-schemathesis.txt)"
#
#   DAEMONIQ_VENV     where the venv goes (default: ${XDG_CACHE_HOME:-~/.cache}/daemoniq/venv)
#   PYTHON            the interpreter it is made from (default: python3)
#   DAEMONIQ_SKIP_APT set to 1 to skip installing Debian's python3-venv when venv is unusable
set -euo pipefail
cd "$(dirname "$0")/.."

VENV="${DAEMONIQ_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/daemoniq/venv}"
PYTHON="${PYTHON:-python3}"
REQUIREMENTS="${1:-scripts/requirements.txt}"
if [ "$REQUIREMENTS" != scripts/requirements.txt ]; then
  name="$(basename "$REQUIREMENTS" .txt)"
  VENV="$VENV-${name#requirements-}"
fi
STAMP="$VENV/daemoniq-requirements.sha256"

log() { printf 'python-venv: %s\n' "$*" >&2; }

want="$(sha256sum "$REQUIREMENTS" | cut -d' ' -f1)"
if [ -x "$VENV/bin/python" ] && [ "$(cat "$STAMP" 2>/dev/null)" = "$want" ] &&
  "$VENV/bin/python" -c '' 2>/dev/null; then
  echo "$VENV/bin/python"
  exit 0
fi

# Debian and Ubuntu ship venv's pip bootstrap (ensurepip) separately.
if ! "$PYTHON" -c 'import ensurepip, venv' 2>/dev/null; then
  if [ "${DAEMONIQ_SKIP_APT:-0}" = 1 ]; then
    log "$PYTHON cannot make a venv (no ensurepip): install python3-venv"
    exit 1
  fi
  log "installing python3-venv"
  sudo=""
  if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq python3-venv >/dev/null
fi

if [ -e "$VENV" ] && [ ! -f "$VENV/pyvenv.cfg" ] && [ -n "$(ls -A "$VENV")" ]; then
  log "$VENV exists and is not a venv; refusing to replace it (set DAEMONIQ_VENV)"
  exit 1
fi
log "making $VENV with $REQUIREMENTS"
rm -rf "$VENV"
mkdir -p "$(dirname "$VENV")"
"$PYTHON" -m venv "$VENV"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
  --no-input -r "$REQUIREMENTS" >&2
# Written last: an interrupted install is made again next time.
echo "$want" >"$STAMP"
echo "$VENV/bin/python"
