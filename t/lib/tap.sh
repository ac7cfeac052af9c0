# t/lib/tap.sh - a minimal TAP producer for bash test scripts.
#
# Source it from a test script, then:
#   plan N | plan skip_all "reason" | no_plan ... done_testing [N]
#   ok VALUE "name"            passes when VALUE is non-empty and not 0/false/null
#   cmd_ok "name" CMD [ARGS]   passes when CMD exits 0
#   is GOT EXPECTED "name"     string equality (isnt: inequality)
#   like GOT REGEX "name"      bash extended regex (unlike: no match)
#   pass "name" / fail "name"
#   skip "reason" [COUNT]      emits COUNT skipped tests
#   diag MSG... (stderr), note MSG... (stdout), BAIL_OUT "reason"
#   at_exit 'shell command'    cleanup run at exit, last registered first
#
# Assertions must run in the main shell (not in $(...) or a pipeline),
# since the counters are shell variables.  The exit status follows
# Test::More: the number of failed tests (at most 254), 255 when the plan
# and the number of tests run disagree or the script bailed out.

[[ -n ${_TAP_SH_LOADED:-} ]] && return 0
_TAP_SH_LOADED=1

TAP_RUN=0
TAP_FAILED=0
TAP_PLANNED=
_TAP_PLAN_PRINTED=0
_TAP_DONE=0
_TAP_SKIP_ALL=0
_TAP_BAILED=0
_TAP_EXIT_HOOKS=()

# diag MSG...: diagnostics on stderr, each line prefixed with "# ".
diag() {
    local line
    while IFS= read -r line; do
        printf '# %s\n' "$line" >&2
    done <<<"$*"
}

# note MSG...: a comment on stdout (shown by prove -v).
note() {
    local line
    while IFS= read -r line; do
        printf '# %s\n' "$line"
    done <<<"$*"
}

# plan N | plan skip_all REASON
plan() {
    if [[ ${1:-} == skip_all ]]; then
        printf '1..0 # SKIP %s\n' "${2:-}"
        _TAP_SKIP_ALL=1
        exit 0
    fi
    if [[ -n $TAP_PLANNED ]]; then
        BAIL_OUT "plan declared twice"
    fi
    if [[ ! ${1:-} =~ ^[0-9]+$ ]]; then
        BAIL_OUT "plan: bad count '${1:-}'"
    fi
    TAP_PLANNED=$1
    _TAP_PLAN_PRINTED=1
    printf '1..%s\n' "$1"
}

# no_plan: the plan is printed by done_testing at the end.
no_plan() {
    TAP_PLANNED=no_plan
}

# done_testing [N]: declares the end of the tests (and the plan when no
# plan was given before).  With N, also checks that N tests ran.
done_testing() {
    local n=${1:-$TAP_RUN}
    if ((_TAP_PLAN_PRINTED == 0)); then
        printf '1..%s\n' "$n"
        TAP_PLANNED=$n
        _TAP_PLAN_PRINTED=1
    elif ((n != TAP_PLANNED)); then
        diag "done_testing($n) disagrees with the plan ($TAP_PLANNED)"
    fi
    _TAP_DONE=1
}

# Where the assertion was called from: the first frame outside t/lib.
_tap_where() {
    local i=0 line fn file
    while read -r line fn file < <(caller "$i"); do
        if [[ $file != */t/lib/* && $file != */lib/tap.sh && $file != */lib/api.sh ]]; then
            printf '%s line %s' "$file" "$line"
            return
        fi
        i=$((i + 1))
    done
    printf 'unknown location'
}

# _tap_result PASSED NAME: prints one test line; returns 0 when passed.
_tap_result() {
    local passed=$1 name=${2:-}
    TAP_RUN=$((TAP_RUN + 1))
    # '#' starts a directive in TAP; escape it in names.
    name=${name//\\/\\\\}
    name=${name//#/\\#}
    name=${name//$'\n'/ }
    if ((passed)); then
        printf 'ok %d - %s\n' "$TAP_RUN" "$name"
        return 0
    fi
    TAP_FAILED=$((TAP_FAILED + 1))
    printf 'not ok %d - %s\n' "$TAP_RUN" "$name"
    diag "  Failed test '$name'"
    diag "  at $(_tap_where)."
    return 1
}

# ok VALUE NAME: passes when VALUE is non-empty and not 0, false or null.
ok() {
    local v=${1:-}
    case $v in
        '' | 0 | false | null) _tap_result 0 "${2:-}" ;;
        *) _tap_result 1 "${2:-}" ;;
    esac
}

pass() { _tap_result 1 "${1:-}"; }
fail() { _tap_result 0 "${1:-}"; }

# cmd_ok NAME CMD [ARGS...]: passes when the command exits 0.
cmd_ok() {
    local name=$1
    shift
    if "$@"; then
        _tap_result 1 "$name"
    else
        _tap_result 0 "$name"
        diag "  command failed: $*"
        return 1
    fi
}

# Shortens a value for diagnostics.
_tap_show() {
    local v=$1
    if ((${#v} > 400)); then
        v="${v:0:400}... (${#1} bytes)"
    fi
    printf '%s' "$v"
}

# is GOT EXPECTED NAME
is() {
    if [[ "$1" == "$2" ]]; then
        _tap_result 1 "${3:-}"
    else
        _tap_result 0 "${3:-}"
        diag "         got: '$(_tap_show "$1")'"
        diag "    expected: '$(_tap_show "$2")'"
        return 1
    fi
}

# isnt GOT UNEXPECTED NAME
isnt() {
    if [[ "$1" != "$2" ]]; then
        _tap_result 1 "${3:-}"
    else
        _tap_result 0 "${3:-}"
        diag "         got: '$(_tap_show "$1")'"
        diag "    expected: anything else"
        return 1
    fi
}

# like GOT REGEX NAME (bash extended regular expression)
like() {
    if [[ "$1" =~ $2 ]]; then
        _tap_result 1 "${3:-}"
    else
        _tap_result 0 "${3:-}"
        diag "                  '$(_tap_show "$1")'"
        diag "    doesn't match '$2'"
        return 1
    fi
}

# unlike GOT REGEX NAME
unlike() {
    if [[ ! "$1" =~ $2 ]]; then
        _tap_result 1 "${3:-}"
    else
        _tap_result 0 "${3:-}"
        diag "                  '$(_tap_show "$1")'"
        diag "          matches '$2'"
        return 1
    fi
}

# skip REASON [COUNT]: emits COUNT (default 1) skipped tests.
skip() {
    local reason=${1:-} n=${2:-1} i
    for ((i = 0; i < n; i++)); do
        TAP_RUN=$((TAP_RUN + 1))
        printf 'ok %d # skip %s\n' "$TAP_RUN" "$reason"
    done
}

# BAIL_OUT REASON: stops the whole test run.
BAIL_OUT() {
    printf 'Bail out!  %s\n' "${1:-}"
    _TAP_BAILED=1
    exit 255
}

# at_exit COMMAND: registers cleanup, run at exit in reverse order.
at_exit() {
    _TAP_EXIT_HOOKS+=("$1")
}

_tap_end() {
    local rc=$? i
    trap - EXIT
    for ((i = ${#_TAP_EXIT_HOOKS[@]} - 1; i >= 0; i--)); do
        eval "${_TAP_EXIT_HOOKS[i]}" >&2 || diag "cleanup failed: ${_TAP_EXIT_HOOKS[i]}"
    done
    if ((_TAP_SKIP_ALL)); then
        exit 0
    fi
    if ((_TAP_BAILED)); then
        exit 255
    fi
    if ((_TAP_PLAN_PRINTED == 0)); then
        if ((TAP_RUN == 0)); then
            diag "No tests run!"
        else
            diag "Tests were run but no plan was declared and done_testing() was not seen."
        fi
        exit 255
    fi
    if ((TAP_RUN != TAP_PLANNED)); then
        diag "Looks like you planned $TAP_PLANNED test(s) but ran $TAP_RUN."
        exit 255
    fi
    if ((TAP_FAILED > 0)); then
        diag "Looks like you failed $TAP_FAILED test(s) of $TAP_RUN run."
        exit $((TAP_FAILED > 254 ? 254 : TAP_FAILED))
    fi
    if ((rc != 0)); then
        diag "Looks like your test exited with $rc just after $TAP_RUN."
        exit "$rc"
    fi
    exit 0
}

trap _tap_end EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
