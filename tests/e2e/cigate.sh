# The CI leak gate end to end: exit codes, Valgrind and LSan suppression
# files, generated suppressions fed back (here and to Valgrind), JSON and
# SARIF reports, malformed suppression files.
. "$(dirname "$0")/_lib.sh"
app=$SAMPLES/slow_app
lp() { # opts cmd... ; report in $WORK/r.txt, status in $rc
    local opts=$1; shift
    (cd "$WORK" && LEAKPROF_OPTIONS="massif=0:log=$WORK/r.txt${opts:+:$opts}" LD_PRELOAD="$LIB" "$@" >/dev/null 2>"$WORK/err.txt")
    rc=$?
}
lp "error_exitcode=23" "$app"
check "definite leak exits 23" [ "$rc" = 23 ]
lp "error_exitcode=23:errors_for_leak_kinds=reachable" "$app"
check "reachable-only errors exit 0" [ "$rc" = 0 ]
lp "error_exitcode=23:leak_check=summary" "$app"
check "summary mode never errors (as Memcheck)" [ "$rc" = 0 ]
for how in return exit _exit quick_exit; do
    lp "error_exitcode=23" "$SAMPLES/exit_ways" "$how"
    check "exit via $how gives 23" [ "$rc" = 23 ]
done
lp "error_exitcode=23" "$SAMPLES/exit_ways" fail
check "a failing program keeps its status" [ "$rc" = 3 ]
"$TOP/$O/leakprof" --massif=0 --error-exitcode=23 "$app" >/dev/null 2>&1
check "launcher --error-exitcode" [ "$?" = 23 ]

cat >"$WORK/v.supp" <<'S'
# the seed lab's known leak
{
   slow_app_leak
   Memcheck:Leak
   fun:malloc
   fun:leaky_function
   ...
}
S
lp "error_exitcode=23:suppressions=$WORK/v.supp" "$app"
check "valgrind suppression: exit 0" [ "$rc" = 0 ]
check "valgrind suppression: summary" grep -q 'suppressed: 20,480,000 bytes in 5,000 blocks' "$WORK/r.txt"
check "valgrind suppression: no record" sh -c "! grep -q 'are definitely lost' '$WORK/r.txt'"
echo 'leak:leaky_function' >"$WORK/l.supp"
lp "error_exitcode=23:suppressions=$WORK/l.supp" "$app"
check "lsan suppression: exit 0" [ "$rc" = 0 ]
check "lsan suppression: summary" grep -q 'suppressed: 20,480,000 bytes in 5,000 blocks' "$WORK/r.txt"
check "lsan suppression: used table" grep -q 'leaky_function' "$WORK/r.txt"

# Malformed file: one error naming file and line; the run is unsuppressed.
printf '{\n   bad\n   Memcheck:Leak\n   fun:malloc\n' >"$WORK/bad.supp"
lp "error_exitcode=23:suppressions=$WORK/bad.supp" "$app"
check "malformed suppressions: one error line" [ "$(grep -c 'bad.supp:[0-9]' "$WORK/err.txt")" = 1 ]
check "malformed suppressions: still checked" [ "$rc" = 23 ]

# gen_suppressions: what we print silences exactly those records, here
# and under Valgrind.
p=$SAMPLES/leak_kinds
lp "gen_suppressions=yes" "$p"
awk '/^{/{on=1} on{print} /^}/{on=0}' "$WORK/r.txt" >"$WORK/gen.supp"
n=$(grep -c '^{' "$WORK/gen.supp")
check "gen_suppressions printed blocks" [ "$n" -gt 0 ]
shown=$(grep -c 'in loss record' "$WORK/r.txt")
check "one block per shown record" [ "$n" = "$shown" ]
lp "suppressions=$WORK/gen.supp:error_exitcode=23" "$p"
check "generated suppressions silence them: exit 0" [ "$rc" = 0 ]
check "generated suppressions silence them: no record" sh -c "! grep -q 'in loss record' '$WORK/r.txt'"
if have_valgrind; then
    (cd "$WORK" && valgrind --leak-check=full --error-exitcode=23 --suppressions="$WORK/gen.supp" --log-file="$WORK/mc.txt" "$p" >/dev/null 2>&1)
    check "valgrind accepts them and is silenced" [ "$?" = 0 ]
    check "valgrind shows no record" sh -c "! grep -q 'in loss record' '$WORK/mc.txt'"
fi

# A thread's block: the suppression Memcheck 3.19 generates for it ends
# in fun:clone (Valgrind has no clone3), and silences it here too; the one
# we generate is Memcheck's, so one file serves both tools.
t=$SAMPLES/thread_leak
cat >"$WORK/thr.supp" <<'S'
{
   <insert_a_suppression_name_here>
   Memcheck:Leak
   match-leak-kinds: definite
   fun:malloc
   fun:work
   fun:start_thread
   fun:clone
}
S
lp "error_exitcode=23" "$t"
check "thread leak: found" [ "$rc" = 23 ]
lp "error_exitcode=23:suppressions=$WORK/thr.supp" "$t"
check "thread leak: Memcheck's suppression (fun:clone) silences it: exit 0" [ "$rc" = 0 ]
check "thread leak: suppressed 77 bytes" grep -q 'suppressed: 77 bytes in 1 blocks' "$WORK/r.txt"
lp "gen_suppressions=all" "$t"
awk '/^{/{on=1} on{print} /^}/{on=0}' "$WORK/r.txt" >"$WORK/thr_gen.supp"
check "thread leak: the entry we generate is Memcheck's" diff "$WORK/thr.supp" "$WORK/thr_gen.supp"
if have_valgrind; then
    (cd "$WORK" && valgrind --leak-check=full --gen-suppressions=all --log-file="$WORK/mct.txt" "$t" >/dev/null 2>&1)
    awk '/^{/{on=1} on{print} /^}/{on=0}' "$WORK/mct.txt" >"$WORK/thr_mc.supp"
    check "thread leak: Memcheck generates that entry" diff "$WORK/thr_mc.supp" "$WORK/thr_gen.supp"
fi

# JSON totals equal the text report's; SARIF validates against 2.1.0.
lp "show_leak_kinds=all" "$p"; cp "$WORK/r.txt" "$WORK/text.txt"
lp "log_format=json:sarif=$WORK/out.sarif" "$p"
check "json parses and totals match text" python3 - "$WORK/r.txt" "$WORK/text.txt" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
t = open(sys.argv[2]).read().replace(',', '')
def walk(o):
    if isinstance(o, dict):
        for k, v in o.items():
            yield k, v
            yield from walk(v)
    elif isinstance(o, list):
        for v in o:
            yield from walk(v)
flat = json.dumps(d)
for kind in ('definitely lost', 'indirectly lost', 'possibly lost', 'still reachable'):
    b, n = re.search(kind + r': (\d+) bytes in (\d+) blocks', t).groups()
    assert b in flat and n in flat, kind
u = re.search(r'in use at exit: (\d+) bytes in (\d+) blocks', t).groups()
a = re.search(r'total heap usage: (\d+) allocs (\d+) frees (\d+) bytes', t).groups()
for x in u + a:
    assert x in flat, x
PY
schema=$TOP/tests/fixtures/sarif/sarif-schema-2.1.0.json
if python3 -c 'import jsonschema' 2>/dev/null || /usr/bin/python3 -c 'import jsonschema' 2>/dev/null; then
    py=python3; python3 -c 'import jsonschema' 2>/dev/null || py=/usr/bin/python3
    check "sarif validates against the 2.1.0 schema" $py -c '
import json, sys, jsonschema
s = json.load(open(sys.argv[1])); d = json.load(open(sys.argv[2]))
jsonschema.validate(d, s)
assert d["runs"][0]["results"], "no results"
' "$schema" "$WORK/out.sarif"
else
    echo "SKIP: sarif schema (no jsonschema)"
fi

# verbosity=1 lists the used suppressions exactly as valgrind -s does.
if have_valgrind; then
    lp "suppressions=$WORK/gen.supp:verbosity=1" "$p"
    (cd "$WORK" && valgrind --leak-check=full -s --suppressions="$WORK/gen.supp" --log-file="$WORK/mcs.txt" "$p" >/dev/null 2>&1)
    sed -n '/ERROR SUMMARY/,$p' "$WORK/mcs.txt" | sed -E 's/^(==|--)[0-9]+/\1/' >"$WORK/s.mc"
    sed -n '/ERROR SUMMARY/,$p' "$WORK/r.txt" | sed -E 's/^(==|--)[0-9]+/\1/' >"$WORK/s.lp"
    check "used_suppression lines as valgrind -s" cmp -s "$WORK/s.mc" "$WORK/s.lp" || diff "$WORK/s.mc" "$WORK/s.lp"
fi
