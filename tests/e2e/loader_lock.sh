# Allocation inside dl_iterate_phdr callbacks while other threads allocate
# (issue 9 item 7): stack capture must take no lock the program can hold,
# so no run may hang. 50 runs, each under a 10 s watchdog; each run's
# stdout and exit status must equal the native run's.
. "$(dirname "$0")/_lib.sh"
p=$SAMPLES/dl_iterate_alloc
RUNS=${LOADER_LOCK_RUNS:-50}
"$p" >"$WORK/native.out" 2>/dev/null; native_rc=$?
check "loader lock: native run exits 0" [ "$native_rc" = 0 ]
hung=0 differ=0 bad_rc=0
for i in $(seq 1 "$RUNS"); do
    (cd "$WORK" && timeout -s KILL 10 env LEAKPROF_OPTIONS="massif=0:log=$WORK/lp.$i.txt" \
        LD_PRELOAD="$LIB" "$p" >"$WORK/lp.out" 2>/dev/null); rc=$?
    if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
        hung=$((hung + 1)); continue
    fi
    [ "$rc" = "$native_rc" ] || bad_rc=$((bad_rc + 1))
    cmp -s "$WORK/native.out" "$WORK/lp.out" || differ=$((differ + 1))
    [ "$i" = 1 ] || rm -f "$WORK/lp.$i.txt"
done
check "loader lock: no hang in $RUNS runs (hung: $hung)" [ "$hung" = 0 ]
check "loader lock: exit status native in every run (differ: $bad_rc)" [ "$bad_rc" = 0 ]
check "loader lock: stdout native in every run (differ: $differ)" [ "$differ" = 0 ]
check "loader lock: report written" grep -q 'in use at exit: 0 bytes in 0 blocks' "$WORK/lp.1.txt"
if have_valgrind; then
    run_mc "$WORK/mc.txt" "--leak-check=full" "$p"
    memcheck_diff "loader lock: heap figures as memcheck's" summary_numbers "$WORK/lp.1.txt" "$WORK/mc.txt"
fi
