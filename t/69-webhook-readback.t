#!/usr/bin/env bash
# 69-webhook-readback.t - what each webhook carried, read back from the
# delivery log, against a local receiver (t/lib/webhook-receiver.mjs):
#  - GET /webhooks/deliveries/{webhookId} of every event of a platform whose
#    transactions made OUTGOING and INCOMING events of most statuses
#    (transfers out and in settled, failed and returned, a quote payout, a
#    quote to another platform's PPV address and its INCOMING event there,
#    review cases approved, rejected and left pending, a quote expired):
#    `event` equals, after JSON parsing, the body the receiver got; the
#    item as the list shows it; one attempt logged per delivery;
#  - the attempt log of one event through a 500, a refused connection, a
#    timeout and a 200, the last three asked for by retries (manual true):
#    error reasons, responseStatus, durationMs, newest first, the newest
#    `at` = lastAttemptAt; at most 20 entries after 22 attempts, the
#    oldest gone from the table too; an event never attempted: none;
#  - the list's transactionId, startDate and endDate filters, with their
#    400s, and pages of a filtered list;
#  - 400 (malformed webhookId), 404 (unknown, another platform's, a TEST
#    event's), 405, a view token allowed;
#  - xborder-worker's purge deletes an event's attempts with the event
#    (rows made old in SQL), and keeps those of events it keeps.
# Retries come from POST .../retry, so the suite does not wait on the
# retry schedule (webhook_retry_base), whatever it is.
. "$(dirname "${BASH_SOURCE[0]}")/lib/api.sh"
. "$(dirname "${BASH_SOURCE[0]}")/lib/money.sh"
. "$(dirname "${BASH_SOURCE[0]}")/lib/webhooks.sh"
no_plan

DLV=/webhooks/deliveries
SIM=/sandbox/incoming-payments/simulate
SOCK=${XB_DEV_DIR:?}/run/mysqld.sock
WLOG=$XB_DEV_DIR/log/xborder-worker.log
FULL_CP='{"senderFullLegalName":"Ada Sender","senderCountryCode":"GB","senderDateOfBirthOrRegistrationId":"1970-01-01","purposeOfPayment":"family support"}'
ATTEMPT_JQ='def attempt: type == "object" and keys == ["at","durationMs","error","manual","responseStatus"]
    and (.at | ts) and (.durationMs | type == "number" and . >= 0 and . == floor)
    and (.manual | type == "boolean")
    and ((.responseStatus | type == "number") and .error == null
        or .responseStatus == null and (.error | IN("blocked address", "connection refused", "timeout",
            "could not resolve host", "TLS failure", "no response", "invalid URL")));'

sql() {
    mariadb --no-defaults --socket="$SOCK" --user="$(id -un)" --batch --skip-column-names \
        xborder -e "$1"
}

wh_start
note "receiver on $WH_URL"

# view ID [api options]: GET /webhooks/deliveries/ID, uncounted (polling).
view() {
    local id=$1
    shift
    api --nocheck "$@" GET "$DLV/$id"
}

# wait_view ID JQ_COND SECS [api options]: polls the view until JQ_COND
# holds; BODY is the last view read.
wait_view() {
    local id=$1 cond=$2 deadline=$((SECONDS + $3))
    shift 3
    while :; do
        view "$id" "$@"
        [[ $STATUS == 200 ]] && jq -e "$cond" <<<"$BODY" >/dev/null 2>&1 && return 0
        ((SECONDS >= deadline)) && return 1
        sleep 0.2
    done
}

# view_ok NAME ID JQ_COND SECS [api options]: wait_view as one test (not in
# a subshell: BODY stays the view for the checks that follow).
view_ok() {
    local name=$1
    shift
    if wait_view "$@"; then pass "$name"; else fail "$name"; diag "    last view: $STATUS $(_tap_show "$BODY")"; fi
}

# --- platforms A (every kind of event) and B (paid by A) ------------------------------------------
wh_platform t69a
A=("${WH_P[@]}")
use_creds "$NP_CLIENT_ID" "$NP_SECRET"
wh_platform t69b
B=("${WH_P[@]}")
wh_endpoint "$WH_URL/t69/a"
wh_endpoint "$WH_URL/t69/b" "${B[@]}"

mk_customer t69-s
S=$CUST
int_account "$S" USD
S_USD=$INT
mk_ext "$S" 000691691001
S_OK=$EXT
mk_ext "$S" 000691691002
S_FAIL=$EXT
mk_ext "$S" 000691691005
S_RET=$EXT
fund "$S_USD" 1000000
mk_customer t69-rx
RX=$CUST
mk_ext "$RX" 000692692001 EUR
RX_EUR=$EXT
mk_customer t69-rb "${B[@]}"
RB_PPV=$CUST_PPV

# A quote that expires (30 s lock), made first so that it is due by the end.
set_profile 50 30
api POST /quotes "$(ppv_quote "$S_USD" "$RB_PPV" EUR RECEIVING 1000)"
is_status 201 "quote X (30 s lock): 201"
X_TX=$(jr .transactionId)
x_expires=$(jq -r "$QJQ"' .expiresAt | ms' <<<"$BODY")
set_profile 50 300

declare -A WANT=()
api POST /transfer-out "$(xfer_body "$S_USD" "$S_OK" 1000)"
is_status 201 "transfer-out to ...001: 201"
T_OUT_OK=$(jr .transactionId) WANT[$T_OUT_OK]="PENDING COMPLETED"
api POST /transfer-out "$(xfer_body "$S_USD" "$S_FAIL" 1001)"
is_status 201 "transfer-out to ...002: 201"
T_OUT_FAIL=$(jr .transactionId) WANT[$T_OUT_FAIL]="PENDING FAILED"
api POST /transfer-out "$(xfer_body "$S_USD" "$S_RET" 1002)"
is_status 201 "transfer-out to ...005: 201"
T_OUT_RET=$(jr .transactionId) WANT[$T_OUT_RET]="PENDING COMPLETED REFUNDED"
api POST /transfer-in "$(xfer_body "$S_OK" "$S_USD" 2000)"
is_status 201 "transfer-in from ...001: 201"
T_IN_OK=$(jr .transactionId) WANT[$T_IN_OK]="PENDING COMPLETED"
api POST /transfer-in "$(xfer_body "$S_FAIL" "$S_USD" 2001)"
is_status 201 "transfer-in from ...002: 201"
T_IN_FAIL=$(jr .transactionId) WANT[$T_IN_FAIL]="PENDING FAILED"
api POST /quotes "$(ext_quote "$S_USD" "$RX_EUR" RECEIVING 3000)"
is_status 201 "quote Y (a payout): 201"
Y=$(jr .quoteId) Y_TX=$(jr .transactionId) WANT[$Y_TX]="CREATED PROCESSING COMPLETED"
api POST "/quotes/$Y/execute"
is_status 200 "execute quote Y: 200"
api POST /quotes "$(ppv_quote "$S_USD" "$RB_PPV" EUR RECEIVING 5000)"
is_status 201 "quote P (to B's PPV address): 201"
P=$(jr .quoteId) P_TX=$(jr .transactionId) WANT[$P_TX]="CREATED COMPLETED"
api POST "/quotes/$P/execute"
is_status 200 "execute quote P: 200"
api POST "$SIM" "{\"receiverCustomerId\":\"$RX\",\"scenario\":\"counterparty_info_incomplete\",\"amountMinor\":1500,\"currencyCode\":\"USD\"}"
is_status 201 "review case to approve: 201"
R_OK=$(jr .transactionId) WANT[$R_OK]="PENDING COMPLETED"
api POST "$SIM" "{\"receiverCustomerId\":\"$RX\",\"scenario\":\"sanctions_hit\",\"amountMinor\":1600,\"currencyCode\":\"USD\"}"
is_status 201 "review case to reject: 201"
R_REJ=$(jr .transactionId) WANT[$R_REJ]="PENDING REJECTED"
api POST "$SIM" "{\"receiverCustomerId\":\"$RX\",\"scenario\":\"sender_kyc_not_approved\",\"amountMinor\":1700,\"currencyCode\":\"USD\"}"
is_status 201 "review case left pending: 201"
R_PEND=$(jr .transactionId) WANT[$R_PEND]="PENDING"
api POST "/transactions/$R_OK/approve" "{\"counterpartyInfo\":$FULL_CP}"
is "$STATUS $(jr .status)" "200 COMPLETED" "approve the counterparty case: 200 COMPLETED"
api POST "/transactions/$R_REJ/reject" '{"reason":"sanctioned sender"}'
is "$STATUS $(jr .status)" "200 REJECTED" "reject the sanctions case: 200 REJECTED"
for tx in "$T_OUT_OK" "$T_OUT_FAIL" "$T_OUT_RET" "$T_IN_OK" "$T_IN_FAIL" "$Y_TX"; do
    last=${WANT[$tx]##* }
    settles "$tx" "$last" "$tx settles: $last"
done

# --- one event's attempt log: 500, refused, timeout, 200 ----------------------------------------
wh_platform t69c
C=("${WH_P[@]}")
wh_set /t69/c500 '{"codes":[500]}'
wh_set /t69/hang '{"hang":true}'
wh_endpoint "$WH_URL/t69/c500" "${C[@]}"
mk_customer t69-c "${C[@]}"
api "${C[@]}" POST "$SIM" "{\"receiverCustomerId\":\"$CUST\",\"scenario\":\"sender_kyc_not_approved\",\"amountMinor\":1000,\"currencyCode\":\"USD\"}"
is_status 201 "C: a review case (one event): 201"
wh_deliveries "${C[@]}"
CE=$(jq -r '.[0].id' <<<"$WH_ITEMS")
like "$CE" "$WH_ID_RE" "C: its event in the log"
view_ok "C: the first attempt is logged" "$CE" '.attemptLog | length >= 1' 15 "${C[@]}"
jok "$QJQ $ATTEMPT_JQ"' .attemptLog[-1] | attempt and .responseStatus == 500 and .error == null and .manual == false' \
    "C: the first attempt: responseStatus 500, error null, not manual"
jok '.lastResponseStatus == 500 and .attempts == (.attemptLog | length) and .status == "PENDING"' \
    "C: lastResponseStatus 500, attempts as many as logged, PENDING"
closed=$(wh_closed_port)
wh_endpoint "http://127.0.0.1:$closed/t69" "${C[@]}"
api "${C[@]}" POST "$DLV/$CE/retry"
is_status 200 "C: retry to a closed port: 200"
view_ok "C: the retried attempt is logged as manual" "$CE" '[.attemptLog[] | select(.manual)] | length >= 1' 15 "${C[@]}"
jok "$QJQ $ATTEMPT_JQ"' first(.attemptLog[] | select(.manual)) | attempt and .responseStatus == null
        and .error == "connection refused" and .durationMs < 5000' \
    "C: refused: responseStatus null, error \"connection refused\", quick"
wh_endpoint "$WH_URL/t69/hang" "${C[@]}"
api "${C[@]}" POST "$DLV/$CE/retry"
is_status 200 "C: retry to an endpoint that never answers: 200"
view_ok "C: the second manual attempt is logged (after the 10 s timeout)" "$CE" '[.attemptLog[] | select(.manual)] | length >= 2' 25 "${C[@]}"
jok "$QJQ $ATTEMPT_JQ"' first(.attemptLog[] | select(.manual)) | attempt and .responseStatus == null
        and .error == "timeout" and .durationMs >= 9000 and .durationMs <= 13000' \
    "C: hanging endpoint: error \"timeout\", durationMs about 10,000"
wh_set /t69/cok '{"codes":[200]}'
wh_endpoint "$WH_URL/t69/cok" "${C[@]}"
api "${C[@]}" POST "$DLV/$CE/retry"
is_status 200 "C: retry to an endpoint that answers 200: 200"
view_ok "C: DELIVERED by the third manual attempt" "$CE" '.status == "DELIVERED" and ([.attemptLog[] | select(.manual)] | length >= 3)' 15 "${C[@]}"
api "${C[@]}" GET "$DLV/$CE"
is_status 200 "C: GET the event: 200"
jis '[.attemptLog[] | select(.manual) | .responseStatus // .error]' '[200,"timeout","connection refused"]' \
    "C: the manual attempts, newest first: 200, timeout, connection refused"
jok "$QJQ $ATTEMPT_JQ"' all(.attemptLog[]; attempt)' "C: every entry {at, responseStatus, error, durationMs, manual}"
jok "$QJQ"' [.attemptLog[].at | ms] as $t | $t == ($t | sort | reverse)' "C: newest first (at never increases)"
jok '.attemptLog[0].at == .lastAttemptAt' "C: the newest at = lastAttemptAt"
jok '.attempts == (.attemptLog | length) or (.attempts > 20 and (.attemptLog | length) == 20)' \
    "C: attemptLog holds every attempt (at most 20)"
jok '.attempts > 20 or (.attemptLog[-1] | .responseStatus == 500 and .manual == false)' \
    "C: the oldest entry is still the first attempt's 500"
jis '[.status, .lastResponseStatus]' '["DELIVERED",200]' "C: DELIVERED, lastResponseStatus 200"
jok '[.attemptLog[] | select(.error != null) | .error] - ["connection refused","timeout"] == []' \
    "C: the errors of the scheduled attempts are those of the endpoints they met"

# --- at most 20: 22 attempts ---------------------------------------------------------------------
wh_platform t69d
D=("${WH_P[@]}")
wh_endpoint "$WH_URL/t69/d" "${D[@]}"
mk_customer t69-d "${D[@]}"
api "${D[@]}" POST "$SIM" "{\"receiverCustomerId\":\"$CUST\",\"scenario\":\"sanctions_hit\",\"amountMinor\":1000,\"currencyCode\":\"USD\"}"
is_status 201 "D: a review case (one event): 201"
wh_wait_delivered 15 "${D[@]}"
DE=$(jq -r '.[0].id' <<<"$WH_ITEMS")
retried=0
for ((i = 2; i <= 22; i++)); do
    api --nocheck "${D[@]}" POST "$DLV/$DE/retry"
    [[ $STATUS == 200 ]] || break
    wait_view "$DE" ".attempts >= $i and .status == \"DELIVERED\"" 10 "${D[@]}" || break
    retried=$((retried + 1))
done
is "$retried" 21 "D: 21 retries, each attempted and DELIVERED"
api "${D[@]}" GET "$DLV/$DE"
is_status 200 "D: GET the event: 200"
jis '[.attempts, (.attemptLog | length)]' '[22,20]' "D: attempts 22, attemptLog the last 20"
jok "$QJQ $ATTEMPT_JQ"' all(.attemptLog[]; attempt and .manual and .responseStatus == 200)' \
    "D: the 20 shown are the manual ones (the first, scheduled one is no longer shown)"
jok "$QJQ"' [.attemptLog[].at | ms] as $t | $t == ($t | sort | reverse) and .attemptLog[0].at == .lastAttemptAt' \
    "D: newest first, the newest at = lastAttemptAt"
is "$(sql "SELECT COUNT(*), MIN(n), MAX(n) FROM webhook_attempts WHERE event_id = '${DE#Webhook:}'")" "$(printf '20\t3\t22')" \
    "D: webhook_attempts keeps the event's last 20 rows (attempts 3 to 22)"

# --- an event never attempted --------------------------------------------------------------------
wh_platform t69e
E=("${WH_P[@]}")
mk_customer t69-e "${E[@]}"
api "${E[@]}" POST "$SIM" "{\"receiverCustomerId\":\"$CUST\",\"scenario\":\"sanctions_hit\",\"amountMinor\":1000,\"currencyCode\":\"USD\"}"
is_status 201 "E (no endpoint): a review case: 201"
TX_E=$(jr .transactionId)
wh_deliveries "${E[@]}"
EE=$(jq -r '.[0].id' <<<"$WH_ITEMS")
api "${E[@]}" GET "$DLV/$EE"
is_status 200 "E: GET its event: 200"
jok '.status == "FAILED" and .attempts == 0 and .attemptLog == [] and .lastAttemptAt == null' \
    "E: FAILED, attempts 0, attemptLog []"
jok --arg t "$TX_E" '.event.type == "INCOMING_PAYMENT.PENDING" and .event.data.transactionId == $t and .event.id == .id' \
    "E: event is the body it would send"

# --- the expiring quote, then every event delivered -------------------------------------------
note "quote X expires in $(((x_expires - $(date +%s%3N)) / 1000)) s"
if wait_status "$X_TX" EXPIRED 45; then pass "quote X: EXPIRED"; else fail "quote X: EXPIRED"; fi
WANT[$X_TX]="CREATED EXPIRED"
# Every status above has its event in A's log, and each is delivered.
want_n=0
for tx in "${!WANT[@]}"; do
    want_n=$((want_n + $(wc -w <<<"${WANT[$tx]}")))
done
ok "$(wait_for "wh_deliveries && (( \$(jq '[.[] | select(.status == \"DELIVERED\")] | length' <<<\"\$WH_ITEMS\") >= $want_n ))" 30 && echo 1)" \
    "A's log: at least $want_n events, all DELIVERED"
wh_wait_delivered 10
A_ITEMS=$WH_ITEMS
jis '[.[].status] | unique' '["DELIVERED"]' "A's log: every event DELIVERED" "$A_ITEMS"
jok --arg t "OUTGOING_PAYMENT.CREATED OUTGOING_PAYMENT.PENDING OUTGOING_PAYMENT.PROCESSING OUTGOING_PAYMENT.COMPLETED OUTGOING_PAYMENT.FAILED OUTGOING_PAYMENT.REFUNDED OUTGOING_PAYMENT.EXPIRED INCOMING_PAYMENT.PENDING INCOMING_PAYMENT.COMPLETED INCOMING_PAYMENT.FAILED INCOMING_PAYMENT.REJECTED" \
    '($t | split(" ")) - [.[].type] == []' "A's log has events of 11 types, OUTGOING and INCOMING" "$A_ITEMS"

# --- every event of A read back: what the receiver got -----------------------------------------
A_REQS=$(wh_reqs /t69/a)
n=0 bad_event=() bad_item=() bad_log=() bad_same=()
while IFS= read -r item; do
    id=$(jq -r .id <<<"$item")
    reqs=$(jq -c --arg id "$id" '[.[] | select((.body | fromjson | .id) == $id)]' <<<"$A_REQS")
    api GET "$DLV/$id"
    [[ $STATUS == 200 ]] || { bad_item+=("$id: $STATUS"); continue; }
    n=$((n + 1))
    got=$(jq -cS .event <<<"$BODY")
    sent=$(jq -cS '.[0].body | fromjson' <<<"$reqs")
    [[ -n $got && $got == "$sent" ]] || bad_event+=("$id")
    [[ $(jq -c '[.[].bodyB64] | unique | length' <<<"$reqs") == 1 ]] || bad_same+=("$id")
    [[ $(jq -cS 'del(.event, .attemptLog)' <<<"$BODY") == $(jq -cS . <<<"$item") ]] || bad_item+=("$id")
    jq -e --argjson n "$(jq length <<<"$reqs")" "$QJQ $ATTEMPT_JQ"' .lastAttemptAt as $last
        | .attemptLog | length == $n and all(.[]; attempt and .responseStatus == 200 and .manual == false)
        and .[0].at == $last' <<<"$BODY" >/dev/null 2>&1 || bad_log+=("$id")
done < <(jq -c '.[]' <<<"$A_ITEMS")
is "$n" "$(jq length <<<"$A_ITEMS")" "GET $DLV/{webhookId} of each of A's $n events: 200"
is "${bad_event[*]}" "" "every event's \`event\` equals the body the receiver got (parsed)"
is "${bad_same[*]}" "" "every event reached the receiver with one body, however often sent"
is "${bad_item[*]}" "" "every view is the list's item plus event and attemptLog"
is "${bad_log[*]}" "" "every view's attemptLog: one 200 per delivery, not manual, the newest at = lastAttemptAt"
jis '[.[] | select(.transactionId == "'"$T_OUT_RET"'") | .type] | sort' \
    '["OUTGOING_PAYMENT.COMPLETED","OUTGOING_PAYMENT.PENDING","OUTGOING_PAYMENT.REFUNDED"]' \
    "transfer-out ...005: PENDING, COMPLETED and REFUNDED events" "$A_ITEMS"

# One view in full: its exact keys and the event's transaction as GET shows it now.
ev=$(jq -r --arg t "$T_OUT_RET" 'first(.[] | select(.transactionId == $t and .type == "OUTGOING_PAYMENT.REFUNDED")) | .id' <<<"$A_ITEMS")
api GET "$DLV/$ev"
is_status 200 "GET the REFUNDED event: 200"
jis 'keys' '["attemptLog","attempts","createdAt","event","id","lastAttemptAt","lastResponseStatus","nextAttemptAt","status","transactionId","type"]' \
    "the view's keys: the item's, event and attemptLog"
jis '.event | keys' '["data","id","timestamp","type"]' "event: id, type, timestamp, data"
jok '.event.id == .id and .event.type == .type and .event.data.transactionId == .transactionId' \
    "event: the item's id, type and transaction"
VIEW=$BODY
api GET "/transactions/$T_OUT_RET"
jis . "$(jq -c .event.data <<<"$VIEW")" "event.data of the last event is the transaction as GET shows it"

# B's INCOMING event of quote P.
wh_wait_delivered 15 "${B[@]}"
B_ITEMS=$WH_ITEMS
B_EV=$(jq -r 'first(.[] | select(.type == "INCOMING_PAYMENT.COMPLETED")) | .id // empty' <<<"$B_ITEMS")
like "$B_EV" "$WH_ID_RE" "B's log: an INCOMING_PAYMENT.COMPLETED event"
api "${B[@]}" GET "$DLV/$B_EV"
is_status 200 "B: GET its INCOMING event: 200"
jis .event "$(jq -r --arg id "$B_EV" 'first(.[] | select((.body | fromjson | .id) == $id)) | .body' <<<"$(wh_reqs /t69/b)")" \
    "B: the INCOMING event equals the body B's receiver got"

# --- views refused ------------------------------------------------------------------------------
for bad in abc "${ev#Webhook:}" "Webhook:not-a-uuid" "Transaction:${ev#Webhook:}" "webhook:${ev#Webhook:}" \
    "Webhook:$(uuid4 | sed 's/^\(.\{14\}\)4/\13/')"; do
    api GET "$DLV/$bad"
    is_error 400 INVALID_REQUEST "GET $DLV/$bad"
    has_details webhookId
done
api GET "$DLV/Webhook:$(uuid4)"
is_error 404 NOT_FOUND "GET an unknown Webhook:<uuid>"
api GET "$DLV/$B_EV"
is_error 404 NOT_FOUND "A: GET B's event"
api "${B[@]}" GET "$DLV/$ev"
is_error 404 NOT_FOUND "B: GET A's event"
api POST /webhooks/test
is_status 200 "POST /webhooks/test: 200"
wh_wait_count /t69/a $(($(jq length <<<"$A_REQS") + 1)) 5
TEST_ID=$(jq -r '[.[] | .body | fromjson | select(.type == "TEST") | .id] | last' <<<"$(wh_reqs /t69/a)")
like "$TEST_ID" "$WH_ID_RE" "the receiver got the TEST event"
api GET "$DLV/$TEST_ID"
is_error 404 NOT_FOUND "GET the TEST event's id"
api POST "$DLV/$ev"
is_error 405 METHOD_NOT_ALLOWED "POST $DLV/{webhookId}"
is_header Allow GET
create_token t69-view '["view"]'
api --as "$TOK_CLIENT_ID" "$TOK_SECRET" GET "$DLV/$ev"
is_status 200 "a view token reads the event"
jis . "$VIEW" "... the same view"

# --- the list's filters -------------------------------------------------------------------------
api GET "$DLV?transactionId=$T_OUT_RET"
is_status 200 "transactionId filter: 200"
jis '[.totalCount, (.data | length), ([.data[].transactionId] | unique), .hasMore, .nextCursor]' \
    "[3,3,[\"$T_OUT_RET\"],false,null]" "transactionId filter: exactly the transaction's 3 events"
jis '.data' "$(jq -c --arg t "$T_OUT_RET" '[.[] | select(.transactionId == $t)]' <<<"$A_ITEMS")" \
    "transactionId filter: the same items, in the log's order"
walk_pages "transactionId filter, limit 1" "$DLV?transactionId=$T_OUT_RET" 1 1 \
    "$(jq -c --arg t "$T_OUT_RET" '[.[] | select(.transactionId == $t) | .id]' <<<"$A_ITEMS")"
api GET "$DLV?transactionId=$T_OUT_RET&type=OUTGOING_PAYMENT.REFUNDED&status=DELIVERED"
jis '[.totalCount, .data[0].id]' "[1,\"$ev\"]" "transactionId with type and status: the REFUNDED event"
api GET "$DLV?transactionId=$T_OUT_RET&status=PENDING"
jis '[.totalCount, .data]' '[0,[]]' "transactionId with status PENDING: none"
nothing='{"data":[],"hasMore":false,"nextCursor":null,"totalCount":0}'
long=$(printf 'x%.0s' $(seq 128))
for v in "Transaction:$(uuid4)" "${T_OUT_RET#Transaction:}" "$(jq -r '.[0].transactionId' <<<"$B_ITEMS")" \
    "an%20opaque%20id" "$long" "%7E%21"; do
    api GET "$DLV?transactionId=$v"
    is_status 200 "transactionId=${v:0:48}: 200"
    jis . "$nothing" "transactionId=${v:0:48}: matches nothing"
done
for v in "" "${long}x" "%C3%A9" "%01" "a%7Fb"; do
    api GET "$DLV?transactionId=$v"
    is_error 400 INVALID_REQUEST "transactionId=${v:0:20}... (empty, 129 bytes or not printable ASCII)"
    has_details transactionId
done
api GET "$DLV?transactionId=$T_OUT_RET&transactionId=$T_OUT_RET"
is_error 400 INVALID_REQUEST "transactionId given twice"
has_details transactionId

# Dates: inclusive bounds on createdAt.
total=$(jq length <<<"$A_ITEMS")
c0=$(jq -r '.[-1].createdAt' <<<"$A_ITEMS")  # the oldest
c1=$(jq -r '.[0].createdAt' <<<"$A_ITEMS")   # the newest
api GET "$DLV?startDate=$c0&endDate=$c1&limit=100"
jis .totalCount "$total" "startDate = the oldest createdAt, endDate = the newest: every event (inclusive)"
api GET "$DLV?startDate=$c1&limit=100"
jok --arg c "$c1" '.totalCount >= 1 and all(.data[]; .createdAt == $c)' "startDate = the newest createdAt: the newest event(s) only"
api GET "$DLV?endDate=$c0&limit=100"
jok --arg c "$c0" '.totalCount >= 1 and all(.data[]; .createdAt == $c)' "endDate = the oldest createdAt: the oldest event(s) only"
today=${c1:0:10}
api GET "$DLV?startDate=$today&endDate=$today&limit=100"
jis .totalCount "$total" "startDate = endDate = today (a bare date): the whole day"
api GET "$DLV?startDate=2099-01-01"
jis . "$nothing" "startDate in the future: nothing"
api GET "$DLV?endDate=2020-01-01T00:00:00Z"
jis . "$nothing" "endDate in the past: nothing"
api GET "$DLV?transactionId=$T_OUT_RET&endDate=$c0"
jok --arg c "$c0" --arg t "$T_OUT_RET" '.totalCount == ([.data[] | select(.createdAt <= $c and .transactionId == $t)] | length)' \
    "transactionId with endDate: both apply"
for q in "startDate=2026-13-01" "startDate=" "startDate=yesterday" "endDate=2026-02-30" "endDate=2026-01-01T25:00:00Z" \
    "endDate=2026-01-01T00:00:00"; do
    api GET "$DLV?$q"
    is_error 400 INVALID_REQUEST "$q"
    has_details "${q%%=*}"
done
api GET "$DLV?startDate=2026-01-01&startDate=2026-01-02"
is_error 400 INVALID_REQUEST "startDate given twice"

# --- the purge takes an event's attempts with it --------------------------------------------------
new_platform t69p || BAIL_OUT "platform-create failed"
PP=$NP_ID P_AS=(--as "$NP_CLIENT_ID" "$NP_SECRET")
old_event() { # id status age_days attempts
    sql "INSERT INTO webhook_events (id, platform_id, transaction_id, type, payload, status,
           attempts, next_attempt_at, created_at)
         VALUES ('$1', '$PP', UUID(), 't69.$2.$3', '{}', '$2', $4,
           IF('$2' = 'PENDING', UTC_TIMESTAMP(3) + INTERVAL 1 DAY, NULL),
           UTC_TIMESTAMP(3) - INTERVAL $3 DAY)"
    for ((k = 1; k <= $4; k++)); do
        sql "INSERT INTO webhook_attempts (event_id, n, platform_id, started_at, response_status, error,
               duration_ms, manual)
             VALUES ('$1', $k, '$PP', UTC_TIMESTAMP(3) - INTERVAL $3 DAY + INTERVAL $k MINUTE, 500, 0, 12, 0)"
    done
}
OLD1=$(uuid4) OLD2=$(uuid4) KEEP1=$(uuid4) KEEP2=$(uuid4)
old_event "$OLD1" DELIVERED 31 3
old_event "$OLD2" FAILED 40 2
old_event "$KEEP1" PENDING 31 2
old_event "$KEEP2" FAILED 29 1
is "$(sql "SELECT COUNT(*) FROM webhook_attempts WHERE platform_id = '$PP'")" 8 "P: 8 attempts of 4 events made in SQL"
lines0=$(wc -l <"$WLOG")
dev worker stop
dev worker start
ok "$(wait_for "[[ \$(sql \"SELECT COUNT(*) FROM webhook_events WHERE platform_id = '$PP'\") == 2 ]]" 30 && echo 1)" \
    "P: the finished events older than 30 days are gone"
is "$(sql "SELECT COUNT(*) FROM webhook_attempts WHERE event_id IN ('$OLD1', '$OLD2')")" 0 \
    "P: and their attempts with them"
is "$(sql "SELECT event_id, COUNT(*) FROM webhook_attempts WHERE platform_id = '$PP' GROUP BY event_id ORDER BY COUNT(*)")" \
    "$(printf '%s\t1\n%s\t2' "$KEEP2" "$KEEP1")" "P: the kept events keep their attempts"
wait_log "$WLOG" "$lines0" 'msg="purged ' 1 10 || diag "    no purge line within 10 s"
api "${P_AS[@]}" GET "$DLV/Webhook:$OLD1"
is_error 404 NOT_FOUND "P: GET a purged event"

done_testing
