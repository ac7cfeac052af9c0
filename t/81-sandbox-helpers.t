#!/usr/bin/env bash
# 81-sandbox-helpers.t - the sandbox's state helpers, POST
# /sandbox/transactions/{transactionId}/complete|fail|return|expire
# (decisions.md section 14), and suffix 003 that holds a payment in flight.
#
# On two platforms of their own (A sends, B receives PPV quotes), for every
# kind of transaction (transfer-in, transfer-out, quote payout, PPV quote,
# the receiver's side of a PPV quote, review case):
#  - every move a helper makes, each answered 200 with the Transaction as
#    GET then shows it, with exactly one new webhook event whose `data` is
#    that GET, and the balances moved to the minor unit (the sender, the
#    PPV receiver on B, the review receiver, both platforms' fee accounts);
#  - at every status reached, every helper that does not move it: 409
#    INVALID_TRANSITION with details {status, allowedFrom} from the
#    helpers' table, no event, no money moved;
#  - 003 transfers and payouts get no settlement job and stay in flight;
#  - `return` of a payout that completed normally (by the worker, or by
#    `complete`) and of one the bank was going to return (005, with the
#    worker stopped): the money comes back from where it is; the worker's
#    jobs then find those transactions moved and log so;
#  - X-Platform-Id, a view token (403), another platform's id (404),
#    unknown and malformed ids, a body (400, nothing happens), `{}`,
#    Idempotency-Key replay and reuse, 20 parallel helpers on one
#    transaction (one 200, nineteen 409, one event);
#  - at the end nothing is left in transit on either platform, every
#    posting sums to zero and xborderctl ledger-check passes.
. "$(dirname "${BASH_SOURCE[0]}")/lib/api.sh"
. "$(dirname "${BASH_SOURCE[0]}")/lib/money.sh"
. "$(dirname "${BASH_SOURCE[0]}")/lib/stack.sh"
no_plan

SBX=/sandbox/transactions
SIM=/sandbox/incoming-payments/simulate
WLOG=$XB_DEV_DIR/log/xborder-worker.log

# The helpers' table: FROM[class:helper] is the status the helper moves a
# transaction of that class from (none: it moves none).
declare -A FROM=(
    [tin:complete]=PENDING [tin:fail]=PENDING
    [tout:complete]=PENDING [tout:fail]=PENDING [tout:return]=COMPLETED
    [qpay:complete]=PROCESSING [qpay:fail]=PROCESSING [qpay:return]=COMPLETED
    [qpay:expire]=CREATED
    [ppv:expire]=CREATED
    [rev:expire]=PENDING
)

# --- helpers ------------------------------------------------------------------------

# evcount TXID: how many webhook events the transaction has.
evcount() {
    sql "SELECT COUNT(*) FROM webhook_events WHERE transaction_id = '${1#Transaction:}'"
}

# last_event TXID: the transaction's newest event as compact sorted JSON
# (read as hex, so that no byte is escaped on the way).
last_event() {
    sql "SELECT HEX(payload) FROM webhook_events WHERE transaction_id = '${1#Transaction:}'
         ORDER BY seq DESC LIMIT 1" | perl -ne 'chomp; print pack("H*", $_)' | jq -cS .
}

# jobs_of TXID [KIND]: how many jobs name the transaction.
jobs_of() {
    sql "SELECT COUNT(*) FROM jobs WHERE ref_id = '${1#Transaction:}'${2:+ AND kind = '$2'}"
}

# bals: B is "S V FEE_A R FEE_B": the USD balances of the sender, the
# review receiver, platform A's own account, the PPV receiver on B and B's
# own account (bails out when one cannot be read).
bals() {
    local vals=()
    balance_of "$S_USD"
    vals+=("$BAL")
    balance_of "$V_USD"
    vals+=("$BAL")
    fee_balance USD
    vals+=("$FEE")
    balance_of "$R_USD" "${BB[@]}"
    vals+=("$BAL")
    fee_balance USD "${BB[@]}"
    vals+=("$FEE")
    B="${vals[*]}"
    [[ $B =~ ^-?[0-9]+( -?[0-9]+){4}$ ]] || BAIL_OUT "cannot read the balances: '$B'"
}

# moved WHAT BEFORE DS DV DFA DR DFB: since the snapshot BEFORE (bals), the
# five balances moved by exactly these amounts (1 test).
moved() {
    local what=$1 b
    read -ra b <<<"$2"
    bals
    is "$B" "$((b[0] + $3)) $((b[1] + $4)) $((b[2] + $5)) $((b[3] + $6)) $((b[4] + $7))" \
        "$what: sender $3, review receiver $4, fees A $5, PPV receiver $6, fees B $7"
}

# helper_ok WHAT HELPER TXID STATUS [--as ID SECRET]: the helper answers 200
# with STATUS; the answer is the Transaction as GET then shows it; the
# transaction has exactly one new event, of that status, whose data is
# that GET.  Sets SETTLED to the answer's settledAt.
helper_ok() {
    local what=$1 h=$2 tx=$3 want=$4 n0 got ev
    shift 4
    n0=$(evcount "$tx")
    api "$@" POST "$SBX/$tx/$h"
    is "$STATUS $(jr .status)" "200 $want" "$what: $h answers 200 $want"
    got=$(jq -cS . <<<"$BODY")
    SETTLED=$(jr .settledAt)
    api "$@" GET "/transactions/$tx"
    is "$(jq -cS . <<<"$BODY")" "$got" "$what: the answer is the Transaction as GET then shows it"
    is "$(evcount "$tx")" "$((n0 + 1))" "$what: exactly one new webhook event"
    ev=$(last_event "$tx")
    is "$(jq -r .type <<<"$ev")" "$(jr .type)_PAYMENT.$want" "$what: the event is $(jr .type)_PAYMENT.$want"
    is "$(jq -cS .data <<<"$ev")" "$got" "$what: the event's data equals the GET"
}

# refusals WHAT TXID CLASS STATUS [--as ID SECRET]: every helper that does
# not move a CLASS transaction from STATUS answers 409 INVALID_TRANSITION
# with details {status, allowedFrom}; none writes an event or moves money,
# and the transaction is still in STATUS.
refusals() {
    local what=$1 tx=$2 cls=$3 st=$4 h from allowed n0 b0
    shift 4
    n0=$(evcount "$tx")
    bals
    b0=$B
    for h in complete fail return expire; do
        from=${FROM[$cls:$h]:-}
        [[ $from == "$st" ]] && continue
        allowed='[]'
        [[ -n $from ]] && allowed="[\"$from\"]"
        api "$@" POST "$SBX/$tx/$h"
        is_error 409 INVALID_TRANSITION "$what: $h from $st"
        jis .details "{\"status\":\"$st\",\"allowedFrom\":$allowed}" \
            "$what: $h from $st: details {status $st, allowedFrom $allowed}"
    done
    is "$(evcount "$tx")" "$n0" "$what: the refusals wrote no event"
    moved "$what: the refusals moved no money" "$b0" 0 0 0 0 0
    api "$@" GET "/transactions/$tx"
    jis .status "\"$st\"" "$what: still $st"
}

# settle_on TXID REGEX WHAT: waits (15 s at most) for the status (1 test).
settle_on() {
    if wait_status "$1" "$2" 15; then
        pass "$3: reaches $2 (seen: ${SEEN[*]})"
    else
        fail "$3: reaches $2 (seen: ${SEEN[*]})"
        diag "    last answer: $STATUS $(_tap_show "$BODY")"
    fi
}

# xfer WHAT DIR FROM TO AMOUNT: POST /transfer-DIR, 201 PENDING (1 test).  Sets TX.
xfer() {
    api POST "/transfer-$2" "$(xfer_body "$3" "$4" "$5")"
    is "$STATUS $(jr .status)" "201 PENDING" "$1: transfer-$2 of $5: 201 PENDING"
    TX=$(jr .transactionId)
}

# held WHAT TXID: no settlement job was queued for the transaction (1 test).
held() {
    is "$(jobs_of "$1")" 0 "$2: no settlement job: held until a helper moves it"
}

# new_quote WHAT BODY [--as ...]: POST /quotes, 201 (1 test).  Sets QID,
# QTX, QS (sending amount), QR (receiving amount), QF (fees).
new_quote() {
    local what=$1 body=$2
    shift 2
    api "$@" POST /quotes "$body"
    is_status 201 "$what: POST /quotes 201"
    QID=$(jr .quoteId) QTX=$(jr .transactionId)
    QS=$(jr .sendingAmount.amountMinor) QR=$(jr .receivingAmount.amountMinor) QF=$(jr .feesTotal.amountMinor)
}

# execute WHAT STATUS: POST /quotes/QID/execute answers 200 with STATUS (1 test).
execute() {
    api POST "/quotes/$QID/execute"
    is "$STATUS $(jr .status)" "200 $2" "$1: execute answers 200 $2"
}

# fee_split S F FS_BPS: FA, FB: the sending platform's share of fees F of
# a quote of sending amount S (min(F, ceil(P * Fs / 10000)), P = S - F)
# and the receiving platform's.
fee_split() {
    local p=$(($1 - $2))
    FA=$(((p * $3 + 9999) / 10000))
    ((FA > $2)) && FA=$2
    FB=$(($2 - FA))
}

# --- two platforms, their customers and accounts -------------------------------------------
fx_prices USD=10000000
new_platform t81b || BAIL_OUT "platform-create failed"
BB=(--as "$NP_CLIENT_ID" "$NP_SECRET")
B_ID=$NP_ID
new_platform t81a || BAIL_OUT "platform-create failed"
A_ID=$NP_ID A_CID=$NP_CLIENT_ID A_SECRET=$NP_SECRET
use_creds "$A_CID" "$A_SECRET"
pass "platforms A and B created with xborderctl"
set_profile 10 900
set_fees 80 20
set_profile 10 900 "${BB[@]}"
set_fees 30 15 "${BB[@]}"

mk_customer t81-s
S=$CUST
int_account "$S" USD
S_USD=$INT
mk_ext "$S" 000818181003
S_HOLD=$EXT
mk_ext "$S" 000818181001
S_OK=$EXT
mk_ext "$S" 000818181005
S_RET=$EXT
fund "$S_USD" 1000000
mk_customer t81-v
V=$CUST
int_account "$V" USD
V_USD=$INT
mk_customer t81-r "${BB[@]}"
R=$CUST R_PPV=$CUST_PPV
int_account "$R" USD "${BB[@]}"
R_USD=$INT

# --- transfer-in --------------------------------------------------------------------------
bals
b0=$B
xfer "transfer-in from ...003" in "$S_HOLD" "$S_USD" 2000
tin=$TX
held "$tin" "transfer-in from ...003"
refusals "transfer-in PENDING" "$tin" tin PENDING
helper_ok "transfer-in PENDING -> COMPLETED" complete "$tin" COMPLETED
like "$SETTLED" "$TS_RE" "transfer-in completed: settledAt set"
moved "transfer-in completed: the amount credited" "$b0" 2000 0 0 0 0
refusals "transfer-in COMPLETED" "$tin" tin COMPLETED

bals
b0=$B
xfer "transfer-in from ...003 to fail" in "$S_HOLD" "$S_USD" 700
tin2=$TX
held "$tin2" "transfer-in to fail"
helper_ok "transfer-in PENDING -> FAILED" fail "$tin2" FAILED
is "$SETTLED" null "transfer-in failed: settledAt null"
moved "transfer-in failed: nothing credited" "$b0" 0 0 0 0 0
refusals "transfer-in FAILED" "$tin2" tin FAILED

# --- transfer-out -------------------------------------------------------------------------
bals
b0=$B
xfer "transfer-out to ...003" out "$S_USD" "$S_HOLD" 3000
tout=$TX
held "$tout" "transfer-out to ...003"
moved "transfer-out made: the amount left the balance" "$b0" -3000 0 0 0 0
refusals "transfer-out PENDING" "$tout" tout PENDING
helper_ok "transfer-out PENDING -> COMPLETED" complete "$tout" COMPLETED
like "$SETTLED" "$TS_RE" "transfer-out completed: settledAt set"
settled=$SETTLED
moved "transfer-out completed: the amount is gone" "$b0" -3000 0 0 0 0
refusals "transfer-out COMPLETED" "$tout" tout COMPLETED
helper_ok "transfer-out COMPLETED -> REFUNDED" return "$tout" REFUNDED
is "$SETTLED" "$settled" "transfer-out returned: settledAt kept"
moved "transfer-out returned: the whole amount back" "$b0" 0 0 0 0 0
refusals "transfer-out REFUNDED" "$tout" tout REFUNDED

bals
b0=$B
xfer "transfer-out to ...003 to fail" out "$S_USD" "$S_HOLD" 800
tout2=$TX
helper_ok "transfer-out PENDING -> FAILED" fail "$tout2" FAILED
moved "transfer-out failed: the whole amount back" "$b0" 0 0 0 0 0
refusals "transfer-out FAILED" "$tout2" tout FAILED

# A payout the worker completed normally, then returned by the helper.
bals
b0=$B
xfer "transfer-out to ...001" out "$S_USD" "$S_OK" 1500
tout3=$TX
settle_on "$tout3" 'COMPLETED|FAILED' "transfer-out to ...001 settled by the worker"
settled=$(jr .settledAt)
moved "transfer-out settled by the worker: the amount is gone" "$b0" -1500 0 0 0 0
helper_ok "worker-completed transfer-out -> REFUNDED" return "$tout3" REFUNDED
is "$SETTLED" "$settled" "worker-completed transfer-out returned: settledAt kept"
moved "worker-completed transfer-out returned: the whole amount back" "$b0" 0 0 0 0 0

# --- quote payouts (to the sender's own external account: A receives too) --------------------
bals
b0=$B
new_quote "payout to ...003" "$(ext_quote "$S_USD" "$S_HOLD" SENDING 6000)"
qp=$QTX
refusals "payout quote CREATED" "$qp" qpay CREATED
execute "payout to ...003" PROCESSING
held "$qp" "payout to ...003"
moved "payout executed: sender -S, platform A +fees" "$b0" "-$QS" 0 "$QF" 0 0
refusals "payout PROCESSING" "$qp" qpay PROCESSING
helper_ok "payout PROCESSING -> COMPLETED" complete "$qp" COMPLETED
settled=$SETTLED
like "$settled" "$TS_RE" "payout completed: settledAt set"
moved "payout completed: sender -S, platform A +fees" "$b0" "-$QS" 0 "$QF" 0 0
refusals "payout COMPLETED" "$qp" qpay COMPLETED
helper_ok "payout COMPLETED -> REFUNDED" return "$qp" REFUNDED
is "$SETTLED" "$settled" "payout returned: settledAt kept"
moved "payout returned: the whole S back, fees reversed" "$b0" 0 0 0 0 0
refusals "payout REFUNDED" "$qp" qpay REFUNDED

bals
b0=$B
new_quote "payout to ...003 to fail" "$(ext_quote "$S_USD" "$S_HOLD" SENDING 6100)"
qp2=$QTX
execute "payout to fail" PROCESSING
helper_ok "payout PROCESSING -> FAILED" fail "$qp2" FAILED
moved "payout failed: the whole S back, fees reversed" "$b0" 0 0 0 0 0
refusals "payout FAILED" "$qp2" qpay FAILED

bals
b0=$B
new_quote "payout quote to expire" "$(ext_quote "$S_USD" "$S_HOLD" SENDING 6200)"
qp3=$QTX qp3q=$QID
helper_ok "payout quote CREATED -> EXPIRED" expire "$qp3" EXPIRED
api GET "/quotes/$qp3q"
jis .status '"EXPIRED"' "expired payout quote: the quote is EXPIRED"
api POST "/quotes/$qp3q/execute"
is_error 409 QUOTE_EXPIRED "execute the expired payout quote"
moved "payout quote expired: nothing moved" "$b0" 0 0 0 0 0
refusals "payout quote EXPIRED" "$qp3" qpay EXPIRED

bals
b0=$B
new_quote "payout to ...001" "$(ext_quote "$S_USD" "$S_OK" SENDING 6300)"
qp4=$QTX
execute "payout to ...001" PROCESSING
settle_on "$qp4" 'COMPLETED|FAILED' "payout to ...001 settled by the worker"
settled=$(jr .settledAt)
moved "payout settled by the worker: sender -S, platform A +fees" "$b0" "-$QS" 0 "$QF" 0 0
helper_ok "worker-completed payout -> REFUNDED" return "$qp4" REFUNDED
is "$SETTLED" "$settled" "worker-completed payout returned: settledAt kept"
moved "worker-completed payout returned: the whole S back, fees reversed" "$b0" 0 0 0 0 0

# --- quotes to a PPV address (A's sender to B's customer) --------------------------------------
bals
b0=$B
new_quote "PPV quote to expire" "$(ppv_quote "$S_USD" "$R_PPV" USD SENDING 5000)"
pq=$QTX pqq=$QID
refusals "PPV quote CREATED" "$pq" ppv CREATED
helper_ok "PPV quote CREATED -> EXPIRED" expire "$pq" EXPIRED
api GET "/quotes/$pqq"
jis .status '"EXPIRED"' "expired PPV quote: the quote is EXPIRED"
moved "PPV quote expired: nothing moved" "$b0" 0 0 0 0 0
refusals "PPV quote EXPIRED" "$pq" ppv EXPIRED

bals
b0=$B
new_quote "PPV quote executed" "$(ppv_quote "$S_USD" "$R_PPV" USD SENDING 5100)"
pq2=$QTX
execute "PPV quote" COMPLETED
fee_split "$QS" "$QF" 80
moved "PPV quote executed: sender -S, receiver +R, both platforms' fee shares" "$b0" "-$QS" 0 "$FA" "$QR" "$FB"
refusals "PPV quote COMPLETED" "$pq2" ppv COMPLETED
api "${BB[@]}" GET "/transactions?customerId=$R&type=INCOMING"
jis '.data | length' 1 "the PPV receiver has one INCOMING transaction"
qin=$(jr '.data[0].transactionId')
refusals "the receiver's QUOTE_IN (platform B)" "$qin" qin COMPLETED "${BB[@]}"

# A BLOCKED quote's transaction expires too.
mk_customer t81-k
K=$CUST
int_account "$K" USD
K_USD=$INT
api PATCH "/customers/$K" '{"kycStatus":"PENDING"}'
is_status 200 "customer K: kycStatus PENDING"
bals
b0=$B
new_quote "BLOCKED PPV quote" "$(ppv_quote "$K_USD" "$R_PPV" USD SENDING 5200)"
jis .status '"BLOCKED"' "K's quote is BLOCKED"
helper_ok "BLOCKED quote CREATED -> EXPIRED" expire "$QTX" EXPIRED
api GET "/quotes/$QID"
jis .status '"EXPIRED"' "the BLOCKED quote is EXPIRED"
moved "BLOCKED quote expired: nothing moved" "$b0" 0 0 0 0 0

# --- review cases -------------------------------------------------------------------------
bals
b0=$B
api POST "$SIM" "{\"receiverCustomerId\":\"$V\",\"scenario\":\"counterparty_info_incomplete\",\"amountMinor\":4321,\"currencyCode\":\"USD\"}"
is_status 201 "review case for V: 201"
rc_tx=$(jr .transactionId)
refusals "review case PENDING" "$rc_tx" rev PENDING
helper_ok "review case PENDING -> EXPIRED" expire "$rc_tx" EXPIRED
tx_shape "expired review case" in
is "$(jq -c '[keys[] | select(test("^(reviewReason|decisionMode|recommendedAction|actionAvailabilityHints|missingRequiredFields|thresholdPolicyNote)$"))]' <<<"$BODY")" '[]' \
    "expired review case: the review fields are gone"
moved "review case expired: nothing credited" "$b0" 0 0 0 0 0
refusals "review case EXPIRED" "$rc_tx" rev EXPIRED
api POST "/transactions/$rc_tx/approve" '{}'
is_error 409 TRANSACTION_NOT_PENDING "approve the expired case"

# --- past their expiry, not yet marked: they count as EXPIRED ------------------------------------
# A quote and a review case whose time has passed (moved into the past in
# the database, their jobs and sweeps not run yet): a helper expires them
# as any reader would, and is refused with status EXPIRED.
bals
b0=$B
new_quote "payout quote past its expiry" "$(ext_quote "$S_USD" "$S_HOLD" SENDING 6500)"
lq=$QTX lqq=$QID
is "$(sql "UPDATE quotes q JOIN transactions x ON x.id = q.transaction_id
     SET q.expires_at = UTC_TIMESTAMP(3) - INTERVAL 1 SECOND,
         x.quote_expires_at = UTC_TIMESTAMP(3) - INTERVAL 1 SECOND
     WHERE q.platform_id = '$A_ID' AND q.id = '${lqq#Quote:}'; SELECT ROW_COUNT()")" 2 \
    "the quote's expiry moved into the past"
api POST "$SBX/$lq/expire"
is_error 409 INVALID_TRANSITION "expire a quote past its expiry"
jis .details '{"status":"EXPIRED","allowedFrom":["CREATED"]}' "... details {status EXPIRED, allowedFrom [CREATED]}"
api GET "/quotes/$lqq"
jis .status '"EXPIRED"' "the quote past its expiry is EXPIRED"
is "$(sql "SELECT GROUP_CONCAT(type ORDER BY seq SEPARATOR ' ') FROM webhook_events
           WHERE transaction_id = '${lq#Transaction:}'")" \
    "OUTGOING_PAYMENT.CREATED OUTGOING_PAYMENT.EXPIRED" "the lapsed quote: one EXPIRED event"
api POST "/sandbox/incoming-payments/simulate" "{\"receiverCustomerId\":\"$V\",\"scenario\":\"sanctions_hit\",\"amountMinor\":4400,\"currencyCode\":\"USD\"}"
is_status 201 "a second review case for V: 201"
lc=$(jr .transactionId)
is "$(sql "UPDATE transactions SET review_expires_at = UTC_TIMESTAMP(3) - INTERVAL 1 SECOND
           WHERE platform_id = '$A_ID' AND id = '${lc#Transaction:}'; SELECT ROW_COUNT()")" 1 \
    "the case's window moved into the past"
api POST "$SBX/$lc/complete"
is_error 409 INVALID_TRANSITION "complete a case past its window"
jis .details '{"status":"EXPIRED","allowedFrom":[]}' "... details {status EXPIRED, allowedFrom []}"
api GET "/transactions/$lc"
jis .status '"EXPIRED"' "the case past its window is EXPIRED"
is "$(sql "SELECT GROUP_CONCAT(type ORDER BY seq SEPARATOR ' ') FROM webhook_events
           WHERE transaction_id = '${lc#Transaction:}'")" \
    "INCOMING_PAYMENT.PENDING INCOMING_PAYMENT.EXPIRED" "the lapsed case: one EXPIRED event"
moved "lapsed quote and case: nothing moved" "$b0" 0 0 0 0 0

# --- 005: payouts the bank was going to return, with the worker stopped -------------------------
worker_stop || BAIL_OUT "cannot stop xborder-worker"
wlines=$(wc -l <"$WLOG" 2>/dev/null || echo 0)
bals
b0=$B
xfer "transfer-out to ...005" out "$S_USD" "$S_RET" 900
t5=$TX
is "$(jobs_of "$t5" settle)" 1 "transfer-out to ...005: a settlement job queued"
helper_ok "005 transfer-out PENDING -> COMPLETED" complete "$t5" COMPLETED
is "$(jobs_of "$t5" refund)" 1 "005 transfer-out completed: the bank's refund job queued, as its settlement"
moved "005 transfer-out completed: the amount is gone" "$b0" -900 0 0 0 0
helper_ok "005 transfer-out COMPLETED -> REFUNDED" return "$t5" REFUNDED
moved "005 transfer-out returned: the whole amount back" "$b0" 0 0 0 0 0
bals
b0=$B
new_quote "payout to ...005" "$(ext_quote "$S_USD" "$S_RET" SENDING 6400)"
q5=$QTX
execute "payout to ...005" PROCESSING
helper_ok "005 payout PROCESSING -> COMPLETED" complete "$q5" COMPLETED
is "$(jobs_of "$q5" refund)" 1 "005 payout completed: the bank's refund job queued"
helper_ok "005 payout COMPLETED -> REFUNDED" return "$q5" REFUNDED
moved "005 payout returned: the whole S back, fees reversed" "$b0" 0 0 0 0 0
worker_start || BAIL_OUT "cannot start xborder-worker"
# jobs_left: the jobs of both 005 payouts not run yet.
jobs_left() {
    sql "SELECT COUNT(*) FROM jobs WHERE ref_id IN ('${t5#Transaction:}', '${q5#Transaction:}')
         AND done_at IS NULL"
}
if wait_for '(( $(jobs_left) == 0 ))' 20; then
    pass "the worker ran the jobs of both 005 payouts"
else
    fail "the worker ran the jobs of both 005 payouts ($(jobs_left) left)"
fi
for t in "$t5" "$q5"; do
    log=$(tail -n +"$((wlines + 1))" "$WLOG" | grep -F "${t#Transaction:}" | grep -c 'already moved, found REFUNDED')
    ok "$((log >= 2))" "the worker's settle and refund jobs of $t found it REFUNDED and logged it ($log lines)"
    api GET "/transactions/$t"
    jis .status '"REFUNDED"' "$t: still REFUNDED after the worker's jobs"
    is "$(sql "SELECT GROUP_CONCAT(JSON_VALUE(payload, '\$.data.status') ORDER BY seq SEPARATOR ' ')
               FROM webhook_events WHERE transaction_id = '${t#Transaction:}'")" \
        "$( [[ $t == "$t5" ]] && echo 'PENDING COMPLETED REFUNDED' || echo 'CREATED PROCESSING COMPLETED REFUNDED')" \
        "$t: one event per status it held"
done

# --- ids, credentials, platforms, bodies ----------------------------------------------------
xfer "transfer-out to ...003 for the request checks" out "$S_USD" "$S_HOLD" 400
tc=$TX
api POST "$SBX/Transaction:$(uuid4)/complete"
is_error 404 TRANSACTION_NOT_FOUND "an unknown Transaction id"
api POST "$SBX/no-such-thing/fail"
is_error 404 TRANSACTION_NOT_FOUND "an opaque id that is not ours"
api POST "$SBX/$(printf 'x%.0s' {1..129})/fail"
is_error 400 INVALID_REQUEST "a 129-byte transactionId"
has_details transactionId
api "${BB[@]}" POST "$SBX/$tc/complete"
is_error 404 TRANSACTION_NOT_FOUND "platform B on A's transaction"
create_token "$(uniq_name t81-view)" '["view"]'
api --as "$TOK_CLIENT_ID" "$TOK_SECRET" POST "$SBX/$tc/complete"
is_error 403 FORBIDDEN "a view token"
jis .details.requiredAccessLevel '"manage"' "a view token: requiredAccessLevel manage"
api POST "$SBX/$tc/complete" '' -H "X-Platform-Id: $(uuid4)"
is_error 403 FORBIDDEN "X-Platform-Id of another platform"
api POST "$SBX/$tc/complete" '' -H "X-Platform-Id: not-a-uuid"
is_error 400 INVALID_REQUEST "a malformed X-Platform-Id"
api POST "$SBX/$tc/complete" '{"reason":"x"}'
is_error 400 INVALID_REQUEST "a body"
has_details body
api POST "$SBX/$tc/complete" '{'
is_error 400 INVALID_REQUEST "malformed JSON"
api GET "/transactions/$tc"
jis .status '"PENDING"' "after the refusals the transfer-out is still PENDING"
is "$(evcount "$tc")" 1 "after the refusals it has its one event"
helper_ok "transfer-out of the request checks PENDING -> COMPLETED" complete "$tc" COMPLETED
api POST "$SBX/$tc/return" '{}' -H "X-Platform-Id: $A_ID"
is "$STATUS $(jr .status)" "200 REFUNDED" "return with {} and X-Platform-Id: 200 REFUNDED"

# Idempotency-Key: replayed, and refused for another request.
xfer "transfer-out to ...003 with Idempotency-Key" out "$S_USD" "$S_HOLD" 450
ti=$TX
key=$(uniq_name t81-key)
api POST "$SBX/$ti/complete" '' -H "Idempotency-Key: $key"
is "$STATUS $(jr .status)" "200 COMPLETED" "complete with a new Idempotency-Key: 200 COMPLETED"
isnt "$(header Idempotent-Replayed)" true "the first answer is not marked replayed"
first=$(jq -cS . <<<"$BODY")
api POST "$SBX/$ti/complete" '' -H "Idempotency-Key: $key"
is_status 200 "complete again with the key: 200"
is_header Idempotent-Replayed true "the second answer is replayed"
is "$(jq -cS . <<<"$BODY")" "$first" "the replay is the first answer"
api POST "$SBX/$ti/fail" '' -H "Idempotency-Key: $key"
is_error 409 IDEMPOTENCY_KEY_REUSED "the key with another helper"
is "$(evcount "$ti")" 2 "the key's transfer-out has two events (PENDING, COMPLETED)"
helper_ok "keyed transfer-out returned" return "$ti" REFUNDED

# --- 20 helpers at once on one transaction ---------------------------------------------------
bals
b0=$B
xfer "transfer-out to ...003 for 20 helpers" out "$S_USD" "$S_HOLD" 1234
tp=$TX
par=$_API_TMP/par
mkdir -p "$par"
for i in $(seq 1 20); do
    h=complete
    ((i % 2)) && h=fail
    curl -sk -u "$A_CID:$A_SECRET" -X POST -o "$par/$i.body" -w '%{http_code}' \
        "$XB_BASE_URL$SBX/$tp/$h" >"$par/$i.code" 2>/dev/null &
done
wait
codes=$(for f in "$par"/*.code; do cat "$f"; echo; done | sort | uniq -c | awk '{print $2 "x" $1}' | paste -sd' ')
is "$codes" "200x1 409x19" "20 parallel helpers: one 200, nineteen 409"
is "$(cat "$par"/*.body | jq -r 'select(.status == 409) | .code' | sort -u)" INVALID_TRANSITION \
    "the nineteen are INVALID_TRANSITION"
api GET "/transactions/$tp"
final=$(jr .status)
like "$final" '^(COMPLETED|FAILED)$' "the transaction ended $final"
is "$(sql "SELECT GROUP_CONCAT(JSON_VALUE(payload, '\$.data.status') ORDER BY seq SEPARATOR ' ')
           FROM webhook_events WHERE transaction_id = '${tp#Transaction:}'")" "PENDING $final" \
    "one event for the winner's move"
if [[ $final == COMPLETED ]]; then
    moved "20 helpers, completed: the amount is gone" "$b0" -1234 0 0 0 0
    helper_ok "after the 20, returned" return "$tp" REFUNDED
else
    moved "20 helpers, failed: the amount back" "$b0" 0 0 0 0 0
fi

# --- the ledger ------------------------------------------------------------------------------
is "$(sql "SELECT CONCAT(platform_id, ' ', SUM(balance)) FROM internal_accounts
           WHERE platform_id IN ('$A_ID', '$B_ID') AND kind = 'IN_TRANSIT'
           GROUP BY platform_id HAVING SUM(balance) <> 0")" "" \
    "nothing left in transit on either platform"
is "$(sql "SELECT posting_id FROM ledger_entries WHERE platform_id IN ('$A_ID', '$B_ID')
           GROUP BY posting_id, currency HAVING SUM(amount) <> 0")" "" \
    "every posting of both platforms sums to zero per currency"
out=$(xbctl ledger-check 2>&1)
is "$?" 0 "xborderctl ledger-check exits 0"
like "$out" 'ledger ok' "xborderctl ledger-check: ledger ok"

done_testing
