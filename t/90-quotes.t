#!/usr/bin/env bash
# 90-quotes.t - POST /quotes, GET /quotes, GET /quotes/{quoteId} and POST
# /quotes/{quoteId}/execute on one platform of its own (P, whose customers
# pay each other's PPV addresses and external accounts; a second platform Q
# for what belongs to someone else): the exact shapes of the Quote, the
# summary row and the quote's transaction, pricing to the minor unit, every
# error of the contract in its order of checks (form, existence, currency,
# counterparty fields, pricing, amount range), BLOCKED quotes (KYC),
# INSUFFICIENT_FUNDS then execution, QUOTE_ALREADY_EXECUTED, 410 GONE,
# Idempotency-Key on both POSTs, the list (filters, limits, paging, order;
# past 100 rows: t/92) and permissions.  Sets the reference prices it needs,
# and removes THB's, with xborderctl fx-set and fx-unset (restored at exit);
# t/91 and t/92 set the same ones.
#
# Corridor on P (P is both the sending and the receiving platform):
#   sp = 25 + 25 = 50 bps, F = 60 (senderServiceFeeBps) + 15 (receiverServiceFeeBps) = 75 bps, Fs = 60.
# Reference prices, minor units per BTC: USD 10000000, EUR 9213377,
# JPY 15304219 (0 decimals), MXN 200000000.
. "$(dirname "${BASH_SOURCE[0]}")/lib/api.sh"
. "$(dirname "${BASH_SOURCE[0]}")/lib/money.sh"
no_plan

RUN=$(uniq_name t90)

fx_prices USD=10000000 EUR=9213377 JPY=15304219 MXN=200000000

# --- helpers --------------------------------------------------------------------------

P_QUOTES=()  # every quote created on P, oldest first
P_BLOCKED=() # those created BLOCKED

# new_quote WHAT BODY [--as ID SECRET] [CURL ARGS...]: POST /quotes, 201
# expected (3 tests).  Sets QID, QTX, QBODY; records P's quotes (those made
# without --as).
new_quote() {
    local what=$1 body=$2 opts=() mine=1
    shift 2
    while [[ ${1:-} == --as ]]; do opts+=("$1" "$2" "$3"); shift 3; mine=0; done
    api "${opts[@]}" POST /quotes "$body" "$@"
    is_status 201 "$what: POST /quotes 201"
    QBODY=$BODY QID=$(jr .quoteId) QTX=$(jr .transactionId)
    if [[ $STATUS == 201 ]] && ((mine)); then
        P_QUOTES+=("$QID")
        [[ $(jr .status) == BLOCKED ]] && P_BLOCKED+=("$QID")
    fi
    return 0
}

# priced WHAT SCUR S RCUR R FEES RATE: the quote in $BODY has these amounts (1 test).
priced() {
    jis '{sendingAmount, receivingAmount, feesTotal, exchangeRate}' \
        "{\"sendingAmount\":$(money "$2" "$3"),\"receivingAmount\":$(money "$4" "$5"),\"feesTotal\":$(money "$2" "$6"),\"exchangeRate\":\"$7\"}" \
        "$1: sends $2 $3, receives $4 $5, fees $6, rate $7"
}

# bad_quote BODY FIELD WHAT: 400 INVALID_REQUEST naming FIELD (6 tests).
bad_quote() {
    api POST /quotes "$1"
    is_error 400 INVALID_REQUEST "POST /quotes $3"
    has_details "$2" "POST /quotes $3: details names $2"
}

# q_error STATUS CODE BODY WHAT: POST /quotes answers this error (5 tests).
q_error() {
    api POST /quotes "$3"
    is_error "$1" "$2" "POST /quotes $4"
}

# --- platforms P and Q ------------------------------------------------------------------
P_UMA="$(uniq_name u90).uma.test"
new_platform t90 --uma-domain "$P_UMA" || BAIL_OUT "platform-create failed"
pass "platform P created with xborderctl"
P_DOMAIN=$NP_DOMAIN P_ID=$NP_CLIENT_ID P_SECRET=$NP_SECRET
use_creds "$P_ID" "$P_SECRET"
new_platform t90q || BAIL_OUT "platform-create failed"
pass "platform Q created with xborderctl"
QP=(--as "$NP_CLIENT_ID" "$NP_SECRET")

set_profile 25 900
set_fees 60 15
# USD 50..100000000 and EUR 100..10000000 (for the range rules), JPY with
# BIRTH_DATE and NATIONALITY mandatory, MXN wide, SEK INCOMING only, NOK
# OUTGOING only.
set_currencies "[$(cur_entry USD 50 100000000 both),$(cur_entry EUR 100 10000000 both),
    $(cur_entry JPY 1 100000000000 both BIRTH_DATE NATIONALITY),$(cur_entry MXN 1 100000000000000 both),
    $(cur_entry SEK 1 100000000000 in),$(cur_entry NOK 1 100000000000 out)]"

mk_customer t90-s1
S1=$CUST S1_PCID=$CUST_PCID
int_account "$S1" USD
S1_USD=$INT
int_account "$S1" MXN
S1_MXN=$INT
int_account "$S1" SEK
S1_SEK=$INT
fund "$S1_USD" 1000000
mk_customer t90-r1
R1=$CUST R1_PPV=$CUST_PPV
R1_NAME=${R1_PPV%@*}
like "$R1_PPV" "^[^@]+@$P_DOMAIN\$" "receiver R1's PPV address is on P's ppvDomain"
int_account "$R1" EUR
R1_EUR=$INT
mk_ext "$R1" 000290290001 EUR
R1_XEUR=$EXT
mk_ext "$R1" 000290290009 SEK
R1_XSEK=$EXT

mk_customer t90-qc "${QP[@]}"
QC=$CUST
int_account "$QC" USD "${QP[@]}"
QC_USD=$INT
mk_ext "$QC" 000390390001 USD "${QP[@]}"
QC_X=$EXT

# --- a quote to a PPV address: shape, pricing, its transaction --------------------------
balance_of "$S1_USD"
s1_0=$BAL
new_quote "Q1 USD->EUR, RECEIVING 10000" "$(ppv_quote "$S1_USD" "$R1_PPV" EUR RECEIVING 10000)"
q1=$BODY Q1=$QID Q1_TX=$QTX
quote_shape "Q1"
# P = ceil(10000 * 10000000 * 10000 / (9213377 * 9950)) = ceil(10908.33) = 10909
# fees = ceil(10909 * 75 / 10000) = ceil(81.8175) = 82; S = 10909 + 82 = 10991
# rate = floor(9213377 * 10^2 * 9950 * 10^8 / (10000000 * 10^2 * 10000)) / 10^8
#      = floor(91673101.15) / 10^8 = 0.91673101
priced "Q1" USD 10991 EUR 10000 82 0.91673101
jis '{lockedCurrencySide, lockedCurrencyAmount, status, customerId, source, destination, executedAt}' \
    "{\"lockedCurrencySide\":\"RECEIVING\",\"lockedCurrencyAmount\":\"10000\",\"status\":\"QUOTE_READY\",\"customerId\":\"$S1\",
      \"source\":{\"accountId\":\"$S1_USD\",\"sourceType\":\"INTERNAL_ACCOUNT\"},
      \"destination\":{\"destinationType\":\"PPV_ADDRESS\",\"ppvAddress\":\"$R1_PPV\",\"currencyCode\":\"EUR\"},\"executedAt\":null}" \
    "Q1: side, amount, QUOTE_READY, sending customer, source, destination as requested, executedAt null"
jok "$QJQ"' (.expiresAt | ms) - (.createdAt | ms) == 900000' "Q1: expiresAt = createdAt + 900 s (P's lockPriceDurationSeconds)"
balance_of "$S1_USD"
is "$BAL" "$s1_0" "Q1: creating a quote moves no money"
api GET "/quotes/$Q1"
is_status 200 "GET /quotes/{Q1}: 200"
jis . "$q1" "GET /quotes/{Q1}: exactly the quote as created"
api GET "/transactions/$Q1_TX"
is_status 200 "GET Q1's transaction: 200"
quote_tx_shape "Q1's transaction"
jis "$QUOTE_TX_FIELDS" "$(quote_tx_of "$q1")" \
    "Q1's transaction: quoteId, transactionId, customerId, source, sentAmount = sendingAmount, fees = feesTotal, exchangeRate of the quote"
jis '{status, platformCustomerId, destination, settledAt}' \
    "{\"status\":\"CREATED\",\"platformCustomerId\":\"$S1_PCID\",\"destination\":{\"accountId\":\"$R1_PPV\",\"destinationType\":\"PPV_ADDRESS\"},\"settledAt\":null}" \
    "Q1's transaction: CREATED, the sender's platformCustomerId, destination the canonical PPV address, settledAt null"

api GET "/transactions?customerId=$S1&limit=100"
jis "[.data[] | select(.transactionId == \"$Q1_TX\") | {quoteId, status}]" "[{\"quoteId\":\"$Q1\",\"status\":\"CREATED\"}]" \
    "GET /transactions?customerId=S1 lists Q1's transaction, CREATED, with its quoteId"

# The same receiver as $name@umaDomain: stored canonical.
new_quote "Q2 USD->EUR to \$name@umaDomain, SENDING 10000" "$(ppv_quote "$S1_USD" "\$$R1_NAME@$P_UMA" EUR SENDING 10000)"
q2=$BODY Q2=$QID Q2_TX=$QTX
quote_shape "Q2"
# P = floor(10000 * 10000 / 10075) = floor(9925.56) = 9925 (9925 + ceil(74.4375) = 10000; 9926 + 75 > 10000)
# fees = 10000 - 9925 = 75; R = floor(9925 * 9213377 * 9950 / (10000000 * 10000)) = floor(9098.56) = 9098
priced "Q2" USD 10000 EUR 9098 75 0.91673101
jis '{lockedCurrencySide, lockedCurrencyAmount, destination}' \
    "{\"lockedCurrencySide\":\"SENDING\",\"lockedCurrencyAmount\":\"10000\",\"destination\":{\"destinationType\":\"PPV_ADDRESS\",\"ppvAddress\":\"$R1_PPV\",\"currencyCode\":\"EUR\"}}" \
    "Q2: SENDING 10000, destination.ppvAddress canonical although sent as \$name@umaDomain"
api GET "/transactions/$Q2_TX"
jis .destination "{\"accountId\":\"$R1_PPV\",\"destinationType\":\"PPV_ADDRESS\"}" "Q2's transaction: destination the canonical address"
for form in "$R1_NAME@$P_UMA" "\$$R1_PPV"; do
    new_quote "Q2 again to $form" "$(ppv_quote "$S1_USD" "$form" EUR SENDING 10000)"
    jis '{destination, sendingAmount, receivingAmount, feesTotal}' "$(j '{destination, sendingAmount, receivingAmount, feesTotal}' "$q2")" \
        "to $form: the same receiver (canonical address) and amounts as Q2"
done

# To an external account: the receiving currency is the account's.
new_quote "Q4 USD->EUR external account, RECEIVING 20000" "$(ext_quote "$S1_USD" "$R1_XEUR" RECEIVING 20000)"
q4=$BODY Q4=$QID Q4_TX=$QTX
quote_shape "Q4"
# P = ceil(20000 * 10000000 * 10000 / (9213377 * 9950)) = ceil(21816.65) = 21817
# fees = ceil(21817 * 75 / 10000) = ceil(163.6275) = 164; S = 21817 + 164 = 21981
priced "Q4" USD 21981 EUR 20000 164 0.91673101
jis .destination "{\"destinationType\":\"EXTERNAL_ACCOUNT\",\"accountId\":\"$R1_XEUR\"}" "Q4: destination {EXTERNAL_ACCOUNT, accountId}"
api GET "/transactions/$Q4_TX"
quote_tx_shape "Q4's transaction"
jis "$QUOTE_TX_FIELDS" "$(quote_tx_of "$q4")" "Q4's transaction: the quote's ids, source, amounts and rate"
jis '{status, destination}' "{\"status\":\"CREATED\",\"destination\":{\"accountId\":\"$R1_XEUR\",\"destinationType\":\"EXTERNAL_ACCOUNT\"}}" \
    "Q4's transaction: CREATED, destination the external account"

# --- executing Q1 (to P's own customer R1) ----------------------------------------------
balance_of "$S1_USD"
s1_0=$BAL
balance_of "$R1_EUR"
r1_0=$BAL
fee_balance USD
f_0=$FEE
fee_balance EUR
fe_0=$FEE
# Execution takes no body: anything but none or {} is 400 naming body,
# before the quote is looked up, and nothing moves.
for b in '{"quoteId":"x"}' '[1]' '{"a"'; do
    api POST "/quotes/$Q1/execute" "$b"
    is_error 400 INVALID_REQUEST "execute Q1 with the body '$b': 400"
    has_details body "execute Q1 with the body '$b': details names body"
done
api POST "/quotes/Quote:$(uuid4)/execute" '{"a":1}'
is_error 400 INVALID_REQUEST "execute an unknown quote with a body: 400 (the form before existence)"
api GET "/quotes/$Q1"
jis '.executedAt' null "after the refused bodies: Q1 not executed"
api POST "/quotes/$Q1/execute" '{}'
is_status 200 "execute Q1: 200"
quote_tx_shape "execute Q1"
jis "$QUOTE_TX_FIELDS" "$(quote_tx_of "$q1")" "execute Q1: the quote's transaction"
jis '{status, destination}' "{\"status\":\"COMPLETED\",\"destination\":{\"accountId\":\"$R1_PPV\",\"destinationType\":\"PPV_ADDRESS\"}}" \
    "execute Q1: COMPLETED at once (PPV address)"
exec1=$BODY
api GET "/transactions/$Q1_TX"
jis . "$exec1" "GET Q1's transaction after execution: as execute answered"
api GET "/quotes/$Q1"
quote_shape "Q1 executed"
jis 'del(.executedAt)' "$(j 'del(.executedAt)' "$q1")" "Q1 executed: QUOTE_READY still, every value as created"
jok "$QJQ"' .executedAt | ts' "Q1 executed: executedAt is a timestamp"
balance_of "$S1_USD"
is "$BAL" $((s1_0 - 10991)) "execute Q1: the sender's USD balance - 10991 (S)"
balance_of "$R1_EUR"
is "$BAL" $((r1_0 + 10000)) "execute Q1: the receiver's EUR balance + 10000 (R)"
fee_balance USD
# fee_s = min(82, ceil(10909 * 60 / 10000) = 66) = 66; fee_r = 82 - 66 = 16; P gets both.
is "$FEE" $((f_0 + 82)) "execute Q1: P's own USD account + 82 (66 as sending, 16 as receiving platform)"
fee_balance EUR
is "$FEE" "$fe_0" "execute Q1: P's own EUR account unchanged"
api GET "/transactions?customerId=$R1&type=INCOMING"
jis '[.data[] | {type, status, quoteId, customerId, receivedAmount, destination}]' \
    "[{\"type\":\"INCOMING\",\"status\":\"COMPLETED\",\"quoteId\":null,\"customerId\":\"$R1\",\"receivedAmount\":$(money EUR 10000),
      \"destination\":{\"accountId\":\"$R1_PPV\",\"destinationType\":\"PPV_ADDRESS\"}}]" \
    "execute Q1: R1 has one INCOMING transaction, COMPLETED, quoteId null, EUR 10000 to its address"

api POST "/quotes/$Q1/execute"
is_error 409 QUOTE_ALREADY_EXECUTED "execute Q1 again"
balance_of "$S1_USD"
is "$BAL" $((s1_0 - 10991)) "second execution of Q1: nothing more moved"

# A platform-owned internal account cannot be the source.
api GET "/platform/internal-accounts?currency=USD"
is_status 200 "GET /platform/internal-accounts?currency=USD: 200"
has_keys "$(j '.data[0]')" 'id customerId currency balance createdAt updatedAt' "P's own USD account: exactly the InternalAccount keys"
jis '.data | map({customerId, currency, balance})' "[{\"customerId\":null,\"currency\":\"USD\",\"balance\":$(money USD $((f_0 + 82)))}]" \
    "P's own USD account: one, customerId null, holding the fees"
P_OWN=$(jr '.data[0].id')
bad_quote "$(ppv_quote "$P_OWN" "$R1_PPV" EUR RECEIVING 10000)" source.accountId "from P's own (platform) internal account"

# --- the form of the body (400 INVALID_REQUEST, details names the field) -------------------
okd='{"destinationType":"PPV_ADDRESS","ppvAddress":"'$R1_PPV'","currencyCode":"EUR"}'
src='{"accountId":"'$S1_USD'"}'
lk='"lockedCurrencySide":"RECEIVING","lockedCurrencyAmount":"1000"'
api POST /quotes '{"source":'
is_error 400 INVALID_REQUEST "POST /quotes with malformed JSON"
api POST /quotes '[]'
is_error 400 INVALID_REQUEST "POST /quotes with an array"
api POST /quotes '{}'
is_error 400 INVALID_REQUEST "POST /quotes with {}"
jok '.details | has("source") and has("destination") and has("lockedCurrencySide") and has("lockedCurrencyAmount")' \
    "POST /quotes {}: details names the four required fields"
bad_quote "{\"source\":$src,\"destination\":$okd,$lk,\"memo\":\"x\"}" memo "with an unknown property"
bad_quote "{\"source\":{\"accountId\":\"abc\"},\"destination\":$okd,$lk}" source.accountId "with source.accountId abc"
bad_quote "{\"source\":{\"accountId\":\"$R1_XEUR\"},\"destination\":$okd,$lk}" source.accountId "with an external account as source"
bad_quote "{\"source\":{\"accountId\":\"$S1_USD\",\"sourceType\":\"INTERNAL_ACCOUNT\"},\"destination\":$okd,$lk}" source.sourceType "with source.sourceType (closed object)"
bad_quote "{\"source\":$src,\"destination\":{},$lk}" destination.destinationType "with destination {}"
bad_quote "{\"source\":$src,\"destination\":{\"destinationType\":\"IBAN\",\"accountId\":\"$R1_XEUR\"},$lk}" destination.destinationType "with destinationType IBAN"
jok '.details["destination.destinationType"] | test("PPV_ADDRESS") and test("EXTERNAL_ACCOUNT")' "destinationType IBAN: details lists PPV_ADDRESS and EXTERNAL_ACCOUNT"
bad_quote "{\"source\":$src,\"destination\":{\"destinationType\":\"PPV_ADDRESS\",\"currencyCode\":\"EUR\"},$lk}" destination.ppvAddress "PPV_ADDRESS without ppvAddress"
bad_quote "{\"source\":$src,\"destination\":{\"destinationType\":\"PPV_ADDRESS\",\"ppvAddress\":\"$R1_PPV\",\"currencyCode\":\"eur\"},$lk}" destination.currencyCode "with currencyCode eur"
long=$(printf 'a%.0s' {1..310})
bad_quote "{\"source\":$src,\"destination\":{\"destinationType\":\"PPV_ADDRESS\",\"ppvAddress\":\"$long@$P_DOMAIN\",\"currencyCode\":\"EUR\"},$lk}" destination.ppvAddress "with a ppvAddress of $((310 + 1 + ${#P_DOMAIN})) characters"
bad_quote "{\"source\":$src,\"destination\":{\"destinationType\":\"PPV_ADDRESS\",\"ppvAddress\":\"$R1_PPV\",\"currencyCode\":\"EUR\",\"accountId\":\"$R1_XEUR\"},$lk}" destination.accountId "PPV_ADDRESS with an accountId"
bad_quote "{\"source\":$src,\"destination\":{\"destinationType\":\"EXTERNAL_ACCOUNT\"},$lk}" destination.accountId "EXTERNAL_ACCOUNT without accountId"
bad_quote "{\"source\":$src,\"destination\":{\"destinationType\":\"EXTERNAL_ACCOUNT\",\"accountId\":\"$R1_EUR\"},$lk}" destination.accountId "EXTERNAL_ACCOUNT with an internal account"
bad_quote "{\"source\":$src,\"destination\":{\"destinationType\":\"EXTERNAL_ACCOUNT\",\"accountId\":\"$R1_XEUR\",\"ppvAddress\":\"$R1_PPV\"},$lk}" destination.ppvAddress "EXTERNAL_ACCOUNT with a ppvAddress"
bad_quote "{\"source\":$src,\"destination\":$okd,\"lockedCurrencySide\":\"BOTH\",\"lockedCurrencyAmount\":\"1000\"}" lockedCurrencySide "with lockedCurrencySide BOTH"
jok '.details.lockedCurrencySide | test("SENDING") and test("RECEIVING")' "lockedCurrencySide BOTH: details lists SENDING and RECEIVING"
for am in 1000 '"0"' '"-1"' '"1234567890123456789"' 'null'; do
    bad_quote "{\"source\":$src,\"destination\":$okd,\"lockedCurrencySide\":\"RECEIVING\",\"lockedCurrencyAmount\":$am}" \
        lockedCurrencyAmount "with lockedCurrencyAmount $am"
done
for cp in '{"BIRTH_DATE":"2001-02-29"}|senderCounterpartyInfo.BIRTH_DATE' '{"NATIONALITY":"usa"}|senderCounterpartyInfo.NATIONALITY' \
    "{\"FULL_NAME\":\"$(printf 'n%.0s' {1..257})\"}|senderCounterpartyInfo.FULL_NAME" \
    '{"EMAIL":"a@b.test"}|senderCounterpartyInfo.EMAIL' '"Ada"|senderCounterpartyInfo'; do
    bad_quote "{\"source\":$src,\"destination\":$okd,$lk,\"senderCounterpartyInfo\":${cp%|*}}" "${cp#*|}" "with senderCounterpartyInfo ${cp%|*}"
done
api --ctype text/plain POST /quotes "{\"source\":$src,\"destination\":$okd,$lk}"
is_error 415 UNSUPPORTED_MEDIA_TYPE "POST /quotes as text/plain"
# The form comes before existence.
bad_quote "$(ppv_quote "InternalAccount:$(uuid4)" "nobody-$RUN@$P_DOMAIN" EUR RECEIVING 0)" lockedCurrencyAmount \
    "with an unknown source, an unknown receiver and amount 0: the form first"

# --- what the body names (404, 410) -------------------------------------------------------
q_error 404 ACCOUNT_NOT_FOUND "$(ppv_quote "InternalAccount:$(uuid4)" "$R1_PPV" EUR RECEIVING 1000)" "from an unknown internal account"
q_error 404 ACCOUNT_NOT_FOUND "$(ppv_quote "$QC_USD" "$R1_PPV" EUR RECEIVING 1000)" "from platform Q's customer's internal account"
q_error 404 NOT_FOUND "$(ext_quote "$S1_USD" "ExternalAccount:$(uuid4)" RECEIVING 1000)" "to an unknown external account"
q_error 404 NOT_FOUND "$(ext_quote "$S1_USD" "$QC_X" RECEIVING 1000)" "to platform Q's external account"
mk_ext "$R1" 000290290077 EUR
del_x=$EXT
api DELETE "/customers/external-accounts/$del_x?customerId=$R1"
is_status 200 "delete an external account of R1"
q_error 404 NOT_FOUND "$(ext_quote "$S1_USD" "$del_x" RECEIVING 1000)" "to a deleted external account"
for addr in "nobody-$RUN@$P_DOMAIN" "\$nobody-$RUN@$P_UMA" "$R1_NAME@nowhere-$RUN.test"; do
    q_error 404 RECEIVER_NOT_FOUND "$(ppv_quote "$S1_USD" "$addr" EUR RECEIVING 1000)" "to the unknown PPV address $addr"
done
# Existence comes before the currency rules (NOK is not INCOMING on P).
q_error 404 RECEIVER_NOT_FOUND "$(ppv_quote "$S1_USD" "nobody-$RUN@$P_DOMAIN" NOK RECEIVING 1000)" "to an unknown address in a currency P does not take in"

# --- currencies (400 CURRENCY_NOT_ENABLED, details.currency) -------------------------------
q_error 400 CURRENCY_NOT_ENABLED "$(ppv_quote "$S1_USD" "$R1_PPV" NOK RECEIVING 1000)" "to a PPV address in NOK (OUTGOING only on P)"
jok '.details.currency | type == "string" and test("NOK")' "NOK receiving: details.currency names NOK"
q_error 400 CURRENCY_NOT_ENABLED "$(ppv_quote "$S1_USD" "$R1_PPV" GBP RECEIVING 1000)" "to a PPV address in GBP (not on P at all)"
jok '.details.currency | type == "string" and test("GBP")' "GBP receiving: details.currency names GBP"
q_error 400 CURRENCY_NOT_ENABLED "$(ppv_quote "$S1_SEK" "$R1_PPV" EUR RECEIVING 1000)" "from a SEK account (INCOMING only on P)"
jok '.details.currency | type == "string" and test("SEK")' "SEK sending: details.currency names SEK"
q_error 400 CURRENCY_NOT_ENABLED "$(ext_quote "$S1_USD" "$R1_XSEK" RECEIVING 1000)" "to a SEK external account (a payout needs OUTGOING)"
jok '.details.currency | type == "string" and test("SEK")' "SEK payout: details.currency names SEK"
q_error 400 CURRENCY_NOT_ENABLED "$(ppv_quote "$S1_USD" "$R1_PPV" NOK RECEIVING 999999999999999999)" \
    "NOK with 18 nines: the currency before pricing and ranges"

# --- no reference price (400 naming the field that carries the currency) --------------------
# THB, which no quote suite prices, loses its price with xborderctl fx-unset
# (restored at exit) unless it has none already.
noprice=THB
if xbctl fx-list 2>/dev/null | cut -f1 | grep -qx "$noprice"; then
    fx_unset "$noprice"
fi
note "$noprice has no reference price"
api GET /config
set_currencies "$(jq -c --argjson e "$(cur_entry "$noprice" 1 100000000000 both)" '.supportedCurrencies + [$e]' <<<"$BODY")"
int_account "$S1" "$noprice"
np_int=$INT
mk_ext "$R1" 000290290011 "$noprice"
np_x=$EXT
bad_quote "$(ppv_quote "$S1_USD" "$R1_PPV" "$noprice" RECEIVING 1000)" destination.currencyCode "receiving $noprice, which has no price"
bad_quote "$(ppv_quote "$np_int" "$R1_PPV" EUR RECEIVING 1000)" source.accountId "sending $noprice, which has no price"
bad_quote "$(ext_quote "$S1_USD" "$np_x" RECEIVING 1000)" destination.accountId "paying out $noprice, which has no price"

# --- mandatory counterparty fields of the receiving currency (JPY on P) ---------------------
api POST /quotes "$(ppv_quote "$S1_USD" "$R1_PPV" JPY RECEIVING 5000)"
is_error 400 INVALID_REQUEST "JPY without senderCounterpartyInfo"
jis '.details.missingCounterpartyFields | sort' '["BIRTH_DATE","NATIONALITY"]' \
    "JPY without senderCounterpartyInfo: missingCounterpartyFields BIRTH_DATE, NATIONALITY (FULL_NAME defaults)"
api POST /quotes "$(ppv_quote "$S1_USD" "$R1_PPV" JPY RECEIVING 5000 '{"BIRTH_DATE":"1990-04-01"}')"
is_error 400 INVALID_REQUEST "JPY with BIRTH_DATE only"
jis .details.missingCounterpartyFields '["NATIONALITY"]' "JPY with BIRTH_DATE only: missingCounterpartyFields [NATIONALITY]"
api POST /quotes "$(ppv_quote "$S1_USD" "$R1_PPV" JPY RECEIVING 5000 '{"FULL_NAME":"Ada Other","NATIONALITY":"DE"}')"
is_error 400 INVALID_REQUEST "JPY with FULL_NAME and NATIONALITY"
jis .details.missingCounterpartyFields '["BIRTH_DATE"]' "JPY with FULL_NAME and NATIONALITY: missingCounterpartyFields [BIRTH_DATE]"
# A payout: P is the receiving platform, its JPY entry counts.
mk_ext "$R1" 000290290301 JPY
api POST /quotes "$(ext_quote "$S1_USD" "$EXT" RECEIVING 5000)"
is_error 400 INVALID_REQUEST "payout to a JPY external account without senderCounterpartyInfo"
jis '.details.missingCounterpartyFields | sort' '["BIRTH_DATE","NATIONALITY"]' "JPY payout: missingCounterpartyFields BIRTH_DATE, NATIONALITY"
# The mandatory fields come before pricing and ranges: 18 nines of JPY can be neither priced
# nor sent, yet the missing fields are named.
api POST /quotes "$(ppv_quote "$S1_MXN" "$R1_PPV" JPY RECEIVING 999999999999999999)"
is_error 400 INVALID_REQUEST "MXN->JPY 18 nines without senderCounterpartyInfo"
jis '.details | [has("missingCounterpartyFields"), has("lockedCurrencyAmount")]' '[true,false]' \
    "MXN->JPY 18 nines without senderCounterpartyInfo: missingCounterpartyFields named first"
api POST /quotes "$(ppv_quote "$S1_USD" "$R1_PPV" JPY RECEIVING 100000000001)"
is_error 400 INVALID_REQUEST "USD->JPY RECEIVING 100000000001 (past both ranges) without senderCounterpartyInfo"
has_details missingCounterpartyFields "past both ranges without senderCounterpartyInfo: missingCounterpartyFields, not AMOUNT_OUT_OF_RANGE"
new_quote "Q5 USD->JPY with BIRTH_DATE (a leap day) and NATIONALITY, RECEIVING 5000" \
    "$(ppv_quote "$S1_USD" "$R1_PPV" JPY RECEIVING 5000 '{"BIRTH_DATE":"2000-02-29","NATIONALITY":"DE"}')"
# P = ceil(5000 * 10000000 * 10000 / (15304219 * 9950)) = ceil(3283.49) = 3284
# fees = ceil(3284 * 75 / 10000) = ceil(24.63) = 25; S = 3284 + 25 = 3309
# rate = floor(15304219 * 10^2 * 9950 * 10^8 / (10000000 * 10^0 * 10000)) / 10^8
#      = floor(15227697905.0) / 10^8 = 152.27697905 (JPY has no minor unit)
priced "Q5" USD 3309 JPY 5000 25 152.27697905

# --- quotes that cannot be priced (400 on lockedCurrencyAmount) ------------------------------
# SENDING 1: P = floor(1 * 10000 / 10075) = 0, R = 0 < 1 (and S = 1 < USD min 50: pricing comes first).
bad_quote "$(ppv_quote "$S1_USD" "$R1_PPV" EUR SENDING 1)" lockedCurrencyAmount "SENDING 1 (nothing left to convert)"
# MXN->JPY RECEIVING 999999999999999999:
# P = ceil(999999999999999999 * 200000000 * 10000 / (15304219 * 9950)) = 13133961630164083545 > 2^63 - 1
bad_quote "$(ppv_quote "$S1_MXN" "$R1_PPV" JPY RECEIVING 999999999999999999 '{"BIRTH_DATE":"1990-04-01","NATIONALITY":"DE"}')" \
    lockedCurrencyAmount "MXN->JPY RECEIVING 18 nines (P past 64 bits)"
set_profile 5000 900
# sp = 5000 + 5000 = 10000: nothing to deliver.
bad_quote "$(ppv_quote "$S1_USD" "$R1_PPV" EUR RECEIVING 10000)" lockedCurrencyAmount "with a corridor spread of 10000 bps"
set_profile 4999 900
new_quote "Q6 USD->EUR with a corridor spread of 9998 bps, RECEIVING 10000" "$(ppv_quote "$S1_USD" "$R1_PPV" EUR RECEIVING 10000)"
# P = ceil(10000 * 10000000 * 10000 / (9213377 * 2)) = ceil(54268917.90) = 54268918
# fees = ceil(54268918 * 75 / 10000) = ceil(407016.885) = 407017; S = 54268918 + 407017 = 54675935
# rate = floor(9213377 * 10^2 * 2 * 10^8 / (10000000 * 10^2 * 10000)) / 10^8 = floor(18426.754) / 10^8 = 0.00018426
priced "Q6" USD 54675935 EUR 10000 407017 0.00018426
set_profile 25 900

# --- amount ranges (400 AMOUNT_OUT_OF_RANGE): USD 50..100000000, EUR 100..10000000 ------------
# RECEIVING 99: P = ceil(99 * 10000000 * 10000 / (9213377 * 9950)) = ceil(107.99) = 108, fees = ceil(0.81) = 1,
# S = 109 (in USD's range); R = 99 < 100.
q_error 400 AMOUNT_OUT_OF_RANGE "$(ppv_quote "$S1_USD" "$R1_PPV" EUR RECEIVING 99)" "receiving EUR 99 (min 100)"
has_details receivingAmount "receiving EUR 99: details names receivingAmount"
new_quote "receiving EUR 100 (the minimum)" "$(ppv_quote "$S1_USD" "$R1_PPV" EUR RECEIVING 100)"
# P = ceil(100 * 10000000 * 10000 / (9213377 * 9950)) = ceil(109.08) = 110; fees = ceil(110 * 75 / 10000) = ceil(0.825) = 1; S = 111
priced "receiving EUR 100" USD 111 EUR 100 1 0.91673101
new_quote "receiving EUR 10000000 (the maximum)" "$(ppv_quote "$S1_USD" "$R1_PPV" EUR RECEIVING 10000000)"
# P = ceil(10000000 * 10000000 * 10000 / (9213377 * 9950)) = ceil(10908325.21) = 10908326
# fees = ceil(10908326 * 75 / 10000) = ceil(81812.445) = 81813; S = 10908326 + 81813 = 10990139
priced "receiving EUR 10000000" USD 10990139 EUR 10000000 81813 0.91673101
q_error 400 AMOUNT_OUT_OF_RANGE "$(ppv_quote "$S1_USD" "$R1_PPV" EUR RECEIVING 10000001)" "receiving EUR 10000001 (max 10000000)"
has_details receivingAmount "receiving EUR 10000001: details names receivingAmount"
q_error 400 AMOUNT_OUT_OF_RANGE "$(ppv_quote "$S1_USD" "$R1_PPV" MXN SENDING 49)" "sending USD 49 (min 50)"
has_details sendingAmount "sending USD 49: details names sendingAmount"
new_quote "sending USD 50 (the minimum)" "$(ppv_quote "$S1_USD" "$R1_PPV" MXN SENDING 50)"
# P = floor(50 * 10000 / 10075) = 49; fees = 1; R = floor(49 * 200000000 * 9950 / (10000000 * 10000)) = floor(975.1) = 975
# rate = floor(200000000 * 10^2 * 9950 * 10^8 / (10000000 * 10^2 * 10000)) / 10^8 = 19.90000000
priced "sending USD 50" USD 50 MXN 975 1 19.90000000
new_quote "sending USD 100000000 (the maximum, far more than the balance)" "$(ppv_quote "$S1_USD" "$R1_PPV" MXN SENDING 100000000)"
# P = floor(100000000 * 10000 / 10075) = floor(99255583.13) = 99255583; fees = 744417
# R = floor(99255583 * 200000000 * 9950 / (10000000 * 10000)) = floor(1975186101.7) = 1975186101
priced "sending USD 100000000" USD 100000000 MXN 1975186101 744417 19.90000000
q_error 400 AMOUNT_OUT_OF_RANGE "$(ppv_quote "$S1_USD" "$R1_PPV" MXN SENDING 100000001)" "sending USD 100000001 (max 100000000)"
has_details sendingAmount "sending USD 100000001: details names sendingAmount"
q_error 400 AMOUNT_OUT_OF_RANGE "$(ext_quote "$S1_USD" "$R1_XEUR" RECEIVING 99)" "payout of EUR 99 to an external account (P's EUR min 100)"
has_details receivingAmount "payout of EUR 99: details names receivingAmount"

# --- KYC: BLOCKED quotes --------------------------------------------------------------------
mk_customer t90-sp
SP=$CUST
int_account "$SP" USD
SP_USD=$INT
fund "$SP_USD" 100000
api PATCH "/customers/$SP" '{"kycStatus":"PENDING"}'
is_status 200 "sender SP: kycStatus PENDING"
new_quote "SP (PENDING) -> R1" "$(ppv_quote "$SP_USD" "$R1_PPV" EUR RECEIVING 1000)"
QB1=$QID QB1_TX=$QTX qb1=$QBODY
jis .status '"BLOCKED"' "a PENDING sender's quote: BLOCKED (still 201)"
api POST "/quotes/$QB1/execute"
is_error 409 QUOTE_BLOCKED "execute the PENDING sender's quote"
balance_of "$SP_USD"
is "$BAL" 100000 "QUOTE_BLOCKED: nothing moved"
api GET "/transactions/$QB1_TX"
jis '{status, settledAt}' '{"status":"CREATED","settledAt":null}' "QUOTE_BLOCKED: its transaction still CREATED"
api PATCH "/customers/$SP" '{"kycStatus":"APPROVED"}'
is_status 200 "sender SP: kycStatus APPROVED afterwards"
api GET "/quotes/$QB1"
jis . "$qb1" "the BLOCKED quote stays as created (BLOCKED is decided at creation)"
api POST "/quotes/$QB1/execute"
is_error 409 QUOTE_BLOCKED "execute it once the sender is APPROVED: still QUOTE_BLOCKED"

mk_customer t90-sj
int_account "$CUST" USD
api PATCH "/customers/$CUST" '{"kycStatus":"REJECTED"}'
new_quote "a REJECTED sender -> R1" "$(ppv_quote "$INT" "$R1_PPV" EUR RECEIVING 1000)"
jis .status '"BLOCKED"' "a REJECTED sender's quote: BLOCKED"
api POST "/quotes/$QID/execute"
is_error 409 QUOTE_BLOCKED "execute the REJECTED sender's quote (and no money): QUOTE_BLOCKED before INSUFFICIENT_FUNDS"

mk_customer t90-rr
RR_PPV=$CUST_PPV
api PATCH "/customers/$CUST" '{"kycStatus":"REJECTED"}'
is_status 200 "receiver RR: kycStatus REJECTED"
new_quote "S1 -> RR (REJECTED receiver)" "$(ppv_quote "$S1_USD" "$RR_PPV" EUR RECEIVING 1000)"
QB2=$QID
jis .status '"BLOCKED"' "a REJECTED receiver's quote: BLOCKED"
api POST "/quotes/$QB2/execute"
is_error 409 QUOTE_BLOCKED "execute the REJECTED receiver's quote"
mk_ext "$CUST" 000290290101 EUR
new_quote "S1 -> external account of RR (REJECTED owner)" "$(ext_quote "$S1_USD" "$EXT" RECEIVING 1000)"
jis .status '"BLOCKED"' "a payout to a REJECTED customer's external account: BLOCKED"
mk_customer t90-rp
api PATCH "/customers/$CUST" '{"kycStatus":"PENDING"}'
new_quote "S1 -> RP (PENDING receiver)" "$(ppv_quote "$S1_USD" "$CUST_PPV" EUR RECEIVING 1000)"
jis .status '"QUOTE_READY"' "a PENDING receiver's quote: QUOTE_READY (only REJECTED blocks a receiver)"

# --- INSUFFICIENT_FUNDS, then funding, then execution ---------------------------------------
mk_customer t90-s2
S2=$CUST
int_account "$S2" USD
S2_USD=$INT
fund "$S2_USD" 1000
new_quote "S2 -> R1, RECEIVING 3000" "$(ppv_quote "$S2_USD" "$R1_PPV" EUR RECEIVING 3000)"
Q7=$QID Q7_TX=$QTX q7=$QBODY
# P = ceil(3000 * 10000000 * 10000 / (9213377 * 9950)) = ceil(3272.50) = 3273
# fees = ceil(3273 * 75 / 10000) = ceil(24.5475) = 25; S = 3273 + 25 = 3298
priced "Q7" USD 3298 EUR 3000 25 0.91673101
api POST "/quotes/$Q7/execute"
is_error 409 INSUFFICIENT_FUNDS "execute Q7 with 1000 of 3298"
has_keys "$(j .details)" 'available requested' "INSUFFICIENT_FUNDS: details has exactly available and requested"
jis .details "{\"available\":$(money USD 1000),\"requested\":$(money USD 3298)}" "INSUFFICIENT_FUNDS: available USD 1000, requested USD 3298"
balance_of "$S2_USD"
is "$BAL" 1000 "INSUFFICIENT_FUNDS: nothing moved"
api GET "/quotes/$Q7"
jis . "$q7" "INSUFFICIENT_FUNDS: the quote unchanged (QUOTE_READY, executedAt null)"
api GET "/transactions/$Q7_TX"
jis .status '"CREATED"' "INSUFFICIENT_FUNDS: its transaction still CREATED"
fund "$S2_USD" 2298
balance_of "$R1_EUR"
r1_0=$BAL
fee_balance USD
f_0=$FEE
api POST "/quotes/$Q7/execute"
is_status 200 "execute Q7 once funded with exactly S: 200"
jis .status '"COMPLETED"' "Q7 executed: COMPLETED"
balance_of "$S2_USD"
is "$BAL" 0 "Q7 executed: 1000 + 2298 - 3298 = 0 left"
balance_of "$R1_EUR"
is "$BAL" $((r1_0 + 3000)) "Q7 executed: R1's EUR + 3000"
fee_balance USD
is "$FEE" $((f_0 + 25)) "Q7 executed: P's own USD account + 25 (20 + 5)"

# --- 410 GONE: a customer deleted since the quote ----------------------------------------------
mk_customer t90-rg
RG=$CUST RG_PPV=$CUST_PPV
new_quote "S1 -> RG" "$(ppv_quote "$S1_USD" "$RG_PPV" EUR RECEIVING 1000)"
QG1=$QID
mk_customer t90-rgx
RGX=$CUST
mk_ext "$RGX" 000290290201 EUR
RGX_X=$EXT
new_quote "S1 -> external account of RGX" "$(ext_quote "$S1_USD" "$RGX_X" RECEIVING 1000)"
QG2=$QID
api DELETE "/customers/$RG"
is_status 200 "delete the receiving customer RG"
api DELETE "/customers/$RGX"
is_status 200 "delete the external account's owner RGX"
balance_of "$S1_USD"
s1_0=$BAL
api POST "/quotes/$QG1/execute"
is_error 410 GONE "execute a quote whose receiving customer was deleted"
api POST "/quotes/$QG2/execute"
is_error 410 GONE "execute a payout whose external account's owner was deleted"
balance_of "$S1_USD"
is "$BAL" "$s1_0" "410 GONE: nothing moved"
q_error 410 GONE "$(ext_quote "$S1_USD" "$RGX_X" RECEIVING 1000)" "to the external account of a deleted customer"
q_error 404 RECEIVER_NOT_FOUND "$(ppv_quote "$S1_USD" "$RG_PPV" EUR RECEIVING 1000)" "to the address of a deleted customer"

# --- Idempotency-Key on POST /quotes and on execute ---------------------------------------------
api GET "/quotes?limit=1"
n0=$(jr .totalCount)
key="$RUN-create"
body=$(ppv_quote "$S1_USD" "$R1_PPV" EUR RECEIVING 3000)
new_quote "with Idempotency-Key" "$body" -H "Idempotency-Key: $key"
isnt "$(header Idempotent-Replayed)" true "POST /quotes with a new key: not marked Idempotent-Replayed"
QI=$QID qi=$QBODY
api POST /quotes "$body" -H "Idempotency-Key: $key"
is "$STATUS" 201 "POST /quotes replayed: 201"
jis . "$qi" "POST /quotes replayed: the first body (the same quote)"
is_header Idempotent-Replayed true "POST /quotes replayed: Idempotent-Replayed: true"
api GET "/quotes?limit=1"
jis .totalCount "$((n0 + 1))" "POST /quotes replayed: one quote made"
api POST /quotes "$(ppv_quote "$S1_USD" "$R1_PPV" EUR RECEIVING 3001)" -H "Idempotency-Key: $key"
is_error 409 IDEMPOTENCY_KEY_REUSED "POST /quotes, same key, another amount"

key="$RUN-exec"
balance_of "$S1_USD"
s1_0=$BAL
balance_of "$R1_EUR"
r1_0=$BAL
api POST "/quotes/$QI/execute" '' -H "Idempotency-Key: $key"
is_status 200 "execute with Idempotency-Key: 200"
isnt "$(header Idempotent-Replayed)" true "execute with a new key: not marked Idempotent-Replayed"
ex1=$BODY
api POST "/quotes/$QI/execute" '' -H "Idempotency-Key: $key"
is "$STATUS" 200 "execute replayed: 200"
jis . "$ex1" "execute replayed: the first body"
is_header Idempotent-Replayed true "execute replayed: Idempotent-Replayed: true"
balance_of "$S1_USD"
is "$BAL" $((s1_0 - 3298)) "execute replayed: the sender paid 3298 once"
balance_of "$R1_EUR"
is "$BAL" $((r1_0 + 3000)) "execute replayed: the receiver got 3000 once"
api POST "/quotes/$Q4/execute" '' -H "Idempotency-Key: $key"
is_error 409 IDEMPOTENCY_KEY_REUSED "the execute key on another quote"
api POST "/quotes/$QI/execute"
is_error 409 QUOTE_ALREADY_EXECUTED "execute it again without the key"

# --- the quote ids of the path --------------------------------------------------------------
for bad in Quote:xyz "Transaction:${Q1#Quote:}"; do
    api GET "/quotes/$bad"
    is_error 400 INVALID_REQUEST "GET /quotes/$bad"
    has_details quoteId "GET /quotes/$bad: details names quoteId"
    api POST "/quotes/$bad/execute"
    is_error 400 INVALID_REQUEST "POST /quotes/$bad/execute"
    has_details quoteId "POST /quotes/$bad/execute: details names quoteId"
done
unknown="Quote:$(uuid4)"
api GET "/quotes/$unknown"
is_error 404 QUOTE_NOT_FOUND "GET an unknown quote"
api POST "/quotes/$unknown/execute"
is_error 404 QUOTE_NOT_FOUND "execute an unknown quote"

# --- platform Q: its own quotes only -----------------------------------------------------
new_quote "Q's customer -> R1 on P (a receiver of another platform)" "$(ppv_quote "$QC_USD" "$R1_PPV" EUR RECEIVING 1000)" "${QP[@]}"
QQ=$QID
api "${QP[@]}" GET "/quotes?limit=100"
jis '[.totalCount, [.data[].quoteId]]' "[1,[\"$QQ\"]]" "Q's GET /quotes: only its own quote"
api "${QP[@]}" GET "/quotes/$Q1"
is_error 404 QUOTE_NOT_FOUND "Q: GET P's quote"
api "${QP[@]}" POST "/quotes/$Q7/execute"
is_error 404 QUOTE_NOT_FOUND "Q: execute P's quote"
api "${QP[@]}" POST "/quotes/$Q4/execute"
is_error 404 QUOTE_NOT_FOUND "Q: execute P's unexecuted quote"
api GET "/quotes/$QQ"
is_error 404 QUOTE_NOT_FOUND "P: GET Q's quote"

# --- GET /quotes -----------------------------------------------------------------------------
want=$(printf '%s\n' "${P_QUOTES[@]}" | jq -Rsc 'split("\n") | map(select(length > 0)) | reverse')
N=${#P_QUOTES[@]}
note "P has $N quotes, ${#P_BLOCKED[@]} BLOCKED"
api GET "/quotes?limit=100"
is_status 200 "GET /quotes?limit=100: 200"
has_keys "$BODY" 'data hasMore nextCursor totalCount' "GET /quotes: the list envelope"
quote_rows "GET /quotes?limit=100"
jis '[.totalCount, .hasMore, .nextCursor]' "[$N,false,null]" "GET /quotes?limit=100: totalCount $N, hasMore false, nextCursor null"
jis '[.data[].quoteId]' "$want" "GET /quotes?limit=100: every quote of P, newest first"
jok '[.data[].createdAt] as $c | $c == ($c | sort | reverse)' "GET /quotes: createdAt descending"
jis ".data[] | select(.quoteId == \"$Q1\")" "$(jq -c '{quoteId, transactionId, createdAt, expiresAt, lockedCurrencySide, lockedCurrencyAmount,
    sendingAmount, receivingAmount, feesTotal, status}' <<<"$q1")" "GET /quotes: Q1's row is the Quote's summary"
all100=$BODY
api GET /quotes
is_status 200 "GET /quotes without limit: 200"
jis '[(.data | length), .totalCount]' "[$((N < 20 ? N : 20)),$N]" "GET /quotes without limit: the first $((N < 20 ? N : 20)) of $N"
api GET "/quotes?limit=1"
jis '[[.data[].quoteId], .hasMore, .nextCursor, .totalCount]' "[[$(jq -c '.[0]' <<<"$want")],true,\"1\",$N]" \
    "GET /quotes?limit=1: the newest quote, hasMore, nextCursor \"1\""
walk_pages "GET /quotes, 4 per page" /quotes 4 4 "$want" null quoteId
for lim in 0 -1 x ''; do
    api GET "/quotes?limit=$lim"
    is_error 400 INVALID_REQUEST "GET /quotes?limit=$lim"
    has_details limit "GET /quotes?limit=$lim: details names limit"
done
api GET "/quotes?cursor=x"
is_error 400 INVALID_REQUEST "GET /quotes?cursor=x"
has_details cursor "GET /quotes?cursor=x: details names cursor"
api GET "/quotes?cursor=100000"
is_status 200 "GET /quotes?cursor=100000: 200"
jis '[.data, .hasMore, .nextCursor, .totalCount]' "[[],false,null,$N]" "GET /quotes past the end: no rows, hasMore false, nextCursor null"

blocked=$(printf '%s\n' "${P_BLOCKED[@]}" | jq -Rsc 'split("\n") | map(select(length > 0)) | reverse')
api GET "/quotes?status=BLOCKED&limit=100"
is_status 200 "GET /quotes?status=BLOCKED: 200"
jis '[.data[].quoteId]' "$blocked" "status=BLOCKED: exactly the BLOCKED quotes, newest first"
jis .totalCount "${#P_BLOCKED[@]}" "status=BLOCKED: totalCount ${#P_BLOCKED[@]}"
api GET "/quotes?status=QUOTE_READY&limit=100"
is_status 200 "GET /quotes?status=QUOTE_READY: 200"
jis '[.data[].quoteId]' "$(jq -c --argjson b "$blocked" '. - $b' <<<"$want")" "status=QUOTE_READY: every other quote (executed ones included), newest first"
jok 'all(.data[]; .status == "QUOTE_READY")' "status=QUOTE_READY: every row QUOTE_READY"
ready=$BODY
api GET "/quotes?status=PENDING&limit=100"
is_status 200 "GET /quotes?status=PENDING: 200"
jis . "$ready" "status=PENDING: the same rows as QUOTE_READY (alias)"
api GET "/quotes?status=EXPIRED"
jis '[.data, .totalCount]' '[[],0]' "status=EXPIRED: none on P yet"
api GET "/quotes?status=BLOCKED&limit=1"
jis '[.data[].quoteId, .hasMore]' "[$(jq -c '.[0]' <<<"$blocked"),true]" "status=BLOCKED&limit=1: the newest BLOCKED quote, hasMore"
for st in FOO quote_ready ''; do
    api GET "/quotes?status=$st"
    is_error 400 INVALID_REQUEST "GET /quotes?status=$st"
    jok '.details.status | type == "string" and test("QUOTE_READY") and test("BLOCKED") and test("EXPIRED") and test("PENDING")' \
        "GET /quotes?status=$st: details.status lists QUOTE_READY, BLOCKED, EXPIRED, PENDING"
done
api GET "/quotes?status=BLOCKED&status=EXPIRED"
is_error 400 INVALID_REQUEST "GET /quotes with status twice"
has_details status "GET /quotes with status twice: details names status"

# --- permissions and methods ----------------------------------------------------------------
create_token "$(uniq_name t90-view)" '["view"]'
V=(--as "$TOK_CLIENT_ID" "$TOK_SECRET")
api "${V[@]}" GET "/quotes?limit=100"
is_status 200 "view token: GET /quotes 200"
jis '[.data[].quoteId]' "$want" "view token: the same quotes"
api "${V[@]}" GET "/quotes/$Q1"
is_status 200 "view token: GET /quotes/{id} 200"
api "${V[@]}" POST /quotes "$(ppv_quote "$S1_USD" "$R1_PPV" EUR RECEIVING 1000)"
is_error 403 FORBIDDEN "view token: POST /quotes"
jis .details.requiredAccessLevel '"manage"' "view token POST /quotes: details.requiredAccessLevel manage"
api "${V[@]}" POST "/quotes/$Q4/execute"
is_error 403 FORBIDDEN "view token: execute"
jis .details.requiredAccessLevel '"manage"' "view token execute: details.requiredAccessLevel manage"
api --noauth POST /quotes "$(ppv_quote "$S1_USD" "$R1_PPV" EUR RECEIVING 1000)"
is_error 401 UNAUTHORIZED "POST /quotes without credentials"
api --noauth GET /quotes
is_error 401 UNAUTHORIZED "GET /quotes without credentials"
api --noauth POST "/quotes/$Q4/execute"
is_error 401 UNAUTHORIZED "execute without credentials"
api PUT /quotes '{}'
is_error 405 METHOD_NOT_ALLOWED "PUT /quotes"
api DELETE "/quotes/$Q4"
is_error 405 METHOD_NOT_ALLOWED "DELETE /quotes/{id}"
api GET "/quotes/$Q4/execute"
is_error 405 METHOD_NOT_ALLOWED "GET /quotes/{id}/execute"
like "$(header Allow)" POST "GET /quotes/{id}/execute: Allow names POST"
api GET "/quotes/$Q4"
jis '[.status, .executedAt]' '["QUOTE_READY",null]' "Q4 untouched by the refused executions"

out=$(xbctl ledger-check 2>&1)
is "$?" 0 "xborderctl ledger-check exits 0"
like "$out" 'ledger ok' "xborderctl ledger-check: ledger ok"

done_testing
