#!/bin/bash
# sarif_paths.sh - SARIF that code scanning can place, from a real run
# under libleakprof.so: samples/sarif (built from its own directory, so
# DWARF's comp_dir is samples/sarif) leaks twice in list_build(); the log
# must validate against the 2.1.0 schema and hold two results with
# different fingerprints, located at src/util/list.c relative to
# %SRCROOT% = file://.../samples/sarif/, with no frame of ours anywhere.
# A C++ program built in a nested temporary tree checks the same for
# operator new[] (preload/hot/cxx.c). Each program's stdout and exit status
# under the library match its native run.
. "$(dirname "$0")/_lib.sh"
LIB=$OABS/libleakprof.so
[ -f "$LIB" ] || { echo "SKIP: no $LIB"; exit 77; }
cigate_tmp
SAMPLE=$LP_TOP/samples/sarif
srcroot=$(cd "$SAMPLE" && pwd)
(cd "$SAMPLE" && ${CC:-cc} -g -O0 -fno-omit-frame-pointer -Isrc -o "$T/list_app" \
    src/main.c src/util/list.c) || { echo "FAIL: build samples/sarif"; exit 1; }
mkdir -p "$T/proj/lib/shapes" || exit 1
cat > "$T/proj/lib/shapes/grid.cc" <<'CC'
#include <cstdio>
struct Cell { int v[4]; };
__attribute__((noinline)) static Cell *make_row(int n) {
    return new Cell[n]; // ROW_LINE
}
__attribute__((noinline)) static int *make_index(int n) {
    return new int[n]; // INDEX_LINE
}
int main() {
    Cell *r = make_row(8);
    int *ix = make_index(16);
    r = nullptr;
    ix = nullptr;
    std::printf("grid %p %p\n", (void *)r, (void *)ix);
    return 3;
}
CC
(cd "$T/proj" && ${CXX:-c++} -g -O0 -fno-omit-frame-pointer -o "$T/grid" lib/shapes/grid.cc) ||
    { echo "FAIL: build grid.cc"; exit 1; }
cd "$T" || exit 1

# run NAME PROG: native and under the library (sarif=NAME.sarif).
run() {
    local name=$1 prog=$2 rn rl
    "$prog" > "$name.native" 2>/dev/null; rn=$?
    LEAKPROF_OPTIONS="sarif=$T/$name.sarif:massif=0" LD_PRELOAD=$LIB "$prog" \
        > "$name.lib" 2> "$name.err"; rl=$?
    if cmp -s "$name.native" "$name.lib" && [ $rn = $rl ]; then
        echo "PASS: $name: stdout and exit status ($rn) as native"
    else
        echo "FAIL: $name: stdout and exit status as native (native $rn, lib $rl)"
    fi
    [ -s "$name.sarif" ] && echo "PASS: $name: sarif written" || echo "FAIL: $name: sarif written"
}
run list "$T/list_app"
run grid "$T/grid"

PY=$(find_jsonschema_python) || PY=
if [ -n "$PY" ]; then
    for n in list grid; do
        if "$PY" - "$LP_TOP/tests/fixtures/sarif/sarif-schema-2.1.0.json" "$n.sarif" <<'PY'
import json, sys, jsonschema
jsonschema.Draft4Validator(json.load(open(sys.argv[1]))).validate(json.load(open(sys.argv[2])))
PY
        then echo "PASS: $n: validates against the 2.1.0 schema"
        else echo "FAIL: $n: validates against the 2.1.0 schema"; fi
    done
else
    echo "SKIP: schema validation (no python3 jsonschema)"
fi

node_line=$(grep -n 'LEAK_NODE' "$SAMPLE/src/util/list.c" | cut -d: -f1)
scratch_line=$(grep -n 'LEAK_SCRATCH' "$SAMPLE/src/util/list.c" | cut -d: -f1)
main_line=$(grep -n 'list_build(3)' "$SAMPLE/src/main.c" | cut -d: -f1)
row_line=$(grep -n 'ROW_LINE' "$T/proj/lib/shapes/grid.cc" | cut -d: -f1)
index_line=$(grep -n 'INDEX_LINE' "$T/proj/lib/shapes/grid.cc" | cut -d: -f1)
python3 - "$srcroot" "$node_line" "$scratch_line" "$main_line" "$T/proj" "$row_line" "$index_line" <<'PY'
import json, sys
root, node, scratch, main_line, proj, row, index = sys.argv[1], *map(int, sys.argv[2:5]), sys.argv[5], *map(int, sys.argv[6:8])
ok = True
def check(name, cond, detail=""):
    global ok
    print(("PASS: " if cond else "FAIL: ") + name + ("" if cond else " " + str(detail)))
    ok = ok and cond

def ours(obj):
    text = json.dumps(obj)
    return "libleakprof" in text or "hooks.c" in text or "cxx.c" in text

def flows(r):
    return r["codeFlows"][0]["threadFlows"][0]["locations"]

for name, base, want in (("list", root, [("src/util/list.c", node), ("src/util/list.c", scratch)]),
                         ("grid", proj, [("lib/shapes/grid.cc", row), ("lib/shapes/grid.cc", index)])):
    run = json.load(open(name + ".sarif"))["runs"][0]
    res = run["results"]
    check(f"{name}: SRCROOT is the comp_dir", run.get("originalUriBaseIds", {}).get("SRCROOT", {}).get("uri") == "file://" + base + "/",
          run.get("originalUriBaseIds"))
    check(f"{name}: two results", len(res) == 2, len(res))
    got = sorted((r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
                  r["locations"][0]["physicalLocation"]["artifactLocation"].get("uriBaseId"),
                  r["locations"][0]["physicalLocation"]["region"]["startLine"]) for r in res)
    check(f"{name}: located at the two allocation lines, path relative to SRCROOT",
          got == sorted((u, "SRCROOT", l) for u, l in want), got)
    fps = [r["partialFingerprints"] for r in res]
    check(f"{name}: different stack fingerprints", len({f["leakStack/v2"] for f in fps}) == 2, fps)
    check(f"{name}: allocation site file:line fingerprints",
          sorted(f["leakSite/v1"] for f in fps) == sorted(f"{u}:{l}" for u, l in want), fps)
    check(f"{name}: no frame of ours in locations, flows or stacks",
          not any(ours(r["locations"]) or ours(r["codeFlows"]) or ours(r["stacks"]) for r in res))
    check(f"{name}: first step is the result location",
          all(flows(r)[0]["location"]["physicalLocation"] == r["locations"][0]["physicalLocation"] for r in res))
    if name == "list":
        steps = [(s["location"]["logicalLocations"][0]["fullyQualifiedName"],
                  s["location"]["physicalLocation"]["artifactLocation"]["uri"],
                  s["location"]["physicalLocation"]["region"]["startLine"]) for s in flows(res[0])]
        check("list: code flow list_build -> main with src/ paths",
              steps in ([("list_build", "src/util/list.c", node), ("main", "src/main.c", main_line)],
                        [("list_build", "src/util/list.c", scratch), ("main", "src/main.c", main_line)]), steps)
        check("list: allocator malloc", all(r["properties"].get("allocator") == "malloc" for r in res))
    else:
        check("grid: allocator operator new[]",
              all(r["properties"].get("allocator", "").startswith("operator new[]") for r in res),
              [r["properties"] for r in res])
sys.exit(0 if ok else 1)
PY
