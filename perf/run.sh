#!/usr/bin/env bash
# paiju against its database ceiling, in one run on one machine (docs/performance.md):
#   1. builds paiju and paiju-load (release);
#   2. uses the project-local PostgreSQL cluster (data/pg, started by the server when needed)
#      or the server of DATABASE_URL, with two scratch databases it creates and drops;
#   3. for each client count: pgbench with our own move (perf/move.sql) on 10,000 tables
#      (spread) and on clients/4 tables (hot: as many tables as paiju-load plays), the move
#      mix (move/stake/settle), then paiju-load against SERVERS paiju processes;
#   4. prints the table and the ratios.
# Environment: RUN_SECS (20), CLIENTS ("8 32"), SERVERS (1), MATCHES (10000), KEEP_DBS (unset).
# Only 127.0.0.1 is ever contacted. Every wait is bounded.
set -euo pipefail
cd "$(dirname "$0")/.."

RUN_SECS=${RUN_SECS:-20}
CLIENTS=${CLIENTS:-"8 32"}
SERVERS=${SERVERS:-1}
MATCHES=${MATCHES:-10000}
MIX="-f perf/move.sql@63 -f perf/stake.sql@30 -f perf/settle.sql@7"
TARGET=${CARGO_TARGET_DIR:-target}
BIN=$TARGET/release
OUT=$(mktemp -d /tmp/paiju-perf.XXXXXX)
SECRET=perf-run-secret-$RANDOM$RANDOM
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

# A port nobody listens on, from a fixed range of 200.
free_port() {
    local p
    for p in $(seq "$1" $(($1 + 199))); do
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
            echo "$p"
            return
        fi
    done
    die "no free port in $1..$(($1 + 199))"
}

# start_server DATABASE_URL|"" PORT: a paiju process in the background, healthy within 60 s.
start_server() {
    local url=$1 port=$2 i
    env ${url:+DATABASE_URL=$url} PAIJU_BIND="127.0.0.1:$port" JWT_SECRET="$SECRET" \
        PAIJU_ADMIN=admin:admin-password RUST_LOG=warn "$BIN/paiju" >>"$OUT/server-$port.log" 2>&1 &
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
row() { ROWS+=("$(printf '| %7s | %-38s | %9s | %7s | %7s | %7s | %8s |' "$@")"); }

# run_pgbench CLIENTS LABEL NROWS SCRIPT-ARGS…: one pgbench run; prints "tps p50 p95 p99 max".
run_pgbench() {
    local c=$1 label=$2 nrows=$3 prefix
    shift 3
    prefix="$OUT/pgbench-$c-${label// /_}"
    sql "$BASE/$BENCH_DB" -c CHECKPOINT
    # shellcheck disable=SC2068
    pgbench "$BASE/$BENCH_DB" -n -M prepared $@ -D nrows="$nrows" -c "$c" -j 2 -T "$RUN_SECS" \
        -l --log-prefix="$prefix" >"$prefix.txt" 2>&1 || die "pgbench failed: $(tail -5 "$prefix.txt")"
    grep -q "number of failed transactions: 0 " "$prefix.txt" || die "pgbench had failures: $prefix.txt"
    local tps
    tps=$(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' "$prefix.txt")
    echo "$tps $(pgbench_percentiles "$prefix".[0-9]*)"
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
HEADER="$(date -u +%Y-%m-%dT%H:%M:%SZ) · $(nproc) cores · $(free -g | awk '/^Mem:/ {print $2}') GiB · PostgreSQL $PG_VERSION ($PG_SETTINGS) · $SERVERS paiju process(es) · ${RUN_SECS} s per run"
LOADS=()
SUMMARY=()

for c in $CLIENTS; do
    hot=$((c / 4))
    [ "$hot" -ge 1 ] || hot=1
    LOADS+=("$c clients: load average before $(cut -d' ' -f1-3 /proc/loadavg)")

    say "== $c clients: pgbench move.sql, $MATCHES tables"
    r=$(run_pgbench "$c" spread "$MATCHES" -f perf/move.sql)
    read -r s_tps s50 s95 s99 smax <<<"$r"
    row "$c" "pgbench move.sql, $MATCHES tables" "$s_tps" "$s50" "$s95" "$s99" "$smax"

    say "== $c clients: pgbench move.sql, $hot tables"
    r=$(run_pgbench "$c" hot "$hot" -f perf/move.sql)
    read -r h_tps h50 h95 h99 hmax <<<"$r"
    row "$c" "pgbench move.sql, $hot tables (hot)" "$h_tps" "$h50" "$h95" "$h99" "$hmax"

    say "== $c clients: pgbench move mix 63/30/7, $MATCHES tables"
    r=$(run_pgbench "$c" mix "$MATCHES" "$MIX")
    read -r m_tps m50 m95 m99 mmax <<<"$r"
    row "$c" "pgbench mix move/stake/settle 63/30/7" "$m_tps" "$m50" "$m95" "$m99" "$mmax"

    say "== $c clients: paiju-load"
    sql "$BASE/$PAIJU_DB" -c CHECKPOINT
    timeout $((RUN_SECS + 180)) "$BIN/paiju-load" "${URLS[@]}" --clients "$c" \
        --duration "$RUN_SECS" --timeout-secs 3600 --hands 10 \
        >"$OUT/load-$c.txt" 2>"$OUT/load-$c.progress" || die "paiju-load failed: $(tail -3 "$OUT/load-$c.progress")"
    j=$(tail -1 "$OUT/load-$c.txt")
    p_mps=$(json_num "$j" moves_per_sec)
    p99=$(json_num "$j" p99_ms)
    row "$c" "paiju-load, $hot tables, $SERVERS server(s)" "$p_mps" "$(json_num "$j" p50_ms)" \
        "$(json_num "$j" p95_ms)" "$p99" "$(json_num "$j" max_ms)"
    SUMMARY+=("$(awk -v c="$c" -v p="$p_mps" -v s="$s_tps" -v h="$h_tps" -v m="$m_tps" \
        -v pp="$p99" -v sp="$s99" -v hp="$h99" -v mp="$m99" 'BEGIN {
        printf "%s clients: paiju = %.0f%% of move.sql spread, %.0f%% of hot, %.0f%% of the mix; p99 %.1f× spread, %.1f× hot, %.1f× mix",
            c, 100 * p / s, 100 * p / h, 100 * p / m, pp / sp, pp / hp, pp / mp }')")
    SUMMARY+=("    409s $(json_obj "$j" conflicts) · errors $(json_obj "$j" errors) · moves $(json_obj "$j" moves_by_type)")
    LOADS+=("$c clients: load average after $(cut -d' ' -f1-3 /proc/loadavg)")
done

stop_servers
if [ -z "${KEEP_DBS:-}" ]; then
    for db in "$BENCH_DB" "$PAIJU_DB"; do
        sql "$BASE/postgres" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)"
    done
fi

echo "$HEADER"
echo
echo "| clients | what                                   | moves/s   | p50 ms  | p95 ms  | p99 ms  | max ms   |"
echo "|--------:|----------------------------------------|----------:|--------:|--------:|--------:|---------:|"
printf '%s\n' "${ROWS[@]}"
echo
printf '%s\n' "${SUMMARY[@]}"
printf '%s\n' "${LOADS[@]}"
echo "logs: $OUT"
