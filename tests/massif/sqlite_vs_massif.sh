#!/bin/bash
# Debian's sqlite3 CLI, 40,000 inserts and two index builds, profiled by
# Valgrind's massif (--time-unit=B) and by us: peak mem_heap_B within 2%,
# and the peak trees name the same top allocation sites in the same order
# (depth 1-3, addresses compared by page offset since load bases differ).
. "$(dirname "$0")/_lib.sh"
command -v sqlite3 >/dev/null || { echo "SKIP: no sqlite3"; exit 77; }
command -v valgrind >/dev/null || { echo "SKIP: no valgrind"; exit 77; }
cd "$T" || exit 1
python3 - > script.sql <<'PY'
import random
random.seed(1)
print('CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, val REAL, note TEXT);')
print('BEGIN;')
for i in range(40000):
    print("INSERT INTO t(name,val,note) VALUES('name%d',%f,'%s');" % (
        random.randint(0, 10**6), random.random(), 'x' * random.randint(5, 60)))
print('COMMIT;')
print('CREATE INDEX t_name ON t(name);')
print('CREATE INDEX t_val ON t(val, note);')
print('SELECT count(*), sum(val) FROM t;')
PY
SQ=$(command -v sqlite3)
valgrind -q --tool=massif --time-unit=B --massif-out-file=vg.out "$SQ" :memory: < script.sql > vg.txt 2>&1
LEAKPROF_OPTIONS=massif=lp.out LD_PRELOAD=$LIB "$SQ" :memory: < script.sql > lp.txt 2>lp.err
check "same query result" 'cmp -s vg.txt lp.txt' "$(cat vg.txt lp.txt)"
check "our file strict + ms_print" 'strict_ok lp.out && ms_print_ok lp.out graph'
peak() { sed -n '/^mem_heap_B=/h; /^heap_tree=peak/{x;s/mem_heap_B=//p}' "$1"; }
pv=$(peak vg.out); pl=$(peak lp.out)
echo "peak mem_heap_B: massif $pv, leakprof $pl"
check "peak within 2% of massif's" 'python3 -c "import sys; a,b=$pv,$pl; sys.exit(abs(a-b)>0.02*a)"' "$pv vs $pl"
sites() { # the peak tree's nodes down to depth 3, bytes dropped, page offsets
    sed -n '/^heap_tree=peak/,/^#/p' "$1" | grep -E '^ {1,3}n' |
        sed -E 's/^( *)n[0-9]+: [0-9]+ 0x[0-9A-F]*([0-9A-F]{3}):/\1\2:/; s/^( *)n[0-9]+: [0-9]+ /\1/'
}
sites vg.out > vg.sites; sites lp.out > lp.sites
head -12 lp.sites
check "same top allocation sites, same order" 'diff vg.sites lp.sites >/dev/null' "$(diff vg.sites lp.sites | head)"
finish
