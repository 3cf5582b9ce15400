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

# run_case NAME [MORE_OPTIONS] : native, ours and Memcheck's runs of samples/NAME, with
# stdout and status compared. Leaves $WORK/NAME.lp and $WORK/NAME.mc.
run_case() {
    local name=$1 bin=$SAMPLES/$1 extra=${2:+:$2} nrc lrc
    (cd "$WORK" && timeout 60 "$bin" >"$WORK/$name.native" 2>/dev/null); nrc=$?
    (cd "$WORK" && timeout -k 5 60 env LEAKPROF_OPTIONS="massif=0:log=$WORK/$name.lp:$LP_OPTS$extra" \
        LD_PRELOAD="$LIB" "$bin" >"$WORK/$name.out" 2>"$WORK/$name.err"); lrc=$?
    check "$name: stdout as native" cmp -s "$WORK/$name.native" "$WORK/$name.out"
    check "$name: exit status as native ($nrc)" [ "$lrc" = "$nrc" ]
    check "$name: our report" grep -q 'LEAK SUMMARY' "$WORK/$name.lp"
    if have_valgrind; then
        (cd "$WORK" && timeout 300 valgrind --log-file="$WORK/$name.mc" $MC_OPTS "$bin" >/dev/null 2>&1)
        check "$name: memcheck's report" grep -q 'LEAK SUMMARY' "$WORK/$name.mc"
    fi
}

# Threaded programs: glibc sizes the DTV that pthread_create allocates for
# each thread by the number of loaded objects with a TLS segment, 16 bytes
# each. libleakprof.so has none (its per-thread state lives in the TCB,
# preload/hot/tcb_slot.h); libunwind, which it loads at start, has one,
# and the DTV calloc is recorded without that entry (preload/life/own_tls.c):
# every DTV figure is Memcheck's.
check "libleakprof.so itself has no TLS segment" sh -c "! readelf -lW '$LIB' | grep -q '^ *TLS '"

# mc_frames REPORT: the clone3 frame Valgrind cannot show (it makes glibc
# fall back to clone), as Memcheck shows it.
mc_frames() {
    sed -E 's/clone3 \(clone3\.S:[0-9]+\)/clone (clone.S:100)/' "$1"
}

# compare_mc NAME whole|summary: ours against Memcheck's.
compare_mc() {
    local name=$1 mode=$2
    have_valgrind || { echo "SKIP: $name vs memcheck (no valgrind)"; return; }
    mc_frames "$WORK/$name.lp" >"$WORK/$name.lpn"
    case $mode in
    whole) same_as_memcheck "$name: whole report as memcheck's" "$WORK/$name.lpn" "$WORK/$name.mc" ;;
    summary) vs_memcheck "$name: summary as memcheck's" "$WORK/$name.lpn" "$WORK/$name.mc" ;;
    esac
}

# reach NAME whole|summary [THREADS_CREATED [MORE_OPTIONS]]
# Cases whose threads still run at exit: by default the C runtime's
# buffers are not freed then (a thread may be inside libc); these threads
# sit in user code, so freeres=always gives Memcheck's figures.
reach() {
    run_case "$1" "${4:+$4:}freeres=always"
    compare_mc "$1" "$2"
}

reach reach_globals whole
reach reach_stack whole
reach reach_dead_frame whole
# Our own .bss (the unwinder's memos hold rbp values copied off the
# program's stack) is no root, though /proc/self/maps shows it unnamed.
reach reach_stale_rbp whole
# Nor is libunwind's memory while the program does not use libunwind
# itself: only we load it (Memcheck has no libunwind in the process).
reach reach_our_libs whole
reach reach_self whole
reach reach_cycles whole
reach reach_unaligned whole
reach reach_registers whole 1
# Dynamic TLS blocks (__tls_get_addr) are heap blocks under Memcheck
# 3.19 too: its default dtv-addr-init suppression does not match Debian
# 12's stacks (an inlined rtld-malloc.h frame comes first), so it shows
# them, and so do we (no built-in entry hides them).
reach reach_tls whole 2
reach reach_tsd whole 2
# Threads that block every signal cannot be stopped: their stacks are
# scanned whole, and the program still exits at once.
reach reach_sigblock whole 2
reach reach_heapstack whole 2
# Memcheck's unwinder walks one frame past __start_context into whatever
# the coroutine stack holds ("??? (in reach_ucontext)"); ours stops there.
# The verdicts do not depend on it.
reach reach_ucontext summary
reach reach_mmap_eof whole
reach reach_protnone whole
# A 1 GiB mapping and a 64 MiB block written in a few pages: the scan
# reads only those (the kernel's runs of present pages); verdicts as a
# full read gives them.
reach reach_sparse whole
# More threads busy at exit than the stop's first 1,024 slots: all are
# stopped and scanned (Memcheck needs --max-threads for them).
MC_OPTS="$MC_OPTS --max-threads=1600" reach reach_many_threads whole 1500

# Item 11: threads wrongly taken for dead. A thread in its key destructor
# after its start routine returned (glibc names the destructor loop
# __GI___nptl_deallocate_tsd for our symbolizer and __nptl_deallocate_tsd
# for Memcheck's: compared by summary), threads created but maybe not
# started yet, detached threads still running.
reach reach_keydtor summary 1
# main gone by pthread_exit, the process ended by its last thread: with
# the default freeres (no other thread left: the zombie main is none).
run_case reach_main_exited
compare_mc reach_main_exited whole
reach reach_notstarted whole 4
# Item 14, the figure itself: 4 live threads, each DTV block ours vs
# Memcheck's: our TLS modules' entries are not counted.
dtv_size() {
    awk '/ in loss record /{r=$0} /allocate_dtv \(/ && r!="" {
        match(r, /[0-9,]+ bytes in [0-9,]+ blocks/); split(substr(r, RSTART, RLENGTH), a, " ")
        gsub(/,/, "", a[1]); gsub(/,/, "", a[4]); print a[1] / a[4]; r=""; exit }' "$1"
}
if have_valgrind; then
    ours=$(dtv_size "$WORK/reach_notstarted.lp"); theirs=$(dtv_size "$WORK/reach_notstarted.mc")
    check "DTV block: Memcheck's size ($ours = $theirs)" \
        test -n "$ours" -a "$ours" = "$theirs"
fi
reach reach_detached whole 3
# A program linked with libunwind: the module is its own, its DTVs keep
# the entry (under Memcheck too).
reach reach_own_libunwind whole 2

# with_arg NAME ARG: samples/NAME ARG under the library and, if there is
# one, under Memcheck; reports in $WORK/NAME.ARG.lp and .mc.
with_arg() {
    (cd "$WORK" && timeout 60 env LEAKPROF_OPTIONS="massif=0:log=$WORK/$1.$2.lp:$LP_OPTS" \
        LD_PRELOAD="$LIB" "$SAMPLES/$1" "$2" >/dev/null 2>&1)
    if have_valgrind; then
        (cd "$WORK" && timeout 300 valgrind --log-file="$WORK/$1.$2.mc" $MC_OPTS \
            "$SAMPLES/$1" "$2" >/dev/null 2>&1)
    fi
}
# both_say NAME ARG WHAT PATTERN: our report and Memcheck's (if any) have it.
both_say() {
    check "$1 $2: $3" grep -q "$4" "$WORK/$1.$2.lp"
    if have_valgrind; then
        check "$1 $2: $3, as memcheck says" grep -q "$4" "$WORK/$1.$2.mc"
    fi
}

# A libstdc++ that a dlopen brought in (as a plugin's dependency): no
# __gnu_cxx::__freeres was bound at start, under Valgrind either, so its
# emergency pool stays "still reachable", neither freed nor suppressed.
run_case dlopen_cxx
compare_mc dlopen_cxx whole
with_arg dlopen_cxx global
both_say dlopen_cxx global "the emergency pool still reachable" \
    "72,704 bytes in 1 blocks are still reachable"

# A failed dlsym leaves glibc's dlerror record and message: freed by the
# exit's freeres, as under Memcheck, and never freed behind our back by a
# dl call of ours under the guard (they read "definitely lost" then).
run_case dlerror_state
compare_mc dlerror_state whole
# With a thread running at exit (freeres learned from a copy of the
# process, not run here) only the program's own leak and the std::thread
# object are lost.
with_arg dlerror_state thread
both_say dlerror_state thread "only its own blocks lost" \
    "definitely lost: 24 bytes in 2 blocks"

# A thread still waiting at exit, the C library's locale, gettext and
# stdio memory in use: freeres may not run here, so what it frees is
# learned from a copy of the process that runs it (freeres_child.c) and
# counted as freed, as Memcheck counts it (149 blocks in use at exit
# before, 3 as under Memcheck). The copy writes nothing: stdout as
# native (run_case) and the file's pending line once.
run_case freeres_threads
compare_mc freeres_threads whole
(cd "$WORK" && rm -f ft_once.txt && timeout 60 env LD_PRELOAD="$LIB" \
    LEAKPROF_OPTIONS="massif=0:log=$WORK/ft_once.lp" \
    "$SAMPLES/freeres_threads" return ft_once.txt >/dev/null 2>&1)
check "freeres_threads: the file's pending line written once" \
    sh -c "[ \"\$(cat '$WORK/ft_once.txt')\" = 'written once' ]"
# The same program ending by _exit: Valgrind runs its freeres there too;
# here the copy learns it, and writes nothing (natively the pending
# output is lost: stdout empty, the file too).
with_arg freeres_threads _exit
(cd "$WORK" && "$SAMPLES/freeres_threads" _exit ft_nat.txt >"$WORK/ft_exit.nat" 2>/dev/null)
(cd "$WORK" && rm -f ft_exit.txt && timeout 60 env LD_PRELOAD="$LIB" \
    LEAKPROF_OPTIONS="massif=0:log=$WORK/ft_exit.lp" \
    "$SAMPLES/freeres_threads" _exit ft_exit.txt >"$WORK/ft_exit.out" 2>/dev/null)
check "freeres_threads _exit: stdout as native" cmp -s "$WORK/ft_exit.nat" "$WORK/ft_exit.out"
check "freeres_threads _exit: the file as native (empty)" cmp -s "$WORK/ft_nat.txt" "$WORK/ft_exit.txt"
if have_valgrind; then
    mc_frames "$WORK/freeres_threads._exit.lp" >"$WORK/freeres_threads._exit.lpn"
    same_as_memcheck "freeres_threads _exit: whole report as memcheck's" \
        "$WORK/freeres_threads._exit.lpn" "$WORK/freeres_threads._exit.mc"
fi

# Fork without exec: each process writes its own report, as under
# Memcheck; the child's is found by its own leak (200 bytes), the
# parent's by its (300 bytes).
fork_case() {
    local bin=$SAMPLES/reach_fork nrc lrc role size f
    (cd "$WORK" && timeout 60 "$bin" >"$WORK/fork.native"); nrc=$?
    (cd "$WORK" && timeout 60 env LEAKPROF_OPTIONS="massif=0:log=$WORK/fork.lp.%p:$LP_OPTS" \
        LD_PRELOAD="$LIB" "$bin" >"$WORK/fork.out"); lrc=$?
    check "reach_fork: stdout as native" cmp -s "$WORK/fork.native" "$WORK/fork.out"
    check "reach_fork: exit status as native ($nrc)" [ "$lrc" = "$nrc" ]
    check "reach_fork: two reports" [ "$(ls "$WORK"/fork.lp.* 2>/dev/null | wc -l)" = 2 ]
    have_valgrind || return
    (cd "$WORK" && timeout 300 valgrind --log-file="$WORK/fork.mc.%p" $MC_OPTS "$bin" >/dev/null 2>&1)
    for role in child:200 parent:300; do
        size=${role#*:}; role=${role%:*}
        f=$(grep -l "^==[0-9]*== $size bytes in 1 blocks are definitely lost" "$WORK"/fork.lp.* | head -1)
        [ -n "$f" ] && cp "$f" "$WORK/fork_$role.lp"
        f=$(grep -l "^==[0-9]*== $size bytes in 1 blocks are definitely lost" "$WORK"/fork.mc.* | head -1)
        [ -n "$f" ] && cp "$f" "$WORK/fork_$role.mc"
        check "reach_fork: $role reports found" test -s "$WORK/fork_$role.lp" -a -s "$WORK/fork_$role.mc"
        compare_mc "fork_$role" whole
    done
}
fork_case

# _exit from a thread while two others allocate and free in a loop. The
# blocks in flight at that moment vary from run to run, under Memcheck
# too: compared are the exit status, stdout, and the blocks that do not
# vary - the one main dropped (definitely lost), the one kept in a global
# (still reachable) and the three threads' DTVs (possibly lost).
thread_exit_case() {
    local name=reach_thread_exit f line
    run_case $name
    for f in "$WORK/$name.lp" "$WORK/$name.mc"; do
        [ -f "$f" ] || continue
        for line in '1,000 bytes in 1 blocks are definitely lost' \
            '512 bytes in 1 blocks are still reachable' \
            'possibly lost: [0-9,]+ bytes in 3 blocks'; do
            check "$name: $(basename "$f"): $line" grep -Eq "$line" "$f"
        done
    done
}
thread_exit_case

# The environment copied out for a process title (nginx, PostgreSQL),
# with LD_PRELOAD the first of the variables: taken out of environ at our
# start, its string left a gap at the head of the run, nothing was copied
# and the block, which environ's entries point at natively, was
# definitely lost (nginx's master under us; reachable under Memcheck).
env_title_case() {
    local name=reach_env_title bin=$SAMPLES/reach_env_title nrc lrc vg
    (cd "$WORK" && env -i A=1 B=2 "$bin" >"$WORK/$name.native" 2>/dev/null); nrc=$?
    (cd "$WORK" && env -i LD_PRELOAD="$LIB" \
        LEAKPROF_OPTIONS="massif=0:log=$WORK/$name.lp:$LP_OPTS:freeres=always" \
        A=1 B=2 "$bin" >"$WORK/$name.out" 2>/dev/null); lrc=$?
    check "$name: stdout as native" cmp -s "$WORK/$name.native" "$WORK/$name.out"
    check "$name: exit status as native ($nrc)" [ "$lrc" = "$nrc" ]
    check "$name: the block still reachable" grep -q '4,096 bytes in 1 blocks are still reachable' "$WORK/$name.lp"
    # trace_children=yes, the options first of the run: their mark for
    # exec'd programs keeps the string where it was (renamed in place).
    (cd "$WORK" && env -i \
        LEAKPROF_OPTIONS="massif=0:log=$WORK/$name.tc.lp:$LP_OPTS:freeres=always:trace_children=yes" \
        LD_PRELOAD="$LIB" A=1 B=2 "$bin" >"$WORK/$name.tc.out" 2>/dev/null); lrc=$?
    check "$name, trace_children=yes: stdout as native" cmp -s "$WORK/$name.native" "$WORK/$name.tc.out"
    check "$name, trace_children=yes: exit status as native ($nrc)" [ "$lrc" = "$nrc" ]
    check "$name, trace_children=yes: the block still reachable" grep -q '4,096 bytes in 1 blocks are still reachable' "$WORK/$name.tc.lp"
    if have_valgrind; then
        vg=$(command -v valgrind)
        (cd "$WORK" && env -i A=1 B=2 "$vg" --log-file="$WORK/$name.mc" $MC_OPTS "$bin" >/dev/null 2>&1)
        compare_mc $name whole
    fi
}
env_title_case

# A finished thread's cached stack: its frames are dead, but its TCB (with
# the DTV pointer) and static TLS stay, as glibc keeps them for the next
# thread, and Memcheck scans them - until an exit's freeres unmaps them
# (Valgrind runs it at exit and _exit, not on a fatal signal). Killed by a
# signal after its threads finished, a process had the DTVs "definitely
# lost" here (python3's http.server on SIGTERM), "possibly lost" under
# Memcheck, and a block only a __thread variable of a finished thread
# held "definitely lost" too (Memcheck: still reachable). On a normal exit
# that block is definitely lost under both.
dead_thread_tcb_case() {
    local name=dead_thread_tcb nrc lrc mode
    cat >"$WORK/$name.c" <<'C'
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
static __thread char tls_buf[64];
static __thread void *volatile tls_block;
static void *work(void *arg) {
    tls_buf[0] = 1;
    if (arg)
        tls_block = malloc(40);
    return NULL;
}
int main(int argc, char **argv) {
    pthread_t t;
    for (int i = 0; i < 3; i++) {
        pthread_create(&t, NULL, work, i == 2 ? &t : NULL);
        pthread_join(t, NULL);
    }
    puts("joined");
    fflush(stdout);
    if (argc > 1)
        raise(SIGTERM);
    return 0;
}
C
    cc -pthread -o "$WORK/$name" "$WORK/$name.c" || { fail "$name: builds"; return; }
    for mode in sigterm exit; do
        local arg=""
        [ $mode = sigterm ] && arg=k
        (cd "$WORK" && "./$name" $arg >"$WORK/$name.native" 2>/dev/null); nrc=$?
        (cd "$WORK" && LD_PRELOAD="$LIB" LEAKPROF_OPTIONS="massif=0:log=$WORK/$name.$mode.lp" \
            "./$name" $arg >"$WORK/$name.out" 2>/dev/null); lrc=$?
        check "$name ($mode): stdout and status as native ($nrc)" sh -c "cmp -s '$WORK/$name.native' '$WORK/$name.out' && [ $lrc = $nrc ]"
        if [ $mode = sigterm ]; then
            check "$name ($mode): no definitely lost DTV" grep -q 'definitely lost: 0 bytes in 0 blocks' "$WORK/$name.$mode.lp"
        else
            check "$name ($mode): the __thread block definitely lost" grep -q 'definitely lost: 40 bytes in 1 blocks' "$WORK/$name.$mode.lp"
        fi
        if have_valgrind; then
            run_mc "$WORK/$name.$mode.mc" "--leak-check=full" "./$name" $arg
            vs_memcheck "$name ($mode): summary as Memcheck's" "$WORK/$name.$mode.lp" "$WORK/$name.$mode.mc"
        fi
    done
}
dead_thread_tcb_case

# quarantine=yes: freed blocks stay allocated while in the freelist, and
# realloc always moves, as under Memcheck. A lost block's dangling pointer
# (to a freed block, to a block realloc left) then meets no new block at
# that address, and both blocks are definitely lost, as Memcheck says;
# without it glibc reuses the address (or keeps the block where it is)
# and the second block is reached from the first: indirectly lost.
quarantine_case() {
    local name=quarantine nrc lrc
    cat >"$WORK/$name.c" <<'C'
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
struct node { struct node *next; char pad[24]; };
static __attribute__((noinline)) void dangling_free(void) {
    struct node *a = malloc(sizeof *a), *b = malloc(sizeof *b), *c;
    a->next = b;
    free(b);
    c = malloc(sizeof *c);      /* glibc: b's address again */
    c->next = NULL;
}
static __attribute__((noinline)) void dangling_realloc(void) {
    struct node *h = malloc(sizeof *h);
    char *p = malloc(96);
    h->next = (struct node *)p;
    p = realloc(p, 40);         /* glibc: shrunk where it is */
    memset(p, 1, 40);
}
/* The only pointers to two blocks lie in a freed block the freelist
 * holds: a big one (its own mapping, no tracked block in it) and one of a
 * thread's arena (no tracked block left there). Their memory is no root:
 * both blocks are definitely lost, as under Memcheck. */
static __attribute__((noinline)) void held_big(void) {
    void **big = malloc(256 * 1024);
    big[0] = malloc(40);
    big[1000] = malloc(50);
    free(big);
}
static void *volatile handed;
static void *holder_thread(void *arg) {
    void **h = malloc(1000);
    (void)arg;
    h[3] = handed;
    handed = NULL;
    free(h);
    return NULL;
}
static __attribute__((noinline)) void held_arena(void) {
    pthread_t t;
    handed = malloc(60);
    pthread_create(&t, NULL, holder_thread, NULL);
    pthread_join(t, NULL);
}
int main(void) {
    dangling_free();
    dangling_realloc();
    held_big();
    held_arena();
    puts("done");
    return 0;
}
C
    cc -O0 -g -pthread -o "$WORK/$name" "$WORK/$name.c" || { fail "$name: builds"; return; }
    (cd "$WORK" && "./$name" >"$WORK/$name.native" 2>/dev/null); nrc=$?
    (cd "$WORK" && LD_PRELOAD="$LIB" LEAKPROF_OPTIONS="massif=0:quarantine=yes:log=$WORK/$name.lp" \
        "./$name" >"$WORK/$name.out" 2>/dev/null); lrc=$?
    check "$name: stdout and status as native ($nrc)" sh -c "cmp -s '$WORK/$name.native' '$WORK/$name.out' && [ $lrc = $nrc ]"
    check "$name: seven blocks definitely lost" grep -q 'definitely lost: 286 bytes in 7 blocks' "$WORK/$name.lp"
    (cd "$WORK" && LD_PRELOAD="$LIB" LEAKPROF_OPTIONS="massif=0:log=$WORK/$name.off.lp" \
        "./$name" >/dev/null 2>&1)
    check "$name: without it, the reused address makes them indirect" grep -q 'indirectly lost: [1-9]' "$WORK/$name.off.lp"
    if have_valgrind; then
        run_mc "$WORK/$name.mc" "--leak-check=full" "./$name"
        same_as_memcheck "$name: whole report as Memcheck's" "$WORK/$name.lp" "$WORK/$name.mc"
    fi
}
quarantine_case
