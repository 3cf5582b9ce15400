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
check "same page as leakprint --html on the massif file" 'cmp -s slow.html lp.html' "$(diff slow.html lp.html | head -5)"
mode=$(stat -c %a slow.html 2>/dev/null)
want=$(printf '%o' $((0666 & ~$(umask))))
check "created with the umask applied" '[ "$mode" = "$want" ]' "mode=$mode want=$want"

LEAKPROF_OPTIONS=massif=0:log=/dev/null:html=x.html LD_PRELOAD=$LIB "$SAMPLES/empty" > /dev/null 2> err.txt
check "html= without massif= says why, writes nothing" \
    'grep -q "html= needs massif=" err.txt && [ ! -e x.html ]' "$(cat err.txt)"

LEAKPROF_OPTIONS=log=svc.log:massif=svc.massif:html=svc.html LD_PRELOAD=$LIB "$SAMPLES/service" 30 > svc.out 2>&1 & pid=$!
for i in $(seq 100); do grep -q ready svc.out 2>/dev/null && break; sleep 0.1; done
kill -USR1 $pid
for i in $(seq 100); do [ -f svc.html.1 ] && break; sleep 0.1; done
check "snapshot signal writes PATH.1" '[ -s svc.html.1 ] && grep -q leak_blocks svc.html.1' "$(ls)"
kill -TERM $pid; wait $pid; rc=$?
check "service exits 0, PATH written at exit" '[ $rc = 0 ] && [ -s svc.html ]' "rc=$rc $(ls)"
