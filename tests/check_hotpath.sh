#!/bin/sh
# check_hotpath.sh O - the hot-path rules, checked on the built objects:
# HOT objects call no stdio, no exit/abort and never the allocator
# directly (only lp_real.* through pointers and the arena); they include
# no <stdio.h>; and the library exports exactly what exports.map lists.
O=${1:-build}
cd "$(dirname "$0")/.." || exit 2
# Every file of preload/hot/, and massif's schedule (asked under the
# snapshot lock from the allocation path).
hot="$(ls preload/hot/*.c) preload/massif/schedule.c"
banned='^(malloc|calloc|realloc|free|strdup|strndup|printf|fprintf|sprintf|snprintf|vsnprintf|puts|fputs|fwrite|fopen|fdopen|fflush|exit|abort|__printf_chk|__fprintf_chk|__snprintf_chk|__sprintf_chk)$'
status=0
for src in $hot; do
    m=$(basename "$src" .c)
    obj=$O/${src%.c}.o
    [ -f "$obj" ] || { echo "check-hotpath: missing $obj"; status=1; continue; }
    bad=$(nm -u "$obj" | awk '{print $2}' | sed 's/@.*//' | grep -E "$banned")
    # The C++ operators and realloc(NULL, n) allocate through our own
    # malloc hook on purpose.
    [ "$m" = cxx ] || [ "$m" = hooks ] && bad=$(echo "$bad" | grep -v -x -E 'malloc|posix_memalign')
    if [ -n "$bad" ]; then
        echo "check-hotpath: $src calls $(echo $bad)"; status=1
    fi
    if grep -q '#include <stdio.h>' "$src"; then
        echo "check-hotpath: $src includes <stdio.h>"; status=1
    fi
done
# Every dynamic symbol we define must be one exports.map names.
allowed=$(sed -n 's/^[[:space:]]*\([A-Za-z_][A-Za-z0-9_;*[:space:]]*\)$/\1/p' preload/exports.map | tr ';' '\n' | sed 's/[[:space:]]//g' | grep -v -E '^(global:|local:|)$')
for s in $(nm -D --defined-only "$O/libleakprof.so" | awk '{print $3}' | sed 's/@.*//'); do
    ok=0
    for a in $allowed; do
        case $s in $a) ok=1; break ;; esac
    done
    [ $ok = 1 ] || { echo "check-hotpath: exported but not in exports.map: $s"; status=1; }
done
[ $status = 0 ] && echo "check-hotpath: ok"
exit $status
