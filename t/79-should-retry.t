#!/usr/bin/env bash
# 79-should-retry.t - the retry advice of every answer (xborder-api(7),
# Retries).  Generated SDKs retry 408, 409, 429 and 5xx unless the answer
# carries x-should-retry, so every error answer says it:
#  - false, without Retry-After, on a 4xx that a repeat would get again:
#    400, 401, 403, 404, 405, 409 (all but IDEMPOTENCY_KEY_IN_USE), 413
#    (the application's and nginx's), 414 (nginx), 415;
#  - true, with Retry-After in seconds, on 409 IDEMPOTENCY_KEY_IN_USE and
#    429, and on a 5xx whose request is safe to repeat;
#  - false on a 5xx to a POST without Idempotency-Key that may have acted:
#    the answer lost after the commit (lose-commit: the application's 503)
#    or the worker dead after it (kill-after-commit: nginx's 503), where a
#    repeat would move the money twice;
#  - nothing on 2xx answers, a replayed one included.
# 503 with the database or xborder-fcgi down is t/50's; the fault points
# need a build with --enable-fault-injection (scripts/dev check has one).
. "$(dirname "${BASH_SOURCE[0]}")/lib/api.sh"
. "$(dirname "${BASH_SOURCE[0]}")/lib/money.sh"
no_plan

RUN=$(uniq_name t79)
bdir=${XB_CTL%%/src/xborderctl*}
faults=0
grep -qs '^#define XB_FAULT_INJECTION 1' "$bdir/config.h" && faults=1

# retry_is WHAT ADVICE: the last answer's x-should-retry is ADVICE (true,
# false, or '' for none) and it has Retry-After, a positive number of
# seconds, exactly when ADVICE is true (2 tests).
retry_is() {
    is "$(header x-should-retry)" "$2" "$1: x-should-retry ${2:-absent}"
    if [[ $2 == true ]]; then
        like "$(header Retry-After)" '^[1-9][0-9]*$' "$1: Retry-After in seconds"
    else
        is "$(header Retry-After)" "" "$1: no Retry-After"
    fi
}

# wait_up: polls GET /config (uncounted) until a worker answers 200 again,
# after a fault point killed one.
wait_up() {
    local deadline=$((SECONDS + 30))
    while ((SECONDS < deadline)); do
        api --nocheck GET /config '' --max-time 5
        [[ $STATUS == 200 ]] && return 0
        sleep 0.2
    done
    return 1
}

# token_body NAME: a POST /tokens body.
token_body() {
    printf '{"name":%s,"permissions":["view"]}' "$(json_str "$1")"
}

# --- 2xx: no advice ---------------------------------------------------------------------
api GET /config
is_status 200 "GET /config: 200"
retry_is "GET /config 200" ''

create_token "$RUN-viewer" '["view"]'
retry_is "POST /tokens 201" ''
view_id=$TOK_CLIENT_ID view_secret=$TOK_SECRET

key="$RUN-replay"
api POST /tokens "$(token_body "$RUN-keyed")" -H "Idempotency-Key: $key"
is_status 201 "POST /tokens with a key: 201"
api POST /tokens "$(token_body "$RUN-keyed")" -H "Idempotency-Key: $key"
is_status 201 "POST /tokens again with the key: 201"
is_header Idempotent-Replayed true "POST /tokens again with the key: replayed"
retry_is "replayed 201" ''

# --- 4xx that a repeat gets again: false ---------------------------------------------------
api POST /tokens '{"name":"","permissions":["view"]}'
is_error 400 INVALID_REQUEST "POST /tokens with an empty name"
has_details name
retry_is "400 naming a field (POST)" false

api GET '/tokens?limit=0'
is_error 400 INVALID_REQUEST "GET /tokens?limit=0"
has_details limit
retry_is "400 naming a query parameter (GET)" false

api --as "$(uuid4)" "not-the-secret" GET /config
is_error 401 UNAUTHORIZED "unknown clientId"
retry_is "401" false

api --as "$view_id" "$view_secret" POST /tokens "$(token_body "$RUN-denied")"
is_error 403 FORBIDDEN "a view-only token doing POST /tokens"
retry_is "403" false

api GET /no-such-path
is_error 404 NOT_FOUND "unknown path"
retry_is "404 (unknown path)" false

api GET "/tokens/Token:$(uuid4)"
is_error 404 TOKEN_NOT_FOUND "unknown token"
retry_is "404 (unknown resource)" false

api PUT /config '{}'
is_error 405 METHOD_NOT_ALLOWED "PUT /config"
retry_is "405" false

api POST /tokens "$(token_body "$RUN-other")" -H "Idempotency-Key: $key"
is_error 409 IDEMPOTENCY_KEY_REUSED "the key again with another body"
retry_is "409 IDEMPOTENCY_KEY_REUSED" false

api DELETE "/tokens/$XB_CLIENT_ID"
is_error 409 TOKEN_NOT_REVOCABLE "DELETE the root token"
retry_is "409 TOKEN_NOT_REVOCABLE" false

mk_customer t79
C=$CUST
int_account "$C" USD
C_INT=$INT
mk_ext "$C" 000797979001
C_EXT=$EXT
api POST /transfer-out "$(xfer_body "$C_INT" "$C_EXT" 1000)"
is_error 409 INSUFFICIENT_FUNDS "transfer-out from an empty account"
retry_is "409 INSUFFICIENT_FUNDS" false

# The application answers 413 above 64 KiB, nginx above 1 MiB.
big=$_API_TMP/big.json
printf '{"name":"%s","permissions":["view"]}' "$(head -c 70000 /dev/zero | tr '\0' a)" >"$big"
api --file "$big" POST /tokens
is_error 413 PAYLOAD_TOO_LARGE "POST /tokens with 70 KB (the application)"
like "$(jr .message)" '65536' "the 413 of 70 KB is the application's"
retry_is "413 from the application" false

huge=$_API_TMP/huge.json
printf '{"name":"%s","permissions":["view"]}' "$(head -c 1100000 /dev/zero | tr '\0' a)" >"$huge"
api --file "$huge" POST /tokens
is_error 413 PAYLOAD_TOO_LARGE "POST /tokens with 1.1 MB (nginx)"
unlike "$(jr .message)" '65536' "the 413 of 1.1 MB is nginx's"
retry_is "413 from nginx" false

api --ctype text/plain POST /tokens "$(token_body "$RUN-text")"
is_error 415 UNSUPPORTED_MEDIA_TYPE "POST /tokens as text/plain"
retry_is "415" false

# nginx's own 4xx (the API document does not describe 414: not validated).
# Over HTTP/1.1: HTTP/2 refuses such a header block without an answer.
api --nocheck GET "/$(head -c 20000 /dev/zero | tr '\0' a)" '' --http1.1
is "$STATUS" 414 "a 20000-byte path over HTTP/1.1: nginx's 414"
retry_is "414 from nginx" false

# --- 429: true, with the time left in the window ---------------------------------------------
create_token "$RUN-throttled" '["view"]'
t_id=$TOK_CLIENT_ID t_secret=$TOK_SECRET
advice=()
for i in 1 2 3 4 5 6 7 8 9 10; do
    api --nocheck --as "$t_id" "wrong-secret-$i" GET /config
    advice+=("$STATUS:$(header x-should-retry)")
done
is "${advice[*]}" "$(printf '401:false %.0s' {1..10} | sed 's/ $//')" \
    "10 wrong secrets: 401 with x-should-retry false each"
api --as "$t_id" "$t_secret" GET /config
is_error 429 RATE_LIMITED "the 11th attempt, with the right secret"
retry_is "429 (failed authentications)" true
ra=$(header Retry-After)
ok "$([[ $ra =~ ^[0-9]+$ ]] && ((ra <= 60)) && echo 1)" "429: Retry-After is the rest of the minute (at most 60)"

# --- fault points: IN_USE, and 503s after the commit ------------------------------------------
if ((faults == 0)); then
    skip "the stack's build ($bdir) has no fault injection (scripts/dev up --fault-injection)" 63
    done_testing
    exit
fi
fund "$C_INT" 100000

# The worker dies before the commit: nginx's 503 to a POST with a key is
# true (a repeat with the key is safe), and the dead claim answers 409
# IDEMPOTENCY_KEY_IN_USE until its lease passes: true.
key="$RUN-in-use"
body=$(xfer_body "$C_INT" "$C_EXT" 1000)
api POST /transfer-out "$body" -H "Idempotency-Key: $key" -H 'X-Xborder-Fault: kill-before-commit'
is_error 503 SERVICE_UNAVAILABLE "kill-before-commit with a key: nginx's 503"
retry_is "nginx's 503 to a POST with a key" true
ok "$(wait_up && echo 1)" "a worker answers again"
api POST /transfer-out "$body" -H "Idempotency-Key: $key"
is_error 409 IDEMPOTENCY_KEY_IN_USE "the key again while its claim holds"
retry_is "409 IDEMPOTENCY_KEY_IN_USE" true
balance_of "$C_INT"
is "$BAL" 100000 "nothing moved so far"

# The answer is lost after the commit (the application's 503).
api POST /transfer-out "$(xfer_body "$C_INT" "$C_EXT" 2000)" -H 'X-Xborder-Fault: lose-commit'
is_error 503 SERVICE_UNAVAILABLE "lose-commit without a key: the application's 503"
retry_is "the application's 503 to a POST without a key, after its handler" false
balance_of "$C_INT"
is "$BAL" 98000 "... and the transfer-out was committed: a repeat would move 2000 again"

key="$RUN-lose"
body=$(xfer_body "$C_INT" "$C_EXT" 3000)
api POST /transfer-out "$body" -H "Idempotency-Key: $key" -H 'X-Xborder-Fault: lose-commit'
is_error 503 SERVICE_UNAVAILABLE "lose-commit with a key"
retry_is "the application's 503 to a POST with a key" true
api POST /transfer-out "$body" -H "Idempotency-Key: $key"
is_status 201 "lose-commit with a key, repeated as advised: 201"
is_header Idempotent-Replayed true "lose-commit with a key, repeated: replayed"
balance_of "$C_INT"
is "$BAL" 95000 "lose-commit with a key: 3000 moved once"

# The worker dies after the commit (nginx's 503, after it reached the application).
api POST /transfer-out "$(xfer_body "$C_INT" "$C_EXT" 4000)" -H 'X-Xborder-Fault: kill-after-commit'
is_error 503 SERVICE_UNAVAILABLE "kill-after-commit without a key: nginx's 503"
retry_is "nginx's 503 to a POST without a key that reached the application" false
ok "$(wait_up && echo 1)" "a worker answers again"
balance_of "$C_INT"
is "$BAL" 91000 "... and the transfer-out was committed: a repeat would move 4000 again"

api GET /config '' -H 'X-Xborder-Fault: kill-after-commit'
is_error 503 SERVICE_UNAVAILABLE "kill-after-commit on a GET: nginx's 503"
retry_is "nginx's 503 to a GET" true
ok "$(wait_up && echo 1)" "a worker answers again"

api PATCH /customers/"$C" '{"fullName":"Test t79 renamed"}' -H 'X-Xborder-Fault: lose-commit'
is_error 503 SERVICE_UNAVAILABLE "lose-commit on a PATCH"
retry_is "the application's 503 to a PATCH" true

done_testing
