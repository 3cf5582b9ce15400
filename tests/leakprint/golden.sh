#!/bin/bash
# golden.sh - leakprint vs committed ms_print outputs of real massif files,
# byte for byte, under every option set in _optsets.sh.
. "$(dirname "$0")/_lib.sh"
cd "$FIX" || exit 1
n=0
for f in *.massif.out; do
    base=${f%.massif.out}
    for set in "${OPTSETS[@]}"; do
        name=${set%%:*}; opts=${set#*:}
        exp=$base.$name.txt
        [ -f "$exp" ] || { echo "FAIL: $base/$name (no $exp)"; continue; }
        # shellcheck disable=SC2086
        if timeout 60 "$LP" $opts "$f" > "$TMPD/got" 2> "$TMPD/err" &&
            cmp -s "$TMPD/got" "$exp"; then
            echo "PASS: $base/$name"
        else
            echo "FAIL: $base/$name"
            diff "$exp" "$TMPD/got" | head -5
            head -3 "$TMPD/err"
        fi
        n=$((n + 1))
    done
done
[ $n -gt 0 ] || { echo "FAIL: no fixtures found"; exit 1; }
