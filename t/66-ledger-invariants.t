#!/usr/bin/env bash
# 66-ledger-invariants.t - every check of xborderctl ledger-check can fail.
#
# Two platforms of its own make money move of every kind the checks look
# at (payouts settled and held in transit, an incoming payment, a quote to
# the other platform's PPV address with both fees, creations under an
# Idempotency-Key).  Then, with xborder-worker stopped a moment so that
# nothing moves, the whole database is copied into a scratch database, and
# ledger-check runs there (xborderctl with the stack's configuration but
# db_name the scratch's): clean first; then, one at a time, a hand-written
# SQL change breaks one invariant, ledger-check exits 1 and exactly the
# checks that change must break fail (naming the planted row), and undoing
# the change makes it clean again (a deep page's anchor too).  Last, a transaction moved while
# ledger-check reads is not a problem: the checks read one snapshot.
. "$(dirname "${BASH_SOURCE[0]}")/lib/api.sh"
. "$_API_LIB_DIR/money.sh"
. "$_API_LIB_DIR/stack.sh"
no_plan

RUN=$(uniq_name t66)

# --- money of every kind, on two platforms -------------------------------------
new_platform t66a || BAIL_OUT "platform-create failed"
A=$NP_ID PA=(--as "$NP_CLIENT_ID" "$NP_SECRET")
new_platform t66b || BAIL_OUT "platform-create failed"
B=$NP_ID PB=(--as "$NP_CLIENT_ID" "$NP_SECRET")
set_fees 50 0 "${PA[@]}"
set_fees 0 40 "${PB[@]}"

mk_customer payer "${PA[@]}"
int_account "$CUST" USD "${PA[@]}"
CUST_ACCT=${INT#InternalAccount:} PAYER=$INT
fund "$INT" 500000 "${PA[@]}"
mk_ext "$CUST" 000123456789 USD "${PA[@]}"
EXT_PAID=$EXT
mk_ext "$CUST" 000123450003 USD "${PA[@]}"
EXT_HELD=$EXT
api "${PA[@]}" POST /transfer-out "$(xfer_body "$PAYER" "$EXT_PAID" 1100)" -H "Idempotency-Key: $RUN-1"
is_status 201 "a payout, with a key"
TX_PAID=$(jr .transactionId)
api "${PA[@]}" POST /transfer-out "$(xfer_body "$PAYER" "$EXT_PAID" 1200)" -H "Idempotency-Key: $RUN-2"
is_status 201 "another payout, with another key"
api "${PA[@]}" POST /transfer-out "$(xfer_body "$PAYER" "$EXT_HELD" 1300)"
is_status 201 "a payout held in transit (…003)"
TX_HELD=$(jr .transactionId)
api "${PA[@]}" POST /transfer-in "$(xfer_body "$EXT_PAID" "$PAYER" 700)"
is_status 201 "an incoming payment"
TX_IN=$(jr .transactionId)
settles "$TX_PAID" COMPLETED "the first payout settles" "${PA[@]}"
settles "$TX_IN" COMPLETED "the incoming payment settles" "${PA[@]}"

mk_customer empty "${PA[@]}"
int_account "$CUST" USD "${PA[@]}"
EMPTY_ACCT=${INT#InternalAccount:}
mk_customer payee "${PB[@]}"
B_CUST=$CUST B_PPV=$CUST_PPV
int_account "$CUST" USD "${PB[@]}"
B_USD_ACCT=${INT#InternalAccount:}
api "${PA[@]}" POST /quotes "$(ppv_quote "$PAYER" "$B_PPV" EUR SENDING 10000)"
is_status 201 "a quote to the other platform's PPV address"
QUOTE=$(jr .quoteId)
api "${PA[@]}" POST "/quotes/$QUOTE/execute"
is_status 200 "executed"
QTX=$(jr .transactionId)
QTX=${QTX#Transaction:}
is "$(sql "SELECT CONCAT(fee_sender > 0, fee_receiver > 0) FROM quotes WHERE transaction_id = '$QTX'")" 11 \
    "the quote has both fees"
TX_PAID=${TX_PAID#Transaction:} TX_HELD=${TX_HELD#Transaction:}

# --- the scratch copy -----------------------------------------------------------
SCRATCH=xb_scratch_$$
SCRATCH_CONF=$_API_TMP/scratch.conf
CTL_BIN=${XB_CTL%% -c *}
scratch_drop() { sql "DROP DATABASE IF EXISTS $SCRATCH" >/dev/null 2>&1; }
at_exit scratch_drop

worker_stop || BAIL_OUT "xborder-worker did not stop"
sql "CREATE DATABASE $SCRATCH" || BAIL_OUT "CREATE DATABASE $SCRATCH"
copied=0
# Every table, its stored columns (not the generated ones).
for t in $(sql "SELECT table_name FROM information_schema.tables WHERE table_schema = 'xborder' AND table_type = 'BASE TABLE'"); do
    cols=$(sql "SELECT GROUP_CONCAT(column_name ORDER BY ordinal_position) FROM information_schema.columns
        WHERE table_schema = 'xborder' AND table_name = '$t' AND extra NOT LIKE '%GENERATED%'")
    # ANALYZE: the fresh copy's index statistics, for the checks' plans.
    sql "CREATE TABLE $SCRATCH.$t LIKE xborder.$t; INSERT INTO $SCRATCH.$t ($cols) SELECT $cols FROM xborder.$t;
         ANALYZE TABLE $SCRATCH.$t" >/dev/null && copied=$((copied + 1))
done
is "$copied" "$(sql "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'xborder' AND table_type = 'BASE TABLE'")" \
    "every table copied whole"
worker_start || BAIL_OUT "xborder-worker did not start again"
ok "$((copied >= 20))" "the database copied into $SCRATCH ($copied tables), xborder-worker stopped meanwhile"
is "$(sql "SELECT COUNT(*) FROM $SCRATCH.customers")" "$(sql "SELECT COUNT(*) FROM customers")" "... the customers too (a generated column)"
db_user=$(sed -n 's/^db_user *= *//p' "$XB_CONF")
sql "GRANT ALL ON $SCRATCH.* TO '$db_user'@'localhost'" || BAIL_OUT "GRANT on $SCRATCH"
sed -e "s/^db_name *=.*/db_name = $SCRATCH/" "$XB_CONF" >"$SCRATCH_CONF"
grep -q "^db_name = $SCRATCH\$" "$SCRATCH_CONF" || echo "db_name = $SCRATCH" >>"$SCRATCH_CONF"

# ssql STATEMENTS: in the scratch database.
ssql() {
    mariadb --no-defaults --socket="$SOCK" --user="$(id -un)" --batch --skip-column-names \
        "$SCRATCH" -e "$1"
}

# check: ledger-check on the scratch; CHECK_RC, CHECK_OUT, FAILING (the
# names of the checks that failed, sorted, space-separated).
check() {
    CHECK_RC=0
    CHECK_OUT=$("$CTL_BIN" -c "$SCRATCH_CONF" ledger-check 2>&1) || CHECK_RC=$?
    FAILING=$(sed -n 's/^check \([a-z-]*\): [0-9]* problems\{0,1\}$/\1/p' <<<"$CHECK_OUT" | sort | xargs)
}

check
is "$CHECK_RC" 0 "ledger-check on the scratch copy: clean" || diag "$CHECK_OUT"
like "$CHECK_OUT" 'check postings: ok \([0-9]+ transactions\)' "... the postings of the transactions since 016 examined"
is "$(grep -c '^check ' <<<"$CHECK_OUT")" 14 "... 14 checks, a line each"

# fault NAME EXPECTED ID DO UNDO: DO breaks the scratch; exactly the
# checks EXPECTED (sorted, space-separated) fail, one of their rows names
# ID; UNDO makes it clean again.
fault() {
    local name=$1 want=$2 id=$3 do="START TRANSACTION; $4; COMMIT" undo="START TRANSACTION; $5; COMMIT"
    if ! ssql "$do"; then
        fail "$name: the fault could not be planted"
        return
    fi
    check
    is "$CHECK_RC/$FAILING" "1/$want" "$name: ledger-check exits 1, failing exactly: $want" ||
        diag "$CHECK_OUT"
    ok "$(grep -P '^[a-z-]+\t' <<<"$CHECK_OUT" | grep -cF -- "$id")" "$name: a problem row names $id"
    ssql "$undo"
    check
    is "$CHECK_RC" 0 "$name: undone, clean again" || diag "$CHECK_OUT"
}

acct() { ssql "SELECT id FROM internal_accounts WHERE platform_id = '$1' AND kind = '$2' AND owner = '${4:--}' AND currency = '$3'"; }
A_SANDBOX=$(acct "$A" SANDBOX USD)
A_PLATFORM=$(acct "$A" PLATFORM USD)
B_SANDBOX=$(acct "$B" SANDBOX USD)
B_SANDBOX_EUR=$(acct "$B" SANDBOX EUR)
SHARD=$(ssql "SELECT transit_shard FROM transactions WHERE id = '$TX_HELD'")
HELD_SHARD=$(acct "$A" IN_TRANSIT USD "$( ((SHARD == 0)) && echo - || echo "-$SHARD")")
for v in A_SANDBOX A_PLATFORM B_SANDBOX B_SANDBOX_EUR HELD_SHARD; do
    like "${!v}" '^[0-9a-f-]{36}$' "the account $v"
done

# entries SPECS: inserts untagged entries (account:currency:amount ...) with
# memo 'fault' and moves the accounts' balances with them; unentries
# removes them and moves the balances back.
entries() {
    local s e acct cur amt
    for e in "$@"; do
        IFS=: read -r acct cur amt <<<"$e"
        s+="INSERT INTO ledger_entries (posting_id, transaction_id, platform_id, account_id, currency, amount, memo, created_at)
            SELECT '00000000-0000-4000-8000-000000000066', NULL, platform_id, id, '$cur', $amt, 'fault', UTC_TIMESTAMP(3)
            FROM internal_accounts WHERE id = '$acct';
            UPDATE internal_accounts SET balance = balance + $amt WHERE id = '$acct';"
    done
    printf '%s' "$s"
}
unentries() {
    printf '%s' "UPDATE internal_accounts a JOIN (SELECT account_id, SUM(amount) s FROM ledger_entries
        WHERE memo = 'fault' GROUP BY account_id) f ON f.account_id = a.id SET a.balance = a.balance - f.s;
        DELETE FROM ledger_entries WHERE memo = 'fault';"
}

fault "sums: one unbalanced entry" "platform-sums sums" USD \
    "$(entries "$CUST_ACCT:USD:1")" "$(unentries)"
fault "platform-sums: money from one platform's SANDBOX to another's" platform-sums "$A USD" \
    "$(entries "$A_SANDBOX:USD:-5" "$B_SANDBOX:USD:5")" "$(unentries)"
fault "balances: a balance moved without an entry" balances "$CUST_ACCT" \
    "UPDATE internal_accounts SET balance = balance + 1 WHERE id = '$CUST_ACCT'" \
    "UPDATE internal_accounts SET balance = balance - 1 WHERE id = '$CUST_ACCT'"
# The database refuses it itself (a CHECK constraint); the check sees it
# when the constraint is gone.
fault "negative: a customer's balance below zero" negative "$EMPTY_ACCT" \
    "ALTER TABLE internal_accounts DROP CONSTRAINT ck_internal_accounts_balance;
     $(entries "$EMPTY_ACCT:USD:-10" "$A_SANDBOX:USD:10")" \
    "$(unentries); ALTER TABLE internal_accounts ADD CONSTRAINT ck_internal_accounts_balance
     CHECK (balance >= 0 OR kind = 'SANDBOX')"
fault "limit: a balance past 10^18 - 1" limit "$EMPTY_ACCT" \
    "$(entries "$EMPTY_ACCT:USD:1000000000000000000" "$A_SANDBOX:USD:-1000000000000000000")" "$(unentries)"
fault "currency: a EUR entry on a USD account" currency "$B_USD_ACCT" \
    "$(entries "$B_USD_ACCT:EUR:7" "$B_SANDBOX_EUR:EUR:-7")" "$(unentries)"
COUNT_ROW="platform_id = '$A' AND status = 'COMPLETED' AND type = 'OUTGOING' AND shard = $(ssql "SELECT shard FROM txn_counts WHERE platform_id = '$A' AND status = 'COMPLETED' AND type = 'OUTGOING' LIMIT 1")"
fault "counts: txn_counts off by one" counts "$A" \
    "UPDATE txn_counts SET n = n + 1 WHERE $COUNT_ROW" "UPDATE txn_counts SET n = n - 1 WHERE $COUNT_ROW"
HELD_CUST=$(ssql "SELECT customer_id FROM transactions WHERE id = '$TX_HELD'")
CUST_ROW="platform_id = '$A' AND customer_id = '$HELD_CUST' AND shard = $(ssql "SELECT shard FROM txn_customer_counts WHERE platform_id = '$A' AND customer_id = '$HELD_CUST' LIMIT 1")"
fault "counts: a customer's count (txn_customer_counts) one short" counts "$HELD_CUST" \
    "UPDATE txn_customer_counts SET n = n - 1 WHERE $CUST_ROW" \
    "UPDATE txn_customer_counts SET n = n + 1 WHERE $CUST_ROW"
fault "quote-expiry: the transaction's copy of the expiry moved" quote-expiry "$QTX" \
    "UPDATE transactions SET quote_expires_at = quote_expires_at + INTERVAL 1 SECOND WHERE id = '$QTX'" \
    "UPDATE transactions SET quote_expires_at = quote_expires_at - INTERVAL 1 SECOND WHERE id = '$QTX'"
fault "in-transit: a shard holds more than its payouts in flight" in-transit "$HELD_SHARD" \
    "$(entries "$A_SANDBOX:USD:-3" "$HELD_SHARD:USD:3")" "$(unentries)"
fault "postings: a settled payout's money sent to the fee account (balanced, misdirected)" postings "$TX_PAID" \
    "UPDATE ledger_entries SET account_id = '$A_PLATFORM' WHERE transaction_id = '$TX_PAID' AND account_id = '$A_SANDBOX';
     UPDATE internal_accounts SET balance = balance - 1100 WHERE id = '$A_SANDBOX';
     UPDATE internal_accounts SET balance = balance + 1100 WHERE id = '$A_PLATFORM'" \
    "UPDATE ledger_entries SET account_id = '$A_SANDBOX' WHERE transaction_id = '$TX_PAID' AND account_id = '$A_PLATFORM';
     UPDATE internal_accounts SET balance = balance + 1100 WHERE id = '$A_SANDBOX';
     UPDATE internal_accounts SET balance = balance - 1100 WHERE id = '$A_PLATFORM'"
fault "quote-fees: the stored split no longer what was credited" "postings quote-fees" "$QTX" \
    "UPDATE quotes SET fee_sender = fee_sender + 1, principal = principal - 1 WHERE transaction_id = '$QTX'" \
    "UPDATE quotes SET fee_sender = fee_sender - 1, principal = principal + 1 WHERE transaction_id = '$QTX'"
EV=00000000-0000-4000-8000-0000000000e6
fault "events: a status's event twice" events "$TX_PAID" \
    "INSERT INTO webhook_events (id, platform_id, transaction_id, type, payload, status, attempts, created_at)
     SELECT '$EV', platform_id, transaction_id, type, payload, 'DELIVERED', 0, created_at FROM webhook_events
     WHERE transaction_id = '$TX_PAID' ORDER BY seq DESC LIMIT 1" \
    "DELETE FROM webhook_events WHERE id = '$EV'"
K1_TX=$(ssql "SELECT JSON_VALUE(response_body, '$.transactionId') FROM idempotency_keys WHERE platform_id = '$A' AND idem_key = '$RUN-1'")
K2_TX=$(ssql "SELECT JSON_VALUE(response_body, '$.transactionId') FROM idempotency_keys WHERE platform_id = '$A' AND idem_key = '$RUN-2'")
like "$K1_TX" '^Transaction:' "the first key's answer names its transaction"
fault "idempotency: a kept answer names a transaction that does not exist" idempotency "$RUN-1" \
    "UPDATE idempotency_keys SET response_body = JSON_SET(response_body, '$.transactionId', 'Transaction:00000000-0000-4000-8000-000000000066') WHERE platform_id = '$A' AND idem_key = '$RUN-1'" \
    "UPDATE idempotency_keys SET response_body = JSON_SET(response_body, '$.transactionId', '$K1_TX') WHERE platform_id = '$A' AND idem_key = '$RUN-1'"
fault "idempotency: two kept answers name one transaction" idempotency "${K1_TX#Transaction:}" \
    "UPDATE idempotency_keys SET response_body = JSON_SET(response_body, '$.transactionId', '$K1_TX') WHERE platform_id = '$A' AND idem_key = '$RUN-2'" \
    "UPDATE idempotency_keys SET response_body = JSON_SET(response_body, '$.transactionId', '$K2_TX') WHERE platform_id = '$A' AND idem_key = '$RUN-2'"
# A deep page's anchor (schema/023, 024, 026) that is not the row at its
# position: platform A's oldest transaction recorded at position 1 of its
# list, then at position 0 of a list that is none.
OLDEST="SELECT platform_id, '%s', %d, created_at, id FROM transactions FORCE INDEX (ix_transactions_list)
    WHERE platform_id = '$A' ORDER BY created_at, id LIMIT 1"
ANCHOR="INSERT INTO txn_anchors (platform_id, type, seq, created_at, id)"
fault "anchors: an anchor one position off" anchors "$A all 1" \
    "$ANCHOR $(printf "$OLDEST" '' 1)" "DELETE FROM txn_anchors WHERE platform_id = '$A'"
fault "anchors: an anchor of no list" anchors "$A SETTLED 0" \
    "$ANCHOR $(printf "$OLDEST" SETTLED 0)" "DELETE FROM txn_anchors WHERE platform_id = '$A'"
ssql "$ANCHOR $(printf "$OLDEST" '' 0)"
check
is "$CHECK_RC" 0 "anchors: the oldest row at position 0 is a right anchor" || diag "$CHECK_OUT"
ssql "DELETE FROM txn_anchors WHERE platform_id = '$A'"
# A customer's list (schema/026): its oldest row at position 1, then an
# anchor of a type and a customer at once (no list), then right at 0.
OLDEST_C="SELECT platform_id, '%s', customer_id, %d, created_at, id
    FROM transactions FORCE INDEX (ix_transactions_customer)
    WHERE platform_id = '$A' AND customer_id = '$HELD_CUST' ORDER BY created_at, id LIMIT 1"
ANCHOR_C="INSERT INTO txn_anchors (platform_id, type, customer_id, seq, created_at, id)"
fault "anchors: a customer's anchor one position off" anchors "$A $HELD_CUST 1" \
    "$ANCHOR_C $(printf "$OLDEST_C" '' 1)" "DELETE FROM txn_anchors WHERE platform_id = '$A'"
fault "anchors: an anchor of a type and a customer" anchors "$A $HELD_CUST 0" \
    "$ANCHOR_C $(printf "$OLDEST_C" OUTGOING 0)" "DELETE FROM txn_anchors WHERE platform_id = '$A'"
ssql "$ANCHOR_C $(printf "$OLDEST_C" '' 0)"
check
is "$CHECK_RC" 0 "anchors: the customer's oldest row at position 0 of its list is a right anchor" ||
    diag "$CHECK_OUT"
ssql "DELETE FROM txn_anchors WHERE platform_id = '$A'"

# --- one snapshot: a transaction that moves while ledger-check reads -------------
# The checks read a page of transactions, then their entries.  A
# transaction moved between the two reads must not be a problem: the run
# reads one snapshot.  Postings look at the scratch's transactions since
# this test's first only (one page), ledger-check pauses once before the
# page's entries (fault point pause-checks-entries), and meanwhile the
# held payout fails: the stack fails it through the sandbox helper, and
# what that wrote for it is copied into the scratch in one transaction.
cols_of() {
    sql "SELECT GROUP_CONCAT(column_name ORDER BY ordinal_position) FROM information_schema.columns
        WHERE table_schema = 'xborder' AND table_name = '$1' AND extra NOT LIKE '%GENERATED%'"
}
FIRST=$(ssql "SELECT DATE_FORMAT(MIN(created_at), '%Y-%m-%d %H:%i:%s.%f') FROM transactions WHERE platform_id IN ('$A', '$B')")
ssql "UPDATE schema_migrations SET applied_at = '$FIRST' WHERE applied_at < '$FIRST'"
check
is "$CHECK_RC" 0 "the postings of this test's transactions alone: clean" || diag "$CHECK_OUT"
like "$CHECK_OUT" 'check postings: ok \([0-9] transactions\)' "... fewer than 10 of them, one page"
is "$(ssql "SELECT status FROM transactions WHERE id = '$TX_HELD'")" PENDING "the held payout is PENDING in the scratch"
api "${PA[@]}" POST "/sandbox/transactions/Transaction:$TX_HELD/fail"
is_status 200 "the stack fails the held payout"
is "$(sql "SELECT status FROM transactions WHERE id = '$TX_HELD'")" FAILED "... FAILED in the stack"
OUT=$_API_TMP/race.out
XB_FAULT=pause-checks-entries:once "$CTL_BIN" -c "$SCRATCH_CONF" ledger-check >"$OUT" 2>&1 &
CHECKER=$!
paused() { grep -q 'fault point pause-checks-entries reached' "$OUT"; }
wait_for paused 10
ok "$((! $?))" "ledger-check paused between the transactions' page and its entries"
le=$(cols_of ledger_entries) ev=$(cols_of webhook_events) tx=$(cols_of transactions)
ssql "START TRANSACTION;
    UPDATE internal_accounts a JOIN (SELECT account_id, SUM(amount) AS s FROM xborder.ledger_entries
        WHERE transaction_id = '$TX_HELD' AND id NOT IN (SELECT id FROM ledger_entries) GROUP BY account_id) n
        ON n.account_id = a.id SET a.balance = a.balance + n.s;
    INSERT INTO ledger_entries ($le) SELECT $le FROM xborder.ledger_entries
        WHERE transaction_id = '$TX_HELD' AND id NOT IN (SELECT id FROM ledger_entries);
    INSERT INTO webhook_events ($ev) SELECT $ev FROM xborder.webhook_events
        WHERE transaction_id = '$TX_HELD' AND id NOT IN (SELECT id FROM webhook_events);
    DELETE FROM transactions WHERE id = '$TX_HELD';
    INSERT INTO transactions ($tx) SELECT $tx FROM xborder.transactions WHERE id = '$TX_HELD';
    DELETE FROM txn_counts WHERE platform_id = '$A';
    INSERT INTO txn_counts SELECT * FROM xborder.txn_counts WHERE platform_id = '$A';
    COMMIT"
is "$(ssql "SELECT status FROM transactions WHERE id = '$TX_HELD'")" FAILED "... and FAILED in the scratch, while it paused"
wait "$CHECKER"
is "$?" 0 "ledger-check read one snapshot: clean" || diag "$(cat "$OUT")"
check
is "$CHECK_RC" 0 "... and the scratch as the move left it is clean too" || diag "$CHECK_OUT"

done_testing
