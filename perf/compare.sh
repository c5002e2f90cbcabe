#!/usr/bin/env bash
# perf/compare.sh A B: perf/run.sh at two commits, RUNS times each (alternating A, B, A, B, …
# so that a slow spell of the machine falls on both), then the median of every row of its
# table per commit, and the statements-per-move lines of every run.
#   A, B: anything `git rev-parse` takes (commits, branches, tags).
# Environment: RUNS (3), DRIVES ("table seat": which paiju-load rows the medians keep, by the
# drive named in their label; pgbench rows are always kept), COMPARE_DIR (/tmp/paiju-compare: the worktrees and their target
# dirs, kept between calls so a second comparison builds incrementally), and everything
# perf/run.sh reads (RUN_SECS, WARMUP_SECS, CLIENTS, SERVERS, MATCHES, GAMES, DATABASE_URL,
# PGDATA). Without DATABASE_URL both commits use this checkout's local cluster (data/pg), so
# both run against the same PostgreSQL.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 2 ] || { echo "usage: perf/compare.sh A B" >&2; exit 2; }
RUNS=${RUNS:-3}
DRIVES=${DRIVES:-"table seat"}
COMPARE_DIR=${COMPARE_DIR:-/tmp/paiju-compare}
mkdir -p "$COMPARE_DIR"

if [ -z "${DATABASE_URL:-}" ]; then
    [ -f data/pg/paiju.port ] || { echo "no DATABASE_URL and no local cluster (data/pg): run perf/run.sh here once first" >&2; exit 1; }
    export DATABASE_URL="postgres://postgres@127.0.0.1:$(cat data/pg/paiju.port)/postgres"
    export PGDATA="$PWD/data/pg"
fi

declare -A TREE
for rev in "$1" "$2"; do
    sha=$(git rev-parse --short "$rev^{commit}")
    tree="$COMPARE_DIR/$sha"
    if [ ! -d "$tree" ]; then
        git worktree add --detach "$tree" "$sha" >&2
    fi
    TREE[$rev]=$tree
    echo "== building $rev ($sha) in $tree" >&2
    (cd "$tree" && CARGO_TARGET_DIR="$tree/target" cargo build --release --bin paiju --bin paiju-load >&2)
done

OUT=$(mktemp -d /tmp/paiju-compare-out.XXXXXX)
for i in $(seq 1 "$RUNS"); do
    for rev in "$1" "$2"; do
        echo "== run $i of $RUNS: $rev" >&2
        (cd "${TREE[$rev]}" && CARGO_TARGET_DIR="${TREE[$rev]}/target" perf/run.sh) \
            >"$OUT/$(git rev-parse --short "$rev^{commit}")-$i.txt"
    done
done

for rev in "$1" "$2"; do
    sha=$(git rev-parse --short "$rev^{commit}")
    echo
    echo "## $rev ($sha): median of $RUNS run(s)"
    echo
    echo "| clients | what                                     | moves/s  | p50 ms | p95 ms | p99 ms | max ms  | DB CPU | app CPU | client CPU |"
    echo "|--------:|------------------------------------------|---------:|-------:|-------:|-------:|--------:|-------:|-------:|-------:|"
    cat "$OUT/$sha"-*.txt | awk -F'|' -v drives="$DRIVES" '
        /^\| *[0-9]+ \|/ {
            what = $3; gsub(/^ +| +$/, "", what)
            if (what ~ /client per (table|seat)/ || what ~ /the (table|seat) run/) {
                keep = 0; n = split(drives, d, " ")
                for (k = 1; k <= n; k++)
                    if (what ~ ("client per " d[k]) || what ~ ("the " d[k] " run")) keep = 1
                if (!keep) next
            }
            key = $2 "|" what
            if (!(key in seen)) { seen[key] = 1; order[++rows] = key }
            runs[key]++
            for (c = 4; c <= 11; c++) {
                vals[key, c, runs[key]] = $c + 0
                if ($c ~ /^ *- *$/) dash[key, c] = 1
            }
        }
        function median(key, c,   n, i, j, t, a) {
            n = runs[key]
            for (i = 1; i <= n; i++) a[i] = vals[key, c, i]
            for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
            return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
        }
        END {
            for (r = 1; r <= rows; r++) {
                key = order[r]; split(key, kw, "|")
                printf "| %7s | %-40s |", kw[1] + 0, kw[2]
                for (c = 4; c <= 11; c++)
                    if ((key, c) in dash) printf " %8s |", "-"
                    else printf " %8.2f |", median(key, c)
                printf "\n"
            }
        }'
    echo
    grep -h "clients, paiju-load\|statements (round trips) per move" "$OUT/$sha"-*.txt || true
done
echo
echo "every run's full output: $OUT"
