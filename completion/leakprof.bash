# bash completion for leakprof and leakprint                -*- shell-script -*-
# Installed as share/bash-completion/completions/{leakprof,leakprint}.
# The option lists come from each tool's own --help, so they never fall
# behind the tools: "--key=a|b|c" there completes the key and its values.

_leakprof_from_help()
{
    # $1: the tool. Prints "option<TAB>values" lines from its --help.
    "$1" --help 2>&1 | sed -nE \
        -e 's/^ +(-[a-z], )?(--[a-z][a-z-]*)(=([^ ]*))?.*/\2\t\4/p' \
        -e 's/^ +-[a-z], (--[a-z][a-z-]*)(=([^ ]*))?.*/\1\t\3/p'
}

_leakprof()
{
    local cur prev words cword tool opt values i
    _init_completion -n = || return
    tool=${words[0]}

    # After the program name, complete for the program itself.
    if [[ $tool == *leakprof ]]; then
        for ((i = 1; i < cword; i++)); do
            if [[ ${words[i]} != -* ]] || [[ ${words[i]} == -- ]]; then
                [[ ${words[i]} == -- ]] && ((i++))
                [[ ${words[i-1]} == --snapshot ]] && continue
                _command_offset $i
                return
            fi
        done
        if [[ $prev == --snapshot ]]; then
            COMPREPLY=($(compgen -W "$(pgrep -u "$UID" 2>/dev/null)" -- "$cur"))
            return
        fi
    fi

    if [[ $cur == --*=* ]]; then
        opt=${cur%%=*}
        cur=${cur#*=}
        values=$(_leakprof_from_help "$tool" | awk -F'\t' -v o="$opt" '$1 == o { printf "%s|", $2 }')
        case $values in
            FILE\|*) _filedir ;;
            *[a-z]*) COMPREPLY=($(compgen -W "${values//[|,]/ }" -- "$cur")) ;;
        esac
        return
    fi
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$(_leakprof_from_help "$tool" | awk -F'\t' '{ print $1 ($2 != "" ? "=" : "") }' | sort -u)" -- "$cur"))
        [[ ${COMPREPLY-} == *= ]] && compopt -o nospace
        return
    fi
    if [[ $tool == *leakprof ]]; then
        COMPREPLY=($(compgen -c -- "$cur"))
    else
        _filedir
    fi
} &&
    complete -F _leakprof leakprof leakprint

# ex: filetype=sh
