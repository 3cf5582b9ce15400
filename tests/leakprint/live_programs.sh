#!/bin/bash
# live_programs.sh - profile real programs under Valgrind massif now, then
# compare leakprint with ms_print byte for byte on each fresh file, under
# the default options and --threshold=0.2 --x=100 --y=30. Programs: the
# repo's samples (if built), sqlite3 inserting rows, python3, sort, and a
# few massif option variants. Skipped without valgrind and ms_print.
. "$(dirname "$0")/_lib.sh"
command -v valgrind > /dev/null && [ -x /usr/bin/ms_print ] ||
    { echo "SKIP: live-programs (no valgrind/ms_print)"; exit 0; }
S=$LP_TOP/$O/samples
case $O in /*) S=$O/samples ;; esac
cd "$TMPD" || exit 1
run() { # run NAME massif-options... -- program args...
    local name=$1 opts=() f
    shift
    while [ "$1" != -- ]; do opts+=("$1"); shift; done
    shift
    f=$name.massif.out
    if ! timeout 300 valgrind -q --tool=massif "${opts[@]}" --massif-out-file="$f" "$@" > /dev/null 2>&1 < /dev/null ||
        [ ! -s "$f" ]; then
        [ -s "$f" ] || { echo "SKIP: live/$name (program did not run)"; return; }
    fi
    for set in "" "--threshold=0.2 --x=100 --y=30"; do
        # shellcheck disable=SC2086
        /usr/bin/ms_print $set "$f" > want 2>/dev/null
        # shellcheck disable=SC2086
        "$LP" $set "$f" > got 2>/dev/null
        if cmp -s want got; then echo "PASS: live/$name ${set:-default}"
        else echo "FAIL: live/$name ${set:-default}"; diff want got | head -5; fi
    done
}
for p in "$S"/*; do
    [ -x "$p" ] && [ -f "$p" ] || continue
    case $p in *.so) continue ;; esac
    b=$(basename "$p")
    case $b in service|fork_child) continue ;; esac  # long-running / forking
    # --max-threads: reach_many_threads starts 1,500 (Valgrind: 500)
    run "sample-$b" --time-unit=B --max-threads=1600 -- "$p"
done
printf 'create table t(a, b);\nwith recursive c(x) as (select 1 union all select x+1 from c where x<1500) insert into t select x, hex(randomblob(64)) from c;\ncreate index ti on t(b);\n' > rows.sql
command -v sqlite3 > /dev/null && run sqlite3-rows --time-unit=B -- sqlite3 :memory: ".read rows.sql"
command -v sqlite3 > /dev/null && run sqlite3-rows-depth3-ms --depth=3 --time-unit=ms -- sqlite3 :memory: ".read rows.sql"
PY=$(realpath /usr/bin/python3 2> /dev/null)
[ -x "$PY" ] && run python3-list --threshold=0.5 -- "$PY" -c 'x = [str(i) * 3 for i in range(30000)]; print(len(x))'
seq 1 20000 | sort -R > nums.txt 2>/dev/null
run sort --stacks=yes --time-unit=B -- sort -n nums.txt
run sort-culled --max-snapshots=12 --detailed-freq=2 -- sort -n nums.txt

# Files written by our own libleakprof.so, if it is built.
SO=$LP_TOP/$O/libleakprof.so
case $O in /*) SO=$O/libleakprof.so ;; esac
compare() { # compare NAME FILE
    for set in "" "--threshold=0.2 --x=100 --y=30"; do
        # shellcheck disable=SC2086
        /usr/bin/ms_print $set "$2" > want 2>/dev/null
        # shellcheck disable=SC2086
        "$LP" $set "$2" > got 2>/dev/null
        if [ -s want ] && cmp -s want got; then echo "PASS: live/$1 ${set:-default}"
        else echo "FAIL: live/$1 ${set:-default}"; fi
    done
}
if [ -f "$SO" ]; then
    for prog in "$S/slow_app" "sqlite3 :memory: .read\ rows.sql"; do
        name=leakprof-$(basename "${prog%% *}")
        rm -f lp.out.*
        # shellcheck disable=SC2086
        LEAKPROF_OPTIONS="massif=$TMPD/lp.out.%p:leak_check=no" LD_PRELOAD=$SO \
            timeout 120 bash -c "exec $prog" > /dev/null 2>&1 < /dev/null
        f=$(ls lp.out.* 2> /dev/null | head -1)
        if [ -z "$f" ]; then echo "SKIP: live/$name (no massif file written)"; continue; fi
        compare "$name" "$f"
    done
fi
