#!/bin/bash
# make bench: one allocation-heavy workload, timed natively, under
# libleakprof.so (with and without massif snapshots), under heaptrack and
# under Valgrind Memcheck; medians of several runs and ratios to native.
set -u
O=${O:-build}
cd "$(dirname "$0")/../.." || exit 2
RUNS=${RUNS:-5}
OPS=${OPS:-400000}
bin=$O/bench/bench_malloc
mkdir -p "$O/bench"
cc -O2 -g -pthread -o "$bin" tests/bench/bench_malloc.c || exit 1
lib=$(pwd)/$O/libleakprof.so
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
timeit() { # name runs cmd...
    local name=$1 runs=$2; shift 2
    local i s e
    for ((i = 0; i < runs; i++)); do
        s=$(date +%s.%N)
        (cd "$tmp" && "$@" >/dev/null 2>&1)
        e=$(date +%s.%N)
        echo "$e - $s" | bc -l
    done | median
}
printf '%-28s %8s %10s %8s\n' "workload: $OPS ops/thread" threads seconds ratio
for th in 1 4; do
    native=$(timeit native "$RUNS" "$(pwd)/$bin" "$th" "$OPS")
    printf '%-28s %8s %10.3f %8s\n' native "$th" "$native" 1.00
    row() {
        local name=$1 runs=$2; shift 2
        local t; t=$(timeit "$name" "$runs" "$@")
        printf '%-28s %8s %10.3f %8.2f\n' "$name" "$th" "$t" "$(echo "$t / $native" | bc -l)"
    }
    row "leakprof (massif=0)" "$RUNS" env LD_PRELOAD="$lib" LEAKPROF_OPTIONS=massif=0 "$(pwd)/$bin" "$th" "$OPS"
    row "leakprof (default)" "$RUNS" env LD_PRELOAD="$lib" "$(pwd)/$bin" "$th" "$OPS"
    if command -v heaptrack >/dev/null; then
        row heaptrack 3 heaptrack -o "$tmp/ht" "$(pwd)/$bin" "$th" "$OPS"
    else
        printf '%-28s %8s %10s\n' heaptrack "$th" "(not installed)"
    fi
    if command -v valgrind >/dev/null; then
        row "valgrind memcheck" 1 valgrind --leak-check=full "$(pwd)/$bin" "$th" "$OPS"
        row "valgrind massif" 1 valgrind --tool=massif --massif-out-file=/dev/null "$(pwd)/$bin" "$th" "$OPS"
    else
        printf '%-28s %8s %10s\n' valgrind "$th" "(not installed)"
    fi
done
