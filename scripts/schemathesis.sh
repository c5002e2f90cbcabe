#!/usr/bin/env bash
# The OpenAPI document and docker-compose.yml are validated first (scripts/openapi_check.py:
# openapi-spec-validator, operationIds and examples; scripts/compose_check.py: compose-spec). Then hostile input: schemathesis (both installed from PyPI into
# target/) generates requests from the served OpenAPI document against a live paiju, authenticated as an admin, and checks that no
# response is a 5xx and every response matches the document.
#
#   scripts/schemathesis.sh [MAX_EXAMPLES_PER_OPERATION]   (default 60)
#
# One worker: with two, CPython 3.11's ast module (which hypothesis uses from both threads)
# now and then fails with "AST constructor recursion depth mismatch" (python/cpython#106905).
#
# GET /v1/me/stream is left out: a stream answers for as long as the client reads, so every
# generated request would wait for the timeout; tests/api/players.rs drives it instead.
#
# SCHEMATHESIS_SEED fixes the generated requests (CI sets it so that a run is reproducible);
# unset, every run tries new ones.
#
# Uses a fresh database for each run (long-polls on matches left by earlier runs would make a run
# wait): on DATABASE_URL's server when set, else in the project-local cluster; it is dropped at
# the end when psql is at hand.
set -euo pipefail
cd "$(dirname "$0")/.."
examples="${1:-60}"
venv=target/schemathesis-venv
if [ ! -x "$venv/bin/schemathesis" ] || [ ! -x "$venv/bin/openapi-spec-validator" ] \
  || ! "$venv/bin/python" -c 'import compose_spec' 2>/dev/null; then
  echo "installing schemathesis, openapi-spec-validator and compose-spec into $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q 'schemathesis>=4,<5' 'openapi-spec-validator>=0.7,<1' \
    'compose-spec>=0.2,<0.3'
fi
# The documents first: the OpenAPI document is valid OpenAPI 3.1 with an operationId and a
# valid example everywhere; docker-compose.yml follows the Compose specification.
"$venv/bin/python" scripts/openapi_check.py openapi/openapi.json
"$venv/bin/python" scripts/compose_check.py docker-compose.yml
cargo build --quiet --bin paiju
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
log=target/schemathesis-server.log
db="paiju_schemathesis_$(date +%s)_$$"
if [ -n "${DATABASE_URL:-}" ]; then
  export DATABASE_URL="${DATABASE_URL%/*}/$db"
fi
PAIJU_BIND="127.0.0.1:$port" PAIJU_ADMIN=admin:admin-password JWT_SECRET=schemathesis-secret-0123456789abcdef0123 \
  PAIJU_DB_NAME="$db" PAIJU_AUTH_PER_MIN=100000 RUST_LOG=warn,paiju=info \
  "${CARGO_TARGET_DIR:-target}/debug/paiju" >"$log" 2>&1 &
server=$!
cleanup() {
  kill "$server" 2>/dev/null
  wait "$server" 2>/dev/null || true
  local admin_url
  if [ -n "${DATABASE_URL:-}" ]; then
    admin_url="${DATABASE_URL%/*}/postgres"
  elif [ -f data/pg/paiju.port ]; then
    admin_url="postgres://postgres@127.0.0.1:$(cat data/pg/paiju.port)/postgres"
  fi
  if [ -n "${admin_url:-}" ] && command -v psql >/dev/null; then
    psql -q "$admin_url" -c "DROP DATABASE IF EXISTS \"$db\" WITH (FORCE)" >/dev/null 2>&1 || true
  fi
}
trap cleanup EXIT
token=$(python3 - "$port" <<'PY'
import json, sys, time, urllib.request
base = f"http://127.0.0.1:{sys.argv[1]}"
for _ in range(600):
    try:
        urllib.request.urlopen(base + "/healthz", timeout=2)
        break
    except Exception:
        time.sleep(0.2)
req = urllib.request.Request(base + "/v1/auth/login", method="POST",
    data=json.dumps({"username": "admin", "password": "admin-password"}).encode(),
    headers={"content-type": "application/json"})
print(json.load(urllib.request.urlopen(req, timeout=30))["access_token"])
PY
)
"$venv/bin/schemathesis" run "http://127.0.0.1:$port/openapi.json" \
  -H "Authorization: Bearer $token" \
  --checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance \
  --phases examples,coverage,fuzzing \
  --exclude-path /v1/me/stream \
  --max-examples "$examples" \
  --workers 1 \
  --request-timeout 40 \
  ${SCHEMATHESIS_SEED:+--seed "$SCHEMATHESIS_SEED"} \
  --report junit --report-dir target/schemathesis-report
echo "server log: $log"
if grep -q " 5[0-9][0-9] \|panicked" "$log"; then
  echo "the server logged a 5xx or a panic" >&2
  exit 1
fi
