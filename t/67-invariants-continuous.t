#!/usr/bin/env bash
# 67-invariants-continuous.t - xborder-worker checks the ledger's
# invariants over what changed since its last run (invariant_interval and
# invariant_lag; the check stack's are 2 s and 10 s, and this suite runs
# the worker with a lag of 3 s):
#  - a run covers this suite's payouts: GET /status and xborderctl status
#    show it (its time, ok, entries and events examined, how far it got);
#  - a balance moved behind the ledger's back (planted, t/lib/stack.sh) is
#    found by the first run that covers an entry of that account: status
#    failing [balances], an error line naming the check and the account;
#  - put back, a later run over the account's next entries is clean again;
#  - the counts are checked against a checkpoint of the platform's
#    transactions' counts, taken once and then moved by the runs (two more
#    payouts later it is their counts, not counted again); a count and a
#    customer's count one too many (planted) are named by a later run, and
#    once put back a run is clean; a transaction older than 29 days that
#    moves has its platform counted whole and its checkpoint taken anew;
#  - an Idempotency-Key record naming a transaction that does not exist
#    (planted) is found by the run whose window of records covers it.
# Each wait is on the status itself, bounded.
. "$(dirname "${BASH_SOURCE[0]}")/lib/api.sh"
. "$_API_LIB_DIR/money.sh"
. "$_API_LIB_DIR/stack.sh"
no_plan

interval=$(sed -n 's/^invariant_interval *= *//p' "$XB_CONF" | tail -n 1)
interval=${interval:-60}
lag=$(sed -n 's/^invariant_lag *= *//p' "$XB_CONF" | tail -n 1)
lag=${lag:-60}
((interval > 0 && interval <= 10 && lag <= 30)) ||
    plan skip_all "invariant_interval $interval s, invariant_lag $lag s in $XB_CONF (scripts/dev check sets 2 and 10)"
LOG=$XB_DEV_DIR/log/xborder-worker.log

# The check stack's lag (10 s, its lock wait timeout) is for the suites
# that run load.  This one makes one payout at a time and then waits, ten
# times, for a run to cover it: it runs xborder-worker with a lag of 3 s
# (the stack's xborder.conf and one line, scripts/dev's XB_WORKER_CONF),
# and with the stack's own file again at exit.
if ((lag > 3)); then
    lag=3
    WCONF=$_API_TMP/worker.conf
    { cat "$XB_CONF"; printf 'invariant_lag = %s\n' "$lag"; } >"$WCONF"
    at_exit 'dev worker stop; dev worker start'
    XB_WORKER_CONF=$WCONF dev worker stop && XB_WORKER_CONF=$WCONF dev worker start ||
        BAIL_OUT "xborder-worker did not start with invariant_lag = $lag"
fi
note "invariant_interval $interval s, invariant_lag $lag s"

new_platform t67 || BAIL_OUT "platform-create failed"
P=(--as "$NP_CLIENT_ID" "$NP_SECRET")
mk_customer payer "${P[@]}"
int_account "$CUST" USD "${P[@]}"
ACCT=${INT#InternalAccount:} SRC=$INT
fund "$INT" 100000 "${P[@]}"
mk_ext "$CUST" 000123456789 USD "${P[@]}"

# payout AMOUNT: a transfer-out from the account, settled; sets TX.
payout() {
    api "${P[@]}" POST /transfer-out "$(xfer_body "$SRC" "$EXT" "$1")"
    is_status 201 "a payout of $1"
    TX=$(jr .transactionId)
    settles "$TX" COMPLETED "... settled" "${P[@]}"
}

# covered: polls GET /status until the worker's last run reached the newest
# ledger entry there is now (a run covers what is lag seconds old; bounded
# by lag and 10 runs); INV is its invariants.
covered() {
    local want i
    want=$(sql "SELECT MAX(id) FROM ledger_entries")
    for ((i = 0; i < (lag + 10 * interval) * 5; i++)); do
        api --noauth --nocheck GET /status
        INV=$(jq -c '.invariants // {}' <<<"$BODY")
        (($(jq -r '.entryReached // 0' <<<"$INV") >= want)) && return 0
        sleep 0.2
    done
    diag "no run reached ledger entry $want: $INV"
    return 1
}

payout 1000
payout 1100
covered
ok "$((! $?))" "a run of the checks covered the payouts"
is "$(jq -r .ok <<<"$INV")/$(jq -c .failing <<<"$INV")" "true/[]" "GET /status: invariants ok, nothing failing"
like "$(jq -r .lastRunAt <<<"$INV")" '^20[0-9-]{8}T[0-9:.]{12}Z$' "... lastRunAt"
like "$(jq -r .examined <<<"$INV")" '^[0-9]+$' "... examined ($(jq -r .examined <<<"$INV"))"
out=$(xbctl status)
like "$out" $'(^|\n)invariants: failing=- lastRunAt=[^ ]+ finishedAt=[^ ]+ ok=true problems=0 examined=[0-9]+ entryReached=[0-9]+ eventReached=[0-9]+' \
    "xborderctl status: the invariants line"
ran=$(sql "SELECT COUNT(*) FROM invariant_runs WHERE examined > 0")
ok "$((ran > 0))" "runs examined entries and events ($ran)"

# A balance raised by 1 without an entry; the next payout's entries touch it.
planted "$ACCT"
sql "UPDATE internal_accounts SET balance = balance + 1 WHERE id = '$ACCT'"
payout 1200
covered
ok "$((! $?))" "a run covered the payout after the balance was moved"
is "$(jq -r .ok <<<"$INV")/$(jq -c .failing <<<"$INV")" 'false/["balances"]' \
    "GET /status: invariants not ok, failing [balances]"
like "$(grep -F 'msg="invariant broken"' "$LOG" | grep -F "id=$ACCT")" "check=balances what=account id=$ACCT detail=" \
    "an error line names the check and the account"
like "$(grep -F 'msg="invariant check failed"' "$LOG" | tail -n 1)" 'level=error .* check=balances problems=1' \
    "... and one the failed check"
like "$(xbctl status)" $'(^|\n)invariants: failing=balances .* ok=false problems=1' "xborderctl status: failing=balances"

# Put back: the first run over the account's next entries sees the step
# back (its checkpoint held the moved balance), the next is clean.
sql "UPDATE internal_accounts SET balance = balance - 1 WHERE id = '$ACCT'"
clean=0
for ((round = 0; round < 3 && !clean; round++)); do
    payout 100
    covered && [[ $(jq -r .ok <<<"$INV") == true ]] && clean=1
done
ok "$clean" "put back: a later run is clean again (after $round payouts)"
out=$(xbctl ledger-check 2>&1)
is "$?" 0 "xborderctl ledger-check: clean" || diag "$out"

# The counts (txn_counts, txn_customer_counts) against a checkpoint of the
# platform's transactions' counts (schema/027), taken once from a count
# and then moved by what each run's events changed (db_checks_counts.c).
# ckpt_covers: the platform's checkpoint stands at or past its newest event.
ckpt_covers() {
    (($(sql "SELECT IFNULL(MAX(event_seq), 0) FROM count_checkpoint_platforms WHERE platform_id = '$NP_ID'") >= \
        $(sql "SELECT MAX(seq) FROM webhook_events WHERE platform_id = '$NP_ID'")))
}
# ckpt_matches WHAT: the checkpoint is the transactions' counts now.
ckpt_matches() {
    is "$(sql "SELECT CONCAT(customer_id, '/', status, '/', type, '=', n) FROM count_checkpoints
            WHERE platform_id = '$NP_ID' AND n <> 0 ORDER BY 1")" \
        "$(sql "SELECT CONCAT('/', status, '/', type, '=', COUNT(*)) AS k FROM transactions
            WHERE platform_id = '$NP_ID' GROUP BY status, type
            UNION ALL SELECT CONCAT(customer_id, '//=', COUNT(*)) FROM transactions
            WHERE platform_id = '$NP_ID' AND customer_id IS NOT NULL GROUP BY customer_id ORDER BY 1")" \
        "$1"
}
wait_for ckpt_covers $((lag + 10 * interval + 10))
ok "$((! $?))" "counts: the platform has a checkpoint at its newest event"
ckpt_matches "... it is its transactions' counts, by status and type and by customer"
counted=$(sql "SELECT counted_seq FROM count_checkpoint_platforms WHERE platform_id = '$NP_ID'")
payout 100
payout 100
wait_for ckpt_covers $((lag + 10 * interval + 10))
ok "$((! $?))" "counts: after two more payouts, the checkpoint moved past them"
ckpt_matches "... and is their counts again"
is "$(sql "SELECT counted_seq FROM count_checkpoint_platforms WHERE platform_id = '$NP_ID'")" "$counted" \
    "... moved by the runs, not counted again"

# A count one too many and a customer's one too many, behind the writes'
# back: the next run that covers a payout counts the platform and names
# both; put back, a later run is clean.
COUNT_ROW="platform_id = '$NP_ID' AND status = 'COMPLETED' AND type = 'OUTGOING' AND shard = $(sql "SELECT shard FROM txn_counts WHERE platform_id = '$NP_ID' AND status = 'COMPLETED' AND type = 'OUTGOING' AND n > 0 LIMIT 1")"
CUST_ROW="platform_id = '$NP_ID' AND customer_id = '${CUST#Customer:}' AND shard = $(sql "SELECT shard FROM txn_customer_counts WHERE platform_id = '$NP_ID' AND customer_id = '${CUST#Customer:}' LIMIT 1")"
planted "$NP_ID" "${CUST#Customer:}"
sql "UPDATE txn_counts SET n = n + 1 WHERE $COUNT_ROW; UPDATE txn_customer_counts SET n = n + 1 WHERE $CUST_ROW"
miscounted() {
    grep -F 'msg="invariant broken"' "$LOG" | grep -qF "check=counts what=count id=$NP_ID " &&
        grep -F 'msg="invariant broken"' "$LOG" | grep -qF "check=counts what=customer id=${CUST#Customer:} "
}
payout 100
wait_for miscounted $((lag + 10 * interval + 10))
ok "$((! $?))" "counts: a run names the platform's count and the customer's, each one too many"
like "$(grep -F 'msg="invariant broken"' "$LOG" | grep -F "check=counts what=count id=$NP_ID " | tail -n 1)" \
    'detail="OUTGOING COMPLETED: ([0-9]+) transactions, counted ([0-9]+)"' "... with the count and the transactions"
sql "UPDATE txn_counts SET n = n - 1 WHERE $COUNT_ROW; UPDATE txn_customer_counts SET n = n - 1 WHERE $CUST_ROW"
clean=0
for ((round = 0; round < 3 && !clean; round++)); do
    payout 100
    covered && wait_for ckpt_covers $((lag + 10 * interval + 10)) &&
        [[ $(jq -r .ok <<<"$INV") == true ]] && clean=1
done
ok "$clean" "counts put back: a later run is clean again (after $round payouts)"
ckpt_matches "... and the checkpoint is the transactions' counts"

# A transaction older than 29 days that moves (its first events may have
# been purged at 30 days): the run over its event drops the platform's
# checkpoint and counts the platform whole; a later run takes the
# checkpoint anew from a count.  No alarm either time.
counted_seq() { sql "SELECT IFNULL(MAX(counted_seq), 0) FROM count_checkpoint_platforms WHERE platform_id = '$NP_ID'"; }
payout 100
OLD=$TX
wait_for ckpt_covers $((lag + 10 * interval + 10))
ok "$((! $?))" "counts (old transaction): the checkpoint covers a new payout"
counted=$(counted_seq)
sql "UPDATE transactions SET created_at = created_at - INTERVAL 30 DAY WHERE id = '${OLD#Transaction:}'"
api "${P[@]}" POST "/sandbox/transactions/$OLD/return" '{}'
is_status 200 "... the payout, backdated 30 days, returned by the sandbox helper"
is "$(jr .status)" REFUNDED "... REFUNDED"
dropped() { [[ $(counted_seq) != "$counted" ]]; }
wait_for dropped $((lag + 10 * interval + 10))
ok "$((! $?))" "... a run over its event let go of the checkpoint taken at event $counted (now: $(counted_seq))"
payout 100
covered && wait_for ckpt_covers $((lag + 10 * interval + 10))
ok "$((! $?))" "... after another payout the platform has a checkpoint again"
ok "$(($(counted_seq) > counted))" "... taken anew from a count (at event $(counted_seq), after $counted)"
ckpt_matches "... it is the transactions' counts"
is "$(jq -r .ok <<<"$INV")/$(jq -c .failing <<<"$INV")" "true/[]" "... and the runs were clean"
sql "UPDATE transactions SET created_at = created_at + INTERVAL 30 DAY WHERE id = '${OLD#Transaction:}'"

# An Idempotency-Key record whose kept 201 names a transaction that does
# not exist: a run's window of records (by their expiry, bounded) covers
# it, and an error line names the check and the key.
KEY=t67-ghost-$$
planted "$KEY"
sql "INSERT INTO idempotency_keys (platform_id, idem_key, request_hash, state, response_status,
        response_body, created_at, expires_at) VALUES ('$NP_ID', '$KEY', REPEAT('0', 64), 'DONE', 201,
        '{\"transactionId\":\"Transaction:00000000-0000-4000-8000-000000000067\"}',
        UTC_TIMESTAMP(3), UTC_TIMESTAMP(3) + INTERVAL 1 DAY)"
found() { grep -F 'msg="invariant broken"' "$LOG" | grep -qF "check=idempotency what=idempotency-key id=$KEY "; }
wait_for found $((lag + 10 * interval + 10))
ok "$((! $?))" "a run covered the planted record: an error line names check=idempotency and the key"
like "$(grep -F 'msg="invariant broken"' "$LOG" | grep -F "id=$KEY ")" \
    'detail="its answer names transaction 00000000-0000-4000-8000-000000000067, which does not exist"' \
    "... and the transaction it names"
ok "$(($(sql "SELECT COUNT(*) FROM invariant_runs WHERE idem_upto IS NOT NULL") > 0))" "runs record where their window of records reached"
sql "DELETE FROM idempotency_keys WHERE platform_id = '$NP_ID' AND idem_key = '$KEY'"

done_testing
