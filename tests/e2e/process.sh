# Allocations before main (a linked library's constructor, the program's
# own) are seen; a forked child leaving by _exit writes its own report with
# the parent's history and its own leak, whatever trace_children says
# (Valgrind's rule: it is about exec, not fork).
. "$(dirname "$0")/_lib.sh"
p=$SAMPLES/before_main
run_lp "$WORK/bm.txt" "show_leak_kinds=all" "$p"
check "constructor leak seen" grep -q 'by 0x[0-9A-F]*: ctorlib_alloc (ctorlib.c:' "$WORK/bm.txt"
if have_valgrind; then
    run_mc "$WORK/bm.mc" "--leak-check=full --show-leak-kinds=all" "$p"
    same_as_memcheck "before_main whole report as memcheck's" "$WORK/bm.txt" "$WORK/bm.mc"
fi
(cd "$WORK" && LEAKPROF_OPTIONS="massif=0:log=$WORK/fc.%p" LD_PRELOAD="$LIB" "$SAMPLES/fork_child"); rc=$?
check "fork: exit status" [ "$rc" = 0 ]
check "fork: two reports" [ "$(ls "$WORK"/fc.* | wc -l)" = 2 ]
check "fork: child report has both leaks" sh -c "grep -l '222 bytes in 1 blocks are definitely lost in loss record 2 of 2' '$WORK'/fc.* | xargs grep -q '111 bytes in 1 blocks are definitely lost in loss record 1 of 2'"
check "fork: parent report has its own" sh -c "grep -q '111 bytes in 1 blocks are definitely lost in loss record 1 of 1' '$WORK'/fc.*"
rm -f "$WORK"/fc.*
(cd "$WORK" && LEAKPROF_OPTIONS="massif=0:trace_children=no:log=$WORK/fc.%p" LD_PRELOAD="$LIB" "$SAMPLES/fork_child")
check "trace_children=no: the fork child is still profiled" [ "$(ls "$WORK"/fc.* | wc -l)" = 2 ]

# dlopen: the library's constructor blocks carry its own frames, and ld.so's
# blocks for the new module are reachable. depth=12 is Memcheck's default
# --num-callers, so the whole report can be compared line for line.
p=$SAMPLES/dlopen_app
run_lp "$WORK/dl.txt" "show_leak_kinds=all:depth=12" "$p"
check "dlopen: constructor leak with library frames" grep -q 'by 0x[0-9A-F]*: ctorlib_init (ctorlib.c:16)' "$WORK/dl.txt"
if have_valgrind; then
    run_mc "$WORK/dl.mc" "--leak-check=full --show-leak-kinds=all" "$p"
    same_as_memcheck "dlopen whole report as memcheck's" "$WORK/dl.txt" "$WORK/dl.mc"
fi

# A plugin dlclose'd before exit: its frames are "???", as Memcheck prints
# them, whatever the report's own load of libdw (a cold cache: it does
# load) mapped over the plugin's old range (before libdw_objects.c, 6 of
# its 16 frames were "??? (in libz.so.1...)" or libelf).
p=$SAMPLES/unload_app
export XDG_CACHE_HOME=$WORK/xdg-unload
run_lp "$WORK/ul.txt" "show_leak_kinds=all:depth=12" "$p"
unset XDG_CACHE_HOME
check "unloaded plugin: 16 bare ??? frames" [ "$(grep -c '^==[0-9]*==    by 0x[0-9A-F]*: ???$' "$WORK/ul.txt")" = 16 ]
check "unloaded plugin: no frame in an object it never loaded" sh -c "! grep -E '\(in [^)]*lib(dw|elf|z|lzma|bz2)[-.]' '$WORK/ul.txt'"
if have_valgrind; then
    run_mc "$WORK/ul.mc" "--leak-check=full --show-leak-kinds=all" "$p"
    same_as_memcheck "unloaded plugin: whole report as memcheck's" "$WORK/ul.txt" "$WORK/ul.mc"
fi
# keep_debuginfo=yes (Valgrind's --keep-debuginfo=yes): the same frames
# named from the plugin's file, "bigplug_make0 (bigplug.c:25)" and on, as
# Memcheck names them; from a relative dlopen path ("./libbigplug.so"),
# and through the launcher's spelling.
export XDG_CACHE_HOME=$WORK/xdg-unload
run_lp "$WORK/ulk.txt" "show_leak_kinds=all:depth=12:keep_debuginfo=yes" "$p"
(cd "$SAMPLES" && LEAKPROF_OPTIONS="massif=0:keep_debuginfo=yes" LD_PRELOAD="$LIB" ./unload_app >/dev/null 2>"$WORK/ulr.txt")
"$TOP/$O/leakprof" --massif=0 --keep-debuginfo=yes "$p" >/dev/null 2>"$WORK/ull.txt"
unset XDG_CACHE_HOME
check "keep_debuginfo=yes: the plugin's 16 frames named" [ "$(grep -c '^==[0-9]*==    by 0x[0-9A-F]*: bigplug_make[0-9]* (bigplug.c:[0-9]*)$' "$WORK/ulk.txt")" = 16 ]
check "keep_debuginfo=yes: dlopen'd by a relative path" grep -q 'by 0x[0-9A-F]*: bigplug_make0 (bigplug.c:25)$' "$WORK/ulr.txt"
check "--keep-debuginfo=yes on the launcher" grep -q 'by 0x[0-9A-F]*: bigplug_make0 (bigplug.c:25)$' "$WORK/ull.txt"
if have_valgrind; then
    run_mc "$WORK/ulk.mc" "--leak-check=full --show-leak-kinds=all --keep-debuginfo=yes" "$p"
    same_as_memcheck "keep_debuginfo=yes: whole report as memcheck's" "$WORK/ulk.txt" "$WORK/ulk.mc"
fi

# Leaving by _exit with output still buffered, and by quick_exit: stdout
# as native (glibc's freeres would flush the pending output, as it does
# under Valgrind), the at_quick_exit handler run, and the figures
# Memcheck's (its freeres frees the stdio buffers there: counted freed).
for how in pending_exit quick_exit; do
    run_lp "$WORK/ew_$how.txt" "show_leak_kinds=all:depth=12" "$SAMPLES/exit_ways" $how
    check "$how: our report" grep -q 'definitely lost: 100 bytes in 1 blocks' "$WORK/ew_$how.txt"
    if have_valgrind; then
        run_mc "$WORK/ew_$how.mc" "--leak-check=full --show-leak-kinds=all" "$SAMPLES/exit_ways" $how
        vs_memcheck "$how: summary as memcheck's" "$WORK/ew_$how.txt" "$WORK/ew_$how.mc"
    fi
done
check "quick_exit: its handler ran" grep -qx 'quick handler' "$WORK/ew_quick_exit.txt.stdout"

# Fork children and the unwind-rules files, with an empty cache: the first
# subshell writes the rules its own code needed, and the next ones read
# them again (what the parent read before is out of date) instead of
# computing and writing every file again; nor does a child write the
# rules its parent computed. 9 processes: at most 3 write.
if command -v strace >/dev/null 2>&1; then
    cache=$WORK/xdg-fork
    rm -rf "$cache"
    strace -f -e trace=rename -o "$WORK/ren.txt" -E XDG_CACHE_HOME="$cache" \
        -E LEAKPROF_OPTIONS="massif=0:log=$WORK/sub.%p" -E LD_PRELOAD="$LIB" \
        bash -c 'for i in 1 2 3 4 5 6 7 8; do (true); done' >"$WORK/sub.out" 2>&1
    nrep=$(ls "$WORK"/sub.* 2>/dev/null | grep -vc 'sub.out')
    writers=$(grep '\.rules") = 0' "$WORK/ren.txt" | awk '{print $1}' | sort -u | wc -l)
    check "subshells: 9 reports ($nrep)" [ "$nrep" = 9 ]
    check "subshells: rules files written by at most 3 of the 9 ($writers)" \
        [ "$writers" -ge 1 -a "$writers" -le 3 ]
    rm -rf "$cache"
fi
