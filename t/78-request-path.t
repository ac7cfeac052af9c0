#!/usr/bin/env bash
# 78-request-path.t - what the request path costs, read from the workers'
# own counters (xborderctl stats): an authenticated GET /config is one
# statement to MariaDB, GET /transactions/{id} one (read with the token), a
# list page one (read with the token, in the platform the worker verified
# it in before), a transfer-out under an Idempotency-Key fifteen and its
# settlement, in a batch, less than one, making, executing a quote and simulating an incoming
# payment no statement that reads a row just written, a known secret
# costs no argon2 run, a new connection wakes one worker, not all; the configuration the workers cache follows
# a PATCH on every worker at once; every statement GET /transactions and
# GET /webhooks/deliveries can run walks an index in the list's order
# (xborderctl explain-lists: no filesort, no full scan; a deep page's
# anchor on its key and the walk from it on its list's index, unfiltered,
# by type and by customer), and a settlement
# batch finds its transactions by the primary key; txn_counts, which totalCount reads, matches the
# transactions after inserts and status changes (ledger-check).  Speed
# itself is measured by bench/run, never here.
. "$(dirname "${BASH_SOURCE[0]}")/lib/api.sh"
. "$(dirname "${BASH_SOURCE[0]}")/lib/money.sh"
. "$(dirname "${BASH_SOURCE[0]}")/lib/stack.sh"
no_plan

# stat NAME: the counter's current sum.
stat() {
    xbctl stats | awk -v k="$1" '$1 == k { print $2 }'
}

# snapshot: every counter into SNAP[name].
declare -A SNAP=()
snapshot() {
    local k v
    SNAP=()
    while read -r k v; do SNAP[$k]=$v; done < <(xbctl stats)
}

# delta NAME: how much NAME moved since snapshot.
delta() {
    echo $(($(stat "$1") - ${SNAP[$1]:-0}))
}

# burst N PATH [api auth]: N authenticated GETs of PATH over keep-alive
# connections (one curl, so the workers see only these requests); all 200.
burst() {
    local n=$1 path=$2 i
    local -a args=()
    for ((i = 0; i < n; i++)); do
        args+=(-o /dev/null -w '%{http_code}\n' "$XB_BASE_URL$path")
    done
    curl -sk --max-time 60 -H "Authorization: Basic $(b64 "$CRED_ID:$CRED_SECRET")" \
        "${args[@]}" | sort | uniq -c | awk '{ printf "%s:%s ", $2, $1 }'
}

# per_request WHAT PATH MAX: N requests of PATH send at most MAX statements
# each on average, run no argon2 and are all proven by the credential
# cache; the request counter moves by exactly N (5 tests).
N=200
per_request() {
    local what=$1 path=$2 max=$3 codes st
    # Every worker has prepared its statements and cached what it keeps.
    until_every_worker 64 burst 1 "$path" >/dev/null ||
        diag "$what: a worker served none of 64 warm-up requests"
    snapshot
    codes=$(burst "$N" "$path")
    is "$codes" "200:$N " "$what: $N answers, all 200"
    is "$(delta requests)" "$N" "$what: the request counter moved by exactly $N"
    is "$(delta argon2_verifications)" 0 "$what: no argon2 verification (the secret is known)"
    is "$(delta auth_cache_hits)" "$N" "$what: every request proven by the credential cache"
    st=$(delta db_statements)
    ok "$(awk -v s="$st" -v n="$N" -v m="$max" 'BEGIN { exit !(s / n <= m) }' && echo 1)" \
        "$what: $(awk -v s="$st" -v n="$N" 'BEGIN { printf "%.2f", s / n }') statements per request (at most $max)"
}

# --- the counters exist ---------------------------------------------------------

out=$(xbctl stats 2>&1)
is "$?" 0 "xborderctl stats exits 0"
for k in requests argon2_verifications auth_cache_hits db_statements config_cache_hits; do
    is "$(grep -cE "^$k [0-9]+\$" <<<"$out")" 1 "xborderctl stats prints $k"
done

# --- round trips per authenticated read ----------------------------------------

new_platform t78 || BAIL_OUT "platform-create failed"
T78_PLATFORM=$NP_ID
CRED_ID=$NP_CLIENT_ID CRED_SECRET=$NP_SECRET
P=(--as "$NP_CLIENT_ID" "$NP_SECRET")

mk_customer rp "${P[@]}"
int_account "$CUST" USD "${P[@]}"
fund "$INT" 100000 "${P[@]}"
mk_ext "$CUST" 000123456789 USD "${P[@]}"
P_INT=$INT P_EXT=$EXT P_CUST=$CUST
TXS=()
for amt in 101 102 103; do
    api "${P[@]}" POST /transfer-out "$(xfer_body "$INT" "$EXT" "$amt")"
    is_status 201 "transfer-out of $amt: 201"
    TXS+=("$(jr .transactionId)")
done
for id in "${TXS[@]}"; do
    settles "$id" COMPLETED "transfer $id settles" "${P[@]}"
done

snapshot
per_request "GET /config" /config 1.1
ok "$(( $(delta config_cache_hits) >= N ))" "GET /config: served from the workers' configuration cache"
per_request "GET /transactions/{id}" "/transactions/${TXS[0]}" 1.1
# The transaction is read in the token's statement, but shown only to a
# caller who proves the secret, and only within the token's platform.
api --as "$CRED_ID" "wrong-$CRED_SECRET" GET "/transactions/${TXS[0]}"
is_status 401 "GET /transactions/{id} with a wrong secret: 401"
unlike "$BODY" "${TXS[0]#Transaction:}" "the 401 says nothing of the transaction"
saved=("$NP_ID" "$NP_CLIENT_ID" "$NP_SECRET")
new_platform t78b || BAIL_OUT "platform-create failed"
api --as "$NP_CLIENT_ID" "$NP_SECRET" GET "/transactions/${TXS[0]}"
is_status 404 "GET /transactions/{id} of another platform's transaction: 404"
unlike "$BODY" "${TXS[0]#Transaction:}" "the 404 says nothing of it"
NP_ID=${saved[0]} NP_CLIENT_ID=${saved[1]} NP_SECRET=${saved[2]}
per_request "GET /transactions (first page)" "/transactions?limit=20" 1.1
per_request "GET /transactions?status=COMPLETED" "/transactions?limit=20&status=COMPLETED" 1.1
per_request "GET /transactions?customerId=..." "/transactions?limit=20&customerId=$CUST" 1.1
per_request "GET /transactions?limit=2&cursor=1" "/transactions?limit=2&cursor=1" 1.1
per_request "GET /transactions, an empty first page" "/transactions?limit=20&status=PENDING" 1.1
per_request "GET /transactions past the end" "/transactions?limit=20&cursor=1000" 1.1

# A new connection wakes one waiting worker (EPOLLEXCLUSIVE), not every
# one: requests sent one at a time (nginx opens a FastCGI connection for
# each) find every worker waiting.  The one that serves a request waits
# twice (for the connection, for MariaDB's answer); waking every worker
# added about one wait each (5.6 a request with 4 workers).  Counted in
# the workers' own voluntary context switches.
worker_pids() { xbctl status | sed -n 's/^worker: slot=[0-9]* pid=\([1-9][0-9]*\) alive=true .*/\1/p'; }
waits() {
    local p t=0 v
    for p in "$@"; do
        v=$(awk '/^voluntary_ctxt_switches:/ { print $2 }' "/proc/$p/status" 2>/dev/null) || v=0
        t=$((t + ${v:-0}))
    done
    echo "$t"
}
mapfile -t WPIDS < <(worker_pids)
if ((${#WPIDS[@]} > 1)); then
    w0=$(waits "${WPIDS[@]}") before=$(workers)
    is "$(burst "$N" /config)" "200:$N " "$N GET /config one at a time: all 200"
    w=$(($(waits "${WPIDS[@]}") - w0))
    # The idle workers take connections in turn (an idle worker goes to
    # the end of the line): one at a time, the requests reach every one.
    is "$(uncovered "$before" requests)" 0 "... and reached every worker"
    max=$((4 * N + (${#WPIDS[@]} - 1) * N)) # (2 + (workers - 1) / 2) * N, doubled
    ok "$((2 * w < max))" \
        "... each woke one of the ${#WPIDS[@]} workers: $(awk -v w="$w" -v n="$N" 'BEGIN { printf "%.2f", w / n }') waits a request in the workers (at most $(awk -v m="$max" -v n="$N" 'BEGIN { printf "%.2f", m / 2 / n }'))"
else
    skip "one worker: nothing to wake but it" 3
fi
# The page read with the token is the page the handler reads itself.
api "${P[@]}" GET "/transactions?limit=2&cursor=1"
jis '[.data[].transactionId]' "$(jq -cn --arg a "${TXS[1]}" --arg b "${TXS[0]}" '[$a, $b]')" \
    "GET /transactions?limit=2&cursor=1: the second and first transfers, newest first"
jis '[.hasMore, .nextCursor, .totalCount]' '[false,null,3]' "... and the envelope of the last page"
api "${P[@]}" GET "/transactions?limit=20&customerId=$CUST&type=INCOMING"
jis '[(.data | length), .totalCount]' '[0,0]' "GET /transactions?customerId=...&type=INCOMING: empty, totalCount 0"
# Shown only to a caller who proves the secret; a query that does not
# parse is still answered 400 once the caller is authenticated.
api --as "$CRED_ID" "wrong-$CRED_SECRET" GET "/transactions?limit=20"
is_status 401 "GET /transactions with a wrong secret: 401"
unlike "$BODY" "${TXS[0]#Transaction:}" "the 401 says nothing of the transactions"
api "${P[@]}" GET "/transactions?limit=0"
is_status 400 "GET /transactions?limit=0 from a verified caller: 400"
jis '.details | keys' '["limit"]' "... naming limit"
api --as "$CRED_ID" "wrong-$CRED_SECRET" GET "/transactions?limit=0"
is_status 401 "GET /transactions?limit=0 with a wrong secret: 401 first"

# --- the cached configuration follows a change on every worker ----------------

burst 40 /config >/dev/null
api "${P[@]}" PATCH /config '{"quoteFeePolicy":{"senderServiceFeeBps":37,"receiverServiceFeeBps":11}}'
is_status 200 "PATCH /config: 200"
jis .quoteFeePolicy '{"receiverServiceFeeBps":11,"senderServiceFeeBps":37}' "PATCH answers the new fees"
stale=0
for ((i = 0; i < 40; i++)); do
    api --nocheck "${P[@]}" GET /config
    [[ $(jq -cS .quoteFeePolicy <<<"$BODY") == '{"receiverServiceFeeBps":11,"senderServiceFeeBps":37}' ]] || stale=$((stale + 1))
done
is "$stale" 0 "40 GET /config after the PATCH (every worker): none shows the old fees"

# until_clean MISSES CRED...: passes of 16 GET /config with each credential
# (ID:SECRET), at most 12, until a pass that MISSES (a command given the
# number of credentials, printing what the pass missed) says missed
# nothing: CLEAN is that pass (0: none), MISSED what each pass missed.
until_clean() {
    local misses=$1 t codes pass
    shift
    CLEAN=0 MISSED=()
    for ((pass = 1; pass <= 12 && CLEAN == 0; pass++)); do
        snapshot
        codes=
        for t in "$@"; do
            codes+=$(CRED_ID=${t%%:*} CRED_SECRET=${t#*:} burst 16 /config)
        done
        [[ $codes == "$(printf '200:16 %.0s' $(seq $#))" ]] || diag "pass $pass: $codes"
        MISSED+=("$("$misses" $#)")
        ((MISSED[-1] == 0)) && CLEAN=$pass
    done
}
argon2_runs() { delta argon2_verifications; }
config_reads() { echo $(($1 * 16 - $(delta config_cache_hits))); }

# --- the credential cache holds the tokens in use ------------------------------
# 40 tokens of one platform, each used by 16 requests a pass (over 4
# workers), pass after pass: once every worker has proven every secret, a
# pass runs no argon2id at all.  A worker's cache of 64 places, one token
# each, had two of 40 tokens in one place in all but one case in 8
# million (the chance of none: the product of 1 - i/64 for i < 40), and
# then ran argon2id for both on every pass.
TOKS=()
for ((i = 0; i < 40; i++)); do
    api --nocheck "${P[@]}" POST /tokens "{\"name\":\"t78-cache-$i\",\"permissions\":[\"view\"]}"
    [[ $STATUS == 201 ]] && TOKS+=("$(jr .clientId):$(jr .clientSecret)")
done
is "${#TOKS[@]}" 40 "40 tokens made for the credential cache"
until_clean argon2_runs "${TOKS[@]}"
diag "argon2id runs by pass: ${MISSED[*]}"
ok "$((CLEAN > 0))" "40 tokens in use, 16 requests each a pass: pass $CLEAN ran no argon2id (${MISSED[*]})"

# --- the configuration caches hold the platforms in use ----------------------
# 20 platforms, GET /config 16 times each a pass: once every worker has
# read every platform's configuration, a pass is served from the workers'
# caches alone.  With 16 places of one platform each (the caches of
# configurations and of their answers), two of 20 platforms always shared
# one and pushed each other out on every pass.
saved=("$NP_ID" "$NP_CLIENT_ID" "$NP_SECRET")
PLATS=()
for ((i = 0; i < 20; i++)); do
    new_platform "t78c$i" >/dev/null && PLATS+=("$NP_CLIENT_ID:$NP_SECRET")
done
NP_ID=${saved[0]} NP_CLIENT_ID=${saved[1]} NP_SECRET=${saved[2]}
is "${#PLATS[@]}" 20 "20 platforms made for the configuration caches"
until_clean config_reads "${PLATS[@]}"
diag "GET /config not served from a cache, by pass: ${MISSED[*]}"
ok "$((CLEAN > 0))" "20 platforms in use, 16 GET /config each a pass: pass $CLEAN all from the caches (${MISSED[*]})"

# --- every list statement walks an index ----------------------------------------

out=$(xbctl explain-lists "$NP_ID" 2>&1)
rc=$?
is "$rc" 0 "xborderctl explain-lists exits 0 (no filesort, no full scan)"
is "$(grep -c $'^BAD\t' <<<"$out")" 0 "no plan of a GET /transactions or GET /webhooks/deliveries statement sorts or scans a table"
is "$(grep $'\tfilters=' <<<"$out" | cut -f2,3 | sort -u | wc -l)" 320 "every filter combination's page, page with the token, first page with the token (found, and empty) and count was explained (64 x 5)"
# A settlement batch's statements over 1, 2 and 16 transactions: on the
# primary key (an UPDATE naming its row by (platform_id, id) IN (...) alone
# walks the whole primary key in MariaDB 10.11).
is "$(grep $'\tbatch=' <<<"$out" | cut -f2,3 | LC_ALL=C sort -u | tr '\t\n' ': ')" \
    "batch=1:lock batch=1:status batch=16:lock batch=16:status batch=2:lock batch=2:status " \
    "the lock and the status change of a batch of 1, 2 and 16 transactions were explained"
is "$(grep -c $'\ttoken+page\t<derived' <<<"$out")" 64 "the page read with the token is planned through the page's ids (the token exists)"
is "$(grep $'\ttoken+first\t' <<<"$out" | grep -c $'\tx\t\(ref\|range\)\tix_transactions_')" 64 \
    "the first page read with the token walks the filter's index (the token exists)"
is "$(grep -E $'\tanchor(\\+type|\\+customer)?\t' <<<"$out" | cut -f2,3 | LC_ALL=C sort -u | tr '\t\n' ': ')" \
    "anchor:below anchor:find anchor:page anchor:up anchor+customer:below anchor+customer:find anchor+customer:page anchor+customer:up anchor+type:below anchor+type:find anchor+type:page anchor+type:up " \
    "a deep page's look for its anchor (above it, or below it) and walk from it (down, or up) were explained, unfiltered, by type and by customer"
is "$(grep $'\tanchor\t' <<<"$out" | grep -c $'\t\(txn_anchors\tr\|transactions\tr\)ange\t\(PRIMARY\|ix_transactions_list\)')" 4 \
    "the anchors (above and below) are found on their key, the walks from them on the list's index (ranges)"
is "$(grep $'\tanchor+type\t' <<<"$out" | grep -c $'\t\(txn_anchors\tr\|transactions\tr\)ange\t\(PRIMARY\|ix_transactions_type\)')" 4 \
    "by type: the anchors are found on their key, the walks from them on the type's index (ranges)"
is "$(grep $'\tanchor+customer\t' <<<"$out" | grep -c $'\t\(txn_anchors\tr\|transactions\tr\)ange\t\(PRIMARY\|ix_transactions_customer\)')" 4 \
    "by customer: the anchors are found on their key, the walks from them on the customer's index (ranges)"
is "$(grep $'\tdeliveries=' <<<"$out" | cut -f2,3 | sort -u | wc -l)" 64 \
    "every filter combination of GET /webhooks/deliveries was explained, page and count (32 x 2)"
is "$(grep $'\tdeliveries=' <<<"$out" | grep -vc $'\twebhook_events\t\(ref\|range\)\tix_webhook_events_')" 0 \
    "every GET /webhooks/deliveries statement walks the index of its filters"
[[ $rc == 0 ]] || diag "$(grep $'^BAD\t' <<<"$out" | head -5)"

# --- totalCount's counters after inserts and status changes -------------------

api "${P[@]}" GET "/transactions?status=COMPLETED&type=OUTGOING"
jis .totalCount 3 "totalCount of COMPLETED OUTGOING: 3 (counted by status change)"
api "${P[@]}" GET "/transactions?status=PENDING"
jis .totalCount 0 "totalCount of PENDING: 0 after settlement"
api "${P[@]}" POST /transfer-out "$(xfer_body "$INT" "$EXT" 104)"
is_status 201 "one more transfer-out: 201"
T4=$(jr .transactionId)
api "${P[@]}" GET "/transactions"
jis .totalCount 4 "totalCount right after it: 4 (counted when inserted)"
settles "$T4" COMPLETED "it settles" "${P[@]}"
api "${P[@]}" GET "/transactions?status=COMPLETED"
jis .totalCount 4 "totalCount of COMPLETED: 4 (moved from PENDING)"
api "${P[@]}" GET "/transactions?status=PENDING&type=OUTGOING"
jis .totalCount 0 "totalCount of PENDING OUTGOING: 0"
out=$(xbctl ledger-check 2>&1)
is "$?" 0 "xborderctl ledger-check exits 0 (balances and txn_counts)"
like "$out" 'ledger ok' "ledger-check: ledger ok"

# --- quotes past their expiry are expired by the reader ---------------------
# The check rides on the statement that reads the transactions (no round
# trip of its own); with xborder-worker stopped, nobody else expires them.

# (t/lib/stack.sh: sql, and xborder-worker started again at exit.)

SRC_INT=$INT
mk_customer rq "${P[@]}"
api "${P[@]}" POST /quotes "$(ppv_quote "$SRC_INT" "$CUST_PPV" EUR SENDING 1000)"
is_status 201 "a quote to a PPV address: 201"
Q1=$(jr .quoteId) Q1_TX=$(jr .transactionId)
api "${P[@]}" POST /quotes "$(ppv_quote "$SRC_INT" "$CUST_PPV" EUR SENDING 1200)"
is_status 201 "another: 201"
Q2=$(jr .quoteId) Q2_TX=$(jr .transactionId)
if "$DEV" worker stop >/dev/null 2>&1; then
    worker_stopped=1
    pass "xborder-worker stopped"
else
    fail "xborder-worker stopped"
fi
# GET /transactions/{id} reads the expiry from the transaction's own row
# (schema/010_quote_expiry.sql): the quote's, copied when it was made.
is "$(sql "SELECT x.quote_expires_at = q.expires_at FROM transactions x JOIN quotes q ON q.transaction_id = x.id WHERE q.id = '${Q1#Quote:}'")" 1 \
    "Q1's transaction carries Q1's expiry"
is "$(sql "SELECT COUNT(*) FROM transactions WHERE quote_expires_at IS NOT NULL AND quote_id IS NULL")" 0 \
    "no transaction without a quote carries a quote expiry"
sql "UPDATE transactions SET quote_expires_at = quote_expires_at + INTERVAL 1 SECOND WHERE id = '${Q1_TX#Transaction:}'"
out=$(xbctl ledger-check 2>&1)
is "$?" 1 "ledger-check fails when a transaction's copy of the expiry differs from its quote's"
like "$out" "transaction	${Q1_TX#Transaction:}	quote expiry" "ledger-check names the transaction"
sql "UPDATE transactions SET quote_expires_at = quote_expires_at - INTERVAL 1 SECOND WHERE id = '${Q1_TX#Transaction:}'"
# Time moves on, for the quote and the copy alike.
sql "UPDATE quotes q JOIN transactions x ON x.id = q.transaction_id SET q.expires_at = UTC_TIMESTAMP(3) - INTERVAL 1 SECOND, x.quote_expires_at = UTC_TIMESTAMP(3) - INTERVAL 1 SECOND WHERE q.id = '${Q1#Quote:}'"
is "$(sql "SELECT status FROM quotes WHERE id = '${Q1#Quote:}'")" QUOTE_READY "Q1 is past its expiry and still QUOTE_READY in the database"
out=$(xbctl ledger-check 2>&1)
is "$?" 0 "ledger-check: the copy moved with the quote"
api "${P[@]}" GET "/transactions/$Q1_TX"
is_status 200 "GET its transaction: 200"
jis .status '"EXPIRED"' "GET /transactions/{id}: EXPIRED (expired by this read)"
sql "UPDATE quotes q JOIN transactions x ON x.id = q.transaction_id SET q.expires_at = UTC_TIMESTAMP(3) - INTERVAL 1 SECOND, x.quote_expires_at = UTC_TIMESTAMP(3) - INTERVAL 1 SECOND WHERE q.id = '${Q2#Quote:}'"
api "${P[@]}" GET "/transactions?limit=5"
jis "[.data[] | select(.transactionId == \"$Q2_TX\") | .status]" '["EXPIRED"]' "GET /transactions: Q2's transaction EXPIRED (expired by this read)"
api "${P[@]}" GET "/transactions?status=EXPIRED"
jis .totalCount 2 "GET /transactions?status=EXPIRED: totalCount 2"
# A status filter depends on every quote of the platform, not only the
# page's: Q3's transaction is CREATED in the database, so not on the first
# page of EXPIRED rows as read, but it is EXPIRED once read: the newest.
api "${P[@]}" POST /quotes "$(ppv_quote "$SRC_INT" "$CUST_PPV" EUR SENDING 1300)"
is_status 201 "a third quote: 201"
Q3=$(jr .quoteId) Q3_TX=$(jr .transactionId)
sql "UPDATE quotes q JOIN transactions x ON x.id = q.transaction_id SET q.expires_at = UTC_TIMESTAMP(3) - INTERVAL 1 SECOND, x.quote_expires_at = UTC_TIMESTAMP(3) - INTERVAL 1 SECOND WHERE q.id = '${Q3#Quote:}'"
api "${P[@]}" GET "/transactions?status=EXPIRED&limit=1"
is_status 200 "GET /transactions?status=EXPIRED&limit=1: 200"
jis '[.totalCount, [.data[].transactionId]]' "[3,[\"$Q3_TX\"]]" "status=EXPIRED, a page of one: totalCount 3 and Q3's transaction (expired by this read)"
is "$(sql "SELECT status FROM quotes WHERE id = '${Q3#Quote:}'")" EXPIRED "Q3 EXPIRED in the database"
if "$DEV" worker start >/dev/null 2>&1; then
    worker_stopped=0
    pass "xborder-worker started again"
else
    fail "xborder-worker started again"
fi

# --- refusals on a fresh platform: nothing of them survives --------------------
# The first payout of a platform in a currency creates its in-transit
# account inside the request's transaction; a refused payout rolls that
# back.  With an Idempotency-Key the refusal first runs without a
# savepoint, then again with one (db.c); a worker must not keep the id of
# an account whose creation was rolled back (db_ledger.c's cache), or the
# next payouts would fail.

# R also receives the quotes measured below, and shares P's slot in the
# workers' configuration cache (db_platforms.c, 16 slots): reading R's
# configuration for a quote must not evict P's (it would cost every
# request of P a statement; by the platforms' random ids it did 1 run in 16).
for ((i = 0; i < 200; i++)); do
    new_platform t78r || BAIL_OUT "platform-create failed"
    [[ $(cache_slot "$NP_ID") == $(cache_slot "$T78_PLATFORM") ]] && break
done
is "$(cache_slot "$NP_ID")" "$(cache_slot "$T78_PLATFORM")" \
    "the receiving platform shares the sender's configuration cache slot ($i platforms made)"
R=(--as "$NP_CLIENT_ID" "$NP_SECRET")
mk_customer refused "${R[@]}"
R_PPV=$CUST_PPV
int_account "$CUST" EUR "${R[@]}"
mk_ext "$CUST" 000987654321 EUR "${R[@]}"
for ((i = 0; i < 6; i++)); do
    api "${R[@]}" POST /transfer-out "$(xfer_body "$INT" "$EXT" 500 EUR)" -H "Idempotency-Key: t78-refused-$$-$i"
    is_error 409 INSUFFICIENT_FUNDS "unfunded payout $i with a key: 409 INSUFFICIENT_FUNDS"
done
api "${R[@]}" POST /transfer-out "$(xfer_body "$INT" "$EXT" 500 EUR)" -H "Idempotency-Key: t78-refused-$$-0"
is_error 409 INSUFFICIENT_FUNDS "its replay: the same 409"
is_header Idempotent-Replayed true "the replay says so"
fund "$INT" 100000 "${R[@]}"
bad=0 ids=()
for ((i = 0; i < 24; i++)); do
    api --nocheck "${R[@]}" POST /transfer-out "$(xfer_body "$INT" "$EXT" 100 EUR)" -H "Idempotency-Key: t78-paid-$$-$i"
    [[ $STATUS == 201 ]] && ids+=("$(jr .transactionId)") || { bad=$((bad + 1)); diag "payout $i: $STATUS $BODY"; }
done
is "$bad" 0 "24 funded payouts after the refusals: all 201"
for id in "${ids[0]}" "${ids[-1]}"; do
    settles "$id" COMPLETED "payout $id settles" "${R[@]}"
done
balance_of "$INT" "${R[@]}"
is "$BAL" $((100000 - 24 * 100)) "the balance is the funding less 24 payouts"
out=$(xbctl ledger-check 2>&1)
is "$?" 0 "ledger-check after the refusals and payouts: exits 0"

# --- round trips per payout ----------------------------------------------------

# payouts TAG N: N transfer-outs of 0.07 USD from the first platform's
# customer under their own Idempotency-Keys, over one keep-alive
# connection (one curl: no worker sits idle long enough to check its
# connection first); prints the status counts.
payouts() {
    local tag=$1 n=$2 i
    local -a args=()
    for ((i = 0; i < n; i++)); do
        ((i == 0)) || args+=(--next)
        args+=(-sk --max-time 60 -o /dev/null -w '%{http_code}\n'
            -H "Authorization: Basic $(b64 "$CRED_ID:$CRED_SECRET")"
            -H 'Content-Type: application/json' -H "Idempotency-Key: t78-$tag-$$-$i"
            --data "$(xfer_body "$P_INT" "$P_EXT" 7)" "$XB_BASE_URL/transfer-out")
    done
    curl "${args[@]}" | sort | uniq -c | awk '{ printf "%s:%s ", $2, $1 }'
}

# A transfer-out under an Idempotency-Key, in round trips (a statement
# that carries writes queued before it, db_exec_later, counts once): auth,
# the key's claim, then the transaction: both accounts read in one
# statement (carrying the autocommit off), the customer's lock, the
# balances' lock, the transaction row returned by its insert (carrying the
# balances' change and both entries), the commit (carrying the
# transaction's count, its customer's count, its event, its settlement
# job and the key's answer, which also checks the claim): 7, and a few
# more over the run (a worker that looks up an in-transit shard for the
# first time, or checks an idle connection), so at most 7.5 on average.
# Each write sent by itself, as before the queue, made it 15.
K=40
WLOG=$XB_DEV_DIR/log/xborder-worker.log
pending() { sql "SELECT COUNT(*) FROM transactions WHERE platform_id = '$T78_PLATFORM' AND status = 'PENDING'"; }
payouts warm 64 >/dev/null # every worker has prepared its statements
wait_for '[[ $(pending) == 0 ]]' 30 || diag "the warm-up payouts did not all settle"
wlines=$(wc -l <"$WLOG")
wpid=$(cat "$XB_DEV_DIR/run/xborder-worker.pid")
kill -STOP "$wpid"
# Whatever happens to this test, the worker goes on within 60 s.  The guard
# holds none of the test's output, which prove reads to its end (it held
# the suite open for that minute), and it ends when the worker goes on.
(sleep 60; kill -CONT "$wpid" 2>/dev/null) </dev/null >/dev/null 2>&1 &
guard=$!
snapshot
is "$(payouts rt "$K")" "201:$K " "transfer-out: $K answers, all 201"
st=$(delta db_statements)
is "$(delta requests)" "$K" "transfer-out: the request counter moved by exactly $K"
ok "$(awk -v s="$st" -v n="$K" 'BEGIN { exit !(s / n <= 7.5) }' && echo 1)" \
    "transfer-out: $(awk -v s="$st" -v n="$K" 'BEGIN { printf "%.2f", s / n }') statements per request (at most 7.5)"

# Their settlement, by xborder-worker: each job line of its log carries
# its batch's statements (db_statements, claim and commit included) and
# its size, so the lines of the payouts' jobs add up to what settling
# them cost.  The worker is stopped (SIGSTOP) while they are made, so
# that all 40 are due when it goes on: batches of 16, 16 and 8.  Payouts
# that complete settle as a set (settle.c): per batch the due jobs' read
# (carrying the autocommit off) and their claim, the read of the
# customers other jobs would lock, one statement locking the batch's
# transactions, one changing their status, the balances' lock (carrying
# their count and their events), the jobs marked done (carrying the
# balances' change and the postings of one posting set) and the commit: 8,
# 0.6 per job, up to 17 more for the worker's first look at a platform's
# in-transit shards and SANDBOX account, and a batch more if the jobs fall
# due apart: at most 1.05.  Each write sent by itself made it 13 a batch.
# Settled one by one (a customer lock, the transaction read twice, its own
# postings, status change, count and event) they cost 9.32.
# Every settlement job is due: waited on the jobs' own run_at.
not_due() { sql "SELECT COUNT(*) FROM jobs WHERE platform_id = '$T78_PLATFORM' AND done_at IS NULL AND run_at > UTC_TIMESTAMP(3)"; }
wait_for '[[ $(not_due) == 0 ]]' 5 || diag "settlement jobs still not due after 5 s"
kill -CONT "$wpid"
kill "$guard" 2>/dev/null
ok "$(wait_for '[[ $(pending) == 0 ]]' 30 && echo 1)" "transfer-out: the $K payouts settle"
# A batch's job lines are written after its commit, which is what pending
# saw: wait for the last batch's lines too.
wait_log "$WLOG" "$wlines" ' msg=job .* outcome=done' "$K" 10 || diag "    fewer than $K outcome=done job lines within 10 s"
read -r jobs per_job < <(tail -n +"$((wlines + 1))" "$WLOG" | grep ' msg=job ' |
    awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
           if (v["outcome"] == "done") { n++; s += v["db_statements"] / v["batch"] } }
         END { printf "%d %.2f\n", n, n ? s / n : 0 }')
is "$jobs" "$K" "settlement: $K jobs done in the log (and no other)"
# Each process counts in its own txn_counts rows (db_count_shard): the
# payouts in the fcgi workers' (their slots, 0-14), their settlements in
# xborder-worker's (15), so a batch never holds a payout's counter row.
is "$(sql "SELECT SUM(shard = 15 AND status = 'COMPLETED' AND n >= $((K + 64))),
             SUM(shard < 15 AND status = 'PENDING' AND n > 0) > 0,
             SUM(shard = 15 AND status = 'PENDING' AND n > 0)
           FROM txn_counts WHERE platform_id = '$T78_PLATFORM' AND type = 'OUTGOING'")" \
    "$(printf '1\t1\t0')" "txn_counts: payouts counted in the fcgi workers' rows, settlements in the worker's own (shard 15)"
diag "settlement: $per_job statements per job"
ok "$(awk -v s="$per_job" 'BEGIN { exit !(s <= 1.05) }' && echo 1)" \
    "settlement: $per_job statements per job (at most 1.05)"

# --- making and executing a quote, simulating an incoming payment -------------
# Each transaction row comes back with its insert (RETURNING), so no
# statement reads a row just written; the counts, events, jobs, balance
# changes and postings go with the next statement (db_exec_later), and
# the bounds below are round trips.  POST /quotes: 15 (each write sent by
# itself: 19).
# POST /quotes/{id}/execute to a PPV
# address (no Idempotency-Key): auth, then the transaction: autocommit
# off, the quote read, both customers' locks, the quote locked, its
# transaction locked, the receiving account, the sending side's accounts,
# their change and the postings, the quote marked executed, the status
# changed with its count and event (the row locked is the one changed:
# neither its status nor the row as changed, which is the answer, is
# read again), the incoming transaction with its count, its customer's
# count and its event, the commit: 20 statements, 12 round trips once the
# writes whose answers nobody reads ride with the next statement, and the
# bound 12.5.  Reading the row back after its change adds one; the older
# path (the status read again under its lock, the answer read again at
# the end, the incoming row read after its insert) four.
# per_post WHAT MAX CMD...: CMD (which makes 12 API calls) sends at most
# MAX statements per call on average.
per_post() {
    local what=$1 max=$2 st
    shift 2
    snapshot
    "$@"
    st=$(delta db_statements)
    diag "$what: $(awk -v s="$st" 'BEGIN { printf "%.2f", s / 12 }') statements per request"
    ok "$(awk -v s="$st" -v m="$max" 'BEGIN { exit !(s / 12 <= m) }' && echo 1)" \
        "$what: $(awk -v s="$st" 'BEGIN { printf "%.2f", s / 12 }') statements per request (at most $max)"
}
QX=()
make_quotes() {
    local i
    for ((i = 0; i < $1; i++)); do
        api "${P[@]}" POST /quotes "$(ppv_quote "$SRC_INT" "$R_PPV" EUR SENDING 100)"
        [[ $STATUS == 201 ]] && QX+=("$(jr .quoteId)")
    done
}
# Every worker has made a quote (prepared the statements, cached what it
# keeps), then 24 more quotes for the executions' warm-up.
until_every_worker 64 make_quotes 1 || diag "POST /quotes: a worker served none of 64 warm-up requests"
make_quotes 24
nwarm=${#QX[@]}
per_post "POST /quotes" 15.5 make_quotes 12
is "${#QX[@]}" $((nwarm + 12)) "$((nwarm + 12)) quotes made: 201"
WARM=("${QX[@]:0:nwarm}")
exec_warm() {
    api --nocheck "${P[@]}" POST "/quotes/${WARM[0]}/execute"
    WARM=("${WARM[@]:1}")
}
until_every_worker "$nwarm" exec_warm || diag "execute: a worker served none of $nwarm warm-up requests"
ex=0
execute_quotes() {
    local q
    for q in "${QX[@]:nwarm}"; do
        api "${P[@]}" POST "/quotes/$q/execute"
        [[ $STATUS == 200 && $(jr .status) == COMPLETED ]] && ex=$((ex + 1))
    done
}
per_post "POST /quotes/{id}/execute" 12.5 execute_quotes
is "$ex" 12 "12 quotes executed: 200, their transactions COMPLETED"
# POST /sandbox/incoming-payments/simulate: the answer is the row as
# inserted (7 round trips; 12 with each write sent by itself); the old
# path read it twice more.
SIMS=0
simulate() {
    local i
    for ((i = 0; i < $1; i++)); do
        api "${P[@]}" POST /sandbox/incoming-payments/simulate \
            "{\"receiverCustomerId\":\"$P_CUST\",\"scenario\":\"sanctions_hit\",\"amountMinor\":100,\"currencyCode\":\"USD\"}"
        if [[ $STATUS == 201 && $(jr .status) == PENDING ]]; then
            SIMS=$((SIMS + 1))
        elif ((i == 0)); then
            diag "simulate: $STATUS $BODY"
        fi
    done
}
simulate 8
per_post "POST /sandbox/incoming-payments/simulate" 7.5 simulate 12
is "$SIMS" 20 "20 incoming payments simulated: 201, PENDING"

done_testing
