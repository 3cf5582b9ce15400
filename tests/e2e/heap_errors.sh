# Heap errors (issue 9, item 10): each bad free of samples/heap_errors and
# samples/heap_errors_cxx is reported as Memcheck reports it, and the
# program goes on: it prints its last line and exits 0.
#
# Natively glibc aborts on every one of these (SIGABRT), so the program's
# own stdout and exit status are compared with its run under Memcheck,
# where it survives, byte for byte. Our log (errors, heap summary, ERROR
# SUMMARY) must equal Memcheck's after normalising pids, addresses and
# the preload object's name, and glibc's clone3 frame (Valgrind makes
# glibc fall back to clone).
. "$(dirname "$0")/_lib.sh"

he_normalise() {
    sed -n '/^==[0-9]*== \(Thread [0-9]*:\|Invalid free\|Mismatched free\)/,$p' "$1" |
        sed -E 's/^==[0-9]+==/==/; s/0x[0-9A-Fa-f]+/0x/g;
            s/\(in [^)]*(vgpreload_memcheck-amd64-linux|libleakprof)\.so\)/(in PRELOAD)/;
            s/clone3 \(clone3\.S:[0-9]+\)/clone (clone.S:N)/; s/clone \(clone\.S:[0-9]+\)/clone (clone.S:N)/'
}

one_case() { # prog case [leakprof options] [valgrind options]
    # Memcheck keeps freed-at stacks by default; we do on request.
    local prog=$1 c=$2 lopt=:${3:-keep_stacktraces=alloc-and-free} vopt=$4 rc
    (cd "$WORK" && LEAKPROF_OPTIONS="massif=0:log=$WORK/lp.$c.txt$lopt" LD_PRELOAD="$LIB" \
        "$SAMPLES/$prog" "$c" >"$WORK/lp.$c.out" 2>"$WORK/lp.$c.err"); rc=$?
    check "$prog $c$lopt: exits 0 under leakprof" [ "$rc" = 0 ]
    check "$prog $c$lopt: prints its last line" grep -q "^$prog $c: done\$" "$WORK/lp.$c.out"
    if [ "$c" = correct ]; then
        check "$prog $c: no error reported" bash -c "! grep -q -E '(Invalid|Mismatched) free' '$WORK/lp.$c.txt'"
        check "$prog $c: ERROR SUMMARY 0" grep -q 'ERROR SUMMARY: 0 errors from 0 contexts' "$WORK/lp.$c.txt"
    else
        check "$prog $c$lopt: reported" grep -q -E '(Invalid|Mismatched) free\(\)' "$WORK/lp.$c.txt"
    fi
    if ! have_valgrind; then echo "SKIP: $prog $c vs memcheck (no valgrind)"; return; fi
    (cd "$WORK" && valgrind $vopt --log-file="$WORK/mc.$c.txt" "$SAMPLES/$prog" "$c" \
        >"$WORK/mc.$c.out" 2>/dev/null); rc=$?
    check "$prog $c: same exit status as under memcheck" [ "$rc" = 0 ]
    check "$prog $c: same stdout as under memcheck" cmp -s "$WORK/mc.$c.out" "$WORK/lp.$c.out"
    local drop='^$' from=he_normalise
    [ "$c" = correct ] && from=mc_normalise
    if diff -u <($from "$WORK/mc.$c.txt" | grep -v "$drop") \
               <($from "$WORK/lp.$c.txt" | grep -v "$drop") >"$WORK/d.$c"; then
        pass "$prog $c$lopt: report equals memcheck's"
    else
        fail "$prog $c$lopt: report equals memcheck's"; head -40 "$WORK/d.$c"
    fi
}

for c in double stack global interior realloc thread_stack repeat all; do
    one_case heap_errors "$c"
done
for c in newarr_delete malloc_delete new_free new_deletearr new_realloc wild unmapped correct all; do
    one_case heap_errors_cxx "$c"
done
# Memcheck's --keep-stacktraces=alloc: no freed-at stack is kept ("at 0x0: ???").
one_case heap_errors double keep_stacktraces=alloc --keep-stacktraces=alloc
one_case heap_errors realloc keep_stacktraces=alloc --keep-stacktraces=alloc
# show_mismatched_frees=no: a mismatched release is no error at all.
one_case heap_errors_cxx all "keep_stacktraces=alloc-and-free:show_mismatched_frees=no" --show-mismatched-frees=no
check "show_mismatched_frees=no: no mismatched free reported" bash -c "! grep -q 'Mismatched free' '$WORK/lp.all.txt'"
# The other modes: free'd at only, alloc'd at then free'd at, neither.
for k in free alloc-then-free none; do
    one_case heap_errors all keep_stacktraces=$k --keep-stacktraces=$k
    one_case heap_errors_cxx all keep_stacktraces=$k --keep-stacktraces=$k
done

# Natively, glibc aborts on the double free: what this test protects.
bash -c '"$1" double >/dev/null 2>&1' _ "$SAMPLES/heap_errors" 2>/dev/null; rc=$?
check "heap_errors double: glibc aborts natively (the reason for memcheck)" [ "$rc" -ne 0 ]

# error_exitcode counts heap errors as Memcheck's does.
(cd "$WORK" && LEAKPROF_OPTIONS="massif=0:log=$WORK/ec.txt:error_exitcode=42" LD_PRELOAD="$LIB" \
    "$SAMPLES/heap_errors" double >/dev/null 2>&1); rc=$?
check "error_exitcode fires on a heap error" [ "$rc" = 42 ]

# Sampled mode: untracked blocks are normal, nothing is checked.
(cd "$WORK" && LEAKPROF_OPTIONS="massif=0:log=$WORK/s.txt:sample_bytes=4096" LD_PRELOAD="$LIB" \
    "$SAMPLES/heap_errors_cxx" new_free >"$WORK/s.out" 2>&1); rc=$?
check "sampled mode: no heap error reported" bash -c "! grep -q 'free()' '$WORK/s.txt'"
check "sampled mode: program runs" [ "$rc" = 0 ]

# gen_suppressions=yes: each heap error is followed by its Memcheck:Free
# entry, inside the error markers as Memcheck prints them.
one_case heap_errors all "keep_stacktraces=alloc-and-free:gen_suppressions=yes:error_markers=BEGIN,END" \
    "--gen-suppressions=all --error-markers=BEGIN,END"
check "gen_suppressions: a Memcheck:Free entry for each heap error" sh -c \
    "[ \$(grep -c '^   Memcheck:Free\$' '$WORK/lp.all.txt') = \$(grep -cE '(Invalid|Mismatched) free' '$WORK/lp.all.txt') ] && [ \$(grep -c '^   Memcheck:Free\$' '$WORK/lp.all.txt') -gt 2 ]"
# Pasted into a file (named one by one), the entries suppress those
# errors: not shown, counted as suppressed, listed by -s, and no longer an
# error for error_exitcode; the whole report as Memcheck's with the file.
awk '/^\{/ { n++ } /<insert_a_suppression_name_here>/ { print "   free_" n; next } /^\{/,/^\}/' \
    "$WORK/lp.all.txt" >"$WORK/free.supp"
(cd "$WORK" && LEAKPROF_OPTIONS="massif=0:log=$WORK/sup.txt:keep_stacktraces=alloc-and-free:suppressions=$WORK/free.supp:verbosity=1:error_exitcode=42" \
    LD_PRELOAD="$LIB" "$SAMPLES/heap_errors" all >"$WORK/sup.out" 2>&1); rc=$?
check "Memcheck:Free suppressions: no heap error shown" bash -c "! grep -qE '(Invalid|Mismatched) free' '$WORK/sup.txt'"
check "Memcheck:Free suppressions: suppressed errors do not trip error_exitcode" [ "$rc" = 0 ]
check "Memcheck:Free suppressions: -s lists them" grep -q -- "-- used_suppression: *[0-9]* free_1 $WORK/free.supp:2\$" "$WORK/sup.txt"
if have_valgrind; then
    (cd "$WORK" && valgrind -s --suppressions="$WORK/free.supp" --log-file="$WORK/sup.mc" "$SAMPLES/heap_errors" all >/dev/null 2>&1)
    check "Memcheck:Free suppressions: ERROR SUMMARY and -s listing as Memcheck's" diff \
        <(sed -n '/ERROR SUMMARY/,$p' "$WORK/sup.mc" | sed -E 's/^(==|--)[0-9]+(==|--)/P/') \
        <(sed -n '/ERROR SUMMARY/,$p' "$WORK/sup.txt" | sed -E 's/^(==|--)[0-9]+(==|--)/P/')
fi
