#!/bin/bash
# builtin_valgrind.sh - the built-in suppressions (lp_supp_builtin_text)
# are valid Valgrind files and hide exactly the runtime allocations they
# are meant for, on the real stacks Valgrind 3.19 sees. Valgrind's own
# freeres hooks are turned off so the allocations stay.
. "$(dirname "$0")/_lib.sh"
command -v valgrind >/dev/null 2>&1 || { echo "SKIP: valgrind not installed"; exit 77; }
cigate_tmp
build_prog
cd "$T" || exit 1
./report_prog builtin runtime >runtime.supp
./report_prog builtin threads >threads.supp

vg() { valgrind --leak-check=full --show-leak-kinds=all -s --run-libc-freeres=no --run-cxx-freeres=no "$@" 2>&1; }
used() { grep -q "used_suppression: *1 $1 .*suppressed: $2 bytes in 1 blocks" vg.log; }

# libstdc++ emergency pool, 72,704 bytes with libstdc++ 12.
if command -v ${CXX:-c++} >/dev/null 2>&1; then
    printf '#include <string>\nint main(int c, char **v) { std::string s(v[0]); return (int)s.size() < 0; }\n' >cxx.cpp
    if ${CXX:-c++} -O0 -o cxx cxx.cpp 2>/dev/null; then
        vg ./cxx >base.log
        vg --suppressions=runtime.supp ./cxx >vg.log
        if grep -q FATAL vg.log; then echo "FAIL: valgrind reads the built-in file"; grep -A1 FATAL vg.log
        elif grep -q 'still reachable: 72,704 bytes in 1 blocks' base.log &&
             grep -q 'still reachable: 0 bytes in 0 blocks' vg.log &&
             used lp-libstdcxx-eh-pool 72,704; then
            echo "PASS: lp-libstdcxx-eh-pool hides the emergency pool"
        else
            echo "FAIL: lp-libstdcxx-eh-pool hides the emergency pool"; grep -E 'reachable|used_supp' base.log vg.log
        fi
    fi
fi

# stdio buffer of stdout.
printf '#include <stdio.h>\nint main(void) { printf("x\\n"); return 0; }\n' >stdio.c
${CC:-cc} -O0 -o stdio stdio.c
vg ./stdio >base.log
vg --suppressions=runtime.supp ./stdio >vg.log
if grep -q 'still reachable: [1-9][0-9,]* bytes in 1 blocks' base.log &&
   grep -q 'still reachable: 0 bytes in 0 blocks' vg.log &&
   grep -q 'used_suppression: *1 lp-stdio-buffer ' vg.log; then
    echo "PASS: lp-stdio-buffer hides the stdout buffer"
else
    echo "FAIL: lp-stdio-buffer hides the stdout buffer"; grep -E 'reachable|used_supp' base.log vg.log
fi

# A thread still running at exit: its DTV is possibly lost, and only the
# opt-in threads entry hides it; a real leak in that thread stays.
cat >thr.c <<'C'
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>
void *volatile sink;
static void *run(void *a) { (void)a; pause(); return 0; }
int main(void) { pthread_t t; pthread_create(&t, 0, run, 0); usleep(100000);
    sink = malloc(13); sink = 0; return 0; }
C
${CC:-cc} -O0 -pthread -o thr thr.c
vg --suppressions=runtime.supp ./thr >base.log
vg --suppressions=runtime.supp --suppressions=threads.supp ./thr >vg.log
if grep -q 'possibly lost: [1-9][0-9,]* bytes in 1 blocks' base.log &&
   grep -q 'possibly lost: 0 bytes in 0 blocks' vg.log &&
   grep -q 'definitely lost: 13 bytes in 1 blocks' vg.log &&
   grep -q 'used_suppression: *1 lp-thread-dtv ' vg.log; then
    echo "PASS: lp-thread-dtv hides a live thread's DTV, not real leaks"
else
    echo "FAIL: lp-thread-dtv hides a live thread's DTV, not real leaks"; grep -E 'lost:|used_supp' base.log vg.log
fi
