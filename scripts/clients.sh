#!/usr/bin/env bash
# The OpenAPI contract, proved with generated clients (docs/api.md):
#   1. openapi-python-client (PyPI, into target/clients-venv) and openapi-typescript with
#      typescript (npm, into target/clients-node) are installed when missing;
#   2. both generate a client from openapi/openapi.json, into target/clients/python (package
#      `paiju_client`, named by clients/python-config.yaml) and target/clients/ts/paiju.d.ts; a
#      warning from either generator fails the run (a schema it could not model is a hole in
#      the contract), and clients/ts/check.ts must type-check against the types (tsc --strict);
#   3. a live paiju is started as scripts/schemathesis.sh does (fresh database, free port,
#      an admin) and clients/play.py plays the first hand of every game through the typed
#      Python client.
#
#   scripts/clients.sh
#
# The database is made on DATABASE_URL's server when set, else in the project-local cluster;
# it is dropped at the end when psql is at hand.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/clients-venv
node=target/clients-node
out=target/clients
if [ ! -x "$venv/bin/openapi-python-client" ]; then
  echo "installing openapi-python-client into $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q 'openapi-python-client>=0.29,<0.30'
fi
if [ ! -x "$node/node_modules/.bin/openapi-typescript" ] || [ ! -x "$node/node_modules/.bin/tsc" ]; then
  echo "installing openapi-typescript and typescript into $node"
  mkdir -p "$node"
  npm install --prefix "$node" --no-audit --no-fund --silent 'openapi-typescript@^7' 'typescript@^5'
fi
echo "generators: $("$venv/bin/openapi-python-client" --version)," \
  "openapi-typescript $("$node/node_modules/.bin/openapi-typescript" --version)," \
  "tsc $("$node/node_modules/.bin/tsc" --version)"

# Runs a generator (its arguments after the log file's name), keeping what it printed in the
# log; fails, showing the log, when it failed or warned.
generate() {
  local log=$1
  shift
  if ! "$@" >"$log" 2>&1; then
    cat "$log" >&2
    echo "generator failed: $*" >&2
    exit 1
  fi
  if grep -qiE 'warn|unable|skipping|duplicate|error' "$log"; then
    cat "$log" >&2
    echo "the generator warned about openapi/openapi.json (see above): $1" >&2
    exit 1
  fi
}

mkdir -p "$out/ts"
# The generator formats its output with ruff (its own dependency, in the venv's bin) and
# warns when ruff is not on PATH.
PATH="$PWD/$venv/bin:$PATH" generate "$out/python-generate.log" \
  "$venv/bin/openapi-python-client" generate --path openapi/openapi.json \
  --output-path "$out/python" --overwrite --config clients/python-config.yaml
generate "$out/ts-generate.log" \
  "$node/node_modules/.bin/openapi-typescript" openapi/openapi.json -o "$out/ts/paiju.d.ts"
"$node/node_modules/.bin/tsc" --noEmit --strict clients/ts/check.ts
echo "generated $out/python (paiju_client) and $out/ts/paiju.d.ts; clients/ts/check.ts type-checks"

# A live server (scripts/live_server.sh).
. scripts/live_server.sh
start_live_server clients
if ! PYTHONPATH="$out/python" PAIJU_ADMIN=admin:admin-password \
  "$venv/bin/python" clients/play.py "http://127.0.0.1:$port"; then
  echo "server log: $log" >&2
  exit 1
fi
check_server_log
