# glibc's edge semantics hold under the library, and the heap numbers for
# them agree with Memcheck's.
. "$(dirname "$0")/_lib.sh"
"$SAMPLES/edge_alloc" >"$WORK/native.out"; native_rc=$?
(cd "$WORK" && LEAKPROF_OPTIONS="massif=0:log=$WORK/lp.txt" LD_PRELOAD="$LIB" "$SAMPLES/edge_alloc" >"$WORK/lp.out"); rc=$?
check "edge semantics: all ok natively" [ "$native_rc" = 0 ]
check "edge semantics: same under leakprof" cmp -s "$WORK/native.out" "$WORK/lp.out"
check "edge semantics: exit status" [ "$rc" = 0 ]
if have_valgrind; then
    run_mc "$WORK/mc.txt" "--leak-check=full" "$SAMPLES/edge_alloc"
    vs_memcheck "edge_alloc vs memcheck" "$WORK/lp.txt" "$WORK/mc.txt"
fi
