#!/bin/bash
# pprof=PATH: a gzipped profile.proto that `go tool pprof` reads, with
# Go's and gperftools' sample type names. slow_app's leaky_function holds
# 5,000 blocks of 4,096 bytes at exit; the service sample leaks 100 blocks
# of 512 bytes and writes PATH.N on each SIGUSR1.
. "$(dirname "$0")/_lib.sh"

same_as_native "slow_app with pprof=" "pprof=slow.pb.gz" "$SAMPLES/slow_app"
check "pprof file written, valid gzip" '[ -s slow.pb.gz ] && gzip -t slow.pb.gz' "$(ls -l; cat lp.err | head -5)"
mode=$(stat -c %a slow.pb.gz 2>/dev/null)
want=$(printf '%o' $((0666 & ~$(umask))))
check "created with the umask applied (0666 & ~umask)" '[ "$mode" = "$want" ]' "mode=$mode want=$want"
check "no temporary file left behind" '! ls | grep -q tmp'

# %p expands to the pid of the profiled process.
sh -c 'echo $$ > pid; exec env LEAKPROF_OPTIONS=massif=0:log=/dev/null:pprof=p.%p.pb.gz LD_PRELOAD='"$LIB"' '"$SAMPLES"'/empty' >/dev/null 2>&1
check "%p expands to the pid" '[ -s "p.$(cat pid).pb.gz" ]' "$(ls)"

if ! have_go; then
    skip "go tool pprof checks" "go is not installed (Debian: golang-go)"
    exit 0
fi

top=$(gopprof -sample_index=inuse_space -unit=B -top slow.pb.gz)
check "inuse_space: 20480000B flat at leaky_function" \
    'printf "%s\n" "$top" | grep -Eq "^ *20480000B +100% +100% +20480000B +100% +leaky_function$"' "$top"
check "inuse_space total is 20480000B (stdio's buffer was freed)" \
    'printf "%s\n" "$top" | grep -q "of 20480000B total"' "$top"
top=$(gopprof -sample_index=alloc_objects -top slow.pb.gz)
check "alloc_objects: 5000 at leaky_function" \
    'printf "%s\n" "$top" | grep -Eq "^ *5000 .* leaky_function$"' "$top"
check "allocator frames pruned from -top (drop_frames)" \
    '! printf "%s\n" "$top" | grep -Eq " (malloc|calloc)$"' "$top"
top=$(gopprof -sample_index=alloc_space -unit=B -top slow.pb.gz)
check "alloc_space: 20480000B at leaky_function" \
    'printf "%s\n" "$top" | grep -Eq "^ *20480000B .* leaky_function$"' "$top"

raw=$(gopprof -raw slow.pb.gz)
check "-raw lists the four standard sample types first, then ours, inuse_space default" \
    'printf "%s\n" "$raw" | grep -q "^alloc_objects/count alloc_space/bytes inuse_objects/count inuse_space/bytes\[dflt\] temp_objects/count peak_space/bytes leaked_objects/count leaked_space/bytes$"' "$(printf '%s\n' "$raw" | head -8)"
# massif=0 here: no peak; the 5,000 blocks are definitely lost.
check "-raw: the 5000-block sample (no temporaries, leaked 5000 blocks)" \
    'printf "%s\n" "$raw" | grep -Eq "^ +5000 +20480000 +5000 +20480000 +0 +0 +5000 +20480000: "' "$(printf '%s\n' "$raw" | sed -n '/^Samples/,/^Locations/p' | head -20)"
check "-raw: locations carry function, file and line" \
    'printf "%s\n" "$raw" | grep -Eq "leaky_function slow_app.c:20 " && printf "%s\n" "$raw" | grep -Eq "main slow_app.c:50 "' "$(printf '%s\n' "$raw" | sed -n '/^Locations/,$p' | head -20)"
check "-raw: the allocator frame stays in the file (malloc, our hook)" \
    'printf "%s\n" "$raw" | grep -Eq "^ +[0-9]+: 0x[0-9a-f]+ M=[0-9]+ malloc "' "$(printf '%s\n' "$raw" | sed -n '/^Locations/,$p' | head -5)"
bid=$(readelf -n "$SAMPLES/slow_app" 2>/dev/null | sed -n 's/^ *Build ID: *//p')
check "first mapping is the program, with its build-id" \
    'printf "%s\n" "$raw" | sed -n "/^Mappings/{n;p}" | grep -q "/slow_app $bid "' "bid=$bid; $(printf '%s\n' "$raw" | sed -n '/^Mappings/,$p' | head -4)"
check "libc's mapping has a build-id too" \
    'printf "%s\n" "$raw" | grep -Eq "/libc\.so\.6 [0-9a-f]{40} "' "$(printf '%s\n' "$raw" | sed -n '/^Mappings/,$p')"
# Inlined frames become several lines of one location (printf's stdio
# internals in glibc are inlined into their callers).
check "-raw: an inlined frame is a second line of a location" \
    'printf "%s\n" "$raw" | sed -n "/^Locations/,/^Mappings/p" | grep -Eq "^ {10,}[^ ]+ [^ ]+:[0-9]+ s=0$"' "$(printf '%s\n' "$raw" | sed -n '/^Locations/,/^Mappings/p' | head -20)"

top=$(gopprof -sample_index=leaked_space -unit=B -top slow.pb.gz)
check "leaked_space: 20480000B at leaky_function" \
    'printf "%s\n" "$top" | grep -Eq "^ *20480000B +100% .* leaky_function$"' "$top"

# Our sample types on a program with a known answer for each.
same_as_native "site_costs with pprof= and massif" "pprof=sc.pb.gz:massif=sc.massif" "$SAMPLES/site_costs"
top=$(gopprof -sample_index=temp_objects -top sc.pb.gz)
check "temp_objects: 1000 at temp_user (malloc then free)" \
    'printf "%s\n" "$top" | grep -Eq "^ *1000 .* temp_user$"' "$top"
check "temp_objects: 1000 at alloc_b (freed after a's free, no alloc between)" \
    'printf "%s\n" "$top" | grep -Eq "^ *1000 .* alloc_b$"' "$top"
check "temp_objects: none at alloc_a (b was allocated before a's free)" \
    '! printf "%s\n" "$top" | grep -Eq "^ *[1-9][0-9]* .* alloc_a$"' "$top"
top=$(gopprof -sample_index=peak_space -unit=B -top sc.pb.gz)
check "peak_space: 1000000B at peak_phase (all freed by exit)" \
    'printf "%s\n" "$top" | grep -Eq "^ *1000000B .* peak_phase$"' "$top"
top=$(gopprof -sample_index=inuse_space -unit=B -top sc.pb.gz)
check "inuse_space: nothing at peak_phase at exit" \
    '! printf "%s\n" "$top" | grep -Eq " peak_phase$"' "$top"
top=$(gopprof -sample_index=leaked_objects -top sc.pb.gz)
check "leaked_objects: 10 at leak_some" \
    'printf "%s\n" "$top" | grep -Eq "^ *10 .* leak_some$"' "$top"
top=$(gopprof -sample_index=leaked_space -unit=B -top sc.pb.gz)
check "leaked_space: 10000B at leak_some, nothing else" \
    'printf "%s\n" "$top" | grep -Eq "^ *10000B +100% .* leak_some$"' "$top"

# Sampling: one allocation per 65,536 bytes; the estimate is scaled back.
same_as_native "slow_app with sample_bytes=65536" "pprof=sampled.pb.gz:sample_bytes=65536" "$SAMPLES/slow_app"
v=$(gopprof -sample_index=inuse_space -unit=B -top sampled.pb.gz | sed -nE 's/^ *([0-9]+)B .* leaky_function$/\1/p')
check "sampled estimate within 10% of 20480000B" \
    '[ -n "$v" ] && [ "$v" -ge 18432000 ] && [ "$v" -le 22528000 ]' "got ${v:-nothing}"

# A service: PATH.1 on the signal, PATH at exit; -diff_base between them.
LEAKPROF_OPTIONS=massif=0:log=svc.log:pprof=svc.pb.gz LD_PRELOAD=$LIB "$SAMPLES/service" 30 > svc.out 2>&1 & pid=$!
for i in $(seq 100); do grep -q ready svc.out 2>/dev/null && break; sleep 0.1; done
kill -USR1 $pid
for i in $(seq 100); do [ -f svc.pb.gz.1 ] && break; sleep 0.1; done
check "snapshot signal writes PATH.1" '[ -s svc.pb.gz.1 ] && gzip -t svc.pb.gz.1' "$(ls)"
kill -TERM $pid; wait $pid; rc=$?
check "service exits 0, PATH written at exit" '[ $rc = 0 ] && [ -s svc.pb.gz ]' "rc=$rc $(ls)"
top=$(gopprof -sample_index=inuse_space -unit=B -top svc.pb.gz.1)
check "PATH.1: 51200B live at leak_blocks" \
    'printf "%s\n" "$top" | grep -Eq "^ *51200B .* leak_blocks$"' "$top"
top=$(gopprof -sample_index=inuse_space -unit=B -top -diff_base svc.pb.gz.1 svc.pb.gz)
check "-diff_base of the exit profile against PATH.1 loads" \
    'printf "%s\n" "$top" | grep -q "^Showing nodes"' "$top"
