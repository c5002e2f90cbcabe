#!/usr/bin/env bash
# paiju against its database ceiling, in one run on one machine (docs/performance.md):
#   1. builds paiju and paiju-load (release);
#   2. uses the project-local PostgreSQL cluster (data/pg, started by the server when needed)
#      or the server of DATABASE_URL, with two scratch databases it creates and drops;
#   3. for each client count: pgbench with our own move (perf/move.sql, 4 round trips) on
#      10,000 tables (spread) and on as many tables as clients, and the fast path's one-statement
#      move (perf/move1.sql) on 10,000 tables; paiju-load with a client per table against
#      SERVERS paiju processes, then pgbench running the same mix of transactions that run made
#      (move.sql, stake.sql, settle.sql weighted by the moves, stakes and hand ends counted in
#      paiju's database; settle.sql is the hand end as a transaction makes it, 5 round trips,
#      where paiju sends one statement, or a transaction of 5 for a 扯旋 deal, which reads the
#      wallets); then the same with a client per seat
#      (clients/4 tables);
#   4. prints the table and the ratios, and for every paiju-load run the statements (= round
#      trips) per move from the servers' own counters (paiju_moves_total and
#      paiju_move_statements_total by path, fast or transaction).
# Environment: RUN_SECS (20), WARMUP_SECS (20: paiju-load before the first timed run, to fill
# paiju's database; 0 for none), CLIENTS ("8 32"), SERVERS (1), MATCHES (10000), GAMES (the
# games paiju-load plays, "chexuan,dazha"; any the server lists at GET /v1/games, or all; chehuzi
# seats three, so with it a client per seat needs CLIENTS that fill whole tables taken in turn,
# e.g. "8 31" for all five, which paiju-load names when it refuses a count), KEEP_DBS (unset);
# DATABASE_URL (a server on 127.0.0.1 instead of the local cluster; any database name, the
# scratch databases are created beside it) with PGDATA (its data directory, for the CPU column).
# Only 127.0.0.1 is ever contacted. Every wait is bounded.
set -euo pipefail
TIMEFORMAT='%U %S'
cd "$(dirname "$0")/.."
# shellcheck source=perf/lib.sh
. perf/lib.sh

RUN_SECS=${RUN_SECS:-20}
WARMUP_SECS=${WARMUP_SECS:-20}
CLIENTS=${CLIENTS:-"8 32"}
SERVERS=${SERVERS:-1}
MATCHES=${MATCHES:-10000}
GAMES=${GAMES:-chexuan,dazha}
TARGET=${CARGO_TARGET_DIR:-target}
BIN=$TARGET/release
OUT=$(mktemp -d /tmp/paiju-perf.XXXXXX)
SECRET=perf-run-secret-$RANDOM$RANDOM-0123456789abcdef
BENCH_DB=paiju_perf_pgbench
PAIJU_DB=paiju_perf_server
SERVER_PIDS=()

say() { printf '%s\n' "$*" >&2; }
die() { say "perf/run.sh: $*"; exit 1; }

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
trap stop_servers EXIT

# start_server DATABASE_URL|"" PORT: a paiju process in the background, healthy within 60 s.
start_server() {
    local url=$1 port=$2 i
    env ${url:+DATABASE_URL=$url} PAIJU_BIND="127.0.0.1:$port" JWT_SECRET="$SECRET" \
        PAIJU_ADMIN=admin:admin-password PAIJU_AUTH_PER_MIN=1000000 RUST_LOG=warn "$BIN/paiju" >>"$OUT/server-$port.log" 2>&1 &
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

sql() { psql "$1" -X -q -v ON_ERROR_STOP=1 "${@:2}"; }

# Latency percentiles (ms) of pgbench per-transaction logs: "p50 p95 p99 max".
pgbench_percentiles() {
    cat "$@" | awk '{print $3}' | sort -n | awk '
        { v[NR] = $1 }
        END {
            if (NR == 0) { print "- - - -"; exit }
            n = split("50 95 99", q, " ")
            for (i = 1; i <= n; i++) {
                r = int(q[i] / 100 * NR); if (r < q[i] / 100 * NR) r++; if (r < 1) r = 1
                printf "%.2f ", v[r] / 1000
            }
            printf "%.2f\n", v[NR] / 1000
        }'
}

ROWS=()
row() { ROWS+=("$(printf '| %7s | %-40s | %8.1f | %6s | %6s | %6s | %7s | %6s | %6s | %6s |' "$@")"); }

# CPU clock ticks per second (pg_ticks and server_ticks, from perf/lib.sh, count ticks).
HZ=$(getconf CLK_TCK)
# ms_per TICKS COUNT: CPU milliseconds per move.
ms_per() { awk -v t="$1" -v n="$2" -v hz="$HZ" 'BEGIN { if (n > 0) printf "%.2f", t * 1000 / hz / n; else print "-" }'; }
# Children's user+system seconds from bash's `time` with TIMEFORMAT='%U %S'.
secs_of() { awk '{print $1 + $2}' "$1"; }

# Every timed run starts from the same quiet cluster: both databases vacuumed (so that no
# autovacuum of the previous run's rows lands in the next run's CPU column) and checkpointed.
quiesce() {
    sql "$BASE/$BENCH_DB" -c "VACUUM (ANALYZE)"
    sql "$BASE/$PAIJU_DB" -c "VACUUM (ANALYZE)"
    sql "$BASE/postgres" -c CHECKPOINT
}

# run_pgbench CLIENTS NROWS OWN LABEL SCRIPT-ARGS…: one pgbench run (OWN 1: client i always
# on table i + 1; 0: a random table of NROWS each time); adds its row and sets R_TPS and R_P99.
run_pgbench() {
    local c=$1 nrows=$2 own=$3 label=$4 prefix pg0 pg1 tps n p50 p95 p99 pmax
    shift 4
    prefix="$OUT/pgbench-$c-$nrows-${label//[^a-z0-9]/_}"
    quiesce
    pg0=$(pg_ticks)
    # shellcheck disable=SC2068
    { time pgbench "$BASE/$BENCH_DB" -n -M prepared $@ -D nrows="$nrows" -D own="$own" -c "$c" -j 2 \
        -T "$RUN_SECS" -l --log-prefix="$prefix" >"$prefix.txt" 2>&1; } 2>"$prefix.time" ||
        die "pgbench failed: $(tail -5 "$prefix.txt")"
    sleep 1 # lets the postmaster reap pgbench's backends, whose CPU then shows in its cutime
    pg1=$(pg_ticks)
    grep -q "number of failed transactions: 0 " "$prefix.txt" || die "pgbench had failures: $prefix.txt"
    tps=$(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' "$prefix.txt")
    n=$(cat "$prefix".[0-9]* | wc -l)
    read -r p50 p95 p99 pmax <<<"$(pgbench_percentiles "$prefix".[0-9]*)"
    row "$c" "$label" "$tps" "$p50" "$p95" "$p99" "$pmax" "$(ms_per $((pg1 - pg0)) "$n")" "-" \
        "$(awk -v s="$(secs_of "$prefix.time")" -v n="$n" 'BEGIN { printf "%.2f", s * 1000 / n }')"
    R_TPS=$tps
    R_P99=$p99
}

json_num() { sed -n "s/.*\"$2\":\([0-9.]*\).*/\1/p" <<<"$1"; }
json_obj() { grep -o "\"$2\":{[^}]*}" <<<"$1" | sed "s/\"$2\"://"; }

command -v pgbench >/dev/null || PATH=$PATH:$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
command -v pgbench >/dev/null || die "pgbench not found (install the PostgreSQL client package)"

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
# The postmaster, for CPU accounting: the local cluster's, or PGDATA's with DATABASE_URL.
PG_PID=
PG_DIR=${PGDATA:-}
[ -n "${DATABASE_URL:-}" ] || PG_DIR=data/pg
if [ -n "$PG_DIR" ] && [ -r "$PG_DIR/postmaster.pid" ]; then
    PG_PID=$(head -1 "$PG_DIR/postmaster.pid")
fi
case $BASE in
postgres://*@127.0.0.1:* | postgresql://*@127.0.0.1:* | postgres://*@localhost:*) ;;
*) die "the database must be on 127.0.0.1 (got $BASE)" ;;
esac

for db in "$BENCH_DB" "$PAIJU_DB"; do
    sql "$BASE/postgres" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" -c "CREATE DATABASE $db"
done
say "== pgbench database: the server's migrations, then perf/schema.sql ($MATCHES tables)"
start_server "$BASE/$BENCH_DB" "$(free_port 18300)"
stop_servers
sql "$BASE/$BENCH_DB" -v matches="$MATCHES" -f perf/schema.sql

URLS=()
for i in $(seq 1 "$SERVERS"); do
    port=$(free_port $((18400 + 10 * i)))
    start_server "$BASE/$PAIJU_DB" "$port"
    URLS+=(--url "http://127.0.0.1:$port")
done

PG_VERSION=$(psql "$BASE/postgres" -X -At -c "SHOW server_version")
PG_SETTINGS=$(psql "$BASE/postgres" -X -At -F ' ' -c \
    "SELECT string_agg(name || '=' || setting || coalesce(unit, ''), ' ' ORDER BY name)
       FROM pg_settings WHERE name IN ('shared_buffers', 'synchronous_commit', 'max_connections')")
HEADER="$(date -u +%Y-%m-%dT%H:%M:%SZ) · $(nproc) cores · $(free -g | awk '/^Mem:/ {print $2}') GiB · PostgreSQL $PG_VERSION ($PG_SETTINGS) · $SERVERS paiju process(es) · games $GAMES · ${RUN_SECS} s per run after a ${WARMUP_SECS} s warm-up · commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
LOADS=()
SUMMARY=()
OTHERS=()
# Client connections to databases other than ours: other people's work on the same cluster.
others() {
    psql "$BASE/postgres" -X -At -c "SELECT count(*) FROM pg_stat_activity
        WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()
          AND datname NOT IN ('$BENCH_DB', '$PAIJU_DB')"
}

# Transactions of paiju's database that carry money or close a hand: "stakes hands".
money_counts() {
    psql "$BASE/$PAIJU_DB" -X -At -F ' ' -c "SELECT
        (SELECT count(*) FROM ledger_tx WHERE reason = 'stake'),
        (SELECT count(*) FROM hands WHERE ended_at IS NOT NULL)"
}

# The servers' move counters, summed over SERVERS: "fast-moves fast-statements tx-moves
# tx-statements".
move_counters() {
    local url
    for url in "${URLS[@]}"; do
        [ "$url" = --url ] && continue
        curl -sf --max-time 5 "$url/metrics"
    done | awk '
        /^paiju_moves_total\{path="fast"\}/ { fm += $2 }
        /^paiju_move_statements_total\{path="fast"\}/ { fs += $2 }
        /^paiju_moves_total\{path="transaction"\}/ { tm += $2 }
        /^paiju_move_statements_total\{path="transaction"\}/ { ts += $2 }
        END { printf "%d %d %d %d\n", fm, fs, tm, ts }'
}

# statements_per_move BEFORE AFTER (two move_counters lines): one summary line.
statements_per_move() {
    awk -v a="$1" -v b="$2" 'BEGIN {
        split(a, x, " "); split(b, y, " ")
        fm = y[1] - x[1]; fs = y[2] - x[2]; tm = y[3] - x[3]; ts = y[4] - x[4]
        n = fm + tm
        if (n == 0) { print "    statements (round trips) per move: no moves counted"; exit }
        printf "    statements (round trips) per move: %.2f; fast path %.0f%% of %d moves (%.2f each), transaction %.2f each\n",
            (fs + ts) / n, 100 * fm / n, n, (fm ? fs / fm : 0), (tm ? ts / tm : 0)
    }'
}

# run_load CLIENTS DRIVE LABEL: one paiju-load run; adds its row and sets R_MPS, R_P99, R_J
# and R_MIX, the pgbench script weights of the transactions it made (plain moves, stakes, hand
# ends).
run_load() {
    local c=$1 drive=$2 label=$3 prefix load_pid pg0 pg1 sv0 sv1 j moves st0 h0 st1 h1 plain mc0
    prefix="$OUT/load-$c-$drive"
    quiesce
    # CPU is counted from the moment play starts (registering players costs the server an
    # argon2 hash each, which is not a move's work).
    : >"$prefix.progress"
    { time timeout $((RUN_SECS + 180)) "$BIN/paiju-load" "${URLS[@]}" --clients "$c" \
        --drive "$drive" --game "$GAMES" --duration "$RUN_SECS" --timeout-secs 3600 --hands 10 \
        >"$prefix.txt" 2>"$prefix.progress"; } 2>"$prefix.time" &
    load_pid=$!
    for _ in $(seq 1 1200); do
        grep -q '^paiju-load: playing' "$prefix.progress" && break
        kill -0 "$load_pid" 2>/dev/null || break
        sleep 0.1
    done
    read -r st0 h0 <<<"$(money_counts)"
    mc0=$(move_counters)
    pg0=$(pg_ticks)
    sv0=$(server_ticks)
    wait "$load_pid" || die "paiju-load failed: $(tail -3 "$prefix.progress")"
    pg1=$(pg_ticks)
    sv1=$(server_ticks)
    read -r st1 h1 <<<"$(money_counts)"
    R_STATEMENTS=$(statements_per_move "$mc0" "$(move_counters)")
    j=$(tail -1 "$prefix.txt")
    moves=$(json_num "$j" moves)
    # Moves in flight at the end and automatic steps make these counts approximate (±1 %).
    plain=$((moves - (st1 - st0) - (h1 - h0)))
    R_MIX="-f perf/move.sql@$((plain > 0 ? plain : 1))"
    if [ $((st1 - st0)) -gt 0 ]; then R_MIX="$R_MIX -f perf/stake.sql@$((st1 - st0))"; fi
    if [ $((h1 - h0)) -gt 0 ]; then R_MIX="$R_MIX -f perf/settle.sql@$((h1 - h0))"; fi
    R_MIX_LABEL="plain/stake/hand end $plain/$((st1 - st0))/$((h1 - h0))"
    # paiju-load's own CPU includes registering its players before the clock starts.
    row "$c" "$label" "$(json_num "$j" moves_per_sec)" "$(json_num "$j" p50_ms)" \
        "$(json_num "$j" p95_ms)" "$(json_num "$j" p99_ms)" "$(json_num "$j" max_ms)" \
        "$(ms_per $((pg1 - pg0)) "$moves")" "$(ms_per $((sv1 - sv0)) "$moves")" \
        "$(awk -v s="$(secs_of "$prefix.time")" -v n="$moves" 'BEGIN { printf "%.2f", s * 1000 / n }')"
    R_MPS=$(json_num "$j" moves_per_sec)
    R_P99=$(json_num "$j" p99_ms)
    R_J=$j
}

# ratio LABEL PAIJU_MPS PAIJU_P99 CEILING_TPS CEILING_P99: one line of the summary.
ratio() {
    awk -v l="$1" -v p="$2" -v pp="$3" -v t="$4" -v tp="$5" \
        'BEGIN { printf "    %-58s %4.0f%% of its moves/s, p99 %.2f×\n", l, 100 * p / t, pp / tp }'
}

# load_and_its_ceiling CLIENTS DRIVE TABLES "OTHER-LABEL OTHER-TPS OTHER-P99": paiju-load with
# DRIVE, then pgbench with the transactions that run made; adds the summary lines comparing
# paiju with that pgbench, with move.sql on MATCHES tables (s_tps, s99) and with OTHER.
load_and_its_ceiling() {
    local c=$1 drive=$2 tables=$3 other_label=$4 other_tps=$5 other_p99=$6 p_mps p99 p_j
    say "== $c clients: paiju-load, a client per $drive"
    run_load "$c" "$drive" "paiju-load, a client per $drive ($tables tables)"
    p_mps=$R_MPS p99=$R_P99 p_j=$R_J
    say "== $c clients: pgbench, the transactions paiju-load just made ($R_MIX_LABEL)"
    run_pgbench "$c" "$MATCHES" 1 "pgbench, the $drive run's transactions, a table per client" "$R_MIX"
    SUMMARY+=("$c clients, paiju-load with a client per $drive ($p_mps moves/s, p99 $p99 ms):")
    SUMMARY+=("$(ratio "pgbench, the same mix of transactions, a table per client ($R_MIX_LABEL)" "$p_mps" "$p99" "$R_TPS" "$R_P99")")
    SUMMARY+=("$(ratio "pgbench move.sql, $MATCHES tables (plain moves only)" "$p_mps" "$p99" "$s_tps" "$s99")")
    SUMMARY+=("$(ratio "$other_label" "$p_mps" "$p99" "$other_tps" "$other_p99")")
    SUMMARY+=("$R_STATEMENTS")
    SUMMARY+=("    409s $(json_obj "$p_j" conflicts) · errors $(json_obj "$p_j" errors) · moves $(json_obj "$p_j" moves_by_type)")
}

# pgbench starts from MATCHES tables of data, vacuumed and analysed; paiju's database starts
# empty, and a fresh database's first minute (statistics of near-empty tables, plans made from
# them) costs PostgreSQL up to twice the CPU per move. A warm-up run, not reported, fills it
# first, as a server that has been in service has.
if [ "$WARMUP_SECS" -gt 0 ]; then
    say "== warm-up: paiju-load, 8 clients per table, $WARMUP_SECS s (not reported)"
    timeout $((WARMUP_SECS + 180)) "$BIN/paiju-load" "${URLS[@]}" --clients 8 --drive table \
        --game "$GAMES" --duration "$WARMUP_SECS" --timeout-secs 3600 --hands 10 \
        >"$OUT/warmup.txt" 2>"$OUT/warmup.progress" || die "warm-up failed: $(tail -3 "$OUT/warmup.progress")"
fi

for c in $CLIENTS; do
    seat_tables=$((c / 4))
    [ "$seat_tables" -ge 1 ] || seat_tables=1
    LOADS+=("$c clients: load average before $(cut -d' ' -f1-3 /proc/loadavg)")

    say "== $c clients: pgbench move.sql, $MATCHES tables"
    run_pgbench "$c" "$MATCHES" 0 "pgbench move.sql, $MATCHES tables" -f perf/move.sql
    s_tps=$R_TPS s99=$R_P99
    say "== $c clients: pgbench move1.sql (one statement), $MATCHES tables"
    run_pgbench "$c" "$MATCHES" 0 "pgbench move1.sql, $MATCHES tables" -f perf/move1.sql
    say "== $c clients: pgbench move.sql, $c tables"
    run_pgbench "$c" "$c" 0 "pgbench move.sql, $c tables" -f perf/move.sql
    load_and_its_ceiling "$c" table "$c" "pgbench move.sql, $c tables (plain moves only)" \
        "$R_TPS" "$R_P99"

    say "== $seat_tables clients: pgbench move.sql, $seat_tables tables (a table's moves are sequential)"
    run_pgbench "$seat_tables" "$seat_tables" 0 "pgbench move.sql, $seat_tables tables, $seat_tables clients" -f perf/move.sql
    load_and_its_ceiling "$c" seat "$seat_tables" \
        "pgbench, $seat_tables clients on $seat_tables tables (equal moves in flight)" \
        "$R_TPS" "$R_P99"
    LOADS+=("$c clients: load average after $(cut -d' ' -f1-3 /proc/loadavg)")
    OTHERS+=("$c clients: other client connections on the cluster after the runs: $(others)")
done

stop_servers
if [ -z "${KEEP_DBS:-}" ]; then
    for db in "$BENCH_DB" "$PAIJU_DB"; do
        sql "$BASE/postgres" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)"
    done
fi

echo "$HEADER"
echo
echo "| clients | what                                     | moves/s  | p50 ms | p95 ms | p99 ms | max ms  | DB CPU | app CPU | client CPU |"
echo "|--------:|------------------------------------------|---------:|-------:|-------:|-------:|--------:|-------:|-------:|-------:|"
printf '%s\n' "${ROWS[@]}"
echo
printf '%s\n' "${SUMMARY[@]}"
printf '%s\n' "${LOADS[@]}"
printf '%s\n' "${OTHERS[@]}"
echo "CPU columns: milliseconds of CPU per move (DB: every PostgreSQL process; app: the paiju"
echo "server(s); client: pgbench or paiju-load). $(nproc) cores give $(nproc)000 ms of CPU per second."
echo "logs: $OUT"
