# xml=yes: Memcheck's XML (protocol 4) at exit, for the CI tools that read
# it. Each sample runs under the library with xml=yes and, where valgrind
# is installed, under valgrind --xml=yes; both documents must parse
# (python3's xml.etree) and, after normalising pids, addresses, times and
# the allocator's frame (vgpreload_memcheck vs libleakprof.so, its
# dir/file/line), have the same errors (kind, leakedbytes, leakedblocks,
# fn/file/line of each frame), errorcounts and suppcounts. The program's
# stdout and status must be its native run's, and nothing goes to stderr
# (Memcheck writes no text commentary with --xml=yes).
. "$(dirname "$0")/_lib.sh"

cat >"$WORK/xmlcmp.py" <<'PY'
import sys, xml.etree.ElementTree as ET

def doc(path):
    root = ET.parse(path).getroot()
    assert root.tag == "valgrindoutput", root.tag
    assert root.findtext("protocolversion") == "4"
    assert root.findtext("protocoltool") == "memcheck"
    assert [s.findtext("state") for s in root.findall("status")] == ["RUNNING", "FINISHED"]
    return root

def frame(f):
    fn, file, line = f.findtext("fn"), f.findtext("file"), f.findtext("line")
    obj = f.findtext("obj") or ""
    if "vgpreload_memcheck" in obj or obj.endswith("/libleakprof.so"):
        return (fn, "PRELOAD")
    if fn in ("clone", "clone3"):  # Valgrind 3.19 makes glibc fall back to clone
        return ("clone", "clone.S")
    return (fn, file, line)

def errors(root):
    out = []
    for e in root.findall("error"):
        x = e.find("xwhat")
        item = [e.findtext("kind")]
        if x is not None:
            item += [x.findtext("text"), x.findtext("leakedbytes"), x.findtext("leakedblocks")]
        else:
            item.append(e.findtext("what"))
        item.append([frame(f) for f in e.find("stack").findall("frame")])
        s = e.find("suppression")
        if s is not None:
            item.append((s.findtext("skind"), s.findtext("skaux"),
                         s.findtext("rawtext").replace("clone3", "clone")))
        out.append(item)
    return out

def counts(root, tag, key):
    return [(p.findtext("count"), p.findtext(key))
            for p in root.find(tag).findall("pair")]

what, a = sys.argv[1], doc(sys.argv[2])
if what == "parse":
    sys.exit(0)
b = doc(sys.argv[3])
for name, fa, fb in (("errors", errors(a), errors(b)),
                     ("errorcounts", counts(a, "errorcounts", "unique"), counts(b, "errorcounts", "unique")),
                     ("suppcounts", counts(a, "suppcounts", "name"), counts(b, "suppcounts", "name"))):
    if name == what and fa != fb:
        import difflib
        for l in difflib.unified_diff([repr(x) for x in fa], [repr(x) for x in fb], lineterm=""):
            print(l)
        sys.exit(1)
PY
py() { /usr/bin/python3 "$WORK/xmlcmp.py" "$@"; }

one() { # name "leakprof options" "valgrind options" cmd...
    local n=$1 lopt=$2 vopt=$3 rc nrc; shift 3
    rm -f "$WORK"/lp.$n.*.xml "$WORK"/mc.$n.*.xml
    (cd "$WORK" && LEAKPROF_OPTIONS="massif=0:xml=yes:xml_file=lp.$n.%p.xml${lopt:+:$lopt}" \
        LD_PRELOAD="$LIB" "$@" >"$WORK/lp.$n.out" 2>"$WORK/lp.$n.err"); rc=$?
    if [ -z "${AS_MEMCHECK:-}" ]; then
        (cd "$WORK" && "$@" >"$WORK/nat.$n.out" 2>/dev/null); nrc=$?
        as_native "$n" "$WORK/lp.$n.out" $rc "$WORK/nat.$n.out" $nrc
    fi
    local lrc=$rc
    check "$n: nothing on stderr (no text commentary)" [ ! -s "$WORK/lp.$n.err" ]
    local lp; lp=$(ls "$WORK"/lp.$n.*.xml 2>/dev/null | head -1)
    check "$n: one XML file, named by the pid" [ "$(ls "$WORK"/lp.$n.*.xml 2>/dev/null | wc -l)" = 1 ]
    check "$n: well-formed, protocol 4, RUNNING then FINISHED" py parse "$lp"
    if ! have_valgrind; then echo "SKIP: $n vs memcheck (no valgrind)"; return; fi
    (cd "$WORK" && valgrind --leak-check=full --xml=yes --xml-file="mc.$n.%p.xml" $vopt "$@" \
        >"$WORK/mc.$n.out" 2>"$WORK/mc.$n.err"); rc=$?
    local mc; mc=$(ls "$WORK"/mc.$n.*.xml | head -1)
    check "$n: valgrind writes nothing on stderr either" [ ! -s "$WORK/mc.$n.err" ]
    # Natively glibc aborts on a bad free: stdout and status as Memcheck's.
    [ -z "${AS_MEMCHECK:-}" ] ||
        check "$n: stdout and status as under memcheck" sh -c "[ $lrc = $rc ] && cmp -s '$WORK/mc.$n.out' '$WORK/lp.$n.out'"
    check "$n: errors equal memcheck's" py errors "$mc" "$lp"
    check "$n: errorcounts equal memcheck's" py errorcounts "$mc" "$lp"
    check "$n: suppcounts equal memcheck's" py suppcounts "$mc" "$lp"
}

one leak_kinds "" "" "$SAMPLES/leak_kinds"
one leak_kinds_all "show_leak_kinds=all:gen_suppressions=yes" \
    "--show-leak-kinds=all --gen-suppressions=all" "$SAMPLES/leak_kinds"
one slow_app "" "" "$SAMPLES/slow_app"
one thread_leak "gen_suppressions=yes" "--gen-suppressions=all" "$SAMPLES/thread_leak"

# Suppressed records are no errors; used entries are counted by name
# (escaped: a '<' in a name).
cat >"$WORK/x.supp" <<'S'
{
   lost<realloc>
   Memcheck:Leak
   match-leak-kinds: definite
   fun:realloc
   fun:leak_realloc
}
{
   interior & co
   Memcheck:Leak
   ...
   fun:keep_interior
}
S
one leak_kinds_supp "suppressions=$WORK/x.supp" "--suppressions=$WORK/x.supp" "$SAMPLES/leak_kinds"
check "suppcounts: escaped name" grep -q '<name>lost&lt;realloc&gt;</name>' "$(ls "$WORK"/lp.leak_kinds_supp.*.xml)"

# errors_for_leak_kinds does not change what is shown.
one leak_kinds_efk "errors_for_leak_kinds=definite" "--errors-for-leak-kinds=definite" "$SAMPLES/leak_kinds"

# Heap errors (InvalidFree, MismatchedFree) with their auxwhat lines and
# stacks, counted in errorcounts; Memcheck keeps freed-at stacks by
# default, we do on request.
for c in double all repeat; do
    AS_MEMCHECK=1 one heap_errors_$c "keep_stacktraces=alloc-and-free" "" "$SAMPLES/heap_errors" $c
done
AS_MEMCHECK=1 one heap_errors_cxx_all "keep_stacktraces=alloc-and-free:gen_suppressions=yes" \
    "--gen-suppressions=all" "$SAMPLES/heap_errors_cxx" all

# The launcher: --xml=yes --xml-file, and --xml-fd.
(cd "$WORK" && "$TOP/$O/leakprof" --massif=0 --xml=yes --xml-file=ln.%p.xml "$SAMPLES/slow_app" >/dev/null 2>"$WORK/ln.err"); rc=$?
check "launcher --xml-file: status 0, nothing on stderr" sh -c "[ $rc = 0 ] && [ ! -s '$WORK/ln.err' ]"
f=$(ls "$WORK"/ln.*.xml 2>/dev/null | head -1)
check "launcher --xml-file: well-formed" py parse "$f"
check "launcher: vargv names our options" grep -q '<arg>--xml-file=ln.%p.xml</arg>' "$f"
check "launcher: argv is the program" grep -q "<exe>$SAMPLES/slow_app</exe>" "$f"
(cd "$WORK" && "$TOP/$O/leakprof" --massif=0 --xml=yes --xml-fd=9 "$SAMPLES/slow_app" 9>"$WORK/fd.xml" >/dev/null 2>&1)
check "launcher --xml-fd=9: well-formed" py parse "$WORK/fd.xml"
check "--xml-fd: the leak is there" grep -q '<kind>Leak_DefinitelyLost</kind>' "$WORK/fd.xml"
# A daemon's housekeeping closes every descriptor from 3 up: the XML goes
# through the copy of 9 taken at start, as Valgrind keeps one.
(cd "$WORK" && "$TOP/$O/leakprof" --massif=0 --xml=yes --xml-fd=9 "$SAMPLES/process_life" close_all "$WORK/ca.data" 9>"$WORK/fdc.xml" >/dev/null 2>&1)
check "--xml-fd, the program closes every descriptor: well-formed" py parse "$WORK/fdc.xml"
check "--xml-fd, the program closes every descriptor: its leak is there" grep -q '<kind>Leak_DefinitelyLost</kind>' "$WORK/fdc.xml"

# Fork children: a %p file each.
(cd "$WORK" && LEAKPROF_OPTIONS="massif=0:xml=yes:xml_file=fk.%p.xml" LD_PRELOAD="$LIB" \
    "$SAMPLES/fork_child" >/dev/null 2>&1)
check "fork: one XML file per process" [ "$(ls "$WORK"/fk.*.xml 2>/dev/null | wc -l)" = 2 ]
for f in "$WORK"/fk.*.xml; do check "fork: $(basename "$f") well-formed" py parse "$f"; done

# --xml-user-comment=STR: Valgrind 3.19 copies STR as it is (no escaping:
# it may be markup) into <usercomment>, right after <tool>; an empty STR
# gives an empty element, no option none. In <vargv> the option itself is
# escaped as any argument.
uc='<a>hi & "x"</a>'
uc_line() { sed -n '/^<tool>/{n;p;}' "$1"; }
(cd "$WORK" && "$TOP/$O/leakprof" --massif=0 --xml=yes --xml-file=uc.%p.xml --xml-user-comment="$uc" "$SAMPLES/slow_app" >/dev/null 2>"$WORK/uc.err"); rc=$?
f=$(ls "$WORK"/uc.*.xml 2>/dev/null | head -1)
check "--xml-user-comment: status 0, nothing on stderr" sh -c "[ $rc = 0 ] && [ ! -s '$WORK/uc.err' ]"
check "--xml-user-comment: verbatim after <tool>" [ "$(uc_line "$f")" = "<usercomment>$uc</usercomment>" ]
check "--xml-user-comment: escaped in vargv" grep -qF '<arg>--xml-user-comment=&lt;a&gt;hi &amp; "x"&lt;/a&gt;</arg>' "$f"
(cd "$WORK" && LEAKPROF_OPTIONS="massif=0:xml=yes:xml_file=uce.%p.xml:xml_user_comment=" LD_PRELOAD="$LIB" "$SAMPLES/slow_app" >/dev/null 2>&1)
check "xml_user_comment=: an empty element" [ "$(uc_line "$(ls "$WORK"/uce.*.xml | head -1)")" = "<usercomment></usercomment>" ]
check "no xml_user_comment: no element" sh -c "! grep -q usercomment '$(ls "$WORK"/ln.*.xml | head -1)'"
if have_valgrind; then
    (cd "$WORK" && valgrind --leak-check=full --xml=yes --xml-file=vuc.%p.xml --xml-user-comment="$uc" "$SAMPLES/slow_app" >/dev/null 2>&1)
    (cd "$WORK" && valgrind --leak-check=full --xml=yes --xml-file=vuce.%p.xml --xml-user-comment= "$SAMPLES/slow_app" >/dev/null 2>&1)
    check "--xml-user-comment: the line as valgrind's" [ "$(uc_line "$f")" = "$(uc_line "$(ls "$WORK"/vuc.*.xml | head -1)")" ]
    check "--xml-user-comment=: the line as valgrind's" [ "$(uc_line "$(ls "$WORK"/uce.*.xml | head -1)")" = "$(uc_line "$(ls "$WORK"/vuce.*.xml | head -1)")" ]
fi
