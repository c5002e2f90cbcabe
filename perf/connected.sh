#!/usr/bin/env bash
# Connected players (issue 36, docs/performance.md § Connected players): in one command,
#   1. builds paiju and paiju-load (release);
#   2. starts a fresh scratch database on the project-local PostgreSQL cluster (data/pg,
#      started by the server when needed) or beside DATABASE_URL's, and SERVERS paiju
#      processes on it;
#   3. runs paiju-load in phone mode: PLAYERS players at PLAYERS/4 tables of GAME, every one
#      holding its stream (GET /v1/me/stream), opened at CONNECT_RATE a second; then RUN_SECS
#      of play (after the players sat down, at CONNECT_RATE too) where each learns of its turn from its stream and thinks THINK ms before acting;
#   4. prints paiju-load's report (connected players, moves/s, the delay from a move's 200 to
#      the other seats' stream events, errors, the servers' memory per idle stream and CPU per
#      move) and PostgreSQL's CPU over the play.
# Environment: PLAYERS (10000), SERVERS (1; the players are spread over them), LOADERS (1:
# paiju-load processes sharing the players, each with its own open-file limit; each prints
# its report), GAME (dazha),
# THINK (1000..3000), RUN_SECS (60), CONNECT_RATE (500), HEARTBEAT (15: the servers'
# PAIJU_STREAM_HEARTBEAT_SECS), KEEP_DB (unset: the scratch database is dropped at the end),
# DATABASE_URL (a server on 127.0.0.1 instead of the local cluster), PGDATA (its data
# directory, for PostgreSQL's CPU). Only 127.0.0.1 is contacted; every wait is bounded.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=perf/lib.sh
. perf/lib.sh

PLAYERS=${PLAYERS:-10000}
SERVERS=${SERVERS:-1}
LOADERS=${LOADERS:-1}
GAME=${GAME:-dazha}
THINK=${THINK:-1000..3000}
RUN_SECS=${RUN_SECS:-60}
CONNECT_RATE=${CONNECT_RATE:-500}
HEARTBEAT=${HEARTBEAT:-15}
TARGET=${CARGO_TARGET_DIR:-target}
BIN=$TARGET/release
OUT=$(mktemp -d /tmp/paiju-connected.XXXXXX)
SECRET=perf-connected-secret-$RANDOM$RANDOM-0123456789abcdef
DB=paiju_perf_connected
SERVER_PIDS=()

say() { printf '%s\n' "$*" >&2; }
die() { say "perf/connected.sh: $*"; exit 1; }

stop_servers() {
    local pid
    for pid in "${SERVER_PIDS[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
    for pid in "${SERVER_PIDS[@]}"; do
        wait "$pid" 2>/dev/null || true
    done
    SERVER_PIDS=()
}
cleanup() {
    stop_servers
    if [ -n "${BASE:-}" ] && [ -z "${KEEP_DB:-}" ]; then
        psql "$BASE/postgres" -X -q -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" 2>/dev/null || true
    fi
}
trap cleanup EXIT

# start_server DATABASE_URL|"" PORT: a paiju process in the background, healthy within 60 s.
start_server() {
    local url=$1 port=$2 i
    env ${url:+DATABASE_URL=$url} PAIJU_BIND="127.0.0.1:$port" JWT_SECRET="$SECRET" \
        PAIJU_ADMIN=admin:admin-password PAIJU_AUTH_PER_MIN=1000000 \
        PAIJU_STREAM_HEARTBEAT_SECS="$HEARTBEAT" RUST_LOG=warn,paiju::fds=info \
        "$BIN/paiju" >>"$OUT/server-$port.log" 2>&1 &
    SERVER_PIDS+=($!)
    for i in $(seq 1 120); do
        if curl -sf --max-time 2 "http://127.0.0.1:$port/healthz" >/dev/null; then
            return
        fi
        kill -0 "${SERVER_PIDS[-1]}" 2>/dev/null || die "paiju exited; see $OUT/server-$port.log"
        sleep 0.5
    done
    die "paiju did not become healthy on port $port; see $OUT/server-$port.log"
}

command -v psql >/dev/null || PATH=$PATH:$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)

say "== building (release)"
cargo build --release --bin paiju --bin paiju-load >&2

if [ -n "${DATABASE_URL:-}" ]; then
    BASE=${DATABASE_URL%/*}
else
    if ! { [ -f data/pg/paiju.port ] &&
        pg_isready -q -h 127.0.0.1 -p "$(cat data/pg/paiju.port)" -t 3; }; then
        say "== starting the local cluster (through paiju)"
        start_server "" "$(free_port 18300)"
        stop_servers
    fi
    BASE=postgres://postgres@127.0.0.1:$(cat data/pg/paiju.port)
fi
case $BASE in
postgres://*@127.0.0.1:* | postgresql://*@127.0.0.1:* | postgres://*@localhost:*) ;;
*) die "the database must be on 127.0.0.1 (got $BASE)" ;;
esac
PG_PID=
PG_DIR=${PGDATA:-}
[ -n "${DATABASE_URL:-}" ] || PG_DIR=data/pg
if [ -n "$PG_DIR" ] && [ -r "$PG_DIR/postmaster.pid" ]; then
    PG_PID=$(head -1 "$PG_DIR/postmaster.pid")
fi

psql "$BASE/postgres" -X -q -v ON_ERROR_STOP=1 -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" \
    -c "CREATE DATABASE $DB"
URLS=()
PIDS=()
for i in $(seq 1 "$SERVERS"); do
    port=$(free_port $((18500 + 10 * i)))
    start_server "$BASE/$DB" "$port"
    URLS+=(--url "http://127.0.0.1:$port")
    PIDS+=(--server-pid "${SERVER_PIDS[-1]}")
done
grep -h "open-file limit" "$OUT"/server-*.log >&2 || true

say "== $PLAYERS players, $SERVERS server(s), $LOADERS load generator(s), $GAME, think $THINK ms, $RUN_SECS s (logs in $OUT)"
# Each load generator plays PLAYERS/LOADERS players at CONNECT_RATE/LOADERS a second (one
# process holds a socket per player, and its open-file limit may be below PLAYERS).
# Registration (an argon2 hash each) takes about 10 ms of server CPU per player.
[ $((PLAYERS % LOADERS)) -eq 0 ] || die "PLAYERS ($PLAYERS) must divide among LOADERS ($LOADERS)"
share=$((PLAYERS / LOADERS))
LOAD_PIDS=()
for k in $(seq 1 "$LOADERS"); do
    timeout $((RUN_SECS + PLAYERS / 10 + PLAYERS / CONNECT_RATE + 300)) "$BIN/paiju-load" "${URLS[@]}" \
        "${PIDS[@]}" --mode phone --clients "$share" --game "$GAME" --think "$THINK" \
        --connect-rate "$(awk -v r="$CONNECT_RATE" -v l="$LOADERS" 'BEGIN { print r / l }')" \
        --duration "$RUN_SECS" --timeout-secs 3600 --hands 1000 \
        >"$OUT/report-$k.txt" 2>"$OUT/progress-$k.txt" &
    LOAD_PIDS+=($!)
done
for _ in $(seq 1 $((10 * (PLAYERS / 10 + PLAYERS / CONNECT_RATE + 300)))); do
    grep -qs '^paiju-load: seating' "$OUT/progress-1.txt" && break
    kill -0 "${LOAD_PIDS[0]}" 2>/dev/null || break
    sleep 0.1
done
pg0=$(pg_ticks)
sv0=$(server_ticks)
for k in $(seq 1 "$LOADERS"); do
    wait "${LOAD_PIDS[$((k - 1))]}" || die "paiju-load $k failed: $(tail -5 "$OUT/progress-$k.txt")"
done
pg1=$(pg_ticks)
sv1=$(server_ticks)
# The servers' own counts: every refused request by route and status, the streams' reads.
for url in "${URLS[@]}"; do
    [ "$url" = --url ] && continue
    curl -sf --max-time 10 "$url/metrics" >"$OUT/metrics-${url##*:}.txt" || true
done
grep -hE '^paiju_http_requests_total\{.*status="[45][0-9][0-9]"\}|^paiju_stream_reads_total|^paiju_moves_total' \
    "$OUT"/metrics-*.txt >&2 || true
moves=0
for k in $(seq 1 "$LOADERS"); do
    [ "$LOADERS" -gt 1 ] && say "-- load generator $k of $LOADERS"
    grep -E '^paiju-load:' "$OUT/progress-$k.txt" >&2 || true
    head -n -1 "$OUT/report-$k.txt"
    n=$(tail -1 "$OUT/report-$k.txt" | sed -n 's/.*"moves":\([0-9]*\).*/\1/p')
    moves=$((moves + ${n:-0}))
done
# CPU per move over every load generator's moves (a load generator's own "server CPU" line
# divides all the servers' CPU by its own moves alone).
cpu_per_move() {
    awk -v what="$1" -v t="$2" -v n="$moves" -v s="$((RUN_SECS + PLAYERS / CONNECT_RATE))" \
        -v hz="$(getconf CLK_TCK)" 'BEGIN {
        if (n > 0) printf "%-12s %.3f ms CPU per move (%.2f cores over the play), %d moves in all\n", what, t * 1000 / hz / n, t / hz / s, n
    }'
}
cpu_per_move postgres $((pg1 - pg0))
cpu_per_move "paiju ($SERVERS)" $((sv1 - sv0))
if [ "$LOADERS" -gt 1 ]; then
    say "(with $LOADERS load generators, each one's \"server RSS\" and \"server CPU\" lines divide all the servers' memory and CPU by its own streams and moves: the CPU lines above count every move; for memory per stream run one load generator)"
fi
for k in $(seq 1 "$LOADERS"); do
    tail -1 "$OUT/report-$k.txt"
done
