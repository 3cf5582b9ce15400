# tests/cigate/_lib.sh - shared by the CI-gate case scripts (sourced).
# Builds report_prog against $O/libreport.a into a scratch directory.
LP_TOP=${LP_TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
O=${O:-build}
case $O in /*) OABS=$O ;; *) OABS=$LP_TOP/$O ;; esac
LIBS="-lunwind -ldw -lelf -lpthread -ldl -lm"

cigate_tmp() {
    T=$(mktemp -d "${TMPDIR:-/tmp}/lp-cigate.XXXXXX") || exit 1
    trap 'rm -rf "$T"' EXIT
}

# Build libreport.a if needed, then report_prog in $T. Exit 77 when the
# library cannot be built (another module mid-edit is not our failure to
# report as a pass; it is a skip with a reason).
build_prog() {
    if ! make -C "$LP_TOP" -s O="$O" "$O/libreport.a" >"$T/make.log" 2>&1; then
        echo "SKIP: cannot build $O/libreport.a"; tail -5 "$T/make.log"; exit 77
    fi
    ${CC:-cc} -std=gnu11 -D_GNU_SOURCE -g -O0 -fno-omit-frame-pointer \
        -I"$LP_TOP" -o "$T/report_prog" "$LP_TOP/tests/cigate/report_prog.c" \
        "$OABS/libreport.a" $LIBS || { echo "FAIL: build report_prog"; exit 1; }
}

# A python3 that has jsonschema: the one on PATH, Debian's, or Debian's
# after installing python3-jsonschema (needs root or password-less sudo).
find_jsonschema_python() {
    local py
    for py in python3 /usr/bin/python3; do
        if command -v "$py" >/dev/null 2>&1 && "$py" -c 'import jsonschema' 2>/dev/null; then
            echo "$py"; return 0
        fi
    done
    local sudo=""
    [ "$(id -u)" = 0 ] || sudo="sudo -n"
    if command -v apt-get >/dev/null 2>&1; then
        { $sudo apt-get install -y -qq python3-jsonschema ||
          { $sudo apt-get update -qq && $sudo apt-get install -y -qq python3-jsonschema; }; } >/dev/null 2>&1
        if /usr/bin/python3 -c 'import jsonschema' 2>/dev/null; then
            echo /usr/bin/python3; return 0
        fi
    fi
    return 1
}
