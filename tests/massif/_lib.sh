# tests/massif/_lib.sh - helpers for the massif end-to-end cases (sourced).
# Env: $O (build dir), $LP_TOP (repo root).
O=${O:-build}
LP_TOP=${LP_TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
case $O in /*) ;; *) O=$LP_TOP/$O ;; esac
LIB=$O/libleakprof.so
STRICT=$LP_TOP/tests/massif/check_massif_strict.py
[ -f "$LIB" ] || { echo "SKIP: no $LIB"; exit 77; }
T=$(mktemp -d "${TMPDIR:-/tmp}/lp-massif.XXXXXX")
trap 'rm -rf "$T"' EXIT
fails=0
pass() { echo "PASS: $1"; }
fail() { echo "FAIL: $1${2:+ ($2)}"; fails=$((fails + 1)); }
skip() { echo "SKIP: $1${2:+ ($2)}"; }
check() { if eval "$2"; then pass "$1"; else fail "$1" "$3"; fi; }

# ms_print must read the file, exit 0; with $2 = graph, the graph must
# show both '@' (detailed) and '#' (peak) columns.
ms_print_ok() {
    local f=$1 out
    [ -x /usr/bin/ms_print ] || return 0
    out=$(/usr/bin/ms_print "$f" 2>&1) || { echo "$out" | tail -3; return 1; }
    if [ "$2" = graph ]; then
        local g
        g=$(printf '%s\n' "$out" | sed -n '/^ *[0-9.]*\^/,/^ *0 +-/p')
        printf '%s\n' "$g" | grep -q '@' && printf '%s\n' "$g" | grep -q '#' || return 1
    fi
    return 0
}
strict_ok() {
    command -v python3 >/dev/null || return 0
    local r
    r=$(python3 "$STRICT" "$1" 2>&1)
    case $r in *" OK") return 0 ;; esac
    echo "$r" | tail -3
    return 1
}
cc_sample() { # cc_sample NAME < source
    cat > "$T/$1.c" && cc -g -O0 -fno-omit-frame-pointer -pthread -o "$T/$1" "$T/$1.c"
}
finish() { [ $fails -eq 0 ]; exit $?; }
