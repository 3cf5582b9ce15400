# The checker never changes the program it checks (issue 9): threads busy
# in libc at exit, _exit in fork children, fork right after a snapshot,
# the program's own real-time signals, an inherited SIG_IGN, unshare -U,
# a program with its own malloc, exit() on a small sigaltstack, death by a
# signal, a closed stderr, a daemon closing every descriptor or chrooting
# itself, a library that frees in its destructor, the umask. Each compares the program's stdout and status with its native run.
. "$(dirname "$0")/_lib.sh"
P=$SAMPLES/process_life
lp() { (cd "$WORK" && timeout -k 5 60 env LEAKPROF_OPTIONS="massif=0${LPO:+:$LPO}" LD_PRELOAD="$LIB" "$@"); }

# 1. Threads inside localtime/strerror/getpwuid when main returns: 20 runs.
ok=0
for i in $(seq 20); do
    out=$(LPO=log=/dev/null lp "$SAMPLES/busy_threads_exit" 2>/dev/null); rc=$?
    [ $rc = 0 ] && [ "$out" = done ] && ok=$((ok + 1))
done
check "threads busy in libc at exit: 20 of 20 runs exit 0 ($ok)" [ $ok = 20 ]

# 2. _exit in a fork child flushes nothing: "x" printed once.
LPO=log=$WORK/ef.%p lp "$P" exit_flush >"$WORK/ef.out" 2>/dev/null; rc=$?
"$P" exit_flush >"$WORK/ef.nat"; as_native "exit_flush" "$WORK/ef.out" $rc "$WORK/ef.nat" $?
check "_exit child: its own report, parent's too" [ "$(ls "$WORK"/ef.* | grep -c 'ef\.[0-9]')" = 2 ]

# 3. fork right after the snapshot signal, five times: no child hangs.
out=$(LPO=log=/dev/null lp "$P" fork_after_signal 2>/dev/null); rc=$?
check "fork right after SIGUSR1: every child exits (rc=$rc, $out)" [ $rc = 0 -a "$out" = "children exited: 5" ]

# 4. The program's own real-time signals after our stop-the-world.
out=$(LPO=log=/dev/null lp "$P" rt_signals 2>/dev/null); rc=$?
check "program's RT signals delivered after a thread stop ($out)" [ $rc = 0 -a "$out" = "delivered 10 of 10" ]

# 4b. A live report stops the threads without a signal handler (ptrace,
# where allowed): a thread in pause() keeps waiting, a nanosleep is not
# cut short. Where ptrace may not be used (strace, seccomp) the signal
# way still interrupts them: known, README.
# sleepers_across CASE DIR LABEL: CASE under leakprof, a live report asked
# for meanwhile (logs in DIR), then natively: the same output and status,
# and the live report taken.
sleepers_across() {
    local c=$1 d=$2 rc
    LPO=log=$d/sl.%p lp "$P" "$c" >"$WORK/$c.out" 2>/dev/null &
    local lpid=$!
    sleep 0.5
    pkill -USR1 -f "^$P $c\$" 2>/dev/null
    wait $lpid; rc=$?
    "$P" "$c" >"$WORK/$c.nat"; as_native "$3" "$WORK/$c.out" $rc "$WORK/$c.nat" $?
    check "$c: the live report was taken" [ "$(cat "$d"/sl.[0-9]* | grep -c 'LEAK SUMMARY')" = 2 ]
}
sleepers_across sleepers "$WORK" "sleepers across a live report"
# The same in a process that dropped root (not dumpable, as an nginx
# worker): the helper may attach once the process is made dumpable for
# the stop, as LeakSanitizer makes it; before, the signal way ran there.
if [ "$(id -u)" = 0 ]; then
    mkdir -p "$WORK/nobody" && chmod 777 "$WORK/nobody"
    sleepers_across sleepers_nobody "$WORK/nobody" "sleepers in a process that dropped root"
fi

# 4b'. fork() in a signal handler that interrupted our bookkeeping of an
# allocation (single-threaded): prepare took locks the interrupted code
# held, and hung (3 of 6 runs; with a 500 us timer every run).
mkdir -p "$WORK/fh"
"$P" fork_in_handler >"$WORK/fh.nat"; nrc=$?
ok=0
for i in 1 2 3; do
    LPO="log=$WORK/fh/%p.log" lp "$P" fork_in_handler >"$WORK/fh.out" 2>/dev/null; rc=$?
    [ $rc = $nrc ] && cmp -s "$WORK/fh.out" "$WORK/fh.nat" && ok=$((ok + 1))
done
check "fork in a SIGALRM handler while main mallocs: 3 of 3 runs end as native ($ok)" [ $ok = 3 ]

# 4b''. Allocating on small stacks: a signal handler on an 8 KiB
# sigaltstack, a coroutine on an 8 KiB makecontext stack. The capture
# falls back to libunwind there, whose 6-8 KiB overflowed them (a spin in
# our fatal-signal handler, a SIGSEGV): as native in every mode.
"$P" small_stacks >"$WORK/ss.nat"; nrc=$?
for o in "" unwind=fp sample_bytes=4096; do
    LPO="log=$WORK/ss.log${o:+:$o}" lp "$P" small_stacks >"$WORK/ss.out" 2>/dev/null; rc=$?
    check "small stacks (${o:-default}): as native, report written" sh -c "[ $rc = $nrc ] && cmp -s '$WORK/ss.out' '$WORK/ss.nat' && grep -q 'ERROR SUMMARY' '$WORK/ss.log'"
done

# 4c. A snapshot asked for just before exit, in a program with a locale of
# its own: the dumper's snapshot must not overlap the exit's freeres
# (which unmaps the locale its thread reads: a crash in 17 runs of 20
# before the exit waited for it). 10 runs: status, output, the exit's
# report, the snapshot's file.
"$P" snapshot_at_exit >"$WORK/native_sa" 2>/dev/null; nrc=$?
ok=0
for i in $(seq 10); do
    rm -f "$WORK"/sa.*
    LPO="massif=$WORK/sa.%p:log=$WORK/sa.log" lp "$P" snapshot_at_exit >"$WORK/sa.out" 2>/dev/null; rc=$?
    [ $rc = $nrc ] && cmp -s "$WORK/sa.out" "$WORK/native_sa" &&
        grep -q 'HEAP SUMMARY' "$WORK/sa.log" &&
        ls "$WORK"/sa.[0-9]*.1 >/dev/null 2>&1 && ok=$((ok + 1))
done
check "snapshot signal at exit, C.UTF-8 locale: 10 of 10 runs end as native with report and snapshot ($ok)" [ $ok = 10 ]

# 4d. A snapshot asked for just before an exec is made before the image
# goes (it was lost, or the exec killed the dumper half-way: a temporary
# massif file left behind, the live report missing); after an exec that
# failed, snapshots go on. 5 runs: output and status, both snapshots, two
# live reports, no temporary file.
"$P" snapshot_exec >"$WORK/native_se" 2>/dev/null; nrc=$?
ok=0
for i in $(seq 5); do
    rm -rf "$WORK/se"; mkdir "$WORK/se"
    (cd "$WORK/se" && timeout -k 5 60 env LEAKPROF_OPTIONS="log=$WORK/se/log" LD_PRELOAD="$LIB" "$P" snapshot_exec >"$WORK/se.out" 2>/dev/null); rc=$?
    [ $rc = $nrc ] && cmp -s "$WORK/se.out" "$WORK/native_se" &&
        [ "$(ls "$WORK"/se/massif.out.*.[12] 2>/dev/null | wc -l)" = 2 ] &&
        [ "$(grep -c 'Live leak check' "$WORK/se/log")" = 2 ] &&
        ! ls "$WORK"/se/*tmp* >/dev/null 2>&1 && ok=$((ok + 1))
done
check "snapshot signal then exec (one failing): 5 of 5 runs keep both snapshots and reports ($ok)" [ $ok = 5 ]

# 5. An inherited SIG_IGN for SIGUSR1 stays (here and across exec).
out=$(trap '' USR1; LPO=log=/dev/null lp "$P" raise_usr1 2>/dev/null); rc=$?
check "inherited SIG_IGN SIGUSR1 left alone (rc=$rc)" [ $rc = 0 -a "$out" = alive ]
out=$(trap '' USR1; LPO=log=/dev/null lp sh -c "exec '$P' raise_usr1" 2>/dev/null); rc=$?
check "inherited SIG_IGN survives exec (rc=$rc)" [ $rc = 0 -a "$out" = alive ]

# 6. A single-threaded process stays single-threaded: unshare -U works.
if command -v unshare >/dev/null; then
    unshare -U true 2>/dev/null; nrc=$?
    LPO=log=/dev/null lp unshare -U true 2>/dev/null; rc=$?
    check "unshare -U: status as native ($rc vs $nrc)" [ $rc = $nrc ]
    n=$(LPO=log=/dev/null lp sh -c 'ls /proc/$$/task | wc -l' 2>/dev/null)
    check "no thread of ours in a single-threaded process ($n)" [ "$n" = 1 ]
fi

# 8. A program with its own malloc: harmless, with suppressions loaded.
printf '{\n   s\n   Memcheck:Leak\n   fun:malloc\n   fun:nothing_here\n}\n' >"$WORK/x.supp"
LPO="log=/dev/null:suppressions=$WORK/x.supp" lp "$SAMPLES/own_malloc" >"$WORK/om.out" 2>/dev/null; rc=$?
"$SAMPLES/own_malloc" >"$WORK/om.nat"; as_native "own_malloc" "$WORK/om.out" $rc "$WORK/om.nat" $?

# 9. exit() from a handler on a 64 KiB sigaltstack: report, native status.
LPO=log=$WORK/alt.txt lp "$P" altstack_exit >"$WORK/alt.out" 2>/dev/null; rc=$?
"$P" altstack_exit >"$WORK/alt.nat" 2>/dev/null; as_native "altstack_exit" "$WORK/alt.out" $rc "$WORK/alt.nat" $?
# (Memcheck calls the 77 bytes definitely lost; we may find a stale copy of
# the pointer in the dead part of the alternate stack, a heap block we scan
# whole: the block is counted either way.)
check "exit on a small sigaltstack: report written" grep -q 'in use at exit: 65,613 bytes in 2 blocks' "$WORK/alt.txt"

# Death by a signal: the report, then the native status (139).
LPO=log=$WORK/segv.txt lp "$P" segv_leak >"$WORK/segv.out" 2>/dev/null; rc=$?
("$P" segv_leak >"$WORK/segv.nat"; exit $?) 2>/dev/null; as_native "segv_leak" "$WORK/segv.out" $rc "$WORK/segv.nat" $?
check "SIGSEGV: status 139 ($rc)" [ $rc = 139 ]
check "SIGSEGV: report with the leak" grep -q '100 bytes in 1 blocks are definitely lost' "$WORK/segv.txt"

# Our handlers are invisible to sigaction()/signal() queries.
lp "$P" python_sigint >"$WORK/ps.out" 2>/dev/null; rc=$?
"$P" python_sigint >"$WORK/ps.nat"; as_native "python_sigint" "$WORK/ps.out" $rc "$WORK/ps.nat" $?
# And our alternate signal stacks to sigaltstack(): main and a thread see
# none, their own, none once turned off, as natively.
lp "$P" altstack_view >"$WORK/av.out" 2>/dev/null; rc=$?
"$P" altstack_view >"$WORK/av.nat"; as_native "altstack_view" "$WORK/av.out" $rc "$WORK/av.nat" $?

# A closed stderr reused for data: the data file holds only the program's
# bytes; the report reaches the stderr the process started with.
lp "$P" close_stderr "$WORK/data.out" >"$WORK/cs.out" 2>"$WORK/cs.err"; rc=$?
check "closed stderr: data file untouched ($(wc -l <"$WORK/data.out") lines)" [ "$(cat "$WORK/data.out")" = "program data" ]
check "closed stderr: report on the original stderr" grep -q '123 bytes in 1 blocks are definitely lost' "$WORK/cs.err"
"$P" close_stderr "$WORK/data2.out" >"$WORK/cs.nat" 2>/dev/null; as_native "close_stderr" "$WORK/cs.out" $rc "$WORK/cs.nat" $?
# A daemon's housekeeping (every descriptor closed up to the limit,
# close_range, closefrom, dup2 over a range, fd 2 reused for data) leaves
# our duplicate of stderr alone, as Memcheck's report survives it.
lp "$P" close_all "$WORK/data3.out" >"$WORK/ca.out" 2>"$WORK/ca.err"; rc=$?
check "closed everything: data file untouched" [ "$(cat "$WORK/data3.out")" = "program data" ]
check "closed everything: report on the original stderr" grep -q '123 bytes in 1 blocks are definitely lost' "$WORK/ca.err"
"$P" close_all "$WORK/data4.out" >"$WORK/ca.nat" 2>/dev/null; as_native "close_all" "$WORK/ca.out" $rc "$WORK/ca.nat" $?
# The same closes made by syscall(SYS_close) and syscall(SYS_close_range):
# they closed our copy of stderr ("leak search failed", the report on the
# program's data file's descriptor).
lp "$P" close_all_raw "$WORK/data7.out" >"$WORK/car.out" 2>"$WORK/car.err"; rc=$?
check "raw close syscalls: data file untouched" [ "$(cat "$WORK/data7.out")" = "program data" ]
check "raw close syscalls: report on the original stderr" grep -q '123 bytes in 1 blocks are definitely lost' "$WORK/car.err"
"$P" close_all_raw "$WORK/data8.out" >"$WORK/car.nat" 2>/dev/null; as_native "close_all_raw" "$WORK/car.out" $rc "$WORK/car.nat" $?
# A program that made stderr non-blocking, read by a slow reader: the
# report stopped at 64 KiB (the pipe's size), mid-line; now whole.
(cd "$WORK" && env LEAKPROF_OPTIONS="massif=0:depth=100" LD_PRELOAD="$LIB" "$P" nonblock_leaks >"$WORK/nb.out" 2> >(sleep 2; cat >"$WORK/nb.err"))
for i in $(seq 100); do grep -q 'ERROR SUMMARY' "$WORK/nb.err" 2>/dev/null && break; sleep 0.1; done
check "non-blocking stderr, slow reader: the whole report ($(wc -c <"$WORK/nb.err") bytes)" sh -c "[ \$(wc -c <'$WORK/nb.err') -gt 200000 ] && grep -q 'definitely lost: 1,600 bytes in 100 blocks' '$WORK/nb.err' && tail -1 '$WORK/nb.err' | grep -q 'ERROR SUMMARY'"
# Started with stderr closed (2>&-): the program's first open() is its
# descriptor 2, its data file; the report, which had no stderr to go to,
# was appended there.
lp "$P" close_stderr "$WORK/data5.out" >"$WORK/cs5.out" 2>&-; rc=$?
check "started without stderr: data file untouched" [ "$(cat "$WORK/data5.out")" = "program data" ]
"$P" close_stderr "$WORK/data6.out" >"$WORK/cs6.nat" 2>&-; as_native "close_stderr, started without stderr" "$WORK/cs5.out" $rc "$WORK/cs6.nat" $?
# A daemon that chroots itself into an empty jail: the leak search still
# reads /proc and massif.out still lands in the start-up directory.
mkdir -p "$WORK/jail"
"$P" chroot_leak "$WORK/jail" >"$WORK/cr.nat" 2>/dev/null; nrc=$?
if [ $nrc = 3 ]; then
    echo "SKIP: chroot needs CAP_SYS_CHROOT"
else
    LPO=massif=massif.out.jail:log=$WORK/cr.log lp "$P" chroot_leak "$WORK/jail" >"$WORK/cr.out" 2>/dev/null; rc=$?
    as_native "chroot_leak" "$WORK/cr.out" $rc "$WORK/cr.nat" $nrc
    check "chrooted: the leak found" grep -q '77 bytes in 1 blocks are definitely lost' "$WORK/cr.log"
    check "chrooted: the reachable block found" grep -q 'still reachable: 55 bytes in 1 blocks' "$WORK/cr.log"
    # The dl error pending at the chroot is freed, not lost behind our
    # back by the symbolizer's dlopen there.
    check "chrooted: nothing else lost" grep -q 'definitely lost: 77 bytes in 1 blocks' "$WORK/cr.log"
    check "chrooted: massif.out written where we started" [ -s "$WORK/massif.out.jail" ]
    # Its frames still named (the symbolizer opened its files before the
    # chroot), and the figures those of the same run without the chroot:
    # what the symbolizer's libraries allocate at exit is not counted.
    check "chrooted: frames named" grep -q 'by 0x[0-9A-F]*: chroot_leak (process_life.c:' "$WORK/cr.log"
    LPO=log=$WORK/cr0.log lp "$P" chroot_leak /nonexistent >/dev/null 2>&1
    check "chrooted: total heap usage as without the chroot" \
        [ "$(grep -o 'total heap usage.*' "$WORK/cr.log")" = "$(grep -o 'total heap usage.*' "$WORK/cr0.log")" ]
fi

# A library that frees in its destructor: nothing in use at exit.
if [ -x "$SAMPLES/dtor_app" ]; then
    LPO=log=$WORK/dt.txt lp "$SAMPLES/dtor_app" >"$WORK/dt.out" 2>/dev/null; rc=$?
    "$SAMPLES/dtor_app" >"$WORK/dt.nat"; as_native "dtor_app" "$WORK/dt.out" $rc "$WORK/dt.nat" $?
    check "library destructor ran before the report" grep -q 'in use at exit: 0 bytes in 0 blocks' "$WORK/dt.txt"
fi

# 12. Output files follow the umask and are created fresh.
(umask 077; cd "$WORK" && LEAKPROF_OPTIONS="massif=$WORK/m.out:log=$WORK/um.txt:sarif=$WORK/s.sarif" LD_PRELOAD="$LIB" "$SAMPLES/slow_app" >/dev/null 2>&1)
check "umask 077: massif file 0600" [ "$(stat -c %a "$WORK/m.out")" = 600 ]
check "umask 077: SARIF file 0600" [ "$(stat -c %a "$WORK/s.sarif")" = 600 ]
check "umask 077: log file 0600" [ "$(stat -c %a "$WORK/um.txt")" = 600 ]
check "no temporary file left" [ -z "$(ls "$WORK" | grep '\.tmp\.')" ]

# Fault injection: our files fail to be written; the program's output and
# status do not change, and one warning says so.
LPO="massif=$WORK/f.out:fault_inject=rename" lp "$SAMPLES/slow_app" >"$WORK/fi.out" 2>"$WORK/fi.err"; rc=$?
"$SAMPLES/slow_app" >"$WORK/fi.nat" 2>/dev/null; as_native "slow_app with failing rename" "$WORK/fi.out" $rc "$WORK/fi.nat" $?
check "failing rename: one warning, no file" [ "$(grep -c "cannot write '$WORK/f.out'" "$WORK/fi.err")" = 1 -a ! -e "$WORK/f.out" ]
LPO="massif=$WORK/f2.out:fault_inject=open" lp "$SAMPLES/slow_app" >"$WORK/fo.out" 2>"$WORK/fo.err"; rc=$?
as_native "slow_app with failing open" "$WORK/fo.out" $rc "$WORK/fi.nat" 0
check "failing open: one warning" [ "$(grep -c "cannot write" "$WORK/fo.err")" = 1 ]
LPO="fault_inject=arena" lp "$SAMPLES/slow_app" >"$WORK/fa.out" 2>"$WORK/fa.err"; rc=$?
as_native "slow_app without memory for our tables" "$WORK/fa.out" $rc "$WORK/fi.nat" 0
check "no memory for our tables: one warning" [ "$(grep -c "refused memory for leakprof's own tables" "$WORK/fa.err")" = 1 ]

# The exit's copy that runs freeres (a thread still waiting at exit)
# hangs: it is killed after 200 ms, nothing is counted from it (the C
# library's blocks stay in use, as before the copy), and the program's
# output and status are its own.
LPO="log=$WORK/fh.txt:fault_inject=freeres" lp "$SAMPLES/freeres_threads" return "$WORK/fh.file" >"$WORK/fh.out" 2>/dev/null; rc=$?
"$SAMPLES/freeres_threads" return "$WORK/fh.nfile" >"$WORK/fh.nat" 2>/dev/null
as_native "freeres_threads with a hanging freeres copy" "$WORK/fh.out" $rc "$WORK/fh.nat" $?
check "hanging freeres copy: its own leak reported" grep -q "definitely lost: 40 bytes in 1 blocks" "$WORK/fh.txt"
check "hanging freeres copy: nothing learned" sh -c "! grep -q 'in use at exit: [0-9,]* bytes in 3 blocks' '$WORK/fh.txt'"
check "hanging freeres copy: the file written once" sh -c "[ \"\$(cat '$WORK/fh.file')\" = 'written once' ]"

# Death by a signal: the report opens with Memcheck's block - "Process
# terminating with default action of signal N (SIGX)", the fault's
# detail, the stack of the thread it hit and, for a fault outside any
# mapping, Memcheck's stack advice - compared with Memcheck's, addresses
# aside; then the rest of the report (not for SIGSEGV: Memcheck also
# reports the invalid read itself, which we cannot see).
# A stack overflow: which instruction of the recursion's frame faults
# depends on the stack's alignment, and the page it could not grow to on
# the layout: those two are normalised too.
fatal_block() { # report -> the block, normalised
    sed -n '/Process terminating/,/^==[0-9]*== *$/p' "$1" | sed -E 's/^==[0-9]+==/==/;
        s/0x[0-9A-F]+/0x/g; s/clone3 \(clone3\.S:[0-9]+\)/clone (clone.S:100)/;
        s/\((in )?[^()]*libleakprof\.so\)/(in PRELOAD)/;
        s/grow stack to 0x[0-9a-f]+/grow stack to 0x/; s/recurse \(fatal_ways\.c:[0-9]+\)/recurse (fatal_ways.c)/'
}
fatal_block_abort() { fatal_block "$1" | sed -E 's/abort \(abort\.c:[0-9]+\)/abort (abort.c)/'; }
F=$SAMPLES/fatal_ways
for how in abort term segv thread_segv overflow thread_overflow cleanup_term abort_handler assert_handler resethand; do
    (cd "$WORK" && timeout -k 5 60 env LEAKPROF_OPTIONS="massif=0:log=$WORK/fw_$how.lp" LD_PRELOAD="$LIB" "$F" $how >"$WORK/fw_$how.out" 2>/dev/null); rc=$?
    ("$F" $how >"$WORK/fw_$how.nat"; exit $?) 2>/dev/null; nrc=$?
    as_native "fatal_ways $how" "$WORK/fw_$how.out" $rc "$WORK/fw_$how.nat" $nrc
    check "fatal_ways $how: the block" grep -q 'Process terminating with default action of signal' "$WORK/fw_$how.lp"
    have_valgrind || continue
    (cd "$WORK" && timeout -k 5 300 valgrind --leak-check=full --log-file="$WORK/fw_$how.mc" "$F" $how >/dev/null 2>&1)
    if [ $how = abort_handler ] || [ $how = assert_handler ]; then
        # glibc raises SIGABRT twice when the program's handler returns:
        # Memcheck's block shows the second raise (abort.c:100, after glibc
        # put SIG_DFL back itself), ours the first (our handler is back by
        # then: abort.c:79). Only that line number may differ.
        memcheck_diff "fatal_ways $how: the block as memcheck's (abort.c's line aside)" fatal_block_abort "$WORK/fw_$how.lp" "$WORK/fw_$how.mc"
    else
        memcheck_diff "fatal_ways $how: the block as memcheck's" fatal_block "$WORK/fw_$how.lp" "$WORK/fw_$how.mc"
    fi
    if [ $how = overflow ]; then
        n=$(grep -c "Stack overflow in thread #1: can't grow stack to" "$WORK/fw_$how.lp")
        m=$(grep -c "Stack overflow in thread #1: can't grow stack to" "$WORK/fw_$how.mc")
        check "fatal_ways overflow: 'Stack overflow in thread #1' twice, as memcheck ($n, $m)" [ "$n$m" = 22 ]
    fi
    case $how in segv | thread_segv | resethand) ;;
    *) same_as_memcheck "fatal_ways $how: whole report as memcheck's" "$WORK/fw_$how.lp" "$WORK/fw_$how.mc" ;;
    esac
done

# A stack protector's failure with a SIGABRT handler of the program's that
# returns: glibc's __stack_chk_fail calls glibc's own abort, as assert does.
# The smashed frames past the first garbage one differ (Memcheck walks
# the garbage further): the block is compared up to there.
cat >"$WORK/smash.c" <<'SMASH'
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static volatile size_t len = 64;
static void note(int sig) { (void)sig; printf("abort handler\n"); fflush(stdout); }
__attribute__((noinline)) static void smash(const char *s)
{
    char buf[8];
    memset(buf, 'x', len);
    printf("%s %c\n", s, buf[0]);
}
int main(void)
{
    char *keep = malloc(40);
    strcpy(keep, "kept");
    signal(SIGABRT, note);
    puts("smashing");
    fflush(stdout);
    smash(keep);
    return 0;
}
SMASH
if cc -g -O0 -fstack-protector-all -o "$WORK/smash" "$WORK/smash.c" 2>/dev/null; then
    (cd "$WORK" && timeout -k 5 60 env LEAKPROF_OPTIONS="massif=0:log=$WORK/sm.lp" LD_PRELOAD="$LIB" ./smash >"$WORK/sm.out" 2>/dev/null); rc=$?
    ("$WORK/smash" >"$WORK/sm.nat"; exit $?) 2>/dev/null; as_native "stack smashing, handler returns" "$WORK/sm.out" $rc "$WORK/sm.nat" $?
    check "stack smashing: the block" grep -q 'Process terminating with default action of signal 6' "$WORK/sm.lp"
    check "stack smashing: the garbage return address is ???, in no object" grep -q 'by 0x7878787878787877: ???$' "$WORK/sm.lp"
    if have_valgrind; then
        (cd "$WORK" && timeout -k 5 300 valgrind --leak-check=full --log-file="$WORK/sm.mc" ./smash >/dev/null 2>&1)
        smash_block() { fatal_block_abort "$1" | head -n 9; }
        memcheck_diff "stack smashing: the block as memcheck's (abort.c's line aside)" smash_block "$WORK/sm.lp" "$WORK/sm.mc"
        for k in "in use at exit" "total heap usage" "definitely lost" "still reachable"; do
            check "stack smashing: '$k' as memcheck's" [ "$(grep "$k" "$WORK/sm.lp" | sed 's/^==[0-9]*==//')" = "$(grep "$k" "$WORK/sm.mc" | sed 's/^==[0-9]*==//')" ]
        done
    fi
fi

# An uncaught C++ exception (std::terminate, abort): no freeres runs on a
# signal's death, so libstdc++'s emergency pool is still reachable, as
# Memcheck counts it - not suppressed. The whole report as Memcheck's.
printf '#include <stdexcept>\n#include <vector>\nint main() { auto *v = new std::vector<int>(10); (void)v; throw std::runtime_error("boom"); }\n' >"$WORK/uncaught.cpp"
if c++ -g -O0 -o "$WORK/uncaught" "$WORK/uncaught.cpp" 2>/dev/null; then
    (cd "$WORK" && timeout -k 5 60 env LEAKPROF_OPTIONS="massif=0:log=$WORK/uc.lp" LD_PRELOAD="$LIB" ./uncaught >"$WORK/uc.out" 2>/dev/null); rc=$?
    ("$WORK/uncaught" >"$WORK/uc.nat"; exit $?) 2>/dev/null; as_native "uncaught exception" "$WORK/uc.out" $rc "$WORK/uc.nat" $?
    if have_valgrind; then
        (cd "$WORK" && timeout -k 5 300 valgrind --leak-check=full --log-file="$WORK/uc.mc" ./uncaught >/dev/null 2>&1)
        same_as_memcheck "uncaught exception: whole report as memcheck's" "$WORK/uc.lp" "$WORK/uc.mc"
    fi
fi

# A program that changes directory: a relative log= and the massif file
# land in the directory it started in, as Valgrind's do.
rm -rf "$WORK/away"; mkdir -p "$WORK/away"; rm -f "$WORK/rel.log" "$WORK"/massif.out.*
(cd "$WORK" && env LEAKPROF_OPTIONS="log=rel.log" LD_PRELOAD="$LIB" "$P" chdir_leak "$WORK/away" >"$WORK/cdl.out" 2>/dev/null); rc=$?
(cd "$WORK" && "$P" chdir_leak "$WORK/away" >"$WORK/cdl.nat" 2>/dev/null); as_native "chdir_leak" "$WORK/cdl.out" $rc "$WORK/cdl.nat" $?
check "chdir: the relative log stays in the start-up directory" grep -q '21 bytes in 1 blocks are definitely lost' "$WORK/rel.log"
check "chdir: nothing written where the program went" [ -z "$(ls -A "$WORK/away")" ]
check "chdir: massif.out in the start-up directory" sh -c "ls '$WORK'/massif.out.* >/dev/null 2>&1"

# A worker that drops privileges (nginx, apache): its log=%p file is
# opened at the fork, as Valgrind opens it, before the setuid would keep
# it from creating one in the start-up directory.
rm -rf "$WORK/wsd"; mkdir -p "$WORK/wsd"; chmod 755 "$WORK/wsd"
(cd "$WORK/wsd" && env LEAKPROF_OPTIONS="massif=0:log=ws.%p" LD_PRELOAD="$LIB" "$P" worker_setuid >"$WORK/ws.out" 2>"$WORK/ws.err"); rc=$?
(cd "$WORK/wsd" && "$P" worker_setuid >"$WORK/ws.nat" 2>/dev/null); nrc=$?
if [ "$nrc" = 3 ]; then
    echo "SKIP: worker_setuid (no privilege to setuid)"
else
    as_native "worker_setuid" "$WORK/ws.out" $rc "$WORK/ws.nat" $nrc
    check "setuid worker: its report in its own log file" sh -c "grep -l '17 bytes in 1 blocks are definitely lost' '$WORK'/wsd/ws.* >/dev/null 2>&1"
    check "setuid worker: nothing fell back to stderr" sh -c "! grep -q 'cannot open' '$WORK/ws.err'"
    # A shared log (no %p): the worker appends its report there too.
    rm -rf "$WORK/wss"; mkdir -p "$WORK/wss"; chmod 755 "$WORK/wss"
    (cd "$WORK/wss" && env LEAKPROF_OPTIONS="massif=0:log=ws.shared" LD_PRELOAD="$LIB" "$P" worker_setuid >"$WORK/wss.out" 2>"$WORK/wss.err"); rc=$?
    as_native "worker_setuid, shared log" "$WORK/wss.out" $rc "$WORK/ws.nat" $nrc
    check "setuid worker, shared log: both reports in it ($(grep -c 'HEAP SUMMARY' "$WORK/wss/ws.shared" 2>/dev/null))" [ "$(grep -c 'HEAP SUMMARY' "$WORK/wss/ws.shared" 2>/dev/null)" = 2 ]
    check "setuid worker, shared log: nothing fell back to stderr" sh -c "! grep -q 'cannot open' '$WORK/wss.err'"
    # Its massif.out.%p too: made at the fork, written at its exit.
    rm -rf "$WORK/wsm"; mkdir -p "$WORK/wsm"; chmod 755 "$WORK/wsm"
    (cd "$WORK/wsm" && env LEAKPROF_OPTIONS="log=ws.%p" LD_PRELOAD="$LIB" "$P" worker_setuid >"$WORK/wsm.out" 2>"$WORK/wsm.err"); rc=$?
    as_native "worker_setuid, massif on" "$WORK/wsm.out" $rc "$WORK/ws.nat" $nrc
    n=$(ls "$WORK"/wsm/massif.out.* 2>/dev/null | wc -l)
    check "setuid worker: a massif file for each process ($n of 2)" [ "$n" = 2 ]
    check "setuid worker: no massif file went lost" sh -c "! grep -q 'cannot write' '$WORK/wsm.err' '$WORK'/wsm/ws.*"
    for f in "$WORK"/wsm/massif.out.*; do
        check "setuid worker: $(basename "$f") is a whole massif file" grep -q '^snapshot=' "$f"
        if [ -x /usr/bin/ms_print ]; then
            check "setuid worker: ms_print reads $(basename "$f")" sh -c "/usr/bin/ms_print '$f' >/dev/null"
        fi
    done
    # In a sticky world-writable directory (/tmp): the worker may create
    # its temporary file but not rename it over the file root made at the
    # fork; the profile goes into that file instead of being lost.
    # (Not under $WORK, which the worker could not enter.)
    wst=$(mktemp -d "${TMPDIR:-/tmp}/lp-sticky.XXXXXX"); chmod 1777 "$wst"
    (cd "$wst" && env LEAKPROF_OPTIONS="log=ws.%p" LD_PRELOAD="$LIB" "$P" worker_setuid >"$WORK/wst.out" 2>"$WORK/wst.err"); rc=$?
    as_native "worker_setuid, sticky directory" "$WORK/wst.out" $rc "$WORK/ws.nat" $nrc
    check "setuid worker, sticky directory: no massif file went lost" sh -c "! grep -q 'cannot write' '$WORK/wst.err' '$wst'/ws.*"
    n=$(ls "$wst"/massif.out.* 2>/dev/null | wc -l)
    check "setuid worker, sticky directory: a massif file for each process ($n of 2)" [ "$n" = 2 ]
    for f in "$wst"/massif.out.*; do
        check "setuid worker, sticky directory: $(basename "$f") is a whole massif file" grep -q '^snapshot=' "$f"
    done
    check "setuid worker, sticky directory: no temporary file left" sh -c "! ls '$wst'/*.tmp.* >/dev/null 2>&1"
    rm -rf "$wst"
    # Every output, not only massif.out: the worker's pprof, HTML and SARIF
    # files are made at its setuid too, and written at its exit.
    rm -rf "$WORK/wso"; mkdir -p "$WORK/wso"; chmod 755 "$WORK/wso"
    (cd "$WORK/wso" && env LEAKPROF_OPTIONS="log=ws.%p:pprof=pp.%p:html=h.%p.html:sarif=s.%p.sarif" LD_PRELOAD="$LIB" "$P" worker_setuid >"$WORK/wso.out" 2>"$WORK/wso.err"); rc=$?
    as_native "worker_setuid, every output" "$WORK/wso.out" $rc "$WORK/ws.nat" $nrc
    check "setuid worker, every output: nothing went lost" sh -c "! grep -q 'cannot write' '$WORK/wso.err' '$WORK'/wso/ws.*"
    for o in "pp.%s" "h.%s.html" "s.%s.sarif" "massif.out.%s"; do
        n=$(ls "$WORK"/wso/$(printf "$o" '*') 2>/dev/null | wc -l)
        check "setuid worker, every output: $(printf "$o" PID) for each process ($n of 2)" [ "$n" = 2 ]
    done
    for f in "$WORK"/wso/pp.*; do
        check "setuid worker: $(basename "$f") is a whole gzip stream" gzip -t "$f"
    done
    for f in "$WORK"/wso/h.*.html; do
        check "setuid worker: $(basename "$f") is a whole page" grep -q '</html>' "$f"
    done
    for f in "$WORK"/wso/s.*.sarif; do
        check "setuid worker: $(basename "$f") is whole JSON" python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$f"
    done
fi

# A process that drops its own privileges (a daemon started as root): its
# log file, %p or shared, and its massif file are opened before the
# change, so the report and the profile land where asked, not on stderr.
for lg in "dp.%p" "dp.shared"; do
    rm -rf "$WORK/dpd"; mkdir -p "$WORK/dpd"; chmod 755 "$WORK/dpd"
    (cd "$WORK/dpd" && env LEAKPROF_OPTIONS="log=$lg" LD_PRELOAD="$LIB" "$P" drop_privileges >"$WORK/dp.out" 2>"$WORK/dp.err"); rc=$?
    (cd "$WORK/dpd" && "$P" drop_privileges >"$WORK/dp.nat" 2>/dev/null); nrc=$?
    if [ "$nrc" = 3 ]; then
        echo "SKIP: drop_privileges (no privilege to setuid)"
        break
    fi
    as_native "drop_privileges, log=$lg" "$WORK/dp.out" $rc "$WORK/dp.nat" $nrc
    check "drop_privileges, log=$lg: the report in its log file" sh -c "grep -l '19 bytes in 1 blocks are definitely lost' '$WORK'/dpd/dp.* >/dev/null 2>&1"
    check "drop_privileges, log=$lg: nothing fell back to stderr" sh -c "! grep -q 'cannot' '$WORK/dp.err'"
    check "drop_privileges, log=$lg: a whole massif file" sh -c "grep -q '^snapshot=' '$WORK'/dpd/massif.out.*"
done

# A snapshot signal past the setuid: massif.out.PID.1 cannot be created
# in the start-up directory any more; the snapshot goes into the final
# file kept open (the exit's profile then replaces it) and says so on
# stderr, in one line, instead of being lost.
rm -rf "$WORK/dsd"; mkdir -p "$WORK/dsd"; chmod 755 "$WORK/dsd"
(cd "$WORK/dsd" && env LEAKPROF_OPTIONS="log=ds.log" LD_PRELOAD="$LIB" "$P" drop_snapshot >"$WORK/ds.out" 2>"$WORK/ds.err"); rc=$?
(cd "$WORK/dsd" && "$P" drop_snapshot >"$WORK/ds.nat" 2>/dev/null); nrc=$?
if [ "$nrc" = 3 ]; then
    echo "SKIP: drop_snapshot (no privilege to setuid)"
else
    as_native "drop_snapshot" "$WORK/ds.out" $rc "$WORK/ds.nat" $nrc
    check "drop_snapshot: the snapshot is said to be in the kept file" sh -c "grep -q \"snapshot 1 is in 'massif.out.[0-9]*' until the exit\" '$WORK/ds.err'"
    check "drop_snapshot: no file went lost" sh -c "! grep -q 'cannot write' '$WORK/dsd/ds.log' '$WORK/ds.err'"
    check "drop_snapshot: the report in its log file" grep -q '23 bytes in 1 blocks are definitely lost' "$WORK/dsd/ds.log"
    check "drop_snapshot: the live report names the file the snapshot is in" sh -c "grep -q 'Live leak check 1 on SIGUSR1, .* heap profile massif\.out\.[0-9]*\$' '$WORK/dsd/ds.log'"
    check "drop_snapshot: the final massif file is whole" sh -c "grep -q '^snapshot=' '$WORK'/dsd/massif.out.*"
    if [ -x /usr/bin/ms_print ]; then
        check "drop_snapshot: ms_print reads it" sh -c "/usr/bin/ms_print '$WORK'/dsd/massif.out.* >/dev/null"
    fi
fi

# A block's usable bytes (malloc_usable_size), written by the program,
# survive a realloc, as under glibc's realloc: quarantine=yes moves every
# tracked block, malloc_fill fills what the block gains (redis refused its
# own command line under each).
U=$SAMPLES/usable_slack
"$U" >"$WORK/us.nat" 2>/dev/null; nrc=$?
for o in quarantine=no quarantine=yes malloc_fill=0xAB malloc_fill=0xAB:quarantine=yes; do
    LPO="log=/dev/null:$o" lp "$U" >"$WORK/us.out" 2>/dev/null; rc=$?
    as_native "usable bytes across realloc ($o)" "$WORK/us.out" $rc "$WORK/us.nat" $nrc
done

# A process that puts itself in a seccomp sandbox refusing write-opens
# (ENOSYS, man-db's): its log and massif files are made before the filter
# (prctl or the seccomp system call), its fork child's report goes after
# it in its log file, the lost child profile is said there, and nothing
# of ours reaches the program's stderr.
S=$SAMPLES/seccomp_sandbox
# syscall() is the library's (it watches for SYS_seccomp): its results,
# errno and a fork through SYS_clone as glibc's.
LPO="log=/dev/null" lp "$S" calls >"$WORK/sbc.out" 2>/dev/null; rc=$?
"$S" calls >"$WORK/sbc.nat" 2>/dev/null; as_native "syscall() through the hook" "$WORK/sbc.out" $rc "$WORK/sbc.nat" $?
check "syscall() through the hook: glibc's results" grep -q 'gettid is the pid, close(12345) -1 errno EBADF, clone child status 7' "$WORK/sbc.out"
for how in prctl syscall; do
    d=$WORK/sb_$how
    mkdir -p "$d"
    (cd "$d" && env LEAKPROF_OPTIONS="log=$d/l.%p:massif=$d/m.%p" LD_PRELOAD="$LIB" "$S" $how >"$d/out" 2>"$d/err"); rc=$?
    "$S" $how >"$d/nat" 2>/dev/null; as_native "seccomp sandbox ($how)" "$d/out" $rc "$d/nat" $?
    check "seccomp sandbox ($how): nothing of ours on stderr" [ ! -s "$d/err" ]
    check "seccomp sandbox ($how): one log file, both reports" sh -c "[ \$(ls '$d' | grep -c '^l\.') = 1 ] && [ \$(grep -c 'ERROR SUMMARY' '$d'/l.*) = 2 ]"
    check "seccomp sandbox ($how): the child's leak and the parent's" sh -c "grep -q '33 bytes in 1 blocks are definitely lost' '$d'/l.* && grep -q '44 bytes in 1 blocks are definitely lost' '$d'/l.*"
    check "seccomp sandbox ($how): the parent's massif file" sh -c "grep -q '^snapshot=' '$d'/m.*"
    check "seccomp sandbox ($how): the child's lost profile said in the log" grep -q "cannot write '$d/m\.[0-9]*': Function not implemented" "$d"/l.*
done

# A fork child that execs an untraced program (trace_children=no): the
# files made for it at the fork (its log=%p and massif.out.%p) are gone
# again, empty; only the shell's own are left.
rm -rf "$WORK/fxe"; mkdir -p "$WORK/fxe"
(cd "$WORK/fxe" && env LEAKPROF_OPTIONS="log=fx.%p" LD_PRELOAD="$LIB" bash -c '/bin/true; /bin/true; echo done' >"$WORK/fxe.out" 2>/dev/null); rc=$?
(cd "$WORK/fxe" && bash -c '/bin/true; /bin/true; echo done' >"$WORK/fxe.nat" 2>/dev/null); as_native "fork+exec of untraced programs" "$WORK/fxe.out" $rc "$WORK/fxe.nat" $?
check "fork+exec: one log file, the shell's ($(ls "$WORK/fxe" | grep -c '^fx\.'))" [ "$(ls "$WORK/fxe" | grep -c '^fx\.')" = 1 ]
check "fork+exec: one massif file, the shell's ($(ls "$WORK/fxe" | grep -c '^massif\.out\.'))" [ "$(ls "$WORK/fxe" | grep -c '^massif\.out\.')" = 1 ]

# daemon(): glibc's parent leaves by its internal _exit, past our hook; as
# under Memcheck, the parent reports (its 11 bytes reachable) and so does
# the daemon (13 lost), whose "Parent PID" is the process that forked it.
rm -f "$WORK"/dmn.*
LPO="log=$WORK/dmn.%p" lp "$P" daemon_leak >"$WORK/dmn_out" 2>/dev/null; rc=$?
"$P" daemon_leak >"$WORK/dmn_nat" 2>/dev/null; as_native "daemon_leak" "$WORK/dmn_out" $rc "$WORK/dmn_nat" $?
for i in $(seq 50); do [ "$(cat "$WORK"/dmn.* 2>/dev/null | grep -c 'ERROR SUMMARY')" = 2 ] && break; sleep 0.1; done
parent=$(grep -l 'in use at exit: 11 bytes in 1 blocks' "$WORK"/dmn.* 2>/dev/null | head -1)
child=$(grep -l 'in use at exit: 24 bytes in 2 blocks' "$WORK"/dmn.* 2>/dev/null | head -1)
check "daemon(): the parent's report" [ -n "$parent" ]
check "daemon(): the daemon's report" [ -n "$child" ]
pp=${parent##*.}
check "daemon(): the daemon's Parent PID is the parent ($pp)" grep -q "Parent PID: $pp\$" "${child:-/dev/null}"

# A signal that comes while the exit's report is being written (natively
# the process would be gone by then: a pool's SIGTERM to a leaving
# worker, a timer): the report is finished and the process ends with its
# own status. The log is a FIFO, so the report waits in open() for the
# reader while the signal is sent (exec_child=yes: a traced exec'd
# program's, which does not truncate the log at start, so open() happens
# at the report only).
rm -f "$WORK/late.fifo"; mkfifo "$WORK/late.fifo"
(cd "$WORK" && exec env LEAKPROF_OPTIONS="massif=0:exec_child=yes:log=$WORK/late.fifo" LD_PRELOAD="$LIB" "$SAMPLES/leak_kinds" >"$WORK/late.out" 2>/dev/null) &
late=$!
# Until the report waits for the FIFO's reader (at most 20 s).
for i in $(seq 200); do
    grep -q wait_for_partner "/proc/$late/wchan" 2>/dev/null && break
    sleep 0.1
done
kill -TERM $late 2>/dev/null
timeout 30 cat "$WORK/late.fifo" >"$WORK/late.txt"
wait $late; rc=$?
"$SAMPLES/leak_kinds" >"$WORK/late.nat" 2>/dev/null; as_native "SIGTERM during the exit's report" "$WORK/late.out" $rc "$WORK/late.nat" $?
check "SIGTERM during the exit's report: the whole report" grep -q 'ERROR SUMMARY' "$WORK/late.txt"

# Four threads and main call exit() at once (glibc 2.36 runs their exit
# handlers side by side): one whole report every time, status 7.
ok=0
for i in 1 2 3 4 5; do
    LPO=log=$WORK/er.txt lp "$P" exit_race >"$WORK/er.out" 2>/dev/null; rc=$?
    [ $rc = 7 ] && [ "$(grep -c 'ERROR SUMMARY' "$WORK/er.txt")" = 1 ] && ok=$((ok + 1))
done
("$P" exit_race >"$WORK/er.nat"; exit $?) 2>/dev/null; as_native "exit_race" "$WORK/er.out" $rc "$WORK/er.nat" $?
check "exit from five threads at once: 5 of 5 runs report, status 7 ($ok)" [ $ok = 5 ]

# exit() in a vfork child runs the exit handlers in the parent's memory:
# the parent still reports (from its own exit), with its leak.
LPO=log=$WORK/vx.%p lp "$P" vfork_exit >"$WORK/vx.out" 2>/dev/null; rc=$?
"$P" vfork_exit >"$WORK/vx.nat" 2>/dev/null; as_native "vfork_exit" "$WORK/vx.out" $rc "$WORK/vx.nat" $?
check "vfork child's exit: the parent's report" sh -c "cat '$WORK'/vx.* | grep -q '5 bytes in 1 blocks are definitely lost'"

# exit() or _exit() from a SIGALRM handler while the program allocates,
# alone or beside a second allocating thread, in full and in sampled mode:
# the signal lands in the program, inside glibc's allocator (its heap half
# updated, its arena lock held below us: the report allocates from a heap
# of its own, exit_heap.c) or inside our own bookkeeping (no report, a
# line that says why). Before: glibc's "malloc assertion failure" (status
# 134) in half the runs, hangs with a thread. Every run must end with the
# native output and status 42, and a report or that line.
S=$SAMPLES/signal_exit
for v in "exit -" "exit threads" "_exit threads" "exit threads:sample_bytes=4096" "_exit -:sample_bytes=4096"; do
    how=${v%% *}; rest=${v#* }; thr=${rest%%:*}; opt=${rest#"$thr"}; opt=${opt#:}
    [ "$thr" = - ] && thr=
    ok=0 said=0
    "$S" $how 30000 $thr >"$WORK/sx.nat" 2>/dev/null; nrc=$?
    for i in 1 2 3 4 5 6 7 8; do
        rm -f "$WORK"/sx.log.*
        LPO="log=$WORK/sx.log.%p${opt:+:$opt}" lp "$S" $how $((20000 + i * 7001)) $thr >"$WORK/sx.out" 2>/dev/null; rc=$?
        if [ $rc = $nrc ] && cmp -s "$WORK/sx.out" "$WORK/sx.nat" &&
            grep -qs -e 'ERROR SUMMARY' -e 'interrupted leakprof inside an allocation' "$WORK"/sx.log.*; then
            ok=$((ok + 1))
        fi
        grep -qs 'interrupted leakprof' "$WORK"/sx.log.* && said=$((said + 1))
    done
    check "$how from a signal handler ($v): 8 of 8 runs as native (status $nrc), reported ($ok; $said without a report)" [ $ok = 8 -a $nrc = 42 ]
done

# Death by SIGALRM's default action in the same loop: a signal that comes
# while the thread is inside our bookkeeping waits for its end, so every
# run reports (before: no report in 5 runs of 16), and dies of it.
for thr in "" threads; do
    ok=0
    ("$S" die 30000 $thr >"$WORK/sd.nat"; exit $?) 2>/dev/null; nrc=$?
    for i in 1 2 3 4 5 6 7 8; do
        rm -f "$WORK"/sd.log.*
        LPO="log=$WORK/sd.log.%p" lp "$S" die $((20000 + i * 7001)) $thr >"$WORK/sd.out" 2>/dev/null; rc=$?
        [ $rc = $nrc ] && cmp -s "$WORK/sd.out" "$WORK/sd.nat" &&
            grep -qs 'ERROR SUMMARY' "$WORK"/sd.log.* && ok=$((ok + 1))
    done
    check "death by SIGALRM while allocating${thr:+ (threads)}: 8 of 8 runs report, status $nrc ($ok)" [ $ok = 8 -a $nrc = 142 ]
done

# timeout(1) sends SIGTERM to the process and at once to its process group:
# the second must wait for the report of the first (ours stays on, the
# signals blocked while it runs), not end the process under it (before:
# no report in 11 runs of 16). Alone and with a thread allocating.
if command -v timeout >/dev/null; then
    for thr in "" threads; do
        ok=0
        (timeout --preserve-status -s TERM 0.3 "$S" die 900000 $thr >"$WORK/st.nat"; exit $?) 2>/dev/null; nrc=$?
        for i in 1 2 3 4 5 6 7 8; do
            rm -f "$WORK"/st.log.*
            (cd "$WORK" && timeout --preserve-status -s TERM 0.3 env LEAKPROF_OPTIONS="massif=0:log=$WORK/st.log.%p" LD_PRELOAD="$LIB" "$S" die 900000 $thr >"$WORK/st.out" 2>/dev/null); rc=$?
            [ $rc = $nrc ] && cmp -s "$WORK/st.out" "$WORK/st.nat" &&
                grep -qs 'ERROR SUMMARY' "$WORK"/st.log.* && ok=$((ok + 1))
        done
        check "timeout -s TERM while allocating${thr:+ (threads)}: 8 of 8 runs report, status $nrc ($ok)" [ $ok = 8 -a $nrc = 143 ]
    done
fi

# An output path that is a FIFO or a device (massif=/dev/null) is written
# in place, never renamed over: as root, /dev/null once became a regular
# file that way, for every program after.
rm -f "$WORK/mfifo" "$WORK/mfifo.out"
mkfifo "$WORK/mfifo"
timeout 20 cat "$WORK/mfifo" >"$WORK/mfifo.out" & # (a renamed-over FIFO: no writer ever)
catpid=$!
LPO="massif=$WORK/mfifo:log=$WORK/mfifo.log" lp "$SAMPLES/slow_app" >/dev/null 2>&1
wait $catpid
check "massif to a FIFO: still a FIFO" [ -p "$WORK/mfifo" ]
check "massif to a FIFO: the profile came through it" grep -q '^desc: --massif-out-file=' "$WORK/mfifo.out"
check "massif to a FIFO: no temporary file left" sh -c "! ls '$WORK'/mfifo.tmp* >/dev/null 2>&1"

# A program that extends printf (register_printf_modifier/_specifier: what
# libquadmath does in a constructor of every Fortran program). glibc's
# __libc_freeres frees those tables and leaves them in place; the report's
# snprintf then read them: SIGSEGV at exit (status 139), every run. Now
# freeres is learned from a copy of the process instead, and the figures
# are Memcheck's.
run_lp "$WORK/pe.log" "" "$SAMPLES/printf_ext"
check "printf extended: its report" grep -q '13 bytes in 1 blocks are definitely lost' "$WORK/pe.log"
if have_valgrind; then
    run_mc "$WORK/pe.mc" "--leak-check=full" "$SAMPLES/printf_ext"
    summary_numbers "$WORK/pe.log" >"$WORK/pe.lp.sum"
    summary_numbers "$WORK/pe.mc" >"$WORK/pe.mc.sum"
    check "printf extended: heap and leak summary as Memcheck's" cmp -s "$WORK/pe.lp.sum" "$WORK/pe.mc.sum"
fi
# A Fortran program itself, where gfortran is installed.
if command -v gfortran >/dev/null; then
    printf 'program f\n  real, allocatable :: a(:)\n  allocate(a(1000)); a = 2.0\n  print *, sum(a)\nend program f\n' >"$WORK/f.f90"
    if gfortran -o "$WORK/fprog" "$WORK/f.f90" 2>/dev/null; then
        run_lp "$WORK/fp.log" "" "$WORK/fprog"
        check "Fortran: its report (the array, 4,000 bytes, definitely lost)" grep -q '4,000 bytes in 1 blocks are definitely lost' "$WORK/fp.log"
        if have_valgrind; then
            # stdout and stderr to regular files, as run_lp's: libgfortran
            # buffers each (8 KB), not /dev/null.
            (cd "$WORK" && valgrind --log-file="$WORK/fp.mc" --leak-check=full "$WORK/fprog" >"$WORK/fp.mc.out" 2>"$WORK/fp.mc.err")
            summary_numbers "$WORK/fp.log" >"$WORK/fp.lp.sum"
            summary_numbers "$WORK/fp.mc" >"$WORK/fp.mc.sum"
            check "Fortran: heap and leak summary as Memcheck's" cmp -s "$WORK/fp.lp.sum" "$WORK/fp.mc.sum"
        fi
    fi
else
    echo "SKIP: Fortran (no gfortran)"
fi

# A C++ service killed by SIGTERM after a snapshot signal: its exit report
# keeps libstdc++'s emergency pool still reachable, as without the
# snapshot and as Memcheck (no freeres runs on a death by signal). The
# live report had read the suppressions for a living process, which hide
# the pool, and the exit report used them again: "suppressed: 72,704".
cs=$SAMPLES/cxx_service
for snap in 0 1; do
    (cd "$WORK" && exec env LEAKPROF_OPTIONS="massif=0:log=$WORK/cs$snap.log" LD_PRELOAD="$LIB" "$cs" >"$WORK/cs$snap.out" 2>/dev/null) &
    pid=$!
    for i in $(seq 100); do grep -q ready "$WORK/cs$snap.out" 2>/dev/null && break; sleep 0.05; done
    if [ $snap = 1 ]; then
        kill -USR1 $pid
        for i in $(seq 100); do grep -q 'Live leak check' "$WORK/cs$snap.log" 2>/dev/null && break; sleep 0.05; done
    fi
    kill -TERM $pid; wait $pid; rc=$?
    reach=$(sed -n 's/.*still reachable: \([0-9,]*\) bytes.*/\1/p' "$WORK/cs$snap.log" | tr -d ,)
    check "cxx_service, $snap snapshot(s), SIGTERM: status 143, the pool still reachable (${reach:-none} bytes), nothing suppressed" sh -c "[ $rc = 143 ] && [ \"${reach:-0}\" -ge 72704 ] && grep -q 'suppressed: 0 bytes in 0 blocks' '$WORK/cs$snap.log'"
done
if have_valgrind; then
    (cd "$WORK" && exec valgrind --log-file="$WORK/cs.mc" "$cs" >"$WORK/cs.mc.out" 2>/dev/null) &
    pid=$!
    for i in $(seq 200); do grep -q ready "$WORK/cs.mc.out" 2>/dev/null && break; sleep 0.05; done
    kill -TERM $pid; wait $pid
    # The churn's count of calls depends on timing: the leak summary only.
    tac "$WORK/cs1.log" | sed '/HEAP SUMMARY/q' | tac >"$WORK/cs1.exit" # the exit's report
    summary_numbers "$WORK/cs1.exit" | grep -v -e "^ERROR" -e "total heap usage" >"$WORK/cs.lp.sum"
    summary_numbers "$WORK/cs.mc" | grep -v -e "^ERROR" -e "total heap usage" >"$WORK/cs.mc.sum"
    check "cxx_service after a snapshot, SIGTERM: leak summary as Memcheck's" cmp -s "$WORK/cs.lp.sum" "$WORK/cs.mc.sum"
fi
