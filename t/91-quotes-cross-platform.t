#!/usr/bin/env bash
# 91-quotes-cross-platform.t - quotes between two platforms of its own: A's
# customer sa pays B's customer rb at its PPV address (and B's rb pays A's
# sa back).  Pricing to the minor unit on fixed reference prices, profiles
# and fee policies (USD->EUR, USD->JPY with 0 decimals, KWD with 3 decimals
# on either side, both locked sides, fees of both platforms and how they
# split), the receiving platform's configuration (INCOMING currencies,
# ranges, mandatory counterparty fields), the payment itself (A's OUTGOING
# transaction COMPLETED with its quoteId; B's own INCOMING transaction,
# quoteId null, seen by B only), every balance of both customers and both
# platforms' own (fee) accounts after each execution, a quote untouched by
# later changes of profiles, fee policies and reference prices, expiresAt
# from the shorter lock, and each platform seeing only its own quotes.
#
# Reference prices, minor units per BTC (set here with xborderctl fx-set,
# restored at exit): USD 10000000, EUR 9213377, JPY 15304219 (0 decimals),
# KWD 30712345 (3 decimals), CHF 8800000.
# A: btcFiatSpreadBps 30, lock 900 s, senderServiceFeeBps 100, receiverServiceFeeBps 40.
# B: btcFiatSpreadBps 20, lock 600 s, senderServiceFeeBps 70, receiverServiceFeeBps 50.
# A -> B: sp = 30 + 20 = 50, F = 100 (A sender) + 50 (B receiver) = 150, Fs = 100.
# B -> A: sp = 50, F = 70 (B sender) + 40 (A receiver) = 110, Fs = 70.
. "$(dirname "${BASH_SOURCE[0]}")/lib/api.sh"
. "$(dirname "${BASH_SOURCE[0]}")/lib/money.sh"
no_plan

fx_prices USD=10000000 EUR=9213377 JPY=15304219 KWD=30712345 CHF=8800000
JP_INFO='{"BIRTH_DATE":"1990-04-01","NATIONALITY":"DE"}'

# --- helpers --------------------------------------------------------------------------

A_QUOTES=() B_QUOTES=()

# new_quote A|B WHAT BODY: POST /quotes by platform A or B, 201 expected
# (3 tests).  Sets QID, QTX, QBODY and records the quote as that platform's.
new_quote() {
    local who=$1 what=$2 body=$3
    if [[ $who == A ]]; then api "${AA[@]}" POST /quotes "$body"; else api "${BB[@]}" POST /quotes "$body"; fi
    is_status 201 "$what: POST /quotes 201"
    QBODY=$BODY QID=$(jr .quoteId) QTX=$(jr .transactionId)
    if [[ $STATUS == 201 ]]; then
        if [[ $who == A ]]; then A_QUOTES+=("$QID"); else B_QUOTES+=("$QID"); fi
    fi
    return 0
}

# priced WHAT SCUR S RCUR R FEES RATE: the quote in $BODY has these amounts (1 test).
priced() {
    jis '{sendingAmount, receivingAmount, feesTotal, exchangeRate}' \
        "{\"sendingAmount\":$(money "$2" "$3"),\"receivingAmount\":$(money "$4" "$5"),\"feesTotal\":$(money "$2" "$6"),\"exchangeRate\":\"$7\"}" \
        "$1: sends $2 $3, receives $4 $5, fees $6, rate $7"
}

# balances: sets BALS to {"sa": {CUR: n...}, "rb": {...}, "fa": {...}, "fb": {...}}:
# every internal account of sa (on A) and rb (on B), and A's and B's own
# accounts.  Uncounted.
balances() {
    local f='[.data[] | {key: .currency, value: (.balance.amountMinor | tonumber)}] | from_entries' sa rb fa fb
    api --nocheck "${AA[@]}" GET "/customers/internal-accounts?customerId=$SA&limit=100"
    sa=$(j "$f")
    api --nocheck "${BB[@]}" GET "/customers/internal-accounts?customerId=$RB&limit=100"
    rb=$(j "$f")
    api --nocheck "${AA[@]}" GET "/platform/internal-accounts?limit=100"
    fa=$(j "$f")
    api --nocheck "${BB[@]}" GET "/platform/internal-accounts?limit=100"
    fb=$(j "$f")
    BALS="{\"sa\":${sa:-null},\"rb\":${rb:-null},\"fa\":${fa:-null},\"fb\":${fb:-null}}"
}

# moved WHAT BEFORE AFTER DELTAS: between the two balances snapshots exactly
# DELTAS moved ({"sa": {"USD": -n}, ...}; every other account, of all four
# owners, unchanged) (1 test).
moved() {
    local got
    got=$(jq -cn --argjson a "$2" --argjson b "$3" '[$b | to_entries[] | .key as $w | .value | to_entries[]
        | {w: $w, c: .key, d: (.value - ($a[$w][.key] // 0))} | select(.d != 0)]
        | group_by(.w) | map({key: .[0].w, value: (map({key: .c, value: .d}) | from_entries)}) | from_entries' 2>&1)
    jis . "$4" "$1" "$got"
}

# bal WHO CUR [SNAPSHOT]: one balance of a snapshot (default $BALS), 0 when absent.
bal() { jq -r --arg w "$1" --arg c "$2" '.[$w][$c] // 0' <<<"${3:-$BALS}"; }

# --- platforms A and B -----------------------------------------------------------------
A_UMA="$(uniq_name ua91).uma.test"
new_platform t91a --uma-domain "$A_UMA" || BAIL_OUT "platform-create failed"
pass "platform A created with xborderctl"
AA=(--as "$NP_CLIENT_ID" "$NP_SECRET")
B_UMA="$(uniq_name ub91).uma.test"
new_platform t91b --uma-domain "$B_UMA" || BAIL_OUT "platform-create failed"
pass "platform B created with xborderctl"
BB=(--as "$NP_CLIENT_ID" "$NP_SECRET")
B_DOMAIN=$NP_DOMAIN

set_profile 30 900 "${AA[@]}"
set_fees 100 40 "${AA[@]}"
set_profile 20 600 "${BB[@]}"
set_fees 70 50 "${BB[@]}"
WIDE=100000000000
# A: USD up to 100000000, EUR with BIRTH_DATE mandatory (it counts only when A receives), KWD, GBP; no JPY, no CHF.
set_currencies "[$(cur_entry USD 1 100000000 both),$(cur_entry EUR 1 $WIDE both BIRTH_DATE),$(cur_entry KWD 1 $WIDE both),
    $(cur_entry GBP 1 $WIDE both)]" "${AA[@]}"
# B: USD with NATIONALITY optional, JPY with BIRTH_DATE and NATIONALITY mandatory, KWD up to 1000000
# (1000.000 KWD), GBP OUTGOING only.
set_currencies "[$(cur_entry USD 1 $WIDE both NATIONALITY=false),$(cur_entry EUR 1 $WIDE both),
    $(cur_entry JPY 1 $WIDE both BIRTH_DATE NATIONALITY),$(cur_entry KWD 1 1000000 both),
    $(cur_entry CHF 1 $WIDE both),$(cur_entry GBP 1 $WIDE out)]" "${BB[@]}"

mk_customer t91-sa "${AA[@]}"
SA=$CUST SA_PCID=$CUST_PCID SA_PPV=$CUST_PPV
int_account "$SA" USD "${AA[@]}"
SA_USD=$INT
int_account "$SA" KWD "${AA[@]}"
SA_KWD=$INT
int_account "$SA" EUR "${AA[@]}"
SA_EUR=$INT
fund "$SA_USD" 5000000 "${AA[@]}"
fund "$SA_KWD" 10000000 "${AA[@]}"
mk_customer t91-rb "${BB[@]}"
RB=$CUST RB_PCID=$CUST_PCID RB_PPV=$CUST_PPV
RB_NAME=${RB_PPV%@*}
like "$RB_PPV" "^[^@]+@$B_DOMAIN\$" "rb's PPV address is on B's ppvDomain"
int_account "$RB" USD "${BB[@]}"
RB_USD=$INT

# --- C1: A's sa pays B's rb EUR 50000 (RECEIVING locked) -----------------------------------
# No senderCounterpartyInfo: B's EUR entry wants only FULL_NAME (A's EUR entry does not count).
new_quote A "C1 USD->EUR, RECEIVING 50000" "$(ppv_quote "$SA_USD" "$RB_PPV" EUR RECEIVING 50000)"
c1=$QBODY C1=$QID C1_TX=$QTX
quote_shape "C1"
# P = ceil(50000 * 10000000 * 10000 / (9213377 * 9950)) = ceil(54541.63) = 54542
# fees = ceil(54542 * 150 / 10000) = ceil(818.13) = 819; S = 54542 + 819 = 55361
# rate = floor(9213377 * 10^2 * 9950 * 10^8 / (10000000 * 10^2 * 10000)) / 10^8 = floor(91673101.15) / 10^8 = 0.91673101
priced "C1" USD 55361 EUR 50000 819 0.91673101
jis '{lockedCurrencySide, lockedCurrencyAmount, status, customerId, source, destination, executedAt}' \
    "{\"lockedCurrencySide\":\"RECEIVING\",\"lockedCurrencyAmount\":\"50000\",\"status\":\"QUOTE_READY\",\"customerId\":\"$SA\",
      \"source\":{\"accountId\":\"$SA_USD\",\"sourceType\":\"INTERNAL_ACCOUNT\"},
      \"destination\":{\"destinationType\":\"PPV_ADDRESS\",\"ppvAddress\":\"$RB_PPV\",\"currencyCode\":\"EUR\"},\"executedAt\":null}" \
    "C1: RECEIVING 50000, QUOTE_READY, sa's USD account, rb's address in EUR, executedAt null"
jok "$QJQ"' (.expiresAt | ms) - (.createdAt | ms) == 600000' "C1: expiresAt = createdAt + min(900 (A), 600 (B)) s"
api "${AA[@]}" GET "/transactions/$C1_TX"
is_status 200 "A: GET C1's transaction 200"
quote_tx_shape "C1's transaction"
jis "$QUOTE_TX_FIELDS" "$(quote_tx_of "$c1")" "C1's transaction: the quote's ids, source, sentAmount = sendingAmount, fees = feesTotal, exchangeRate"
jis '{status, platformCustomerId, destination, settledAt}' \
    "{\"status\":\"CREATED\",\"platformCustomerId\":\"$SA_PCID\",\"destination\":{\"accountId\":\"$RB_PPV\",\"destinationType\":\"PPV_ADDRESS\"},\"settledAt\":null}" \
    "C1's transaction before execution: CREATED, sa's platformCustomerId, rb's address, settledAt null"
api "${BB[@]}" GET "/quotes/$C1"
is_error 404 QUOTE_NOT_FOUND "B: GET A's quote C1"
api "${BB[@]}" POST "/quotes/$C1/execute"
is_error 404 QUOTE_NOT_FOUND "B: execute A's quote C1"
api "${BB[@]}" GET "/transactions/$C1_TX"
is_error 404 TRANSACTION_NOT_FOUND "B: GET A's transaction of C1"

balances
b0=$BALS
api "${AA[@]}" POST "/quotes/$C1/execute"
is_status 200 "A: execute C1: 200"
quote_tx_shape "execute C1"
jis "$QUOTE_TX_FIELDS" "$(quote_tx_of "$c1")" "execute C1: the quote's transaction"
jis '{type, status, customerId, destination}' \
    "{\"type\":\"OUTGOING\",\"status\":\"COMPLETED\",\"customerId\":\"$SA\",\"destination\":{\"accountId\":\"$RB_PPV\",\"destinationType\":\"PPV_ADDRESS\"}}" \
    "execute C1: A's OUTGOING transaction COMPLETED at once"
x1=$BODY
api "${AA[@]}" GET "/transactions/$C1_TX"
jis . "$x1" "A: GET C1's transaction: as execute answered"
api "${AA[@]}" GET "/quotes/$C1"
jis 'del(.executedAt)' "$(j 'del(.executedAt)' "$c1")" "C1 after execution: QUOTE_READY, every value as created"
jok "$QJQ"' (.executedAt | ts) and (.executedAt | ms) >= (.createdAt | ms)' "C1 after execution: executedAt set"
balances
b1=$BALS
# S = 55361 from sa's USD, R = 50000 to rb's EUR;
# fee_s = min(819, ceil(54542 * 100 / 10000) = 546) = 546 to A; fee_r = 819 - 546 = 273 to B (both USD).
is "$(bal sa USD)" $(($(bal sa USD "$b0") - 55361)) "C1: sa's USD balance - 55361"
is "$(bal sa EUR)" "$(bal sa EUR "$b0")" "C1: sa's EUR balance unchanged"
is "$(bal rb EUR)" $(($(bal rb EUR "$b0") + 50000)) "C1: rb's EUR balance + 50000"
is "$(bal rb USD)" "$(bal rb USD "$b0")" "C1: rb's USD balance unchanged"
is "$(bal fa USD)" $(($(bal fa USD "$b0") + 546)) "C1: A's own USD account + 546"
is "$(bal fb USD)" $(($(bal fb USD "$b0") + 273)) "C1: B's own USD account + 273"
moved "C1: nothing else moved on either platform" "$b0" "$b1" '{"sa":{"USD":-55361},"rb":{"EUR":50000},"fa":{"USD":546},"fb":{"USD":273}}'
api "${AA[@]}" GET "/platform/internal-accounts?currency=USD"
jis '[.data[] | {customerId, currency, balance}]' "[{\"customerId\":null,\"currency\":\"USD\",\"balance\":$(money USD "$(bal fa USD)")}]" \
    "A's GET /platform/internal-accounts?currency=USD: one account, customerId null, with the fees"
api "${BB[@]}" GET "/platform/internal-accounts?currency=USD"
jis '[.data[] | {customerId, currency, balance}]' "[{\"customerId\":null,\"currency\":\"USD\",\"balance\":$(money USD "$(bal fb USD)")}]" \
    "B's GET /platform/internal-accounts?currency=USD: one account, customerId null, with its share in USD"

# B's own INCOMING transaction.
api "${BB[@]}" GET "/transactions?customerId=$RB&type=INCOMING"
is_status 200 "B: GET rb's INCOMING transactions: 200"
jis '.data | length' 1 "B: rb has one INCOMING transaction"
BIN=$(jr '.data[0].transactionId')
api "${BB[@]}" GET "/transactions/$BIN"
is_status 200 "B: GET the INCOMING transaction: 200"
jok '(keys - ["exchangeRate","fees"]) == ["createdAt","customerId","destination","platformCustomerId","quoteId","receivedAmount","settledAt","status","transactionId","type","updatedAt"]' \
    "B's INCOMING transaction: the incoming variant's keys (fees and exchangeRate at most besides)"
jis '{type, status, quoteId, customerId, platformCustomerId, destination, receivedAmount}' \
    "{\"type\":\"INCOMING\",\"status\":\"COMPLETED\",\"quoteId\":null,\"customerId\":\"$RB\",\"platformCustomerId\":\"$RB_PCID\",
      \"destination\":{\"accountId\":\"$RB_PPV\",\"destinationType\":\"PPV_ADDRESS\"},\"receivedAmount\":$(money EUR 50000)}" \
    "B's INCOMING transaction: COMPLETED, quoteId null, rb, rb's address, EUR 50000"
jok "$QJQ"' (.transactionId | id("Transaction")) and (.settledAt | ts) and (.createdAt | ts) and (.updatedAt | ts)' \
    "B's INCOMING transaction: Transaction:<uuid4>, settledAt set"
isnt "$BIN" "$C1_TX" "B's INCOMING transaction is not A's transaction"
api "${AA[@]}" GET "/transactions/$BIN"
is_error 404 TRANSACTION_NOT_FOUND "A: GET B's INCOMING transaction"
api "${AA[@]}" GET "/transactions?type=INCOMING&limit=100"
jok --arg t "$BIN" 'all(.data[]; .transactionId != $t)' "A's transaction list does not hold B's INCOMING transaction"
api "${BB[@]}" GET "/transactions?customerId=$RB&type=OUTGOING"
jis .totalCount 0 "B: rb has no OUTGOING transaction (A's stays A's)"

api "${AA[@]}" POST "/quotes/$C1/execute"
is_error 409 QUOTE_ALREADY_EXECUTED "A: execute C1 again"

# --- C2: USD -> JPY on B (0 decimals), SENDING locked; B's mandatory fields ---------------------
# A does not offer JPY at all: what counts is B's INCOMING entry.
api "${AA[@]}" POST /quotes "$(ppv_quote "$SA_USD" "$RB_PPV" JPY SENDING 100000)"
is_error 400 INVALID_REQUEST "C2 without senderCounterpartyInfo"
jis '.details.missingCounterpartyFields | sort' '["BIRTH_DATE","NATIONALITY"]' "C2: B's JPY entry wants BIRTH_DATE and NATIONALITY"
new_quote A "C2 USD->JPY, SENDING 100000" "$(ppv_quote "$SA_USD" "$RB_PPV" JPY SENDING 100000 "$JP_INFO")"
C2=$QID
quote_shape "C2"
# P = floor(100000 * 10000 / 10150) = floor(98522.17) = 98522 (98522 + ceil(1477.83) = 100000)
# fees = 100000 - 98522 = 1478; R = floor(98522 * 15304219 * 9950 / (10000000 * 10000)) = floor(150026.33) = 150026
# rate = floor(15304219 * 10^2 * 9950 * 10^8 / (10000000 * 10^0 * 10000)) / 10^8 = 152.27697905
priced "C2" USD 100000 JPY 150026 1478 152.27697905
jis '[.lockedCurrencySide, .lockedCurrencyAmount]' '["SENDING","100000"]' "C2: SENDING 100000"
balances
b0=$BALS
api "${AA[@]}" POST "/quotes/$C2/execute"
is_status 200 "A: execute C2: 200"
jis '[.status, .sentAmount]' "[\"COMPLETED\",$(money USD 100000)]" "execute C2: COMPLETED, sentAmount USD 100000"
balances
# fee_s = min(1478, ceil(98522 * 100 / 10000) = 986) = 986 to A; fee_r = 1478 - 986 = 492 to B.
moved "C2: sa USD -100000, rb JPY +150026, A USD +986, B USD +492, nothing else" "$b0" "$BALS" \
    '{"sa":{"USD":-100000},"rb":{"JPY":150026},"fa":{"USD":986},"fb":{"USD":492}}'

# --- C3: KWD (3 decimals) -> USD, SENDING locked ------------------------------------------------
# No senderCounterpartyInfo: NATIONALITY is optional in B's USD entry.
new_quote A "C3 KWD->USD, SENDING 1234567" "$(ppv_quote "$SA_KWD" "$RB_PPV" USD SENDING 1234567)"
C3=$QID
# P = floor(1234567 * 10000 / 10150) = floor(1216322.17) = 1216322; fees = 1234567 - 1216322 = 18245
# R = floor(1216322 * 10000000 * 9950 / (30712345 * 10000)) = floor(394056.65) = 394056
# rate = floor(10000000 * 10^3 * 9950 * 10^8 / (30712345 * 10^2 * 10000)) / 10^8 = floor(323973959.6) / 10^8 = 3.23973959
priced "C3" KWD 1234567 USD 394056 18245 3.23973959
balances
b0=$BALS
api "${AA[@]}" POST "/quotes/$C3/execute"
is_status 200 "A: execute C3: 200"
jis '[.status, .sentAmount, .fees]' "[\"COMPLETED\",$(money KWD 1234567),$(money KWD 18245)]" "execute C3: COMPLETED, KWD 1234567 sent, KWD 18245 fees"
balances
# fee_s = min(18245, ceil(1216322 * 100 / 10000) = 12164) = 12164 to A; fee_r = 18245 - 12164 = 6081 to B, in KWD.
moved "C3: sa KWD -1234567, rb USD +394056, A KWD +12164, B KWD +6081, nothing else" "$b0" "$BALS" \
    '{"sa":{"KWD":-1234567},"rb":{"USD":394056},"fa":{"KWD":12164},"fb":{"KWD":6081}}'

# --- C4: USD -> KWD, RECEIVING locked, to $name@umaDomain ---------------------------------------
new_quote A "C4 USD->KWD to \$name@B's umaDomain, RECEIVING 250000" "$(ppv_quote "$SA_USD" "\$$RB_NAME@$B_UMA" KWD RECEIVING 250000)"
C4=$QID C4_TX=$QTX
# P = ceil(250000 * 10000000 * 10000 / (30712345 * 9950)) = ceil(81809.54) = 81810
# fees = ceil(81810 * 150 / 10000) = ceil(1227.15) = 1228; S = 81810 + 1228 = 83038
# rate = floor(30712345 * 10^2 * 9950 * 10^8 / (10000000 * 10^3 * 10000)) / 10^8 = floor(30558783.275) / 10^8 = 0.30558783
priced "C4" USD 83038 KWD 250000 1228 0.30558783
jis .destination "{\"destinationType\":\"PPV_ADDRESS\",\"ppvAddress\":\"$RB_PPV\",\"currencyCode\":\"KWD\"}" \
    "C4: destination.ppvAddress canonical (sent as \$name@umaDomain)"
api "${AA[@]}" GET "/transactions/$C4_TX"
jis .destination "{\"accountId\":\"$RB_PPV\",\"destinationType\":\"PPV_ADDRESS\"}" "C4's transaction: the canonical address"
# The receiving platform's ranges: B's KWD entry stops at 1000000 (A's goes far higher).
new_quote A "USD->KWD RECEIVING 1000000 (B's KWD maximum)" "$(ppv_quote "$SA_USD" "$RB_PPV" KWD RECEIVING 1000000)"
# P = ceil(1000000 * 10000000 * 10000 / (30712345 * 9950)) = ceil(327238.16) = 327239
# fees = ceil(327239 * 150 / 10000) = ceil(4908.585) = 4909; S = 327239 + 4909 = 332148
priced "RECEIVING KWD 1000000" USD 332148 KWD 1000000 4909 0.30558783
api "${AA[@]}" POST /quotes "$(ppv_quote "$SA_USD" "$RB_PPV" KWD RECEIVING 1000001)"
is_error 400 AMOUNT_OUT_OF_RANGE "USD->KWD RECEIVING 1000001 (over B's KWD maximum)"
has_details receivingAmount "over B's KWD maximum: details names receivingAmount"
# The sending platform's ranges: A's USD entry stops at 100000000.
api "${AA[@]}" POST /quotes "$(ppv_quote "$SA_USD" "$RB_PPV" EUR SENDING 100000001)"
is_error 400 AMOUNT_OUT_OF_RANGE "USD->EUR SENDING 100000001 (over A's USD maximum)"
has_details sendingAmount "over A's USD maximum: details names sendingAmount"
# B takes no GBP in (OUTGOING only), although A has GBP both ways.
api "${AA[@]}" POST /quotes "$(ppv_quote "$SA_USD" "$RB_PPV" GBP RECEIVING 1000)"
is_error 400 CURRENCY_NOT_ENABLED "USD->GBP on B (GBP OUTGOING only on B)"
jok '.details.currency | type == "string" and test("GBP")' "GBP on B: details.currency names GBP"
# B's spread and A's together may reach 10000 bps: then nothing can be priced.
set_profile 6000 900 "${AA[@]}"
set_profile 4000 600 "${BB[@]}"
api "${AA[@]}" POST /quotes "$(ppv_quote "$SA_USD" "$RB_PPV" EUR RECEIVING 1000)"
is_error 400 INVALID_REQUEST "corridor spread 6000 + 4000 = 10000 bps"
has_details lockedCurrencyAmount "corridor spread 10000 bps: details names lockedCurrencyAmount"
set_profile 30 900 "${AA[@]}"
set_profile 20 600 "${BB[@]}"

# --- C5, C6: how the fees split ------------------------------------------------------------------
new_quote A "C5 USD->EUR to name@B's umaDomain, RECEIVING 93" "$(ppv_quote "$SA_USD" "$RB_NAME@$B_UMA" EUR RECEIVING 93)"
C5=$QID
# P = ceil(93 * 10000000 * 10000 / (9213377 * 9950)) = ceil(101.45) = 102
# fees = ceil(102 * 150 / 10000) = ceil(1.53) = 2; S = 102 + 2 = 104
priced "C5" USD 104 EUR 93 2 0.91673101
jis .destination.ppvAddress "\"$RB_PPV\"" "C5: the canonical address (sent as name@umaDomain)"
balances
b0=$BALS
api "${AA[@]}" POST "/quotes/$C5/execute"
is_status 200 "A: execute C5: 200"
balances
# fee_s = min(2, ceil(102 * 100 / 10000) = ceil(1.02) = 2) = 2: A takes both; B gets 2 - 2 = 0 (not ceil(102 * 50 / 10000) = 1).
moved "C5: sa USD -104, rb EUR +93, A USD +2, B nothing" "$b0" "$BALS" '{"sa":{"USD":-104},"rb":{"EUR":93},"fa":{"USD":2}}'

new_quote A "C6 USD->EUR, SENDING 10151" "$(ppv_quote "$SA_USD" "$RB_PPV" EUR SENDING 10151)"
C6=$QID
# P = floor(10151 * 10000 / 10150) = floor(10000.99) = 10000 (10000 + ceil(150) = 10150 <= 10151; 10001 + ceil(150.015) = 10152 > 10151)
# fees = 10151 - 10000 = 151; R = floor(10000 * 9213377 * 9950 / (10000000 * 10000)) = floor(9167.31) = 9167
priced "C6" USD 10151 EUR 9167 151 0.91673101
balances
b0=$BALS
api "${AA[@]}" POST "/quotes/$C6/execute"
is_status 200 "A: execute C6: 200"
balances
# fee_s = min(151, ceil(10000 * 100 / 10000) = 100) = 100 to A; B gets the rest, 151 - 100 = 51 (the 1 of slack included).
moved "C6: sa USD -10151, rb EUR +9167, A USD +100, B USD +51" "$b0" "$BALS" '{"sa":{"USD":-10151},"rb":{"EUR":9167},"fa":{"USD":100},"fb":{"USD":51}}'

# --- C7: the other way, B's rb pays A's sa ---------------------------------------------------------
api "${BB[@]}" POST /quotes "$(ppv_quote "$RB_USD" "$SA_PPV" EUR SENDING 20000)"
is_error 400 INVALID_REQUEST "C7 without senderCounterpartyInfo"
jis .details.missingCounterpartyFields '["BIRTH_DATE"]' "C7: A's EUR entry wants BIRTH_DATE when A receives"
new_quote B "C7 B->A USD->EUR, SENDING 20000" "$(ppv_quote "$RB_USD" "$SA_PPV" EUR SENDING 20000 '{"BIRTH_DATE":"1985-12-31"}')"
c7=$QBODY C7=$QID C7_TX=$QTX
quote_shape "C7"
# F = 70 (B sender) + 40 (A receiver) = 110; P = floor(20000 * 10000 / 10110) = floor(19782.39) = 19782
# (19782 + ceil(217.602) = 20000; 19783 + 218 > 20000); fees = 20000 - 19782 = 218
# R = floor(19782 * 9213377 * 9950 / (10000000 * 10000)) = floor(18134.77) = 18134
priced "C7" USD 20000 EUR 18134 218 0.91673101
jis .customerId "\"$RB\"" "C7: the sending customer is rb"
jok "$QJQ"' (.expiresAt | ms) - (.createdAt | ms) == 600000' "C7: expiresAt = createdAt + min(600 (B), 900 (A)) s"
api "${AA[@]}" GET "/quotes/$C7"
is_error 404 QUOTE_NOT_FOUND "A: GET B's quote C7"
balances
b0=$BALS
api "${BB[@]}" POST "/quotes/$C7/execute"
is_status 200 "B: execute C7: 200"
jis '[.status, .quoteId, .customerId]' "[\"COMPLETED\",\"$C7\",\"$RB\"]" "execute C7: B's OUTGOING transaction COMPLETED"
balances
# fee_s = min(218, ceil(19782 * 70 / 10000) = ceil(138.474) = 139) = 139 to B; fee_r = 218 - 139 = 79 to A.
moved "C7: rb USD -20000, sa EUR +18134, B USD +139, A USD +79" "$b0" "$BALS" '{"rb":{"USD":-20000},"sa":{"EUR":18134},"fb":{"USD":139},"fa":{"USD":79}}'
api "${AA[@]}" GET "/transactions?customerId=$SA&type=INCOMING"
jis '[.data[] | {status, quoteId, customerId, receivedAmount, destination}]' \
    "[{\"status\":\"COMPLETED\",\"quoteId\":null,\"customerId\":\"$SA\",\"receivedAmount\":$(money EUR 18134),
      \"destination\":{\"accountId\":\"$SA_PPV\",\"destinationType\":\"PPV_ADDRESS\"}}]" \
    "A: sa's one INCOMING transaction, COMPLETED, quoteId null, EUR 18134"

# --- C8: later changes of profiles, fee policies and prices leave a quote alone -------------------
new_quote A "C8 USD->CHF, RECEIVING 40000" "$(ppv_quote "$SA_USD" "$RB_PPV" CHF RECEIVING 40000)"
c8=$QBODY C8=$QID C8_TX=$QTX
# P = ceil(40000 * 10000000 * 10000 / (8800000 * 9950)) = ceil(45682.96) = 45683
# fees = ceil(45683 * 150 / 10000) = ceil(685.245) = 686; S = 45683 + 686 = 46369
# rate = floor(8800000 * 10^2 * 9950 * 10^8 / (10000000 * 10^2 * 10000)) / 10^8 = 0.87560000
priced "C8" USD 46369 CHF 40000 686 0.87560000
api "${AA[@]}" GET "/transactions/$C8_TX"
c8tx=$BODY
set_profile 400 900 "${AA[@]}"
set_fees 500 40 "${AA[@]}"
set_profile 300 3600 "${BB[@]}"
set_fees 70 300 "${BB[@]}"
fx_prices CHF=9900000
api "${AA[@]}" GET "/quotes/$C8"
is_status 200 "C8 after the changes: 200"
jis . "$c8" "C8 after changes of both profiles, both fee policies and CHF's price: exactly as created"
api "${AA[@]}" GET "/transactions/$C8_TX"
jis . "$c8tx" "C8's transaction after the changes: as before"
new_quote A "C8 again with the new inputs" "$(ppv_quote "$SA_USD" "$RB_PPV" CHF RECEIVING 40000)"
# sp = 400 + 300 = 700, F = 500 + 300 = 800, CHF 9900000:
# P = ceil(40000 * 10000000 * 10000 / (9900000 * 9300)) = ceil(43445.20) = 43446
# fees = ceil(43446 * 800 / 10000) = ceil(3475.68) = 3476; S = 43446 + 3476 = 46922
# rate = floor(9900000 * 10^2 * 9300 * 10^8 / (10000000 * 10^2 * 10000)) / 10^8 = 0.92070000
priced "a new quote after the changes" USD 46922 CHF 40000 3476 0.92070000
jok "$QJQ"' (.expiresAt | ms) - (.createdAt | ms) == 900000' "the new quote: expiresAt = createdAt + min(900 (A), 3600 (B)) s"
balances
b0=$BALS
api "${AA[@]}" POST "/quotes/$C8/execute"
is_status 200 "A: execute C8 after the changes: 200"
jis '{sentAmount, fees, exchangeRate}' "{\"sentAmount\":$(money USD 46369),\"fees\":$(money USD 686),\"exchangeRate\":\"0.87560000\"}" \
    "execute C8: the amounts and rate of creation"
balances
# fee_s = min(686, ceil(45683 * 100 / 10000) = 457) = 457 to A; fee_r = 686 - 457 = 229 to B: the bps of creation.
moved "C8: sa USD -46369, rb CHF +40000, A USD +457, B USD +229 (as created)" "$b0" "$BALS" \
    '{"sa":{"USD":-46369},"rb":{"CHF":40000},"fa":{"USD":457},"fb":{"USD":229}}'
set_profile 30 900 "${AA[@]}"
set_fees 100 40 "${AA[@]}"
set_profile 20 600 "${BB[@]}"
set_fees 70 50 "${BB[@]}"
fx_prices CHF=8800000

# --- each platform sees its own quotes only ---------------------------------------------------
want_a=$(printf '%s\n' "${A_QUOTES[@]}" | jq -Rsc 'split("\n") | map(select(length > 0)) | reverse')
api "${AA[@]}" GET "/quotes?limit=100"
is_status 200 "A: GET /quotes 200"
quote_rows "A: GET /quotes"
jis '[.data[].quoteId]' "$want_a" "A: GET /quotes holds exactly A's ${#A_QUOTES[@]} quotes, newest first"
jis .totalCount "${#A_QUOTES[@]}" "A: totalCount ${#A_QUOTES[@]}"
api "${BB[@]}" GET "/quotes?limit=100"
is_status 200 "B: GET /quotes 200"
jis '[.totalCount, [.data[].quoteId]]' "[1,[\"$C7\"]]" "B: GET /quotes holds only C7"
api "${BB[@]}" GET "/quotes?status=PENDING"
jis '[.data[].quoteId]' "[\"$C7\"]" "B: status=PENDING holds only C7"
api "${BB[@]}" GET "/quotes/$C7"
jis '[.status, (.executedAt != null)]' '["QUOTE_READY",true]' "B: C7 executed, QUOTE_READY"

out=$(xbctl ledger-check 2>&1)
is "$?" 0 "xborderctl ledger-check exits 0"
like "$out" 'ledger ok' "xborderctl ledger-check: ledger ok"

done_testing
