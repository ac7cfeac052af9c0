#!/usr/bin/env bash
# 82-sandbox-race.t - a sandbox state helper against xborder-worker's own
# settlement (decisions.md section 14: the first to commit wins, the
# other finds the transaction already moved).  50 transfer-outs to an
# account that completes (...001), each followed at once, or after a short
# random delay so that both sides win some, by `complete` or `fail`:
#  - the helper answers 200 (it won) or 409 INVALID_TRANSITION with
#    details {status COMPLETED, allowedFrom [PENDING]} (the worker won);
#  - each transaction ends in exactly one outcome: the helper's when it
#    won, COMPLETED when the worker did, and keeps it;
#  - its webhook events are exactly PENDING and that outcome;
#  - every settlement job the helper beat logged that it found the
#    transaction already moved, and did nothing;
#  - the sender's balance is what the outcomes say, nothing is left in
#    transit, and xborderctl ledger-check passes.
. "$(dirname "${BASH_SOURCE[0]}")/lib/api.sh"
. "$(dirname "${BASH_SOURCE[0]}")/lib/money.sh"
. "$(dirname "${BASH_SOURCE[0]}")/lib/stack.sh"
no_plan

N=50
AMOUNT=100
WLOG=$XB_DEV_DIR/log/xborder-worker.log

new_platform t82 || BAIL_OUT "platform-create failed"
use_creds "$NP_CLIENT_ID" "$NP_SECRET"
P_ID=$NP_ID
pass "platform created with xborderctl"
mk_customer t82-s
S=$CUST
int_account "$S" USD
S_USD=$INT
mk_ext "$S" 000828282001
S_OK=$EXT
fund "$S_USD" 1000000
wlines=$(wc -l <"$WLOG" 2>/dev/null || echo 0)

declare -a TX=() HELPER=() ANSWER=()
bad=()
for ((i = 0; i < N; i++)); do
    h=complete
    ((i % 2)) && h=fail
    api --nocheck POST /transfer-out "$(xfer_body "$S_USD" "$S_OK" "$AMOUNT")"
    [[ $STATUS == 201 ]] || { bad+=("transfer-out $i: $STATUS $BODY"); continue; }
    tx=$(jr .transactionId)
    # A third at once, the rest after up to 0.45 s: the worker settles
    # about 0.3 s after creation, so both sides win some.
    ((i % 3)) && sleep "0.$((RANDOM % 5))$((RANDOM % 10))"
    api POST "/sandbox/transactions/$tx/$h"
    TX+=("$tx") HELPER+=("$h") ANSWER+=("$STATUS")
    if [[ $STATUS == 409 ]]; then
        [[ $(j .code) == '"INVALID_TRANSITION"' &&
            $(jq -cS .details <<<"$BODY") == '{"allowedFrom":["PENDING"],"status":"COMPLETED"}' ]] ||
            bad+=("$tx: $h answered $BODY")
    elif [[ $STATUS != 200 ]]; then
        bad+=("$tx: $h answered $STATUS $BODY")
    fi
done
is "${#TX[@]}" "$N" "$N transfer-outs made, each followed by a helper"
is "${bad[*]}" "" "every helper answered 200, or 409 INVALID_TRANSITION {status COMPLETED, allowedFrom [PENDING]}"

helper_won=0 worker_won=0 completed=0
bad=()
won_ids=()
for i in "${!TX[@]}"; do
    tx=${TX[$i]}
    if [[ ${ANSWER[$i]} == 200 ]]; then
        want=$([[ ${HELPER[$i]} == complete ]] && echo COMPLETED || echo FAILED)
        helper_won=$((helper_won + 1))
        won_ids+=("${tx#Transaction:}")
    else
        want=COMPLETED
        worker_won=$((worker_won + 1))
    fi
    [[ $want == COMPLETED ]] && completed=$((completed + 1))
    if ! wait_status "$tx" 'COMPLETED|FAILED|REFUNDED' 15; then
        bad+=("$tx: not settled (seen ${SEEN[*]})")
        continue
    fi
    [[ $(jr .status) == "$want" ]] || bad+=("$tx: ${HELPER[$i]} answered ${ANSWER[$i]}, ended $(jr .status)")
    evs=$(sql "SELECT GROUP_CONCAT(JSON_VALUE(payload, '\$.data.status') ORDER BY seq SEPARATOR ' ')
               FROM webhook_events WHERE transaction_id = '${tx#Transaction:}'")
    [[ $evs == "PENDING $want" ]] || bad+=("$tx: events $evs, want PENDING $want")
done
note "the helper won $helper_won times, the worker $worker_won times"
is "${bad[*]}" "" "each transaction ended in the one outcome of the side that won, with one event per status"

# Every settlement job has run; those the helper beat logged it.
ids=$(printf "'%s'," "${TX[@]#Transaction:}")
jobs_left() {
    sql "SELECT COUNT(*) FROM jobs WHERE kind = 'settle' AND ref_id IN (${ids%,}) AND done_at IS NULL"
}
if wait_for '(( $(jobs_left) == 0 ))' 30; then
    pass "every settlement job of the $N transfer-outs has run"
else
    fail "every settlement job of the $N transfer-outs has run ($(jobs_left) left)"
fi
logged=0
for id in "${won_ids[@]}"; do
    tail -n +"$((wlines + 1))" "$WLOG" | grep -F "$id" | grep -q 'already moved, found' &&
        logged=$((logged + 1))
done
is "$logged" "$helper_won" "each settlement job the helper beat logged that it found the transaction already moved"

# Nothing moved twice: again, after the jobs, one outcome each.
bad=()
for i in "${!TX[@]}"; do
    n=$(sql "SELECT COUNT(*) FROM webhook_events WHERE transaction_id = '${TX[$i]#Transaction:}'")
    [[ $n == 2 ]] || bad+=("${TX[$i]}: $n events")
done
is "${bad[*]}" "" "after every job ran, each transaction still has exactly two events"

balance_of "$S_USD"
is "$BAL" "$((1000000 - completed * AMOUNT))" "the sender paid exactly for the $completed completed transfer-outs"
is "$(sql "SELECT COALESCE(SUM(balance), 0) FROM internal_accounts WHERE platform_id = '$P_ID' AND kind = 'IN_TRANSIT'")" 0 \
    "nothing left in transit"
is "$(sql "SELECT posting_id FROM ledger_entries WHERE platform_id = '$P_ID'
           GROUP BY posting_id, currency HAVING SUM(amount) <> 0")" "" \
    "every posting of the platform sums to zero per currency"
out=$(xbctl ledger-check 2>&1)
is "$?" 0 "xborderctl ledger-check exits 0"
like "$out" 'ledger ok' "xborderctl ledger-check: ledger ok"

done_testing
