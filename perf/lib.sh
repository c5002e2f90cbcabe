# Shell pieces perf/run.sh, perf/connected.sh and perf/roundtrips.sh share; sourced, not run.

# free_port FIRST: a port nobody listens on at 127.0.0.1, from FIRST to FIRST + 199.
free_port() {
    local p
    for p in $(seq "$1" $(($1 + 199))); do
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
            echo "$p"
            return
        fi
    done
    echo "no free port in $1..$(($1 + 199))" >&2
    exit 1
}

# CPU clock ticks used so far by PostgreSQL (PG_PID, the postmaster; 0 when unset): the
# postmaster, its live children and (through cutime/cstime) the children that have exited,
# such as pgbench's connections.
pg_ticks() {
    [ -n "$PG_PID" ] || { echo 0; return; }
    local t p
    t=$(awk '{print $14 + $15 + $16 + $17}' "/proc/$PG_PID/stat")
    for p in $(pgrep -P "$PG_PID"); do
        t=$((t + $(awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null || echo 0)))
    done
    echo "$t"
}

# CPU clock ticks used so far by the paiju servers (SERVER_PIDS).
server_ticks() {
    local t=0 p
    for p in "${SERVER_PIDS[@]}"; do
        t=$((t + $(awk '{print $14 + $15}' "/proc/$p/stat")))
    done
    echo "$t"
}
