# All four leak kinds, cycles, interior pointers and heuristics (C), C++
# containers (std::string, vector, map, new[], multiple inheritance), the
# inlined frames of -O2 C++ (named as Memcheck names them), a program's
# own operator new (shown as Memcheck shows it), a library's 80 exit
# handlers (glibc's handler blocks, freed after our report, counted freed),
# the aligned allocators (named as Memcheck 3.19 names them), and
# threads (one still running at exit, one joined whose result leaked):
# every record and the LEAK SUMMARY compared with golden output, and the
# summary numbers with Memcheck's on the same binary.
. "$(dirname "$0")/_lib.sh"
for p in leak_kinds cpp_containers cpp_inlined deep_inline cpp_own_new atexit_many aligned_allocs threads; do
    run_lp "$WORK/$p.txt" "show_leak_kinds=all" "$SAMPLES/$p"
    if [ "$p" != threads ]; then
        # Thread stacks end in clone3 natively and the record order of the
        # still-running thread's blocks can vary: no byte golden for them.
        golden "$p report" "$WORK/$p.txt" "$TOP/tests/e2e/$p.exp"
    fi
    if have_valgrind; then
        run_mc "$WORK/mc_$p.txt" "--leak-check=full --show-leak-kinds=all" "$SAMPLES/$p"
        vs_memcheck "$p vs memcheck" "$WORK/$p.txt" "$WORK/mc_$p.txt"
        if [ "$p" != threads ]; then
            same_as_memcheck "$p whole report as memcheck's" "$WORK/$p.txt" "$WORK/mc_$p.txt"
        fi
    fi
done
# --leak-check-heuristics: with none, the blocks only interior pointers
# reach are possibly lost; with some, only those heuristics count. Every
# loss record and the LEAK SUMMARY as Memcheck's with the same set.
for h in none stdstring,newarray; do
    for p in leak_kinds cpp_containers; do
        run_lp "$WORK/h_$p.txt" "show_leak_kinds=all:leak_check_heuristics=$h" "$SAMPLES/$p"
        check "$p, heuristics $h: not as with all" sh -c "! cmp -s '$WORK/h_$p.txt' '$WORK/$p.txt'"
        if have_valgrind; then
            run_mc "$WORK/mc_h_$p.txt" "--leak-check=full --show-leak-kinds=all --leak-check-heuristics=$h" "$SAMPLES/$p"
            same_as_memcheck "$p, heuristics $h: whole report as memcheck's" "$WORK/h_$p.txt" "$WORK/mc_h_$p.txt"
        fi
    done
done
# demangle=no (--demangle=no): C++ frames by their linkage names, inlined
# frames and the hooks' included, every record as Memcheck's.
for p in cpp_containers cpp_inlined cpp_own_new; do
    run_lp "$WORK/dm_$p.txt" "show_leak_kinds=all:demangle=no" "$SAMPLES/$p"
    check "$p, demangle=no: linkage names" grep -q "_Znwm (in " "$WORK/dm_$p.txt"
    if have_valgrind; then
        run_mc "$WORK/mc_dm_$p.txt" "--leak-check=full --show-leak-kinds=all --demangle=no" "$SAMPLES/$p"
        same_as_memcheck "$p, demangle=no: whole report as memcheck's" "$WORK/dm_$p.txt" "$WORK/mc_dm_$p.txt"
    fi
done
# leak_resolution=low|med (--leak-resolution): stacks that agree on their
# first 2 or 4 frames make one loss record, shown with the first block's
# stack. Memcheck merges the same way when its record tree's lookup meets
# the matching record (its order of contexts decides: it keeps two such
# records of cpp_containers apart at low); where it does, every record as
# Memcheck's.
for rp in low:leak_kinds med:leak_kinds med:cpp_containers; do
    r=${rp%%:*} p=${rp#*:}
    run_lp "$WORK/lr_$p.txt" "show_leak_kinds=all:leak_resolution=$r" "$SAMPLES/$p"
    if have_valgrind; then
        run_mc "$WORK/mc_lr_$p.txt" "--leak-check=full --show-leak-kinds=all --leak-resolution=$r" "$SAMPLES/$p"
        same_as_memcheck "$p, leak_resolution=$r: whole report as memcheck's" "$WORK/lr_$p.txt" "$WORK/mc_lr_$p.txt"
    fi
done
run_lp "$WORK/lr_low.txt" "show_leak_kinds=all:leak_resolution=low" "$SAMPLES/cpp_containers"
check "leak_resolution=low: the std::string blocks of keep() and of the static initialiser (same first two frames) in one record" \
    grep -q "140 bytes in 4 blocks are still reachable in loss record" "$WORK/lr_low.txt"
check "leak_resolution=low: fewer loss records than high" sh -c "[ \$(grep -c 'in loss record' '$WORK/lr_low.txt') -lt \$(grep -c 'in loss record' '$WORK/cpp_containers.txt') ]"
# Stacks that agree on their first depth frames and differ only beyond:
# one loss record, as Memcheck keeps only --num-callers frames of each.
for d in 30 12; do
    run_lp "$WORK/deep$d.txt" "depth=$d" "$SAMPLES/deep_stacks"
    check "deep stacks, depth=$d: one loss record for both blocks" \
        grep -q "48 bytes in 2 blocks are definitely lost in loss record 1 of 1" "$WORK/deep$d.txt"
    if have_valgrind; then
        run_mc "$WORK/mc_deep$d.txt" "--num-callers=$d --leak-check=full" "$SAMPLES/deep_stacks"
        same_as_memcheck "deep stacks, depth=$d: whole report as memcheck's" "$WORK/deep$d.txt" "$WORK/mc_deep$d.txt"
    fi
done
# A C++ program that exits with a thread running: libstdc++'s emergency
# pool is what Valgrind's freeres frees; counted as freed, not suppressed.
run_lp "$WORK/cte.txt" "show_leak_kinds=all" "$SAMPLES/cpp_thread_at_exit"
check "C++ exit with a thread running: the emergency pool is not left over" \
    grep -q "suppressed: 0 bytes in 0 blocks" "$WORK/cte.txt"
# The same with unwind=fp: the pool's stack ends in libstdc++ (no frame
# pointers there), with no loader frame to know it by.
run_lp "$WORK/cte_fp.txt" "show_leak_kinds=all:unwind=fp" "$SAMPLES/cpp_thread_at_exit"
check "C++ exit with a thread running, unwind=fp: the pool is not left over" \
    sh -c "! grep -q '72,704 bytes in 1 blocks' '$WORK/cte_fp.txt'"
if have_valgrind; then
    run_mc "$WORK/mc_cte.txt" "--leak-check=full --show-leak-kinds=all" "$SAMPLES/cpp_thread_at_exit"
    vs_memcheck "C++ exit with a thread running vs memcheck" "$WORK/cte.txt" "$WORK/mc_cte.txt"
    vs_memcheck "C++ exit with a thread running, unwind=fp, vs memcheck" "$WORK/cte_fp.txt" "$WORK/mc_cte.txt"
fi
# depth=N counts frames as Memcheck's --num-callers=N does when grouping
# loss records too: operator new is one frame shown for two of ours (the
# malloc hook under it), so at depth=2 the blocks of two callers are two
# records, not one (troff at depth=4: 404 records, Memcheck's 415).
run_lp "$WORK/nc2.txt" "depth=2" "$SAMPLES/new_callers"
check "new from two callers, depth=2: two loss records" \
    sh -c "grep -q 'in loss record 2 of 2' '$WORK/nc2.txt' && grep -q '16 bytes in 1 blocks are definitely lost' '$WORK/nc2.txt'"
if have_valgrind; then
    run_mc "$WORK/mc_nc2.txt" "--num-callers=2 --leak-check=full" "$SAMPLES/new_callers"
    same_as_memcheck "new from two callers, depth=2: whole report as memcheck's" "$WORK/nc2.txt" "$WORK/mc_nc2.txt"
fi
