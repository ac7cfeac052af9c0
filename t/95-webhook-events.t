#!/usr/bin/env bash
# 95-webhook-events.t - the events a platform's transactions send to its
# webhook endpoint, received by a local receiver (t/lib/webhook-receiver.mjs)
# on two platforms of their own (A, and B which A's customer pays):
#  - transfer-out: PENDING then COMPLETED (...001), FAILED (...002),
#    COMPLETED then REFUNDED (...005); transfer-in: INCOMING PENDING then
#    COMPLETED (...001) or FAILED (...002);
#  - quotes: CREATED at creation, PROCESSING then COMPLETED on execution (a
#    payment to B's PPV address, a payout to an external account), EXPIRED
#    when a 30 s quote runs out; B gets INCOMING_PAYMENT events for its own
#    incoming transaction of the PPV payment;
#  - the review lane: INCOMING PENDING, then COMPLETED on approve or
#    REJECTED on reject.
# For every event: a valid Ed25519 signature under its own platform's key
# (A's or B's), the body's exact keys and the
# OpenAPI PaymentEvent schema, type = <OUTGOING|INCOMING>_PAYMENT.<data.status>,
# data.transactionId the transaction, timestamp = data.updatedAt, one event
# per change, the statuses in order, the last event's data = GET
# /transactions/{id}; each platform gets only its own.  Then the worked
# verification example of xborder-api(7), run on one real delivery.
. "$(dirname "${BASH_SOURCE[0]}")/lib/api.sh"
. "$(dirname "${BASH_SOURCE[0]}")/lib/money.sh"
. "$(dirname "${BASH_SOURCE[0]}")/lib/webhooks.sh"
no_plan

FULL_CP='{"senderFullLegalName":"Ada Sender","senderCountryCode":"GB","senderDateOfBirthOrRegistrationId":"1970-01-01","purposeOfPayment":"family support"}'
n_events=0 n_requests=0

wh_start
note "receiver on $WH_URL"
wh_platform t95a
use_creds "$NP_CLIENT_ID" "$NP_SECRET"
wh_platform t95b
B=("${WH_P[@]}")
wh_endpoint "$WH_URL/t95/a"
wh_endpoint "$WH_URL/t95/b" "${B[@]}"
# Each platform signs with its own key: B's, then A's (WH_KEY_FILE, wh_verify's default).
wh_key_save b "${B[@]}" || BAIL_OUT "B: GET /webhooks/signing-key: $STATUS $BODY"
B_KEY_FILE=$WH_KEY_SAVED
wh_key || BAIL_OUT "GET /webhooks/signing-key: $STATUS $BODY"

declare -A WANT=() KIND=() WHO=() # per transaction: expected statuses, OUTGOING|INCOMING, A|B
A_TXS=() B_TXS=()

# expect TX KIND "STATUS..." [B]: the transaction's events, in order.
expect() {
    WANT[$1]=$3 KIND[$1]=$2 WHO[$1]=${4:-A}
    if [[ ${4:-A} == B ]]; then B_TXS+=("$1"); else A_TXS+=("$1"); fi
}

# tx_events TX PATH [REQS]: the distinct events (first receipt of each id)
# about TX received under PATH (or in REQS), as a JSON array sorted by
# timestamp.
tx_events() {
    jq -c --arg tx "$1" '[.[] | (.body | try fromjson catch null) as $b | select($b != null and $b.data.transactionId? == $tx)
        | $b + {_keys: ($b | keys)}] | unique_by(.id) | sort_by(.timestamp)' <<<"${3:-$(wh_reqs "$2")}"
}

# wait_tx TX PATH "STATUS..." SECS: until an event of each status arrived.
wait_tx() {
    local deadline=$((SECONDS + $4)) want
    want=$(jq -cn --arg s "$3" '$s | split(" ") | map(select(. != ""))')
    while :; do
        jq -e --argjson w "$want" '[.[].data.status] as $g | $w - $g == []' <<<"$(tx_events "$1" "$2")" >/dev/null && return 0
        ((SECONDS >= deadline)) && return 1
        sleep 0.2
    done
}

# check_tx WHAT TX PATH [api options]: every check on the events of TX,
# against WANT[TX] and KIND[TX].
check_tx() {
    local what=$1 tx=$2 path=$3 evs reqs want n all
    shift 3
    want=$(jq -cn --arg s "${WANT[$tx]}" '$s | split(" ") | map(select(. != ""))')
    all=$(wh_reqs "$path")
    evs=$(tx_events "$tx" "$path" "$all")
    n=$(jq length <<<"$evs")
    reqs=$(jq -c --arg tx "$tx" '[.[] | select((.body | try fromjson catch null | .data.transactionId?) == $tx)]' <<<"$all")
    n_events=$((n_events + n))
    n_requests=$((n_requests + $(jq length <<<"$reqs")))
    jis '[.[].data.status] | sort' "$(jq -c sort <<<"$want")" "$what: one event for each of ${WANT[$tx]}, no other" "$evs"
    if [[ $path == /t95/b ]]; then
        wh_check_sigs "$what: every delivery (under B's key)" "$reqs" "$B_KEY_FILE"
    else
        wh_check_sigs "$what: every delivery" "$reqs"
    fi
    jok 'all(.[]; .method == "POST" and (.headers["content-type"] | test("^application/json")))' \
        "$what: every delivery a POST with Content-Type application/json" "$reqs"
    jok --arg k "${KIND[$tx]}" --arg tx "$tx" "$QJQ"' all(.[]; ._keys == ["data","id","timestamp","type"]
            and (.id | id("Webhook")) and .type == ($k + "_PAYMENT." + .data.status)
            and .data.transactionId == $tx and .data.type == $k and (.timestamp | ts) and .timestamp == .data.updatedAt)' \
        "$what: each {id Webhook:<uuid4>, type ${KIND[$tx]}_PAYMENT.<data.status>, timestamp = data.updatedAt, data the transaction}" "$evs"
    wjok --argjson w "$want" "$QJQ"' . as $e | [$w[] as $s | $e[] | select(.data.status == $s) | .timestamp | ms] as $t
            | ($t | length) == ($w | length) and $t == ($t | sort)' \
        "$what: the statuses in order (${WANT[$tx]}): timestamps never decrease" "$evs"
    api "$@" GET "/transactions/$tx"
    is_status 200 "$what: GET /transactions/{id} 200"
    jis "last(.[] | select(.data.status == $(jq -c '.[-1]' <<<"$want"))) | .data" "$BODY" \
        "$what: the last event's data is the transaction as GET shows it" "$evs"
    if [[ $(jq -r '.[0].data | has("reviewReason")' <<<"$evs") != true ]]; then
        jok '[.[].data | del(.status, .updatedAt, .settledAt)] | unique | length == 1' \
            "$what: apart from status, updatedAt and settledAt, every event's data is the same transaction" "$evs"
    fi
}

# --- accounts -------------------------------------------------------------------------
mk_customer t95-s
S=$CUST
int_account "$S" USD
S_USD=$INT
mk_ext "$S" 000951951001
S_OK=$EXT
mk_ext "$S" 000951951002
S_FAIL=$EXT
mk_ext "$S" 000951951005
S_RET=$EXT
fund "$S_USD" 1000000
mk_customer t95-rx
RX=$CUST RX_PPV=$CUST_PPV
mk_ext "$RX" 000952952001 EUR
RX_EUR=$EXT
mk_customer t95-rb "${B[@]}"
RB=$CUST RB_PPV=$CUST_PPV

# --- a quote that will expire (30 s lock), made first -------------------------------------
set_profile 50 30
api POST /quotes "$(ppv_quote "$S_USD" "$RB_PPV" EUR RECEIVING 1000)"
is_status 201 "quote X (30 s lock): 201"
X=$(jr .quoteId) X_TX=$(jr .transactionId)
x_expires=$(jq -r "$QJQ"' .expiresAt | ms' <<<"$BODY")
expect "$X_TX" OUTGOING "CREATED EXPIRED"
set_profile 50 300

# --- transfers ---------------------------------------------------------------------------
api POST /transfer-out "$(xfer_body "$S_USD" "$S_OK" 1000)"
is_status 201 "transfer-out to ...001: 201"
T_OUT_OK=$(jr .transactionId)
expect "$T_OUT_OK" OUTGOING "PENDING COMPLETED"
api POST /transfer-out "$(xfer_body "$S_USD" "$S_FAIL" 1001)"
is_status 201 "transfer-out to ...002: 201"
T_OUT_FAIL=$(jr .transactionId)
expect "$T_OUT_FAIL" OUTGOING "PENDING FAILED"
api POST /transfer-out "$(xfer_body "$S_USD" "$S_RET" 1002)"
is_status 201 "transfer-out to ...005: 201"
T_OUT_RET=$(jr .transactionId)
expect "$T_OUT_RET" OUTGOING "PENDING COMPLETED REFUNDED"
api POST /transfer-in "$(xfer_body "$S_OK" "$S_USD" 2000)"
is_status 201 "transfer-in from ...001: 201"
T_IN_OK=$(jr .transactionId)
expect "$T_IN_OK" INCOMING "PENDING COMPLETED"
api POST /transfer-in "$(xfer_body "$S_FAIL" "$S_USD" 2001)"
is_status 201 "transfer-in from ...002: 201"
T_IN_FAIL=$(jr .transactionId)
expect "$T_IN_FAIL" INCOMING "PENDING FAILED"

# --- quotes executed --------------------------------------------------------------------
api POST /quotes "$(ppv_quote "$S_USD" "$RB_PPV" EUR RECEIVING 5000)"
is_status 201 "quote P (to B's PPV address): 201"
P=$(jr .quoteId) P_TX=$(jr .transactionId)
api POST "/quotes/$P/execute"
is_status 200 "execute quote P: 200"
jis .status '"COMPLETED"' "quote P: COMPLETED at once"
expect "$P_TX" OUTGOING "CREATED COMPLETED" # PROCESSING too, see below
api "${B[@]}" GET "/transactions?customerId=$RB&type=INCOMING"
is_status 200 "B: GET its customer's INCOMING transactions: 200"
jis '.data | length' 1 "B: one INCOMING transaction, from quote P"
B_IN=$(jr '.data[0].transactionId')

api POST /quotes "$(ext_quote "$S_USD" "$RX_EUR" RECEIVING 3000)"
is_status 201 "quote Y (a payout to an external account ...001): 201"
Y=$(jr .quoteId) Y_TX=$(jr .transactionId)
api POST "/quotes/$Y/execute"
is_status 200 "execute quote Y: 200"
jis .status '"PROCESSING"' "quote Y: PROCESSING"
expect "$Y_TX" OUTGOING "CREATED PROCESSING COMPLETED"

# --- the review lane ---------------------------------------------------------------------
SIM=/sandbox/incoming-payments/simulate
api POST "$SIM" "{\"receiverCustomerId\":\"$RX\",\"scenario\":\"counterparty_info_incomplete\",\"amountMinor\":1500,\"currencyCode\":\"USD\"}"
is_status 201 "review case to approve: 201"
R_OK=$(jr .transactionId)
api POST "$SIM" "{\"receiverCustomerId\":\"$RX\",\"scenario\":\"sanctions_hit\",\"amountMinor\":1600,\"currencyCode\":\"USD\"}"
is_status 201 "review case to reject: 201"
R_REJ=$(jr .transactionId)
api POST "$SIM" "{\"receiverCustomerId\":\"$RX\",\"scenario\":\"sender_kyc_not_approved\",\"amountMinor\":1700,\"currencyCode\":\"USD\"}"
is_status 201 "review case left pending: 201"
R_PEND=$(jr .transactionId)
expect "$R_PEND" INCOMING "PENDING"
# Decide once the PENDING events are in (they are checked for order below anyway).
wait_tx "$R_OK" /t95/a PENDING 10
api POST "/transactions/$R_OK/approve" "{\"counterpartyInfo\":$FULL_CP}"
is "$STATUS $(jr .status)" "200 COMPLETED" "approve the counterparty_info_incomplete case: 200 COMPLETED"
expect "$R_OK" INCOMING "PENDING COMPLETED"
api POST "/transactions/$R_REJ/reject" '{"reason":"sanctioned sender"}'
is "$STATUS $(jr .status)" "200 REJECTED" "reject the sanctions_hit case: 200 REJECTED"
expect "$R_REJ" INCOMING "PENDING REJECTED"

# --- every event arrives --------------------------------------------------------------------
# A PPV payment is COMPLETED within its execution: a PROCESSING event on
# the way is optional (the contract names PROCESSING then COMPLETED for
# execution; the transaction is never seen PROCESSING).
wait_tx "$P_TX" /t95/a "CREATED COMPLETED" 20
p_seen=$(jq -r '[.[].data.status] | join(" ")' <<<"$(tx_events "$P_TX" /t95/a)")
like "$p_seen" '^CREATED (PROCESSING )?COMPLETED$' "quote P (PPV): events CREATED, [PROCESSING,] COMPLETED ($p_seen)"
[[ $p_seen == *PROCESSING* ]] && WANT[$P_TX]="CREATED PROCESSING COMPLETED"
note "quote P (PPV) sent: $p_seen"
for tx in "${A_TXS[@]}"; do
    [[ $tx == "$X_TX" || $tx == "$P_TX" ]] && continue
    if wait_tx "$tx" /t95/a "${WANT[$tx]}" 20; then
        pass "A: events ${WANT[$tx]} of $tx arrived"
    else
        fail "A: events ${WANT[$tx]} of $tx arrived"
        diag "    got: $(jq -c '[.[] | .data.status]' <<<"$(tx_events "$tx" /t95/a)")"
    fi
done
wait_tx "$X_TX" /t95/a CREATED 10
if wait_tx "$B_IN" /t95/b COMPLETED 10; then pass "B: the INCOMING COMPLETED event of its transaction arrived"; else fail "B: the INCOMING COMPLETED event of its transaction arrived"; fi
sleep 1 # let stray or duplicate events show

check_tx "transfer-out ...001" "$T_OUT_OK" /t95/a
check_tx "transfer-out ...002" "$T_OUT_FAIL" /t95/a
check_tx "transfer-out ...005" "$T_OUT_RET" /t95/a
check_tx "transfer-in ...001" "$T_IN_OK" /t95/a
check_tx "transfer-in ...002" "$T_IN_FAIL" /t95/a
check_tx "quote P to B's PPV address" "$P_TX" /t95/a
check_tx "quote Y, a payout" "$Y_TX" /t95/a
check_tx "review case approved" "$R_OK" /t95/a
check_tx "review case rejected" "$R_REJ" /t95/a
check_tx "review case pending" "$R_PEND" /t95/a

# B's INCOMING transaction: whichever of its statuses were written, in order, ending COMPLETED.
b_seen=$(jq -r '[.[].data.status] | join(" ")' <<<"$(tx_events "$B_IN" /t95/b)")
like "$b_seen" '^(CREATED )?(PENDING )?(PROCESSING )?COMPLETED$' "B's INCOMING transaction: statuses in order ending COMPLETED ($b_seen)"
expect "$B_IN" INCOMING "$b_seen" B
check_tx "B's INCOMING transaction of quote P" "$B_IN" /t95/b "${B[@]}"

# --- the expiring quote ------------------------------------------------------------------------
wait_ms=$((x_expires - $(date +%s%3N) + 300))
if ((wait_ms > 0)); then
    note "waiting $((wait_ms / 1000)).$((wait_ms % 1000 / 100)) s for quote X to expire"
    sleep "$((wait_ms / 1000)).$(printf '%03d' $((wait_ms % 1000)))"
fi
api GET "/quotes/$X"
jis .status '"EXPIRED"' "quote X: EXPIRED"
if wait_tx "$X_TX" /t95/a "CREATED EXPIRED" 10; then pass "quote X: the EXPIRED event arrives"; else fail "quote X: the EXPIRED event arrives"; fi
check_tx "quote X, expired" "$X_TX" /t95/a

wh_schema_ok "every event A and B received" PaymentEvent "$(jq -c '[.[].body | fromjson]' <<<"$(wh_reqs /t95)")"

# --- each platform only its own -------------------------------------------------------------
a_set=$(printf '%s\n' "${A_TXS[@]}" | jq -R . | jq -cs 'sort')
b_set=$(printf '%s\n' "${B_TXS[@]}" | jq -R . | jq -cs 'sort')
jis '[.[] | .body | fromjson | .data.transactionId] | unique' "$a_set" "A's endpoint got events of exactly A's transactions" "$(wh_reqs /t95/a)"
jis '[.[] | .body | fromjson | .data.transactionId] | unique' "$b_set" "B's endpoint got events of exactly B's transaction" "$(wh_reqs /t95/b)"
# The last events arrived; the worker records each answer after it.
wh_wait_delivered 10
jis '[.[] | .status] | unique' '["DELIVERED"]' "A's delivery log: every event DELIVERED" "$WH_ITEMS"
jis 'length' "$(jq -s '[.[] | select(.path == "/t95/a") | .body | fromjson | .id] | unique | length' "$WH_LOG")" \
    "A's delivery log: as many events as A's endpoint received" "$WH_ITEMS"

# --- the worked verification example of xborder-api(7) ----------------------------------------
MAN=${XB_ROOT:-$XB_REPO}/man/xborder-api.7
script=$WH_DIR/verify-example.sh
if [[ -r $MAN ]] && grep -q '^\.\\" verify-example-begin' "$MAN"; then
    awk '/^\.\\" verify-example-begin/ {on = 1; next} /^\.\\" verify-example-end/ {on = 0} on' "$MAN" |
        grep -v -e '^\.Bd' -e '^\.Ed' |
        perl -pe 's/\\(e|\(aq|&)/$1 eq "e" ? "\\" : $1 eq "(aq" ? "\x27" : ""/ge' >"$script"
    ok "$([[ -s $script ]] && echo 1)" "xborder-api(7): the worked example extracted ($(wc -l <"$script") lines)"
    # A fresh delivery (its t must be recent): a TEST event does not do; retry a real one.
    wh_item "$(jq -r '.body | fromjson | .id' <<<"$(jq -c '.[0]' <<<"$(wh_reqs /t95/a)")")"
    ev=$(jq -r .id <<<"$WH_ITEM")
    c0=$(jq length <<<"$(wh_reqs_of "$ev" /t95/a)")
    api POST "/webhooks/deliveries/$ev/retry"
    is_status 200 "retry $ev for a fresh delivery: 200"
    wh_wait_more "$ev" "$c0" 10 /t95/a
    req=$(jq -c '.[-1]' <<<"$(wh_reqs_of "$ev" /t95/a)")
    is "$(jq length <<<"$(wh_reqs_of "$ev" /t95/a)")" $((c0 + 1)) "the retried event arrived again"
    d=$WH_DIR/man-example
    mkdir -p "$d"
    jq -r .bodyB64 <<<"$req" | base64 -d >"$d/body.json"
    cp "$WH_KEY_FILE" "$d/signing-key.pem"
    sig=$(jq -r '.headers["x-xborder-signature"]' <<<"$req")
    out=$(cd "$d" && XB_SIGNATURE=$sig bash "$script" 2>&1)
    rc=$?
    is "$rc" 0 "the worked example on a real delivery: exit 0"
    like "$out" 'Signature Verified Successfully' "the worked example on a real delivery: prints Signature Verified Successfully"
    ((rc == 0)) || diag "    output: $out"
    # Tampered: one byte of the body changed.
    d2=$WH_DIR/man-example-tampered
    mkdir -p "$d2"
    sed 's/"type"/"typE"/' "$d/body.json" >"$d2/body.json"
    cp "$WH_KEY_FILE" "$d2/signing-key.pem"
    cmp -s "$d/body.json" "$d2/body.json" && diag "    the tampered body is not different"
    out=$(cd "$d2" && XB_SIGNATURE=$sig bash "$script" 2>&1)
    rc=$?
    isnt "$rc" 0 "the worked example on a tampered body: non-zero exit"
    unlike "$out" 'Signature Verified Successfully' "the worked example on a tampered body: does not print Signature Verified Successfully"
    # The signature of another delivery (another t) with this body.
    other=$(jq -r --arg ev "$ev" 'first(.[] | select((.body | fromjson | .id) != $ev)) | .headers["x-xborder-signature"]' <<<"$(wh_reqs /t95/a)")
    out=$(cd "$d" && XB_SIGNATURE=$other bash "$script" 2>&1)
    isnt "$?" 0 "the worked example with another event's signature header: non-zero exit"
else
    # TODO: the worked example is being written (man/xborder-api.7, verify-example-begin/end).
    skip "TODO: man/xborder-api.7 has no verify-example-begin block yet" 1
fi

note "checked $n_events events ($n_requests deliveries) of ${#A_TXS[@]} transactions of A and ${#B_TXS[@]} of B"
done_testing
