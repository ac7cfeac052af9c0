#!/usr/bin/env bash
# 92-quotes-payouts-expiry.t - quotes over time, on two platforms of their
# own (A pays, B receives): expiry with lockPriceDurationSeconds 30 on both
# platforms (restored at once: the quotes keep their 30 s), payouts to
# external accounts under the three sandbox outcomes (...001 COMPLETED,
# ...002 FAILED, ...005 COMPLETED then REFUNDED) with every balance checked
# after each, and 20 parallel executions of one quote (one 200, nineteen 409
# QUOTE_ALREADY_EXECUTED, money moved once), and GET /quotes past 100 rows
# (platform L, 105 quotes made by 7 clients at once: limit over 100 is
# 100, the default 20, createdAt then id descending, paging to the end).
# All of that runs while the 30 s quotes age; then the suite waits out the
# rest (about 31 s after their creation in all) and checks them EXPIRED:
# on GET, in GET /quotes?status=EXPIRED, their transactions EXPIRED, and
# execute answering 409 QUOTE_EXPIRED (an executed one stays QUOTE_READY
# and answers QUOTE_ALREADY_EXECUTED; a BLOCKED one expires too).
#
# Reference prices (set with xborderctl fx-set, restored at exit): USD
# 10000000, EUR 9213377 minor units per BTC.
# A: btcFiatSpreadBps 10, senderServiceFeeBps 80, receiverServiceFeeBps 20.
# B: btcFiatSpreadBps 15, senderServiceFeeBps 30, receiverServiceFeeBps 60.
# A -> B (PPV): sp = 10 + 15 = 25, F = 80 + 60 = 140, Fs = 80.
# A -> A's external accounts: sp = 10 + 10 = 20, F = 80 + 20 = 100, Fs = 80 (A is both platforms).
. "$(dirname "${BASH_SOURCE[0]}")/lib/api.sh"
. "$(dirname "${BASH_SOURCE[0]}")/lib/money.sh"
no_plan

fx_prices USD=10000000 EUR=9213377

# --- helpers --------------------------------------------------------------------------

A_QUOTES=()

# new_quote WHAT BODY: POST /quotes by platform A, 201 expected (3 tests).
# Sets QID, QTX, QBODY.
new_quote() {
    api "${AA[@]}" POST /quotes "$2"
    is_status 201 "$1: POST /quotes 201"
    QBODY=$BODY QID=$(jr .quoteId) QTX=$(jr .transactionId)
    [[ $STATUS == 201 ]] && A_QUOTES+=("$QID")
    return 0
}

# priced WHAT SCUR S RCUR R FEES RATE: the quote in $BODY has these amounts (1 test).
priced() {
    jis '{sendingAmount, receivingAmount, feesTotal, exchangeRate}' \
        "{\"sendingAmount\":$(money "$2" "$3"),\"receivingAmount\":$(money "$4" "$5"),\"feesTotal\":$(money "$2" "$6"),\"exchangeRate\":\"$7\"}" \
        "$1: sends $2 $3, receives $4 $5, fees $6, rate $7"
}

# balances: sets BALS to {"sa": {CUR: n}, "rx": ..., "rb": ..., "fa": ..., "fb": ...}:
# the internal accounts of sa and rx (on A) and rb (on B), and A's and B's
# own accounts.  Uncounted.
balances() {
    local f='[.data[] | {key: .currency, value: (.balance.amountMinor | tonumber)}] | from_entries' sa rx rb fa fb
    api --nocheck "${AA[@]}" GET "/customers/internal-accounts?customerId=$SA&limit=100"
    sa=$(j "$f")
    api --nocheck "${AA[@]}" GET "/customers/internal-accounts?customerId=$RX&limit=100"
    rx=$(j "$f")
    api --nocheck "${BB[@]}" GET "/customers/internal-accounts?customerId=$RB&limit=100"
    rb=$(j "$f")
    api --nocheck "${AA[@]}" GET "/platform/internal-accounts?limit=100"
    fa=$(j "$f")
    api --nocheck "${BB[@]}" GET "/platform/internal-accounts?limit=100"
    fb=$(j "$f")
    BALS="{\"sa\":${sa:-null},\"rx\":${rx:-null},\"rb\":${rb:-null},\"fa\":${fa:-null},\"fb\":${fb:-null}}"
}

# moved WHAT BEFORE AFTER DELTAS: exactly DELTAS moved between the two
# snapshots, every other account unchanged (1 test).
moved() {
    local got
    got=$(jq -cn --argjson a "$2" --argjson b "$3" '[$b | to_entries[] | .key as $w | .value | to_entries[]
        | {w: $w, c: .key, d: (.value - ($a[$w][.key] // 0))} | select(.d != 0)]
        | group_by(.w) | map({key: .[0].w, value: (map({key: .c, value: .d}) | from_entries)}) | from_entries' 2>&1)
    jis . "$4" "$1" "$got"
}

# --- platforms, customers, accounts ---------------------------------------------------------
new_platform t92a || BAIL_OUT "platform-create failed"
pass "platform A created with xborderctl"
AA=(--as "$NP_CLIENT_ID" "$NP_SECRET")
new_platform t92b || BAIL_OUT "platform-create failed"
pass "platform B created with xborderctl"
BB=(--as "$NP_CLIENT_ID" "$NP_SECRET")
set_fees 80 20 "${AA[@]}"
set_fees 30 60 "${BB[@]}"
set_currencies "[$(cur_entry USD 1 100000000000 both),$(cur_entry EUR 1 100000000000 both)]" "${AA[@]}"
set_currencies "[$(cur_entry USD 1 100000000000 both),$(cur_entry EUR 1 100000000000 both)]" "${BB[@]}"

mk_customer t92-sa "${AA[@]}"
SA=$CUST
int_account "$SA" USD "${AA[@]}"
SA_USD=$INT
fund "$SA_USD" 1000000 "${AA[@]}"
mk_customer t92-sp "${AA[@]}"
SP=$CUST
int_account "$SP" USD "${AA[@]}"
SP_USD=$INT
fund "$SP_USD" 100000 "${AA[@]}"
api "${AA[@]}" PATCH "/customers/$SP" '{"kycStatus":"PENDING"}'
is_status 200 "sender sp: kycStatus PENDING"
mk_customer t92-rx "${AA[@]}"
RX=$CUST
mk_ext "$RX" 000920920001 EUR "${AA[@]}"
RX_OK=$EXT
mk_ext "$RX" 000920920002 EUR "${AA[@]}"
RX_FAIL=$EXT
mk_ext "$RX" 000920920005 EUR "${AA[@]}"
RX_RET=$EXT
mk_customer t92-rb "${BB[@]}"
RB=$CUST RB_PPV=$CUST_PPV

# --- quotes with a 30 s lock on both platforms ------------------------------------------------
set_profile 10 30 "${AA[@]}"
set_profile 15 30 "${BB[@]}"
new_quote "X1 sa -> rb, RECEIVING 20000" "$(ppv_quote "$SA_USD" "$RB_PPV" EUR RECEIVING 20000)"
X1=$QID X1_TX=$QTX x1=$QBODY
# P = ceil(20000 * 10000000 * 10000 / (9213377 * 9975)) = ceil(21761.97) = 21762
# fees = ceil(21762 * 140 / 10000) = ceil(304.668) = 305; S = 21762 + 305 = 22067
# rate = floor(9213377 * 10^2 * 9975 * 10^8 / (10000000 * 10^2 * 10000)) / 10^8 = floor(91903435.5) / 10^8 = 0.91903435
priced "X1" USD 22067 EUR 20000 305 0.91903435
jis .status '"QUOTE_READY"' "X1: QUOTE_READY"
jok "$QJQ"' (.expiresAt | ms) - (.createdAt | ms) == 30000' "X1: expiresAt = createdAt + 30 s"
new_quote "X2 sp (PENDING) -> rb" "$(ppv_quote "$SP_USD" "$RB_PPV" EUR RECEIVING 20000)"
X2=$QID X2_TX=$QTX
jis .status '"BLOCKED"' "X2: BLOCKED"
new_quote "X3 sa -> rb, RECEIVING 10000, executed at once" "$(ppv_quote "$SA_USD" "$RB_PPV" EUR RECEIVING 10000)"
X3=$QID X3_TX=$QTX
# P = ceil(10000 * 10000000 * 10000 / (9213377 * 9975)) = ceil(10880.99) = 10881
# fees = ceil(10881 * 140 / 10000) = ceil(152.334) = 153; S = 10881 + 153 = 11034
priced "X3" USD 11034 EUR 10000 153 0.91903435
new_quote "X4 sa -> rx's external account ...001, RECEIVING 5000" "$(ext_quote "$SA_USD" "$RX_OK" RECEIVING 5000)"
X4=$QID X4_TX=$QTX
# P = ceil(5000 * 10000000 * 10000 / (9213377 * 9980)) = ceil(5437.77) = 5438
# fees = ceil(5438 * 100 / 10000) = ceil(54.38) = 55; S = 5438 + 55 = 5493
# rate = floor(9213377 * 10^2 * 9980 * 10^8 / (10000000 * 10^2 * 10000)) / 10^8 = floor(91949502.46) / 10^8 = 0.91949502
priced "X4" USD 5493 EUR 5000 55 0.91949502
jok "$QJQ"' (.expiresAt | ms) - (.createdAt | ms) == 30000' "X4 (payout): expiresAt = createdAt + 30 s (A's lock)"
expire_ms=$(jq -r "$QJQ"' .expiresAt | ms' <<<"$QBODY")
# Restore the profiles: the quotes above keep their 30 s.
set_profile 10 900 "${AA[@]}"
set_profile 15 600 "${BB[@]}"
balances
b0=$BALS
api "${AA[@]}" POST "/quotes/$X3/execute"
is_status 200 "execute X3 before it expires: 200"
jis .status '"COMPLETED"' "X3: COMPLETED"
balances
# fee_s = min(153, ceil(10881 * 80 / 10000) = ceil(87.048) = 88) = 88 to A; fee_r = 153 - 88 = 65 to B.
moved "X3: sa USD -11034, rb EUR +10000, A USD +88, B USD +65" "$b0" "$BALS" '{"sa":{"USD":-11034},"rb":{"EUR":10000},"fa":{"USD":88},"fb":{"USD":65}}'

# --- payouts to external accounts, under the three outcomes ----------------------------------------
# Each RECEIVING EUR 10000 to one of rx's accounts; on A alone: sp = 20, F = 100.
# P = ceil(10000 * 10000000 * 10000 / (9213377 * 9980)) = ceil(10875.53) = 10876
# fees = ceil(10876 * 100 / 10000) = ceil(108.76) = 109; S = 10876 + 109 = 10985
# fee_s = min(109, ceil(10876 * 80 / 10000) = ceil(87.008) = 88) = 88, fee_r = 109 - 88 = 21: both A's.
for outcome in 001:COMPLETED:"$RX_OK" 002:FAILED:"$RX_FAIL" 005:REFUNDED:"$RX_RET"; do
    IFS=: read -r digits final ext <<<"$outcome"
    new_quote "payout to ...$digits" "$(ext_quote "$SA_USD" "$ext" RECEIVING 10000)"
    qp=$QID qp_tx=$QTX qp_body=$QBODY
    priced "payout to ...$digits" USD 10985 EUR 10000 109 0.91949502
    api "${AA[@]}" GET "/transactions/$qp_tx"
    quote_tx_shape "payout to ...$digits, before execution"
    jis '{status, destination}' "{\"status\":\"CREATED\",\"destination\":{\"accountId\":\"$ext\",\"destinationType\":\"EXTERNAL_ACCOUNT\"}}" \
        "payout to ...$digits before execution: CREATED, destination the external account"
    balances
    b0=$BALS
    api "${AA[@]}" POST "/quotes/$qp/execute"
    is_status 200 "execute the payout to ...$digits: 200"
    quote_tx_shape "execute the payout to ...$digits"
    jis '{status, sentAmount, fees, exchangeRate}' "{\"status\":\"PROCESSING\",\"sentAmount\":$(money USD 10985),\"fees\":$(money USD 109),\"exchangeRate\":\"0.91949502\"}" \
        "execute the payout to ...$digits: PROCESSING, USD 10985 sent, USD 109 fees"
    if [[ $final == REFUNDED ]]; then
        settles "$qp_tx" 'REFUNDED|FAILED' "the payout to ...005 is returned within 10 s" "${AA[@]}"
    else
        settles "$qp_tx" 'COMPLETED|FAILED|REFUNDED' "the payout to ...$digits settles within 10 s" "${AA[@]}"
    fi
    jis .status "\"$final\"" "the payout to ...$digits: $final"
    quote_tx_shape "the payout to ...$digits, $final"
    jis "$QUOTE_TX_FIELDS" "$(quote_tx_of "$qp_body")" "the payout to ...$digits, $final: still the quote's ids, amounts and rate"
    if [[ $final == COMPLETED ]]; then
        # Give a wrong settlement a moment to show.
        sleep 1
        api "${AA[@]}" GET "/transactions/$qp_tx"
        jis .status '"COMPLETED"' "the payout to ...001: still COMPLETED a second later"
    fi
    balances
    case $final in
        COMPLETED) want='{"sa":{"USD":-10985},"fa":{"USD":109}}' ;;
        *) want='{}' ;;
    esac
    moved "the payout to ...$digits, $final: sa and A's own account $([[ $final == COMPLETED ]] && echo 'USD -10985 and +109' || echo 'as before: the whole S back, both fee credits reversed'); rx, rb and B untouched" \
        "$b0" "$BALS" "$want"
    api "${AA[@]}" GET "/quotes/$qp"
    jok "$QJQ"' .status == "QUOTE_READY" and (.executedAt | ts)' "the payout's quote to ...$digits: QUOTE_READY, executedAt set"
done

# --- 20 parallel executions of one quote ----------------------------------------------------------
new_quote "Z sa -> rb, RECEIVING 7000" "$(ppv_quote "$SA_USD" "$RB_PPV" EUR RECEIVING 7000)"
Z=$QID
# P = ceil(7000 * 10000000 * 10000 / (9213377 * 9975)) = ceil(7616.69) = 7617
# fees = ceil(7617 * 140 / 10000) = ceil(106.638) = 107; S = 7617 + 107 = 7724
priced "Z" USD 7724 EUR 7000 107 0.91903435
api "${BB[@]}" GET "/transactions?customerId=$RB&type=INCOMING&limit=1"
n_in=$(jr .totalCount)
balances
b0=$BALS
par=$_API_TMP/par
mkdir -p "$par"
for i in $(seq 1 20); do
    (
        _API_TMP=$par/tmp.$i
        mkdir -p "$_API_TMP"
        api --nocheck "${AA[@]}" POST "/quotes/$Z/execute"
        printf '%s\t%s\n' "$STATUS" "$(jq -c . <<<"$BODY" 2>/dev/null || echo "$BODY")" >"$par/r.$i"
    ) &
done
wait
res=$(cat "$par"/r.* 2>/dev/null)
n200=$(awk -F'\t' '$1 == 200' <<<"$res" | wc -l)
n409=$(awk -F'\t' '$1 == 409 && $2 ~ /"code":"QUOTE_ALREADY_EXECUTED"/' <<<"$res" | wc -l)
note "20 parallel executions: $n200 x 200, $n409 x 409 QUOTE_ALREADY_EXECUTED"
is "$(wc -l <<<"$res")" 20 "20 parallel executions: 20 answers"
is "$n200" 1 "20 parallel executions: exactly one 200"
is "$n409" 19 "20 parallel executions: the 19 others 409 QUOTE_ALREADY_EXECUTED"
jis '[.status, .quoteId, .sentAmount]' "[\"COMPLETED\",\"$Z\",$(money USD 7724)]" "20 parallel executions: the 200 is the quote's transaction, COMPLETED" \
    "$(awk -F'\t' '$1 == 200 {print $2; exit}' <<<"$res")"
balances
# fee_s = min(107, ceil(7617 * 80 / 10000) = ceil(60.936) = 61) = 61 to A; fee_r = 107 - 61 = 46 to B.
moved "20 parallel executions: the money moved once (sa USD -7724, rb EUR +7000, A +61, B +46)" "$b0" "$BALS" \
    '{"sa":{"USD":-7724},"rb":{"EUR":7000},"fa":{"USD":61},"fb":{"USD":46}}'
api "${BB[@]}" GET "/transactions?customerId=$RB&type=INCOMING&limit=1"
jis .totalCount "$((n_in + 1))" "20 parallel executions: B made one INCOMING transaction"

# One quote executed 6 times at once with one Idempotency-Key: one original
# 200; the others replay it or get 409 IDEMPOTENCY_KEY_IN_USE; money moves once.
new_quote "Z3 sa -> rb, RECEIVING 7000" "$(ppv_quote "$SA_USD" "$RB_PPV" EUR RECEIVING 7000)"
Z3=$QID
key=$(uniq_name t92-par-key)
balances
b0=$BALS
rm -f "$par"/r.*
for i in 1 2 3 4 5 6; do
    (
        _API_TMP=$par/tmp.k$i
        mkdir -p "$_API_TMP"
        api --nocheck "${AA[@]}" POST "/quotes/$Z3/execute" '' -H "Idempotency-Key: $key"
        printf '%s\t%s\t%s\n' "$STATUS" "$(header Idempotent-Replayed)" "$(jq -c . <<<"$BODY" 2>/dev/null || echo "$BODY")" >"$par/r.$i"
    ) &
done
wait
res=$(cat "$par"/r.* 2>/dev/null)
originals=$(awk -F'\t' '$1 == 200 && $2 != "true"' <<<"$res" | wc -l)
replays=$(awk -F'\t' '$1 == 200 && $2 == "true"' <<<"$res" | wc -l)
in_use=$(awk -F'\t' '$1 == 409 && $3 ~ /"code":"IDEMPOTENCY_KEY_IN_USE"/' <<<"$res" | wc -l)
note "6 keyed executions at once: $originals original, $replays replayed, $in_use IDEMPOTENCY_KEY_IN_USE"
is "$originals" 1 "6 keyed executions at once: exactly one original 200"
is $((originals + replays + in_use)) 6 "6 keyed executions at once: the others replayed or 409 IDEMPOTENCY_KEY_IN_USE"
is "$(awk -F'\t' '$1 == 200 {print $3}' <<<"$res" | sort -u | wc -l)" 1 "6 keyed executions at once: every 200 is the same body"
balances
moved "6 keyed executions at once: the money moved once (sa USD -7724, rb EUR +7000, A +61, B +46)" "$b0" "$BALS" \
    '{"sa":{"USD":-7724},"rb":{"EUR":7000},"fa":{"USD":61},"fb":{"USD":46}}'

# Two quotes of one sender that together need more than it has, executed at once.
mk_customer t92-sz "${AA[@]}"
SZ=$CUST
int_account "$SZ" USD "${AA[@]}"
SZ_USD=$INT
fund "$SZ_USD" 10000 "${AA[@]}"
new_quote "Z1 sz -> rb, RECEIVING 7000" "$(ppv_quote "$SZ_USD" "$RB_PPV" EUR RECEIVING 7000)"
Z1=$QID
new_quote "Z2 sz -> rb, RECEIVING 7000" "$(ppv_quote "$SZ_USD" "$RB_PPV" EUR RECEIVING 7000)"
Z2=$QID
rm -f "$par"/r.*
for z in "$Z1" "$Z2"; do
    (
        _API_TMP=$par/tmp.$z
        mkdir -p "$_API_TMP"
        api --nocheck "${AA[@]}" POST "/quotes/$z/execute"
        printf '%s\t%s\n' "$STATUS" "$(jq -c . <<<"$BODY" 2>/dev/null || echo "$BODY")" >"$par/r.${z#Quote:}"
    ) &
done
wait
res=$(cat "$par"/r.* 2>/dev/null)
is "$(awk -F'\t' '$1 == 200' <<<"$res" | wc -l) $(awk -F'\t' '$1 == 409 && $2 ~ /"code":"INSUFFICIENT_FUNDS"/' <<<"$res" | wc -l)" "1 1" \
    "two quotes of USD 7724 each on USD 10000, executed at once: one 200, one 409 INSUFFICIENT_FUNDS"
jis .details "{\"available\":$(money USD 2276),\"requested\":$(money USD 7724)}" \
    "the loser's INSUFFICIENT_FUNDS: available 10000 - 7724 = 2276, requested 7724" \
    "$(awk -F'\t' '$1 == 409 {print $2; exit}' <<<"$res")"
balance_of "$SZ_USD" "${AA[@]}"
is "$BAL" 2276 "sz's balance: 10000 - 7724 = 2276, never below 0"

# --- while the 30 s quotes age: more than 100 quotes on platform L --------------------------
# GET /quotes: a limit over 100 is 100, the default 20, paging to the end (nextCursor null).
new_platform t92l || BAIL_OUT "platform-create failed"
pass "platform L created with xborderctl"
L_ID=$NP_CLIENT_ID L_SECRET=$NP_SECRET
LP=(--as "$L_ID" "$L_SECRET")
mk_customer t92-l "${LP[@]}"
L=$CUST L_PPV=$CUST_PPV
int_account "$L" USD "${LP[@]}"
L_USD=$INT
# 105 quotes to L's customer's own address, from 7 clients at once (equal
# createdAt values are likely: then the id decides, descending).
ld=$_API_TMP/lq
mkdir -p "$ld"
for c in 1 2 3 4 5 6 7; do
    (
        _API_TMP=$ld/tmp.$c
        mkdir -p "$_API_TMP"
        for i in $(seq 1 15); do
            api --nocheck "${LP[@]}" POST /quotes "$(ppv_quote "$L_USD" "$L_PPV" EUR RECEIVING $((1000 + c * 100 + i)))"
            printf '%s\t%s\t%s\n' "$STATUS" "$(jr .quoteId)" "$(jr .createdAt)" >>"$ld/r.$c"
        done
    ) &
done
wait
lres=$(cat "$ld"/r.*)
is "$(awk -F'\t' '$1 == 201' <<<"$lres" | wc -l)" 105 "platform L: 105 quotes created (7 clients x 15)"
lwant=$(awk -F'\t' '$1 == 201 {print $2 "\t" $3}' <<<"$lres" |
    jq -Rsc 'split("\n") | map(select(length > 0) | split("\t") | {id: .[0], at: .[1]}) | sort_by([.at, .id]) | reverse | map(.id)')
api "${LP[@]}" GET "/quotes?limit=1000"
is_status 200 "L: GET /quotes?limit=1000: 200"
jis '[(.data | length), .hasMore, .nextCursor, .totalCount]' '[100,true,"100",105]' "L: limit=1000 is treated as 100: 100 rows of 105, nextCursor \"100\""
jis '[.data[].quoteId]' "$(jq -c '.[:100]' <<<"$lwant")" "L: limit=1000: the 100 newest (createdAt, then id, descending)"
l1000=$BODY
api "${LP[@]}" GET "/quotes?limit=100"
jis . "$l1000" "L: limit=100: the same page as limit=1000"
api "${LP[@]}" GET /quotes
jis '[(.data | length), .hasMore, .nextCursor, .totalCount]' '[20,true,"20",105]' "L: without limit: 20 rows (the default), nextCursor \"20\""
api "${LP[@]}" GET "/quotes?limit=101"
jis '[(.data | length), .nextCursor]' '[100,"100"]' "L: limit=101: 100 rows"
use_creds "$L_ID" "$L_SECRET"
walk_pages "L: GET /quotes?limit=1000 page by page" /quotes 1000 100 "$lwant" null quoteId
walk_pages "L: GET /quotes, 40 per page" /quotes 40 40 "$lwant" null quoteId
use_root

# --- expiry --------------------------------------------------------------------------------------
now_ms=$(date +%s%3N)
wait_ms=$((expire_ms - now_ms + 1000))
if ((wait_ms > 0)); then
    note "waiting $((wait_ms / 1000)).$((wait_ms % 1000 / 100)) s for the 30 s quotes to expire"
    sleep "$((wait_ms / 1000)).$(printf '%03d' $((wait_ms % 1000)))"
fi
balances
b0=$BALS
api "${AA[@]}" GET "/quotes/$X1"
is_status 200 "GET X1 after expiry: 200"
quote_shape "X1 expired"
jis . "$(jq -c '.status = "EXPIRED"' <<<"$x1")" "X1 after expiry: EXPIRED, everything else as created (executedAt null)"
api "${AA[@]}" GET "/transactions/$X1_TX"
quote_tx_shape "X1's transaction after expiry"
jis '[.status, .settledAt]' '["EXPIRED",null]' "X1's transaction: EXPIRED, settledAt null"
api "${AA[@]}" GET "/quotes/$X2"
jis '[.status, .executedAt]' '["EXPIRED",null]' "X2 (BLOCKED) after expiry: EXPIRED"
api "${AA[@]}" GET "/transactions/$X2_TX"
jis '[.status, .settledAt]' '["EXPIRED",null]' "X2's transaction: EXPIRED"
api "${AA[@]}" GET "/quotes/$X3"
jok "$QJQ"' .status == "QUOTE_READY" and (.executedAt | ts)' "X3 (executed) after its expiry time: still QUOTE_READY, executedAt set"
api "${AA[@]}" GET "/transactions/$X3_TX"
jis .status '"COMPLETED"' "X3's transaction: still COMPLETED"
api "${AA[@]}" GET "/quotes/$X4"
jis '[.status, .executedAt]' '["EXPIRED",null]' "X4 (payout) after expiry: EXPIRED"
api "${AA[@]}" GET "/transactions/$X4_TX"
jis '[.status, .settledAt]' '["EXPIRED",null]' "X4's transaction: EXPIRED"

api "${AA[@]}" GET "/quotes?status=EXPIRED"
is_status 200 "A: GET /quotes?status=EXPIRED: 200"
quote_rows "status=EXPIRED"
jis '[.totalCount, [.data[].quoteId], ([.data[].status] | unique)]' "[3,[\"$X4\",\"$X2\",\"$X1\"],[\"EXPIRED\"]]" \
    "status=EXPIRED: X4, X2, X1 (newest first), all EXPIRED"
api "${AA[@]}" GET "/quotes?status=BLOCKED"
jis '[.totalCount, .data]' '[0,[]]' "status=BLOCKED: none (X2 reads EXPIRED now)"
want=$(printf '%s\n' "${A_QUOTES[@]}" | jq -Rsc --arg a "$X1" --arg b "$X2" --arg c "$X4" \
    'split("\n") | map(select(length > 0 and . != $a and . != $b and . != $c)) | reverse')
api "${AA[@]}" GET "/quotes?status=QUOTE_READY&limit=100"
jis '[.data[].quoteId]' "$want" "status=QUOTE_READY: every other quote of A (X3 and the executed ones), newest first"
api "${AA[@]}" GET "/quotes?status=PENDING&limit=100"
jis '[.data[].quoteId]' "$want" "status=PENDING: the same"
api "${AA[@]}" GET "/quotes?limit=100"
jis "[.data[] | select(.quoteId == \"$X1\") | .status]" '["EXPIRED"]' "GET /quotes: X1's row EXPIRED"
api "${BB[@]}" GET "/quotes?status=EXPIRED"
jis .totalCount 0 "B: no EXPIRED quote (they are A's)"

api "${AA[@]}" POST "/quotes/$X1/execute"
is_error 409 QUOTE_EXPIRED "execute X1 after expiry"
api "${AA[@]}" POST "/quotes/$X2/execute"
is_error 409 QUOTE_EXPIRED "execute X2 (BLOCKED, expired): QUOTE_EXPIRED comes before QUOTE_BLOCKED"
api "${AA[@]}" POST "/quotes/$X3/execute"
is_error 409 QUOTE_ALREADY_EXECUTED "execute X3 (executed, past expiresAt): QUOTE_ALREADY_EXECUTED comes before QUOTE_EXPIRED"
api "${AA[@]}" POST "/quotes/$X4/execute"
is_error 409 QUOTE_EXPIRED "execute X4 (payout) after expiry"
balances
moved "after expiry: nothing moved" "$b0" "$BALS" '{}'

out=$(xbctl ledger-check 2>&1)
is "$?" 0 "xborderctl ledger-check exits 0"
like "$out" 'ledger ok' "xborderctl ledger-check: ledger ok"

done_testing
