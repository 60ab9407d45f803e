#!/usr/bin/env bash
# Fuzzes the HTTP API from its own OpenAPI document with schemathesis (PyPI; settings in scripts/schemathesis.toml):
# the embedded default is started on a scratch data directory with the demo data, and ~1,100 generated requests
# (valid and invalid bodies, wrong methods and content types) must get no 5xx, only documented status codes,
# content types, headers and response bodies, and a 4xx for every body the document refuses.
# Needs python3 with venv and PyPI; the venv is kept in $SCHEMATHESIS_VENV (default ~/.cache/carbon-docs-schemathesis).
set -euo pipefail
cd "$(dirname "$0")/.."

venv="${SCHEMATHESIS_VENV:-$HOME/.cache/carbon-docs-schemathesis}"
if [ ! -x "$venv/bin/st" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet 'schemathesis==4.32.5'
fi

port="${FUZZ_PORT:-3987}"
data="$(mktemp -d)"
PORT="$port" DATA_DIR="$data" node --import tsx src/main.ts >"$data/server.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; rm -rf "$data"' EXIT

# Ready once the demo documents are indexed, so searches cite passages rather than nothing.
for _ in $(seq 1 180); do
  curl -sf "http://127.0.0.1:$port/readyz" >/dev/null && break
  kill -0 "$server" 2>/dev/null || { cat "$data/server.log"; exit 1; }
  sleep 1
done
curl -sf "http://127.0.0.1:$port/readyz" >/dev/null || { echo "fuzz-api: the service did not become ready" >&2; exit 1; }
# The 503s of /readyz while indexing are expected; only the log lines after this count.
ready_at=$(wc -l <"$data/server.log")

"$venv/bin/st" --config-file scripts/schemathesis.toml run "http://127.0.0.1:$port/openapi.json" \
  --generation-deterministic --no-color
errors=$(tail -n "+$((ready_at + 1))" "$data/server.log" | grep '"status":5[0-9][0-9]' || true)
if [ -n "$errors" ]; then
  echo "fuzz-api: the server answered a 5xx" >&2
  echo "$errors" | head -n 5 >&2
  exit 1
fi
