#!/bin/bash
# html=PATH from the library (and PATH.N on each snapshot signal): the
# same page leakprint --html makes from the massif file just written.
# browser.sh renders it in Chromium.
. "$(dirname "$0")/_lib.sh"

same_as_native "slow_app with html=" "massif=massif.out.%p:html=slow.html" "$SAMPLES/slow_app"
check "html= page written" '[ -s slow.html ]' "$(ls; head -3 lp.err)"
check "page names leaky_function and its 20,480,000 bytes" \
    'grep -q leaky_function slow.html && grep -q "<td class=\"n\">20,480,000</td>" slow.html' "$(grep -o '<td class="n">[^<]*' slow.html | head -3)"
n=$(grep -o '<svg' slow.html | wc -l)
check "page holds the chart and the flame graph" '[ "$n" -ge 2 ]' "found $n"
m=$(ls massif.out.* 2>/dev/null | head -1)
"$LEAKPRINT" --html "$m" > lp.html
chart() { sed -n '/^<svg class="chart"/,/^<\/svg>/p' "$1"; }
chart slow.html > chart.lib; chart lp.html > chart.lp
check "same heap chart as leakprint --html on the massif file" \
    '[ -s chart.lib ] && cmp -s chart.lib chart.lp' "$(diff chart.lib chart.lp | head -5)"
# Sampled (sample_bytes=N): the per-site figures are the counters' own
# estimates of the whole heap, scaled once (they were scaled twice: 1.3 TB
# for 20 MB), block counts out of their fixed point.
same_as_native "slow_app with html= and sample_bytes=65536" "massif=0:sample_bytes=65536:html=sampled.html" "$SAMPLES/slow_app"
sb=$(sed -n "/<table class=\"top\" data-cost=\"allocated\">/,/<\/table>/p" sampled.html | grep -m1 leaky_function | grep -o "<td class=\"n\">[0-9,]*</td>" | sed -n 2p | tr -dc 0-9)
sc=$(sed -n "/<table class=\"top\" data-cost=\"calls\">/,/<\/table>/p" sampled.html | grep -m1 leaky_function | grep -o "<td class=\"n\">[0-9,]*</td>" | sed -n 2p | tr -dc 0-9)
check "sampled page: leaky_function about 20,480,000 bytes allocated in about 5,000 calls (within 10%)" \
    '[ -n "$sb" ] && [ "$sb" -gt 18432000 ] && [ "$sb" -lt 22528000 ] && [ -n "$sc" ] && [ "$sc" -gt 4500 ] && [ "$sc" -lt 5500 ]' "bytes=$sb calls=$sc"

# The library's page adds what the massif file cannot carry: per-site
# figures and leaks (a page of the massif file alone keeps its tree's
# flame graph and top-consumers table).
check "library page: cost selector, six flame graphs, leak table, top tables" \
    'grep -q "<select id=\"flame-cost\">" slow.html && [ "$(grep -c "<div class=\"flame\" data-cost=" slow.html)" = 6 ] && grep -q "<table id=\"leaks\">" slow.html && [ "$(grep -c "<table class=\"top\" data-cost=" slow.html)" = 5 ]' \
    "$(grep -o '<div class="flame"[^>]*>\|<table[^>]*>' slow.html)"
check "leak table: leaky_function's 5,000 blocks definitely lost, with its stack and ages" \
    'grep -Eq "<tr data-kind=\"definitely lost\"><td>definitely lost</td><td class=\"n\">20,480,000</td><td class=\"n\">5,000</td><td class=\"n\">[0-9,]+ B</td><td class=\"n\">[0-9,]+ B</td><td class=\"l\">at leaky_function \(slow_app.c:20\)<br>by main \(slow_app.c:50\)</td></tr>" slow.html' \
    "$(grep -A2 'id="leaks"' slow.html | head -5)"
check "top table of calls: leaky_function first with 5,000" \
    'sed -n "/<table class=\"top\" data-cost=\"calls\">/,/<\/table>/p" slow.html | grep -m1 "<td class=\"n\">1</td>" | grep -q "<td class=\"n\">5,000</td>.*leaky_function"' \
    "$(sed -n '/data-cost="calls">/,/<\/table>/p' slow.html | head -5)"
check "the massif-only page keeps its flame graph and top consumers" \
    'grep -q "<h2>Top consumers at snapshot" lp.html && ! grep -q flame-cost lp.html'
mode=$(stat -c %a slow.html 2>/dev/null)
want=$(printf '%o' $((0666 & ~$(umask))))
check "created with the umask applied" '[ "$mode" = "$want" ]' "mode=$mode want=$want"

same_as_native "site_costs with html= and massif=0" "html=x.html" "$SAMPLES/site_costs"
check "html= without massif=: the page of the sites alone (no chart)" \
    '[ -s x.html ] && ! grep -q "<svg class=\"chart\"" x.html && grep -q "<table id=\"leaks\">" x.html' "$(ls; cat lp.err)"
check "without massif= there is no peak cost" \
    '! grep -q "data-cost=\"peak\"" x.html && grep -q "<option value=\"exit\" selected>" x.html' "$(grep -o '<option[^>]*>' x.html)"
top() { sed -n "/<table class=\"top\" data-cost=\"$1\">/,/<\/table>/p" x.html; }
check "temporary table: temp_user and alloc_b, 1,000 each; alloc_a absent" \
    'top temp | grep -q "<td class=\"n\">1,000</td>.*temp_user" && top temp | grep -q "<td class=\"n\">1,000</td>.*alloc_b" && ! top temp | grep -q alloc_a' "$(top temp | head -8)"
check "calls table row: temp_user's 1,000 calls and 100,000 bytes allocated" \
    'top calls | grep -q "<td class=\"n\">1,000</td><td class=\"n\">100,000</td><td class=\"l\">temp_user"' "$(top calls | grep temp_user)"
check "leaked table: leak_some 10,000 bytes" 'top leaked | grep -q "<td class=\"n\">10,000</td>.*leak_some"' "$(top leaked | head -5)"

# Sampled: temporary allocations are weighted like every other count
# (each tracked temporary stands for the blocks it was sampled for).
same_as_native "site_costs with html= and sample_bytes=1000" "massif=0:sample_bytes=1000:html=st.html" "$SAMPLES/site_costs"
tmp_of() { sed -n '/<table class="top" data-cost="temp">/,/<\/table>/p' st.html | grep -m1 "$1" | grep -o '<td class="n">[0-9,]*</td>' | sed -n 2p | tr -dc 0-9; }
tu=$(tmp_of temp_user); ab=$(tmp_of alloc_b)
check "sampled temporary table: temp_user and alloc_b about 1,000 each (within 15%)" \
    '[ -n "$tu" ] && [ "$tu" -gt 850 ] && [ "$tu" -lt 1150 ] && [ -n "$ab" ] && [ "$ab" -gt 850 ] && [ "$ab" -lt 1150 ]' "temp_user=$tu alloc_b=$ab"

# leakprint --html of the pprof file, alone and with the massif file.
same_as_native "site_costs with pprof= and massif" "pprof=sc.pb.gz:massif=sc.massif" "$SAMPLES/site_costs"
"$LEAKPRINT" --html sc.pb.gz > pp.html; rc=$?
check "leakprint --html FILE.pb.gz: page of the sites, peak selected first" \
    '[ $rc = 0 ] && grep -q "<option value=\"peak\" selected>" pp.html && [ "$(grep -c "<table class=\"top\"" pp.html)" = 5 ]' "rc=$rc"
"$LEAKPRINT" --html sc.massif sc.pb.gz > both.html; rc=$?
check "leakprint --html MASSIF PPROF: the chart and the sites" \
    '[ $rc = 0 ] && grep -q "<svg class=\"chart\"" both.html && grep -q "<select id=\"flame-cost\">" both.html' "rc=$rc"

LEAKPROF_OPTIONS=log=svc.log:massif=svc.massif:html=svc.html LD_PRELOAD=$LIB "$SAMPLES/service" 30 > svc.out 2>&1 & pid=$!
for i in $(seq 100); do grep -q ready svc.out 2>/dev/null && break; sleep 0.1; done
kill -USR1 $pid
for i in $(seq 100); do [ -f svc.html.1 ] && break; sleep 0.1; done
check "snapshot signal writes PATH.1" '[ -s svc.html.1 ] && grep -q leak_blocks svc.html.1' "$(ls)"
kill -TERM $pid; wait $pid; rc=$?
check "service exits 0, PATH written at exit" '[ $rc = 0 ] && [ -s svc.html ]' "rc=$rc $(ls)"
