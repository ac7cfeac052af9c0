#!/usr/bin/env bash
# 64-exchange-rates.t - GET /exchange-rates (decisions.md section 14) and
# xborderctl fx-unset: the rows' exact shape and order, rates and amounts to
# the minor unit (JPY with 0 decimals, KWD with 3), a currency to itself,
# equality with a SENDING-locked POST /quotes to one of the platform's own
# external accounts made in the same second, every error in its order of
# checks (form, CURRENCY_NOT_ENABLED, no reference price, AMOUNT_OUT_OF_RANGE,
# a corridor that cannot be priced), a currency whose price is removed with
# fx-unset and set again, paging, the view token, another platform's own
# settings.  Sets the reference prices it needs with xborderctl fx-set and
# fx-unset (restored at exit).
#
# Platform P (its own receiving platform, as for a payout):
#   btcFiatSpreadBps 25, so spreadBps = 2 * 25 = 50; fees 60 + 15, feeBps 75.
# Reference prices, minor units per BTC: USD 10000000, EUR 9213377,
# JPY 15304219 (0 decimals), KWD 30712345 (3 decimals), MXN 200000000,
# NOK 110000000, ZAR 180000000.
. "$(dirname "${BASH_SOURCE[0]}")/lib/api.sh"
. "$(dirname "${BASH_SOURCE[0]}")/lib/money.sh"
no_plan

fx_prices USD=10000000 EUR=9213377 JPY=15304219 KWD=30712345 MXN=200000000 NOK=110000000 ZAR=180000000

RATE_KEYS='sourceCurrency destinationCurrency exchangeRate spreadBps feeBps'
AMOUNT_RATE_KEYS="$RATE_KEYS sendingAmount receivingAmount feesTotal"

# rates QUERY [api options]: GET /exchange-rates?QUERY (1 test + the call's).
rates() {
    local q=$1
    shift
    api "$@" GET "/exchange-rates?$q"
    is_status 200 "GET /exchange-rates?$q: 200"
}

# bad_rates QUERY STATUS CODE PARAM WHAT: the error, naming PARAM (5 tests).
bad_rates() {
    api GET "/exchange-rates?$1"
    is_error "$2" "$3" "GET /exchange-rates?$1 ($5)"
    has_details "$4" "GET /exchange-rates?$1: details names $4"
}

# row_is DST RATE [S R FEES]: the one row in $BODY, exactly (1 test).
row_is() {
    local dst=$1 rate=$2 want
    want="{\"sourceCurrency\":\"$SRC\",\"destinationCurrency\":\"$dst\",\"exchangeRate\":\"$rate\",\"spreadBps\":$SPREAD,\"feeBps\":$FEEBPS"
    if [[ -n ${3:-} ]]; then
        want+=",\"sendingAmount\":$(money "$SRC" "$3"),\"receivingAmount\":$(money "$dst" "$4"),\"feesTotal\":$(money "$SRC" "$5")"
    fi
    jis .data "[$want}]" "$SRC->$dst: rate $rate${3:+, sends $3, receives $4, fees $5}"
}

# --- platform P ---------------------------------------------------------------------------
new_platform t64 || BAIL_OUT "platform-create failed"
pass "platform P created with xborderctl"
use_creds "$NP_CLIENT_ID" "$NP_SECRET"
SPREAD=50 FEEBPS=75
set_profile 25 900
set_fees 60 15
# USD 50..100000000 for the range rules, NOK OUTGOING only, SEK INCOMING only.
set_currencies "[$(cur_entry USD 50 100000000 both),$(cur_entry EUR 100 10000000 both),
    $(cur_entry JPY 1 100000000000 both),$(cur_entry KWD 1 100000000000 both),
    $(cur_entry MXN 1 100000000000000 both),$(cur_entry NOK 1 100000000000 out),
    $(cur_entry SEK 1 100000000000 in),$(cur_entry ZAR 1 100000000000 both)]"
P_CUR=$BODY

mk_customer t64-s
S=$CUST
int_account "$S" USD
S_USD=$INT
int_account "$S" KWD
S_KWD=$INT
int_account "$S" JPY
S_JPY=$INT
mk_customer t64-r
R=$CUST
declare -A X=()
for c in USD EUR JPY KWD ZAR; do
    mk_ext "$R" "00064064$((RANDOM % 9000 + 1000))" "$c"
    X[$c]=$EXT
done

# --- the rows: shape, order, values --------------------------------------------------------
SRC=USD
rates "sourceCurrency=USD"
has_keys "$BODY" 'data hasMore nextCursor totalCount' "USD: the list envelope"
jis '[.data[].destinationCurrency]' '["EUR","JPY","KWD","MXN","NOK","ZAR"]' \
    "USD: every other OUTGOING currency with a price, by currency (not SEK: INCOMING only; not USD)"
jis '{hasMore, nextCursor, totalCount}' '{"hasMore":false,"nextCursor":null,"totalCount":6}' "USD: one page of 6"
jok --arg k "$RATE_KEYS" '[.data[] | keys == ($k | split(" ") | sort)] | all' "USD: every row has exactly $RATE_KEYS"
jok 'all(.data[]; .sourceCurrency == "USD" and .spreadBps == 50 and .feeBps == 75
     and (.exchangeRate | test("^[0-9]+\\.[0-9]{8}$")))' "USD: spreadBps 50 (2 x 25), feeBps 75 (60 + 15), 8 decimals"
# rate = floor(pr * 10^es * 9950 * 10^8 / (ps * 10^er * 10000)) / 10^8
jis '[.data[] | {(.destinationCurrency): .exchangeRate}] | add' \
    '{"EUR":"0.91673101","JPY":"152.27697905","KWD":"0.30558783","MXN":"19.90000000","NOK":"10.94500000","ZAR":"17.91000000"}' \
    "USD: the rates, to 8 decimals (JPY 0 decimals, KWD 3)"

# With sendingAmount 10000: P = 9925 (9925 + ceil(74.44) = 10000), fees 75.
rates "sourceCurrency=USD&sendingAmount=10000"
jok --arg k "$AMOUNT_RATE_KEYS" '[.data[] | keys == ($k | split(" ") | sort)] | all' \
    "USD with sendingAmount: every row has exactly $AMOUNT_RATE_KEYS"
jis '[.data[] | {(.destinationCurrency): [.sendingAmount.amountMinor, .receivingAmount.amountMinor, .feesTotal.amountMinor, .receivingAmount.currencyCode, .feesTotal.currencyCode]}] | add' \
    '{"EUR":["10000","9098","75","EUR","USD"],"JPY":["10000","15113","75","JPY","USD"],"KWD":["10000","30329","75","KWD","USD"],
      "MXN":["10000","197507","75","MXN","USD"],"NOK":["10000","108629","75","NOK","USD"],"ZAR":["10000","177756","75","ZAR","USD"]}' \
    "USD 100.00: R = floor(9925 * pr * 9950 / (ps * 10000)) in each currency's minor units, fees in USD"

rates "sourceCurrency=USD&destinationCurrency=JPY&sendingAmount=10000"
row_is JPY 152.27697905 10000 15113 75
SRC=KWD
# KWD -> JPY, 12.345 KWD: P = 12253, fees 92, R = 6075 yen.
rates "sourceCurrency=KWD&destinationCurrency=JPY&sendingAmount=12345"
row_is JPY 495.81684189 12345 6075 92
SRC=JPY
# JPY -> KWD, 1000 yen: P = 992, fees 8, R = 1980 fils (1.980 KWD).
rates "sourceCurrency=JPY&destinationCurrency=KWD&sendingAmount=1000"
row_is KWD 0.00199675 1000 1980 8
rates "sourceCurrency=JPY&destinationCurrency=USD&sendingAmount=1000"
row_is USD 0.00650147 1000 644 8
SRC=USD
# A currency to itself: the spread and the fees apply all the same.
rates "sourceCurrency=USD&destinationCurrency=USD"
row_is USD 0.99500000
rates "sourceCurrency=USD&destinationCurrency=USD&sendingAmount=10000"
row_is USD 0.99500000 10000 9875 75
# An OUTGOING-only currency is a source like any other.
rates "sourceCurrency=NOK&destinationCurrency=EUR"
jis '[.data[].destinationCurrency]' '["EUR"]' "NOK (OUTGOING only) -> EUR: one row"
# Unknown query parameters are ignored.
rates "sourceCurrency=USD&destinationCurrency=EUR&currency=JPY&foo=bar"
jis '[.data[].destinationCurrency]' '["EUR"]' "unknown parameters ignored"
# The edges of the source currency's range are accepted.
rates "sourceCurrency=USD&destinationCurrency=EUR&sendingAmount=50"
jis '.data[0].sendingAmount.amountMinor' '"50"' "sendingAmount 50 (USD minAmount)"
rates "sourceCurrency=USD&destinationCurrency=EUR&sendingAmount=100000000"
jis '.data[0].sendingAmount.amountMinor' '"100000000"' "sendingAmount 100000000 (USD maxAmount)"

# --- the same as a quote made in the same second -----------------------------------------------
# same_as_quote WHAT SOURCE_ACCOUNT SCUR DCUR AMOUNT: a SENDING-locked POST
# /quotes of AMOUNT to R's DCUR external account and GET /exchange-rates
# for the corridor, in the same second (tried up to 3 times), price alike.
same_as_quote() {
    local what=$1 src=$2 scur=$3 dcur=$4 amount=$5 qb qsec rsec
    for _ in 1 2 3; do
        api POST /quotes "$(ext_quote "$src" "${X[$dcur]}" SENDING "$amount")"
        is_status 201 "$what: POST /quotes 201"
        qb=$BODY
        api GET "/exchange-rates?sourceCurrency=$scur&destinationCurrency=$dcur&sendingAmount=$amount"
        is_status 200 "$what: GET /exchange-rates 200"
        rsec=$(date -u -d "$(header Date)" +%Y-%m-%dT%H:%M:%S 2>/dev/null || date -u +%Y-%m-%dT%H:%M:%S)
        qsec=$(jr '.createdAt[0:19]' "$qb")
        [[ $qsec == "$rsec" ]] && break
    done
    is "$rsec" "$qsec" "$what: the quote and the rates in the same second"
    jis '.data | length' 1 "$what: one row"
    jis '.data[0] | {exchangeRate, sendingAmount, receivingAmount, feesTotal}' \
        "$(jq -c '{exchangeRate, sendingAmount, receivingAmount, feesTotal}' <<<"$qb")" \
        "$what: exchangeRate, sendingAmount, receivingAmount and feesTotal are the quote's"
    api GET "/exchange-rates?sourceCurrency=$scur&destinationCurrency=$dcur"
    jis '.data[0].exchangeRate' "$(jq -c .exchangeRate <<<"$qb")" "$what: without sendingAmount, the quote's exchangeRate"
}
same_as_quote "USD->JPY 100.00" "$S_USD" USD JPY 10000
same_as_quote "USD->EUR 123.45" "$S_USD" USD EUR 12345
same_as_quote "USD->KWD 999999.99" "$S_USD" USD KWD 99999999
same_as_quote "KWD->JPY 12.345" "$S_KWD" KWD JPY 12345
same_as_quote "JPY->KWD 1000 yen" "$S_JPY" JPY KWD 1000
same_as_quote "USD->USD 100.00" "$S_USD" USD USD 10000
# Other fees and spread: the rates follow the platform's settings at once.
set_profile 40 900
set_fees 125 30
same_as_quote "USD->JPY 100.00, spread 80, fees 155" "$S_USD" USD JPY 10000
jis '.data[0] | {spreadBps, feeBps}' '{"spreadBps":80,"feeBps":155}' "spreadBps 80, feeBps 155 after the changes"
set_profile 25 900
set_fees 60 15

# --- errors: the query's form (400 INVALID_REQUEST naming the parameter) --------------------------
bad_rates "" 400 INVALID_REQUEST sourceCurrency "no sourceCurrency"
bad_rates "destinationCurrency=EUR&sendingAmount=100" 400 INVALID_REQUEST sourceCurrency "only the others"
for v in usd US USDD "" U1D "US%20"; do
    bad_rates "sourceCurrency=$v" 400 INVALID_REQUEST sourceCurrency "sourceCurrency '$v'"
done
bad_rates "sourceCurrency=USD&sourceCurrency=EUR" 400 INVALID_REQUEST sourceCurrency "sourceCurrency twice"
for v in eur E "" EURO; do
    bad_rates "sourceCurrency=USD&destinationCurrency=$v" 400 INVALID_REQUEST destinationCurrency "destinationCurrency '$v'"
done
bad_rates "sourceCurrency=USD&destinationCurrency=EUR&destinationCurrency=JPY" 400 INVALID_REQUEST destinationCurrency \
    "destinationCurrency twice"
for v in "" 0 000 -5 1.5 abc 1e3 "%2B100" 1234567890123456789 "%20100"; do
    bad_rates "sourceCurrency=USD&sendingAmount=$v" 400 INVALID_REQUEST sendingAmount "sendingAmount '$v'"
done
bad_rates "sourceCurrency=USD&sendingAmount=100&sendingAmount=200" 400 INVALID_REQUEST sendingAmount "sendingAmount twice"
bad_rates "sourceCurrency=USD&limit=0" 400 INVALID_REQUEST limit "limit 0"
bad_rates "sourceCurrency=USD&limit=101" 400 INVALID_REQUEST limit "limit 101"
bad_rates "sourceCurrency=USD&cursor=-1" 400 INVALID_REQUEST cursor "cursor -1"
bad_rates "sourceCurrency=USD&cursor=abc" 400 INVALID_REQUEST cursor "cursor abc"
# The form before the currency rules.
bad_rates "sourceCurrency=SEK&sendingAmount=abc" 400 INVALID_REQUEST sendingAmount "form before CURRENCY_NOT_ENABLED"

# --- CURRENCY_NOT_ENABLED (OUTGOING on P), naming the parameter ---------------------------------------
bad_rates "sourceCurrency=SEK" 400 CURRENCY_NOT_ENABLED sourceCurrency "SEK is INCOMING only"
bad_rates "sourceCurrency=GBP" 400 CURRENCY_NOT_ENABLED sourceCurrency "GBP is not on P"
bad_rates "sourceCurrency=XYZ" 400 CURRENCY_NOT_ENABLED sourceCurrency "XYZ is no currency at all"
bad_rates "sourceCurrency=USD&destinationCurrency=SEK" 400 CURRENCY_NOT_ENABLED destinationCurrency "to SEK, INCOMING only"
bad_rates "sourceCurrency=USD&destinationCurrency=GBP" 400 CURRENCY_NOT_ENABLED destinationCurrency "to GBP, not on P"
bad_rates "sourceCurrency=SEK&destinationCurrency=GBP" 400 CURRENCY_NOT_ENABLED sourceCurrency "both: the source first"
bad_rates "sourceCurrency=SEK&sendingAmount=999999999999999999" 400 CURRENCY_NOT_ENABLED sourceCurrency \
    "CURRENCY_NOT_ENABLED before AMOUNT_OUT_OF_RANGE"

# --- AMOUNT_OUT_OF_RANGE: sendingAmount outside USD 50..100000000 --------------------------------------
bad_rates "sourceCurrency=USD&sendingAmount=49" 400 AMOUNT_OUT_OF_RANGE sendingAmount "USD 0.49, under minAmount"
bad_rates "sourceCurrency=USD&destinationCurrency=EUR&sendingAmount=100000001" 400 AMOUNT_OUT_OF_RANGE sendingAmount \
    "USD 1000000.01, over maxAmount"
bad_rates "sourceCurrency=USD&sendingAmount=999999999999999999" 400 AMOUNT_OUT_OF_RANGE sendingAmount "18 nines"

# --- a currency without a reference price: xborderctl fx-unset, then fx-set again ------------------------
out=$(xbctl fx-unset ZAR 2>&1)
rc=$?
is "$rc $out" "0 ZAR"$'\t'"180000000" "xborderctl fx-unset ZAR: exit 0, prints the currency and the price it had"
is "$(xbctl fx-list | awk -F'\t' '$1 == "ZAR"')" "" "fx-list no longer shows ZAR"
out=$(xbctl fx-unset ZAR 2>&1 >/dev/null)
rc=$?
is "$rc" 1 "fx-unset ZAR again: exit 1"
like "$out" "ZAR has no reference price" "... saying ZAR has no reference price"
out=$(xbctl fx-unset XXQ 2>&1 >/dev/null)
rc=$?
is "$rc" 1 "fx-unset XXQ: exit 1"
like "$out" "unknown currency XXQ" "... an unknown currency"
xbctl fx-unset >/dev/null 2>&1
is "$?" 2 "fx-unset without a currency: exit 2 (usage)"

rates "sourceCurrency=USD"
jis '[.data[].destinationCurrency]' '["EUR","JPY","KWD","MXN","NOK"]' "USD without destinationCurrency: ZAR, without a price, left out"
jis .totalCount 5 "... totalCount 5"
bad_rates "sourceCurrency=ZAR" 400 INVALID_REQUEST sourceCurrency "from ZAR, without a price"
jok '.details.sourceCurrency | test("ZAR")' "from ZAR: the rule names ZAR"
bad_rates "sourceCurrency=USD&destinationCurrency=ZAR" 400 INVALID_REQUEST destinationCurrency "to ZAR, without a price"
bad_rates "sourceCurrency=ZAR&sendingAmount=999999999999999999" 400 INVALID_REQUEST sourceCurrency \
    "the price before AMOUNT_OUT_OF_RANGE"
bad_rates "sourceCurrency=SEK&destinationCurrency=ZAR" 400 CURRENCY_NOT_ENABLED sourceCurrency \
    "CURRENCY_NOT_ENABLED before the price"
# POST /quotes says the same of the currency.
api POST /quotes "$(ext_quote "$S_USD" "${X[ZAR]}" SENDING 10000)"
is_error 400 INVALID_REQUEST "POST /quotes to a ZAR account without a price"
has_details destination.accountId "POST /quotes to ZAR without a price: details names destination.accountId"

fx_prices ZAR=180000000
rates "sourceCurrency=USD"
jis '[.data[].destinationCurrency]' '["EUR","JPY","KWD","MXN","NOK","ZAR"]' "ZAR priced again: back in the list"
rates "sourceCurrency=USD&destinationCurrency=ZAR&sendingAmount=10000"
row_is ZAR 17.91000000 10000 177756 75
same_as_quote "USD->ZAR 100.00, ZAR priced again" "$S_USD" USD ZAR 10000

# --- corridors that cannot be priced ----------------------------------------------------------------
# A spread of 10000 bps (2 x 5000).
set_profile 5000 900
bad_rates "sourceCurrency=USD" 400 INVALID_REQUEST sourceCurrency "spread 10000, no destinationCurrency"
bad_rates "sourceCurrency=USD&destinationCurrency=JPY" 400 INVALID_REQUEST destinationCurrency "spread 10000, to JPY"
bad_rates "sourceCurrency=USD&destinationCurrency=JPY&sendingAmount=10000" 400 INVALID_REQUEST sendingAmount \
    "spread 10000, to JPY with sendingAmount"
bad_rates "sourceCurrency=USD&sendingAmount=10000" 400 INVALID_REQUEST sendingAmount "spread 10000 with sendingAmount"
api POST /quotes "$(ext_quote "$S_USD" "${X[JPY]}" SENDING 10000)"
is_error 400 INVALID_REQUEST "POST /quotes with a spread of 10000"
has_details lockedCurrencyAmount "POST /quotes with a spread of 10000: details names lockedCurrencyAmount"
set_profile 4999 900
SPREAD=9998
rates "sourceCurrency=USD&destinationCurrency=USD"
row_is USD 0.00020000
set_profile 25 900
SPREAD=50
# A receiving amount under one minor unit: 1 fil pays 0 principal and 1 fil of fees.
bad_rates "sourceCurrency=KWD&destinationCurrency=JPY&sendingAmount=1" 400 INVALID_REQUEST sendingAmount "KWD 0.001 to JPY"
bad_rates "sourceCurrency=KWD&sendingAmount=1" 400 INVALID_REQUEST sendingAmount "KWD 0.001 to every currency"
api POST /quotes "$(ext_quote "$S_KWD" "${X[JPY]}" SENDING 1)"
is_error 400 INVALID_REQUEST "POST /quotes KWD 0.001 to JPY"
has_details lockedCurrencyAmount "POST /quotes KWD 0.001 to JPY: details names lockedCurrencyAmount"
# Past 64 bits: IDR at 9 * 10^18 minor units per BTC; USD 1000000.00 would be 8.9 * 10^22 sen.
fx_prices IDR=9000000000000000000
set_currencies "$(jq -c --argjson e "$(cur_entry IDR 1 1000000000000000 both)" '.supportedCurrencies + [$e]' <<<"$P_CUR")"
mk_ext "$R" 000640640077 IDR
X[IDR]=$EXT
rates "sourceCurrency=USD"
jis '[.data[].destinationCurrency]' '["EUR","IDR","JPY","KWD","MXN","NOK","ZAR"]' "IDR in the list"
jis '[.data[] | select(.destinationCurrency == "IDR") | .exchangeRate]' '["895500000000.00000000"]' "USD->IDR at 895500000000"
bad_rates "sourceCurrency=USD&destinationCurrency=IDR&sendingAmount=100000000" 400 INVALID_REQUEST sendingAmount \
    "USD 1000000.00 to IDR, past 64 bits"
bad_rates "sourceCurrency=USD&sendingAmount=100000000" 400 INVALID_REQUEST sendingAmount \
    "USD 1000000.00 to every currency: the IDR row fails the answer"
rates "sourceCurrency=USD&destinationCurrency=EUR&sendingAmount=100000000"
jis '.data[0].receivingAmount.amountMinor' '"90990671"' "USD 1000000.00 to EUR alone: priced"
api POST /quotes "$(ext_quote "$S_USD" "${X[IDR]}" SENDING 100000000)"
is_error 400 INVALID_REQUEST "POST /quotes USD 1000000.00 to IDR"
has_details lockedCurrencyAmount "POST /quotes USD 1000000.00 to IDR: details names lockedCurrencyAmount"
same_as_quote "USD->IDR 0.50" "$S_USD" USD IDR 50
set_currencies "$(jq -c '.supportedCurrencies' <<<"$P_CUR")"

# --- paging ----------------------------------------------------------------------------------
walk_pages "USD rates by 2" "/exchange-rates?sourceCurrency=USD" 2 2 '["EUR","JPY","KWD","MXN","NOK","ZAR"]' null destinationCurrency
walk_pages "USD rates by 4 with sendingAmount" "/exchange-rates?sourceCurrency=USD&sendingAmount=5000" 4 4 \
    '["EUR","JPY","KWD","MXN","NOK","ZAR"]' null destinationCurrency
walk_pages "USD rates, default limit" "/exchange-rates?sourceCurrency=USD" '' 20 '["EUR","JPY","KWD","MXN","NOK","ZAR"]' null destinationCurrency
for c in 6 1000; do
    rates "sourceCurrency=USD&cursor=$c"
    jis '{data, hasMore, nextCursor, totalCount}' '{"data":[],"hasMore":false,"nextCursor":null,"totalCount":6}' \
        "cursor $c, at or past the end: an empty page"
done
rates "sourceCurrency=USD&destinationCurrency=EUR&limit=1&cursor=1"
jis '{data, hasMore, nextCursor, totalCount}' '{"data":[],"hasMore":false,"nextCursor":null,"totalCount":1}' \
    "one corridor, cursor 1: an empty page"

# --- permissions, methods, another platform -----------------------------------------------------------
rates "sourceCurrency=USD&sendingAmount=10000"
root_body=$BODY
create_token "$(uniq_name t64-view)" '["view"]'
rates "sourceCurrency=USD&sendingAmount=10000" --as "$TOK_CLIENT_ID" "$TOK_SECRET"
jis . "$root_body" "view token: the same rates"
api --noauth GET "/exchange-rates?sourceCurrency=USD"
is_error 401 UNAUTHORIZED "GET /exchange-rates without credentials"
api POST "/exchange-rates?sourceCurrency=USD" '{}'
is_error 405 METHOD_NOT_ALLOWED "POST /exchange-rates"
is_header Allow GET "POST /exchange-rates: Allow GET"
api GET "/exchange-rates/USD"
is_error 404 NOT_FOUND "GET /exchange-rates/USD"

# Platform Q: its own settings and currencies.
new_platform t64q || BAIL_OUT "platform-create failed"
pass "platform Q created with xborderctl"
QP=(--as "$NP_CLIENT_ID" "$NP_SECRET")
set_profile 10 300 "${QP[@]}"
set_fees 100 20 "${QP[@]}"
set_currencies "[$(cur_entry USD 1 100000000 both),$(cur_entry EUR 1 100000000 both)]" "${QP[@]}"
rates "sourceCurrency=USD" "${QP[@]}"
jis '.data' '[{"sourceCurrency":"USD","destinationCurrency":"EUR","exchangeRate":"0.91949502","spreadBps":20,"feeBps":120}]' \
    "Q: USD->EUR with its spread 20 (2 x 10) and fees 120 (100 + 20)"
api "${QP[@]}" GET "/exchange-rates?sourceCurrency=USD&destinationCurrency=JPY"
is_error 400 CURRENCY_NOT_ENABLED "Q: to JPY, which P has and Q does not"
has_details destinationCurrency "Q: to JPY: details names destinationCurrency"
rates "sourceCurrency=USD&destinationCurrency=EUR"
row_is EUR 0.91673101

done_testing
