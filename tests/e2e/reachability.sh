# Our own reachability suite: what leak checkers' test suites probe, each
# a small program in samples/reach_*.c run three ways - natively, under
# libleakprof.so (massif=0, show_leak_kinds=all) and under Memcheck
# (--leak-check=full --show-leak-kinds=all). Each case checks that the
# program's stdout and exit status under the library are byte-identical
# to its native run, and compares our report with Memcheck's: the whole
# report from HEAP SUMMARY on where both are deterministic ("whole"), or
# the LEAK SUMMARY and total heap usage ("summary"), or less where
# Memcheck itself varies from run to run (said at the case).
. "$(dirname "$0")/_lib.sh"

# The options every case runs with; depth=12 is Memcheck's --num-callers.
LP_OPTS="show_leak_kinds=all:depth=12"
MC_OPTS="--leak-check=full --show-leak-kinds=all"

# run_case NAME : native, ours and Memcheck's runs of samples/NAME, with
# stdout and status compared. Leaves $WORK/NAME.lp and $WORK/NAME.mc.
run_case() {
    local name=$1 bin=$SAMPLES/$1 nrc lrc
    (cd "$WORK" && timeout 60 "$bin" >"$WORK/$name.native" 2>/dev/null); nrc=$?
    (cd "$WORK" && timeout 60 env LEAKPROF_OPTIONS="massif=0:log=$WORK/$name.lp:$LP_OPTS" \
        LD_PRELOAD="$LIB" "$bin" >"$WORK/$name.out" 2>"$WORK/$name.err"); lrc=$?
    check "$name: stdout as native" cmp -s "$WORK/$name.native" "$WORK/$name.out"
    check "$name: exit status as native ($nrc)" [ "$lrc" = "$nrc" ]
    check "$name: our report" grep -q 'LEAK SUMMARY' "$WORK/$name.lp"
    if have_valgrind; then
        (cd "$WORK" && timeout 300 valgrind --log-file="$WORK/$name.mc" $MC_OPTS "$bin" >/dev/null 2>&1)
        check "$name: memcheck's report" grep -q 'LEAK SUMMARY' "$WORK/$name.mc"
    fi
}

# reach NAME whole|summary
reach() {
    run_case "$1"
    case $2 in
    whole) same_as_memcheck "$1: whole report as memcheck's" "$WORK/$1.lp" "$WORK/$1.mc" ;;
    summary) vs_memcheck "$1: summary as memcheck's" "$WORK/$1.lp" "$WORK/$1.mc" ;;
    esac
}

reach reach_globals whole
reach reach_stack whole
reach reach_dead_frame whole
reach reach_self whole
reach reach_cycles whole
reach reach_unaligned whole
