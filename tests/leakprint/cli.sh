#!/bin/bash
# cli.sh - options, usage errors (exit 2), --help/--version, and ms_print's
# header-then-fail behaviour for files without snapshots or with a bad
# time_unit.
. "$(dirname "$0")/_lib.sh"
cd "$TMPD" || exit 1
cp "$FIX/example-prog1.massif.out" p.ms

expect_rc() { # expect_rc NAME RC args...
    local name=$1 want=$2 rc
    shift 2
    "$LP" "$@" > out 2> err; rc=$?
    if [ $rc -eq "$want" ]; then echo "PASS: $name"; else echo "FAIL: $name (exit $rc, want $want)"; fi
}
usage_case() {
    local name=$1
    shift
    expect_rc "$name" 2 "$@"
    if grep -q '^usage: leakprint' err && [ ! -s out ]; then echo "PASS: $name/usage-on-stderr"
    else echo "FAIL: $name/usage-on-stderr"; fi
}
usage_case no-args
usage_case x-too-small --x=3 p.ms
usage_case x-too-big --x=1001 p.ms
usage_case x-not-integer --x=4.0 p.ms
usage_case y-not-number --y=abc p.ms
usage_case threshold-too-big --threshold=100.5 p.ms
usage_case threshold-negative --threshold=-1 p.ms
usage_case threshold-double-percent --threshold=5%% p.ms
usage_case unknown-option --frobnicate p.ms
usage_case flamegraph-bad-format --flamegraph=png p.ms
usage_case diff-one-file --diff p.ms
usage_case snapshot-without-flamegraph --snapshot=3 p.ms
expect_rc help 0 --help
grep -q -- '--flamegraph' out && echo "PASS: help-on-stdout" || echo "FAIL: help-on-stdout"
expect_rc version 0 --version
grep -q '^leakprint ' out && echo "PASS: version-text" || echo "FAIL: version-text"

# Options ms_print accepts: leading zeros, a trailing %, odd dotted values,
# and the first of several file names.
for opts in "--x=0010 --y=004" "--threshold=50%" "--threshold=1.2.3" "--threshold=100" "--x=1000 --y=1000"; do
    # shellcheck disable=SC2086
    expect_rc "accepts $opts" 0 $opts p.ms
done
expect_rc "extra file names are ignored" 0 p.ms nonexistent.ms

# Zero snapshots: the header, then exit 1 (ms_print dies after the header).
printf 'desc: (none)\ncmd: ./x\ntime_unit: B\n' > empty.ms
expect_rc zero-snapshots 1 empty.ms
if [ "$(head -1 out)" = "$(printf '%080d' 0 | tr 0 -)" ] && grep -q '^Command:            ./x$' out &&
    grep -q "^leakprint: empty.ms: no snapshots" err; then
    echo "PASS: zero-snapshots/header-then-error"
else
    echo "FAIL: zero-snapshots/header-then-error"
fi
sed 's/^time_unit: B/time_unit: parsecs/' p.ms > tu.ms
expect_rc bad-time-unit 1 tu.ms
grep -q 'bad time_unit' err && echo "PASS: bad-time-unit/message" || echo "FAIL: bad-time-unit/message"

# Output errors are reported, not ignored.
if [ -w /dev/full ]; then
    "$LP" p.ms > /dev/full 2> err; rc=$?
    if [ $rc -eq 1 ] && grep -q 'write error' err; then echo "PASS: write-error"; else echo "FAIL: write-error (exit $rc)"; fi
fi
