#!/usr/bin/env bash
# The suites' own checks (t/lib/api.sh, t/lib/oas.sh): what every other
# file relies on must fail when it should.  jis and is_error answer with
# one jq process where they used two, and the check of every response
# learns from the OpenAPI validator whether the body is a JSON object
# (asked over bash's /dev/tcp, no curl): each case below is a verdict
# those shortcuts must give exactly as the long way did.
. "$(dirname "$0")/lib/api.sh"

# verdicts CMD...: the TAP verdicts CMD prints ("ok", "not ok"), space
# separated.  It runs in a subshell, so its counts stay there.
verdicts() {
    local out line v=()
    out=$( ("$@") 2>/dev/null)
    while IFS= read -r line; do
        case $line in
        'ok '*) v+=(ok) ;;
        'not ok '*) v+=("not ok") ;;
        esac
    done <<<"$out"
    local IFS=,
    printf '%s' "${v[*]}"
}

# --- jis: equal JSON values, whatever the key order -------------------------
BODY='{"a":1,"b":[1,{"y":2,"x":1}],"s":"é"}'
is "$(verdicts jis . '{"s":"é","b":[1,{"x":1,"y":2}],"a":1}')" ok "jis: same object, keys in another order"
is "$(verdicts jis .a 2)" "not ok" "jis: another value"
is "$(verdicts jis .a '"1"')" "not ok" "jis: a string is not a number"
is "$(verdicts jis '.b[]' 1)" "not ok" "jis: two values are not one"
is "$(verdicts jis '.none[]?' null)" "not ok" "jis: no value is not null"
is "$(verdicts jis .a 'not json')" "not ok" "jis: an expected value that is not JSON"
is "$(verdicts jis .a 1 name '{"a":1}')" ok "jis: on a JSON given as the fourth argument"
is "$(verdicts jis .a 1 name '{"a":1} {"a":1}')" "not ok" "jis: two documents give two values"
BODY=
is "$(verdicts jis .a null)" "not ok" "jis: an empty body has no value, not null"
BODY='<html>'
is "$(verdicts jis . '"<html>"')" "not ok" "jis: a body that is not JSON"

# --- is_error: status, code and the exact envelope --------------------------
STATUS=404 REQ="GET /x"
BODY='{"status":404,"code":"NOT_FOUND","message":"No such thing.","details":{}}'
is "$(verdicts is_error 404 NOT_FOUND)" "ok,ok,ok" "is_error: the envelope"
is "$(verdicts is_error 404 GONE)" "ok,not ok,ok" "is_error: another code"
is "$(verdicts is_error 409 NOT_FOUND)" "not ok,ok,not ok" "is_error: another status"
BODY='{"status":404,"code":"NOT_FOUND","message":"No such thing."}'
is "$(verdicts is_error 404 NOT_FOUND)" "ok,ok,not ok" "is_error: no details"
BODY='{"status":404,"code":"NOT_FOUND","message":"","details":{}}'
is "$(verdicts is_error 404 NOT_FOUND)" "ok,ok,not ok" "is_error: an empty message"
BODY='{"status":404,"code":"NOT_FOUND","message":"m","details":{},"extra":1}'
is "$(verdicts is_error 404 NOT_FOUND)" "ok,ok,not ok" "is_error: a member too many"
BODY='{"status":"404","code":"NOT_FOUND","message":"m","details":{}}'
is "$(verdicts is_error 404 NOT_FOUND)" "ok,ok,not ok" "is_error: status as a string"
BODY='{"status":404,"code":"NOT\nFOUND","message":"m","details":{}}'
is "$(verdicts is_error 404 NOT_FOUND)" "ok,not ok,ok" "is_error: a code over two lines"
BODY='{"status":404,"code":"NOT_FOUND","message":"m","details":{}} {}'
is "$(verdicts is_error 404 NOT_FOUND)" "ok,not ok,not ok" "is_error: two documents"
BODY='Not Found'
is "$(verdicts is_error 404 NOT_FOUND)" "ok,not ok,not ok" "is_error: a body that is not JSON"

# --- the check of every response, and the validator's word on the body -----
api GET /config
is_status 200
is "$_OAS_OBJECT" yes "the validator says the body of GET /config is a JSON object"
config_headers=$HEADERS config_body=$BODY

# The cases that must fail go to a validator of this script's own, so that
# the run's summary counts only real answers.
shared_url=$_OAS_URL
_OAS_URL=
REQ="GET /config" STATUS=200 HEADERS=$config_headers
for body in '[1]' '"text"' '{} {}' '' 'null'; do
    BODY=$body
    oas_ask
    is "$_OAS_OBJECT" no "validator: '$body' is not a JSON object"
    is "$(verdicts _api_check_common)" "not ok" "the check of every response fails on '$body'"
    like "${_OAS_ANSWER%%$'\n'*}" '^not ok ' "validator: '$body' is not a Config"
done
BODY=$config_body
oas_ask
is "$_OAS_OBJECT" yes "validator: the real body again"
is "${_OAS_ANSWER%%$'\n'*}" "ok GET /config 200" "validator: the real answer matches"
BODY=${config_body/\"umaDomain\"/\"umaDomainX\"}
oas_ask
like "${_OAS_ANSWER%%$'\n'*}" '^not ok ' "validator: a member renamed does not match"
is "$_OAS_OBJECT" yes "validator: ... though it is an object"

# No validator: the check of the body falls back to jq, and the OpenAPI
# assertion fails, saying so.
_OAS_URL=http://127.0.0.1:1
BODY=$config_body
start=$SECONDS
oas_ask
ok "$(($? != 0))" "no validator: oas_ask says so"
ok "$((SECONDS - start < 5))" "no validator: at once"
is "$_OAS_OBJECT" "" "no validator: no word on the body"
like "$_OAS_ERROR" 'did not answer' "no validator: the reason"
is "$(verdicts _api_check_common)" ok "no validator: the body is checked by jq (an object)"
BODY='[1]'
oas_ask
is "$(verdicts _api_check_common)" "not ok" "no validator: the body is checked by jq (an array)"
is "$(verdicts oas_check)" "not ok" "no validator: the OpenAPI assertion fails"

# Stopping this script's validator leaves the run's own running: the
# next answer is still checked by it (its assertion passes).
_OAS_URL=$shared_url
_oas_stop_private
api GET /config
is_status 200 "after the private validator stopped"

done_testing
