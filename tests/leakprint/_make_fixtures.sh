#!/bin/bash
# _make_fixtures.sh - regenerate tests/fixtures/massif/ from real programs.
# Needs valgrind 3.19 (massif, ms_print), gcc, g++, sqlite3, python3.
# Not a test case (leading '_'): run it by hand, review, commit the result.
#   tests/leakprint/_make_fixtures.sh
# The quirk-*.massif.out files are written by hand (ms_print lenient-reader
# corner cases: comments, indentation, several desc lines, no desc, odd
# snapshot numbers, several peaks, non-monotonic and huge values) and are
# kept, as are the hand-*.massif.out ones (strict files ms_print renders
# in its own way: node bytes with leading zeros); "--outputs-only" just
# re-renders the expected outputs.
# Each NAME.massif.out gets NAME.OPTSET.txt = ms_print's output for each
# option set in _optsets.sh, rendered from inside the fixtures directory.
set -e
cd "$(dirname "$0")/../.."
FIX=tests/fixtures/massif
SRC=tests/leakprint/src
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
. tests/leakprint/_optsets.sh

gcc -g -O0 -o "$TMP/nested" $SRC/nested.c
gcc -g -O0 -o "$TMP/churn" $SRC/churn.c
gcc -g -O0 -pthread -o "$TMP/threads" $SRC/threads.c
g++ -g -O1 -o "$TMP/containers" $SRC/containers.cpp

ms() { # ms NAME valgrind-options... -- program args...
    local name=$1; shift
    valgrind -q --tool=massif --massif-out-file="$TMP/$name.massif.out" "$@" >/dev/null 2>&1 </dev/null
    cp "$TMP/$name.massif.out" "$FIX/$name.massif.out"
}

if [ "${1:-}" != "--outputs-only" ]; then
ms nested-B       --time-unit=B "$TMP/nested" 4
ms nested-i       "$TMP/nested" 4
ms nested-ms      --time-unit=ms "$TMP/nested" 4
ms nested-stacks  --stacks=yes --time-unit=B "$TMP/nested" 2
ms nested-depth2  --depth=2 --time-unit=B "$TMP/nested" 3
ms nested-freq1   --detailed-freq=1 --threshold=0 --peak-inaccuracy=0 --time-unit=B "$TMP/nested" 1
ms nested-pages   --pages-as-heap=yes "$TMP/nested" 2
ms churn-culled10 --max-snapshots=10 --time-unit=B "$TMP/churn"
ms churn-freq3    --detailed-freq=3 --threshold=0.5 "$TMP/churn"
ms threads-B      --time-unit=B "$TMP/threads"
ms cpp-B          --time-unit=B "$TMP/containers"
ms cpp-depth5     --depth=5 --time-unit=ms "$TMP/containers"
printf 'create table t(a integer primary key, b blob);\nwith recursive c(x) as (select 1 union all select x+1 from c where x<3000) insert into t select x, randomblob(200) from c;\nselect count(*), sum(length(b)) from t;\n' > "$TMP/rows.sql"
ms sqlite3-insert --time-unit=B sqlite3 :memory: ".read $TMP/rows.sql"
ms sqlite3-i      sqlite3 :memory: ".read $TMP/rows.sql"
# The real interpreter, not a wrapper script (pyenv shims are shell scripts).
PY=$(realpath /usr/bin/python3 2>/dev/null || python3 -c 'import sys, os; print(os.path.realpath(sys.executable))')
ms python3        --time-unit=B "$PY" -c 'd = {i: str(i) * 10 for i in range(20000)}; print(len(d))'
# gcc: follow the driver into cc1 and keep cc1's profile.
printf 'int f(int x) { return x * 3; }\nint main(void) { return f(2) - 6; }\n' > "$TMP/hello.c"
valgrind -q --tool=massif --trace-children=yes --time-unit=B \
    --massif-out-file="$TMP/gcc.%p" gcc -O2 -c "$TMP/hello.c" -o "$TMP/hello.o" >/dev/null 2>&1
cc1=$(grep -l '^cmd: .*cc1 ' "$TMP"/gcc.* | head -1)
cp "$cc1" "$FIX/gcc-cc1.massif.out"
# The shared examples sit beside the repository, as everything else finds them.
EXAMPLES=../shared/examples
for e in prog1 prog2 prog4 cpp1 nofree prog1-stacks; do
    cp "$EXAMPLES/massif.out.$e" "$FIX/example-$e.massif.out" 2>/dev/null || true
done
fi

cd "$FIX"
for f in *.massif.out; do
    n=${f%.massif.out}
    for set in "${OPTSETS[@]}"; do
        name=${set%%:*}; opts=${set#*:}
        ms_print $opts "$f" > "$n.$name.txt"
    done
done
