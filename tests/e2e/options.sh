# Bad input never changes the program: unknown keys and bad values give one
# warning line each; an unwritable log path gives a warning and the report
# goes to stderr; the program's output and exit status are unchanged.
. "$(dirname "$0")/_lib.sh"
prog=$SAMPLES/edge_alloc
"$prog" >"$WORK/native.out" 2>&1; native_rc=$?
(cd "$WORK" && LEAKPROF_OPTIONS="massif=0:nosuch=1:depth=0:leak_check=maybe" LD_PRELOAD="$LIB" "$prog" >"$WORK/lp.out" 2>"$WORK/lp.err"); rc=$?
check "bad options: same exit status" [ "$rc" = "$native_rc" ]
check "bad options: same output" cmp -s "$WORK/native.out" "$WORK/lp.out"
check "bad options: one warning each" [ "$(grep -c 'leakprof: .* in LEAKPROF_OPTIONS, ignored' "$WORK/lp.err")" = 3 ]
check "bad options: names the key" grep -q "unknown option 'nosuch=1'" "$WORK/lp.err"
check "bad options: report still written" grep -q 'HEAP SUMMARY' "$WORK/lp.err"

(cd "$WORK" && LEAKPROF_OPTIONS="massif=0:log=/nonexistent/dir/r.txt" LD_PRELOAD="$LIB" "$SAMPLES/slow_app" >/dev/null 2>"$WORK/unw.err"); rc=$?
check "unwritable log: status 0" [ "$rc" = 0 ]
check "unwritable log: warning" grep -q "leakprof: cannot open '/nonexistent/dir/r.txt'" "$WORK/unw.err"
check "unwritable log: report on stderr" grep -q 'definitely lost: 20,480,000 bytes in 5,000 blocks' "$WORK/unw.err"

(cd "$WORK" && LEAKPROF_OPTIONS="massif=0:log=r.%p.txt" LD_PRELOAD="$LIB" "$SAMPLES/slow_app" >/dev/null 2>"$WORK/pid.err")
check "log %p expands" sh -c "ls '$WORK'/r.[0-9]*.txt >/dev/null 2>&1"
check "log file holds the report" sh -c "grep -q 'LEAK SUMMARY' '$WORK'/r.[0-9]*.txt"
check "nothing on stderr with log=" [ ! -s "$WORK/pid.err" ]

# The launcher maps --flags onto options and keeps the exit status.
"$TOP/$O/leakprof" --massif=0 -- "$prog" >"$WORK/l.out" 2>"$WORK/l.err"; rc=$?
check "launcher: exit status" [ "$rc" = "$native_rc" ]
"$TOP/$O/leakprof" --massif=0 --leak-check=summary -- "$SAMPLES/slow_app" >"$WORK/l.out" 2>"$WORK/l.err"
check "launcher: summary mode" sh -c "grep -q 'LEAK SUMMARY' '$WORK/l.err' && ! grep -q 'loss record' '$WORK/l.err'"
"$TOP/$O/leakprof" --bogus-flag >/dev/null 2>&1; rc=$?
check "launcher: unknown option stops it" [ "$rc" = 1 ]

# sample_bytes=N: about one allocation per N bytes is tracked, and the
# report estimates the whole heap: slow_app leaks 5,000 blocks of 4,096
# bytes (a block in four is tracked at N=16384; the estimate is within 10%).
run_lp "$WORK/s.txt" "sample_bytes=16384" "$SAMPLES/slow_app"
read -r sb sk <<<"$(sed -nE 's/.* ([0-9,]+) bytes in ([0-9,]+) blocks are definitely lost in loss record.*/\1 \2/p' "$WORK/s.txt" | tr -d ,)"
check "sample_bytes: the leak estimated within 10% ($sb bytes, $sk blocks)" \
    test "${sb:-0}" -ge 18432000 -a "${sb:-0}" -le 22528000 -a "${sk:-0}" -ge 4500 -a "${sk:-0}" -le 5500
check "sample_bytes: labelled as estimates" grep -q 'Sampled run (sample_bytes=16384): heap and leak figures are estimates' "$WORK/s.txt"

# malloc_fill/free_fill (Memcheck's --malloc-fill/--free-fill): new blocks
# (not calloc's, and for realloc only the bytes it added) and freed ones
# hold the byte, so the program prints what it prints under Memcheck with
# the same options; without them, what it prints natively.
cat >"$WORK/fill.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(void) {
    unsigned char *a = malloc(64), *c = calloc(1, 64), *r;
    volatile unsigned char *dangling;
    printf("malloc %02x %02x\n", a[0], a[63]);
    printf("calloc %02x %02x\n", c[0], c[63]);
    memset(a, 1, 64);
    r = realloc(a, 200);
    printf("realloc kept %02x new %02x %02x\n", r[63], r[64], r[199]);
    dangling = r;
    free(r);
    printf("freed %02x %02x\n", dangling[100], dangling[199]);
    free(c);
    return 0;
}
C
cc -g -O0 -o "$WORK/fill" "$WORK/fill.c"
(cd "$WORK" && LEAKPROF_OPTIONS="massif=0:log=$WORK/fill.log:malloc_fill=0xAB:free_fill=cd" LD_PRELOAD="$LIB" ./fill >"$WORK/fill.lp" 2>&1); rc=$?
check "malloc_fill/free_fill: status 0" [ "$rc" = 0 ]
check "malloc_fill/free_fill: the bytes as set" diff "$WORK/fill.lp" - <<'OUT'
malloc ab ab
calloc 00 00
realloc kept 01 new ab ab
freed cd cd
OUT
if have_valgrind; then
    (cd "$WORK" && valgrind -q --malloc-fill=0xAB --free-fill=0xCD ./fill >"$WORK/fill.mc" 2>/dev/null)
    check "malloc_fill/free_fill: the program's output as under Memcheck" cmp -s "$WORK/fill.mc" "$WORK/fill.lp"
fi
run_lp "$WORK/nofill.log" "" ./fill
"$TOP/$O/leakprof" --massif=0 --malloc-fill=0xABC ./fill >/dev/null 2>"$WORK/fill.err"; rc=$?
check "--malloc-fill=0xABC: bad value, program not run" sh -c "[ $rc = 1 ] && grep -q 'bad value' '$WORK/fill.err'"
