#!/bin/bash
# tests/run.sh [SUITE...] - run the test suites and end with "N passed, N failed".
# Suites: unit (cmocka binaries in $O/test), and every directory under tests/
# holding case scripts (e2e, leakprint, ...): tests/SUITE/*.sh except helpers
# whose names start with '_'. A case script exits 0 (pass), 77 (skip) or
# anything else (fail); it may instead print lines "PASS: name" / "FAIL: name"
# / "SKIP: name" to report several sub-cases, which are then counted one each.
O=${O:-build}
export O
cd "$(dirname "$0")/.." || exit 2
top=$(pwd)
export LP_TOP=$top
suites=("$@")
if [ ${#suites[@]} -eq 0 ]; then
    suites=(unit)
    for d in tests/*/; do
        d=${d%/}; d=${d#tests/}
        case $d in unit|fixtures|bench|fuzz) continue ;; esac
        ls tests/$d/*.sh >/dev/null 2>&1 && suites+=("$d")
    done
fi
shopt -s nullglob
pass=0 fail=0 skip=0
failed=()
run_unit() {
    local bin out rc p f
    for bin in "$O"/test/test_*; do
        [ -x "$bin" ] || continue
        out=$(timeout 300 "$bin" 2>&1); rc=$?
        p=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -1)
        f=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | tail -1)
        p=${p:-0}; f=${f:-0}
        if [ $rc -ne 0 ] && [ "$f" = 0 ]; then f=1; fi
        pass=$((pass + p)); fail=$((fail + f))
        if [ "$f" != 0 ]; then
            failed+=("unit/$(basename "$bin")")
            printf '%s\n' "$out" | grep -E 'FAILED|ERROR|Failure|assert' | head -20
        fi
        echo "unit/$(basename "$bin"): $p passed, $f failed"
    done
}
run_suite() {
    local s=$1 c out rc n name np nf
    for c in tests/$s/*.sh; do
        name=$(basename "$c" .sh)
        case $name in _*) continue ;; esac
        out=$(timeout 900 bash "$c" 2>&1); rc=$?
        np=$(printf '%s\n' "$out" | grep -c '^PASS: ')
        nf=$(printf '%s\n' "$out" | grep -c '^FAIL: ')
        n=$(printf '%s\n' "$out" | grep -c '^SKIP: ')
        if [ $((np + nf + n)) -gt 0 ]; then
            pass=$((pass + np)); fail=$((fail + nf)); skip=$((skip + n))
            if [ $rc -ne 0 ] && [ $nf -eq 0 ]; then fail=$((fail + 1)); nf=1; fi
            if [ $nf -gt 0 ]; then failed+=("$s/$name"); printf '%s\n' "$out" | grep -v '^PASS: ' | tail -40; fi
            echo "$s/$name: $np passed, $nf failed, $n skipped"
        elif [ $rc -eq 0 ]; then pass=$((pass + 1)); echo "$s/$name: ok"
        elif [ $rc -eq 77 ]; then skip=$((skip + 1)); echo "$s/$name: skipped"
        else fail=$((fail + 1)); failed+=("$s/$name"); printf '%s\n' "$out" | tail -40; echo "$s/$name: FAILED (status $rc)"
        fi
    done
}
for s in "${suites[@]}"; do
    if [ "$s" = unit ]; then run_unit; else run_suite "$s"; fi
done
[ ${#failed[@]} -gt 0 ] && echo "failed: ${failed[*]}"
[ $skip -gt 0 ] && echo "($skip skipped)"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
