#!/usr/bin/env bash
# Counts the statements (database round trips) paiju sends per move, by kind of move, from
# PostgreSQL's own statement log: a scratch cluster under /tmp with log_statement=all, one
# paiju server on it, paiju-load with 4 clients (one 扯旋 table) for SECS seconds, then the log
# is read. Everything it starts is stopped, and the scratch directory removed, at the end.
# Usage: perf/roundtrips.sh   (env: SECS (5), KEEP (unset: remove the scratch cluster))
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=perf/lib.sh
. perf/lib.sh

SECS=${SECS:-5}
TARGET=${CARGO_TARGET_DIR:-target}
BIN=$TARGET/release
PG_BIN=$(dirname "$(command -v pg_ctl 2>/dev/null || ls -d /usr/lib/postgresql/*/bin/pg_ctl | sort -V | tail -1)")
DIR=$(mktemp -d /tmp/paiju-roundtrips.XXXXXX)
SERVER_PID=
PG_STARTED=

as_pg() {
    if [ "$(id -u)" = 0 ]; then
        su postgres -s /bin/bash -c "$*"
    else
        bash -c "$*"
    fi
}

finish() {
    [ -z "$SERVER_PID" ] || { kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; }
    [ -z "$PG_STARTED" ] || as_pg "'$PG_BIN/pg_ctl' -D '$DIR/data' -m fast -w -t 60 stop" >/dev/null || true
    [ -n "${KEEP:-}" ] || rm -rf "$DIR"
}
trap finish EXIT

cargo build --release --bin paiju --bin paiju-load >&2
[ "$(id -u)" != 0 ] || chown postgres: "$DIR"
PG_PORT=$(free_port 18600)
as_pg "'$PG_BIN/initdb' -D '$DIR/data' -U postgres --auth=trust -E UTF8 --no-instructions" >/dev/null
cat >>"$DIR/data/postgresql.conf" <<EOF
listen_addresses = '127.0.0.1'
port = $PG_PORT
unix_socket_directories = ''
log_statement = 'all'
log_line_prefix = '%m [%p] '
EOF
as_pg "'$PG_BIN/pg_ctl' -D '$DIR/data' -l '$DIR/data/log' -w -t 60 start" >/dev/null
PG_STARTED=1

PORT=$(free_port 18700)
DATABASE_URL=postgres://postgres@127.0.0.1:$PG_PORT/paiju PAIJU_BIND=127.0.0.1:$PORT \
    JWT_SECRET=roundtrips-secret-0123456789abcdef0123 PAIJU_ADMIN=admin:admin-password PAIJU_AUTH_PER_MIN=1000000 \
    RUST_LOG=warn "$BIN/paiju" >"$DIR/server.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 1 120); do
    curl -sf --max-time 2 "http://127.0.0.1:$PORT/healthz" >/dev/null && break
    sleep 0.5
done
timeout $((SECS + 120)) "$BIN/paiju-load" --url "http://127.0.0.1:$PORT" --clients 4 \
    --duration "$SECS" --timeout-secs 3600 >"$DIR/load.txt" 2>/dev/null
tail -1 "$DIR/load.txt" >"$DIR/load.json"
kill "$SERVER_PID"
wait "$SERVER_PID" 2>/dev/null || true
SERVER_PID=

python3 - "$DIR/data/log" "$DIR/load.json" <<'EOF'
import collections, json, re, sys

log, load = sys.argv[1], json.load(open(sys.argv[2]))
moves = load["moves"]

entries, cur = [], None
for line in open(log, errors="replace"):
    if re.match(r"^\d{4}-\d\d-\d\d ", line):
        if cur:
            entries.append(cur)
        cur = line
    elif cur:
        cur += line
if cur:
    entries.append(cur)

def label(sql):
    s = " ".join(sql.split())
    s = re.sub(r"^(execute [^:]+: |statement: )", "", s)
    return s[:96]

by_pid = collections.defaultdict(list)
for e in entries:
    m = re.match(r"^\S+ \S+ \S+ \[(\d+)\] (LOG|DETAIL):  (.*)", e, re.S)
    if m:
        by_pid[m.group(1)].append((m.group(2), m.group(3)))

shapes = collections.defaultdict(collections.Counter)
outside = collections.Counter()
for items in by_pid.values():
    tx, kind = None, None
    for what, body in items:
        if what == "DETAIL":
            # The action of a client move is the last "type" in the save's parameters.
            if tx and tx[-1].startswith("WITH m AS ( UPDATE matches"):
                found = re.findall(r'\\"type\\": \\"(\w+)\\"', body)
                if found and '{action}' in body:
                    kind = found[-1]
            continue
        if not body.startswith(("execute", "statement")):
            continue
        sql = label(body)
        if sql == "BEGIN":
            tx, kind = ["BEGIN"], None
        elif tx is not None:
            tx.append(sql)
            if sql in ("COMMIT", "ROLLBACK"):
                if sql == "ROLLBACK":
                    kind = ("refused: 409 and the like (locked load, then rollback)"
                            if tx[1].startswith("SELECT m.id, m.game") else "sweepers, nothing due")
                shapes[kind or "other (create, join, registration, grants)"][tuple(tx)] += 1
                tx = None
        else:
            outside[sql] += 1

print(f"paiju-load: {moves} moves accepted, {load['moves_per_sec']} moves/s, "
      f"409s {load['conflicts']}, errors {load['errors']}")
print("\n== transactions, by kind of move: count × statements (each statement is one round trip)")
for kind, c in sorted(shapes.items(), key=lambda kv: -sum(kv[1].values())):
    total = sum(c.values())
    print(f"\n{kind}: {total} transactions ({total / moves:.2f} per accepted move)")
    for shape, n in c.most_common(3):
        print(f"  {n} × {len(shape)} statements:")
        for s in shape:
            print(f"      {s}")
print("\n== statements outside transactions (long-polls, views), per accepted move")
for sql, n in outside.most_common(6):
    print(f"  {n / moves:6.2f}  ({n})  {sql}")
all_statements = sum(len(s) * n for c in shapes.values() for s, n in c.items()) + sum(outside.values())
print(f"\nall statements in the log: {all_statements}, {all_statements / moves:.1f} per accepted move")
EOF
