#!/bin/bash
# leakprint --flamegraph: massif's below-threshold aggregates never start
# a stack (their bytes go to their parent's, truncated, stack); the SVG
# carries its search/zoom script and thousands separators. The browser
# side (the script really runs) is in browser.sh.
. "$(dirname "$0")/_lib.sh"
FIX=$TOP/tests/fixtures/massif

for f in sqlite3-insert sqlite3-i python3 gcc-cc1 cpp-B; do
    file=$FIX/$f.massif.out
    "$LEAKPRINT" --flamegraph=folded "$file" > folded || { fail "$f: folded (exit)"; continue; }
    check "$f: no stack starts at a below-threshold aggregate" \
        '! grep -q "^in [0-9]* places\?, \(all \)\?below massif" folded' "$(grep '^in ' folded | head -3)"
    check "$f: no aggregate frame anywhere in a stack" \
        '! grep -q "below massif" folded' "$(grep 'below massif' folded | head -3)"
    # Nothing is lost: the stacks still add up to the peak tree's root.
    want=$(awk '/^heap_tree=peak/ { getline; print $2; exit }' "$file")
    got=$(awk '{ s += $NF } END { print s + 0 }' folded)
    check "$f: stacks add up to the tree's $want bytes" '[ "$got" = "$want" ]' "got $got"
done

# The aggregate under sqlite3Malloc ("in 20 places") joins sqlite3Malloc's
# own stack; the top-level one (12 sites) hangs from the allocator frame.
"$LEAKPRINT" --flamegraph=folded "$FIX/sqlite3-insert.massif.out" > folded
check "top-level aggregate under (heap allocation functions)" \
    'grep -qx "(heap allocation functions) 12109" folded' "$(grep -v '^(below main)' folded | head -5)"

"$LEAKPRINT" --flamegraph=svg "$FIX/example-prog1.massif.out" > p1.svg
check "svg: embedded script with search and zoom" \
    'grep -q "<script type=\"text/ecmascript\">" p1.svg && grep -q "function search" p1.svg && grep -q "function zoom" p1.svg' 
check "svg: Search and Reset Zoom controls" \
    'grep -q ">Search</text>" p1.svg && grep -q ">Reset Zoom</text>" p1.svg'
check "svg: titles with thousands separators" \
    'grep -q "<title>main (24,096 bytes, 99.34%)</title>" p1.svg' "$(grep -o '<title>[^<]*' p1.svg | head -5)"
check "svg: no external reference" '! grep -Eq "(href|src)=\"(https?:)?//" p1.svg'
if command -v python3 >/dev/null; then
    check "svg: well-formed XML" "python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' p1.svg"
fi
