#!/usr/bin/env bash
# 83-lifecycle.t - every one of the 15 moves of the transaction lifecycle
# (DESIGN.md, "Transactions: one lifecycle"; src/txn_moves.c), each driven
# through the public API and xborder-worker on a platform of its own:
#   transfer-in   PENDING -> COMPLETED (...001), PENDING -> FAILED (...002)
#   transfer-out  PENDING -> COMPLETED (...001), PENDING -> FAILED (...002),
#                 COMPLETED -> REFUNDED (...005, after PENDING -> COMPLETED)
#   PPV quote     CREATED -> COMPLETED (execute), CREATED -> EXPIRED
#   quote payout  CREATED -> PROCESSING (execute), CREATED -> EXPIRED,
#                 PROCESSING -> COMPLETED (...001), PROCESSING -> FAILED
#                 (...002), COMPLETED -> REFUNDED (...005)
#   review case   PENDING -> COMPLETED (approve), PENDING -> REJECTED
#                 (reject), PENDING -> EXPIRED (window and job made due)
# and the receiver's side of the executed PPV quote (QUOTE_IN), created
# COMPLETED.  For each transaction: its final status by GET
# /transactions/{id}, settledAt set exactly when COMPLETED or REFUNDED;
# its webhook_events (SQL, in seq order) exactly one per status it held, in
# order, each payload's data.status its type's status; the balances seen
# through the API (sender, receivers, the platform's own fee account)
# moved exactly as src/txn_postings.c says.  At the end every posting of
# the platform sums to zero per currency and xborderctl ledger-check
# passes.  Expiry is made due in the database (quotes.expires_at with
# transactions.quote_expires_at; transactions.review_expires_at with the
# case's review_expire job), then waited for with a bound.
. "$(dirname "${BASH_SOURCE[0]}")/lib/api.sh"
. "$(dirname "${BASH_SOURCE[0]}")/lib/money.sh"
. "$(dirname "${BASH_SOURCE[0]}")/lib/stack.sh"
no_plan

SIM=/sandbox/incoming-payments/simulate
FULL_CP='{"senderFullLegalName":"Ada Sender","senderCountryCode":"GB","senderDateOfBirthOrRegistrationId":"1970-01-01","purposeOfPayment":"family support"}'

# --- helpers ------------------------------------------------------------------------

# events TXID: the transaction's webhook events, oldest first, one line
# each: type, payload's data.status, data.transactionId, platform_id.
events() {
    sql "SELECT type, JSON_VALUE(payload, '\$.data.status'), JSON_VALUE(payload, '\$.data.transactionId'), platform_id
         FROM webhook_events WHERE transaction_id = '${1#Transaction:}' ORDER BY seq"
}

# lifecycle WHAT TXID 'STATUS...': the transaction ended in the last
# STATUS, settledAt set exactly when COMPLETED or REFUNDED, and its events
# are exactly one per STATUS, in order, each carrying its own status
# (6 tests with the GET's own checks).  Remembers the event types in EV.
declare -A EV=()
lifecycle() {
    local what=$1 id=$2 want=$3 final=${3##* } dir s types='' rows bad
    api GET "/transactions/$id"
    jis .status "\"$final\"" "$what: GET says $final"
    if [[ $final == COMPLETED || $final == REFUNDED ]]; then
        like "$(jr .settledAt)" "$TS_RE" "$what: $final, settledAt set"
    else
        jis .settledAt null "$what: $final, settledAt null"
    fi
    dir=$(jr .type)
    for s in $want; do types+=" ${dir}_PAYMENT.$s"; done
    rows=$(events "$id")
    EV[${id#Transaction:}]=${types# }
    is "$(cut -f1 <<<"$rows" | paste -sd' ')" "${types# }" "$what: events${types}, in order"
    bad=$(awk -F'\t' -v id="$id" -v p="$NP_ID" '{ split($1, t, ".") }
        t[2] != $2 || $3 != id || $4 != p' <<<"$rows")
    is "$bad" "" "$what: each event's data.status is its type's, for this transaction and platform"
}

# bals: B is "S R V FEE", the USD balances of the sender, the PPV
# receiver, the review receiver and the platform's own account (uncounted;
# bails out when one cannot be read).
bals() {
    local a vals=()
    for a in "$S_USD" "$R_USD" "$V_USD"; do
        balance_of "$a"
        vals+=("$BAL")
    done
    fee_balance USD
    vals+=("$FEE")
    B="${vals[*]}"
    [[ $B =~ ^-?[0-9]+( -?[0-9]+){3}$ ]] || BAIL_OUT "cannot read the balances: '$B'"
}

# moved WHAT BEFORE DS DR DV DF: since the snapshot BEFORE (bals), the
# four balances moved by exactly these amounts (1 test).
moved() {
    local what=$1 b
    read -ra b <<<"$2"
    bals
    is "$B" "$((b[0] + $3)) $((b[1] + $4)) $((b[2] + $5)) $((b[3] + $6))" \
        "$what: sender $3, PPV receiver $4, review receiver $5, platform fees $6"
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

# age_quote QUOTE_ID: the quote and its transaction expired a moment ago,
# as time would have made them (1 test).
age_quote() {
    is "$(sql "UPDATE quotes q JOIN transactions x ON x.id = q.transaction_id
         SET q.expires_at = UTC_TIMESTAMP(3) - INTERVAL 1 SECOND,
             x.quote_expires_at = UTC_TIMESTAMP(3) - INTERVAL 1 SECOND
         WHERE q.platform_id = '$NP_ID' AND q.id = '${1#Quote:}'; SELECT ROW_COUNT()")" 2 \
        "quote $1: expires_at and its transaction's quote_expires_at moved into the past"
}

# new_quote WHAT BODY: POST /quotes, 201 (3 tests).  Sets QID, QTX, QS
# (sending amount), QR (receiving amount), QF (fees).
new_quote() {
    api POST /quotes "$2"
    is_status 201 "$1: POST /quotes 201"
    QID=$(jr .quoteId) QTX=$(jr .transactionId)
    QS=$(jr .sendingAmount.amountMinor) QR=$(jr .receivingAmount.amountMinor) QF=$(jr .feesTotal.amountMinor)
}

# execute WHAT STATUS: POST /quotes/QID/execute answers 200 with STATUS (3 tests).
execute() {
    api POST "/quotes/$QID/execute"
    is "$STATUS $(jr .status)" "200 $2" "$1: execute answers 200 $2"
}

# simulate WHAT SCENARIO AMOUNT: a review case for V in USD, 201 (3 tests).  Sets CASE.
simulate() {
    api POST "$SIM" "{\"receiverCustomerId\":\"$V\",\"scenario\":\"$2\",\"amountMinor\":$3,\"currencyCode\":\"USD\"}"
    is_status 201 "$1: simulate $2 $3 USD: 201"
    CASE=$(jr .transactionId)
}

# --- the platform, its customers and accounts ----------------------------------------------
fx_prices USD=10000000
new_platform t83 || BAIL_OUT "platform-create failed"
pass "platform created with xborderctl"
use_creds "$NP_CLIENT_ID" "$NP_SECRET"
set_profile 10 900
set_fees 80 20

mk_customer t83-s
S=$CUST
int_account "$S" USD
S_USD=$INT
mk_ext "$S" 000838383001
S_OK=$EXT
mk_ext "$S" 000838383002
S_FAIL=$EXT
mk_ext "$S" 000838383005
S_RET=$EXT
fund "$S_USD" 1000000
mk_customer t83-r
R=$CUST R_PPV=$CUST_PPV
int_account "$R" USD
R_USD=$INT
mk_ext "$R" 000838384001
R_OK=$EXT
mk_ext "$R" 000838384002
R_FAIL=$EXT
mk_ext "$R" 000838384005
R_RET=$EXT
mk_customer t83-v
V=$CUST
int_account "$V" USD
V_USD=$INT

# --- transfer-in -------------------------------------------------------------------------
bals
b0=$B
api POST /transfer-in "$(xfer_body "$S_OK" "$S_USD" 12000)"
is_status 201 "transfer-in from ...001: 201"
tx=$(jr .transactionId)
settle_on "$tx" 'COMPLETED|FAILED' "transfer-in ...001"
lifecycle "transfer-in PENDING -> COMPLETED" "$tx" "PENDING COMPLETED"
moved "transfer-in COMPLETED" "$b0" 12000 0 0 0

bals
b0=$B
api POST /transfer-in "$(xfer_body "$S_FAIL" "$S_USD" 700)"
is_status 201 "transfer-in from ...002: 201"
tx=$(jr .transactionId)
settle_on "$tx" 'COMPLETED|FAILED' "transfer-in ...002"
lifecycle "transfer-in PENDING -> FAILED" "$tx" "PENDING FAILED"
moved "transfer-in FAILED: nothing credited" "$b0" 0 0 0 0

# --- transfer-out ------------------------------------------------------------------------
bals
b0=$B
api POST /transfer-out "$(xfer_body "$S_USD" "$S_OK" 3000)"
is_status 201 "transfer-out to ...001: 201"
tx=$(jr .transactionId)
settle_on "$tx" 'COMPLETED|FAILED|REFUNDED' "transfer-out ...001"
lifecycle "transfer-out PENDING -> COMPLETED" "$tx" "PENDING COMPLETED"
moved "transfer-out COMPLETED: the amount is gone" "$b0" -3000 0 0 0

bals
b0=$B
api POST /transfer-out "$(xfer_body "$S_USD" "$S_FAIL" 800)"
is_status 201 "transfer-out to ...002: 201"
tx=$(jr .transactionId)
settle_on "$tx" 'COMPLETED|FAILED|REFUNDED' "transfer-out ...002"
lifecycle "transfer-out PENDING -> FAILED" "$tx" "PENDING FAILED"
moved "transfer-out FAILED: the whole amount back" "$b0" 0 0 0 0

bals
b0=$B
api POST /transfer-out "$(xfer_body "$S_USD" "$S_RET" 900)"
is_status 201 "transfer-out to ...005: 201"
tx=$(jr .transactionId)
settle_on "$tx" 'REFUNDED|FAILED' "transfer-out ...005"
lifecycle "transfer-out PENDING -> COMPLETED -> REFUNDED" "$tx" "PENDING COMPLETED REFUNDED"
moved "transfer-out REFUNDED: the whole amount back" "$b0" 0 0 0 0

# --- quote to a PPV address --------------------------------------------------------------
bals
b0=$B
new_quote "PPV quote to R" "$(ppv_quote "$S_USD" "$R_PPV" USD SENDING 5000)"
execute "PPV quote to R" COMPLETED
lifecycle "PPV quote CREATED -> COMPLETED" "$QTX" "CREATED COMPLETED"
moved "PPV quote executed: sender -S, receiver +R, platform +fees" "$b0" "-$QS" "$QR" 0 "$QF"
# The receiver's side: R's only INCOMING transaction, created COMPLETED.
api GET "/transactions?customerId=$R&type=INCOMING"
jis '.data | length' 1 "the PPV receiver has exactly one INCOMING transaction"
qin=$(jr '.data[0].transactionId')
is "$(sql "SELECT kind FROM transactions WHERE id = '${qin#Transaction:}'")" QUOTE_IN "it is the quote's QUOTE_IN transaction"
lifecycle "QUOTE_IN of the executed PPV quote" "$qin" "COMPLETED"
jis .receivedAmount "$(money USD "$QR")" "QUOTE_IN: receivedAmount is the quote's receiving amount"

bals
b0=$B
new_quote "PPV quote left to expire" "$(ppv_quote "$S_USD" "$R_PPV" USD SENDING 4000)"
age_quote "$QID"
settle_on "$QTX" EXPIRED "PPV quote past its expiry"
lifecycle "PPV quote CREATED -> EXPIRED" "$QTX" "CREATED EXPIRED"
api POST "/quotes/$QID/execute"
is_error 409 QUOTE_EXPIRED "execute the expired PPV quote"
moved "PPV quote EXPIRED: nothing moved" "$b0" 0 0 0 0

# --- quote payouts to external accounts ---------------------------------------------------
bals
b0=$B
new_quote "payout to ...001" "$(ext_quote "$S_USD" "$R_OK" SENDING 6000)"
execute "payout to ...001" PROCESSING
settle_on "$QTX" 'COMPLETED|FAILED|REFUNDED' "payout ...001"
lifecycle "payout CREATED -> PROCESSING -> COMPLETED" "$QTX" "CREATED PROCESSING COMPLETED"
moved "payout COMPLETED: sender -S, platform +fees" "$b0" "-$QS" 0 0 "$QF"

bals
b0=$B
new_quote "payout to ...002" "$(ext_quote "$S_USD" "$R_FAIL" SENDING 6100)"
execute "payout to ...002" PROCESSING
settle_on "$QTX" 'COMPLETED|FAILED|REFUNDED' "payout ...002"
lifecycle "payout CREATED -> PROCESSING -> FAILED" "$QTX" "CREATED PROCESSING FAILED"
moved "payout FAILED: the whole S back, fees included" "$b0" 0 0 0 0

bals
b0=$B
new_quote "payout to ...005" "$(ext_quote "$S_USD" "$R_RET" SENDING 6200)"
execute "payout to ...005" PROCESSING
settle_on "$QTX" 'REFUNDED|FAILED' "payout ...005"
lifecycle "payout CREATED -> PROCESSING -> COMPLETED -> REFUNDED" "$QTX" "CREATED PROCESSING COMPLETED REFUNDED"
moved "payout REFUNDED: the whole S back, fees included" "$b0" 0 0 0 0

bals
b0=$B
new_quote "payout left to expire" "$(ext_quote "$S_USD" "$R_OK" SENDING 6300)"
age_quote "$QID"
settle_on "$QTX" EXPIRED "payout quote past its expiry"
lifecycle "payout CREATED -> EXPIRED" "$QTX" "CREATED EXPIRED"
api POST "/quotes/$QID/execute"
is_error 409 QUOTE_EXPIRED "execute the expired payout quote"
moved "payout EXPIRED: nothing moved" "$b0" 0 0 0 0

# --- review cases ---------------------------------------------------------------------------
bals
b0=$B
simulate "case to approve" counterparty_info_incomplete 4321
api POST "/transactions/$CASE/approve" "{\"counterpartyInfo\":$FULL_CP}"
is "$STATUS $(jr .status)" "200 COMPLETED" "approve: 200 COMPLETED"
lifecycle "review case PENDING -> COMPLETED" "$CASE" "PENDING COMPLETED"
moved "review case approved: the amount credited" "$b0" 0 0 4321 0

bals
b0=$B
simulate "case to reject" sanctions_hit 4322
api POST "/transactions/$CASE/reject" '{"reason":"sanctioned sender"}'
is "$STATUS $(jr .status)" "200 REJECTED" "reject: 200 REJECTED"
lifecycle "review case PENDING -> REJECTED" "$CASE" "PENDING REJECTED"
moved "review case rejected: nothing credited" "$b0" 0 0 0 0

bals
b0=$B
simulate "case left to expire" counterparty_info_incomplete 4323
is "$(sql "UPDATE transactions SET review_expires_at = UTC_TIMESTAMP(3) - INTERVAL 1 SECOND
           WHERE platform_id = '$NP_ID' AND id = '${CASE#Transaction:}';
         UPDATE jobs SET run_at = UTC_TIMESTAMP(3)
           WHERE kind = 'review_expire' AND ref_id = '${CASE#Transaction:}' AND done_at IS NULL;
         SELECT ROW_COUNT()")" 1 "the case's window and its review_expire job moved to now"
settle_on "$CASE" EXPIRED "review case past its window"
lifecycle "review case PENDING -> EXPIRED" "$CASE" "PENDING EXPIRED"
moved "review case expired: nothing credited" "$b0" 0 0 0 0

# --- a last look at the events -------------------------------------------------------------
# Every event of the platform, per transaction: exactly those checked
# above, none added since (a late sweep or job) and none for anything else.
is "$(sql "SELECT CONCAT(transaction_id, ' ', GROUP_CONCAT(type ORDER BY seq SEPARATOR ' '))
           FROM webhook_events WHERE platform_id = '$NP_ID' GROUP BY transaction_id ORDER BY transaction_id")" \
    "$(for id in "${!EV[@]}"; do printf '%s %s\n' "$id" "${EV[$id]}"; done | LC_ALL=C sort)" \
    "the platform's events at the end: exactly those of the ${#EV[@]} transactions above"

# --- the ledger ---------------------------------------------------------------------------
is "$(sql "SELECT COUNT(DISTINCT posting_id) > 0 FROM ledger_entries WHERE platform_id = '$NP_ID'")" 1 \
    "the platform has postings"
is "$(sql "SELECT posting_id FROM ledger_entries WHERE platform_id = '$NP_ID'
           GROUP BY posting_id, currency HAVING SUM(amount) <> 0")" "" \
    "every posting of the platform sums to zero per currency"
out=$(xbctl ledger-check 2>&1)
is "$?" 0 "xborderctl ledger-check exits 0"
like "$out" 'ledger ok' "xborderctl ledger-check: ledger ok"

done_testing
