# t/lib/oas.sh - checks API responses against the OpenAPI description.
# shellcheck shell=bash
#
# Sourced by api.sh (after tap.sh).  Provides
#
#   oas_ask       sends the response of the last api() call ($STATUS,
#                 $BODY, $HEADERS, method and path from $REQ) to the
#                 validator; sets $_OAS_OBJECT ("yes" when the body is one
#                 JSON object, "no", or empty when the validator did not
#                 answer)
#   oas_check     one TAP assertion: that response (asked now unless
#                 oas_ask just did) is what openapi/openapi.json describes
#                 for that operation and status; on failure the
#                 validator's findings go to diag.
#
# The checking is done by t/lib/oas-validate.mjs, one node process for the
# whole run: scripts/dev `check` and `test` start it before prove and export
# its URL as XB_OAS_URL.  When XB_OAS_URL is not set (a .t file run by
# hand), the first oas_check starts a private validator for this script,
# which stops at exit (and notes its summary).
#
# Sourcing this file again is harmless, so `. oas.sh && oas_check` works
# from inside a function.  Only plain assignments here: `declare` inside a
# function would make the variables local to it.

[[ -n ${_OAS_SH_LOADED:-} ]] && return 0
_OAS_SH_LOADED=1

_OAS_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
_OAS_URL=${XB_OAS_URL:-}
_OAS_URL=${_OAS_URL%/}
_OAS_TMP=
_OAS_PID=
_OAS_PRIVATE_URL=
_OAS_START_FAILED=

# _oas_tmp: a private scratch directory, removed at exit.
_oas_tmp() {
    [[ -n $_OAS_TMP ]] && return 0
    _OAS_TMP=$(mktemp -d "${TMPDIR:-/tmp}/xb-oas.XXXXXX") || return 1
    at_exit '_oas_cleanup'
}

_oas_cleanup() {
    _oas_stop_private
    [[ -n $_OAS_TMP ]] && rm -rf "$_OAS_TMP"
    _OAS_TMP=
}

# _oas_start_private: starts a validator for this script; sets _OAS_URL.
_oas_start_private() {
    local i port=
    [[ -n $_OAS_START_FAILED ]] && return 1
    _OAS_START_FAILED="the private validator did not start"
    _oas_tmp || return 1
    if ! command -v node >/dev/null; then
        _OAS_START_FAILED="no node (scripts/dev check installs it, or apt-get install nodejs)"
        return 1
    fi
    node "$_OAS_LIB_DIR/oas-validate.mjs" --port-file "$_OAS_TMP/port" --parent-pid "$$" \
        </dev/null >"$_OAS_TMP/validator.log" 2>&1 &
    _OAS_PID=$!
    # Out of the job table: a suite's own bare `wait` must not wait for it.
    disown "$_OAS_PID" 2>/dev/null
    for ((i = 0; i < 200; i++)); do
        if [[ -s $_OAS_TMP/port ]]; then
            read -r port <"$_OAS_TMP/port"
            break
        fi
        kill -0 "$_OAS_PID" 2>/dev/null || break
        sleep 0.05
    done
    if [[ ! $port =~ ^[0-9]+$ ]]; then
        _OAS_START_FAILED="the private validator did not start: $(tail -n 3 "$_OAS_TMP/validator.log" 2>/dev/null)"
        [[ -n $_OAS_PID ]] && kill "$_OAS_PID" 2>/dev/null
        _OAS_PID=
        return 1
    fi
    _OAS_URL=http://127.0.0.1:$port
    _OAS_PRIVATE_URL=$_OAS_URL
    _OAS_START_FAILED=
}

# _oas_stop_private: notes the private validator's summary and stops it.
_oas_stop_private() {
    local line i
    [[ -n $_OAS_PID ]] || return 0
    # Its own URL: a script may have pointed _OAS_URL elsewhere since.
    if [[ -n $_OAS_PRIVATE_URL ]]; then
        curl -sS --max-time 5 -X POST "$_OAS_PRIVATE_URL/quit" 2>/dev/null |
            jq -r '.lines[:3][]?' 2>/dev/null | while IFS= read -r line; do
                printf '# %s\n' "$line"
            done
    fi
    kill "$_OAS_PID" 2>/dev/null
    for ((i = 0; i < 50; i++)); do
        kill -0 "$_OAS_PID" 2>/dev/null || break
        sleep 0.1
    done
    _OAS_PID=
}

# _oas_post PATH TYPE DATA: POSTs DATA (bytes, no NUL) to the validator
# with bash's own /dev/tcp, no curl: a process per response cost about
# 25 ms on the test machine, several minutes of a whole run.  Sets
# _OAS_ANSWER (the answer's body) and _OAS_OBJECT (its X-Body-Object
# header, empty when absent); non-zero when no HTTP answer came.
_oas_post() {
    local LC_ALL=C hostport=${_OAS_URL#http://} fd= answer= head line
    _OAS_ANSWER= _OAS_OBJECT=
    { exec {fd}<>"/dev/tcp/${hostport%:*}/${hostport##*:}"; } 2>/dev/null || return 1
    printf 'POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: %s\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s' \
        "$1" "$hostport" "$2" "${#3}" "$3" >&"$fd" 2>/dev/null
    # The validator closes the connection after its answer: read to the end.
    IFS= read -r -d '' -t 30 -u "$fd" answer
    exec {fd}>&-
    [[ $answer == 'HTTP/1.'[01]' 200 '*$'\r\n\r\n'* ]] || {
        _OAS_ANSWER=${answer:-no answer}
        return 1
    }
    head=${answer%%$'\r\n\r\n'*}
    _OAS_ANSWER=${answer#*$'\r\n\r\n'}
    while IFS= read -r line; do
        line=${line%$'\r'}
        [[ ${line,,} == x-body-object:* ]] && _OAS_OBJECT=${line#*: }
    done <<<"$head"
    return 0
}

# oas_ask: sends the response of the last api() call ($STATUS, $BODY,
# $HEADERS, method and path from $REQ) to the validator; oas_check reports
# its verdict, and api.sh's check of every response reads $_OAS_OBJECT.
_OAS_ASKED=
oas_ask() {
    local method=${REQ%% *} path=${REQ#* }
    _OAS_ASKED=1 _OAS_ERROR= _OAS_ANSWER= _OAS_OBJECT=
    if [[ $STATUS == 000 ]]; then
        _OAS_ERROR="no HTTP response to check"
        return 1
    fi
    if [[ -z $_OAS_URL ]] && ! _oas_start_private; then
        _OAS_ERROR=$_OAS_START_FAILED
        return 1
    fi
    # Framed for oas-validate.mjs (no jq): method, status, the byte lengths
    # of path and headers, then path, headers and body.
    local LC_ALL=C frame
    printf -v frame '%s\n%s\n%s\n%s\n%s%s%s' "$method" "$STATUS" "${#path}" "${#HEADERS}" \
        "$path" "$HEADERS" "$BODY"
    if ! _oas_post /check application/x-xb-check "$frame"; then
        _OAS_ERROR="the validator at $_OAS_URL did not answer: $_OAS_ANSWER"
        return 1
    fi
}

# oas_check: one assertion on the response of the last api() call (asked
# by oas_ask, or asked now).
oas_check() {
    local name="$REQ: response matches the OpenAPI description" verdict
    [[ -n $_OAS_ASKED ]] || oas_ask
    _OAS_ASKED=
    if [[ -n $_OAS_ERROR ]]; then
        fail "$name"
        diag "    $_OAS_ERROR"
        return 1
    fi
    verdict=${_OAS_ANSWER%%$'\n'*}
    case $verdict in
    'ok '*)
        pass "$name (${verdict#ok })"
        ;;
    'not ok '*)
        fail "$name (${verdict#not ok })"
        diag "$(sed -n '2,$s/^/    /p' <<<"$_OAS_ANSWER")"
        diag "    status $STATUS, body: $(_tap_show "$BODY")"
        return 1
        ;;
    *)
        fail "$name"
        diag "    the validator at $_OAS_URL did not answer: $_OAS_ANSWER"
        return 1
        ;;
    esac
}
