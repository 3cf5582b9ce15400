# Separate debug files (report/debug_inflate.c, report/debug_find.c):
# libc's zlib-compressed debug file (libc6-dbg) is inflated once into the
# cache directory, and a later process that starts libdw reads the copy;
# every report is the same with the copy, without it and without any
# cache. A process that starts libdw loads no libdebuginfod when no
# server is configured.
. "$(dirname "$0")/_lib.sh"
# A program whose loss records go through libc: strdup's block lost, the
# FILE of fopen still reachable.
cat >"$WORK/libc_frames.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(void)
{
    char *s = strdup("kept");
    FILE *f = fopen("/dev/null", "r");

    puts(s != NULL && f != NULL ? "ok" : "no");
    s = NULL;
    return 0;
}
EOF
prog=$WORK/libc_frames
cc -O0 -g -o "$prog" "$WORK/libc_frames.c" || { fail "compile libc_frames.c"; exit 0; }
opts="show_leak_kinds=all"
libc=$(ldd "$prog" 2>/dev/null | awk '/libc\.so\.6/ {print $3}')
id=$(readelf -n "$libc" 2>/dev/null | awk '/Build ID/ {print $3}')
dbg=/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
cache=$WORK/xdg-dbg

# The copy, when the machine has libc's debug file compressed.
if [ -n "$id" ] && [ -f "$dbg" ] && readelf -S -W "$dbg" 2>/dev/null | grep -q 'debug_info.* C '; then
    XDG_CACHE_HOME=$cache run_lp "$WORK/first.txt" "$opts" "$prog"
    copy=$cache/leakprof/$id.dbg
    check "libc's compressed debug file inflated into the cache" [ -s "$copy" ]
    check "the copy has no compressed section left" sh -c "! readelf -S -W '$copy' 2>/dev/null | grep -q 'debug_.* C '"
    check "libc frames named with their file:line" grep -qE 'strdup \(strdup\.c:[0-9]+\)' "$WORK/first.txt"
    # The symbol files gone, the copy kept: libdw starts and maps it.
    rm -f "$cache"/leakprof/*.sym
    if command -v strace >/dev/null 2>&1; then
        (cd "$WORK" && strace -f -e trace=openat -o "$WORK/strace.txt" -E XDG_CACHE_HOME="$cache" \
            -E LEAKPROF_OPTIONS="massif=0:log=$WORK/again.txt:$opts" -E LD_PRELOAD="$LIB" \
            "$prog" >/dev/null 2>&1)
        check "a later process reads the copy, not the original" sh -c \
            "grep -q '$id.dbg\", O_RDONLY' '$WORK/strace.txt' && ! grep -q '${id:2}.debug\", O_RDONLY' '$WORK/strace.txt'"
    else
        XDG_CACHE_HOME=$cache run_lp "$WORK/again.txt" "$opts" "$prog"
    fi
    check "the same report from the copy" diff <(lp_filter <"$WORK/first.txt") <(lp_filter <"$WORK/again.txt")
    LEAKPROF_SYMCACHE=0 run_lp "$WORK/nocache.txt" "$opts" "$prog"
    check "the same report without any cache" diff <(lp_filter <"$WORK/first.txt") <(lp_filter <"$WORK/nocache.txt")
else
    echo "SKIP: inflated debug copy (no compressed debug file for libc: apt-get install libc6-dbg)"
fi

# libdw started (empty cache) with no debuginfod server: no libdebuginfod.
rm -rf "$cache"
(cd "$WORK" && env -u DEBUGINFOD_URLS XDG_CACHE_HOME="$cache" LD_DEBUG=libs \
    LEAKPROF_OPTIONS="massif=0:log=$WORK/ld.txt:$opts" LD_PRELOAD="$LIB" "$prog" \
    >"$WORK/ld.stdout" 2>"$WORK/ld_debug.txt"); rc=$?
(cd "$WORK" && "$prog" >"$WORK/ld.native" 2>/dev/null); nrc=$?
as_native "libc_frames under LD_DEBUG=libs" "$WORK/ld.stdout" $rc "$WORK/ld.native" $nrc
check "libdw was started (the case is real)" grep -q 'calling init: .*/libdw\.so\.1' "$WORK/ld_debug.txt"
check "no libdebuginfod without a server" sh -c "! grep -q 'libdebuginfod' '$WORK/ld_debug.txt'"
if [ -s "$WORK/nocache.txt" ]; then
    check "the same report" diff <(lp_filter <"$WORK/first.txt") <(lp_filter <"$WORK/ld.txt")
fi
