#!/bin/bash
# signal_diff.sh - a service whose start-up spike (10 MB, freed) is its
# heap peak grows by 200,000 bytes at grow_cache between two snapshot
# signals: `leakprint --diff F.1 F.2` must show that growth (it compares
# the moment of each signal, the last snapshot of each .N file), say which
# snapshots it used, and with --snapshot=peak show what the old default
# showed (the spike in both files: no growth). Each signal also prints a
# live leak report whose header names the signal and the .N file. The
# service's stdout and exit status match its native run (SIGUSR1 ignored
# there, as the library takes it under LD_PRELOAD).
. "$(dirname "$0")/_lib.sh"
SVC=$O/samples/spike_service
LPR=$O/leakprint
[ -x "$SVC" ] || { echo "SKIP: no $SVC"; exit 77; }
[ -x "$LPR" ] || { echo "SKIP: no $LPR"; exit 77; }
cd "$T" || exit 1
src=$LP_TOP/samples/spike_service.c
grow_line=$(grep -n 'struct entry \*e = malloc' "$src" | cut -d: -f1)

wait_for() { # wait_for CONDITION: up to 10 s
    local i
    for i in $(seq 100); do eval "$1" && return 0; sleep 0.1; done
    return 1
}

# drive lib|native: start the service on a fifo, signal, grow once,
# signal again, end its input; leaves out.MODE, err.MODE, rc_MODE, pid_MODE.
drive() {
    local mode=$1 pid rc
    rm -f in
    mkfifo in || return 1
    if [ "$mode" = lib ]; then
        LD_PRELOAD=$LIB "$SVC" < in > out.lib 2> err.lib & pid=$!
    else
        (trap '' USR1; exec "$SVC") < in > out.native 2> err.native & pid=$!
    fi
    exec 3> in
    wait_for "grep -q '^ready\$' out.$mode"
    kill -USR1 $pid
    # The live report's scan runs after the file is written: let it finish
    # before growing, so report 2's (+N) holds the whole growth.
    [ "$mode" = lib ] && wait_for "[ -f massif.out.$pid.1 ]" &&
        wait_for "grep -q 'LEAK SUMMARY' err.lib"
    echo grow >&3
    wait_for "grep -q '^grown 1\$' out.$mode"
    kill -USR1 $pid
    [ "$mode" = lib ] && wait_for "[ -f massif.out.$pid.2 ]" &&
        wait_for "[ \$(grep -c 'LEAK SUMMARY' err.lib) -ge 2 ]"
    exec 3>&-
    wait $pid; rc=$?
    eval "rc_$mode=$rc pid_$mode=$pid"
}

drive native
drive lib
pid=$pid_lib
check "stdout as native" 'cmp -s out.native out.lib' "$(diff out.native out.lib | head -5)"
check "exit status as native (0)" '[ "$rc_native" = 0 ] && [ "$rc_lib" = 0 ]' "native=$rc_native lib=$rc_lib"
check "massif.out.PID.1 and .2 written" '[ -f massif.out.$pid.1 ] && [ -f massif.out.$pid.2 ]' "$(ls)"
check "the spike is the peak of .2" 'grep -q "^heap_tree=peak" massif.out.$pid.2'

"$LPR" --diff massif.out.$pid.1 massif.out.$pid.2 > diff 2> diff.err; rc=$?
check "diff exits 0" '[ $rc = 0 ]' "rc=$rc $(cat diff.err)"
n1=$(( $(grep -c '^snapshot=' massif.out.$pid.1) - 1 ))
n2=$(( $(grep -c '^snapshot=' massif.out.$pid.2) - 1 ))
check "diff uses the last snapshot of .1 (the signal) and says so" \
    'grep -q "^before: '"'"'massif.out.$pid.1'"'"' snapshot $n1 (the last snapshot; peak is snapshot [0-9]*), time " diff' "$(head -3 diff)"
check "diff uses the last snapshot of .2 and says so" \
    'grep -q "^after:  '"'"'massif.out.$pid.2'"'"' snapshot $n2 (the last snapshot; peak is snapshot [0-9]*), time " diff' "$(head -3 diff)"
check "growth +200,000 at grow_cache (spike_service.c:$grow_line)" \
    'grep -q "^ *+200,000 *0 *200,000  grow_cache (spike_service.c:$grow_line)\$" diff' "$(head -12 diff)"
check "the growing site is the first row" \
    '[ "$(sed -n "7p" diff | grep -c "grow_cache")" = 1 ]' "$(head -8 diff)"
check "useful heap grew by 200,000" \
    'grep -q "^ *+200,000 *[0-9,]* *[0-9,]*  useful heap\$" diff' "$(tail -4 diff)"

# The old default, peak against peak, sees the spike twice: no growth.
"$LPR" --diff --snapshot=peak massif.out.$pid.1 massif.out.$pid.2 > diff.peak
check "--snapshot=peak compares the spike (the old 0-growth answer)" \
    '! grep -q grow_cache diff.peak && grep -q "^ *0 *[0-9,]* *[0-9,]*  useful heap\$" diff.peak' "$(cat diff.peak)"
# A file spec picks per file: .2's last against .2's peak.
"$LPR" --diff massif.out.$pid.2:peak massif.out.$pid.2:last > diff.spec
check "FILE:peak and FILE:last" \
    'grep -q "^before: .* (peak), " diff.spec && grep -q "^after:  .* (the last snapshot; peak is snapshot" diff.spec' "$(head -3 diff.spec)"

# The live reports: a header each, no vgdb monitor-command hint.
check "live report 1 header names SIGUSR1 and massif.out.PID.1" \
    'grep -Eq "^==$pid== Live leak check 1 on SIGUSR1, [0-9]+\.[0-9]{2} s after start; heap profile massif\.out\.$pid\.1\$" err.lib' "$(grep -i live err.lib | head -3)"
check "live report 2 header names massif.out.PID.2" \
    'grep -Eq "^==$pid== Live leak check 2 on SIGUSR1, [0-9]+\.[0-9]{2} s after start; heap profile massif\.out\.$pid\.2\$" err.lib' "$(grep -i live err.lib | head -3)"
check "live report 2 shows the 200,000 reachable bytes it added" \
    'grep -Eq "still reachable: [0-9,]+ \(\+200,000\) bytes in [0-9,]+ \(\+200\) blocks" err.lib' "$(grep reachable err.lib)"
check "no vgdb leak_check hint" '! grep -q "leak_check" err.lib' "$(grep leak_check err.lib)"
[ -n "$LP_KEEP" ] && cp diff err.lib "$LP_KEEP"/
finish
