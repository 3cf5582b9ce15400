# Valgrind's defaults for a process tree: a forked child is profiled, an
# exec'd program only with --trace-children=yes (minus the
# --trace-children-skip patterns); log= without %p is truncated once by
# the first process and appended to by every later one. samples/fork_exec:
# the parent leaks 111 bytes, a fork child 222 (plus the parent's 111),
# an exec'd copy of the program 333.
. "$(dirname "$0")/_lib.sh"
LP=$TOP/$O/leakprof
cp "$SAMPLES/fork_exec" "$WORK/"
cd "$WORK" || exit 1
./fork_exec >native.out 2>/dev/null; native_rc=$?

# run NAME OPTIONS...: the tree under the launcher, one shared log NAME.log
# pre-filled with junk the first process must truncate.
run() {
    local n=$1; shift
    echo "junk from an earlier run" >"$n.log"
    "$LP" --massif=0 --log-file="$n.log" "$@" ./fork_exec >"$n.out" 2>"$n.err"; rc=$?
    check "$n: same stdout as native" cmp -s native.out "$n.out"
    check "$n: same exit status as native" [ "$rc" = "$native_rc" ]
    check "$n: log truncated by the first process" sh -c "! grep -q junk '$n.log'"
    check "$n: nothing on stderr" [ ! -s "$n.err" ]
}
reports() { grep -c 'HEAP SUMMARY' "$1"; }
has() { grep -q "definitely lost: $2 bytes in $3 blocks" "$1"; }

run default
check "default: two reports (parent, fork child)" [ "$(reports default.log)" = 2 ]
check "default: the parent's 111 bytes" has default.log 111 1
check "default: the fork child's 333 bytes in 2 blocks" has default.log 333 2
check "default: the exec'd program not profiled" sh -c "! grep -q 'Command: ./fork_exec execd' default.log"

run yes --trace-children=yes
check "--trace-children=yes: three reports" [ "$(reports yes.log)" = 3 ]
check "--trace-children=yes: the exec'd program's 333 bytes in 1 block" has yes.log 333 1
check "--trace-children=yes: its Command: is the exec'd path and args" grep -q '^==[0-9]*== Command: \./fork_exec execd$' yes.log
# A preamble per program, as each Valgrind prints one when it starts: the
# first process's (printed before its fork, so the child's report follows
# it) and the exec'd program's; the fork child prints none of its own.
check "--trace-children=yes: a preamble per program, first in the log" sh -c "[ \$(grep -c 'leakprof-[0-9.]*, a memory leak checker' yes.log) = 2 ] && head -1 yes.log | grep -q 'a memory leak checker' && grep -q 'Command: \./fork_exec execd\$' yes.log"

run skip --trace-children=yes --trace-children-skip='/nowhere/*,*/fork_e?ec'
check "--trace-children-skip: the first process is never skipped" has skip.log 111 1
check "--trace-children-skip: the exec'd match is skipped" sh -c "[ \$(grep -c 'HEAP SUMMARY' skip.log) = 2 ] && ! grep -q 'execd' skip.log"
run noskip --trace-children=yes --trace-children-skip='*/other'
check "--trace-children-skip: a pattern that does not match skips nothing" [ "$(reports noskip.log)" = 3 ]

# --trace-children-skip-by-arg: the same patterns on the exec'd program's
# arguments, argv[0] included (Valgrind 3.19 skips a child exec'd with
# argv[0] "zeta0" for the pattern zeta0); the exec'd copy here is
# {./fork_exec, execd}.
run byarg --trace-children=yes --trace-children-skip-by-arg='/nowhere,ex?cd'
check "--trace-children-skip-by-arg: the first process is never skipped" has byarg.log 111 1
check "--trace-children-skip-by-arg: argv[1] matches: skipped" sh -c "[ \$(grep -c 'HEAP SUMMARY' byarg.log) = 2 ] && ! grep -q 'execd' byarg.log"
run byarg0 --trace-children=yes --trace-children-skip-by-arg='./fork_exec'
check "--trace-children-skip-by-arg: argv[0] matches: skipped" sh -c "[ \$(grep -c 'HEAP SUMMARY' byarg0.log) = 2 ] && ! grep -q 'execd' byarg0.log"
run byargno --trace-children=yes --trace-children-skip-by-arg='exec,fork_exec'
check "--trace-children-skip-by-arg: no argument matches whole: traced" [ "$(reports byargno.log)" = 3 ]
if have_valgrind; then
    for pat in 'ex?cd' '*/fork_exec' 'exec,fork_exec'; do
        rm -f vg.* lp.*
        valgrind --trace-children=yes --trace-children-skip-by-arg="$pat" --log-file=vg.%p ./fork_exec >/dev/null 2>&1
        "$LP" --massif=0 --trace-children=yes --trace-children-skip-by-arg="$pat" --log-file=lp.%p ./fork_exec >/dev/null 2>&1
        # (Valgrind also logs the fork child before its exec: compare
        # whether the exec'd program was traced, not the files.)
        check "--trace-children-skip-by-arg=$pat: the exec'd program traced as by Valgrind" \
            [ "$(grep -l 'Command: ./fork_exec execd' lp.* | wc -l)" = "$(grep -l 'Command: ./fork_exec execd' vg.* | wc -l)" ]
        check "--trace-children-skip-by-arg=$pat: same leaks per process as Valgrind" \
            diff <(cat lp.* | grep 'definitely lost:' | sed -E 's/^==[0-9]+==//' | sort) \
                 <(cat vg.* | grep 'definitely lost:' | sed -E 's/^==[0-9]+==//' | sort)
    done
fi

if have_valgrind; then
    # The same tree under Valgrind: the same leaks per process.
    for mode in no yes; do
        rm -f vg.* lp.*
        valgrind --trace-children=$mode --log-file=vg.%p ./fork_exec >/dev/null 2>&1
        "$LP" --massif=0 --trace-children=$mode --log-file=lp.%p ./fork_exec >/dev/null 2>&1
        leaks() { cat "$@" | grep 'definitely lost:' | sed -E 's/^==[0-9]+==//' | sort; }
        check "trace-children=$mode: same leaks per process as Valgrind" diff <(leaks lp.*) <(leaks vg.*)
    done
fi

# The same tree run by a bash script. bash defines its own setenv and
# unsetenv (they bind shell variables): called before bash's main, as
# from our constructor, they change nothing. With them, LD_PRELOAD stayed
# in the environment bash exports, and every program a script ran was
# profiled with trace_children=no; with yes, the exec'd programs were not
# told they were not the first, and each truncated the shared log.
bash -c './fork_exec; true' >bash_native.out 2>/dev/null; bash_rc=$?
for mode in no yes; do
    echo "junk from an earlier run" >"bash_$mode.log"
    "$LP" --massif=0 --trace-children=$mode --log-file="bash_$mode.log" \
        bash -c './fork_exec; true' >"bash_$mode.out" 2>"bash_$mode.err"; rc=$?
    check "bash, trace-children=$mode: same stdout as native" cmp -s bash_native.out "bash_$mode.out"
    check "bash, trace-children=$mode: same exit status as native" [ "$rc" = "$bash_rc" ]
    check "bash, trace-children=$mode: log truncated once" sh -c "! grep -q junk 'bash_$mode.log'"
done
check "bash, trace-children=no: bash's report only" [ "$(reports bash_no.log)" = 1 ]
check "bash, trace-children=no: the programs it ran not profiled" sh -c "! grep -q 'Command: \./fork_exec' bash_no.log"
check "bash, trace-children=yes: bash's report and the tree's three" [ "$(reports bash_yes.log)" = 4 ]
check "bash, trace-children=yes: the exec'd program's 333 bytes" has bash_yes.log 333 1
if have_valgrind; then
    for mode in no yes; do
        rm -f vg.* lp.*
        valgrind --trace-children=$mode --log-file=vg.%p bash -c './fork_exec; true' >/dev/null 2>&1
        "$LP" --massif=0 --trace-children=$mode --log-file=lp.%p bash -c './fork_exec; true' >/dev/null 2>&1
        check "bash, trace-children=$mode: as many reports as Valgrind" [ "$(cat lp.* | grep -c 'HEAP SUMMARY')" = "$(cat vg.* | grep -c 'HEAP SUMMARY')" ]
        check "bash, trace-children=$mode: same leaks per process as Valgrind" diff <(leaks lp.*) <(leaks vg.*)
    done
fi

# An exec with an environment of the program's own making (env -i, a
# subprocess given env={}): Valgrind intercepts the exec and traces it;
# the exec family and posix_spawn, interposed, put LD_PRELOAD and
# LEAKPROF_OPTIONS back. With trace-children=no they pass straight through.
for mode in no yes; do
    rm -f cl.* vg.*
    "$LP" --massif=0 --trace-children=$mode --log-file=cl.%p env -i ./fork_exec >"clean_$mode.out" 2>/dev/null; rc=$?
    check "env -i, trace-children=$mode: same stdout as native" cmp -s native.out "clean_$mode.out"
    check "env -i, trace-children=$mode: same exit status as native" [ "$rc" = "$native_rc" ]
    if have_valgrind; then
        valgrind --trace-children=$mode --log-file=vg.%p env -i ./fork_exec >/dev/null 2>&1
        check "env -i, trace-children=$mode: as many reports as Valgrind" [ "$(cat cl.* 2>/dev/null | grep -c 'HEAP SUMMARY')" = "$(cat vg.* 2>/dev/null | grep -c 'HEAP SUMMARY')" ]
        check "env -i, trace-children=$mode: same leaks per process as Valgrind" diff <(cat cl.* 2>/dev/null | grep 'definitely lost:' | sed -E 's/^==[0-9]+==//' | sort) <(cat vg.* 2>/dev/null | grep 'definitely lost:' | sed -E 's/^==[0-9]+==//' | sort)
    fi
done
check "env -i, trace-children=yes: the tree's three reports" [ "$(cat cl.* | grep -c 'HEAP SUMMARY')" = 3 ]
if [ -x /usr/bin/python3 ]; then
    rm -f cl.*
    "$LP" --massif=0 --trace-children=yes --log-file=cl.%p /usr/bin/python3 -c \
        "import os, subprocess; subprocess.run(['./fork_exec'], env={}); os.spawnve(os.P_WAIT, './fork_exec', ['./fork_exec'], {})" \
        >py.out 2>/dev/null; rc=$?
    check "python3 subprocess env={} and os.spawnve: exit status 0" [ "$rc" = 0 ]
    check "python3 subprocess env={} and os.spawnve: both trees traced" [ "$(grep -h 'Command: \./fork_exec execd' cl.* | wc -l)" = 2 ]
else
    echo "SKIP: python3 subprocess env={} (no /usr/bin/python3)"
fi

# Every form of the exec family, with the program's own arguments and
# environments: as native, traced (yes: the parent and six exec'd copies,
# 333 bytes lost each) or not (no: the parent alone).
cp "$SAMPLES/exec_forms" "$WORK/"
./exec_forms >forms_native.out 2>/dev/null; forms_rc=$?
for mode in no yes; do
    rm -f fm.*
    "$LP" --massif=0 --trace-children=$mode --log-file=fm.%p ./exec_forms >"forms_$mode.out" 2>/dev/null; rc=$?
    check "exec forms, trace-children=$mode: same stdout as native" cmp -s forms_native.out "forms_$mode.out"
    check "exec forms, trace-children=$mode: same exit status as native" [ "$rc" = "$forms_rc" ]
    want=1; [ $mode = yes ] && want=7
    check "exec forms, trace-children=$mode: $want reports" [ "$(cat fm.* | grep -c 'HEAP SUMMARY')" = $want ]
done
check "exec forms: six exec'd copies lose their 333 bytes" [ "$(cat fm.* | grep -c 'definitely lost: 333 bytes in 1 blocks')" = 6 ]

# The library under another file name (a renamed or versioned copy): with
# trace_children=no an exec'd program still runs without it (it was kept
# in LD_PRELOAD, known by its file name only: every child traced), and
# with yes it is passed on once, not twice.
cp "$LIB" "$WORK/renamed_lp.so"
for mode in no yes; do
    rm -f rn.*
    env LEAKPROF_OPTIONS="massif=0:log=$WORK/rn.%p:trace_children=$mode" LD_PRELOAD="$WORK/renamed_lp.so" \
        ./exec_forms >"rn_$mode.out" 2>/dev/null; rc=$?
    check "renamed library, trace-children=$mode: same stdout and status as native" \
        sh -c "cmp -s forms_native.out rn_$mode.out && [ $rc = $forms_rc ]"
    want=1; [ $mode = yes ] && want=7
    check "renamed library, trace-children=$mode: $want reports" [ "$(cat rn.* | grep -c 'HEAP SUMMARY')" = $want ]
done

# A traced script that adds to LEAKPROF_OPTIONS for its children (export
# LEAKPROF_OPTIONS="$LEAKPROF_OPTIONS:..."): it sees the variable under
# our mark's name, so the children get both, the script's items last.
# Before, they got the script's items alone: no log file, their reports
# on the program's stderr.
cat >addopt.sh <<SH
#!/bin/sh
export LEAKPROF_OPTIONS="\$LEAKPROF_OPTIONS:show_leak_kinds=all"
"$SAMPLES/leak_kinds" >/dev/null
SH
chmod +x addopt.sh
rm -f ao.*
env LEAKPROF_OPTIONS="massif=0:log=$WORK/ao.%p:trace_children=yes" LD_PRELOAD="$LIB" ./addopt.sh >ao_out.txt 2>ao_err.txt; rc=$?
check "script adding to LEAKPROF_OPTIONS: exit 0, nothing on stderr" sh -c "[ $rc = 0 ] && [ ! -s ao_err.txt ]"
check "script adding to LEAKPROF_OPTIONS: the child's report in its log file" sh -c "grep -l 'leak_kinds' ao.* | xargs grep -q 'HEAP SUMMARY'"
check "script adding to LEAKPROF_OPTIONS: the added option applies" sh -c "grep -l 'leak_kinds' ao.* | xargs grep -q 'still reachable in loss record'"

# massif.out's cmd: line names each traced program as Massif's does: the
# exec'd path for an exec'd one (as the report's Command: line), a #!
# script by its own name; it was argv[0] as the program gave it.
printf '#!/bin/sh\necho hi\n' >hello.sh
chmod +x hello.sh
rm -f mc.* vm.*
"$LP" --massif-out-file=mc.%p --trace-children=yes --log-file=/dev/null sh -c 'ls / >/dev/null; ./hello.sh >/dev/null' >/dev/null 2>&1
check "massif cmd: the exec'd ls by its path" grep -Eqx 'cmd: (/usr)?/bin/ls /' mc.*
check "massif cmd: the script by its own name" grep -qx 'cmd: ./hello.sh' mc.*
if have_valgrind; then
    valgrind --tool=massif --trace-children=yes --massif-out-file=vm.%p sh -c 'ls / >/dev/null; ./hello.sh >/dev/null' >/dev/null 2>&1
    check "massif cmd: lines as Massif's" diff <(grep -h '^cmd:' mc.* | sort) <(grep -h '^cmd:' vm.* | sort)
fi
