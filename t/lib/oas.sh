# t/lib/oas.sh - checks API responses against the OpenAPI description.
# shellcheck shell=bash
#
# Sourced by api.sh (after tap.sh).  Provides
#
#   oas_check     one TAP assertion: the response of the last api() call
#                 ($STATUS, $BODY, $HEADERS, method and path from $REQ) is
#                 what openapi/openapi.json describes for that operation and
#                 status; on failure the validator's findings go to diag.
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
    _OAS_START_FAILED=
}

# _oas_stop_private: notes the private validator's summary and stops it.
_oas_stop_private() {
    local line i
    [[ -n $_OAS_PID ]] || return 0
    if [[ -n $_OAS_URL ]]; then
        curl -sS --max-time 5 -X POST "$_OAS_URL/quit" 2>/dev/null |
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

# oas_check: one assertion on the response of the last api() call.
oas_check() {
    local method=${REQ%% *} path=${REQ#* } name out verdict
    name="$REQ: response matches the OpenAPI description"
    if [[ $STATUS == 000 ]]; then
        fail "$name"
        diag "    no HTTP response to check"
        return 1
    fi
    if [[ -z $_OAS_URL ]] && ! _oas_start_private; then
        fail "$name"
        diag "    $_OAS_START_FAILED"
        return 1
    fi
    _oas_tmp || { fail "$name"; diag "    no temporary directory"; return 1; }
    # Framed for oas-validate.mjs (no jq): method, status, the byte lengths
    # of path and headers, then path, headers and body.
    local LC_ALL=C
    printf '%s\n%s\n%s\n%s\n%s%s%s' "$method" "$STATUS" "${#path}" "${#HEADERS}" \
        "$path" "$HEADERS" "$BODY" >"$_OAS_TMP/check"
    out=$(curl -sS --max-time 30 -H 'Content-Type: application/x-xb-check' \
        --data-binary @"$_OAS_TMP/check" "$_OAS_URL/check" 2>&1)
    verdict=${out%%$'\n'*}
    case $verdict in
    'ok '*)
        pass "$name (${verdict#ok })"
        ;;
    'not ok '*)
        fail "$name (${verdict#not ok })"
        diag "$(sed -n '2,$s/^/    /p' <<<"$out")"
        diag "    status $STATUS, body: $(_tap_show "$BODY")"
        return 1
        ;;
    *)
        fail "$name"
        diag "    the validator at $_OAS_URL did not answer: $out"
        return 1
        ;;
    esac
}
