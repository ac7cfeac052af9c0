#!/usr/bin/env bash
# 03-ctl-usage.t - xborderctl's usage: `--help`, `-h` and `help` (before or
# after the -c files) print every command of its table (src/ctl/xborderctl.c)
# with a line saying what it does, on standard output, and exit 0; a wrong
# command line prints the same on standard error and exits 2.
. "$(dirname "${BASH_SOURCE[0]}")/lib/api.sh"
no_plan

CTL=${XB_CTL%% *}
SRC=$XB_REPO/src/ctl/xborderctl.c
mapfile -t NAMES < <(sed -n 's/^[[:space:]]*{ "\([a-z-]*\)", cmd_[a-z_]*,.*/\1/p' "$SRC")
ok "$((${#NAMES[@]} >= 14))" "the command table of xborderctl.c has ${#NAMES[@]} commands"

ERR=$(mktemp "${TMPDIR:-/tmp}/xb-t03.XXXXXX")
at_exit 'rm -f "$ERR"'
for args in "--help" "-h" "help" "-c $XB_CONF --help" "-c $XB_CONF -c $XB_CONF help"; do
    # shellcheck disable=SC2086
    if out=$("$CTL" $args 2>"$ERR"); then rc=0; else rc=$?; fi
    is "$rc" 0 "xborderctl ${args/$XB_CONF/CONF}: exit 0"
    is "$(wc -c <"$ERR")" 0 "... nothing on standard error"
    missing=()
    for n in "${NAMES[@]}"; do
        # the command at the start of a line, then on that line or the next
        # one a description after two spaces or more
        awk -v n="$n" '
            $1 == n { found = 1; if ($0 ~ /[^ ]   *[a-zA-Z]/ && NF > 1) { ok = 1; exit }; next }
            found { if ($0 ~ /^      *[a-zA-Z]/) ok = 1; exit }
            END { exit !ok }' <<<"$out" || missing+=("$n")
    done
    is "${missing[*]}" "" "... every command of the table, each with a description"
done

if out=$("$CTL" -c "$XB_CONF" no-such-command 2>"$ERR"); then rc=0; else rc=$?; fi
is "$rc" 2 "an unknown command: exit 2"
is "$out" "" "... nothing on standard output"
like "$(cat "$ERR")" "ledger-check" "... the usage on standard error"
if out=$("$CTL" 2>"$ERR"); then rc=0; else rc=$?; fi
is "$rc" 2 "no -c and no command: exit 2"

done_testing
