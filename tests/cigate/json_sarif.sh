#!/bin/bash
# json_sarif.sh - the JSON report parses and says what the record set
# says; the SARIF log validates against the SARIF 2.1.0 schema
# (tests/fixtures/sarif/) and points at the program's own source lines.
. "$(dirname "$0")/_lib.sh"
cigate_tmp
build_prog
cd "$T" || exit 1
./report_prog report out.json out.sarif "$LP_TOP/tests/cigate" || { echo "FAIL: report_prog report"; exit 1; }
src=$LP_TOP/tests/cigate/report_prog.c
line_alloc=$(grep -n 'MY_ALLOC_LINE' "$src" | cut -d: -f1)

for f in out.json out.sarif; do
    if python3 -m json.tool "$f" >/dev/null; then echo "PASS: $f is JSON"
    else echo "FAIL: $f is JSON"; fi
done

python3 - "$line_alloc" <<'PY'
import json, sys
line_alloc = int(sys.argv[1])
d = json.load(open("out.json"))
ok = True
def check(name, cond):
    global ok
    print(("PASS: " if cond else "FAIL: ") + "json " + name)
    ok = ok and cond
recs = d["loss_records"]
check("five records numbered 1..5 of 5",
      [r["number"] for r in recs] == [1, 2, 3, 4, 5] and all(r["of"] == 5 for r in recs))
tot = [r["bytes"] for r in recs]
check("Memcheck order (total bytes ascending)", tot == sorted(tot))
ls = d["leak_summary"]
check("leak summary", ls["definitely_lost"] == {"bytes": 150, "blocks": 2}
      and ls["indirectly_lost"] == {"bytes": 30, "blocks": 2}
      and ls["possibly_lost"] == {"bytes": 64, "blocks": 1}
      and ls["still_reachable"] == {"bytes": 0, "blocks": 0}
      and ls["suppressed"] == {"bytes": 16, "blocks": 1})
sup = [r for r in recs if r["suppressed"]]
check("suppressed record named, quotes and tab escaped",
      len(sup) == 1 and sup[0]["suppression"] == '"odd"\tname' and sup[0]["kind_id"] == "reachable")
big = [r for r in recs if r["bytes"] == 80][0]
check("direct/indirect split", big["direct_bytes"] == 50 and big["indirect_bytes"] == 30)
fns = [f["function"] for f in big["stack"]]
check("stack symbolized to main", fns == ["my_alloc", "leak_other", "main"])
f0 = big["stack"][0]
check("frame file:line and object", f0["file"] == "report_prog.c" and f0["line"] == line_alloc
      and f0["object"].endswith("/report_prog") and f0["address"].startswith("0x"))
check("errors", d["errors"] == 3 and d["suppressed_errors"] == 0)
check("error flags", sorted(r["bytes"] for r in recs if r["error"]) == [64, 80, 100])
sys.exit(0 if ok else 1)
PY

PY=$(find_jsonschema_python) || { echo "SKIP: sarif schema validation (no python3 jsonschema, cannot install python3-jsonschema)"; exit 0; }
cat >validate.py <<'PY'
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
log = json.load(open(sys.argv[2]))
try:
    jsonschema.Draft4Validator(schema).validate(log)
except jsonschema.ValidationError as e:
    print("invalid:", e.message, "at", list(e.absolute_path))
    sys.exit(1)
PY
schema=$LP_TOP/tests/fixtures/sarif/sarif-schema-2.1.0.json
if $PY validate.py "$schema" out.sarif; then echo "PASS: sarif validates against the 2.1.0 schema"
else echo "FAIL: sarif validates against the 2.1.0 schema"; fi
# The validator must be able to say no.
$PY -c 'import json; d=json.load(open("out.sarif")); d["runs"][0]["results"][0]["level"]="fatal"; json.dump(d, open("bad.sarif","w"))'
if ! $PY validate.py "$schema" bad.sarif >/dev/null; then echo "PASS: schema rejects a bad level"
else echo "FAIL: schema rejects a bad level"; fi

$PY - "$line_alloc" "$LP_TOP/tests/cigate" <<'PY'
import json, sys
line_alloc, root = int(sys.argv[1]), sys.argv[2]
d = json.load(open("out.sarif"))
ok = True
def check(name, cond):
    global ok
    print(("PASS: " if cond else "FAIL: ") + "sarif " + name)
    ok = ok and cond
run = d["runs"][0]
check("version and schema", d["version"] == "2.1.0" and d["$schema"] == "https://json.schemastore.org/sarif-2.1.0.json")
rules = run["tool"]["driver"]["rules"]
check("driver and rules", run["tool"]["driver"]["name"] == "leakprof" and
      [r["id"] for r in rules] == ["leak/definite", "leak/indirect", "leak/possible", "leak/reachable"])
res = run["results"]
check("one result per unsuppressed error-kind record", len(res) == 3)
texts = sorted(r["message"]["text"] for r in res)
check("messages as Memcheck headers", texts == [
    "100 bytes in 1 blocks are definitely lost",
    "64 bytes in 1 blocks are possibly lost",
    "80 (50 direct, 30 indirect) bytes in 1 blocks are definitely lost"])
check("levels", sorted((r["ruleId"], r["level"]) for r in res) ==
      [("leak/definite", "error"), ("leak/definite", "error"), ("leak/possible", "warning")])
check("ruleIndex points at ruleId", all(rules[r["ruleIndex"]]["id"] == r["ruleId"] for r in res))
locs = [r["locations"][0]["physicalLocation"] for r in res]
check("location is own source file and line", all(
    l["artifactLocation"] == {"uri": "report_prog.c", "uriBaseId": "SRCROOT"} and
    l["region"]["startLine"] == line_alloc for l in locs))
check("SRCROOT", run["originalUriBaseIds"]["SRCROOT"]["uri"] == "file://" + root + "/")
one = [r for r in res if r["message"]["text"].startswith("100 ")][0]
steps = [s["location"]["logicalLocations"][0]["fullyQualifiedName"]
         for s in one["codeFlows"][0]["threadFlows"][0]["locations"]]
frames = [f["location"]["logicalLocations"][0]["fullyQualifiedName"] for f in one["stacks"][0]["frames"]]
check("codeFlow and stack carry the whole stack", steps == frames == ["my_alloc", "leak_fn", "main"])
check("fingerprints differ per stack", len({r["partialFingerprints"]["leakStack/v2"] for r in res}) == 3)
sys.exit(0 if ok else 1)
PY
