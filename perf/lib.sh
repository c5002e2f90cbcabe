# Shell pieces perf/run.sh and perf/roundtrips.sh share; sourced, not run.

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
