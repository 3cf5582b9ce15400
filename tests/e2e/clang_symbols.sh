# Symbols from clang-built binaries (issue 9 item 13): clang emits no
# .debug_aranges, so the address -> compile unit lookup must not depend
# on it. The sample built with clang must give Memcheck's report (file:line
# in every frame Memcheck shows one), and run as it runs natively.
. "$(dirname "$0")/_lib.sh"
command -v clang >/dev/null 2>&1 || { echo "SKIP: clang symbols (no clang)"; exit 0; }
for opt in -O0 -O2; do
    bin=$WORK/leak_kinds_clang$opt
    clang -g $opt -fno-omit-frame-pointer -pthread -o "$bin" "$TOP/samples/leak_kinds.c" || {
        fail "clang $opt builds the sample"; continue; }
    (cd "$WORK" && "$bin" >"$WORK/native.out" 2>/dev/null; echo $? >"$WORK/native.rc")
    (cd "$WORK" && LEAKPROF_OPTIONS="massif=0:log=$WORK/lp$opt.txt" LD_PRELOAD="$LIB" "$bin" \
        >"$WORK/lp.out" 2>/dev/null; echo $? >"$WORK/lp.rc")
    check "clang $opt: stdout and exit status as native" \
        cmp -s "$WORK/native.out" "$WORK/lp.out"
    check "clang $opt: exit status as native" cmp -s "$WORK/native.rc" "$WORK/lp.rc"
    check "clang $opt: frames of the sample carry file:line" \
        grep -q 'main (leak_kinds.c:[0-9]*)' "$WORK/lp$opt.txt"
    if ! grep -q '(in .*leak_kinds_clang' "$WORK/lp$opt.txt"; then
        pass "clang $opt: no frame of the sample without file:line"
    else
        fail "clang $opt: no frame of the sample without file:line"
        grep '(in .*leak_kinds_clang' "$WORK/lp$opt.txt" | head -5
    fi
    if have_valgrind; then
        run_mc "$WORK/mc$opt.txt" "--leak-check=full" "$bin"
        same_as_memcheck "clang $opt: report as Memcheck's" "$WORK/lp$opt.txt" "$WORK/mc$opt.txt"
    else
        echo "SKIP: clang $opt: report as Memcheck's (no valgrind)"
    fi
done
# Built from the top directory with a relative path, clang writes the file
# entry "samples/leak_kinds.c" (directory and all) into its line table, and
# Memcheck prints that name whole.
bin=$WORK/leak_kinds_clang_rel
if (cd "$TOP" && clang -g -O0 -fno-omit-frame-pointer -o "$bin" samples/leak_kinds.c); then
    (cd "$WORK" && LEAKPROF_OPTIONS="massif=0:log=$WORK/lprel.txt" LD_PRELOAD="$LIB" "$bin" >/dev/null 2>&1)
    check "clang, relative source path: file names keep their directory" \
        grep -q 'main (samples/leak_kinds.c:[0-9]*)' "$WORK/lprel.txt"
    if have_valgrind; then
        run_mc "$WORK/mcrel.txt" "--leak-check=full" "$bin"
        same_as_memcheck "clang, relative source path: report as Memcheck's" "$WORK/lprel.txt" "$WORK/mcrel.txt"
    fi
else
    fail "clang builds the sample from a relative path"
fi
