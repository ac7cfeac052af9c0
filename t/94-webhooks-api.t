#!/usr/bin/env bash
# 94-webhooks-api.t - the webhook routes, on two platforms of their own (A,
# and B for what belongs to someone else), against a local receiver
# (t/lib/webhook-receiver.mjs):
#  - GET /webhooks/signing-key: shape, an Ed25519 public key whose keyId is
#    the first 8 bytes of SHA-256 over the raw 32-byte key (derived here
#    with openssl), ?keyId= the current key, an unknown one (404), a
#    malformed one (400 details.keyId), B's key another one, A's key 404
#    to B (t/85-webhook-keys.t has the rest: rotation, signatures);
#  - POST /webhooks/test: no endpoint (400 WEBHOOK_ENDPOINT_NOT_CONFIGURED),
#    the receiver's answer reported whatever its status (200, 404, 500),
#    its body cut to 4096 bytes, invalid UTF-8 replaced, the signed TEST
#    event the receiver got, a port that refuses (400 WEBHOOK_DELIVERY_FAILED
#    "connection refused"), an endpoint that never answers ("timeout", in
#    at most 12 s);
#  - GET /webhooks/deliveries: every validation error, events made while no
#    endpoint is configured (FAILED, attempts 0, never sent), the status and
#    type filters, paging (walk_pages), TEST events never listed, each
#    platform seeing only its own;
#  - POST /webhooks/deliveries/{webhookId}/retry: malformed (400), unknown,
#    a TEST id, another platform's (404), no endpoint (400
#    WEBHOOK_ENDPOINT_NOT_CONFIGURED), then a retry that is delivered,
#    signed, and logged DELIVERED with its attempts counted;
#  - a view-only token: the GETs 200, the POSTs 403.
. "$(dirname "${BASH_SOURCE[0]}")/lib/api.sh"
. "$(dirname "${BASH_SOURCE[0]}")/lib/money.sh"
. "$(dirname "${BASH_SOURCE[0]}")/lib/webhooks.sh"
no_plan

ITEM_KEYS='id type transactionId status attempts lastResponseStatus lastAttemptAt nextAttemptAt createdAt'
DLV=/webhooks/deliveries
n_received=0 # business events checked at the receiver
n_tests=0    # TEST events checked at the receiver

wh_start
note "receiver on $WH_URL"
wh_platform t94a
A_ID=$NP_CLIENT_ID A_SECRET=$NP_SECRET
use_creds "$A_ID" "$A_SECRET"
wh_platform t94b
B=("${WH_P[@]}")

# now_ms: the current time in epoch milliseconds.
now_ms() { date +%s%3N; }
# ts_ms TS: a timestamp of the API's form in epoch milliseconds.
ts_ms() { jq -rn --arg t "$1" "$QJQ"' $t | ms' 2>/dev/null; }

# item_shape WHAT ITEM: one delivery-log item's keys and forms (1 test).
item_shape() {
    wjok --argjson types "$EVENT_TYPES" "$QJQ"' keys == ["attempts","createdAt","id","lastAttemptAt","lastResponseStatus","nextAttemptAt","status","transactionId","type"]
        and (.id | id("Webhook")) and (.type as $t | $types | index($t)) != null
        and (.transactionId | id("Transaction")) and (.status == "PENDING" or .status == "DELIVERED" or .status == "FAILED")
        and (.attempts | type == "number" and . >= 0 and floor == .)
        and (.lastResponseStatus == null or (.lastResponseStatus | type == "number" and . >= 100 and . <= 599))
        and (.lastAttemptAt == null or (.lastAttemptAt | ts)) and (.nextAttemptAt == null or (.nextAttemptAt | ts))
        and (.createdAt | ts) and ((.nextAttemptAt != null) == (.status == "PENDING"))' \
        "$1: exactly the item's keys, each in its form, nextAttemptAt set exactly when PENDING" "$2"
}

# test_event_ok WHAT REQ_JSON: the TEST event the receiver got (4 tests).
test_event_ok() {
    local what=$1 req=$2 t
    jok "$QJQ"' .body | fromjson | keys == ["data","id","timestamp","type"] and .type == "TEST" and .data == {}
        and (.id | id("Webhook")) and (.timestamp | ts)' \
        "$what: the body is {id Webhook:<uuid4>, type TEST, timestamp, data {}}" "$req"
    jok '.method == "POST" and (.headers["content-type"] | test("^application/json"))' \
        "$what: POST with Content-Type application/json" "$req"
    if wh_verify "$req"; then pass "$what: the signature verifies"; else fail "$what: the signature verifies"; diag "    $WH_VERIFY_ERR"; fi
    t=$(wh_sig_t "$req")
    ok "$([[ $t =~ ^[0-9]+$ ]] && ((t >= $(date +%s) - 60 && t <= $(date +%s) + 5)) && echo 1)" \
        "$what: the signature's t ($t) is now"
    n_tests=$((n_tests + 1))
}

# --- GET /webhooks/signing-key ------------------------------------------------------
api GET /webhooks/signing-key
is_status 200 "GET /webhooks/signing-key: 200"
has_keys "$BODY" 'keyId algorithm publicKeyPem' "signing key: exactly keyId, algorithm, publicKeyPem"
jis .algorithm '"ed25519"' "signing key: algorithm ed25519"
like "$(jr .keyId)" '^[0-9a-f]{16}$' "signing key: keyId is 16 lowercase hex digits"
jok '.publicKeyPem | test("^-----BEGIN PUBLIC KEY-----\n([A-Za-z0-9+/=]{1,64}\n)+-----END PUBLIC KEY-----\n$")' \
    "signing key: publicKeyPem is one PEM PUBLIC KEY block ending in a newline"
key=$BODY
KEY_ID=$(jr .keyId)
wh_key
der=$WH_DIR/key.der
if openssl pkey -pubin -in "$WH_KEY_FILE" -outform DER -out "$der" 2>"$WH_DIR/openssl.err"; then
    pass "openssl reads publicKeyPem"
else
    fail "openssl reads publicKeyPem"
    diag "    $(<"$WH_DIR/openssl.err")"
fi
like "$(openssl pkey -pubin -in "$WH_KEY_FILE" -noout -text 2>&1 | head -n 1)" 'ED25519 Public-Key' "publicKeyPem is an Ed25519 public key"
is "$(stat -c %s "$der" 2>/dev/null)" 44 "the key's DER (SubjectPublicKeyInfo) is 44 bytes"
want_id=$(tail -c 32 "$der" | openssl dgst -sha256 -binary | head -c 8 | od -An -tx1 | tr -d ' \n')
is "$KEY_ID" "$want_id" "keyId = hex of the first 8 bytes of SHA-256 over the raw 32-byte key"
api GET "/webhooks/signing-key?keyId=$KEY_ID"
is_status 200 "GET /webhooks/signing-key?keyId=<current>: 200"
jis . "$key" "?keyId=<current>: the same key"
api GET "/webhooks/signing-key?keyId=0000000000000000"
is_error 404 NOT_FOUND "GET /webhooks/signing-key?keyId=0000000000000000"
for bad in xyz "${KEY_ID^^}" "${KEY_ID}0"; do
    [[ $bad == "$KEY_ID" ]] && continue # no letters in the id: upper case is the same
    api GET "/webhooks/signing-key?keyId=$bad"
    is_error 400 INVALID_REQUEST "GET /webhooks/signing-key?keyId='$bad'"
    has_details keyId "?keyId='$bad': details names keyId"
done
api "${B[@]}" GET /webhooks/signing-key
is_status 200 "platform B: GET /webhooks/signing-key 200"
isnt "$(jr .keyId)" "$KEY_ID" "platform B: a signing key of its own (another keyId)"
isnt "$(jr .publicKeyPem)" "$(jr .publicKeyPem "$key")" "platform B: another public key"
api "${B[@]}" GET "/webhooks/signing-key?keyId=$KEY_ID"
is_error 404 NOT_FOUND "platform B: GET /webhooks/signing-key?keyId=<A's key>"

# --- events while no endpoint is configured --------------------------------------------------
api GET /config
jis .webhookEndpoint null "a new platform has no webhookEndpoint"
api POST /webhooks/test
is_error 400 WEBHOOK_ENDPOINT_NOT_CONFIGURED "POST /webhooks/test without an endpoint"
# The body is refused before the endpoint's configuration is looked at.
for b in '{"url":"http://127.0.0.1/"}' 'null' '{'; do
    api POST /webhooks/test "$b"
    is_error 400 INVALID_REQUEST "POST /webhooks/test with the body '$b': 400 before the endpoint check"
    has_details body "POST /webhooks/test with the body '$b': details names body"
done
api POST /webhooks/test '{}'
is_error 400 WEBHOOK_ENDPOINT_NOT_CONFIGURED "POST /webhooks/test with {}: accepted as no body"
jis .details '{}' "WEBHOOK_ENDPOINT_NOT_CONFIGURED: details {}"

mk_customer t94-a
A_C=$CUST
int_account "$A_C" USD
A_INT=$INT
mk_ext "$A_C" 000941941001
A_EXT=$EXT
fund "$A_INT" 100000
want='[]' # {transactionId, type} of every event A makes, as made
for n in 1100 1200; do
    api POST /transfer-in "$(xfer_body "$A_EXT" "$A_INT" "$n")"
    is_status 201 "A: transfer-in of $n: 201"
    tx=$(jr .transactionId)
    settles "$tx" 'COMPLETED|FAILED' "A: the transfer-in of $n settles"
    jis .status '"COMPLETED"' "A: the transfer-in of $n COMPLETED"
    want=$(jq -c --arg t "$tx" '. + [{transactionId: $t, type: "INCOMING_PAYMENT.PENDING"}, {transactionId: $t, type: "INCOMING_PAYMENT.COMPLETED"}]' <<<"$want")
done
api POST /transfer-out "$(xfer_body "$A_INT" "$A_EXT" 700)"
is_status 201 "A: transfer-out of 700: 201"
tx=$(jr .transactionId)
settles "$tx" 'COMPLETED|FAILED' "A: the transfer-out settles"
want=$(jq -c --arg t "$tx" '. + [{transactionId: $t, type: "OUTGOING_PAYMENT.PENDING"}, {transactionId: $t, type: "OUTGOING_PAYMENT.COMPLETED"}]' <<<"$want")
n_want=$(jq length <<<"$want")

api GET "$DLV?limit=100"
is_status 200 "GET $DLV: 200"
has_keys "$BODY" 'data hasMore nextCursor totalCount' "GET $DLV: exactly data, hasMore, nextCursor, totalCount"
jis .totalCount "$n_want" "A's log: $n_want events (2 per transfer)"
jis '[.hasMore, .nextCursor]' '[false,null]' "A's log in one page: hasMore false, nextCursor null"
all=$BODY
for ((i = 0; i < $(jq '.data | length' <<<"$all"); i++)); do
    item_shape "A's log item $i" "$(jq -c ".data[$i]" <<<"$all")"
done
jis '[.data[] | {transactionId, type}] | sort' "$(jq -c sort <<<"$want")" \
    "A's log: exactly one event per creation and status change of its transfers"
jok 'all(.data[]; .status == "FAILED" and .attempts == 0 and .lastResponseStatus == null
        and .lastAttemptAt == null and .nextAttemptAt == null)' \
    "made while no endpoint is configured: FAILED, attempts 0, lastResponseStatus, lastAttemptAt and nextAttemptAt null"
jok "$QJQ"' [.data[].createdAt | ms] as $c | $c == ($c | sort | reverse)' "A's log: newest first (createdAt never increases)"
jok '[.data[].id] | length == (unique | length)' "A's log: every id once"
ids=$(j '[.data[].id]')
# The log's order among events of one transfer: the later status first.
wjok --argjson w "$want" '[.data[] | {transactionId, type}] as $got
    | all(range(0; $w | length; 2); . as $i | ($got | index($w[$i + 1])) < ($got | index($w[$i])))' \
    "A's log: each transfer's later event listed before its earlier one"

# Filters.
api GET "$DLV?status=FAILED&limit=100"
is_status 200 "GET $DLV?status=FAILED: 200"
jis '[.totalCount, [.data[].id]]' "[$n_want,$ids]" "status=FAILED: all of them, in the same order"
for st in PENDING DELIVERED; do
    api GET "$DLV?status=$st"
    is_status 200 "GET $DLV?status=$st: 200"
    jis '[.totalCount, .data, .hasMore, .nextCursor]' '[0,[],false,null]' "status=$st: none"
done
for ty in INCOMING_PAYMENT.COMPLETED OUTGOING_PAYMENT.PENDING OUTGOING_PAYMENT.REFUNDED; do
    api GET "$DLV?type=$ty&limit=100"
    is_status 200 "GET $DLV?type=$ty: 200"
    jis '[.totalCount, [.data[].id]]' "$(jq -c --arg t "$ty" '[.data[] | select(.type == $t) | .id] | [length, .]' <<<"$all")" \
        "type=$ty: exactly those events, in the log's order"
done
api GET "$DLV?type=INCOMING_PAYMENT.PENDING&status=FAILED&limit=1"
is_status 200 "GET $DLV?type=INCOMING_PAYMENT.PENDING&status=FAILED&limit=1: 200"
jis '[.totalCount, .hasMore, .nextCursor, (.data | length)]' '[2,true,"1",1]' "type and status together, limit 1: 2 in all, one page of 1"

# Paging.
walk_pages "$DLV (default limit)" "$DLV" '' 20 "$ids"
walk_pages "$DLV limit 4" "$DLV" 4 4 "$ids"
api GET "$DLV?cursor=$n_want"
is_status 200 "GET $DLV?cursor=<past the end>: 200"
jis '[.data, .hasMore, .nextCursor, .totalCount]' "[[],false,null,$n_want]" "cursor past the end: no rows, totalCount still $n_want"

# Validation.
bad_q() {
    api GET "$DLV?$1"
    is_error 400 INVALID_REQUEST "GET $DLV?$1"
    has_details "$2" "GET $DLV?$1: details names $2"
}
for v in bogus ''; do
    bad_q "status=$v" status
done
jok '[.message, (.details.status | tostring)] | join(" ") | test("PENDING") and test("DELIVERED") and test("FAILED")' \
    "a bad status: the message or details list PENDING, DELIVERED, FAILED"
for v in TEST OUTGOING_PAYMENT.pending OUTGOING_PAYMENT.QUOTE_READY; do
    bad_q "type=$v" type
done
jok '[.message, (.details.type | tostring)] | join(" ") | test("OUTGOING_PAYMENT.COMPLETED") and test("INCOMING_PAYMENT.EXPIRED")' \
    "a bad type: the message or details list the event types"
for v in 0 101 ''; do
    bad_q "limit=$v" limit
done
for v in -1 abc; do
    bad_q "cursor=$v" cursor
done
api GET "$DLV?limit=100&cursor=0"
is_status 200 "GET $DLV?limit=100&cursor=0: 200"
jis '[.data[].id]' "$ids" "limit 100, cursor 0: every event"

# --- retry while no endpoint is configured ------------------------------------------------
E1=$(jq -r '.[-1]' <<<"$ids") # the oldest: the first transfer-in's PENDING
E1_ITEM=$(jq -c '.data[-1]' <<<"$all")
api POST "$DLV/$E1/retry"
is_error 400 WEBHOOK_ENDPOINT_NOT_CONFIGURED "retry without an endpoint"
jis .details '{}' "retry without an endpoint: details {}"
wh_item "$E1"
jis . "$E1_ITEM" "after the refused retry: the item unchanged" "$WH_ITEM"

# --- platform B's own events ----------------------------------------------------------
mk_customer t94-b "${B[@]}"
B_C=$CUST
int_account "$B_C" USD "${B[@]}"
B_INT=$INT
mk_ext "$B_C" 000942942001 USD "${B[@]}"
api "${B[@]}" POST /transfer-in "$(xfer_body "$EXT" "$B_INT" 500)"
is_status 201 "B: transfer-in: 201"
B_TX=$(jr .transactionId)
settles "$B_TX" 'COMPLETED|FAILED' "B: the transfer-in settles" "${B[@]}"
api "${B[@]}" GET "$DLV"
is_status 200 "B: GET $DLV: 200"
jis '[.totalCount, ([.data[].transactionId] | unique)]' "[2,[\"$B_TX\"]]" "B's log: its 2 events, of its own transfer only"
wjok --argjson a "$ids" '[.data[].id] - $a == [.data[].id]' "B's log holds none of A's events"
B_EV=$(jr '.data[0].id')

# --- an endpoint ---------------------------------------------------------------------
wh_set /t94/ok '{"codes":[200],"body":"pong: gr\u00fc\u00dfe"}'
wh_endpoint "$WH_URL/t94/ok"
api GET /config
jis .webhookEndpoint "\"$WH_URL/t94/ok\"" "GET /config shows the endpoint"
sleep 1
is "$(wh_count /t94)" 0 "setting an endpoint sends nothing by itself (the FAILED events stay unsent)"

api POST /webhooks/test
is_status 200 "POST /webhooks/test (receiver answers 200): 200"
has_keys "$BODY" 'url responseStatus responseBody' "POST /webhooks/test: exactly url, responseStatus, responseBody"
jis . "{\"url\":\"$WH_URL/t94/ok\",\"responseStatus\":200,\"responseBody\":\"pong: grüße\"}" \
    "POST /webhooks/test: the endpoint's URL, status 200 and body"
is "$(wh_count /t94/ok)" 1 "the receiver got one request"
treq=$(jq -c '.[0]' <<<"$(wh_reqs /t94/ok)")
test_event_ok "TEST event" "$treq"
TEST_ID=$(jq -r '.body | fromjson | .id' <<<"$treq")
api POST /webhooks/test
is_status 200 "POST /webhooks/test again: 200"
treq2=$(jq -c '.[1]' <<<"$(wh_reqs /t94/ok)")
test_event_ok "second TEST event" "$treq2"
isnt "$(jq -r '.body | fromjson | .id' <<<"$treq2")" "$TEST_ID" "each TEST event has its own id"
wh_schema_ok "the TEST events" TestEvent "$(jq -c '[.[].body | fromjson]' <<<"$(wh_reqs /t94/ok)")"
api GET "$DLV?limit=100"
jis '[.totalCount, [.data[].id]]' "[$n_want,$ids]" "TEST events are not listed in the delivery log"

# --- retry: not found, malformed ---------------------------------------------------------
for bad in abc "Webhook:${E1#Webhook:}0" "Transaction:${E1#Webhook:}" "Webhook:12345678-1234-1234-1234-123456789abc"; do
    api POST "$DLV/$bad/retry"
    is_error 400 INVALID_REQUEST "retry of malformed id '$bad'"
    has_details webhookId "retry of '$bad': details names webhookId"
done
u=$(uuid4)
api POST "$DLV/Webhook:$u/retry"
is_error 404 NOT_FOUND "retry of an unknown Webhook:<uuid4>"
# Path ids take the prefixed form (decisions.md section 1): a bare uuid is malformed.
api POST "$DLV/$u/retry"
is_error 400 INVALID_REQUEST "retry of a bare uuid4: malformed"
has_details webhookId "retry of a bare uuid4: details names webhookId"
api POST "$DLV/$TEST_ID/retry"
is_error 404 NOT_FOUND "retry of a TEST event's id"
api POST "$DLV/$B_EV/retry"
is_error 404 NOT_FOUND "A: retry of B's event"
api POST "$DLV/${B_EV#Webhook:}/retry"
is_error 400 INVALID_REQUEST "A: retry of B's event by its bare uuid: malformed"
api "${B[@]}" POST "$DLV/$E1/retry"
is_error 404 NOT_FOUND "B (no endpoint): retry of A's event is 404"
sleep 0.5
is "$(wh_count /t94/ok)" 2 "none of that sent anything (only the 2 TEST events arrived)"

# --- retry: delivered --------------------------------------------------------------------
t0=$(now_ms)
api POST "$DLV/$E1/retry"
is_status 200 "retry of A's FAILED event (Webhook:<uuid>): 200"
item_shape "retry answer" "$BODY"
jis '{id, type, transactionId, status, attempts, lastResponseStatus, lastAttemptAt, createdAt}' \
    "$(jq -c '.status = "PENDING" | del(.nextAttemptAt)' <<<"$E1_ITEM")" "retry answer: the item, PENDING, attempts still 0"
na=$(ts_ms "$(jr .nextAttemptAt)")
ok "$([[ -n $na ]] && ((na >= t0 - 2000 && na <= $(now_ms) + 2000)) && echo 1)" "retry answer: nextAttemptAt is about now ($(jr .nextAttemptAt))"
if wh_wait_event "$E1" 10 /t94/ok; then pass "the retried event arrives (within 10 s)"; else fail "the retried event arrives (within 10 s)"; fi
r=$(wh_reqs_of "$E1" /t94/ok)
is "$(jq length <<<"$r")" 1 "the retried event arrived once"
req=$(jq -c '.[0]' <<<"$r")
if wh_verify "$req"; then pass "the retried event: the signature verifies"; else fail "the retried event: the signature verifies"; diag "    $WH_VERIFY_ERR"; fi
jok --arg ty "$(jq -r .type <<<"$E1_ITEM")" --arg tx "$(jq -r .transactionId <<<"$E1_ITEM")" \
    '.body | fromjson | keys == ["data","id","timestamp","type"] and .type == $ty and .data.transactionId == $tx
        and .data.status == "PENDING"' \
    "the retried event: {id, type, timestamp, data}, its type, data the transfer as PENDING" "$req"
n_received=$((n_received + 1))
if wh_wait_item "$E1" '.status == "DELIVERED"' 10; then pass "the log shows it DELIVERED"; else fail "the log shows it DELIVERED"; fi
jis '{status, attempts, lastResponseStatus, nextAttemptAt}' '{"status":"DELIVERED","attempts":1,"lastResponseStatus":200,"nextAttemptAt":null}' \
    "after delivery: DELIVERED, attempts 1, lastResponseStatus 200, nextAttemptAt null" "$WH_ITEM"
jok "$QJQ"' .lastAttemptAt | ts' "after delivery: lastAttemptAt set" "$WH_ITEM"
item_shape "delivered item" "$WH_ITEM"

# The bare uuid form, and a second retry of a DELIVERED event.
E2=$(jq -r '.[0]' <<<"$ids") # the newest: the transfer-out's COMPLETED
api POST "$DLV/${E2#Webhook:}/retry"
is_error 400 INVALID_REQUEST "retry of a logged event by its bare uuid: malformed, not retried"
has_details webhookId "retry by the bare uuid: details names webhookId"
# A body: the retry takes none (empty or {}); anything else is refused
# before the event is looked up, and nothing is sent.
for b in '{"now":true}' '[]' 'not json' '{}x'; do
    api POST "$DLV/$E2/retry" "$b"
    is_error 400 INVALID_REQUEST "retry with the body '$b': 400"
    has_details body "retry with the body '$b': details names body"
done
api POST "$DLV/Webhook:$(uuid4)/retry" '{"x":1}'
is_error 400 INVALID_REQUEST "retry of an unknown event with a body: 400 (the form before existence)"
api POST "$DLV/$E2/retry" '{}'
is_status 200 "retry with the body {}: 200"
jis '[.id, .status, .attempts]' "[\"$E2\",\"PENDING\",0]" "retry with {}: the item with its Webhook: id, PENDING"
if wh_wait_event "$E2" 10 /t94/ok; then pass "the event retried arrives"; else fail "the event retried arrives"; fi
n_received=$((n_received + 1))
api POST "$DLV/$E1/retry"
is_status 200 "retry of a DELIVERED event: 200"
jis '[.status, .attempts, .lastResponseStatus]' '["PENDING",1,200]' "retry of a DELIVERED event: PENDING, attempts still 1, lastResponseStatus kept"
if wh_wait_count /t94/ok 5 10; then pass "the DELIVERED event is sent again"; else fail "the DELIVERED event is sent again"; fi
r=$(wh_reqs_of "$E1" /t94/ok)
is "$(jq -c '[.[].bodyB64] | unique | length' <<<"$r")" 1 "the event's body is byte-identical on both deliveries"
wh_check_sigs "both deliveries of the event" "$r"
n_received=$((n_received + 1))
wh_wait_item "$E1" '.status == "DELIVERED" and .attempts == 2' 10
jis '{status, attempts, lastResponseStatus}' '{"status":"DELIVERED","attempts":2,"lastResponseStatus":200}' \
    "after the second delivery: DELIVERED, attempts 2 (a manual retry does not reset it)" "$WH_ITEM"
sleep 1
jis '[.[] | .body | fromjson | .id] | sort' "$(jq -cn --arg t1 "$TEST_ID" --arg t2 "$(jq -r '.body | fromjson | .id' <<<"$treq2")" \
    --arg e1 "$E1" --arg e2 "$E2" '[$t1, $t2, $e1, $e2, $e1] | sort')" \
    "the receiver got exactly the 2 TEST events and the retried ones (the other FAILED events stay unsent)" "$(wh_reqs /t94)"
wh_deliveries
jis "[.[] | select(.id != \"$E1\" and .id != \"$E2\") | .status] | unique" '["FAILED"]' "the other events: still FAILED" "$WH_ITEMS"

# B's view, again.
api "${B[@]}" GET "$DLV?limit=100"
jis '[.totalCount, ([.data[].transactionId] | unique)]' "[2,[\"$B_TX\"]]" "B's log, after A's deliveries: still its 2 events only"

# --- POST /webhooks/test: what the endpoint answers --------------------------------------------
wh_set /t94/nf '{"codes":[404],"body":"no such hook"}'
wh_endpoint "$WH_URL/t94/nf"
api POST /webhooks/test
is_status 200 "POST /webhooks/test, endpoint answers 404: 200"
jis . "{\"url\":\"$WH_URL/t94/nf\",\"responseStatus\":404,\"responseBody\":\"no such hook\"}" "endpoint answers 404: responseStatus 404 and its body"
wh_set /t94/err '{"codes":[500],"body":""}'
wh_endpoint "$WH_URL/t94/err?x=1"
api POST /webhooks/test
is_status 200 "POST /webhooks/test, endpoint answers 500 with an empty body: 200"
jis . "{\"url\":\"$WH_URL/t94/err?x=1\",\"responseStatus\":500,\"responseBody\":\"\"}" "endpoint answers 500: responseStatus 500, responseBody empty"
jis '.[0].url' '"/t94/err?x=1"' "the query string of the endpoint is kept" "$(wh_reqs /t94/err)"
big=$(printf 'x%.0s' {1..4000})$(printf 'y%.0s' {1..1200})
wh_set /t94/redir "{\"codes\":[302],\"body\":\"moved\",\"location\":\"$WH_URL/t94/target\"}"
wh_endpoint "$WH_URL/t94/redir"
api POST /webhooks/test
is_status 200 "POST /webhooks/test, endpoint answers 302: 200"
jis '[.responseStatus, .responseBody]' '[302,"moved"]' "endpoint answers 302: responseStatus 302 (the redirect is not followed)"
sleep 0.3
is "$(wh_count /t94/target)" 0 "the redirect's target got nothing"
wh_set /t94/big "$(jq -cn --arg b "$big" '{codes: [200], body: $b}')"
wh_endpoint "$WH_URL/t94/big"
api POST /webhooks/test
is_status 200 "POST /webhooks/test, endpoint answers 5200 bytes: 200"
is "$(jr .responseBody)" "${big:0:4096}" "a 5200-byte answer: responseBody is its first 4096 bytes"
wh_set /t94/bin "{\"codes\":[200],\"bodyB64\":\"$(printf 'ok\xff\xfeend' | base64 -w0)\"}"
wh_endpoint "$WH_URL/t94/bin"
api POST /webhooks/test
is_status 200 "POST /webhooks/test, endpoint answers invalid UTF-8: 200"
jis .responseBody '"ok\ufffd\ufffdend"' "invalid UTF-8 in the answer: each bad byte replaced by U+FFFD"
n_tests=$((n_tests + 5))

port=$(wh_closed_port)
if [[ -n $port ]]; then
    wh_endpoint "http://127.0.0.1:$port/hook"
    api POST /webhooks/test
    is_error 400 WEBHOOK_DELIVERY_FAILED "POST /webhooks/test to a port that refuses ($port)"
    jis .details.reason '"connection refused"' "refused: details.reason \"connection refused\""
else
    skip "no refusing port found" 5
fi

wh_set /t94/hang '{"hang":true}'
wh_endpoint "$WH_URL/t94/hang"
t0=$(now_ms)
api POST /webhooks/test '' --max-time 20
dt=$(($(now_ms) - t0))
is_error 400 WEBHOOK_DELIVERY_FAILED "POST /webhooks/test to an endpoint that never answers"
jis .details.reason '"timeout"' "never answers: details.reason \"timeout\""
ok "$((dt <= 12000))" "never answers: the call returns within 12 s (took ${dt} ms)"
ok "$((dt >= 9000))" "never answers: the attempt waited for its 10 s timeout (took ${dt} ms)"
is "$(wh_count /t94/hang)" 1 "the hanging endpoint got the TEST event"
n_tests=$((n_tests + 1))

# --- a view-only token ------------------------------------------------------------------
create_token "$(uniq_name t94-view)" '["view"]'
V=(--as "$TOK_CLIENT_ID" "$TOK_SECRET")
api "${V[@]}" GET /webhooks/signing-key
is_status 200 "view token: GET /webhooks/signing-key 200"
api "${V[@]}" GET "$DLV?limit=100"
is_status 200 "view token: GET $DLV 200"
jis '[.data[].id]' "$ids" "view token: the platform's log"
api "${V[@]}" POST /webhooks/test
is_error 403 FORBIDDEN "view token: POST /webhooks/test"
jis .details.requiredAccessLevel '"manage"' "view token: POST /webhooks/test: details.requiredAccessLevel manage"
api "${V[@]}" POST "$DLV/$E1/retry"
is_error 403 FORBIDDEN "view token: retry"
jis .details.requiredAccessLevel '"manage"' "view token: retry: details.requiredAccessLevel manage"
api "${V[@]}" POST "$DLV/abc/retry"
is_error 403 FORBIDDEN "view token: retry of a malformed id (403 first)"
api --noauth GET /webhooks/signing-key
is_error 401 UNAUTHORIZED "GET /webhooks/signing-key without credentials"
api --noauth GET "$DLV"
is_error 401 UNAUTHORIZED "GET $DLV without credentials"

note "checked $n_received business event deliveries and $n_tests TEST events at the receiver, $(wh_count) requests in all; $n_want events in A's log"
done_testing
