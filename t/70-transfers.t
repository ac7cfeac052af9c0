#!/usr/bin/env bash
# 70-transfers.t - POST /transfer-in and POST /transfer-out: the full life
# of each transfer kind under every sandbox outcome (an external account
# number ending in 002 fails, one ending in 005 is returned after a payout
# completes, anything else completes), the exact key sets of the incoming
# and outgoing Transaction variants, balances and the ledger, body
# validation, unknown, foreign and deleted accounts, currency and amount
# rules (on a platform of its own, whose configuration is restored),
# permissions, and a customer that cannot be deleted while money or a
# transaction is pending.  Stops xborder-worker for a moment (scripts/dev
# worker stop) to look at transfers that are still PENDING, and always
# starts it again.
. "$(dirname "${BASH_SOURCE[0]}")/lib/api.sh"
. "$(dirname "${BASH_SOURCE[0]}")/lib/money.sh"
no_plan

DEV=${XB_ROOT:-$XB_REPO}/scripts/dev
RUN=$(uniq_name t70)

# --- helpers ------------------------------------------------------------------------

worker_stopped=0
dev() {
    if "$DEV" "$@" >"$_API_TMP/dev.log" 2>&1; then return 0; fi
    diag "scripts/dev $* failed: $(tail -n 5 "$_API_TMP/dev.log")"
    return 1
}
at_exit 'if ((worker_stopped)); then dev worker start; fi'

# --- the accounts ---------------------------------------------------------------------
mk_customer t70-a
A=$CUST A_PCID=$CUST_PCID A_PPV=$CUST_PPV
int_account "$A" USD
A_INT=$INT
mk_ext "$A" 000111222001
A_OK=$EXT
mk_ext "$A" 000111222002
A_FAIL=$EXT
mk_ext "$A" 000111222005
A_RET=$EXT
fund "$A_INT" 1000000
jis .balance "$(money USD 1000000)" "funded: balance 1000000"

# --- transfer-in that completes ------------------------------------------------------------
balance_of "$A_INT"
b0=$BAL
body=$(xfer_body "$A_OK" "$A_INT" 12345)
api POST /transfer-in "$body" -H "Idempotency-Key: $RUN-in-ok"
is_status 201 "POST /transfer-in (completes): 201"
tx_shape "POST /transfer-in" in
created=$BODY
tin=$(jr .transactionId)
jis .status '"PENDING"' "transfer-in: PENDING at first"
jis .settledAt null "transfer-in: settledAt null at first"
jis .customerId "\"$A\"" "transfer-in: customerId"
jis .platformCustomerId "\"$A_PCID\"" "transfer-in: platformCustomerId"
jis .destination "{\"accountId\":\"$A_PPV\",\"destinationType\":\"PPV_ADDRESS\"}" \
    "transfer-in: destination is the customer's PPV address"
jis .receivedAmount "$(money USD 12345)" "transfer-in: receivedAmount is the amount"
jok '.createdAt == .updatedAt' "transfer-in: createdAt == updatedAt at creation"

settles "$tin" 'COMPLETED|FAILED|REFUNDED' "transfer-in settles within 10 s"
is "$(jr .status)" COMPLETED "transfer-in ...001: COMPLETED"
tx_shape "GET transfer-in (COMPLETED)" in
jis 'del(.status, .updatedAt, .settledAt)' "$(j 'del(.status, .updatedAt, .settledAt)' "$created")" \
    "transfer-in COMPLETED: every other field as created"
unlike "${SEEN[*]}" 'FAILED|REFUNDED|REJECTED|EXPIRED|CREATED' "transfer-in ...001: only PENDING then COMPLETED seen (${SEEN[*]})"
balance_of "$A_INT"
is "$BAL" "$((b0 + 12345))" "transfer-in COMPLETED: balance credited"
sleep 0.5
api GET "/transactions/$tin"
jis .status '"COMPLETED"' "transfer-in ...001: still COMPLETED a moment later"

# --- transfer-in that fails ---------------------------------------------------------
balance_of "$A_INT"
b0=$BAL
api POST /transfer-in "$(xfer_body "$A_FAIL" "$A_INT" 777)"
is_status 201 "POST /transfer-in from ...002: 201"
tx_shape "POST /transfer-in from ...002" in
tin_fail=$(jr .transactionId)
jis .status '"PENDING"' "transfer-in ...002: PENDING at first"
settles "$tin_fail" 'COMPLETED|FAILED|REFUNDED' "transfer-in ...002 settles within 10 s"
is "$(jr .status)" FAILED "transfer-in ...002: FAILED"
tx_shape "GET transfer-in (FAILED)" in
jis .settledAt null "transfer-in FAILED: settledAt null"
balance_of "$A_INT"
is "$BAL" "$b0" "transfer-in FAILED: nothing credited"

# --- transfer-in from an account ending in 005: completes (returns are payouts only) ---
api POST /transfer-in "$(xfer_body "$A_RET" "$A_INT" 500)"
is_status 201 "POST /transfer-in from ...005: 201"
tin_5=$(jr .transactionId)
balance_of "$A_INT"
b0=$BAL
wait_status "$tin_5" 'COMPLETED|FAILED|REFUNDED' 10
is "$(jr .status)" COMPLETED "transfer-in ...005: COMPLETED"
sleep 1.2
api GET "/transactions/$tin_5"
jis .status '"COMPLETED"' "transfer-in ...005: stays COMPLETED (no return for transfer-in)"

# --- transfer-out that completes -----------------------------------------------------------
balance_of "$A_INT"
b0=$BAL
api POST /transfer-out "$(xfer_body "$A_INT" "$A_OK" 20000)"
is_status 201 "POST /transfer-out (completes): 201"
tx_shape "POST /transfer-out" out
created=$BODY
tout=$(jr .transactionId)
balance_of "$A_INT"
is "$BAL" "$((b0 - 20000))" "transfer-out: the balance drops at once"
jis .status '"PENDING"' "transfer-out: PENDING at first" "$created"
jis .settledAt null "transfer-out: settledAt null at first" "$created"
jis .customerId "\"$A\"" "transfer-out: customerId" "$created"
jis .platformCustomerId "\"$A_PCID\"" "transfer-out: platformCustomerId" "$created"
jis .source "{\"accountId\":\"$A_INT\",\"sourceType\":\"INTERNAL_ACCOUNT\"}" "transfer-out: source is the internal account" "$created"
jis .destination "{\"accountId\":\"$A_OK\",\"destinationType\":\"EXTERNAL_ACCOUNT\"}" \
    "transfer-out: destination is the external account" "$created"
jis .sentAmount "$(money USD 20000)" "transfer-out: sentAmount is the amount" "$created"
settles "$tout" 'COMPLETED|FAILED|REFUNDED' "transfer-out settles within 10 s"
is "$(jr .status)" COMPLETED "transfer-out ...001: COMPLETED"
tx_shape "GET transfer-out (COMPLETED)" out
jis 'del(.status, .updatedAt, .settledAt)' "$(j 'del(.status, .updatedAt, .settledAt)' "$created")" \
    "transfer-out COMPLETED: every other field as created"
sleep 1.2
api GET "/transactions/$tout"
jis .status '"COMPLETED"' "transfer-out ...001: stays COMPLETED"
balance_of "$A_INT"
is "$BAL" "$((b0 - 20000))" "transfer-out COMPLETED: the money stays gone"

# --- not enough money: nothing moves --------------------------------------------------
balance_of "$A_INT"
b0=$BAL
api POST /transfer-out "$(xfer_body "$A_INT" "$A_OK" $((b0 + 1)))"
is_error 409 INSUFFICIENT_FUNDS "transfer-out of the balance plus 1"
has_keys "$(j .details)" 'available requested' "INSUFFICIENT_FUNDS: details has exactly available and requested"
jis .details.available "$(money USD "$b0")" "INSUFFICIENT_FUNDS: details.available is the balance"
jis .details.requested "$(money USD $((b0 + 1)))" "INSUFFICIENT_FUNDS: details.requested is the amount"
balance_of "$A_INT"
is "$BAL" "$b0" "INSUFFICIENT_FUNDS: the balance is unchanged"

# --- transfer-out that fails -------------------------------------------------------
balance_of "$A_INT"
b0=$BAL
api POST /transfer-out "$(xfer_body "$A_INT" "$A_FAIL" 3000)"
is_status 201 "POST /transfer-out to ...002: 201"
tx_shape "POST /transfer-out to ...002" out
tout_fail=$(jr .transactionId)
settles "$tout_fail" 'COMPLETED|FAILED|REFUNDED' "transfer-out ...002 settles within 10 s"
is "$(jr .status)" FAILED "transfer-out ...002: FAILED"
tx_shape "GET transfer-out (FAILED)" out
jis .settledAt null "transfer-out FAILED: settledAt null"
unlike "${SEEN[*]}" 'COMPLETED|REFUNDED' "transfer-out ...002: never COMPLETED (${SEEN[*]})"
balance_of "$A_INT"
is "$BAL" "$b0" "transfer-out FAILED: the funds are back"

# --- transfer-out that is returned (005) --------------------------------------------------
balance_of "$A_INT"
b0=$BAL
api POST /transfer-out "$(xfer_body "$A_INT" "$A_RET" 4000)"
is_status 201 "POST /transfer-out to ...005: 201"
tout_ret=$(jr .transactionId)
jis .status '"PENDING"' "transfer-out ...005: PENDING at first"
settles "$tout_ret" 'REFUNDED|FAILED' "transfer-out ...005 is returned within 10 s"
is "$(jr .status)" REFUNDED "transfer-out ...005: REFUNDED in the end"
tx_shape "GET transfer-out (REFUNDED)" out
like "$(jr .settledAt)" "$TS_RE" "transfer-out REFUNDED: settledAt kept"
ret_body=$BODY
like "${SEEN[*]}" '^(PENDING )?(COMPLETED )?REFUNDED$' "transfer-out ...005: PENDING, COMPLETED, REFUNDED in that order (seen: ${SEEN[*]})"
balance_of "$A_INT"
is "$BAL" "$b0" "transfer-out REFUNDED: the funds are back"
sleep 1
api GET "/transactions/$tout_ret"
jis . "$ret_body" "transfer-out REFUNDED: final (unchanged a second later)"

# --- with the worker stopped: PENDING as it is, and the COMPLETED step of a return --
if cmd_ok "scripts/dev worker stop" dev worker stop; then
    worker_stopped=1
    mk_customer t70-p
    P=$CUST
    int_account "$P" USD
    P_INT=$INT
    mk_ext "$P" 000999888001
    P_OK=$EXT
    mk_ext "$P" 000999888005
    P_RET=$EXT

    api POST /transfer-in "$(xfer_body "$P_OK" "$P_INT" 900)"
    is_status 201 "worker stopped: POST /transfer-in 201"
    pin=$(jr .transactionId) pin_body=$BODY
    api DELETE "/customers/$P"
    is_error 409 CUSTOMER_HAS_BALANCE "DELETE a customer with a PENDING transfer-in and no money"
    sleep 1.2
    api GET "/transactions/$pin"
    is_status 200 "worker stopped: GET the transfer-in"
    jis . "$pin_body" "worker stopped: still PENDING, exactly as created"
    balance_of "$P_INT"
    is "$BAL" 0 "worker stopped: nothing credited while PENDING"

    fund "$P_INT" 5000
    api POST /transfer-out "$(xfer_body "$P_INT" "$P_RET" 5000)"
    is_status 201 "worker stopped: POST /transfer-out of the whole balance 201"
    pout=$(jr .transactionId)
    balance_of "$P_INT"
    is "$BAL" 0 "worker stopped: the balance dropped at once to 0"
    api POST /transfer-out "$(xfer_body "$P_INT" "$P_RET" 1)"
    is_error 409 INSUFFICIENT_FUNDS "worker stopped: a second transfer-out finds nothing"
    jis .details "{\"available\":$(money USD 0),\"requested\":$(money USD 1)}" "INSUFFICIENT_FUNDS: details available 0, requested 1"

    cmd_ok "scripts/dev worker start" dev worker start && worker_stopped=0
    settles "$pin" 'COMPLETED|FAILED' "worker started: the transfer-in settles"
    jis .status '"COMPLETED"' "worker started: transfer-in COMPLETED"
    # Poll the return closely to catch its COMPLETED step.
    settles "$pout" 'REFUNDED|FAILED' "worker started: the ...005 payout is returned"
    jis .status '"REFUNDED"' "worker started: transfer-out REFUNDED"
    if [[ " ${SEEN[*]} " == *" COMPLETED "* ]]; then
        note "COMPLETED step of the return seen: ${SEEN[*]}"
    fi
    balance_of "$P_INT"
    is "$BAL" 5900 "after settlement: 900 in, 5000 out and back"
    api DELETE "/customers/$P"
    is_error 409 CUSTOMER_HAS_BALANCE "DELETE a customer with money and nothing pending"
    api POST /transfer-out "$(xfer_body "$P_INT" "$P_OK" 5900)"
    is_status 201 "empty the account: transfer-out 5900"
    wait_status "$(jr .transactionId)" 'COMPLETED|FAILED' 10
    jis .status '"COMPLETED"' "empty the account: COMPLETED"
    api DELETE "/customers/$P"
    is_status 200 "DELETE the customer once nothing is left or pending: 200"
else
    skip "worker could not be stopped" 1
fi

# --- body validation ---------------------------------------------------------------------
# bad_xfer PATH BODY FIELD WHAT: 400 INVALID_REQUEST naming FIELD (4 tests).
bad_xfer() {
    api POST "$1" "$2"
    is_error 400 INVALID_REQUEST "POST $1 $4"
    has_details "$3" "POST $1 $4: details names $3"
}
for path in /transfer-in /transfer-out; do
    if [[ $path == /transfer-in ]]; then src=$A_OK dst=$A_INT; else src=$A_INT dst=$A_OK; fi
    amt=$(money USD 100)
    api POST "$path" '{"source":'
    is_error 400 INVALID_REQUEST "POST $path with malformed JSON"
    api POST "$path" '[]'
    is_error 400 INVALID_REQUEST "POST $path with an array"
    api POST "$path" '{}'
    is_error 400 INVALID_REQUEST "POST $path with {}"
    bad_xfer "$path" "{\"destination\":{\"accountId\":\"$dst\"},\"amount\":$amt}" source "without source"
    bad_xfer "$path" "{\"source\":{\"accountId\":\"$src\"},\"amount\":$amt}" destination "without destination"
    bad_xfer "$path" "{\"source\":{\"accountId\":\"$src\"},\"destination\":{\"accountId\":\"$dst\"}}" amount "without amount"
    bad_xfer "$path" "{\"source\":\"$src\",\"destination\":{\"accountId\":\"$dst\"},\"amount\":$amt}" source "with source a string"
    bad_xfer "$path" "{\"source\":{},\"destination\":{\"accountId\":\"$dst\"},\"amount\":$amt}" source.accountId "without source.accountId"
    bad_xfer "$path" "{\"source\":{\"accountId\":null},\"destination\":{\"accountId\":\"$dst\"},\"amount\":$amt}" source.accountId "with source.accountId null"
    bad_xfer "$path" "{\"source\":{\"accountId\":17},\"destination\":{\"accountId\":\"$dst\"},\"amount\":$amt}" source.accountId "with source.accountId a number"
    bad_xfer "$path" "{\"source\":{\"accountId\":\"$src\"},\"destination\":{},\"amount\":$amt}" destination.accountId "without destination.accountId"
    bad_xfer "$path" "{\"source\":{\"accountId\":\"$src\"},\"destination\":{\"accountId\":\"\"},\"amount\":$amt}" destination.accountId "with destination.accountId empty"
    bad_xfer "$path" "{\"source\":{\"accountId\":\"$src\"},\"destination\":{\"accountId\":\"$dst\"},\"amount\":\"100\"}" amount "with amount a string"
    bad_xfer "$path" "{\"source\":{\"accountId\":\"$src\"},\"destination\":{\"accountId\":\"$dst\"},\"amount\":$amt,\"memo\":\"x\"}" memo "with an extra property"
    bad_xfer "$path" "{\"source\":{\"accountId\":\"$src\",\"sourceType\":\"INTERNAL_ACCOUNT\"},\"destination\":{\"accountId\":\"$dst\"},\"amount\":$amt}" source.sourceType "with an extra property in source"
    bad_xfer "$path" "{\"source\":{\"accountId\":\"$src\"},\"destination\":{\"accountId\":\"$dst\",\"destinationType\":\"EXTERNAL_ACCOUNT\"},\"amount\":$amt}" destination.destinationType "with an extra property in destination"
    bad_xfer "$path" "{\"source\":{\"accountId\":\"$src\"},\"destination\":{\"accountId\":\"$dst\"},\"amount\":{\"currencyCode\":\"USD\",\"amountMinor\":\"1\",\"scale\":2}}" amount.scale "with an extra property in amount"
    bad_xfer "$path" "{\"source\":{\"accountId\":\"$src\"},\"destination\":{\"accountId\":\"$dst\"},\"amount\":{\"amountMinor\":\"100\"}}" amount.currencyCode "without amount.currencyCode"
    bad_xfer "$path" "{\"source\":{\"accountId\":\"$src\"},\"destination\":{\"accountId\":\"$dst\"},\"amount\":{\"currencyCode\":\"USD\"}}" amount.amountMinor "without amount.amountMinor"
    for cc in '"usd"' '"US"' '"USDX"' '840' 'null' '""'; do
        bad_xfer "$path" "{\"source\":{\"accountId\":\"$src\"},\"destination\":{\"accountId\":\"$dst\"},\"amount\":{\"currencyCode\":$cc,\"amountMinor\":\"100\"}}" \
            amount.currencyCode "with amount.currencyCode $cc"
    done
    for am in 100 '"0"' '"00"' '""' '"-1"' '"+1"' '"1.5"' '"1e3"' '" 1"' '"1 "' '"abc"' '"1234567890123456789"' 'null' '["1"]'; do
        bad_xfer "$path" "{\"source\":{\"accountId\":\"$src\"},\"destination\":{\"accountId\":\"$dst\"},\"amount\":{\"currencyCode\":\"USD\",\"amountMinor\":$am}}" \
            amount.amountMinor "with amount.amountMinor $am"
    done
    # Wrong id forms.
    if [[ $path == /transfer-in ]]; then
        bad_xfer "$path" "$(xfer_body abc "$A_INT" 1)" source.accountId "with source.accountId abc"
        bad_xfer "$path" "$(xfer_body "ExternalAccount:xyz" "$A_INT" 1)" source.accountId "with source.accountId ExternalAccount:xyz"
        bad_xfer "$path" "$(xfer_body "$A_INT" "$A_INT" 1)" source.accountId "with an internal account as source"
        bad_xfer "$path" "$(xfer_body "$A_OK" "$A_OK" 1)" destination.accountId "with an external account as destination"
        bad_xfer "$path" "$(xfer_body "$A_OK" "InternalAccount:${A_INT#InternalAccount:}0" 1)" destination.accountId "with destination.accountId too long"
        bad_xfer "$path" "$(xfer_body "$A_OK" "$A" 1)" destination.accountId "with a customer id as destination"
    else
        bad_xfer "$path" "$(xfer_body abc "$A_OK" 1)" source.accountId "with source.accountId abc"
        bad_xfer "$path" "$(xfer_body "$A_OK" "$A_OK" 1)" source.accountId "with an external account as source"
        bad_xfer "$path" "$(xfer_body "$A_INT" "$A_INT" 1)" destination.accountId "with an internal account as destination"
        bad_xfer "$path" "$(xfer_body "$A_INT" "ExternalAccount:$(uuid4 | tr -d -)" 1)" destination.accountId "with a uuid without dashes"
        bad_xfer "$path" "$(xfer_body "$A_INT" "$A_PPV" 1)" destination.accountId "with a PPV address as destination"
    fi
done
api --ctype text/plain POST /transfer-in "$(xfer_body "$A_OK" "$A_INT" 1)"
is_error 415 UNSUPPORTED_MEDIA_TYPE "POST /transfer-in as text/plain"
api GET /transfer-in
is_error 405 METHOD_NOT_ALLOWED "GET /transfer-in"
like "$(header Allow)" 'POST' "GET /transfer-in: Allow names POST"
api GET /transfer-out
is_error 405 METHOD_NOT_ALLOWED "GET /transfer-out"
api --noauth POST /transfer-out "$(xfer_body "$A_INT" "$A_OK" 1)"
is_error 401 UNAUTHORIZED "POST /transfer-out without credentials"

# 18 digits is the longest amount: valid form, refused later by the funds/range rules.
api POST /transfer-out "$(xfer_body "$A_INT" "$A_OK" 999999999999999999)"
is_status 400 "transfer-out of 18 nines: valid form, over maxAmount: 400"
is "$(jr .code)" AMOUNT_OUT_OF_RANGE "transfer-out of 18 nines: AMOUNT_OUT_OF_RANGE (checked before funds)"

# --- unknown, foreign, deleted, mismatched accounts ----------------------------------
u_ext="ExternalAccount:$(uuid4)" u_int="InternalAccount:$(uuid4)"
api POST /transfer-in "$(xfer_body "$u_ext" "$A_INT" 100)"
is_error 404 NOT_FOUND "transfer-in from an unknown external account"
api POST /transfer-in "$(xfer_body "$A_OK" "$u_int" 100)"
is_error 404 ACCOUNT_NOT_FOUND "transfer-in to an unknown internal account"
api POST /transfer-out "$(xfer_body "$u_int" "$A_OK" 100)"
is_error 404 ACCOUNT_NOT_FOUND "transfer-out from an unknown internal account"
api POST /transfer-out "$(xfer_body "$A_INT" "$u_ext" 100)"
is_error 404 NOT_FOUND "transfer-out to an unknown external account"

# A second customer: accounts of different customers, other currencies.
mk_customer t70-b
B=$CUST
int_account "$B" USD
B_INT=$INT
mk_ext "$B" 000333444001
B_OK=$EXT
fund "$B_INT" 10000
api POST /transfer-in "$(xfer_body "$B_OK" "$A_INT" 100)"
is_error 400 INVALID_REQUEST "transfer-in between accounts of different customers"
api POST /transfer-out "$(xfer_body "$A_INT" "$B_OK" 100)"
is_error 400 INVALID_REQUEST "transfer-out between accounts of different customers"

api POST /transfer-out "$(xfer_body "$A_INT" "$A_OK" 100 EUR)"
is_error 400 INVALID_REQUEST "transfer-out with amount in EUR from USD accounts"
has_details amount.currencyCode "transfer-out in EUR: details names amount.currencyCode"
api POST /transfer-in "$(xfer_body "$A_OK" "$A_INT" 100 MXN)"
is_error 400 INVALID_REQUEST "transfer-in with amount in MXN to USD accounts"
has_details amount.currencyCode "transfer-in in MXN: details names amount.currencyCode"
int_account "$A" EUR
A_EUR=$INT
mk_ext "$A" 000111222009 EUR
A_EXT_EUR=$EXT
api POST /transfer-in "$(xfer_body "$A_EXT_EUR" "$A_INT" 100)"
is_error 400 INVALID_REQUEST "transfer-in from a EUR external account to a USD internal account"
api POST /transfer-out "$(xfer_body "$A_EUR" "$A_OK" 100 EUR)"
is_error 400 INVALID_REQUEST "transfer-out from a EUR internal account to a USD external account"
fund "$A_EUR" 1000
api POST /transfer-out "$(xfer_body "$A_EUR" "$A_EXT_EUR" 250 EUR)"
is_status 201 "transfer-out in EUR between EUR accounts: 201"
jis .sentAmount "$(money EUR 250)" "EUR transfer-out: sentAmount in EUR"
api POST /transfer-in "$(xfer_body "$A_EXT_EUR" "$A_EUR" 250 EUR)"
is_status 201 "transfer-in in EUR between EUR accounts: 201"
jis .receivedAmount "$(money EUR 250)" "EUR transfer-in: receivedAmount in EUR"

# An external account whose customer is deleted: 410 GONE.
mk_customer t70-gone
G=$CUST
mk_ext "$G" 000555666001
G_EXT=$EXT
int_account "$G" USD
G_INT=$INT
api DELETE "/customers/$G"
is_status 200 "DELETE the empty customer: 200"
api POST /transfer-in "$(xfer_body "$G_EXT" "$A_INT" 100)"
is_error 410 GONE "transfer-in from an external account of a deleted customer"
api POST /transfer-out "$(xfer_body "$A_INT" "$G_EXT" 100)"
is_error 410 GONE "transfer-out to an external account of a deleted customer"

# A deleted external account: 404 NOT_FOUND.
mk_ext "$A" 000111222077
D_EXT=$EXT
api DELETE "/customers/external-accounts/$D_EXT?customerId=$A"
is_status 200 "DELETE an external account: 200"
api POST /transfer-in "$(xfer_body "$D_EXT" "$A_INT" 100)"
is_error 404 NOT_FOUND "transfer-in from a deleted external account"
api POST /transfer-out "$(xfer_body "$A_INT" "$D_EXT" 100)"
is_error 404 NOT_FOUND "transfer-out to a deleted external account"

# --- permissions -----------------------------------------------------------------------------
create_token "$(uniq_name t70-view)" '["view"]'
v_id=$TOK_CLIENT_ID v_secret=$TOK_SECRET
v_tok=$TOK_ID
at_exit "use_root; api --nocheck DELETE /tokens/$v_tok"
api --as "$v_id" "$v_secret" POST /transfer-in "$(xfer_body "$A_OK" "$A_INT" 100)"
is_error 403 FORBIDDEN "view-only token: POST /transfer-in"
jis .details.requiredAccessLevel '"manage"' "view-only POST /transfer-in: details.requiredAccessLevel manage"
api --as "$v_id" "$v_secret" POST /transfer-out "$(xfer_body "$A_INT" "$A_OK" 100)"
is_error 403 FORBIDDEN "view-only token: POST /transfer-out"
jis .details.requiredAccessLevel '"manage"' "view-only POST /transfer-out: details.requiredAccessLevel manage"
api --as "$v_id" "$v_secret" POST /transfer-out '{"bad":'
is_error 403 FORBIDDEN "view-only token: 403 comes before the body's form"
api --as "$v_id" "$v_secret" GET "/transactions/$tout"
is_status 200 "view-only token: GET /transactions/{id} 200"

# --- another platform ---------------------------------------------------------------------
if new_platform t70; then
    pass "second platform created with xborderctl"
    Q_ID=$NP_CLIENT_ID Q_SECRET=$NP_SECRET
    q=(--as "$Q_ID" "$Q_SECRET")
    api "${q[@]}" POST /transfer-in "$(xfer_body "$A_OK" "$A_INT" 100)"
    is_status 404 "other platform: transfer-in between our accounts: 404"
    like "$(jr .code)" '^(ACCOUNT_)?NOT_FOUND$' "other platform: transfer-in between our accounts: NOT_FOUND or ACCOUNT_NOT_FOUND"
    api "${q[@]}" POST /transfer-out "$(xfer_body "$A_INT" "$A_OK" 100)"
    is_status 404 "other platform: transfer-out between our accounts: 404"
    api "${q[@]}" GET "/transactions/$tout"
    is_error 404 TRANSACTION_NOT_FOUND "other platform: GET our transaction"

    # Its own customer and accounts, for the currency and amount rules.
    mk_customer t70-q "${q[@]}"
    Qc=$CUST
    int_account "$Qc" USD "${q[@]}"
    Q_INT=$INT
    mk_ext "$Qc" 000777888001 USD "${q[@]}"
    Q_EXT=$EXT
    api "${q[@]}" POST /transfer-out "$(xfer_body "$Q_INT" "$A_OK" 100)"
    is_error 404 NOT_FOUND "other platform: transfer-out to our external account"
    api "${q[@]}" POST /transfer-in "$(xfer_body "$Q_EXT" "$A_INT" 100)"
    is_error 404 ACCOUNT_NOT_FOUND "other platform: transfer-in to our internal account"
    api "${q[@]}" POST /transfer-out "$(xfer_body "$A_INT" "$Q_EXT" 100)"
    is_error 404 ACCOUNT_NOT_FOUND "other platform: transfer-out from our internal account"
    api "${q[@]}" POST /transfer-in "$(xfer_body "$A_OK" "$Q_INT" 100)"
    is_error 404 NOT_FOUND "other platform: transfer-in from our external account"
    fund "$Q_INT" 100000 "${q[@]}"

    api "${q[@]}" GET /config
    q_orig=$(j '{supportedCurrencies}')
    q_restore() {
        api --nocheck --as "$Q_ID" "$Q_SECRET" PATCH /config "$q_orig"
        [[ $STATUS == 200 ]] || diag "restoring the second platform's config failed: $STATUS $BODY"
    }
    at_exit q_restore
    # set_usd ENTRY_JSON: replaces the USD entry (others kept) (1 test).
    set_usd() {
        local cfg
        cfg=$(jq -c --argjson e "$1" '{supportedCurrencies: ([.supportedCurrencies[] | select(.currencyCode != "USD")] + (if $e == null then [] else [$e] end))}' <<<"$q_orig")
        api "${q[@]}" PATCH /config "$cfg"
        is_status 200 "PATCH /config: USD entry $1"
    }
    usd() { printf '{"currencyCode":"USD","minAmount":%s,"maxAmount":%s,"enabledTransactionTypes":%s,"requiredCounterpartyFields":[]}' "$1" "$2" "$3"; }

    set_usd "$(usd 100 1000 '["OUTGOING","INCOMING"]')"
    for n in 99 1001 1000000000; do
        api "${q[@]}" POST /transfer-in "$(xfer_body "$Q_EXT" "$Q_INT" "$n")"
        is_error 400 AMOUNT_OUT_OF_RANGE "range 100..1000: transfer-in of $n"
        api "${q[@]}" POST /transfer-out "$(xfer_body "$Q_INT" "$Q_EXT" "$n")"
        is_error 400 AMOUNT_OUT_OF_RANGE "range 100..1000: transfer-out of $n"
    done
    for n in 100 1000; do
        api "${q[@]}" POST /transfer-in "$(xfer_body "$Q_EXT" "$Q_INT" "$n")"
        is_status 201 "range 100..1000: transfer-in of $n (inclusive): 201"
        api "${q[@]}" POST /transfer-out "$(xfer_body "$Q_INT" "$Q_EXT" "$n")"
        is_status 201 "range 100..1000: transfer-out of $n (inclusive): 201"
    done

    # A fresh customer with nothing: AMOUNT_OUT_OF_RANGE before INSUFFICIENT_FUNDS.
    mk_customer t70-q2 "${q[@]}"
    int_account "$CUST" USD "${q[@]}"
    Q2_INT=$INT
    mk_ext "$CUST" 000777888101 USD "${q[@]}"
    Q2_EXT=$EXT
    api "${q[@]}" POST /transfer-out "$(xfer_body "$Q2_INT" "$Q2_EXT" 5000)"
    is_error 400 AMOUNT_OUT_OF_RANGE "empty account, amount over the range: AMOUNT_OUT_OF_RANGE before INSUFFICIENT_FUNDS"
    api "${q[@]}" POST /transfer-out "$(xfer_body "$Q2_INT" "$Q2_EXT" 500)"
    is_error 409 INSUFFICIENT_FUNDS "empty account, amount in range: INSUFFICIENT_FUNDS"
    jis .details "{\"available\":$(money USD 0),\"requested\":$(money USD 500)}" "INSUFFICIENT_FUNDS: details available and requested"

    set_usd "$(usd 100 1000 '["OUTGOING"]')"
    api "${q[@]}" POST /transfer-in "$(xfer_body "$Q_EXT" "$Q_INT" 500)"
    is_error 400 CURRENCY_NOT_ENABLED "USD without INCOMING: transfer-in"
    api "${q[@]}" POST /transfer-in "$(xfer_body "$Q_EXT" "$Q_INT" 5000)"
    is_error 400 CURRENCY_NOT_ENABLED "USD without INCOMING, amount out of range: CURRENCY_NOT_ENABLED first"
    api "${q[@]}" POST /transfer-out "$(xfer_body "$Q_INT" "$Q_EXT" 500)"
    is_status 201 "USD without INCOMING: transfer-out still 201"

    set_usd "$(usd 100 1000 '["INCOMING"]')"
    api "${q[@]}" POST /transfer-out "$(xfer_body "$Q_INT" "$Q_EXT" 500)"
    is_error 400 CURRENCY_NOT_ENABLED "USD without OUTGOING: transfer-out"
    api "${q[@]}" POST /transfer-out "$(xfer_body "$Q2_INT" "$Q2_EXT" 5000)"
    is_error 400 CURRENCY_NOT_ENABLED "USD without OUTGOING, out of range, no funds: CURRENCY_NOT_ENABLED first"
    api "${q[@]}" POST /transfer-in "$(xfer_body "$Q_EXT" "$Q_INT" 500)"
    is_status 201 "USD without OUTGOING: transfer-in still 201"

    set_usd null
    api "${q[@]}" POST /transfer-in "$(xfer_body "$Q_EXT" "$Q_INT" 500)"
    is_error 400 CURRENCY_NOT_ENABLED "USD removed: transfer-in"
    api "${q[@]}" POST /transfer-out "$(xfer_body "$Q_INT" "$Q_EXT" 500)"
    is_error 400 CURRENCY_NOT_ENABLED "USD removed: transfer-out"
    api "${q[@]}" POST /transfer-out "$(xfer_body "$Q2_INT" "$Q2_EXT" 5000)"
    is_error 400 CURRENCY_NOT_ENABLED "USD removed, no funds: CURRENCY_NOT_ENABLED"
    api "${q[@]}" POST /transfer-out "$(xfer_body "$Q_INT" "$Q_EXT" 500 EUR)"
    is_error 400 INVALID_REQUEST "USD removed, amount in EUR: still the currency mismatch of the form"

    q_restore
    is "$STATUS" 200 "second platform: configuration restored"
    api "${q[@]}" POST /transfer-out "$(xfer_body "$Q_INT" "$Q_EXT" 5000)"
    is_status 201 "configuration restored: transfer-out of 5000 201 again"
    # The platform's customers keep the money they had.
    api "${q[@]}" DELETE "/customers/$Qc"
    is_error 409 CUSTOMER_HAS_BALANCE "other platform: DELETE a customer with money"
else
    fail "second platform created with xborderctl"
fi

# --- the transactions are listed, and the ledger holds ------------------------------------
api GET "/transactions?customerId=$A&limit=100"
is_status 200 "GET /transactions?customerId=A: 200"
for id in "$tin" "$tin_fail" "$tin_5" "$tout" "$tout_fail" "$tout_ret"; do
    jok --arg id "$id" 'any(.data[]; .transactionId == $id)' "customer A's list holds $id"
done
out=$(xbctl ledger-check 2>&1)
rc=$?
is "$rc" 0 "xborderctl ledger-check exits 0"
like "$out" 'ledger ok' "xborderctl ledger-check prints ledger ok"

done_testing
