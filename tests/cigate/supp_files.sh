#!/bin/bash
# supp_files.sh - lp_supp_load accepts and rejects the same Valgrind
# suppression files as Valgrind 3.19 (FATAL ... near line N), fixtures in
# tests/fixtures/supp/. LSan-only files are checked by the unit tests.
. "$(dirname "$0")/_lib.sh"
command -v valgrind >/dev/null 2>&1 || { echo "SKIP: valgrind not installed"; exit 77; }
cigate_tmp
build_prog
cd "$T" || exit 1
fix=$LP_TOP/tests/fixtures/supp
for f in "$fix"/leaks.supp "$fix"/bad_missing_brace.supp "$fix"/bad_frame.supp \
         "$fix"/bad_kinds.supp "$fix"/bad_onlydots.supp "$fix"/bad_memcheck_kind.supp \
         "$fix"/mixed.supp; do
    name=$(basename "$f")
    # Valgrind does not read leak: lines; give it the rest of the file.
    grep -v '^leak:' "$f" >"vg_$name"
    valgrind -q --leak-check=full --suppressions="vg_$name" ./report_prog leak >vg.log 2>&1
    if grep -q FATAL vg.log; then vg=reject; else vg=accept; fi
    if ./report_prog load "vg_$name" >ours.log; then ours=accept; else ours=reject; fi
    if [ "$vg" = "$ours" ]; then
        echo "PASS: $name: both $vg"
    else
        echo "FAIL: $name: valgrind ${vg}s, lp_supp_load ${ours}s"; cat vg.log ours.log
    fi
    # When both reject, they blame the same line.
    if [ "$vg" = reject ] && [ "$ours" = reject ]; then
        vl=$(sed -n 's/.*near line \([0-9]*\):.*/\1/p' vg.log)
        ol=$(sed -n 's/^error: [^:]*:\([0-9]*\):.*/\1/p' ours.log)
        if [ "$vl" = "$ol" ]; then echo "PASS: $name: same line $vl"
        else echo "FAIL: $name: valgrind line $vl, ours $ol"; cat ours.log; fi
    fi
done
