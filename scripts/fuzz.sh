#!/usr/bin/env bash
# Fuzzes the parsers of untrusted bytes with cargo-fuzz (libFuzzer):
# PDF and HTML extraction, Haystack JSON import, the RDF import path and
# /sparql request decoding (targets in fuzz/fuzz_targets/). Not part of the
# test suite: the crashes it finds become regression inputs in
# tests/fuzz/<target>/, which `cargo test` runs (tests/integration/fuzz_regressions.rs).
#
#   bash scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET…]   (default 600 s, all targets)
#
# Each target runs for SECONDS_PER_TARGET with a 2 GiB memory limit and a
# 10 s limit per input (a slower input is a hang, and a finding). The corpus
# is kept between runs in the cache (it grows from the seeds below, which
# come from golden/corpus, tests/fixtures, ontology/ and ../shared/data, and
# is never committed); crashing inputs land in fuzz/artifacts/<target>/
# (ignored by git) and the script exits 1 when there is one.
#
# Needs a nightly toolchain (rustup's `nightly`) or, without one, stable
# with RUSTC_BOOTSTRAP=1; installs cargo-fuzz from crates.io when missing.
#   DAEMONIQ_FUZZ_TARGET_DIR  build directory (default ~/.cache/daemoniq-fuzz-target)
#   DAEMONIQ_FUZZ_CORPUS      corpus directory (default ~/.cache/daemoniq/fuzz-corpus)
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-600}"
shift || true
all=(extract_pdf extract_html haystack_json rdf_import sparql_request)
targets=("$@")
if [ "${#targets[@]}" = 0 ]; then targets=("${all[@]}"); fi

cache="${XDG_CACHE_HOME:-$HOME/.cache}"
export CARGO_TARGET_DIR="${DAEMONIQ_FUZZ_TARGET_DIR:-$cache/daemoniq-fuzz-target}"
corpus_root="${DAEMONIQ_FUZZ_CORPUS:-$cache/daemoniq/fuzz-corpus}"
shared=../shared/data

log() { printf 'fuzz: %s\n' "$*" >&2; }

toolchain=()
if rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
  toolchain=(+nightly)
else
  log "no nightly toolchain: building with stable and RUSTC_BOOTSTRAP=1"
  export RUSTC_BOOTSTRAP=1
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
  log "installing cargo-fuzz 0.13.2 from crates.io"
  cargo install cargo-fuzz --locked --version 0.13.2
fi

# Seeds: a file copied once into the target's corpus under its sha256, so
# re-seeding never duplicates. `prefix` is the byte(s) a target reads first.
seed() {
  local target="$1" prefix="$2" file="$3" dir tmp
  dir="$corpus_root/$target"
  [ -f "$file" ] || return 0
  mkdir -p "$dir"
  tmp="$(mktemp)"
  { printf '%b' "$prefix"; cat "$file"; } >"$tmp"
  mv "$tmp" "$dir/seed-$(sha256sum "$tmp" | cut -c1-16)"
}
seed_text() {
  local target="$1" text="$2" dir
  dir="$corpus_root/$target"
  mkdir -p "$dir"
  printf '%b' "$text" >"$dir/seed-$(printf '%b' "$text" | sha256sum | cut -c1-16)"
}
for f in golden/corpus/*.pdf "$shared"/docs/pdf/*.pdf; do seed extract_pdf "" "$f"; done
for f in "$shared"/docs/g36/*.html; do seed extract_html "" "$f"; done
for f in tests/fixtures/haystack/*.json "$shared"/haystack/*.json; do seed haystack_json "" "$f"; done
# rdf_import: the first byte picks ttl, nt, nq, trig, rdf (in that order).
for f in tests/fixtures/*/*.ttl ontology/*/*.ttl "$shared"/brick/*.ttl; do seed rdf_import '\x00' "$f"; done
seed_text rdf_import '\x01<urn:a> <urn:b> "c"@en .\n_:x <urn:b> <urn:c> .\n'
seed_text rdf_import '\x02<urn:a> <urn:b> "1"^^<http://www.w3.org/2001/XMLSchema#integer> <urn:g> .\n'
seed_text rdf_import '\x03@prefix ex: <urn:ex#> . ex:g { ex:a ex:b ( 1 2 [ ex:c "d" ] ) . }\n'
seed_text rdf_import '\x04<?xml version="1.0"?><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:ex="urn:ex#"><rdf:Description rdf:about="urn:a"><ex:b rdf:resource="urn:c"/></rdf:Description></rdf:RDF>'
# sparql_request: the first byte picks GET, form POST, sparql-query POST,
# sparql-update POST, another content type; then query string, newline, body.
seed_text sparql_request '\x00query=SELECT%20*%20WHERE%20%7B%3Fs%20%3Fp%20%3Fo%7D%20LIMIT%2010\n'
seed_text sparql_request '\x01\nquery=PREFIX+brick%3A+%3Chttps%3A%2F%2Fbrickschema.org%2Fschema%2FBrick%23%3E+SELECT+%3Fa+WHERE+%7B+%3Fa+brick%3Afeeds%2B+%3Fb+%7D&default-graph-uri=urn%3Ag'
seed_text sparql_request '\x02default-graph-uri=urn:g\nSELECT (COUNT(*) AS ?n) WHERE { ?a ?p ?b . ?c ?q ?d } ORDER BY ?n'
seed_text sparql_request '\x02\nCONSTRUCT { ?s ?p ?o } WHERE { ?s (<urn:p>|!<urn:p>)* ?o OPTIONAL { ?s ?p ?o } FILTER(regex(str(?o), "a+")) }'
seed_text sparql_request '\x03\nINSERT DATA { <urn:a> <urn:b> <urn:c> }'

# Bigger inputs than these slow libFuzzer down more than they find.
max_len() {
  case "$1" in
    extract_pdf | extract_html | haystack_json) echo 131072 ;;
    *) echo 16384 ;;
  esac
}

log "building ${targets[*]} (debug assertions on; $CARGO_TARGET_DIR)"
(cd fuzz && cargo "${toolchain[@]}" fuzz build --dev -s none) >&2

status=0
summary=()
for t in "${targets[@]}"; do
  mkdir -p "$corpus_root/$t" "fuzz/artifacts/$t"
  log "running $t for ${seconds}s (corpus $corpus_root/$t: $(ls "$corpus_root/$t" | wc -l) inputs)"
  out="$(mktemp)"
  (cd fuzz && cargo "${toolchain[@]}" fuzz run --dev -s none "$t" "$corpus_root/$t" -- \
    -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -max_len="$(max_len "$t")" \
    -print_final_stats=1) >"$out" 2>&1 || status=1
  execs="$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$out" | grep -o '[0-9]*$' || echo '?')"
  crashes="$(find "fuzz/artifacts/$t" -type f | wc -l)"
  corpus="$(ls "$corpus_root/$t" | wc -l)"
  summary+=("$t: ${seconds}s, $execs executions, corpus $corpus inputs, crashing inputs in fuzz/artifacts/$t: $crashes")
  if [ "$crashes" != 0 ]; then
    status=1
    grep -E 'panicked|ERROR: libFuzzer|SUMMARY' "$out" | head -n 5 >&2 || true
  fi
  rm -f "$out"
done
printf '%s\n' "${summary[@]}"
exit "$status"
