# tests/e2e/_lib.sh - helpers for end-to-end cases (sourced).
# Each case runs a sample under the preload library and compares the
# filtered report with tests/e2e/NAME.exp, and, where Valgrind is
# installed, the LEAK SUMMARY and total heap usage with Memcheck's.
O=${O:-build}
TOP=${LP_TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
LIB=$TOP/$O/libleakprof.so
SAMPLES=$TOP/$O/samples
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; }
check() { # name cond...
    local name=$1; shift
    if "$@"; then pass "$name"; else fail "$name"; fi
}

# Strip what changes from run to run: pids, addresses, our library's path.
lp_filter() {
    sed -E -e "s#$TOP/##g" -e 's/^==[0-9]+==/==PID==/' -e 's/^--[0-9]+--/--PID--/' \
        -e 's/0x[0-9A-Fa-f]+/0x.../g' \
        -e 's/^(==PID== leakprof-)[^,]*,/\1VERSION,/' -e 's/^(==PID== Parent PID: )[0-9]+$/\1PPID/' \
        -e 's#^(==PID== Command: )[^ ]*/samples/#\1samples/#' \
        -e "s#\\(in [^)]*/libleakprof\\.so\\)#(in libleakprof.so)#" \
        -e 's#\(in /usr/lib/x86_64-linux-gnu/#(in /lib/#; s#\(in /lib/x86_64-linux-gnu/#(in /lib/#'
}

# run_lp OUTFILE OPTIONS CMD... : run under the library, report to OUTFILE,
# and check that the program's own stdout and exit status are byte for byte
# those of its native run (one PASS/FAIL line, "as native: CMD").
run_lp() {
    local out=$1 opts=$2 rc nrc; shift 2
    (cd "$WORK" && LEAKPROF_OPTIONS="massif=0:log=$out${opts:+:$opts}" LD_PRELOAD="$LIB" "$@" >"$out.stdout" 2>"$out.stderr"); rc=$?
    (cd "$WORK" && "$@" >"$out.native" 2>/dev/null); nrc=$?
    as_native "$(basename "$1") ${*:2}" "$out.stdout" $rc "$out.native" $nrc
    return $rc
}

# as_native NAME OURS_STDOUT OURS_STATUS NATIVE_STDOUT NATIVE_STATUS
as_native() {
    if [ "$3" = "$5" ] && cmp -s "$2" "$4"; then
        pass "as native: $1"
    else
        fail "as native: $1 (status $3, native $5)"; diff "$4" "$2" | head -5
    fi
}

# run_mc OUTFILE VALGRIND_OPTIONS CMD...
run_mc() {
    local out=$1 opts=$2; shift 2
    (cd "$WORK" && valgrind --log-file="$out" $opts "$@" >/dev/null 2>&1)
}

have_valgrind() { command -v valgrind >/dev/null 2>&1; }

# The numbers users compare: total heap usage and the five summary lines.
summary_numbers() {
    grep -E 'in use at exit|total heap usage|definitely lost:|indirectly lost:|possibly lost:|still reachable:|suppressed: [0-9,]+ bytes' "$1" |
        sed -E 's/^==[0-9]+== +//'
}

# Compare a filtered report with the expected file; show the diff on failure.
golden() { # name actual expected
    local name=$1 act=$2 exp=$3
    if [ "${LP_UPDATE_GOLDEN:-0}" = 1 ]; then lp_filter <"$act" >"$exp"; fi
    if diff -u "$exp" <(lp_filter <"$act") >"$WORK/diff"; then
        pass "$name"
    else
        fail "$name"; head -40 "$WORK/diff"
    fi
}

# Compare ours and Memcheck's through FILTER (skip without Valgrind).
memcheck_diff() { # name filter ours theirs
    local name=$1 filter=$2
    if ! have_valgrind; then echo "SKIP: $name (no valgrind)"; return; fi
    if [ ! -s "$3" ] || [ ! -s "$4" ]; then # two missing reports agree on nothing
        fail "$name (a report is missing or empty: $(wc -c <"$3" 2>&1) vs $(wc -c <"$4" 2>&1) bytes)"
        return
    fi
    if diff -u <("$filter" "$4") <("$filter" "$3") >"$WORK/mdiff"; then
        pass "$name"
    else
        fail "$name"; head -40 "$WORK/mdiff"
    fi
}

# The summary numbers only.
vs_memcheck() { memcheck_diff "$1" summary_numbers "$2" "$3"; }

# Memcheck's report and ours, from HEAP SUMMARY on, with addresses, pids
# and the preload object's name (theirs vgpreload_memcheck, ours
# libleakprof.so) normalised: what is left must be identical.
mc_normalise() {
    sed -n '/HEAP SUMMARY/,$p' "$1" | sed -E 's/^==[0-9]+==/==/; s/0x[0-9A-F]+/0x/g;
        s/\(in [^)]*(vgpreload_memcheck-amd64-linux|libleakprof)\.so\)/(in PRELOAD)/;
        s/\((vg_replace_malloc|hooks|cxx)\.c:[0-9]+\)/(in PRELOAD)/'
}
same_as_memcheck() { memcheck_diff "$1" mc_normalise "$2" "$3"; }
