# The exit's leak check consumes the live-block table (issue 8's memory
# bound): whatever the program still allocates and frees afterwards must
# pass straight through. samples/frees_after_report.c frees, reallocs and
# allocates from two threads that churn through the check and after it,
# and from the C library's final flush on the main thread, after the
# report. Every run: stdout and status as native, a complete report with
# the one planted leak, and no heap error (a free meeting the emptied
# table is no invalid free). Then the same with heap-error stacks kept at
# free, massif on, and a live report taken while the threads churn.
. "$(dirname "$0")/_lib.sh"
P=$SAMPLES/frees_after_report
"$P" >"$WORK/native" 2>/dev/null; nrc=$?
check "native run prints both lines" [ $nrc = 0 -a "$(wc -l <"$WORK/native")" = 2 ]

runs=0 same=0 complete=0 clean=0
for opts in "" "" "" "" "" "" "" "" "keep_stacktraces=alloc-and-free" "massif=massif.out.%p"; do
    for i in 1 2; do
        rm -f "$WORK"/r.*
        (cd "$WORK" && timeout 60 env LEAKPROF_OPTIONS="massif=0:log=$WORK/r.txt${opts:+:$opts}" \
            LD_PRELOAD="$LIB" "$P" >"$WORK/out" 2>"$WORK/err"); rc=$?
        runs=$((runs + 1))
        if [ $rc = $nrc ] && cmp -s "$WORK/out" "$WORK/native"; then
            same=$((same + 1))
        else
            echo "run $runs ($opts): status $rc"; diff "$WORK/native" "$WORK/out" | head -5
        fi
        if grep -q 'definitely lost: 24 bytes in 1 blocks' "$WORK/r.txt" &&
            grep -q 'by 0x[0-9A-F]*: leak_once (frees_after_report.c' "$WORK/r.txt" &&
            grep -q 'ERROR SUMMARY: 2 errors' "$WORK/r.txt"; then
            complete=$((complete + 1))
        else
            echo "run $runs ($opts): report"; tail -5 "$WORK/r.txt"
        fi
        if ! grep -q -E 'Invalid|Mismatched|are not tracked|incomplete' "$WORK/r.txt" "$WORK/err"; then
            clean=$((clean + 1))
        else
            echo "run $runs ($opts): errors"; grep -E 'Invalid|Mismatched|incomplete' "$WORK/r.txt" "$WORK/err" | head -3
        fi
    done
done
check "frees after the final check: stdout and status as native ($same of $runs)" [ $same = $runs ]
check "frees after the final check: report complete, one leak ($complete of $runs)" [ $complete = $runs ]
check "frees after the final check: no heap error reported ($clean of $runs)" [ $clean = $runs ]

# A live report (SIGUSR1) keeps the table, and may still be running when
# the exit's check starts (or start after it: then it must not run on the
# emptied table). Five runs: as native, the exit's report finds the leak,
# a live report that did run found it too.
ok=0 found=0
for i in 1 2 3 4 5; do
    rm -f "$WORK"/l.*
    (cd "$WORK" && timeout 60 env LEAKPROF_OPTIONS="massif=0:log=$WORK/l.txt" LD_PRELOAD="$LIB" \
        "$P" live >"$WORK/lout" 2>/dev/null); rc=$?
    [ $rc = $nrc ] && cmp -s "$WORK/lout" "$WORK/native" && ok=$((ok + 1))
    n=$(grep -c 'LEAK SUMMARY' "$WORK/l.txt")
    d=$(grep -c -E "definitely lost: 24 (\(\+24\) )?bytes in 1 " "$WORK/l.txt")
    [ "$d" = "$n" ] && [ "$n" -ge 1 ] && found=$((found + 1))
done
check "live report then exit: stdout and status as native ($ok of 5)" [ $ok = 5 ]
check "live report then exit: every report finds the leak ($found of 5)" [ $found = 5 ]
