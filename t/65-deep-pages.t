#!/usr/bin/env bash
# 65-deep-pages.t - a deep page of GET /transactions starts at an anchor
# (schema/023_txn_anchors.sql, src/db_txn_anchors.c) and is the same page
# the offset says.
#
# A platform of its own gets 25,000 transactions written with SQL, a month
# old (pairs of rows share a createdAt, so the id orders them), and its
# txn_counts rebuilt, as bench/run seeds.  xborder-worker places the
# anchors of the stack's list_anchor_step (1,000 by default) at positions
# 0, 1,000, ... 24,000, each the row at that position counted from the
# oldest.  Then:
#  - pages at offsets around the anchors, the first anchored offset, the
#    last rows and past the end are exactly what the offset says (the ids
#    in order, totalCount, hasMore, nextCursor), against SQL's own walk;
#  - a page is read from its anchor: an anchor recorded one position off
#    moves the page by one row, and put back, the page is right again;
#  - transactions made through the API afterwards, the newest, move every
#    page down and no position below them;
#  - rows younger than list_anchor_delay (600 s) are no anchor: 10,000
#    more rows about a minute old give the platform no anchor at 25,000,
#    while a platform seeded in the same moment with old rows gets its own.
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
NA=$(((ROWS - 1) / STEP + 1))
MID=$((ROWS / STEP / 2 * STEP))

new_platform t65 || BAIL_OUT "platform-create failed"
P=$NP_ID AS=(--as "$NP_CLIENT_ID" "$NP_SECRET")
mk_customer deep "${AS[@]}"
int_account "$CUST" USD "${AS[@]}"
fund "$INT" 100000 "${AS[@]}"
mk_ext "$CUST" 000123456789 USD "${AS[@]}"
C=${CUST#Customer:} I=${INT#InternalAccount:} E=${EXT#ExternalAccount:}

# The end of a transaction that changed platform @p's rows: its txn_counts
# rebuilt from them (their version, the sum of changes, only grows).
RECOUNT="SET @v = (SELECT COALESCE(SUM(changes), 0) + 1 FROM txn_counts WHERE platform_id = @p);
DELETE FROM txn_counts WHERE platform_id = @p;
INSERT INTO txn_counts (platform_id, status, type, shard, n, changes)
  SELECT platform_id, status, type, 0, COUNT(*), @v FROM transactions
  WHERE platform_id = @p GROUP BY platform_id, status, type;"

# seed PLATFORM N AGE_SECONDS UNIT MARK: N transactions of PLATFORM's
# customer $C (platformCustomerId MARK), the newest AGE_SECONDS old, two
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
  @p, 'TRANSFER_OUT', 'OUTGOING', IF(seq % 7 = 3, 'FAILED', 'COMPLETED'), '$C',
  '$mark', NULL, '$I', '$E', 'EXTERNAL_ACCOUNT', '$E', 'USD', 100 + seq, 'COMPLETES',
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

anchors() { sql "SELECT COUNT(*) FROM txn_anchors WHERE platform_id = '$1'"; }

# truth K: the ids of the page at offset K of 20, newest first, as SQL walks it.
truth() {
    sql "SELECT CONCAT('Transaction:', id) FROM transactions FORCE INDEX (ix_transactions_list)
         WHERE platform_id = '$P' ORDER BY created_at DESC, id DESC LIMIT 20 OFFSET $1" |
        paste -sd, -
}

# page_is K WANT_K WHAT: the API's page at offset K is SQL's page at
# WANT_K, with totalCount, hasMore and nextCursor of offset K (4 tests).
page_is() {
    local k=$1 want=$2 what=$3 n more next
    n=$(sql "SELECT COUNT(*) FROM transactions WHERE platform_id = '$P'")
    api "${AS[@]}" GET "/transactions?limit=20&cursor=$k"
    is_status 200 "$what: cursor $k answers 200"
    is "$(jq -r '[.data[].transactionId] | join(",")' <<<"$BODY")" "$(truth "$want")" \
        "$what: cursor $k is the page at offset $want"
    jis .totalCount "$n" "$what: cursor $k: totalCount $n"
    if ((k + 20 < n)); then more=true next=$((k + 20)); else more=false next=null; fi
    is "$(jq -r '[.hasMore, .nextCursor] | map(tostring) | join(" ")' <<<"$BODY")" \
        "$more $next" "$what: cursor $k: hasMore $more, nextCursor $next"
}

seed "$P" "$ROWS" $((40 * 86400)) 1000000 old-seed
is "$(sql "SELECT COUNT(*) FROM transactions WHERE platform_id = '$P'")" "$ROWS" \
    "$ROWS transactions seeded"

# --- the anchors -----------------------------------------------------------------

wait_for '(( $(anchors "$P") >= NA ))' 60
is "$(anchors "$P")" "$NA" "xborder-worker placed $NA anchors ($ROWS rows, a step of $STEP)"
for seq in 0 $STEP $MID $(((NA - 1) * STEP)); do
    is "$(sql "SELECT id FROM txn_anchors WHERE platform_id = '$P' AND seq = $seq")" \
        "$(sql "SELECT id FROM transactions FORCE INDEX (ix_transactions_list)
                WHERE platform_id = '$P' ORDER BY created_at, id LIMIT 1 OFFSET $seq")" \
        "the anchor at $seq is the row at position $seq from the oldest"
done

# --- pages from the anchors -----------------------------------------------------

N=$ROWS
for k in 1999 2000 2001 $((N - 1 - MID)) $((N - MID)) $((N - MID + 1)) \
    $((N - 1 - STEP)) $((N - STEP)) 12345 $((N - 21)) $((N - 20)) $((N - 1)); do
    page_is "$k" "$k" "seeded"
done
api "${AS[@]}" GET "/transactions?limit=20&cursor=$N"
is_status 200 "cursor $N (the end): 200"
is "$(jq -r '[(.data | length), .hasMore, .nextCursor, .totalCount] | map(tostring) | join(" ")' \
    <<<"$BODY")" "0 false null $N" "cursor $N (the end): no rows, hasMore false, nextCursor null"
api "${AS[@]}" GET "/transactions?limit=20&cursor=$((N + 5000))"
is "$(jq -r '[(.data | length), .totalCount] | map(tostring) | join(" ")' <<<"$BODY")" "0 $N" \
    "cursor $((N + 5000)) (past the end): no rows"

# The page is read from its anchor: one recorded a position too high moves
# the page by one row (position p then lands on p - 1).
K=$((N - 1 - MID + STEP / 2))
sql "UPDATE txn_anchors SET seq = seq + 1 WHERE platform_id = '$P' AND seq = $MID"
page_is "$K" "$((K + 1))" "an anchor one off"
sql "UPDATE txn_anchors SET seq = seq - 1 WHERE platform_id = '$P' AND seq = $((MID + 1))"
page_is "$K" "$K" "the anchor put back"

# --- newer transactions ---------------------------------------------------------

for i in 1 2 3; do
    api "${AS[@]}" POST /transfer-out "$(xfer_body "$INT" "$EXT" $((1000 + i)))"
    is_status 201 "a payout through the API ($i of 3)"
done
N=$((ROWS + 3))
for k in 3 2003 $((N - 1 - STEP)) $((N - 1 - MID)) $((N - MID - STEP / 3)) $((N - 1)); do
    page_is "$k" "$k" "with 3 newer"
done

# --- a row younger than list_anchor_delay is no anchor -------------------------

new_platform t65s || BAIL_OUT "platform-create failed"
S=$NP_ID
seed "$P" 10000 60 1000 young-seed
# No event was written for them (the checks look at 30 days): on purpose.
planted $(sql "SELECT id FROM transactions WHERE platform_id = '$P'
               AND platform_customer_id = 'young-seed'")
seed "$S" $((2 * STEP)) $((40 * 86400)) 1000000 old-seed
wait_for '(( $(anchors "$S") >= 2 ))' 60
is "$(anchors "$S")" 2 "a platform of $((2 * STEP)) old rows got its anchors (0 and $STEP)"
is "$(sql "SELECT COALESCE(MAX(seq), -1) FROM txn_anchors WHERE platform_id = '$P'")" \
    $(((NA - 1) * STEP)) "in the same pass, no anchor at $((NA * STEP)) among rows a minute old"
N=$((ROWS + 3 + 10000))
page_is $((N - 1 - MID)) $((N - 1 - MID)) "with young rows above"

unseed "$P" young-seed
N=$((ROWS + 3))
page_is $((N - 1 - STEP)) $((N - 1 - STEP)) "the young rows removed"
out=$(xbctl ledger-check 2>&1)
is "$?" 0 "xborderctl ledger-check is clean with the old seeded rows" || diag "$(grep -v '^check .* ok' <<<"$out" | head -n 5)"

done_testing
