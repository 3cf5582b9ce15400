#!/bin/bash
# make bench: real programs, timed natively and under libleakprof.so in
# each mode, beside heaptrack (and Valgrind with BENCH_VALGRIND=1), with
# the runs of one workload interleaved (native, mode 1, mode 2, ...,
# native, mode 1, ...) so a noisy shared machine slows all of them alike.
# Prints per workload and mode: median wall seconds (to the ms), ratio to native,
# ratio to heaptrack, median peak RSS (of the largest process), and the
# fastest run with its ratio to the fastest native run.
#
#   RUNS=5              runs per cell (median), default 3
#   OPS=N               malloc/free pairs per storm thread, default 10M
#                       (0.2 s natively: at 2M, 40 ms, the process's
#                       start and exit were a tenth of a sampled run)
#   BENCH_ONLY="storm1 sqlite"  only these workloads
#   BENCH_MODES="native default massif0"  only these modes
#   BENCH_VALGRIND=1    also Memcheck and Massif (one run; takes minutes)
#   BENCH_LIB=/path/libleakprof.so   measure another build
#   BENCH_BEFORE=/path/libleakprof.so  also modes "before", "before0" and
#                       "before_s" (that build, default, massif=0 and
#                       sampled), interleaved
#
# Workloads: storm1/storm2 (malloc/free storm, 1 and 2 threads), sqlite
# (sqlite3 CLI, 40,000 inserts + index), python (PYTHONMALLOC=malloc,
# json/re/sqlite3/ast), gcc (gcc -O1 -c hello.c, children traced), make
# (make -j2 of five small C files, children traced), live1m (1,000,000
# blocks live at exit), gcc_cold and make_cold (gcc and make, each run
# with an empty cache directory: a first run on a fresh machine). Modes: native, default, massif0 (massif=0),
# fp (unwind=fp), sampled (sample_bytes=524288), shim (tests/bench/shim.c:
# a preload library that only forwards malloc/free to glibc, the floor of
# any preloaded hook), heaptrack, lsan (GCC's LeakSanitizer runtime,
# liblsan.so.0, preloaded: frame-pointer stacks, its own allocator),
# memcheck, massif. A cell whose run did not end as the native run did
# (status) shows "fail" instead of a time: LSan is not made to be
# preloaded and crashes some programs. Benchmarks are never part of
# `make test`.
set -u
O=${O:-build}
cd "$(dirname "$0")/../.." || exit 2
TOP=$(pwd)
RUNS=${RUNS:-3}
OPS=${OPS:-10000000}
case $O in /*) out=$O ;; *) out=$TOP/$O ;; esac # O may be absolute
lib=${BENCH_LIB:-$out/libleakprof.so}
bindir=$out/bench
mkdir -p "$bindir"
cc -O2 -g -pthread -o "$bindir/bench_malloc" tests/bench/bench_malloc.c || exit 1
cc -O2 -g -o "$bindir/live_blocks" tests/bench/live_blocks.c || exit 1
cc -O2 -g -shared -fPIC -o "$bindir/shim.so" tests/bench/shim.c || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
PY3=/usr/bin/python3
[ -x $PY3 ] || PY3=python3

# ---- inputs -------------------------------------------------------------
$PY3 - >"$tmp/ins.sql" <<'PY'
print('CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, v REAL);')
print('BEGIN;')
for i in range(40000):
    print(f"INSERT INTO t(name, v) VALUES('name{i*7919%40000}', {i}.5);")
print('COMMIT;')
print('CREATE INDEX tn ON t(name);')
print('SELECT count(*), sum(v) FROM t;')
PY
cat >"$tmp/work.py" <<'PY'
import ast, json, re, sqlite3
import argparse, dataclasses, inspect, typing
src = [open(m.__file__).read() for m in (argparse, dataclasses, inspect, typing, json.decoder, re._parser)]
code = [compile(ast.parse(s), "x", "exec") for s in src]
data = [{"id": i, "name": "item%d" % i, "tags": ["a%d" % (i % 7)], "v": i * 1.5} for i in range(20000)]
s = json.dumps(data)
back = json.loads(s)
pat = re.compile(r"item(\d+)7\b")
hits = sum(1 for d in back if pat.match(d["name"]))
db = sqlite3.connect(":memory:")
db.execute("create table t(id integer primary key, name text, v real)")
db.executemany("insert into t values (?,?,?)", ((d["id"], d["name"], d["v"]) for d in back))
db.execute("create index ix on t(name)")
n = db.execute("select count(*) from t where name like 'item1%'").fetchone()[0]
print(len(s), hits, n, len(code))
PY
printf '#include <stdio.h>\nint main(void) { puts("hello"); return 0; }\n' >"$tmp/hello.c"
mkdir -p "$tmp/proj"
for i in 1 2 3 4 5; do
    cat >"$tmp/proj/f$i.c" <<EOF
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
struct item$i { int k; char name[32]; struct item$i *next; };
struct item$i *make$i(int n)
{
    struct item$i *h = NULL;
    for (int j = 0; j < n; j++) {
        struct item$i *it = calloc(1, sizeof(*it));
        it->k = j * $i;
        snprintf(it->name, sizeof(it->name), "item%d", j);
        it->next = h;
        h = it;
    }
    return h;
}
EOF
done
printf 'int main(void) { return 0; }\n' >"$tmp/proj/main.c"
cat >"$tmp/proj/Makefile" <<'EOF'
OBJS = f1.o f2.o f3.o f4.o f5.o main.o
prog: $(OBJS)
	cc -o $@ $(OBJS)
%.o: %.c
	cc -O1 -c -o $@ $<
clean:
	rm -f prog $(OBJS)
EOF

# ---- workloads and modes --------------------------------------------------
# cmd_of WORKLOAD: the command line in CMD (run in $tmp, stdin from IN).
cmd_of() {
    IN=/dev/null WENV=()
    case $1 in
    storm1) CMD=("$bindir/bench_malloc" 1 "$OPS") ;;
    storm2) CMD=("$bindir/bench_malloc" 2 "$OPS") ;;
    sqlite) CMD=(sqlite3 :memory:); IN=$tmp/ins.sql ;;
    python) CMD=("$PY3" "$tmp/work.py"); WENV=(PYTHONMALLOC=malloc) ;;
    gcc | gcc_cold) CMD=(gcc -O1 -c -o "$tmp/hello.o" "$tmp/hello.c") ;;
    make | make_cold) CMD=(make -s -j2 -C "$tmp/proj") ;;
    live1m) CMD=("$bindir/live_blocks" 1000000) ;;
    esac
}
available() { # workload
    case $1 in
    sqlite) command -v sqlite3 >/dev/null ;;
    gcc | make | gcc_cold | make_cold)
        command -v gcc >/dev/null && command -v make >/dev/null ;;
    *) true ;;
    esac
}
# run_mode MODE WORKLOAD: prints "seconds maxrss_kb status cpu_seconds"
# (cpu: user + system of the workload and every process it waited for,
# in 10 ms steps). Every process the
# workload starts is profiled (trace_children=yes: gcc and make exec
# their tools; elsewhere it only lets env exec the program).
run_mode() {
    local mode=$1 w=$2 opts="log=$tmp/lp.%p.txt:trace_children=yes" pre=()
    case $mode in
    native) pre=() ;;
    default) pre=(env LD_PRELOAD="$lib" LEAKPROF_OPTIONS="$opts") ;;
    massif0) pre=(env LD_PRELOAD="$lib" LEAKPROF_OPTIONS="$opts:massif=0") ;;
    fp) pre=(env LD_PRELOAD="$lib" LEAKPROF_OPTIONS="$opts:unwind=fp") ;;
    sampled) pre=(env LD_PRELOAD="$lib" LEAKPROF_OPTIONS="$opts:sample_bytes=524288") ;;
    shim) pre=(env LD_PRELOAD="$bindir/shim.so") ;;
    before) pre=(env LD_PRELOAD="$BENCH_BEFORE" LEAKPROF_OPTIONS="$opts") ;;
    before0) pre=(env LD_PRELOAD="$BENCH_BEFORE" LEAKPROF_OPTIONS="$opts:massif=0") ;;
    before_s) pre=(env LD_PRELOAD="$BENCH_BEFORE" LEAKPROF_OPTIONS="$opts:sample_bytes=524288") ;;
    heaptrack) pre=(heaptrack -o "$tmp/ht") ;;
    lsan) pre=(env LD_PRELOAD="$LSAN_LIB" LSAN_OPTIONS=exitcode=0:log_path="$tmp/lsan") ;;
    memcheck) pre=(valgrind --leak-check=full --log-file="$tmp/mc.txt" --trace-children=yes) ;;
    massif) pre=(valgrind --tool=massif --massif-out-file="$tmp/ms.%p" --trace-children=yes) ;;
    esac
    cmd_of "$w"
    # The workload's environment goes in front of the tool, not between
    # the tool and the program: heaptrack (and a `env VAR=x prog` under
    # it) would otherwise profile env, which execs the program unseen.
    [ ${#WENV[@]} -gt 0 ] && pre=(env "${WENV[@]}" "${pre[@]}")
    case $w in make | make_cold) make -s -C "$tmp/proj" clean >/dev/null 2>&1 ;; esac
    # *_cold: every run with an empty cache directory, as a first run on
    # a fresh machine (CI) meets it; the others keep theirs (warm).
    local cache=""
    case $w in *_cold)
        cache=$(mktemp -d "$tmp/cache.XXXXXX")
        pre=(env XDG_CACHE_HOME="$cache" "${pre[@]}") ;;
    esac
    # Wall time from bash's microsecond clock (time's %e has 10 ms steps:
    # the storm runs 20 ms natively); peak RSS from time's %M.
    local t0 t1 rc
    t0=$EPOCHREALTIME
    (cd "$tmp" && /usr/bin/time -f '%M %U %S' -o "$tmp/time" "${pre[@]}" "${CMD[@]}" <"$IN" >/dev/null 2>&1)
    rc=$?
    t1=$EPOCHREALTIME
    # time's last line is the RSS and CPU (a killed program leaves a
    # status line before it); the status goes third: the caller compares it.
    echo "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }') $(tail -1 "$tmp/time" | awk '{ printf "%s %s %.2f", $1, r, $2 + $3 }' r="$rc")"
    rm -f "$tmp"/lp.*.txt "$tmp"/massif.out.* "$tmp"/ht* "$tmp"/ms.* "$tmp"/mc.txt "$tmp"/lsan*
    [ -n "$cache" ] && rm -rf "$cache"
}
# The median of the runs that ended as natively; "fail" if any did not.
# The fastest run ("fail" as median): on a shared machine interference
# only ever adds time, so the minimum is the steadier estimate of a
# program's own cost; both are printed.
fastest() { awk '$1 == "fail" {f = 1} $1 != "fail" {print}
    END {if (f) print "fail"}' | sort -n | awk 'NR == 1 {print} END {if (!NR) print "nan"}'; }
median() { awk '$1 == "fail" {f = 1} $1 != "fail" {print}
    END {if (f) print "fail"}' | sort -n | awk '{a[NR]=$1} END {
    if (NR && a[NR] == "fail") print "fail"; else if (NR) print a[int((NR+1)/2)]; else print "nan"}'; }

workloads=${BENCH_ONLY:-storm1 storm2 sqlite python gcc make live1m gcc_cold make_cold}
modes=${BENCH_MODES:-native default massif0 fp sampled shim heaptrack lsan}
command -v heaptrack >/dev/null || modes=$(echo "$modes" | sed 's/heaptrack//')
LSAN_LIB=${LSAN_LIB:-$(ls /usr/lib/*-linux-gnu/liblsan.so.0 2>/dev/null | head -1)}
[ -n "$LSAN_LIB" ] || modes=$(echo "$modes" | sed 's/lsan//')
if [ -n "${BENCH_BEFORE:-}" ]; then # once, even if BENCH_MODES names them
    case " $modes " in *" before"*) ;; *) modes="$modes before before0 before_s" ;; esac
fi
if [ "${BENCH_VALGRIND:-0}" = 1 ] && command -v valgrind >/dev/null; then
    modes="$modes memcheck massif"
fi
[ -x /usr/bin/time ] || { echo "bench: needs /usr/bin/time (apt-get install time)"; exit 1; }

printf '%-8s %-10s %9s %8s %9s %9s %9s %8s %7s %6s\n' workload mode seconds x-native x-heaptr peak-MB fastest x-native cpu-s x-cpu
for w in $workloads; do
    available "$w" || { printf '%-8s (not available)\n' "$w"; continue; }
    declare -A T=() M=() C=()
    for ((r = 0; r < RUNS; r++)); do
        for m in $modes; do
            case $m in memcheck | massif) [ $r -gt 0 ] && continue ;; esac
            read -r s kb rc cpu < <(run_mode "$m" "$w")
            # Not as the native run ended (LSan crashes some programs):
            # no time for this cell.
            [ "$m" = native ] && nrc=$rc
            [ "$rc" != "${nrc:-0}" ] && s=fail && cpu=fail
            T[$m]+="$s "
            C[$m]+="$cpu "
            M[$m]+="$kb "
        done
    done
    nat=$(echo "${T[native]:-}" | tr ' ' '\n' | grep . | median)
    natf=$(echo "${T[native]:-}" | tr ' ' '\n' | grep . | fastest)
    ht=$(echo "${T[heaptrack]:-}" | tr ' ' '\n' | grep . | median)
    natc=$(echo "${C[native]:-}" | tr ' ' '\n' | grep . | median)
    for m in $modes; do
        t=$(echo "${T[$m]:-}" | tr ' ' '\n' | grep . | median)
        tf=$(echo "${T[$m]:-}" | tr ' ' '\n' | grep . | fastest)
        xf=$(awk -v a="$tf" -v b="$natf" 'BEGIN { if (b > 0 && a != "fail") printf "%.2f", a / b; else print "-" }')
        kb=$(echo "${M[$m]:-}" | tr ' ' '\n' | grep . | median)
        xn=$(awk -v a="$t" -v b="$nat" 'BEGIN { if (b > 0 && a != "fail") printf "%.2f", a / b; else print "-" }')
        xh=$(awk -v a="$t" -v b="$ht" 'BEGIN { if (b > 0 && b != "nan" && a != "fail") printf "%.2f", a / b; else print "-" }')
        c=$(echo "${C[$m]:-}" | tr ' ' '\n' | grep . | median)
        xc=$(awk -v a="$c" -v b="$natc" 'BEGIN { if (b > 0 && a != "fail") printf "%.2f", a / b; else print "-" }')
        printf '%-8s %-10s %9s %8s %9s %9.1f %9s %8s %7s %6s\n' "$w" "$m" "$t" "$xn" "$xh" "$(awk -v k="$kb" 'BEGIN { print k / 1024 }')" "$tf" "$xf" "$c" "$xc"
    done
    if [ "$w" = live1m ]; then
        # The issue's memory bound: our bytes per live block at the peak
        # (peak RSS over native's, over the 1,000,000 blocks live at the
        # peak of the run; 750,000 of them are still live at exit).
        nkb=$(echo "${M[native]:-}" | tr ' ' '\n' | grep . | median)
        for m in $modes; do
            case $m in native | heaptrack | lsan | memcheck | massif) continue ;; esac
            kb=$(echo "${M[$m]:-}" | tr ' ' '\n' | grep . | median)
            awk -v k="$kb" -v n="$nkb" -v m="$m" 'BEGIN { if (n > 0)
                printf "live1m   %-10s (peak RSS - native) / 1,000,000 blocks: %.0f B\n", m, (k - n) * 1024 / 1000000 }'
        done
    fi
    unset T M C
done
echo "(medians of $RUNS interleaved runs, and the fastest of them; cpu-s: median user+system seconds, every process of the run, and its ratio to native's - steadier than wall time on a shared VM, but it counts make's and heaptrack's second process too; heaptrack traces only the first process of gcc/make)"
