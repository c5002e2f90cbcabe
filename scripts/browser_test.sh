#!/usr/bin/env bash
# The web client in a real browser (docs/web-client.md § Browser test): Debian's chromium,
# driven by playwright-core from npm (tests/browser/), plays a hand of each of the five games
# to its end with bots, at desktop size and on a 390×844 phone, through the pages of a live
# paiju (layout, long-polling fallback, replay, leaderboard, rematch), and saves a screenshot
# of the lobby and of each game's table. First, node checks the page's own SHA-256.
#
#   scripts/browser_test.sh                      screenshots to target/screenshots/
#   SCREENSHOTS=docs/screenshots scripts/browser_test.sh   refresh the README's screenshots
#
# Installs what is missing (chromium and a CJK font from Debian, node and npm from Debian,
# playwright-core with `npm ci`), builds the server, starts it on a free port against a fresh
# database (on DATABASE_URL's server when set, else in the project-local cluster, dropped at
# the end when psql is at hand), runs the test and stops everything. Every wait is bounded.
set -euo pipefail
cd "$(dirname "$0")/.."

apt_install() {
  echo "installing $* from Debian"
  export DEBIAN_FRONTEND=noninteractive
  timeout 300 apt-get update -qq
  timeout 900 apt-get install -y -qq "$@" >/dev/null
}
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
[ -f /usr/share/fonts/truetype/wqy/wqy-microhei.ttc ] || missing+=(fonts-wqy-microhei)
command -v node >/dev/null || missing+=(nodejs)
command -v npm >/dev/null || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then apt_install "${missing[@]}"; fi
echo "browser: $(/usr/bin/chromium --version 2>/dev/null | grep -i chromium); node $(node --version)"
want=$(node -p 'require("./tests/browser/package.json").dependencies["playwright-core"]')
have=$(node -p 'require("./tests/browser/node_modules/playwright-core/package.json").version' 2>/dev/null || true)
if [ "$want" != "$have" ]; then
  (cd tests/browser && timeout 300 npm ci --no-audit --no-fund)
fi

node tests/browser/sha256.test.mjs

cargo build --quiet --bin paiju
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
log=target/browser-test-server.log
db="paiju_browser_$(date +%s)_$$"
if [ -n "${DATABASE_URL:-}" ]; then
  export DATABASE_URL="${DATABASE_URL%/*}/$db"
fi
admin="admin:browser-admin-password"
PAIJU_BIND="127.0.0.1:$port" PAIJU_ADMIN="$admin" JWT_SECRET=browser-test-secret-0123456789abcdef0123 \
  PAIJU_DB_NAME="$db" PAIJU_AUTH_PER_MIN=100000 RUST_LOG=warn,paiju=info \
  "${CARGO_TARGET_DIR:-target}/debug/paiju" >"$log" 2>&1 &
server=$!
cleanup() {
  kill "$server" 2>/dev/null || true
  wait "$server" 2>/dev/null || true
  local admin_url=""
  if [ -n "${DATABASE_URL:-}" ]; then
    admin_url="${DATABASE_URL%/*}/postgres"
  elif [ -f data/pg/paiju.port ]; then
    admin_url="postgres://postgres@127.0.0.1:$(cat data/pg/paiju.port)/postgres"
  fi
  if [ -n "$admin_url" ] && command -v psql >/dev/null; then
    psql -q "$admin_url" -c "DROP DATABASE IF EXISTS \"$db\" WITH (FORCE)" >/dev/null 2>&1 || true
  fi
}
trap cleanup EXIT

for _ in $(seq 600); do
  if curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1; then break; fi
  if ! kill -0 "$server" 2>/dev/null; then
    echo "the server exited; its log ($log):" >&2
    tail -n 30 "$log" >&2
    exit 1
  fi
  sleep 0.2
done
curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null || { echo "the server did not answer /healthz in 2 minutes" >&2; exit 1; }

status=0
shots=$(realpath -m "${SCREENSHOTS:-target/screenshots}")
mkdir -p "$shots"
PAIJU_URL="http://127.0.0.1:$port" PAIJU_ADMIN="$admin" SCREENSHOTS="$shots" \
  timeout 600 node tests/browser/play.test.mjs || status=$?
if [ "$status" -ne 0 ]; then
  echo "the browser test failed (exit $status); server log: $log" >&2
  exit "$status"
fi
if grep -q "panicked" "$log"; then
  echo "the server panicked during the browser test; see $log" >&2
  exit 1
fi
