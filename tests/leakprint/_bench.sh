#!/bin/bash
# _bench.sh [MB] - render a MB-sized (default 100) massif file with leakprint
# and with ms_print, check the outputs are identical, print both times and
# the ratio. Not run by make test (it takes about half a minute); run it by
# hand or with "make leakprint-bench".
. "$(dirname "$0")/_lib.sh"
MB=${1:-100}
MS=${MS_PRINT:-/usr/bin/ms_print}
python3 "$HERE/_make_big.py" "$FIX/python3.massif.out" "$TMPD/big.ms" "$MB"
ls -l "$TMPD/big.ms" | awk '{ printf "input: %.1f MB\n", $5 / 1048576 }'
t0=$(date +%s.%N); "$LP" "$TMPD/big.ms" > "$TMPD/lp.txt"; t1=$(date +%s.%N)
echo "leakprint: $(echo "$t1 - $t0" | bc) s"
[ -x "$MS" ] || exit 0
t2=$(date +%s.%N); "$MS" "$TMPD/big.ms" > "$TMPD/ms.txt"; t3=$(date +%s.%N)
echo "ms_print:  $(echo "$t3 - $t2" | bc) s"
echo "ratio:     $(echo "scale=1; ($t3 - $t2) / ($t1 - $t0)" | bc)x"
cmp -s "$TMPD/lp.txt" "$TMPD/ms.txt" && echo "outputs identical" || { echo "OUTPUTS DIFFER"; exit 1; }
