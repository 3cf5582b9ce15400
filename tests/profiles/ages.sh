#!/bin/bash
# Leaks by age. Each live block remembers when it was allocated, in
# massif's byte time: the JSON report gives every loss record its oldest
# and newest block's time (slow_app's 5,000 leaked blocks of 4,096 bytes
# are 4,999 x (4,104 usable + 8) = 20,555,888 B apart: nothing is freed
# between them). With live_since=last a snapshot signal's live report
# lists only the blocks allocated since the previous signal's report and
# still live: spike_service signalled, grown once (200 blocks at
# grow_cache), signalled again, shows grow_cache alone the second time.
. "$(dirname "$0")/_lib.sh"
SVC=$SAMPLES/spike_service

same_as_native "slow_app, JSON report" "log_format=json:massif=m.out" "$SAMPLES/slow_app"
rec=$(tr -d '\n' < lp.log | grep -o '"bytes": 20480000[^]]*leaky_function' | head -1)
old=$(printf '%s' "$rec" | sed -nE 's/.*"oldest_block_time": ([0-9]+).*/\1/p')
new=$(printf '%s' "$rec" | sed -nE 's/.*"newest_block_time": ([0-9]+).*/\1/p')
check "JSON: leaky_function's record has its blocks' ages" '[ -n "$old" ] && [ -n "$new" ] && [ "$old" -gt 0 ]' "rec=${rec:0:300}"
check "JSON: newest - oldest = 4999 x 4112 = 20555888 B" '[ $((new - old)) = 20555888 ]' "old=$old new=$new"

wait_for() { local i; for i in $(seq 100); do eval "$1" && return 0; sleep 0.1; done; return 1; }
# drive MODE OPTIONS: ready, signal, grow, signal, end of input.
drive() {
    local mode=$1 pid
    rm -f in; mkfifo in
    if [ "$mode" = lib ]; then
        LEAKPROF_OPTIONS="$2" LD_PRELOAD=$LIB "$SVC" < in > out.$mode 2> err.$mode & pid=$!
    else
        (trap '' USR1; exec "$SVC") < in > out.$mode 2> err.$mode & pid=$!
    fi
    exec 3> in
    wait_for "grep -q '^ready\$' out.$mode"
    kill -USR1 $pid
    [ "$mode" = lib ] && wait_for "grep -Eq '$DONE' live.log"
    echo grow >&3
    wait_for "grep -q '^grown 1\$' out.$mode"
    kill -USR1 $pid
    [ "$mode" = lib ] && wait_for "[ \$(grep -Ec '$DONE' live.log) -ge 2 ]"
    exec 3>&-
    wait $pid; eval "rc_$mode=$?"
}
DONE='LEAK SUMMARY'
drive native
drive lib "massif=m.%p:log=live.log:live_since=last:show_leak_kinds=all"
check "service: stdout and status as native" 'cmp -s out.native out.lib && [ "$rc_native" = "$rc_lib" ]' "rc native=$rc_native lib=$rc_lib"
# Split the log into the two live reports (each starts with its header).
awk '/Live leak check 1 /{n=1} /Live leak check 2 /{n=2} /HEAP SUMMARY/{n=0} n{print > ("r" n)}' live.log
check "report 1 lists what was live (open_sessions' 4,096 bytes)" 'grep -q "open_sessions" r1' "$(cat r1 | head -20)"
check "report 1 has no grow_cache yet" '! grep -q grow_cache r1'
check "report 2 says it lists only blocks allocated since report 1" \
    'grep -q "Only blocks allocated since live leak check 1 (time [1-9][0-9,]* B) and still live" r2' "$(head -3 r2)"
check "report 2: grow_cache's 200 blocks, 200,000 bytes, with their stack" \
    'grep -q "200,000 bytes in 200 blocks are still reachable in loss record 1 of 1" r2 && grep -Eq "by 0x[0-9A-F]+: grow_cache \(spike_service.c:[0-9]+\)" r2 && grep -Eq "by 0x[0-9A-F]+: main \(spike_service.c:[0-9]+\)" r2' "$(cat r2)"
check "report 2: nothing allocated before report 1 (open_sessions)" '! grep -q open_sessions r2' "$(cat r2)"
check "report 2's LEAK SUMMARY counts the new blocks only" \
    'grep -q "still reachable: 200,000 bytes in 200 blocks" r2' "$(grep -A6 'LEAK SUMMARY' r2)"

# JSON of the same: the second live report says after which time.
DONE='"loss_records"'
drive lib "massif=0:log=live.log:log_format=json:live_since=last:show_leak_kinds=all"
check "JSON live report 2 carries allocated_after_time (0: massif=0)" \
    '[ "$(grep -c "\"allocated_after_time\": 0," live.log)" = 1 ]' "$(head -c 600 live.log)"
check "JSON live report 2: grow_cache only" \
    '[ "$(grep -c "\"blocks\": 200," live.log)" = 1 ] && [ "$(grep -c "\"function\": \"open_sessions\"" live.log)" = 1 ]' "$(grep -c open_sessions live.log)"
