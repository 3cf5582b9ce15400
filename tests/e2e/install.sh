# Packaging: make install puts both binaries, the library, both man pages
# and the bash completion under PREFIX; the pages render without warnings
# and document every option --help lists; both binaries print the same
# version; the installed launcher finds the installed library; make
# uninstall removes all of it.
. "$(dirname "$0")/_lib.sh"
R=$WORK/root
make -s -C "$TOP" install O="$O" DESTDIR="$R" PREFIX=/usr >"$WORK/install.log" 2>&1
check "make install succeeds" [ $? = 0 ]
for f in bin/leakprof bin/leakprint lib/leakprof/libleakprof.so \
         share/man/man1/leakprof.1 share/man/man1/leakprint.1 \
         share/bash-completion/completions/leakprof \
         share/bash-completion/completions/leakprint; do
    check "installed /usr/$f" [ -e "$R/usr/$f" ]
done
v=$(cat "$TOP/VERSION")
for m in leakprof leakprint; do
    page=$R/usr/share/man/man1/$m.1
    if command -v groff >/dev/null 2>&1; then
        groff -man -ww -z -Tutf8 "$page" >"$WORK/groff.err" 2>&1
        check "$m.1 renders without warnings (groff -ww)" [ ! -s "$WORK/groff.err" ]
    fi
    if command -v man >/dev/null 2>&1; then
        MANWIDTH=80 man -l --warnings=all "$page" >"$WORK/$m.txt" 2>"$WORK/man.err"
        check "$m.1: man -l renders it without warnings" sh -c "[ -s '$WORK/$m.txt' ] && [ ! -s '$WORK/man.err' ]"
    fi
    check "$m.1 carries version $v" sh -c "grep -q 'leakprof $v' '$page' && ! grep -q @VERSION@ '$page'"
    check "$m.1 has EXIT STATUS and EXAMPLES" sh -c "grep -q '^.SH EXIT STATUS' '$page' && grep -q '^.SH EXAMPLES' '$page'"
done
v1=$("$R/usr/bin/leakprof" --version); v2=$("$R/usr/bin/leakprint" --version)
check "same version: '$v1' / '$v2'" sh -c "[ '${v1#leakprof }' = '$v' ] && [ '${v2#leakprint }' != '$v2' ] && [ \"\$(echo '${v2#leakprint }' | cut -d' ' -f1)\" = '$v' ]"

# Every long option --help lists is in the man page and in the README.
opts=$("$TOP/$O/leakprof" --help | sed -nE 's/^ +(-[a-z], )?--([a-z][a-z-]*).*/\2/p' | sort -u)
check "--help lists 30+ options" [ "$(echo "$opts" | wc -l)" -ge 30 ]
missing_man="" missing_readme=""
for o in $opts; do
    grep -q -- "\\\\-\\\\-$(echo "$o" | sed 's/-/\\\\-/g')" "$TOP/man/leakprof.1" || missing_man="$missing_man $o"
    grep -qE -- "\`(--)?($o|${o//-/_})[=\` ]" "$TOP/README.md" || missing_readme="$missing_readme $o"
done
check "leakprof.1 documents every option of --help${missing_man:+ (missing:$missing_man)}" [ -z "$missing_man" ]
check "README documents every option of --help${missing_readme:+ (missing:$missing_readme)}" [ -z "$missing_readme" ]
lpopts=$("$TOP/$O/leakprint" --help 2>&1 | sed -nE 's/^ +(-h )?--([a-z]+).*/\2/p' | sort -u)
missing_man=""
for o in $lpopts; do
    grep -q -- "\\\\-\\\\-$o" "$TOP/man/leakprint.1" || missing_man="$missing_man $o"
done
check "leakprint.1 documents every option of its --help${missing_man:+ (missing:$missing_man)}" [ -z "$missing_man" ]

# The installed launcher runs the installed library.
"$SAMPLES/empty" >"$WORK/native.out"; nrc=$?
(cd "$WORK" && "$R/usr/bin/leakprof" --massif=0 "$SAMPLES/empty" >"$WORK/inst.out" 2>"$WORK/inst.err"); rc=$?
check "installed leakprof: same stdout and status as native" sh -c "cmp -s '$WORK/native.out' '$WORK/inst.out' && [ $rc = $nrc ]"
check "installed leakprof: the installed library reports" grep -q "All heap blocks were freed" "$WORK/inst.err"

# The bash completion (bash-completion's helpers stubbed): option names
# and values come from the tool's own --help.
comp() { # tool words...: the completions of the last word
    bash -c '
        _init_completion() { words=("${COMP_WORDS[@]}"); cword=$COMP_CWORD; cur=${words[cword]}; prev=${words[cword-1]}; }
        _filedir() { COMPREPLY=(FILES); }; _command_offset() { COMPREPLY=(PROGRAM); }; compopt() { :; }
        . "$1"; shift; PATH=$(dirname "$1"):$PATH
        COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _leakprof; printf "%s\n" "${COMPREPLY[@]}"' _ \
        "$R/usr/share/bash-completion/completions/leakprof" "$@"
}
check "completion: --leak-check-h -> --leak-check-heuristics=" [ "$(comp "$R/usr/bin/leakprof" --leak-check-h)" = "--leak-check-heuristics=" ]
check "completion: --leak-check= values" [ "$(comp "$R/usr/bin/leakprof" --leak-check= | sort | tr '\n' ' ')" = "full no summary " ]
check "completion: --log-file= is a file" [ "$(comp "$R/usr/bin/leakprof" --log-file=)" = FILES ]
check "completion: after the program, the program's own" [ "$(comp "$R/usr/bin/leakprof" -q ./app --x)" = PROGRAM ]
check "completion: leakprint --thr" [ "$(comp "$R/usr/bin/leakprint" --thr)" = "--threshold=" ]

make -s -C "$TOP" uninstall O="$O" DESTDIR="$R" PREFIX=/usr >"$WORK/uninstall.log" 2>&1
check "make uninstall removes every file" [ -z "$(find "$R" -type f -o -type l)" ]
