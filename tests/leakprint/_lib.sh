# _lib.sh - shared by the leakprint case scripts (sourced, not run).
# Sets LP (absolute path of the leakprint binary), FIX (fixtures dir) and
# a scratch directory TMPD removed on exit.
LP_TOP=${LP_TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
O=${O:-build}
case $O in /*) LP=$O/leakprint ;; *) LP=$LP_TOP/$O/leakprint ;; esac
FIX=$LP_TOP/tests/fixtures/massif
HERE=$LP_TOP/tests/leakprint
if [ ! -x "$LP" ]; then
    echo "no $LP; run make $O/leakprint first" >&2
    exit 1
fi
TMPD=$(mktemp -d)
trap 'rm -rf "$TMPD"' EXIT
. "$HERE/_optsets.sh"
