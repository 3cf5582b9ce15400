#!/bin/bash
# vs_ms_print.sh - leakprint vs the real /usr/bin/ms_print, byte for byte
# (the "ms_print arguments:" line included): LP_RANDOM_N random files from
# _gen_massif_fuzz.py (default 400) under six option sets, and every
# fixture under two more. Skipped when ms_print is not installed.
. "$(dirname "$0")/_lib.sh"
MS=${MS_PRINT:-/usr/bin/ms_print}
[ -x "$MS" ] || { echo "SKIP: ms_print not installed"; exit 0; }
command -v python3 > /dev/null || { echo "SKIP: no python3 for the generator"; exit 0; }
N=${LP_RANDOM_N:-400}
cd "$TMPD" || exit 1
fails=0
for s in $(seq 1 "$N"); do
    python3 "$HERE/_gen_massif_fuzz.py" "$s" f.ms
    case $((s % 6)) in
        0) opts="" ;;
        1) opts="--threshold=0" ;;
        2) opts="--threshold=3.5" ;;
        3) opts="--x=4 --y=4" ;;
        4) opts="--x=1000 --y=5" ;;
        5) opts="--x=13 --y=33 --threshold=50%" ;;
    esac
    # shellcheck disable=SC2086
    "$MS" $opts f.ms > want 2>/dev/null; wrc=$?
    # shellcheck disable=SC2086
    "$LP" $opts f.ms > got 2>/dev/null; grc=$?
    if cmp -s want got && { [ $wrc -eq 0 ] && [ $grc -eq 0 ] || { [ $wrc -ne 0 ] && [ $grc -ne 0 ]; }; }; then
        echo "PASS: random-$s"
    else
        echo "FAIL: random-$s opts='$opts' (ms_print rc $wrc, leakprint rc $grc)"
        fails=$((fails + 1))
    fi
done
echo "$fails of $N random files differ"
cd "$FIX" || exit 1
for f in *.massif.out; do
    for opts in "--threshold=3 --x=57 --y=11" "--threshold=0.05 --x=200 --y=50"; do
        # shellcheck disable=SC2086
        "$MS" $opts "$f" > "$TMPD/want" 2>/dev/null
        # shellcheck disable=SC2086
        "$LP" $opts "$f" > "$TMPD/got" 2>/dev/null
        if cmp -s "$TMPD/want" "$TMPD/got"; then
            echo "PASS: live/${f%.massif.out} $opts"
        else
            echo "FAIL: live/${f%.massif.out} $opts"
        fi
    done
done
