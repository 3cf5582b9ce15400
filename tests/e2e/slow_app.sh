# slow_app: the seed lab. 5,000 blocks of 4,096 bytes definitely lost from
# leaky_function (slow_app.c:20) called by main (slow_app.c:50).
. "$(dirname "$0")/_lib.sh"
run_lp "$WORK/lp.txt" "" "$SAMPLES/slow_app"
golden "slow_app report" "$WORK/lp.txt" "$TOP/tests/e2e/slow_app.exp"
check "slow_app loss record" grep -q '20,480,000 bytes in 5,000 blocks are definitely lost in loss record 1 of 1' "$WORK/lp.txt"
check "slow_app frames" grep -qE 'by 0x[0-9A-F]+: leaky_function \(slow_app.c:20\)' "$WORK/lp.txt"
check "slow_app main frame" grep -qE 'by 0x[0-9A-F]+: main \(slow_app.c:50\)' "$WORK/lp.txt"
if have_valgrind; then
    run_mc "$WORK/mc.txt" "--leak-check=full" "$SAMPLES/slow_app"
    vs_memcheck "slow_app vs memcheck" "$WORK/lp.txt" "$WORK/mc.txt"
    same_as_memcheck "slow_app whole report as memcheck's" "$WORK/lp.txt" "$WORK/mc.txt"
fi
