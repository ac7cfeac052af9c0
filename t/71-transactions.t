#!/usr/bin/env bash
# 71-transactions.t - GET /transactions/{transactionId} and GET
# /transactions: both variants read back, the path id rules (opaque ids:
# 400 only when too long or not printable, 404 TRANSACTION_NOT_FOUND for
# anything else unknown), every list filter and its validation, paging,
# order, permissions and isolation between platforms.  The list is checked
# on a fresh platform of its own, so the counts are exact.
. "$(dirname "${BASH_SOURCE[0]}")/lib/api.sh"
. "$(dirname "${BASH_SOURCE[0]}")/lib/money.sh"
no_plan

LIST_KEYS='data hasMore nextCursor totalCount'

# --- helpers ------------------------------------------------------------------------

# list_ok WHAT QUERY EXPECTED_IDS_JSON [api options]: GET /transactions?QUERY
# answers exactly these transactions, in this order, on one page (5 tests).
list_ok() {
    local what=$1 q=$2 ids=$3
    shift 3
    api "$@" GET "/transactions?$q"
    is_status 200 "$what: 200"
    has_keys "$BODY" "$LIST_KEYS" "$what: list envelope keys"
    jis '[.data[].transactionId]' "$ids" "$what: exactly the expected transactions, newest first"
    jis '.totalCount' "$(jq length <<<"$ids")" "$what: totalCount"
    jis '{hasMore, nextCursor}' '{"hasMore":false,"nextCursor":null}' "$what: hasMore false, nextCursor null"
}

# bad_list QUERY FIELD [api options]: 400 INVALID_REQUEST naming FIELD (4 tests).
bad_list() {
    local q=$1 field=$2
    shift 2
    api "$@" GET "/transactions?$q"
    is_error 400 INVALID_REQUEST "GET /transactions?$q"
    has_details "$field" "GET /transactions?$q: details names $field"
}

new_platform t71 || BAIL_OUT "platform-create failed"
pass "fresh platform created with xborderctl"
P=(--as "$NP_CLIENT_ID" "$NP_SECRET")
P_ID=$NP_CLIENT_ID P_SECRET=$NP_SECRET

# --- on the fresh platform: two customers, six transfers of every kind ---------------------
api "${P[@]}" GET /transactions
is_status 200 "fresh platform: GET /transactions 200"
jis . '{"data":[],"hasMore":false,"nextCursor":null,"totalCount":0}' "fresh platform: no transactions"

mk_customer t71-x "${P[@]}"
X=$CUST X_PCID=$CUST_PCID X_PPV=$CUST_PPV
int_account "$X" USD "${P[@]}"
X_INT=$INT
mk_ext "$X" 000100200001 USD "${P[@]}"
X_OK=$EXT
mk_ext "$X" 000100200002 USD "${P[@]}"
X_FAIL=$EXT
mk_ext "$X" 000100200005 USD "${P[@]}"
X_RET=$EXT
fund "$X_INT" 100000 "${P[@]}"
mk_customer t71-y "${P[@]}"
Y=$CUST Y_PCID=$CUST_PCID
int_account "$Y" USD "${P[@]}"
Y_INT=$INT
mk_ext "$Y" 000300400001 USD "${P[@]}"
Y_OK=$EXT
fund "$Y_INT" 100000 "${P[@]}"

ids=()      # oldest first
bodies=()
# make PATH BODY WHAT: one transfer on the fresh platform (2 tests).
make() {
    sleep 0.01   # distinct createdAt milliseconds
    api "${P[@]}" POST "$1" "$2"
    is_status 201 "make $3: 201"
    ids+=("$(jr .transactionId)")
}
make /transfer-in "$(xfer_body "$X_OK" "$X_INT" 1001)" "X in ...001"
x_in_ok=${ids[-1]}
make /transfer-in "$(xfer_body "$X_FAIL" "$X_INT" 1002)" "X in ...002"
x_in_fail=${ids[-1]}
make /transfer-out "$(xfer_body "$X_INT" "$X_OK" 1003)" "X out ...001"
x_out_ok=${ids[-1]}
make /transfer-out "$(xfer_body "$X_INT" "$X_RET" 1004)" "X out ...005"
x_out_ret=${ids[-1]}
make /transfer-in "$(xfer_body "$Y_OK" "$Y_INT" 1005)" "Y in ...001"
y_in=${ids[-1]}
make /transfer-out "$(xfer_body "$Y_INT" "$Y_OK" 1006)" "Y out ...001"
y_out=${ids[-1]}

declare -A final=([$x_in_ok]=COMPLETED [$x_in_fail]=FAILED [$x_out_ok]=COMPLETED
    [$x_out_ret]=REFUNDED [$y_in]=COMPLETED [$y_out]=COMPLETED)
for id in "${ids[@]}"; do
    settles "$id" "${final[$id]}" "$id reaches ${final[$id]}" "${P[@]}"
done

# newest first
rev() { local a=() i; for ((i = $# ; i > 0; i--)); do a+=("\"${!i}\""); done; local IFS=,; printf '[%s]' "${a[*]}"; }
all=$(rev "${ids[@]}")

# --- GET /transactions/{transactionId}: both variants ------------------------------------------
declare -A one=()
for id in "${ids[@]}"; do
    api "${P[@]}" GET "/transactions/$id"
    is_status 200 "GET /transactions/$id: 200"
    kind=in
    [[ $(jr .type) == OUTGOING ]] && kind=out
    tx_shape "GET $id" "$kind"
    jis .status "\"${final[$id]}\"" "GET $id: status ${final[$id]}"
    one[$id]=$BODY
done
jis '{type, customerId, platformCustomerId, destination, receivedAmount}' \
    "{\"type\":\"INCOMING\",\"customerId\":\"$X\",\"platformCustomerId\":\"$X_PCID\",
      \"destination\":{\"accountId\":\"$X_PPV\",\"destinationType\":\"PPV_ADDRESS\"},\"receivedAmount\":$(money USD 1001)}" \
    "incoming transaction: type, customer, PPV destination, receivedAmount" "${one[$x_in_ok]}"
jis '{type, customerId, platformCustomerId, source, destination, sentAmount}' \
    "{\"type\":\"OUTGOING\",\"customerId\":\"$X\",\"platformCustomerId\":\"$X_PCID\",
      \"source\":{\"accountId\":\"$X_INT\",\"sourceType\":\"INTERNAL_ACCOUNT\"},
      \"destination\":{\"accountId\":\"$X_RET\",\"destinationType\":\"EXTERNAL_ACCOUNT\"},\"sentAmount\":$(money USD 1004)}" \
    "outgoing transaction: type, customer, source, destination, sentAmount" "${one[$x_out_ret]}"
jis .settledAt null "FAILED incoming: settledAt null" "${one[$x_in_fail]}"
like "$(jr .settledAt "${one[$x_out_ret]}")" "$TS_RE" "REFUNDED outgoing: settledAt set"

# --- the list: everything, newest first ---------------------------------------------------------
list_ok "GET /transactions (fresh platform)" "" "$all" "${P[@]}"
jok '[.data[] | [.createdAt, .transactionId]] as $a | $a == ($a | sort | reverse)' \
    "GET /transactions: ordered by createdAt desc, then id desc"
listed=$BODY
for id in "${ids[@]}"; do
    jis . "${one[$id]}" "listed $id: the same as GET /transactions/{id}" \
        "$(jq -c --arg id "$id" '.data[] | select(.transactionId == $id)' <<<"$listed")"
done
jok 'all(.data[]; (keys | sort) == (if .type == "OUTGOING"
        then ["createdAt","customerId","destination","platformCustomerId","quoteId","sentAmount","settledAt","source","status","transactionId","type","updatedAt"]
        else ["createdAt","customerId","destination","platformCustomerId","quoteId","receivedAmount","settledAt","status","transactionId","type","updatedAt"] end))' \
    "GET /transactions: every item has exactly its variant's keys" "$listed"

# --- filters -------------------------------------------------------------------------------
list_ok "customerId=X" "customerId=$X" "$(rev "$x_in_ok" "$x_in_fail" "$x_out_ok" "$x_out_ret")" "${P[@]}"
list_ok "customerId=Y" "customerId=$Y" "$(rev "$y_in" "$y_out")" "${P[@]}"
list_ok "platformCustomerId of Y" "platformCustomerId=$Y_PCID" "$(rev "$y_in" "$y_out")" "${P[@]}"
list_ok "platformCustomerId of X" "platformCustomerId=$X_PCID" "$(rev "$x_in_ok" "$x_in_fail" "$x_out_ok" "$x_out_ret")" "${P[@]}"
list_ok "platformCustomerId unknown" "platformCustomerId=nobody-$RANDOM" '[]' "${P[@]}"
list_ok "customerId unknown (well-formed)" "customerId=Customer:$(uuid4)" '[]' "${P[@]}"
list_ok "type=INCOMING" "type=INCOMING" "$(rev "$x_in_ok" "$x_in_fail" "$y_in")" "${P[@]}"
list_ok "type=OUTGOING" "type=OUTGOING" "$(rev "$x_out_ok" "$x_out_ret" "$y_out")" "${P[@]}"
list_ok "status=COMPLETED" "status=COMPLETED" "$(rev "$x_in_ok" "$x_out_ok" "$y_in" "$y_out")" "${P[@]}"
list_ok "status=FAILED" "status=FAILED" "$(rev "$x_in_fail")" "${P[@]}"
list_ok "status=REFUNDED" "status=REFUNDED" "$(rev "$x_out_ret")" "${P[@]}"
for st in CREATED PENDING PROCESSING REJECTED EXPIRED; do
    list_ok "status=$st" "status=$st" '[]' "${P[@]}"
done
list_ok "customerId=X&type=OUTGOING&status=COMPLETED" "customerId=$X&type=OUTGOING&status=COMPLETED" "$(rev "$x_out_ok")" "${P[@]}"
list_ok "customerId=Y&type=INCOMING" "customerId=$Y&type=INCOMING" "$(rev "$y_in")" "${P[@]}"
list_ok "platformCustomerId of X & customerId=Y" "platformCustomerId=$X_PCID&customerId=$Y" '[]' "${P[@]}"
list_ok "unknown parameter ignored" "colour=blue" "$all" "${P[@]}"

# Dates: inclusive on createdAt.
c=()
for id in "${ids[@]}"; do c+=("$(jr .createdAt "${one[$id]}")"); done
list_ok "startDate = createdAt of the 4th (inclusive)" "startDate=${c[3]}" "$(rev "${ids[@]:3}")" "${P[@]}"
list_ok "endDate = createdAt of the 3rd (inclusive)" "endDate=${c[2]}" "$(rev "${ids[@]:0:3}")" "${P[@]}"
list_ok "startDate = endDate = createdAt of the 2nd" "startDate=${c[1]}&endDate=${c[1]}" "$(rev "${ids[1]}")" "${P[@]}"
list_ok "startDate 2nd, endDate 5th" "startDate=${c[1]}&endDate=${c[4]}" "$(rev "${ids[@]:1:4}")" "${P[@]}"
list_ok "startDate after endDate" "startDate=${c[4]}&endDate=${c[1]}" '[]' "${P[@]}"
nosec=${c[0]%.*}Z    # YYYY-MM-DDTHH:MM:SSZ, at or before the first
list_ok "startDate without milliseconds" "startDate=$nosec" "$all" "${P[@]}"
day=${c[0]:0:10}
same_day=$(jq -c --arg d "$day" '[.data[] | select(.createdAt | startswith($d)) | .transactionId]' <<<"$listed")
list_ok "startDate = the day (date only)" "startDate=$day" "$all" "${P[@]}"
list_ok "endDate = the day (date only, the whole day)" "endDate=$day" "$same_day" "${P[@]}"
list_ok "startDate = endDate = the day" "startDate=$day&endDate=$day" "$same_day" "${P[@]}"
list_ok "endDate long ago" "endDate=2000-01-01" '[]' "${P[@]}"
list_ok "startDate far ahead" "startDate=2999-12-31T23:59:59.999Z" '[]' "${P[@]}"

# --- filter validation ---------------------------------------------------------------------
for v in foo "Customer:" "Customer:abc" "customer:$(uuid4)" "ExternalAccount:$(uuid4)" "Customer:$(uuid4)0" ''; do
    bad_list "customerId=$v" customerId "${P[@]}"
done
for v in incoming OUTGOING,INCOMING BOTH ''; do
    bad_list "type=$v" type "${P[@]}"
done
jok '.details.type | test("OUTGOING") and test("INCOMING")' "bad type: details.type lists OUTGOING and INCOMING"
for v in DONE completed SETTLED ''; do
    bad_list "status=$v" status "${P[@]}"
done
jok '.details.status | test("CREATED") and test("PENDING") and test("PROCESSING") and test("COMPLETED")
     and test("REJECTED") and test("FAILED") and test("REFUNDED") and test("EXPIRED")' \
    "bad status: details.status lists the eight statuses"
for v in yesterday 2026-1-01 2026-13-01 2026-02-30 20260101 2026-01-01T00:00:00 2026-01-01T25:00:00Z \
    2026-01-01T00:00:00.000 2026-01-01T00:00Z 2026-01-01Z ''; do
    bad_list "startDate=$v" startDate "${P[@]}"
    bad_list "endDate=$v" endDate "${P[@]}"
done
bad_list "type=INCOMING&type=OUTGOING" type "${P[@]}"
bad_list "customerId=$X&customerId=$X" customerId "${P[@]}"
bad_list "status=FAILED&status=FAILED" status "${P[@]}"

# --- paging ---------------------------------------------------------------------------------
api "${P[@]}" GET '/transactions?limit=2'
is_status 200 "limit=2: 200"
jis '[.data[].transactionId]' "$(rev "${ids[4]}" "${ids[5]}")" "limit=2: the two newest"
jis '{hasMore, nextCursor, totalCount}' '{"hasMore":true,"nextCursor":"2","totalCount":6}' "limit=2: hasMore, nextCursor 2, totalCount 6"
api "${P[@]}" GET '/transactions?limit=2&cursor=2'
jis '[.data[].transactionId]' "$(rev "${ids[2]}" "${ids[3]}")" "limit=2&cursor=2: the next two"
jis '{hasMore, nextCursor, totalCount}' '{"hasMore":true,"nextCursor":"4","totalCount":6}' "cursor=2: nextCursor 4"
api "${P[@]}" GET '/transactions?limit=2&cursor=4'
jis '[.data[].transactionId]' "$(rev "${ids[0]}" "${ids[1]}")" "limit=2&cursor=4: the oldest two"
jis '{hasMore, nextCursor, totalCount}' '{"hasMore":false,"nextCursor":null,"totalCount":6}' "cursor=4: the last page"
api "${P[@]}" GET "/transactions?limit=1&cursor=5&customerId=$X"
is_status 200 "limit=1&cursor=5 past X's four: 200"
jis . '{"data":[],"hasMore":false,"nextCursor":null,"totalCount":4}' "past the end of a filtered list: empty page, totalCount 4"
api "${P[@]}" GET "/transactions?limit=3&cursor=1&type=OUTGOING"
jis '[.data[].transactionId]' "$(rev "$x_out_ok" "$x_out_ret")" "type=OUTGOING&limit=3&cursor=1: the older two"
for q in cursor=6 cursor=7 cursor=1000; do
    api "${P[@]}" GET "/transactions?$q"
    jis . '{"data":[],"hasMore":false,"nextCursor":null,"totalCount":6}' "GET /transactions?$q: empty page"
done
for q in limit=0 limit=101 limit=abc 'limit=' limit=-1 limit=1.5 'limit=1&limit=2' limit=99999999999999999999; do
    bad_list "$q" limit "${P[@]}"
done
for q in cursor=abc 'cursor=' cursor=-1 cursor=1.0 'cursor=1&cursor=1' cursor=99999999999999999999; do
    bad_list "$q" cursor "${P[@]}"
done

# The default limit is 20 and the maximum 100: 16 more transfers make 22.
extra=()
for i in $(seq 1 16); do
    api --nocheck "${P[@]}" POST /transfer-in "$(xfer_body "$X_FAIL" "$X_INT" $((2000 + i)))"
    if [[ $STATUS == 201 ]]; then
        extra+=("$(jr .transactionId)")
    else
        fail "extra transfer-in $i: 201"
        diag "$STATUS $BODY"
    fi
done
# They fail in the background (xborder-worker): status=FAILED below counts
# them only once each has.
for id in "${extra[@]}"; do
    wait_status "$id" FAILED 10 "${P[@]}" || diag "    extra transfer-in $id not FAILED within 10 s: $STATUS $(_tap_show "$BODY")"
done
api "${P[@]}" GET /transactions
jis '.data | length' 20 "22 transactions: the default page holds 20"
jis '{hasMore, nextCursor, totalCount}' '{"hasMore":true,"nextCursor":"20","totalCount":22}' "22 transactions: hasMore, nextCursor 20, totalCount 22"
first20=$(j '[.data[].transactionId]')
api "${P[@]}" GET /transactions?cursor=20
jis '[.data[].transactionId]' "$(rev "${ids[0]}" "${ids[1]}")" "cursor=20: the two oldest"
jis '{hasMore, nextCursor}' '{"hasMore":false,"nextCursor":null}' "cursor=20: the end"
api "${P[@]}" GET /transactions?limit=100
jis '.data | length' 22 "limit=100: all 22"
jis '[.data[:20][].transactionId]' "$first20" "limit=100: begins with the default page"
jis '.hasMore' false "limit=100: hasMore false"
api "${P[@]}" GET "/transactions?limit=100&status=FAILED"
jis '.totalCount' 17 "status=FAILED: 17 (1 + 16 more)"

# --- GET /transactions/{transactionId}: the id rules --------------------------------------
for id in foo "Transaction:$(uuid4)" "${ids[0]}x" "transaction:${ids[0]#Transaction:}" "${ids[0]#Transaction:}" \
    "Transaction:" "$(printf 'T%.0s' {1..128})" "Transaction:$(uuid4)$(printf 'x%.0s' {1..80})" \
    "a%20b" "%21%7E"; do
    api "${P[@]}" GET "/transactions/$id"
    is_error 404 TRANSACTION_NOT_FOUND "GET /transactions/${id:0:60}"
done
for id in "$(printf 'T%.0s' {1..129})" "Transaction:$(uuid4)$(printf 'x%.0s' {1..81})" "%01" "ab%7F" "%C3%A9" "%0A" "a%09b"; do
    api "${P[@]}" GET "/transactions/$id"
    is_error 400 INVALID_REQUEST "GET /transactions/${id:0:60} (${#id} characters in the path)"
    has_details transactionId "GET /transactions/${id:0:40}: details.transactionId"
done
# nginx refuses an encoded NUL in any URI before the application sees it:
# still 400 INVALID_REQUEST in the envelope, but nobody can name the field.
api "${P[@]}" GET "/transactions/a%00b"
is_error 400 INVALID_REQUEST "GET /transactions/a%00b (refused by nginx)"
api "${P[@]}" GET /transactions/
is_status 404 "GET /transactions/ (empty id, no trailing-slash alias): 404"
api "${P[@]}" DELETE "/transactions/${ids[0]}"
is_error 405 METHOD_NOT_ALLOWED "DELETE /transactions/{id}"
api "${P[@]}" POST /transactions '{}'
is_error 405 METHOD_NOT_ALLOWED "POST /transactions"
api --noauth GET "/transactions/${ids[0]}"
is_error 401 UNAUTHORIZED "GET /transactions/{id} without credentials"
api --noauth GET /transactions
is_error 401 UNAUTHORIZED "GET /transactions without credentials"

# --- view-only access ------------------------------------------------------------------------
create_token "$(uniq_name t71-view)" '["view"]' "${P[@]}"
V=(--as "$TOK_CLIENT_ID" "$TOK_SECRET")
api "${V[@]}" GET "/transactions/${ids[0]}"
is_status 200 "view-only token: GET /transactions/{id} 200"
jis . "${one[${ids[0]}]}" "view-only token: the same transaction"
api "${V[@]}" GET "/transactions?customerId=$Y"
is_status 200 "view-only token: GET /transactions 200"
jis '[.data[].transactionId]' "$(rev "$y_in" "$y_out")" "view-only token: Y's transactions"

# --- isolation -----------------------------------------------------------------------------------
for id in "${ids[@]}"; do
    api GET "/transactions/$id"
    is_error 404 TRANSACTION_NOT_FOUND "main platform: GET the fresh platform's $id"
done
api GET "/transactions?customerId=$X"
is_status 200 "main platform: GET /transactions?customerId=<other platform's customer>: 200"
jis '{data, totalCount}' '{"data":[],"totalCount":0}' "main platform: nothing of the other platform's customer"
api GET "/transactions?platformCustomerId=$X_PCID"
jis '{data, totalCount}' '{"data":[],"totalCount":0}' "main platform: platformCustomerId of the other platform matches nothing"
api GET "/transactions?limit=100"
is_status 200 "main platform: GET /transactions?limit=100"
jok --arg a "$all" '($a | fromjson) as $ids | all(.data[]; .transactionId as $t | ($ids | index($t)) == null)' \
    "main platform: its list holds none of the fresh platform's transactions"

# A transaction of the main platform is not the fresh platform's.
mk_customer t71-main
int_account "$CUST" USD
mk_ext "$CUST" 000500600001
api POST /transfer-in "$(xfer_body "$EXT" "$INT" 10)"
is_status 201 "main platform: a transfer-in"
m_tx=$(jr .transactionId)
api "${P[@]}" GET "/transactions/$m_tx"
is_error 404 TRANSACTION_NOT_FOUND "fresh platform: GET the main platform's transaction"
api "${P[@]}" GET "/transactions?customerId=$CUST"
jis '{data, totalCount}' '{"data":[],"totalCount":0}' "fresh platform: nothing of the main platform's customer"
api GET "/transactions/$m_tx"
is_status 200 "main platform: GET its own transaction 200"
settles "$m_tx" COMPLETED "main platform: the transfer-in completes"

done_testing
