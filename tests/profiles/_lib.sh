# tests/profiles/_lib.sh - helpers for the profile export cases (sourced):
# pprof files, flame graphs, the HTML report, the browser check.
# Env: $O (build dir), $LP_TOP (repo root).
O=${O:-build}
TOP=${LP_TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
case $O in /*) ;; *) O=$TOP/$O ;; esac
LIB=$O/libleakprof.so
SAMPLES=$O/samples
LEAKPRINT=$O/leakprint
[ -f "$LIB" ] || { echo "SKIP: no $LIB"; exit 77; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/lp-profiles.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK" || exit 1

pass() { echo "PASS: $1"; }
fail() { echo "FAIL: $1${2:+ ($2)}"; }
skip() { echo "SKIP: $1${2:+ ($2)}"; }
check() { # name condition [detail shown on failure]
    if eval "$2"; then pass "$1"; else fail "$1" "$3"; fi
}

# same_as_native NAME OPTIONS CMD...: run CMD natively and under the
# library with LEAKPROF_OPTIONS=OPTIONS (massif and the report out of the
# way); its stdout and exit status must be identical, byte for byte.
same_as_native() {
    local name=$1 opts=$2 rc_n rc_l; shift 2
    "$@" > native.out 2>/dev/null; rc_n=$?
    LEAKPROF_OPTIONS="massif=0:log=lp.log${opts:+:$opts}" LD_PRELOAD=$LIB \
        "$@" > lp.out 2>lp.err; rc_l=$?
    check "$name: stdout and status as native" \
        'cmp -s native.out lp.out && [ $rc_n = $rc_l ]' \
        "native rc=$rc_n, under leakprof rc=$rc_l; $(diff native.out lp.out | head -5)"
}

have_go() { command -v go >/dev/null 2>&1 && go tool pprof -h >/dev/null 2>&1; }
# go tool pprof with caches kept in the work directory.
gopprof() { HOME=$WORK GOCACHE=$WORK/.gocache GOFLAGS= go tool pprof "$@" 2>&1; }
