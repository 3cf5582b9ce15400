#!/bin/bash
# gen_valgrind.sh - a --gen-suppressions block written by lp_supp_gen is
# (1) the block Valgrind itself generates for the same leak, (2) accepted
# by Valgrind and silences exactly that record, and (3) our -s line for
# its use is Valgrind's line.
. "$(dirname "$0")/_lib.sh"
command -v valgrind >/dev/null 2>&1 || { echo "SKIP: valgrind not installed"; exit 77; }
cigate_tmp; [ -n "$KEEP" ] && trap - EXIT && echo "tmp: $T"
build_prog
cd "$T" || exit 1

./report_prog gen gen.supp >ours_used.txt 2>gen.err
if [ $? -eq 0 ]; then echo "PASS: gen block reloads and matches only its record"
else echo "FAIL: gen block reloads and matches only its record"; cat gen.err; fi

# (1) Valgrind's own block for the 100-byte leak.
valgrind --leak-check=full --gen-suppressions=all ./report_prog leak >vg_gen.log 2>&1
awk '/100 bytes in 1 blocks are definitely lost/ {f=1; next}
     f && /^\{/ {p=1} p {print} p && /^\}/ {exit}' vg_gen.log >vg_block.supp
if [ -s vg_block.supp ] && diff -u vg_block.supp gen.supp; then
    echo "PASS: gen block identical to Valgrind's"
else
    echo "FAIL: gen block identical to Valgrind's"; cat gen.supp
fi

# Baseline, so that the check below can fail: both leaks are reported.
valgrind --leak-check=full ./report_prog leak >vg_base.log 2>&1
if grep -q 'definitely lost: 150 bytes in 2 blocks' vg_base.log; then
    echo "PASS: baseline reports both leaks"
else
    echo "FAIL: baseline reports both leaks"; grep -A6 'LEAK SUMMARY' vg_base.log
fi

# (2) Valgrind accepts our file and suppresses exactly that record.
valgrind --leak-check=full -s --suppressions=gen.supp ./report_prog leak >vg_supp.log 2>&1
if grep -q 'FATAL' vg_supp.log; then
    echo "FAIL: valgrind accepts the generated file"; grep -A2 FATAL vg_supp.log
elif grep -q 'definitely lost: 50 bytes in 1 blocks' vg_supp.log &&
     grep -q 'suppressed: 100 bytes in 1 blocks' vg_supp.log &&
     grep -q 'by 0x[0-9A-F]*: leak_other' vg_supp.log &&
     ! grep -q 'by 0x[0-9A-F]*: leak_fn' vg_supp.log; then
    echo "PASS: valgrind silences exactly the generated record"
else
    echo "FAIL: valgrind silences exactly the generated record"; grep -A6 'LEAK SUMMARY' vg_supp.log
fi

# (3) The used_suppression line, pid and all, byte for byte.
pid=$(sed -n 's/^--\([0-9]*\)-- used_suppression:.*/\1/p' vg_supp.log | head -1)
grep '^--[0-9]*-- used_suppression:' vg_supp.log >vg_used.txt
sed "s/^--4242--/--$pid--/" ours_used.txt >ours_used_pid.txt
if [ -n "$pid" ] && diff -u vg_used.txt ours_used_pid.txt; then
    echo "PASS: used_suppression line identical to Valgrind's"
else
    echo "FAIL: used_suppression line identical to Valgrind's"
fi
