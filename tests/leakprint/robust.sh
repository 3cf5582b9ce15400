#!/bin/bash
# robust.sh - bad input never crashes or hangs leakprint: random bytes,
# truncated real files, malformed numbers, the fuzz corpus and the crash
# inputs found so far. Bad input must give exit 1 and one stderr line
# "leakprint: FILE:LINE: ..." naming the file.
. "$(dirname "$0")/_lib.sh"
cd "$TMPD" || exit 1

# check NAME EXPECT FILE [options...]: EXPECT is 1 (must fail cleanly) or
# "01" (either works or fails cleanly).
check() {
    local name=$1 expect=$2 file=$3 rc lines
    shift 3
    timeout 20 "$LP" "$@" "$file" > out 2> err; rc=$?
    lines=$(wc -l < err)
    case "$expect:$rc" in
        1:1|01:1)
            if [ "$lines" -eq 1 ] && grep -q "^leakprint: $file:[0-9]*: \|^leakprint: $file: \|^leakprint: cannot [a-z]* '$file': " err; then
                echo "PASS: $name"
            else
                echo "FAIL: $name (stderr: $(head -c 200 err))"
            fi ;;
        01:0) echo "PASS: $name" ;;
        *) echo "FAIL: $name (exit $rc)"; head -c 300 err ;;
    esac
}

# Random bytes (deterministic), with and without a valid-looking header.
if ! command -v python3 > /dev/null; then
    echo "SKIP: random-bytes (no python3)"
else
python3 - <<'PY'
import random
for s in range(40):
    r = random.Random(s)
    data = bytes(r.randrange(256) for _ in range(r.choice([0, 1, 10, 500, 5000])))
    if s % 2:
        data = b"desc: x\ncmd: y\ntime_unit: B\n" + data
    open("rand%d.ms" % s, "wb").write(data)
PY
for s in $(seq 0 39); do
    if [ $((s % 2)) -eq 0 ]; then check "random-bytes-$s" 1 "rand$s.ms"
    else check "random-bytes-after-header-$s" 1 "rand$s.ms"; fi
done
fi

# Truncations of a real file at many offsets, for all three modes.
src=$FIX/example-prog1.massif.out
size=$(stat -c %s "$src")
for cut in 0 1 7 50 100 333 1000 2048 4000 7777 $((size / 2)) $((size - 1)); do
    head -c "$cut" "$src" > "cut$cut.ms"
    check "truncated-$cut" 01 "cut$cut.ms"
    check "truncated-$cut-folded" 01 "cut$cut.ms" --flamegraph=folded
done
# A cut in the middle of a tree is always an error.
awk '/heap_tree=peak/ { print; getline; print; exit } { print }' "$src" > midtree.ms
check truncated-mid-tree 1 midtree.ms

# Malformed numbers: each field in turn.
for field in snapshot time mem_heap_B mem_heap_extra_B mem_stacks_B; do
    sed "0,/^$field=/s/^\($field=[0-9]*\)/\1x/" "$src" > "bad-$field.ms"
    check "malformed-$field" 1 "bad-$field.ms"
    sed "0,/^$field=/s/^$field=.*/$field=184467440737095516160/" "$src" > "big-$field.ms"
    check "overflow-$field" 1 "big-$field.ms"
done
sed '0,/^ n[0-9]*: [0-9]/s/^ n\([0-9]*\): \([0-9]*\)/ n\1: \2z9/' "$src" > ok-label.ms
check "bytes-followed-by-text-is-a-label" 01 ok-label.ms
sed '0,/^ n[0-9]*: [0-9]/s/^ n\([0-9]*\): [0-9]*/ n\1: x/' "$src" > bad-node.ms
check "malformed-node-bytes" 1 bad-node.ms
sed '0,/^ n[0-9]*: [0-9]/s/^ n\([0-9]*\): [0-9]*/ n\1: 99999999/' "$src" > big-node.ms
check "node-bytes-above-total" 1 big-node.ms
check "missing-file" 1 no-such-file.ms
# An endless binary stream is refused at its first NUL, not read forever.
ln -s /dev/zero zero.ms && check "endless-dev-zero" 1 zero.ms
check "a-directory" 1 .

# The fuzz corpus and every crash input found so far, in every mode.
for f in "$LP_TOP"/tests/fuzz/corpus/* "$LP_TOP"/tests/fuzz/crashes/*; do
    [ -f "$f" ] || continue
    cp "$f" in.ms
    b=$(basename "$f")
    check "fuzz/$b" 01 in.ms
    check "fuzz/$b/svg" 01 in.ms --flamegraph=svg
    timeout 20 "$LP" --diff in.ms:0 in.ms > /dev/null 2>&1; rc=$?
    if [ $rc -le 1 ]; then echo "PASS: fuzz/$b/diff"; else echo "FAIL: fuzz/$b/diff (exit $rc)"; fi
done
