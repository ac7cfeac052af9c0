#!/usr/bin/env bash
# 65-deep-pages.t - a deep page of GET /transactions, unfiltered or
# filtered by type or by customerId, starts at an anchor of its list
# (schema/023, 024 and 026, src/db_txn_anchors.c) and is the same page the
# offset says.
#
# A platform of its own gets 25,000 transactions written with SQL, a month
# old (pairs of rows share a createdAt, so the id orders them; every third
# INCOMING, the rest OUTGOING; every fourth a second customer's), and its
# txn_counts and customers' counts rebuilt, as bench/run seeds.
# xborder-worker places the anchors of the stack's list_anchor_step (1,000
# by default) at positions 0, 1,000, ... of the whole list (24,000 the
# last), of each type's and of each customer's, each the row at that
# position of its list counted from the oldest (the customers' lists a
# chunk of customers a pass: 2,500 other customers first in the worker's
# order do not keep it from them).  Then, for the whole list, each type's
# and the second customer's:
#  - pages at offsets around the anchors, the first anchored offset, the
#    last rows and past the end are exactly what the offset says (the ids
#    in order, totalCount, hasMore, nextCursor), against SQL's own walk;
#  - a page far past the end (of these lists, and of lists filtered by
#    status) is answered without walking the index (Handler_read_prev);
#  - a page is read from its own list's anchor: an anchor recorded one
#    position off moves the page by one row (and no page of the other
#    lists), and put back, the page is right again;
#  - transactions made through the API afterwards (payouts: OUTGOING, of
#    the first customer), the newest, move every page of their lists down
#    and no position below them, and leave the INCOMING list's and the
#    second customer's pages where they were;
#  - a list filtered by customerId has the customer's kept count
#    (txn_customer_counts, schema/025) as totalCount, which each payout
#    adds one to;
#  - rows younger than list_anchor_delay (600 s) are no anchor: 10,000
#    more rows about a minute old give the platform's lists no anchor past
#    their old rows, while a platform seeded in the same moment with old
#    rows gets its own; a page among them nearer the newest anchor than the
#    newest row is walked up from that anchor (one recorded a position low
#    moves the page by one row); a list whose next row is too young is
#    walked to it once, not again every pass of the worker's (a slow log
#    of its statements over five passes), and its anchors are placed once
#    the rows come of age (rows 8 s short of it: within 40 s).
# The seeded rows are written with their txn_counts in one transaction;
# the old ones are past the 30 days the event checks look at, as bench/run
# seeds; the young ones have no events, so they are recorded as planted
# (zz-invariants.t) and removed at the end, after which xborderctl
# ledger-check is clean.
. "$(dirname "${BASH_SOURCE[0]}")/lib/api.sh"
. "$_API_LIB_DIR/money.sh"
. "$_API_LIB_DIR/stack.sh"
no_plan

# The stack's step (xborder.conf(5)), 1000 unless its configuration says.
STEP=$(sed -n 's/^[[:space:]]*list_anchor_step[[:space:]]*=[[:space:]]*\([0-9]*\).*/\1/p' \
    "${XB_CONF:?}" | tail -n 1)
STEP=${STEP:-1000}
ROWS=25000
((STEP >= 100 && STEP <= 2000)) || BAIL_OUT "this suite needs list_anchor_step from 100 to 2000 (it is $STEP)"

new_platform t65 || BAIL_OUT "platform-create failed"
P=$NP_ID AS=(--as "$NP_CLIENT_ID" "$NP_SECRET")
mk_customer deep2 "${AS[@]}"
C2=${CUST#Customer:}
mk_customer deep "${AS[@]}"
int_account "$CUST" USD "${AS[@]}"
fund "$INT" 100000 "${AS[@]}"
mk_ext "$CUST" 000123456789 USD "${AS[@]}"
C=${CUST#Customer:} I=${INT#InternalAccount:} E=${EXT#ExternalAccount:} PPV=$CUST_PPV

# The end of a transaction that changed platform @p's rows: its txn_counts
# and its customers' counts rebuilt from them (their version, the sum of
# changes, only grows).
RECOUNT="SET @v = (SELECT COALESCE(SUM(changes), 0) + 1 FROM txn_counts WHERE platform_id = @p);
DELETE FROM txn_counts WHERE platform_id = @p;
INSERT INTO txn_counts (platform_id, status, type, shard, n, changes)
  SELECT platform_id, status, type, 0, COUNT(*), @v FROM transactions
  WHERE platform_id = @p GROUP BY platform_id, status, type;
DELETE FROM txn_customer_counts WHERE platform_id = @p;
INSERT INTO txn_customer_counts (platform_id, customer_id, shard, n)
  SELECT platform_id, customer_id, 0, COUNT(*) FROM transactions
  WHERE platform_id = @p AND customer_id IS NOT NULL GROUP BY platform_id, customer_id;"

# seed PLATFORM N AGE_SECONDS UNIT MARK: N transactions of PLATFORM's
# customers (platformCustomerId MARK; every fourth $C2's, the rest $C's),
# the newest AGE_SECONDS old, two
# rows a UNIT of microseconds (1000000: a second; pairs share createdAt),
# and its txn_counts rebuilt, in one transaction.
seed() {
    local p=$1 n=$2 age=$3 unit=$4 mark=$5
    sql "
SET @p = '$p';
START TRANSACTION;
INSERT INTO transactions (id, platform_id, kind, type, status, customer_id,
  platform_customer_id, quote_id, internal_account_id, external_account_id,
  destination_type, destination_ref, currency, amount, outcome, created_at,
  updated_at, settled_at)
SELECT LOWER(CONCAT(SUBSTR(h, 1, 8), '-', SUBSTR(h, 9, 4), '-4', SUBSTR(h, 14, 3), '-',
         SUBSTR('89ab', 1 + (seq % 4), 1), SUBSTR(h, 18, 3), '-', SUBSTR(h, 21, 12))),
  @p, IF(seq % 3 = 1, 'TRANSFER_IN', 'TRANSFER_OUT'), IF(seq % 3 = 1, 'INCOMING', 'OUTGOING'),
  IF(seq % 7 = 3, 'FAILED', 'COMPLETED'), IF(seq % 4 = 2, '$C2', '$C'), '$mark', NULL, '$I', '$E',
  IF(seq % 3 = 1, 'PPV_ADDRESS', 'EXTERNAL_ACCOUNT'), IF(seq % 3 = 1, '$PPV', '$E'),
  'USD', 100 + seq, 'COMPLETES',
  c, c + INTERVAL 1 SECOND, IF(seq % 7 = 3, NULL, c + INTERVAL 1 SECOND)
FROM (SELECT seq, MD5(CONCAT(UUID(), '/', seq)) AS h,
        UTC_TIMESTAMP(3) - INTERVAL $age SECOND - INTERVAL (($n - seq) DIV 2) * $unit MICROSECOND AS c
      FROM seq_1_to_$n) s;
$RECOUNT
COMMIT;"
}

# unseed PLATFORM MARK: removes the rows seed wrote with MARK, and
# rebuilds the platform's txn_counts, in one transaction.
unseed() {
    sql "
SET @p = '$1';
START TRANSACTION;
DELETE FROM transactions WHERE platform_id = @p AND platform_customer_id = '$2';
$RECOUNT
COMMIT;"
}

# The lists: the whole list (''), each type's, and the customer $C2's
# (CUSTOMER).
LISTS=("" OUTGOING INCOMING CUSTOMER)

# akey LIST: the condition on txn_anchors' key of LIST.
akey() {
    case ${1:-} in
    CUSTOMER) echo "type = '' AND customer_id = '$C2'" ;;
    *) echo "type = '${1:-}' AND customer_id = ''" ;;
    esac
}

# anchors PLATFORM [LIST]: how many anchors LIST ('' the whole list, the
# default) of PLATFORM has.
anchors() { sql "SELECT COUNT(*) FROM txn_anchors WHERE platform_id = '$1' AND $(akey "${2:-}")"; }

# The list $T: its rows' condition, its index, its query parameter, its
# name in test names.
T=
rows_of() {
    case $T in
    '') echo "platform_id = '$P'" ;;
    CUSTOMER) echo "platform_id = '$P' AND customer_id = '$C2'" ;;
    *) echo "platform_id = '$P' AND type = '$T'" ;;
    esac
}
index_of() {
    case $T in
    '') echo ix_transactions_list ;;
    CUSTOMER) echo ix_transactions_customer ;;
    *) echo ix_transactions_type ;;
    esac
}
param() {
    case $T in
    '') ;;
    CUSTOMER) echo "&customerId=Customer:$C2" ;;
    *) echo "&type=$T" ;;
    esac
}
count() { sql "SELECT COUNT(*) FROM transactions WHERE $(rows_of)"; }
list() {
    case $T in
    '') echo "the whole list" ;;
    CUSTOMER) echo "the customer's list" ;;
    *) echo "$T" ;;
    esac
}

# truth K: the ids of the page at offset K of 20, newest first, as SQL walks it.
truth() {
    sql "SELECT CONCAT('Transaction:', id) FROM transactions FORCE INDEX ($(index_of))
         WHERE $(rows_of) ORDER BY created_at DESC, id DESC LIMIT 20 OFFSET $1" |
        paste -sd, -
}

# page_is K WANT_K WHAT: the API's page at offset K of list $T is SQL's
# page at WANT_K, with totalCount, hasMore and nextCursor of offset K (4
# tests).
page_is() {
    local k=$1 want=$2 what="$(list), $3" n more next
    n=$(count)
    api "${AS[@]}" GET "/transactions?limit=20&cursor=$k$(param)"
    is_status 200 "$what: cursor $k answers 200"
    is "$(jq -r '[.data[].transactionId] | join(",")' <<<"$BODY")" "$(truth "$want")" \
        "$what: cursor $k is the page at offset $want"
    jis .totalCount "$n" "$what: cursor $k: totalCount $n"
    if ((k + 20 < n)); then more=true next=$((k + 20)); else more=false next=null; fi
    is "$(jq -r '[.hasMore, .nextCursor] | map(tostring) | join(" ")' <<<"$BODY")" \
        "$more $next" "$what: cursor $k: hasMore $more, nextCursor $next"
}

# pages N WHAT: the pages of list $T of N rows at offsets around its anchors,
# the first anchored offset, the last rows and the end.
pages() {
    local n=$1 mid na
    na=$(((n - 1) / STEP + 1))
    mid=$(((na - 1) / 2 * STEP))
    for k in 1999 2000 2001 $((n - 1 - mid)) $((n - mid)) $((n - mid + 1)) \
        $((n - 1 - STEP)) $((n - STEP)) $((n * 3 / 5)) $((n - 21)) $((n - 20)) $((n - 1)); do
        page_is "$k" "$k" "$2"
    done
    api "${AS[@]}" GET "/transactions?limit=20&cursor=$n$(param)"
    is "$(jq -r '[(.data | length), .hasMore, .nextCursor, .totalCount] | map(tostring) | join(" ")' \
        <<<"$BODY")" "0 false null $n" "$(list): cursor $n (the end): no rows, hasMore false, nextCursor null"
    api "${AS[@]}" GET "/transactions?limit=20&cursor=$((n + 5000))$(param)"
    is "$(jq -r '[(.data | length), .totalCount] | map(tostring) | join(" ")' <<<"$BODY")" "0 $n" \
        "$(list): cursor $((n + 5000)) (past the end): no rows"
}

# xborder-worker reads the customers' counts a chunk of 2,000 customers a
# pass: 2,500 customers of a platform first in their order (counts
# without rows, removed once the anchors are placed) make it take two
# passes or more to reach the platform's.
FAKE=00000000-0000-4000-8000-000000000065
sql "INSERT INTO txn_customer_counts (platform_id, customer_id, shard, n)
     SELECT '$FAKE', CONCAT('00000000-0000-4000-8000-', LPAD(seq, 12, '0')), 0, 1
     FROM seq_1_to_2500"
seed "$P" "$ROWS" $((40 * 86400)) 1000000 old-seed
is "$(sql "SELECT COUNT(*) FROM transactions WHERE platform_id = '$P'")" "$ROWS" \
    "$ROWS transactions seeded"
declare -A NROWS=([all]=$ROWS) NANCH=() K=()
for T in "${LISTS[@]}"; do
    NROWS[${T:-all}]=$(count)
    NANCH[${T:-all}]=$(((NROWS[${T:-all}] - 1) / STEP + 1))
done
T=
is "$((NROWS[OUTGOING] + NROWS[INCOMING]))" "$ROWS" \
    "the seeded rows: ${NROWS[OUTGOING]} OUTGOING, ${NROWS[INCOMING]} INCOMING"
is "${NROWS[CUSTOMER]}" $((ROWS / 4)) "the seeded rows: ${NROWS[CUSTOMER]} of the second customer"

# --- a customer's list: totalCount is the customer's kept count -----------------

# ccount: the customer's transactions, counted by SQL; cpage: the
# totalCount of its first page through the API, into CTOTAL.
ccount() { sql "SELECT COUNT(*) FROM transactions WHERE platform_id = '$P' AND customer_id = '$C'"; }
cpage() {
    api "${AS[@]}" GET "/transactions?limit=20&customerId=Customer:$C"
    CTOTAL=$(jq -r .totalCount <<<"$BODY")
}
# bump_count DELTA: adds DELTA to one of the customer's count rows, and a
# change to the customer's version and the platform's (so no page a worker
# keeps holds).
bump_count() {
    sql "START TRANSACTION;
        UPDATE txn_customer_counts SET n = n + $1, changes = changes + 1
          WHERE platform_id = '$P' AND customer_id = '$C' LIMIT 1;
        UPDATE txn_counts SET changes = changes + 1 WHERE platform_id = '$P' LIMIT 1;
        COMMIT"
}
nc=$(ccount)
cpage
is "$CTOTAL" "$nc" "customerId: totalCount is the customer's $nc transactions"
is "$(sql "SELECT SUM(n) FROM txn_customer_counts WHERE platform_id = '$P' AND customer_id = '$C'")" \
    "$nc" "... and txn_customer_counts holds $nc for it"
bump_count 1
cpage
is "$CTOTAL" "$((nc + 1))" "customerId: one more in the kept count is one more in totalCount (read, not counted)"
bump_count -1
cpage
is "$CTOTAL" "$nc" "... and put back, $nc again"

# --- the anchors -----------------------------------------------------------------

wait_for '(( $(anchors "$P") >= NANCH[all] && $(anchors "$P" OUTGOING) >= NANCH[OUTGOING] &&
    $(anchors "$P" INCOMING) >= NANCH[INCOMING] && $(anchors "$P" CUSTOMER) >= NANCH[CUSTOMER] ))' 60
sql "DELETE FROM txn_customer_counts WHERE platform_id = '$FAKE'"
for T in "${LISTS[@]}"; do
    na=${NANCH[${T:-all}]}
    is "$(anchors "$P" "$T")" "$na" \
        "$(list): xborder-worker placed $na anchors (${NROWS[${T:-all}]} rows, a step of $STEP)"
    for seq in 0 $STEP $(((na - 1) / 2 * STEP)) $(((na - 1) * STEP)); do
        is "$(sql "SELECT id FROM txn_anchors WHERE platform_id = '$P' AND $(akey "$T") AND seq = $seq")" \
            "$(sql "SELECT id FROM transactions FORCE INDEX ($(index_of))
                    WHERE $(rows_of) ORDER BY created_at, id LIMIT 1 OFFSET $seq")" \
            "$(list): the anchor at $seq is the row at position $seq from the oldest"
    done
done

# --- pages from the anchors -----------------------------------------------------

for T in "${LISTS[@]}"; do
    pages "${NROWS[${T:-all}]}" "seeded"
done

# --- past the end: no walk ---------------------------------------------------------
# A page past the end of a list is empty without a walk down its index:
# for the lists with anchors by the count their anchor's statement reads,
# for a list filtered by status (alone or with type) by its kept count.
# MariaDB counts the index entries a walk in the list's order (newest
# first) reads: Handler_read_prev.  xborder-worker is stopped meanwhile,
# so the request is the only reader.
read_prev() { sql "SHOW GLOBAL STATUS LIKE 'Handler_read_prev'" | cut -f2; }
worker_stop || BAIL_OUT "xborder-worker did not stop"
for q in "" "&type=OUTGOING" "&customerId=Customer:$C2" "&status=COMPLETED" \
    "&status=FAILED&type=INCOMING"; do
    w="platform_id = '$P'"
    case $q in
    *customerId*) w+=" AND customer_id = '$C2'" ;;
    "&status=FAILED&type=INCOMING") w+=" AND status = 'FAILED' AND type = 'INCOMING'" ;;
    *status=COMPLETED) w+=" AND status = 'COMPLETED'" ;;
    *type=OUTGOING) w+=" AND type = 'OUTGOING'" ;;
    esac
    n=$(sql "SELECT COUNT(*) FROM transactions WHERE $w")
    r0=$(read_prev)
    api "${AS[@]}" GET "/transactions?limit=20&cursor=1000000$q"
    r1=$(read_prev)
    is "$(jq -c '[(.data | length), .totalCount]' <<<"$BODY")" "[0,$n]" \
        "cursor 1000000${q:+ ($q)}: past the end of $n rows, no rows"
    ok "$((r1 - r0 < 1000))" "... and no walk: $((r1 - r0)) index entries read newest first"
done
worker_start || BAIL_OUT "xborder-worker did not start again"

# A page is read from its own list's anchor: one recorded a position too
# high moves the page by one row (position p then lands on p - 1), and no
# page of the other lists.
for T in "${LISTS[@]}"; do
    n=${NROWS[${T:-all}]}
    mid=$(((NANCH[${T:-all}] - 1) / 2 * STEP))
    K[${T:-all}]=$((n - 1 - mid + STEP / 2))
done
for T in "${LISTS[@]}"; do
    mid=$(((NANCH[${T:-all}] - 1) / 2 * STEP))
    sql "UPDATE txn_anchors SET seq = seq + 1 WHERE platform_id = '$P' AND $(akey "$T") AND seq = $mid"
    for U in "${LISTS[@]}"; do
        k=${K[${U:-all}]} T2=$T T=$U
        if [ "$U" = "$T2" ]; then
            page_is "$k" "$((k + 1))" "its anchor one off"
        else
            page_is "$k" "$k" "the anchor of $(T=$T2 list) one off"
        fi
        T=$T2
    done
    sql "UPDATE txn_anchors SET seq = seq - 1 WHERE platform_id = '$P' AND $(akey "$T") AND seq = $((mid + 1))"
    page_is "${K[${T:-all}]}" "${K[${T:-all}]}" "the anchor put back"
done

# --- newer transactions ---------------------------------------------------------

for i in 1 2 3; do
    api "${AS[@]}" POST /transfer-out "$(xfer_body "$INT" "$EXT" $((1000 + i)))"
    is_status 201 "a payout through the API ($i of 3)"
    cpage
    is "$CTOTAL" "$((nc + i))" "customerId: totalCount $((nc + i)) after payout $i"
done
NROWS[all]=$((ROWS + 3)) NROWS[OUTGOING]=$((NROWS[OUTGOING] + 3))
for T in "${LISTS[@]}"; do
    n=${NROWS[${T:-all}]}
    mid=$(((NANCH[${T:-all}] - 1) / 2 * STEP))
    for k in 3 2003 $((n - 1 - STEP)) $((n - 1 - mid)) $((n - mid - STEP / 3)) $((n - 1)); do
        page_is "$k" "$k" "with 3 newer payouts"
    done
done

# --- a row younger than list_anchor_delay is no anchor -------------------------

new_platform t65s || BAIL_OUT "platform-create failed"
S=$NP_ID
seed "$P" 10000 60 1000 young-seed
# No event was written for them (the checks look at 30 days): on purpose.
planted $(sql "SELECT id FROM transactions WHERE platform_id = '$P'
               AND platform_customer_id = 'young-seed'")
seed "$S" $((2 * STEP)) $((40 * 86400)) 1000000 old-seed
wait_for '(( $(anchors "$S") >= 2 && $(anchors "$S" OUTGOING) >= 2 ))' 60
# Its INCOMING list has fewer rows than a step: no anchor would serve it.
is "$(anchors "$S")/$(anchors "$S" OUTGOING)/$(anchors "$S" INCOMING)" 2/2/0 \
    "a platform of $((2 * STEP)) old rows got its anchors: 2 of the whole list, 2 OUTGOING (of $((2 * STEP * 2 / 3))), none INCOMING (of $((2 * STEP / 3)))"
for T in "${LISTS[@]}"; do
    is "$(sql "SELECT COALESCE(MAX(seq), -1) FROM txn_anchors WHERE platform_id = '$P' AND $(akey "$T")")" \
        $(((NANCH[${T:-all}] - 1) * STEP)) "$(list): in the same pass, no anchor among rows a minute old"
    n=$(count)
    mid=$(((NANCH[${T:-all}] - 1) / 2 * STEP))
    page_is $((n - 1 - mid)) $((n - 1 - mid)) "with young rows above"
    # A page among the young rows, half a step above the newest anchor and
    # farther from the newest row: walked up from that anchor, which one
    # recorded a position too low moves by one row.
    top=$(((NANCH[${T:-all}] - 1) * STEP))
    k=$((n - 1 - (top + STEP / 2 + 20)))
    page_is "$k" "$k" "above the newest anchor ($top), among young rows"
    sql "UPDATE txn_anchors SET seq = seq - 1 WHERE platform_id = '$P' AND $(akey "$T") AND seq = $top"
    page_is "$k" $((k - 1)) "its newest anchor one position low: walked up from it"
    sql "UPDATE txn_anchors SET seq = seq + 1 WHERE platform_id = '$P' AND $(akey "$T") AND seq = $((top - 1))"
    page_is "$k" "$k" "the newest anchor put back"
done

# A list whose next anchor's row is too young is looked at once, and then
# left alone until that row is old enough, not walked again every pass
# (src/db_txn_anchors.c, waits): a slow log of a new xborder-worker's
# statements over five of its passes has each of the platform's lists'
# walk to its next position once at most.
SLOW=$_API_TMP/anchors-slow.log
read -r lqt sql_on < <(sql "SELECT @@GLOBAL.long_query_time, @@GLOBAL.slow_query_log")
sql "SET GLOBAL slow_query_log_file = '$SLOW', GLOBAL long_query_time = 0, GLOBAL slow_query_log = 1"
worker_stop && worker_start
sql "SET GLOBAL long_query_time = $lqt"
# A pass of anchor placement reads the due lists (due_sql) first.
passes() { grep -c 'ORDER BY c.n - COALESCE(m.seq, -1) DESC LIMIT 16' "$SLOW" 2>/dev/null; }
wait_for '(( $(passes) >= 5 ))' 60
ok "$((! $?))" "anchors: the new worker made $(passes) passes"
sql "SET GLOBAL slow_query_log = $sql_on"
# Each walk names its list and the position it starts from.
walks=$(grep -F "FROM transactions FORCE INDEX (ix_transactions" "$SLOW" |
    grep -F "platform_id = '$P'" | grep -F 'LIMIT 1 OFFSET')
lists=$(sed -E "s/.*FORCE INDEX \((ix_[a-z_]+)\) WHERE platform_id = '[^']*'( AND [a-z_]+ = '[^']*')?.*/\1\2/" <<<"$walks" | sort -u)
ok "$(grep -c . <<<"$lists" | awk '$1 >= 3')" \
    "... walked the platform's lists to their next position: $(paste -sd';' <<<"$lists")"
is "$(sort <<<"$walks" | uniq -d | cut -c1-200)" "" \
    "... each from the same position once, its row too young: not again in the passes after"

# ... and once that row is old enough, the list's anchors are placed: a
# platform whose rows are all 8 s short of list_anchor_delay gets its two
# anchors when they come of age, not a pass of the worker's later than a
# second after.
DELAY=$(sed -n 's/^[[:space:]]*list_anchor_delay[[:space:]]*=[[:space:]]*\([0-9]*\).*/\1/p' \
    "$XB_CONF" | tail -n 1)
DELAY=${DELAY:-600}
new_platform t65w || BAIL_OUT "platform-create failed"
W=$NP_ID
seed "$W" $((2 * STEP)) $((DELAY - 8)) 1000 wait-seed
planted $(sql "SELECT id FROM transactions WHERE platform_id = '$W'")
t0=$SECONDS
wait_for '(( $(anchors "$W") >= 2 ))' 40
ok "$((! $?))" "anchors: $(anchors "$W") placed on rows that were too young when written"
took=$((SECONDS - t0))
ok "$((took >= 7))" "... once they came of age, not before ($took s after they were written)"
unseed "$W" wait-seed
sql "DELETE FROM txn_anchors WHERE platform_id = '$W'"

unseed "$P" young-seed
for T in "${LISTS[@]}"; do
    n=$(count)
    page_is $((n - 1 - STEP)) $((n - 1 - STEP)) "the young rows removed"
done
out=$(xbctl ledger-check 2>&1)
is "$?" 0 "xborderctl ledger-check is clean with the old seeded rows" || diag "$(grep -v '^check .* ok' <<<"$out" | head -n 5)"

done_testing
