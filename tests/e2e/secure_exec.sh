# Secure execution (AT_SECURE, issue 9 item 12): a set-user-ID program
# that gets the library (the only way glibc allows: a set-user-ID library
# named without a slash, from a system directory) must see it do nothing:
# no option read, no file written, nothing on stderr, status as native.
# Needs root (to install the library and make the program set-user-ID)
# and setpriv (to run it as nobody, so that the kernel sets AT_SECURE).
. "$(dirname "$0")/_lib.sh"
multi=$(gcc -print-multiarch 2>/dev/null)
sysdir=/usr/lib/$multi
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null || [ -z "$multi" ] ||
   [ ! -d "$sysdir" ]; then
    echo "SKIP: secure execution needs root, setpriv and $sysdir"
    exit 0
fi
name=libleakprof-sectest-$$.so
trap 'rm -f "$sysdir/$name"; rm -rf "$WORK"' EXIT
install -m 4755 "$LIB" "$sysdir/$name"
chmod 755 "$WORK"
cp "$SAMPLES/secure_probe" "$WORK/probe"
chmod 4755 "$WORK/probe"
mkdir -m 777 "$WORK/out"
as_nobody() { (cd "$WORK/out" && setpriv --reuid=65534 --regid=65534 --clear-groups "$@"); }

as_nobody "$WORK/probe" >"$WORK/nat.out" 2>"$WORK/nat.err"; nrc=$?
as_nobody env LD_PRELOAD="$name" \
    LEAKPROF_OPTIONS="log=$WORK/out/report.txt:massif=$WORK/out/m.out:error_exitcode=42" \
    "$WORK/probe" >"$WORK/lp.out" 2>"$WORK/lp.err"; rc=$?
check "the program runs set-user-ID with AT_SECURE" grep -q '^secure=1 ' "$WORK/nat.out"
check "the library is loaded into it" [ "$(cat "$WORK/lp.err")" = loaded=1 ]
as_native "set-user-ID program under the library" "$WORK/lp.out" $rc "$WORK/nat.out" $nrc
check "no file written (options not read)" [ -z "$(ls -A "$WORK/out")" ]
# The same program run without AT_SECURE (root runs it: uid = euid) does
# get the library's report: the test would notice a library that simply
# failed to load or to work.
(cd "$WORK/out" && env LD_PRELOAD="$name" LEAKPROF_OPTIONS="log=$WORK/out/report.txt:massif=0" \
    "$WORK/probe" >/dev/null 2>&1)
check "without AT_SECURE the same setup reports" grep -q 'definitely lost: 100 bytes in 1 blocks' "$WORK/out/report.txt"
