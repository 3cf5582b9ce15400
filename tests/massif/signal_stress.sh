#!/bin/bash
# 1,000 SIGUSR1 while four threads allocate: no deadlock, no crash, every
# file written is readable, and the service still exits normally.
. "$(dirname "$0")/_lib.sh"
SVC=$O/samples/service
[ -x "$SVC" ] || { echo "SKIP: no $SVC"; exit 77; }
cd "$T" || exit 1

LD_PRELOAD=$LIB "$SVC" 120 4 > out 2> err & pid=$!
for i in $(seq 100); do grep -q ready out 2>/dev/null && break; sleep 0.1; done
check "service ready" 'grep -q "ready $pid" out'
sent=0
for i in $(seq 1000); do kill -USR1 $pid 2>/dev/null && sent=$((sent + 1)); done
check "1,000 signals delivered" '[ $sent = 1000 ]' "sent=$sent"
sleep 1
check "service alive after the storm" 'kill -0 $pid'
# Let the dumper drain; then the service must still respond to SIGTERM.
for i in $(seq 300); do
    n1=$(ls massif.out.$pid.* 2>/dev/null | grep -vc tmp); sleep 0.2
    n2=$(ls massif.out.$pid.* 2>/dev/null | grep -vc tmp); [ "$n1" = "$n2" ] && break
done
kill -TERM $pid
for i in $(seq 600); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
if kill -0 $pid 2>/dev/null; then
    fail "service exits on SIGTERM" "still running: deadlock?"
    kill -KILL $pid
else
    wait $pid; rc=$?
    check "service exits 0 on SIGTERM" '[ $rc = 0 ]' "rc=$rc"
fi
n=$(ls massif.out.$pid.* 2>/dev/null | grep -v tmp | wc -l)
check "dumps written ($n)" '[ $n -ge 1 ]'
bad=0
for f in massif.out.$pid.*; do strict_ok $f >/dev/null && ms_print_ok $f || { bad=$((bad+1)); echo "bad: $f"; }; done
check "every dump passes strict + ms_print" '[ $bad = 0 ]'
check "exit-time file" 'strict_ok massif.out.$pid && ms_print_ok massif.out.$pid'
check "no crash report" '! grep -qiE "segmentation|aborted|assertion" err'
finish
