# An empty C program and an empty C++ program (iostream, one exception)
# report no leaks, as under Memcheck.
. "$(dirname "$0")/_lib.sh"
for p in empty empty_cpp; do
    run_lp "$WORK/$p.txt" "show_leak_kinds=all" "$SAMPLES/$p"
    check "$p: all blocks freed" grep -q 'All heap blocks were freed -- no leaks are possible' "$WORK/$p.txt"
    if have_valgrind; then
        run_mc "$WORK/mc_$p.txt" "--leak-check=full" "$SAMPLES/$p"
        vs_memcheck "$p vs memcheck" "$WORK/$p.txt" "$WORK/mc_$p.txt"
    fi
done
