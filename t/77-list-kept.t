#!/usr/bin/env bash
# 77-list-kept.t - the first pages of GET /transactions a worker keeps
# (src/h_transactions.c, listed[]).  A worker answers a first page it read
# before with the same JSON only while the version of the platform's
# transactions (of the customer's, filtered by customerId), read in the
# token's own statement, has not moved (every insert and status change
# moves it: schema/011_list_version.sql, 029), and
# before the earliest expiry of a quote open on it, or, filtered by
# status, open in the platform (below, each waits for one).  So every
# answer below, from whichever worker, shows each change at once; a page
# past the first is never kept; an empty first page is kept too; a
# revoked token gets nothing from a kept page.
. "$(dirname "${BASH_SOURCE[0]}")/lib/api.sh"
. "$(dirname "${BASH_SOURCE[0]}")/lib/money.sh"
. "$_API_LIB_DIR/stack.sh"
no_plan

new_platform t77 || BAIL_OUT "platform-create failed"
P=(--as "$NP_CLIENT_ID" "$NP_SECRET")
mk_customer kept "${P[@]}"
KEPT=$CUST
int_account "$CUST" USD "${P[@]}"
SRC=$INT
mk_ext "$CUST" 000111222333 USD "${P[@]}"
DST=$EXT
fund "$SRC" 100000 "${P[@]}"

# hits: the workers' list_cache_hits.
hits() {
    xbctl stats | awk '$1 == "list_cache_hits" { print $2 }'
}

# pages N PATH [api options]: N answers of GET PATH (each checked, and 200:
# one test for all); ROWS gets the jq value ROWSF of each answer, one per
# line, and HITS how many of them the workers' kept pages answered.
ROWSF='[.totalCount, (.data[] | "\(.transactionId) \(.status) \(.settledAt != null)")] | join(" ")'
pages() {
    local n=$1 path=$2 i h0 codes=
    shift 2
    h0=$(hits)
    ROWS=
    for ((i = 0; i < n; i++)); do
        api "$@" GET "$path"
        codes+="$STATUS "
        ROWS+="$(jq -r "$ROWSF" <<<"$BODY" 2>/dev/null)"$'\n'
    done
    HITS=$(($(hits) - h0))
    is "$codes" "$(printf '200 %.0s' $(seq "$n"))" "GET $path, $n times: all 200"
}

# same_rows WANT NAME: every answer of the last pages() is WANT.
same_rows() {
    local got
    got=$(sort -u <<<"${ROWS%$'\n'}")
    is "$got" "$1" "$2"
}

# out: a transfer-out of 1.00 USD (2 tests); TX is its transaction.
out() {
    api "${P[@]}" POST /transfer-out "$(xfer_body "$SRC" "$DST" 100)"
    is_status 201 "POST /transfer-out: 201"
    TX=$(jr .transactionId)
}

L='/transactions?limit=5'

# --- kept, and answered from it ----------------------------------------------
# Of 16 reads of a page, at least 6 come from kept pages: each of the 4
# workers misses twice at most (a page kept with a version that has moved
# is dropped at one answer and kept afresh at the next; a worker that has
# not yet seen the token reads it alone first), and a worker recycled
# meanwhile (max_requests) twice more.  Nothing kept: none.
out
T1=$TX
settles "$T1" COMPLETED "T1 settles" "${P[@]}"
pages 16 "$L" "${P[@]}"
same_rows "1 $T1 COMPLETED true" "16 answers, every worker: T1 COMPLETED, totalCount 1"
ok "$((HITS >= 6))" "... at least 6 of the 16 from the workers' kept pages ($HITS)"

# --- an insert: every answer shows it at once --------------------------------
out
T2=$TX
pages 16 "$L" "${P[@]}"
got=$(awk '{ print $1, $2 }' <<<"${ROWS%$'\n'}" | sort -u)
is "$got" "2 $T2" "right after T2 is made, 16 answers: T2 first, totalCount 2"

# --- a status change: the same ------------------------------------------------
settles "$T2" COMPLETED "T2 settles" "${P[@]}"
pages 16 "$L" "${P[@]}"
same_rows "2 $T2 COMPLETED true $T1 COMPLETED true" "after T2 settled, 16 answers: T2 COMPLETED with settledAt"
ok "$((HITS >= 6))" "... and kept again ($HITS of 16)"

# --- a filtered first page: kept and moved the same way -----------------------
LT='/transactions?limit=5&type=OUTGOING'
pages 16 "$LT" "${P[@]}"
same_rows "2 $T2 COMPLETED true $T1 COMPLETED true" "type=OUTGOING, 16 answers"
ok "$((HITS >= 6))" "... kept ($HITS of 16)"
out
T3=$TX
settles "$T3" COMPLETED "T3 settles" "${P[@]}"
pages 16 "$LT" "${P[@]}"
same_rows "3 $T3 COMPLETED true $T2 COMPLETED true $T1 COMPLETED true" "type=OUTGOING after T3: every answer has it"

# --- a status filter: kept too; never kept: a deeper page ----------------------
pages 16 '/transactions?limit=5&status=COMPLETED' "${P[@]}"
same_rows "3 $T3 COMPLETED true $T2 COMPLETED true $T1 COMPLETED true" "status=COMPLETED, 16 answers"
ok "$((HITS >= 6))" "... kept ($HITS of 16)"
pages 16 '/transactions?limit=1&cursor=1' "${P[@]}"
same_rows "3 $T2 COMPLETED true" "cursor=1, 16 answers"
is "$HITS" 0 "... none from a kept page"

# --- revocation counts at once, kept page or not ---------------------------------
# T3 moved the version: a worker's kept first page is dropped when it sees
# that, and kept again by its next answer.  Every worker keeps it afresh.
pages 16 "$L" "${P[@]}"
same_rows "3 $T3 COMPLETED true $T2 COMPLETED true $T1 COMPLETED true" "after T3, 16 answers"
create_token "$(uniq_name t77-view)" '["view"]' "${P[@]}"
V=(--as "$TOK_CLIENT_ID" "$TOK_SECRET")
pages 16 "$L" "${V[@]}"
same_rows "3 $T3 COMPLETED true $T2 COMPLETED true $T1 COMPLETED true" "a view token, 16 answers"
ok "$((HITS >= 6))" "... kept for it too ($HITS of 16)"
api "${P[@]}" DELETE "/tokens/$TOK_ID"
is_status 200 "the view token revoked"
# (8: past AUTH_MAX_FAILURES failures the answer becomes 429.)
codes=
for ((i = 0; i < 8; i++)); do
    api "${V[@]}" GET "$L"
    codes+="$STATUS "
done
is "$codes" "$(printf '401 %.0s' $(seq 8))" "the revoked token, 8 times: 401 every time"

# --- a quote's expiry: time alone changes a kept page --------------------------
# A quote's transaction is CREATED until the quote expires (30 s, the
# shortest lock); nothing is written when that time comes, so the version
# the workers check stays.  The page's earliest expiry is what must make
# them read it again: whoever looks first expires it.
# A page filtered by status may change without holding the quote: the
# EXPIRED page below holds another quote's transaction, expired at once
# (the sandbox helper), and gains this one when it expires.  xborder-worker,
# whose sweep would expire the quote and so move the version, is stopped
# meanwhile: the reads alone must see the expiry.  An empty page filtered
# by status (EXPIRED since the quote was made) is kept as well, and must
# see it the same way: it is read first once the quote has expired, so it
# is the reader that expires it.
worker_stop || BAIL_OUT "xborder-worker did not stop"
set_profile 50 30 "${P[@]}"
mk_customer payee "${P[@]}"
api "${P[@]}" POST /quotes "$(ppv_quote "$SRC" "$CUST_PPV" EUR SENDING 900)"
is_status 201 "POST /quotes (another, expired at once): 201"
QTX0=$(jr .transactionId)
api "${P[@]}" POST "/sandbox/transactions/$QTX0/expire"
is_status 200 "... expired by the sandbox helper"
api "${P[@]}" POST /quotes "$(ppv_quote "$SRC" "$CUST_PPV" EUR SENDING 1000)"
is_status 201 "POST /quotes: 201"
QTX=$(jr .transactionId)
expires_ms=$(date -d "$(jr .expiresAt)" +%s%3N)
pages 16 "$L" "${P[@]}"
got=$(awk '{ print $1, $2, $3 }' <<<"${ROWS%$'\n'}" | sort -u)
is "$got" "5 $QTX CREATED" "the quote's transaction, 16 answers: first, CREATED"
ok "$((HITS >= 6))" "... kept ($HITS of 16)"
LE='/transactions?limit=5&status=EXPIRED'
pages 16 "$LE" "${P[@]}"
same_rows "1 $QTX0 EXPIRED false" "status=EXPIRED, 16 answers: the other quote's transaction alone"
ok "$((HITS >= 6))" "... kept ($HITS of 16)"
api "${P[@]}" GET "/transactions/$QTX"
is_status 200 "GET the quote's transaction: 200"
LE2="/transactions?limit=5&status=EXPIRED&startDate=$(jr .createdAt)"
pages 16 "$LE2" "${P[@]}"
same_rows "0" "status=EXPIRED since the quote was made, 16 answers: an empty page"
ok "$((HITS >= 6))" "... kept ($HITS of 16)"
wait_ms=$((expires_ms - $(date +%s%3N) + 500))
if ((wait_ms > 0)); then
    note "waiting $((wait_ms / 1000)) s for the quote to expire"
    sleep "$((wait_ms / 1000)).$(printf '%03d' $((wait_ms % 1000)))"
fi
pages 16 "$LE2" "${P[@]}"
same_rows "1 $QTX EXPIRED false" "past its expiry, before anything else looked: the empty page, 16 answers, the quote's transaction"
pages 16 "$LE" "${P[@]}"
same_rows "2 $QTX EXPIRED false $QTX0 EXPIRED false" "status=EXPIRED, 16 answers, both"
pages 16 "$L" "${P[@]}"
got=$(awk '{ print $1, $2, $3 }' <<<"${ROWS%$'\n'}" | sort -u)
is "$got" "5 $QTX EXPIRED" "and the unfiltered page: 16 answers, EXPIRED"
worker_start || BAIL_OUT "xborder-worker did not start again"

# --- pages of other filters are other pages -------------------------------------
pages 16 "$L&customerId=$KEPT" "${P[@]}"
got=$(awk '{ print $1, $2, $3 }' <<<"${ROWS%$'\n'}" | sort -u)
is "$got" "5 $QTX EXPIRED" "customerId of the payer, 16 answers: its 5"
ok "$((HITS >= 6))" "... kept ($HITS of 16)"
pages 16 "$L&customerId=$CUST" "${P[@]}"
same_rows "0" "customerId of the payee, 16 answers: none"
ok "$((HITS >= 6))" "... an empty page, kept ($HITS of 16)"
LI="$L&type=INCOMING"
pages 16 "$LI" "${P[@]}"
same_rows "0" "type=INCOMING, 16 answers: none yet"
ok "$((HITS >= 6))" "... an empty page, kept ($HITS of 16)"
api "${P[@]}" POST /transfer-in "$(xfer_body "$DST" "$SRC" 100)"
is_status 201 "POST /transfer-in: 201"
TIN=$(jr .transactionId)
pages 16 "$LI" "${P[@]}"
got=$(awk '{ print $1, $2 }' <<<"${ROWS%$'\n'}" | sort -u)
is "$got" "1 $TIN" "right after a transfer-in, type=INCOMING, 16 answers: it, totalCount 1"
pages 16 "$L&platformCustomerId=$(jq -rn --arg s "$CUST_PCID" '$s | @uri')" "${P[@]}"
same_rows "0" "platformCustomerId of the payee, 16 answers: none"

# --- a customer's page moves with that customer's transactions only ------------
# A page filtered by customerId is kept with the version of the customer's
# transactions (schema/029), not the platform's: another customer's
# payouts leave it kept, and every change to the customer's own shows at
# once.  Each read below follows another customer's new payout, which
# moves the platform's version: kept with that, none of the 16 would be
# answered from a kept page.  A worker not yet holding the page answers
# twice at most before it does (of 4 workers, the 16 reads before leave
# 3 cold at worst), and a worker recycled meanwhile (max_requests) twice
# more: at least 6 from kept pages.
LC="$L&customerId=$KEPT"
pages 16 "$LC" "${P[@]}"
KROWS=$(sort -u <<<"${ROWS%$'\n'}")
is "$(wc -l <<<"$KROWS")" 1 "customerId of the payer, 16 answers: the same page"
mk_customer other "${P[@]}"
OTHER=$CUST
int_account "$OTHER" USD "${P[@]}"
OSRC=$INT
mk_ext "$OTHER" 000111222444 USD "${P[@]}"
ODST=$EXT
fund "$OSRC" 100000 "${P[@]}"
h0=$(hits)
codes=
krows=
for ((i = 0; i < 16; i++)); do
    api "${P[@]}" POST /transfer-out "$(xfer_body "$OSRC" "$ODST" 100)"
    codes+="$STATUS "
    api "${P[@]}" GET "$LC"
    codes+="$STATUS "
    krows+="$(jq -r "$ROWSF" <<<"$BODY" 2>/dev/null)"$'\n'
done
HITS=$(($(hits) - h0))
is "$codes" "$(printf '201 200 %.0s' $(seq 16))" "16 times another customer's payout, then the payer's page: 201, 200"
is "$(sort -u <<<"${krows%$'\n'}")" "$KROWS" "... the payer's page the same every time"
ok "$((HITS >= 6))" "... at least 6 of the 16 from kept pages ($HITS): another customer's payouts leave the customer's version"
out
TK=$TX
pages 16 "$LC" "${P[@]}"
got=$(awk '{ print $2 }' <<<"${ROWS%$'\n'}" | sort -u)
is "$got" "$TK" "right after the payer's own payout, 16 answers: it first"
settles "$TK" COMPLETED "it settles" "${P[@]}"
pages 16 "$LC" "${P[@]}"
got=$(awk '{ print $2, $3, $4 }' <<<"${ROWS%$'\n'}" | sort -u)
is "$got" "$TK COMPLETED true" "after it settled, 16 answers: COMPLETED with settledAt (a status change moves the customer's version)"
ok "$((HITS >= 6))" "... and kept again ($HITS of 16)"

# --- another platform's token sees its own platform only ----------------------
new_platform t77b || BAIL_OUT "platform-create failed"
pages 16 "$L" --as "$NP_CLIENT_ID" "$NP_SECRET"
same_rows "0" "another platform, 16 answers: its own empty list"

done_testing
