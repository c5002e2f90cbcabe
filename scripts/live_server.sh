# Sourced by scripts/schemathesis.sh and scripts/clients.sh: a live paiju for a script to talk to.
#
#   start_live_server NAME   builds the debug binary and starts it on a free port, on a fresh
#                            database (on DATABASE_URL's server when set, else the project-local
#                            cluster) named paiju_NAME_<time>_<pid>, with an admin
#                            admin:admin-password; waits for /healthz; sets $port and $log; the
#                            server stops and its database is dropped (when psql is at hand) when
#                            the script exits.
#   check_server_log         fails when the server logged a 5xx or a panic.

start_live_server() {
  local name=$1
  cargo build --quiet --bin paiju
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  log="target/$name-server.log"
  live_db="paiju_${name}_$(date +%s)_$$"
  if [ -n "${DATABASE_URL:-}" ]; then
    export DATABASE_URL="${DATABASE_URL%/*}/$live_db"
  fi
  PAIJU_BIND="127.0.0.1:$port" PAIJU_ADMIN=admin:admin-password \
    JWT_SECRET="$name-secret-0123456789abcdef0123456789abcdef" \
    PAIJU_DB_NAME="$live_db" PAIJU_AUTH_PER_MIN=100000 RUST_LOG=warn,paiju=info \
    "${CARGO_TARGET_DIR:-target}/debug/paiju" >"$log" 2>&1 &
  live_server=$!
  trap stop_live_server EXIT
  python3 - "$port" <<'PY'
import sys, time, urllib.request
for _ in range(600):
    try:
        urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/healthz", timeout=2)
        break
    except Exception:
        time.sleep(0.2)
else:
    sys.exit("paiju did not answer /healthz within two minutes")
PY
}

stop_live_server() {
  kill "$live_server" 2>/dev/null
  wait "$live_server" 2>/dev/null || true
  local admin_url
  if [ -n "${DATABASE_URL:-}" ]; then
    admin_url="${DATABASE_URL%/*}/postgres"
  elif [ -f data/pg/paiju.port ]; then
    admin_url="postgres://postgres@127.0.0.1:$(cat data/pg/paiju.port)/postgres"
  fi
  if [ -n "${admin_url:-}" ] && command -v psql >/dev/null; then
    psql -q "$admin_url" -c "DROP DATABASE IF EXISTS \"$live_db\" WITH (FORCE)" >/dev/null 2>&1 || true
  fi
}

check_server_log() {
  echo "server log: $log"
  if grep -q " 5[0-9][0-9] \|panicked" "$log"; then
    echo "the server logged a 5xx or a panic" >&2
    return 1
  fi
}
