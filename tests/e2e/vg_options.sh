# Valgrind options that change how frames print, each checked against
# Valgrind 3.19 on the same binaries (every loss record as Memcheck's):
#  --fullpath-after=S: source files with their directory, less all up to
#    and including the first S given that the directory holds (whole
#    without a match; an empty S matches at once), in the leak report and
#    in massif.out's labels; gen_suppressions and the XML's <dir>/<file>
#    are unchanged;
#  --show-below-main=yes: stacks go on past main, the functions below it
#    by their names (__libc_start_call_main, __libc_start_main@@GLIBC_2.34,
#    _start), then the "???" frames Memcheck's unwinder makes of the words
#    past _start's frame; --num-callers counts them all.
. "$(dirname "$0")/_lib.sh"
base=$(basename "$TOP")
for fa in "" "$TOP/" "/nowhere/ $base/" "/ $TOP/"; do
    lopt= vopt="--fullpath-after=" name="fullpath_after=${fa// /,}"
    [ -n "$fa" ] && vopt=
    for v in $fa; do lopt="$lopt:fullpath_after=$v" vopt="$vopt --fullpath-after=$v"; done
    [ -n "$fa" ] || lopt=":fullpath_after="
    run_lp "$WORK/fa.txt" "show_leak_kinds=all:gen_suppressions=yes$lopt" "$SAMPLES/leak_kinds"
    check "$name: a frame with its path" grep -q "leak_kinds.c:[0-9]*)" "$WORK/fa.txt"
    check "$name: not the base name alone" sh -c "! grep -q '(leak_kinds.c:' '$WORK/fa.txt'"
    if have_valgrind; then
        run_mc "$WORK/mc_fa.txt" "--leak-check=full --show-leak-kinds=all --gen-suppressions=all $vopt" "$SAMPLES/leak_kinds"
        same_as_memcheck "$name: whole report as memcheck's" "$WORK/fa.txt" "$WORK/mc_fa.txt"
    fi
done
run_lp "$WORK/fa_ms.txt" "massif=$WORK/fa.massif:fullpath_after=$TOP/" "$SAMPLES/slow_app"
check "fullpath_after: massif.out's labels carry the path" grep -q "(samples/slow_app.c:[0-9]*)$" "$WORK/fa.massif"
if have_valgrind; then
    (cd "$WORK" && valgrind --tool=massif --fullpath-after="$TOP/" --massif-out-file="$WORK/mc_fa.massif" "$SAMPLES/slow_app" >/dev/null 2>&1)
    labels() { grep -o '[a-z_]* (samples/[^)]*)$' "$1" | sort -u; }
    # (Which call sites a detailed snapshot holds differs: every label of
    # massif's must be one of ours.)
    missing=$(comm -13 <(labels "$WORK/fa.massif") <(labels "$WORK/mc_fa.massif"))
    check "fullpath_after: massif.out's labels as massif's" sh -c "[ -s '$WORK/mc_fa.massif' ] && [ -z '$missing' ]"
fi
(cd "$WORK" && LEAKPROF_OPTIONS="massif=0:xml=yes:xml_file=fa.xml:fullpath_after=$TOP/" LD_PRELOAD="$LIB" "$SAMPLES/leak_kinds" >/dev/null 2>&1)
check "fullpath_after: the XML's <dir> stays whole, <file> the name" \
    sh -c "grep -q '<dir>$TOP/samples</dir>' '$WORK/fa.xml' && grep -q '<file>leak_kinds.c</file>' '$WORK/fa.xml'"

# --show-below-main=yes, main-thread stacks (threads' end in clone as by
# default); C and C++, at the default depth and at smaller ones.
for pd in leak_kinds:12 cpp_containers:12 slow_app:12 leak_kinds:4 deep_stacks:30; do
    p=${pd%%:*} d=${pd#*:}
    run_lp "$WORK/bm.txt" "show_leak_kinds=all:show_below_main=yes:depth=$d" "$SAMPLES/$p"
    check "$p, show_below_main=yes, depth=$d: frames below main by name" \
        sh -c "! grep -q '(below main)' '$WORK/bm.txt' && { [ $p = deep_stacks ] || grep -q '__libc_start_call_main' '$WORK/bm.txt'; }"
    if have_valgrind; then
        run_mc "$WORK/mc_bm.txt" "--leak-check=full --show-leak-kinds=all --show-below-main=yes --num-callers=$d" "$SAMPLES/$p"
        same_as_memcheck "$p, show_below_main=yes, depth=$d: whole report as memcheck's" "$WORK/bm.txt" "$WORK/mc_bm.txt"
    fi
done
# The launcher: --show-below-main=yes is the key; no is the default.
(cd "$WORK" && "$TOP/$O/leakprof" --massif=0 --show-below-main=yes --log-file=ln.txt "$SAMPLES/leak_kinds" >/dev/null 2>&1); rc=$?
check "launcher --show-below-main=yes: runs, names _start" sh -c "[ $rc = 0 ] && grep -q ': _start (in ' '$WORK/ln.txt'"
(cd "$WORK" && "$TOP/$O/leakprof" --massif=0 --show-below-main=no --log-file=ln2.txt "$SAMPLES/leak_kinds" >/dev/null 2>&1)
check "launcher --show-below-main=no: stacks end at main" sh -c "! grep -q '_start' '$WORK/ln2.txt'"
# massif.out: the heap trees go on below main too, to the same "???"
# frames: every label massif writes is one of ours (which call sites a
# detailed snapshot holds differs).
run_lp "$WORK/bm_ms.txt" "massif=$WORK/bm.massif:show_below_main=yes" "$SAMPLES/slow_app"
check "show_below_main: massif.out goes on below main" \
    sh -c "grep -q ': __libc_start_call_main (' '$WORK/bm.massif' && grep -q ': _start (in ' '$WORK/bm.massif' && ! grep -q 'below main' '$WORK/bm.massif'"
if have_valgrind; then
    (cd "$WORK" && valgrind --tool=massif --show-below-main=yes --massif-out-file="$WORK/mc_bm.massif" "$SAMPLES/slow_app" >/dev/null 2>&1)
    shapes() { grep -E '^ *n[0-9]+: [0-9]+ 0x' "$1" | sed -E 's/^( *)n[0-9]+: [0-9]+ 0x[0-9A-F]+:/\1/' | sort -u; }
    missing=$(comm -13 <(shapes "$WORK/bm.massif") <(shapes "$WORK/mc_bm.massif"))
    check "show_below_main: massif.out's frames, at their depths, as massif's" sh -c "[ -s '$WORK/mc_bm.massif' ] && [ -z '$missing' ]"
    [ -z "$missing" ] || echo "$missing" | head -5
fi
