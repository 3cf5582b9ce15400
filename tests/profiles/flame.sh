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

# --cost: a pprof file (pprof=) carries every cost; site_costs has a known
# answer for each. A massif file carries live bytes only.
same_as_native "site_costs with pprof=" "pprof=sc.pb.gz:massif=sc.massif" "$SAMPLES/site_costs"
M='_start;__libc_start_main[^;]*;__libc_start_call_main;main'
cost() { "$LEAKPRINT" --flamegraph=folded ${1:+--cost=$1} sc.pb.gz; }
check "pprof input, default cost peak: peak_phase 1000000 only" \
    '[ "$(cost | grep -Ec "^$M;peak_phase 1000000$")" = 1 ] && [ "$(cost | wc -l)" = 1 ]' "$(cost)"
check "--cost=temp: temp_user 1000, interleaved;alloc_b 1000, no alloc_a" \
    'cost temp | grep -Eq "^$M;temp_user 1000$" && cost temp | grep -Eq "^$M;interleaved;alloc_b 1000$" && ! cost temp | grep -q alloc_a' "$(cost temp)"
check "--cost=calls: alloc_a and alloc_b 1000 each, leak_some 10" \
    'cost calls | grep -Eq ";alloc_a 1000$" && cost calls | grep -Eq ";alloc_b 1000$" && cost calls | grep -Eq ";leak_some 10$"' "$(cost calls)"
check "--cost=allocated: peak_phase 1000000, temp_user 100000" \
    'cost allocated | grep -Eq ";peak_phase 1000000$" && cost allocated | grep -Eq ";temp_user 100000$"' "$(cost allocated)"
check "--cost=leaked: leak_some 10000 only" '[ "$(cost leaked)" != "" ] && [ "$(cost leaked | grep -v ";leak_some 10000$" | wc -l)" = 0 ]' "$(cost leaked)"
check "--cost=exit: leak_some 10000 (the stdio buffer was freed)" 'cost exit | grep -Eq ";leak_some 10000$"' "$(cost exit)"
check "allocator frames dropped (drop_frames): no malloc leaf" '! cost calls | grep -q ";malloc "' "$(cost calls | head -3)"
"$LEAKPRINT" --flamegraph=svg --cost=temp sc.pb.gz > temp.svg
check "--cost=temp svg: unit calls in titles" \
    'grep -q "<title>temp_user (1,000 calls, [0-9.]*%)</title>" temp.svg && grep -q "data-unit=\"calls\"" temp.svg' "$(grep -o '<title>[^<]*' temp.svg | head -4)"
"$LEAKPRINT" --flamegraph=folded --cost=temp sc.massif > /dev/null 2> err; rc=$?
check "--cost=temp on a massif file: exit 1, says a pprof file is needed" \
    '[ $rc = 1 ] && grep -q "needs a pprof file" err' "rc=$rc $(cat err)"
"$LEAKPRINT" --cost=temp sc.massif > /dev/null 2> err; rc=$?
check "--cost without --flamegraph: usage error" '[ $rc = 2 ]' "rc=$rc"
printf '\037\213garbage' > bad.pb.gz
"$LEAKPRINT" --flamegraph=folded bad.pb.gz > /dev/null 2> err; rc=$?
check "a broken pprof file: one line naming it, exit 1" '[ $rc = 1 ] && [ "$(wc -l < err)" = 1 ] && grep -q "bad.pb.gz" err' "rc=$rc $(cat err)"
head -c 300 sc.pb.gz > cut.pb.gz
"$LEAKPRINT" --flamegraph=folded cut.pb.gz > /dev/null 2> err; rc=$?
check "a truncated pprof file: exit 1, no crash" '[ $rc = 1 ]' "rc=$rc $(cat err)"
if have_go; then
    # A profile written by Go's own encoder (compressed gzip) reads too.
    gopprof -proto -output=go.pb.gz sc.pb.gz >/dev/null
    "$LEAKPRINT" --flamegraph=folded --cost=temp go.pb.gz > go.folded 2> err; rc=$?
    check "a profile re-encoded by go tool pprof (-proto) reads the same" \
        '[ $rc = 0 ] && grep -Eq ";temp_user 1000$" go.folded' "rc=$rc $(cat err; head -3 go.folded)"
fi
