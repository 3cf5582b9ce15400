#!/bin/bash
# features.sh - beyond ms_print: --flamegraph=folded|svg and --diff,
# checked against numbers taken from the massif files with awk.
. "$(dirname "$0")/_lib.sh"
cd "$FIX" || exit 1
ok() { if "$@"; then echo "PASS: $name"; else echo "FAIL: $name"; fi; }

# The tree root's bytes of the peak snapshot (or of snapshot N).
root_bytes() { # FILE [N]
    awk -v want="${2:--1}" '
        /^snapshot=/ { n = substr($0, 10) + 0 }
        /^heap_tree=/ { t = substr($0, 11); getline;
            if ((want < 0 && t == "peak") || n == want) { split($2, a, " "); print $2; exit } }' "$1"
}
snap_total() { # FILE N
    awk -v want="$2" '
        /^snapshot=/ { n = substr($0, 10) + 0 }
        n == want && /^mem_(heap|heap_extra|stacks)_B=/ { split($0, a, "="); s += a[2] }
        END { print s }' "$1"
}

for f in example-prog1 example-cpp1 nested-B cpp-B sqlite3-insert python3 gcc-cc1 threads-B; do
    file=$f.massif.out
    grep -q '^heap_tree=peak' "$file" || continue
    "$LP" --flamegraph=folded "$file" > "$TMPD/folded"
    name="folded/$f/sum-equals-root-bytes"
    ok test "$(awk '{ s += $NF } END { print s + 0 }' "$TMPD/folded")" = "$(root_bytes "$file")"
    name="folded/$f/format"
    ok awk 'NF < 2 || $NF !~ /^[0-9]+$/ || $NF == 0 || /^;/ { bad = 1 } END { exit bad }' "$TMPD/folded"
    "$LP" --flamegraph=svg "$file" > "$TMPD/f.svg"
    name="svg/$f/well-formed-xml"
    command -v python3 > /dev/null || { echo "SKIP: $name (no python3)"; continue; }
    ok python3 -c 'import sys, xml.etree.ElementTree as E; r = E.parse(sys.argv[1]).getroot(); sys.exit(0 if r.tag.endswith("svg") and len(r.findall(".//{http://www.w3.org/2000/svg}rect")) > 1 else 1)' "$TMPD/f.svg"
done

# prog1's peak (FORMATS.md 2.8): the stacks, outermost first.
"$LP" --flamegraph=folded example-prog1.massif.out > "$TMPD/folded"
name="folded/prog1/stacks"
ok grep -qx 'main;mid_alloc;leaf_alloc 10000' "$TMPD/folded"
ok grep -qx 'main;leaf_alloc 10000' "$TMPD/folded"
ok grep -qx 'main 4096' "$TMPD/folded"
# --snapshot picks another tree; snapshot 9 holds 9,000 bytes.
"$LP" --flamegraph=folded --snapshot=9 example-prog1.massif.out > "$TMPD/folded9"
name="folded/prog1/snapshot-9"
ok grep -qx 'main;mid_alloc;leaf_alloc 9000' "$TMPD/folded9"
name="folded/prog1/snapshot-peak-is-the-default"
"$LP" --flamegraph=folded --snapshot=peak example-prog1.massif.out > "$TMPD/foldedp"
ok cmp -s "$TMPD/folded" "$TMPD/foldedp"
name="folded/prog1/snapshot-last-is-67"
"$LP" --flamegraph=folded --snapshot=last example-prog1.massif.out > "$TMPD/foldedl"
"$LP" --flamegraph=folded --snapshot=67 example-prog1.massif.out > "$TMPD/folded67"
ok cmp -s "$TMPD/foldedl" "$TMPD/folded67"
name="folded/prog1/snapshot-without-tree-fails"
ok test "$("$LP" --flamegraph=folded --snapshot=3 example-prog1.massif.out 2>&1 >/dev/null; echo $?)" = "leakprint: example-prog1.massif.out: snapshot 3 has no heap tree (pick a detailed one with --snapshot=N)
1"
name="svg/cpp1/escapes-xml"
"$LP" --flamegraph=svg example-cpp1.massif.out > "$TMPD/c.svg"
ok grep -q '&lt;' "$TMPD/c.svg"

# diff: totals come from the files; rows are sorted by growth.
for pair in "example-prog1.massif.out:9 example-prog1.massif.out:37" \
            "example-prog1.massif.out:37 example-prog1.massif.out:74" \
            "nested-B.massif.out nested-stacks.massif.out" \
            "sqlite3-insert.massif.out:5 sqlite3-insert.massif.out"; do
    # shellcheck disable=SC2086
    "$LP" --diff $pair > "$TMPD/diff" || { echo "FAIL: diff $pair (exit)"; continue; }
    set -- $pair
    fa=${1%%:*}; fb=${2%%:*}
    na=$(sed -n "s/^before: '[^']*' snapshot \([0-9]*\).*/\1/p" "$TMPD/diff")
    nb=$(sed -n "s/^after:  '[^']*' snapshot \([0-9]*\).*/\1/p" "$TMPD/diff")
    case $1 in *:*) [ "$na" = "${1##*:}" ] || echo "FAIL: diff $pair picks snapshot ${1##*:}" ;; esac
    want=$(( $(snap_total "$fb" "$nb") - $(snap_total "$fa" "$na") ))
    got=$(awk '$NF == "total" { g = $1; gsub(/[+,]/, "", g); print g }' "$TMPD/diff")
    name="diff/$pair/total-growth"
    ok test "$got" = "$want"
    name="diff/$pair/sorted-by-growth"
    ok awk '/^-----/ { sec++; next } sec == 2 && $1 ~ /^[-+0-9]/ { g = $1; gsub(/[+,]/, "", g); g += 0; if (seen && g > prev) bad = 1; prev = g; seen = 1 } END { exit bad }' "$TMPD/diff"
done
# prog1: the peak is snapshot 37; the last detailed one is 67 (68..74 are
# empty), which --diff uses by default and says so.
"$LP" --diff example-prog1.massif.out:9 example-prog1.massif.out:37 > "$TMPD/diff"
name="diff/prog1/peak-by-option"
"$LP" --diff --snapshot=peak example-prog1.massif.out:9 example-prog1.massif.out > "$TMPD/diff2"
ok test "$(tail -n +4 "$TMPD/diff")" = "$(tail -n +4 "$TMPD/diff2")"
name="diff/prog1/peak-by-spec"
"$LP" --diff example-prog1.massif.out:9 example-prog1.massif.out:peak > "$TMPD/diff3"
ok test "$(tail -n +4 "$TMPD/diff")" = "$(tail -n +4 "$TMPD/diff3")"
name="diff/prog1/says-peak"
ok grep -qx "after:  'example-prog1.massif.out' snapshot 37 (peak), time 24784 B" "$TMPD/diff2"
name="diff/prog1/site-row"
ok grep -q '^ *+1,000 *9,000 *10,000  leaf_alloc (prog1.c:6)$' "$TMPD/diff"
name="diff/prog1/default-is-last-detailed"
"$LP" --diff example-prog1.massif.out:9 example-prog1.massif.out > "$TMPD/diff"
ok grep -qx "after:  'example-prog1.massif.out' snapshot 67 (the last detailed snapshot; peak is snapshot 37), time 57592 B" "$TMPD/diff"
name="diff/prog1/default-same-as-last-spec"
"$LP" --diff example-prog1.massif.out:9 example-prog1.massif.out:last > "$TMPD/diff2"
ok cmp -s "$TMPD/diff" "$TMPD/diff2"
name="diff/prog1/snapshot-number-for-both"
"$LP" --diff --snapshot=37 example-prog1.massif.out example-prog1.massif.out:9 > "$TMPD/diff"
ok grep -qx "before: 'example-prog1.massif.out' snapshot 37 (as asked; peak), time 24784 B" "$TMPD/diff"
name="diff/no-peak"
ok test "$("$LP" --diff example-nofree.massif.out:0 example-nofree.massif.out:peak 2>&1 >/dev/null; echo $?)" = "leakprint: example-nofree.massif.out: no peak snapshot
1"
name="diff/nofree/default-is-last-snapshot"
"$LP" --diff example-nofree.massif.out:0 example-nofree.massif.out > "$TMPD/diff"
last=$(grep -c '^snapshot=' example-nofree.massif.out)
ok grep -q "^after:  'example-nofree.massif.out' snapshot $((last - 1)) (the last snapshot)," "$TMPD/diff"
name="diff/no-such-snapshot"
ok test "$("$LP" --diff example-prog1.massif.out:999 example-prog1.massif.out 2>&1 >/dev/null)" = "leakprint: example-prog1.massif.out: no snapshot 999"

# --check: every file massif wrote is strict; the hand-written ms_print
# quirk files are not (they use what only ms_print's lenient reader takes).
for f in *.massif.out; do
    name="check/${f%.massif.out}"
    case $f in
        quirk-*) ok test "$("$LP" --check "$f" > /dev/null 2>&1; echo $?)" = 1 ;;
        *) ok grep -q "^$f: ok (" <("$LP" --check "$f" 2>&1) ;;
    esac
done
name="check/usage"
ok test "$("$LP" --check --diff a b > /dev/null 2>&1; echo $?)" = 2
