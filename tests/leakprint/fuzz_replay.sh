#!/bin/bash
# fuzz_replay.sh - run the libFuzzer target once over tests/fuzz/corpus and
# every saved crash input (regression test for the reader, the renderers
# and the writer/strict-reader round trip). Skipped without clang's
# libFuzzer runtime.
. "$(dirname "$0")/_lib.sh"
cd "$LP_TOP" || exit 1
command -v clang > /dev/null || { echo "SKIP: fuzz-replay (no clang)"; exit 0; }
if ! echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }' |
    clang -x c -fsanitize=fuzzer -o "$TMPD/probe" - 2> /dev/null; then
    echo "SKIP: fuzz-replay (no libFuzzer runtime)"; exit 0
fi
FZ=$O/fuzz/fuzz_massif
make -s O="$O" "$FZ" > "$TMPD/build.log" 2>&1 || { echo "FAIL: fuzz-build"; cat "$TMPD/build.log"; exit 0; }
echo "PASS: fuzz-build"
for d in tests/fuzz/corpus tests/fuzz/crashes; do
    [ -n "$(ls -A "$d" 2> /dev/null)" ] || continue
    if ASAN_OPTIONS=detect_leaks=1 timeout 600 "$FZ" -runs=0 "$d" > "$TMPD/run.log" 2>&1; then
        echo "PASS: fuzz-replay $d ($(ls "$d" | wc -l) inputs)"
    else
        echo "FAIL: fuzz-replay $d"; tail -30 "$TMPD/run.log"
    fi
done
