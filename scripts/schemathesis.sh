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
. scripts/live_server.sh
start_live_server schemathesis
token=$(python3 - "$port" <<'PY'
import json, sys, urllib.request
base = f"http://127.0.0.1:{sys.argv[1]}"
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
check_server_log
