# t/lib/jq.sh - the suites' jq: gojq when it is installed.
#
# The suites run about 25,000 jq filters.  jq 1.6 (Debian 12) spends about
# 38 ms of CPU starting, compiling its builtins, before it reads a byte;
# gojq (a Go implementation of the same language) about 3 ms.  The filters
# are the same; the differences that matter here:
#   - gojq always prints an object's keys sorted, so it has no -S
#     (--sort-keys): jq() below drops it;
#   - gojq keeps integers exact beyond 2^53, where jq 1.6 rounds them to
#     doubles;
#   - gojq's regular expressions are Go's (RE2: no look-around, no
#     back-references).
# XB_TEST_JQ=jq runs the suites with jq itself.

[[ -n ${_JQ_SH_LOADED:-} ]] && return 0
_JQ_SH_LOADED=1

if [[ ${XB_TEST_JQ:-gojq} == gojq ]] && command -v gojq >/dev/null 2>&1; then
    # jq ARGS...: gojq with jq's sort flag taken out (it sorts anyway).
    # Option values (--arg NAME VALUE, ...) and everything after the filter
    # pass through as they are.
    jq() {
        local -a out=()
        local a filter_seen=0 skip=0
        for a in "$@"; do
            if ((skip)); then
                out+=("$a")
                skip=$((skip - 1))
            elif ((filter_seen)); then
                out+=("$a")
            else
                case $a in
                --arg | --argjson | --slurpfile | --rawfile) out+=("$a"); skip=2 ;;
                --indent | -f | --from-file | -L) out+=("$a"); skip=1 ;;
                --sort-keys | -S) ;;
                --*) out+=("$a") ;;
                -?*) a=${a//S/}; [[ $a == - ]] || out+=("$a") ;;
                *) out+=("$a"); filter_seen=1 ;;
                esac
            fi
        done
        command gojq "${out[@]}"
    }
fi
