# A Go program (cgo, so dynamically linked and preloaded) ends with an
# exit_group system call of Go's own runtime.exit: no atexit handler, no
# destructor. The report and the massif file must still be written, and
# the status kept. samples/go_exit.c ends exactly so (Go's note, a copy of
# runtime.exit); with a Go toolchain, a real cgo program too. The build
# before this lost both, every run.
. "$(dirname "$0")/_lib.sh"
P=$SAMPLES/go_exit

run_lp "$WORK/ge.txt" "" "$P" 7
check "go exit: the report is written" grep -q "definitely lost: 42 bytes in 1 blocks" "$WORK/ge.txt"
check "go exit: the ERROR SUMMARY ends it" sh -c "tail -1 '$WORK/ge.txt' | grep -q 'ERROR SUMMARY: 1 errors'"
if have_valgrind; then
    run_mc "$WORK/mc_ge.txt" "--leak-check=full" "$P" 7
    same_as_memcheck "go exit: whole report as Memcheck's" "$WORK/ge.txt" "$WORK/mc_ge.txt"
else
    echo "SKIP: go exit: report as Memcheck's (no valgrind)"
fi

# From a second thread while main allocates; massif on.
(cd "$WORK" && timeout 60 env LEAKPROF_OPTIONS="massif=$WORK/ms.%p:log=$WORK/get.txt" \
    LD_PRELOAD="$LIB" "$P" thread 5 >"$WORK/get.out" 2>/dev/null); rc=$?
"$P" thread 5 >"$WORK/get.nat" 2>/dev/null; nrc=$?
as_native "go exit from a thread" "$WORK/get.out" $rc "$WORK/get.nat" $nrc
check "go exit from a thread: the report is written" grep -q "definitely lost: 42 bytes in 1 blocks" "$WORK/get.txt"
check "go exit from a thread: the massif file is written" sh -c "grep -q '^snapshot=' '$WORK'/ms.*"
if [ -x /usr/bin/ms_print ]; then
    check "go exit from a thread: ms_print reads it" sh -c "/usr/bin/ms_print '$WORK'/ms.* >/dev/null"
fi
# error_exitcode applies to a Go exit's status 0 as to any other.
(cd "$WORK" && LEAKPROF_OPTIONS="massif=0:log=/dev/null:error_exitcode=23" LD_PRELOAD="$LIB" "$P" 0 >/dev/null 2>&1); rc=$?
check "go exit: error_exitcode on leaks (23)" [ $rc = 23 ]

# A program that only looks like it (no Go note) is left alone: its own
# copy of the code is not touched and it ends without a report, as before.
cat >"$WORK/notgo.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
__asm__(".text\n.p2align 5\nfake_exit:\n movl 8(%rsp), %edi\n movl $231, %eax\n syscall\n ret\n");
int main(void) {
    void *volatile p = malloc(9);
    (void)p;
    puts("not go");
    fflush(stdout);
    __asm__ volatile("sub $16, %%rsp\n movl $6, (%%rsp)\n call fake_exit\n" ::: "memory");
    return 0;
}
C
cc -o "$WORK/notgo" "$WORK/notgo.c" 2>/dev/null
run_lp "$WORK/ng.txt" "" "$WORK/notgo"
check "no Go note: left alone (no report, status kept)" sh -c "! grep -q 'HEAP SUMMARY' '$WORK/ng.txt'"

# A real cgo program: the report, the status of os.Exit, Go's own
# recovered nil dereference untouched.
if ! command -v go >/dev/null 2>&1; then
    echo "SKIP: go exit: a real cgo program (no go toolchain)"
    exit 0
fi
mkdir -p "$WORK/gosrc"
cat >"$WORK/gosrc/main.go" <<'GO'
package main

/*
#include <stdlib.h>
static void *leak(int n) { return malloc(n); }
*/
import "C"
import (
	"fmt"
	"os"
)

type T struct{ x int }

func deref(p *T) (v int, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("recovered")
		}
	}()
	return p.x, nil
}

func main() {
	for i := 0; i < 3; i++ {
		C.leak(1000)
	}
	_, err := deref(nil)
	fmt.Println("go:", err)
	os.Exit(3)
}
GO
printf 'module lpgo\ngo 1.19\n' >"$WORK/gosrc/go.mod"
(cd "$WORK/gosrc" && GOCACHE="$WORK/gocache" GOPATH="$WORK/gopath" GOFLAGS=-mod=mod \
    CGO_ENABLED=1 go build -o "$WORK/goapp" . >"$WORK/gobuild.err" 2>&1) || {
    echo "SKIP: go exit: a real cgo program (go build failed: $(head -1 "$WORK/gobuild.err"))"; exit 0; }
run_lp "$WORK/go.txt" "" "$WORK/goapp"
check "real cgo program: the report is written" grep -q "HEAP SUMMARY" "$WORK/go.txt"
check "real cgo program: C.leak's blocks are in it" grep -q "by 0x[0-9A-F]*: leak (main.go:" "$WORK/go.txt"
check "real cgo program: Go's assembly named from its own line table" grep -q "by 0x[0-9A-F]*: runtime.asmcgocall[.a-z0-9]* (asm_amd64.s:[0-9]*)" "$WORK/go.txt"
