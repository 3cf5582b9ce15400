#!/bin/bash
# massif.out at exit: Massif's schedule and tree for a known program
# (FORMATS.md's prog1), ms_print and the strict grammar, time units,
# options in desc:, massif=0, %p, symlinks and unwritable paths.
. "$(dirname "$0")/_lib.sh"

cc_sample prog1 <<'C' || { echo "FAIL: compile"; exit 1; }
#include <stdlib.h>
static void *keep[64];
__attribute__((noinline)) void *leaf_alloc(size_t n) { return malloc(n); }
__attribute__((noinline)) void *mid_alloc(size_t n) { return leaf_alloc(n); }
__attribute__((noinline)) void small_allocs(void) {
    for (int i = 0; i < 20; i++) keep[20 + i] = malloc(8);
}
int main(void) {
    int i;
    for (i = 0; i < 10; i++) keep[i] = mid_alloc(1000);
    for (i = 10; i < 15; i++) keep[i] = leaf_alloc(2000);
    small_allocs();
    char *p = calloc(4, 1024);
    for (i = 0; i < 5; i++) { free(keep[i]); keep[i] = NULL; }
    p = realloc(p, 8192);
    free(p);
    for (i = 5; i < 40; i++) free(keep[i]);
    return 0;
}
C
cd "$T" || exit 1

LD_PRELOAD=$LIB ./prog1 >/dev/null 2>&1 & pid=$!; wait $pid; rc=$?
f=massif.out.$pid
check "exit status kept" '[ $rc -eq 0 ]' "rc=$rc"
check "massif.out.PID written" '[ -f $f ]'
check "mode 0644" '[ "$(stat -c %a $f)" = 644 ]' "$(stat -c %a $f 2>&1)"
check "no temp file left" '[ -z "$(ls | grep tmp)" ]' "$(ls)"
check "header" '[ "$(head -3 $f)" = "$(printf "desc: (none)\ncmd: ./prog1\ntime_unit: B")" ]' "$(head -3 $f)"
check "strict grammar" 'strict_ok $f'
check "ms_print reads it, graph has @ and #" 'ms_print_ok $f graph'
if [ -x /usr/bin/ms_print ]; then
    det=$(/usr/bin/ms_print $f | grep 'Detailed snapshots:')
    check "detailed list as massif's" '[ "$det" = " Detailed snapshots: [9, 19, 29, 37 (peak), 47, 57, 67]" ]' "$det"
fi
check "75 snapshots, numbered 0..74" '[ "$(grep -c ^snapshot= $f)" = 75 ] && grep -q ^snapshot=74$ $f'
peak=$(sed -n '/^heap_tree=peak/,/^#/p' $f | sed 's/0x[0-9A-F]*/ADDR/')
want="heap_tree=peak
n3: 24256 (heap allocation functions) malloc/new/new[], --alloc-fns, etc.
 n2: 20000 ADDR: leaf_alloc (prog1.c:3)
  n1: 10000 ADDR: mid_alloc (prog1.c:4)
   n0: 10000 ADDR: main (prog1.c:10)
  n0: 10000 ADDR: main (prog1.c:11)
 n0: 4096 ADDR: main (prog1.c:13)
 n0: 160 in 1 place, below massif's threshold (1.00%)
#-----------"
check "peak tree as massif's" '[ "$peak" = "$want" ]' "$peak"
check "peak time and heap" 'grep -B6 ^heap_tree=peak $f | grep -q ^mem_heap_B=24256$'
# Zero-byte contexts stay in the tree (as massif's snapshot 67 shows).
check "zero-byte contexts kept" 'grep -q "^ n0: 0 in 3 places, all below massif.s threshold (1.00%)$" $f'

for u in i ms; do
    LEAKPROF_OPTIONS="time_unit=$u:massif=$T/u.$u.%p:detailed_freq=1" LD_PRELOAD=$LIB ./prog1 >/dev/null 2>&1 & pid=$!; wait $pid
    g=$T/u.$u.$pid
    check "time_unit=$u file" '[ -f $g ] && grep -q "^time_unit: $u$" $g' "$(ls)"
    check "time_unit=$u desc" 'grep -q "^desc: --time-unit=$u --massif-out-file=$T/u.$u.%p --detailed-freq=1$" $g' "$(head -1 $g)"
    check "time_unit=$u strict + ms_print" 'strict_ok $g && ms_print_ok $g'
done
t=$(awk -F= '/^time=/{print $2}' $T/u.i.* | tail -1)
check "time_unit=i counts calls (<= 77)" '[ "$t" -le 77 ] && [ "$t" -ge 60 ]' "$t"

rm -f massif.out.*
LEAKPROF_OPTIONS=massif=0 LD_PRELOAD=$LIB ./prog1 >/dev/null 2>&1
check "massif=0 writes nothing" '[ -z "$(ls massif.out.* 2>/dev/null)" ]'

LEAKPROF_OPTIONS="massif=$T/thr:threshold=50:depth=1:max_snapshots=10" LD_PRELOAD=$LIB ./prog1 >/dev/null 2>&1
check "threshold/depth/max_snapshots honoured" 'strict_ok thr && [ $(grep -c ^snapshot= thr) -lt 10 ] && ! grep -q "^  n" thr && grep -q "threshold (50.00%)" thr' "$(head -30 thr)"

echo secret > target
ln -s target link.out
LEAKPROF_OPTIONS=massif=link.out LD_PRELOAD=$LIB ./prog1 >/dev/null 2>&1
check "symlink not followed" '[ "$(cat target)" = secret ] && [ ! -L link.out ] && strict_ok link.out'

mkdir ro && chmod 555 ro
if [ "$(id -u)" != 0 ]; then
    out=$(LEAKPROF_OPTIONS=massif=ro/x.%p LD_PRELOAD=$LIB ./prog1 2>&1 >/dev/null); rc=$?
    n=$(printf '%s\n' "$out" | grep -c "leakprof: cannot write '.*ro/x\.[0-9]*': Permission denied")
    check "unwritable: one warning, status kept" '[ $n = 1 ] && [ $rc = 0 ]' "rc=$rc $out"
else
    skip "unwritable dir" "running as root"
fi

cc_sample forker <<'C' || exit 1
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
int main(void) {
    void *a = malloc(1000);
    pid_t c = fork();
    if (c == 0) { void *b = malloc(5000); free(b); free(a); return 0; }
    waitpid(c, NULL, 0);
    free(a);
    return 0;
}
C
rm -f massif.out.*
LD_PRELOAD=$LIB ./forker >/dev/null 2>&1
n=$(ls massif.out.* 2>/dev/null | wc -l)
check "fork: parent and child write their own %p file" '[ $n = 2 ]' "$(ls)"
check "fork: child has the 5000-byte block and history" 'grep -l ^mem_heap_B=6000$ massif.out.* | grep -q . && grep -c ^mem_heap_B=1000$ massif.out.* | grep -qv ":0$"'
for g in massif.out.*; do check "fork file $g strict + ms_print" 'strict_ok $g && ms_print_ok $g'; done

# Two threads churning a steady heap, one of them building and freeing a
# 3 MB transient in between: each thread counts in pending deltas and
# asks for a peak when it flushes them, by the highest point its own
# events reached since its last flush, and before the first block that
# goes after such a point. The peak must be the transient's, as Massif's
# is: Massif takes a new peak only 1% above the last (--peak-inaccuracy),
# so either may stop up to 1% under the top; 20 runs here read 0.0-0.9%
# under Massif's.
cc_sample tpeak <<'C' || { echo "FAIL: compile tpeak"; exit 1; }
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
static void *worker(void *a) {
    long id = (long)a;
    void *win[64] = {0};
    for (int i = 0; i < 200000; i++) {
        int s = i & 63;
        free(win[s]);
        win[s] = malloc(64 + (i * 7 % 200));
        memset(win[s], 1, 8);
        if (id == 1 && i == 100000) {
            static void *big[3000];
            for (int k = 0; k < 3000; k++) big[k] = malloc(1000);
            for (int k = 0; k < 3000; k++) free(big[k]);
        }
    }
    for (int s = 0; s < 64; s++) free(win[s]);
    return 0;
}
int main(void) {
    pthread_t t[2];
    for (long i = 0; i < 2; i++) pthread_create(&t[i], 0, worker, (void *)(i + 1));
    for (int i = 0; i < 2; i++) pthread_join(t[i], 0);
    return 0;
}
C
rm -f massif.out.*
LD_PRELOAD=$LIB ./tpeak >/dev/null 2>&1
g=$(ls massif.out.* 2>/dev/null | head -1)
pk=$(grep -B3 '^heap_tree=peak' "$g" 2>/dev/null | sed -n 's/^mem_heap_B=//p')
check "2 threads: the peak is the 3 MB transient's ($pk bytes)" '[ "${pk:-0}" -ge 2960000 ] && [ "${pk:-0}" -le 3060000 ]' "$pk"
if command -v valgrind >/dev/null; then
    rm -f massif.out.*
    valgrind --tool=massif ./tpeak >/dev/null 2>&1
    g=$(ls massif.out.* 2>/dev/null | head -1)
    vk=$(grep -B3 '^heap_tree=peak' "$g" 2>/dev/null | sed -n 's/^mem_heap_B=//p')
    check "2 threads: peak within 1.5% of Massif's ($pk vs $vk)" '[ -n "$vk" ] && [ $(( (pk > vk ? pk - vk : vk - pk) * 1000 )) -le $(( vk * 15 )) ]' "$pk $vk"
fi

# Blocks as big as a thread's quantum, freed by a thread while another
# exists: the peak is taken before the first of them goes, with every
# block in it, as Massif takes it. Asked after the free had been charged,
# ten 1 MB blocks peaked at 9 MB, and one 100 MB block at 272 bytes,
# after the free (no '#' in ms_print's graph).
cc_sample bigfree <<'C' || { echo "FAIL: compile bigfree"; exit 1; }
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static int n;
static size_t size;
static void *work(void *a) {
    void *p[16];
    for (int i = 0; i < n; i++) { p[i] = malloc(size); memset(p[i], 1, 64); }
    for (int i = 0; i < n; i++) free(p[i]);
    return a;
}
int main(int argc, char **argv) {
    pthread_t t;
    n = atoi(argv[1]);
    size = strtoul(argv[2], NULL, 10);
    pthread_create(&t, 0, work, 0);
    pthread_join(t, 0);
    puts("ok");
    return 0;
}
C
for shape in "10 1000000" "1 100000000"; do
    rm -f massif.out.*
    LD_PRELOAD=$LIB ./bigfree $shape >/dev/null 2>&1
    g=$(ls massif.out.* 2>/dev/null | head -1)
    pk=$(grep -B3 '^heap_tree=peak' "$g" 2>/dev/null | sed -n 's/^mem_heap_B=//p')
    n=${shape% *} sz=${shape#* }
    check "thread frees $n x $sz B: the peak holds them all ($pk)" '[ "${pk:-0}" -ge $((n * sz)) ]' "$pk"
    if command -v valgrind >/dev/null; then
        rm -f massif.out.*
        valgrind --tool=massif --peak-inaccuracy=0 ./bigfree $shape >/dev/null 2>&1
        g=$(ls massif.out.* 2>/dev/null | head -1)
        vk=$(grep -B3 '^heap_tree=peak' "$g" 2>/dev/null | sed -n 's/^mem_heap_B=//p')
        check "thread frees $n x $sz B: peak as Massif's ($pk vs $vk)" '[ -n "$vk" ] && [ "$pk" = "$vk" ]' "$pk $vk"
    fi
done
# alloc_fn=NAME (Massif's --alloc-fn): the named wrappers count as
# allocators, but only where they sit contiguously on top of the stack,
# and names are compared whole (no patterns): an outer wrapper alone, a
# caller of the wrappers and "my*" change nothing.
cc_sample wrap <<'C' || { echo "FAIL: compile wrap"; exit 1; }
#include <stdlib.h>
#include <string.h>
__attribute__((noinline)) void *my_alloc(size_t n) { void *p = malloc(n); memset(p, 0, n); return p; }
__attribute__((noinline)) void *xmalloc(size_t n) { void *p = my_alloc(n); if (!p) abort(); return p; }
__attribute__((noinline)) void *helper(size_t n) { return xmalloc(n); }
__attribute__((noinline)) void *direct(size_t n) { return malloc(n); }
static void *keep[300];
int main(void) {
    int i;
    for (i = 0; i < 100; i++) keep[i] = helper(1000);
    for (i = 100; i < 200; i++) keep[i] = xmalloc(500);
    for (i = 200; i < 300; i++) keep[i] = direct(300);
    for (i = 0; i < 300; i++) free(keep[i]);
    return 0;
}
C
# The peak tree, frames without addresses.
peak_of() { sed -n '/^heap_tree=peak/,/^#/p' "$1" | sed -E 's/0x[0-9A-F]+: //'; }
t1=" n1: 150000 my_alloc (wrap.c:3)
  n2: 150000 xmalloc (wrap.c:4)
   n1: 100000 helper (wrap.c:5)
    n0: 100000 main (wrap.c:10)
   n0: 50000 main (wrap.c:11)
 n1: 30000 direct (wrap.c:6)
  n0: 30000 main (wrap.c:12)"
t2=" n2: 150000 xmalloc (wrap.c:4)
  n1: 100000 helper (wrap.c:5)
   n0: 100000 main (wrap.c:10)
  n0: 50000 main (wrap.c:11)
 n1: 30000 direct (wrap.c:6)
  n0: 30000 main (wrap.c:12)"
for case in "1||" "2|alloc_fn=my_alloc|" "3|alloc_fn=my_alloc:alloc_fn=xmalloc|" \
            "1|alloc_fn=xmalloc|" "1|alloc_fn=helper|" "1|alloc_fn=my*|"; do
    IFS='|' read -r want opts _ <<<"$case"
    LEAKPROF_OPTIONS="massif=$T/af.out:detailed_freq=1${opts:+:$opts}" LD_PRELOAD=$LIB ./wrap >/dev/null 2>&1
    got=$(peak_of $T/af.out | sed '1,2d;$d')
    case $want in
    1) exp=$t1 ;;
    2) exp=$t2 ;;
    3) exp=" n1: 100000 helper (wrap.c:5)
  n0: 100000 main (wrap.c:10)
 n0: 50000 main (wrap.c:11)
 n1: 30000 direct (wrap.c:6)
  n0: 30000 main (wrap.c:12)" ;;
    esac
    check "alloc_fn: '${opts:-none}' peak tree" '[ "$got" = "$exp" ]' "$got"
    if command -v valgrind >/dev/null; then
        vopts=$(printf '%s' "$opts" | sed 's/alloc_fn=/--alloc-fn=/g; s/:/ /g')
        # shellcheck disable=SC2086
        valgrind --tool=massif --time-unit=B --detailed-freq=1 --massif-out-file=$T/vaf.out $vopts ./wrap >/dev/null 2>&1
        check "alloc_fn: '${opts:-none}' peak tree as Massif's" '[ "$(peak_of $T/af.out)" = "$(peak_of $T/vaf.out)" ]' "$(peak_of $T/vaf.out)"
    fi
done
"$O/leakprof" -q --massif-out-file=$T/afl.out --alloc-fn=my_alloc --alloc-fn='xmalloc' ./wrap >/dev/null 2>&1
check "--alloc-fn twice on the launcher: in desc: and the tree" 'head -1 $T/afl.out | grep -q -- "--alloc-fn=my_alloc --alloc-fn=xmalloc\$" && ! grep -q "xmalloc (" $T/afl.out' "$(head -1 $T/afl.out)"
# heap_admin=N (Massif's --heap-admin): N bytes a block in
# mem_heap_extra_B instead of 8, so at the peak (300 blocks live) the
# extra moves by 300 x (N - 8) and the heap stays; 0..1024, in desc:.
peak_extra() { grep -B4 '^heap_tree=peak' "$1" | sed -n "s/^$2=//p"; }
for a in 0 64; do
    LEAKPROF_OPTIONS="massif=$T/ha$a.out:heap_admin=$a" LD_PRELOAD=$LIB ./wrap >/dev/null 2>&1
done
LEAKPROF_OPTIONS="massif=$T/ha8.out" LD_PRELOAD=$LIB ./wrap >/dev/null 2>&1
e0=$(peak_extra $T/ha0.out mem_heap_extra_B) e8=$(peak_extra $T/ha8.out mem_heap_extra_B) e64=$(peak_extra $T/ha64.out mem_heap_extra_B)
check "heap_admin: extra at the peak moves by 300 x (N - 8) ($e0 $e8 $e64)" '[ $((e8 - e0)) = 2400 ] && [ $((e64 - e8)) = 16800 ]' "$e0 $e8 $e64"
check "heap_admin: heap unchanged" '[ "$(peak_extra $T/ha0.out mem_heap_B)" = 180000 ] && [ "$(peak_extra $T/ha64.out mem_heap_B)" = 180000 ]'
check "heap_admin=64 in desc:, strict + ms_print" 'head -1 $T/ha64.out | grep -q -- "--heap-admin=64\$" && strict_ok $T/ha64.out && ms_print_ok $T/ha64.out'
"$O/leakprof" -q --heap-admin=2000 ./wrap >/dev/null 2>$T/ha.err; rc=$?
check "--heap-admin=2000 refused before the program runs" '[ $rc = 1 ] && grep -q "heap-admin" $T/ha.err' "$(cat $T/ha.err)"
finish
