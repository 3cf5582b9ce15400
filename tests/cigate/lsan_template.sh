#!/bin/bash
# lsan_template.sh - lp_supp_lsan_match decides `leak:` templates as
# LeakSanitizer does, on a leak allocated in a function named "abxab"
# (the `$`/`^` anchors with LSan's first-occurrence matching). Every
# template is anchored so that only the function name can decide it.
. "$(dirname "$0")/_lib.sh"
cigate_tmp
cd "$T" || exit 1
cat >lsan_case.c <<'C'
#include <stdlib.h>
void *volatile sink;
__attribute__((noinline)) void abxab(void) { sink = malloc(7); sink = 0; }
int main(void) { abxab(); return 0; }
C
${CC:-cc} -g -O0 -fsanitize=leak -o lsan_case lsan_case.c 2>/dev/null ||
    { echo "SKIP: no -fsanitize=leak"; exit 77; }
LSAN_OPTIONS=exitcode=23 ./lsan_case >/dev/null 2>&1
[ $? -eq 23 ] || { echo "SKIP: no working -fsanitize=leak"; exit 77; }
build_prog
for t in 'abxab' 'ab$' '*ab$' '^a*b$' 'abxab$' 'b*ab$' '^abx' '^bx' '^abxab$' '^*xab$' '^a*x*b' 'ab*$'; do
    printf 'leak:%s\n' "$t" >t.supp
    LSAN_OPTIONS=exitcode=23:suppressions=t.supp ./lsan_case >/dev/null 2>&1
    case $? in 0) lsan=1 ;; 23) lsan=0 ;; *) echo "FAIL: lsan run for '$t'"; continue ;; esac
    ours=$(./report_prog tmatch "$t" abxab)
    if [ "$lsan" = "$ours" ]; then echo "PASS: leak:$t -> $lsan"
    else echo "FAIL: leak:$t: LSan $lsan, ours $ours"; fi
done
