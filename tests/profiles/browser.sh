#!/bin/bash
# Headless Chromium renders the HTML report (html= and leakprint --html)
# and the SVG flame graph:
# the DOM must hold the figures, the scripts must have run (data-js-ok)
# with no JavaScript error, the page must reference nothing on the
# network, and screenshots are kept under $O/profiles/ for people to look
# at. Skips without chromium (Debian: chromium).
. "$(dirname "$0")/_lib.sh"
CHROMIUM=$(command -v chromium || command -v chromium-browser)
[ -n "$CHROMIUM" ] || { skip "browser checks" "chromium is not installed"; exit 0; }
SHOTS=$O/profiles
mkdir -p "$SHOTS"

browse() { # browse ARGS... : one headless run with its own profile dir
    local d
    d=$(mktemp -d "$WORK/chrome.XXXXXX")
    timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu \
        --disable-background-networking --disable-component-update \
        --disable-sync --no-first-run --user-data-dir="$d" "$@" 2>/dev/null
}

# The library's html= page (leakprint --html of a massif file makes the
# same page: html.sh compares them; the sqlite3 case below renders one).
same_as_native "slow_app with html=" "massif=massif.out.slow:html=slow.html" "$SAMPLES/slow_app"
check "html= page written" '[ -s slow.html ]' "$(ls)"
check "no network reference in the page" \
    '! grep -Eiq "(src|href)=\"?(https?:)?//|<link |@import|url\(" slow.html' \
    "$(grep -Eio '(src|href)=.{0,40}|@import.{0,40}|url\(.{0,40}' slow.html | head -3)"

browse --dump-dom "file://$WORK/slow.html" > slow.dom
check "browser: DOM holds leaky_function" 'grep -q leaky_function slow.dom'
check "browser: DOM holds 20,480,000" 'grep -q "20,480,000" slow.dom'
n=$(grep -o '<svg' slow.dom | wc -l)
check "browser: two SVG figures at least (chart, flame graph)" '[ "$n" -ge 2 ]' "found $n"
check "browser: the chart marks the peak" 'grep -q "data-peak=\"1\"" slow.dom'
check "browser: scripts ran (data-js-ok on body and flame graph)" \
    'grep -q "<body[^>]*data-js-ok=\"1\"" slow.dom && grep -q "class=\"flamegraph\"[^>]*data-js-ok=\"1\"" slow.dom' \
    "$(grep -o 'data-js-[a-z]*="[^"]*"' slow.dom | head -5)"
check "browser: no JavaScript error" \
    '! grep -q "data-js-error=\"" slow.dom && grep -q "<div id=\"js-errors\" hidden=\"\"></div>" slow.dom' \
    "$(grep -o 'data-js-error="[^"]*"' slow.dom | head -3)"
# The page's own error trap works: a broken copy must show its error.
sed 's#</body>#<script>undefinedFunctionForTheTest();</script></body>#' slow.html > broken.html
browse --dump-dom "file://$WORK/broken.html" > broken.dom
check "browser: a script error is caught and shown in the page" \
    'grep -q "data-js-error=\"[^\"]*undefinedFunctionForTheTest" broken.dom' "$(grep -o 'data-js-[a-z]*="[^"]*"' broken.dom | head -3)"
browse --window-size=1280,1000 --screenshot="$SHOTS/slow-report.png" "file://$WORK/slow.html" >/dev/null
check "screenshot of the HTML report kept" '[ -s "$SHOTS/slow-report.png" ]' "$(ls "$SHOTS")"

# The per-site sections: the tables, the leak table and the cost
# selector are in the rendered DOM; switching the selector shows one flame
# graph at a time, with no JavaScript error.
check "browser: leak table and five top tables rendered" \
    'grep -q "<table id=\"leaks\">" slow.dom && [ "$(grep -o "<table class=\"top\" data-cost=\"[a-z]*\"" slow.dom | wc -l)" = 5 ]' \
    "$(grep -o '<table[^>]*>' slow.dom)"
check "browser: cost selector with six costs, peak shown first" \
    '[ "$(grep -o "<option value=\"[a-z]*\"" slow.dom | wc -l)" = 6 ] && grep -q "data-flame-cost=\"peak\"" slow.dom' \
    "$(grep -o '<option[^>]*>\|data-flame-cost="[^"]*"' slow.dom)"
cat > select.js <<'JS'
<script>
(function () {
  var sel = document.getElementById('flame-cost'), out = [];
  ['temp', 'calls', 'leaked'].forEach(function (k) {
    sel.value = k;
    sel.dispatchEvent(new Event('change'));
    var shown = [].filter.call(document.querySelectorAll('div.flame'), function (d) { return !d.hidden; });
    out.push(k + '=' + shown.length + ':' + shown[0].getAttribute('data-cost') + ':' +
             shown[0].querySelector('svg').getAttribute('data-total'));
  });
  document.body.setAttribute('data-select-test', out.join(' '));
})();
</script>
JS
sed -e '/<\/body>/{r select.js' -e 'd}' slow.html > select.html
echo '</body></html>' >> select.html
browse --dump-dom "file://$WORK/select.html" > select.dom
st=$(sed -n 's/.*data-select-test="\([^"]*\)".*/\1/p' select.dom | head -1)
check "browser: the selector shows exactly the chosen graph (calls: 5,000+ allocations, leaked: 20,480,000 bytes)" \
    'case "$st" in "temp=1:temp:"*" calls=1:calls:"500[0-9]*" leaked=1:leaked:20480000") true ;; *) false ;; esac' "got '$st'"
check "browser: no JavaScript error while switching costs" \
    '! grep -q "data-js-error=\"" select.dom && grep -q "<body[^>]*data-js-ok=\"1\"" select.dom' "$(grep -o 'data-js-error="[^"]*"' select.dom)"
browse --window-size=1280,2400 --screenshot="$SHOTS/slow-report-full.png" "file://$WORK/slow.html" >/dev/null
check "screenshot of the whole report kept (tables)" '[ -s "$SHOTS/slow-report-full.png" ]'

# leakprint --html of a pprof file renders too.
same_as_native "site_costs with pprof=" "pprof=sc.pb.gz:massif=sc.massif" "$SAMPLES/site_costs"
"$LEAKPRINT" --html sc.massif sc.pb.gz > sc.html
browse --dump-dom "file://$WORK/sc.html" > sc.dom
check "browser: leakprint --html MASSIF PPROF renders, scripts ran, temp_user in the tables" \
    'grep -q "<body[^>]*data-js-ok=\"1\"" sc.dom && grep -q "temp_user" sc.dom && ! grep -q "data-js-error=\"" sc.dom' "$(grep -o 'data-js-[a-z]*="[^"]*"' sc.dom | head -3)"
browse --window-size=1280,2400 --screenshot="$SHOTS/site-costs-report.png" "file://$WORK/sc.html" >/dev/null

# The standalone SVG: ?s= searches at load, and the script reports the
# matched share (leaky_function holds all but stdio's 4,096 bytes).
"$LEAKPRINT" --flamegraph=svg massif.out.slow > slow.svg
browse --dump-dom "file://$WORK/slow.svg?s=leaky" > svg.dom
check "browser: SVG script ran" 'grep -q "data-js-ok=\"1\"" svg.dom && ! grep -q "data-js-error=\"" svg.dom' "$(head -c 600 svg.dom)"
pct=$(sed -n 's/.*data-matched="\([0-9.]*\)".*/\1/p' svg.dom | head -1)
check "browser: search for 'leaky' matches 99.9% or more" \
    'awk -v p="$pct" "BEGIN { exit !(p >= 99.9) }"' "matched=${pct:-none}"
check "browser: matched frames turned magenta" 'grep -q "rgb(230,0,230)" svg.dom'
browse --dump-dom "file://$WORK/slow.svg?s=no_such_function" > svg2.dom
check "browser: a search without match says 0.0%" 'grep -q "data-matched=\"0.0\"" svg2.dom'
browse --window-size=1200,300 --screenshot="$SHOTS/slow-flame.png" "file://$WORK/slow.svg?s=leaky" >/dev/null
check "screenshot of the searched flame graph kept" '[ -s "$SHOTS/slow-flame.png" ]'

# A bigger real profile: sqlite3 from the fixtures renders without error.
"$LEAKPRINT" --html "$TOP/tests/fixtures/massif/sqlite3-insert.massif.out" > sq.html
browse --dump-dom "file://$WORK/sq.html" > sq.dom
check "browser: leakprint --html of sqlite3 renders, scripts ran" \
    'grep -q "<body[^>]*data-js-ok=\"1\"" sq.dom && grep -q sqlite3Malloc sq.dom && [ "$(grep -o "<svg" sq.dom | wc -l)" -ge 2 ]' "$(grep -o 'data-js-[a-z]*="[^"]*"' sq.dom | head -3)"
browse --window-size=1280,1400 --screenshot="$SHOTS/sqlite3-report.png" "file://$WORK/sq.html" >/dev/null
check "screenshot of leakprint --html kept" '[ -s "$SHOTS/sqlite3-report.png" ]'

# Zoom, driven from a script in a copy of the sqlite3 page: clicking
# (lpFlame.zoom) a narrow frame widens it to the full 1,180 pixels and
# hides frames outside it; Reset Zoom (unzoom) puts everything back.
cat > zoom.js <<'JS'
<script>
(function () {
  var svg = document.querySelector('svg.flamegraph'), out = [];
  var gs = [].slice.call(svg.querySelectorAll('g.f'));
  var g = gs.filter(function (f) { var w = +f.getAttribute('data-w'); return w > 20 && w < 300; })[0];
  svg.lpFlame.zoom(g);
  out.push('zoomed=' + g.querySelector('rect').getAttribute('width'));
  out.push('hidden=' + gs.filter(function (f) { return f.style.display === 'none'; }).length);
  svg.dispatchEvent(new MouseEvent('click', { bubbles: true }));
  svg.lpFlame.unzoom();
  out.push('restored=' + (g.querySelector('rect').getAttribute('width') === (+g.getAttribute('data-w')).toFixed(1)));
  out.push('shown=' + gs.filter(function (f) { return f.style.display !== 'none'; }).length + '/' + gs.length);
  document.body.setAttribute('data-zoom-test', out.join(' '));
})();
</script>
JS
sed -e '/<\/body>/{r zoom.js' -e 'd}' sq.html > zoom.html
echo '</body></html>' >> zoom.html
browse --dump-dom "file://$WORK/zoom.html" > zoom.dom
z=$(sed -n 's/.*data-zoom-test="\([^"]*\)".*/\1/p' zoom.dom | head -1)
nf=$(grep -o '<g class="f"' sq.html | wc -l)
check "browser: zoom widens the frame to 1180 px and hides others" \
    'case "$z" in "zoomed=1180.0 hidden="[1-9]*) true ;; *) false ;; esac' "got '$z'"
check "browser: Reset Zoom restores every frame" \
    'case "$z" in *"restored=true shown=$nf/$nf") true ;; *) false ;; esac' "got '$z', $nf frames"
check "browser: no JavaScript error while zooming" '! grep -q "data-js-error=\"" zoom.dom' "$(grep -o 'data-js-error="[^"]*"' zoom.dom)"
