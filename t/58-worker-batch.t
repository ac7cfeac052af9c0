#!/usr/bin/env bash
# 58-worker-batch.t - xborder-worker runs due jobs in batches (one
# transaction, one commit for many), and one job that fails does not hold
# the others back:
#  - with the worker stopped, 6 payouts queue 6 settlement jobs; one of
#    them is made to fail (its transaction's amount raised in SQL, so that
#    settling it would take its in-transit account below zero);
#  - the worker started again settles the other 5, in batches of more than
#    one job (its log says batch=N), and reschedules the failing one with
#    its error (outcome=retry, last_error), with backoff; its payout stays
#    PENDING with the money where it was;
#  - the amount put back and the job due again, it settles; every job done
#    exactly once (the in-transit shards gave 6 x 1000 to SANDBOX in all)
#    and `xborderctl ledger-check` clean.
. "$(dirname "${BASH_SOURCE[0]}")/lib/api.sh"
. "$(dirname "${BASH_SOURCE[0]}")/lib/money.sh"
no_plan

DEV=${XB_ROOT:-$XB_REPO}/scripts/dev
SOCK=${XB_DEV_DIR:?}/run/mysqld.sock
WLOG=$XB_DEV_DIR/log/xborder-worker.log
worker_stopped=0
at_exit 'if ((worker_stopped)); then "$DEV" worker start >/dev/null 2>&1; fi'

sql() {
    mariadb --no-defaults --socket="$SOCK" --user="$(id -un)" --batch --skip-column-names \
        xborder -e "$1"
}
raw() { echo "${1#*:}"; }

new_platform t58 || BAIL_OUT "platform-create failed"
use_creds "$NP_CLIENT_ID" "$NP_SECRET"
mk_customer batch
int_account "$CUST"
A_INT=$INT
mk_ext "$CUST" 40000000001
fund "$A_INT" 100000

"$DEV" worker stop >/dev/null 2>&1
worker_stopped=1
TX=()
for ((i = 0; i < 6; i++)); do
    api --nocheck POST /transfer-out "$(xfer_body "$A_INT" "$EXT" 1000)"
    [[ $STATUS == 201 ]] && TX+=("$(jr .transactionId)")
done
is "${#TX[@]}" 6 "6 payouts while xborder-worker is stopped: 201 each"
POISON=$(raw "${TX[2]}")
is "$(sql "SELECT COUNT(*) FROM jobs WHERE platform_id = '$NP_ID' AND done_at IS NULL")" 6 \
    "6 settlement jobs queued"
sql "UPDATE transactions SET amount = amount * 1000000 WHERE id = '$POISON'"
sql "UPDATE jobs SET run_at = UTC_TIMESTAMP(3) - INTERVAL 1 SECOND WHERE platform_id = '$NP_ID' AND done_at IS NULL"
lines0=$(wc -l <"$WLOG")

"$DEV" worker start >/dev/null 2>&1
worker_stopped=0
for ((i = 0; i < 6; i++)); do
    ((i == 2)) && continue
    settles "${TX[$i]}" COMPLETED "payout $((i + 1)) settles although payout 3's job fails"
done
wait_for "[[ \$(sql \"SELECT attempts FROM jobs WHERE ref_id = '$POISON'\") -ge 1 ]]" 15
is "$(sql "SELECT attempts >= 1, done_at IS NULL, last_error FROM jobs WHERE ref_id = '$POISON'")" \
    "$(printf '1\t1\tinsufficient balance')" "the failing job: attempted, not done, its error recorded"
is "$(sql "SELECT status FROM transactions WHERE id = '$POISON'")" PENDING "its payout stays PENDING"
# The worker writes a batch's job lines after its commit, which is what the
# waits above saw: wait for the lines themselves.
wait_log "$WLOG" "$lines0" "msg=job .*platform_id=$NP_ID .*outcome=done" 5 10 ||
    diag "    5 outcome=done job lines of the platform not logged within 10 s"
wait_log "$WLOG" "$lines0" "msg=job .*ref_id=$POISON .*outcome=retry" 1 10 ||
    diag "    the failing job's outcome=retry line not logged within 10 s"
log=$(tail -n +"$((lines0 + 1))" "$WLOG" | grep "msg=job .*platform_id=$NP_ID")
like "$(grep "ref_id=$POISON" <<<"$log")" 'outcome=retry .*error=' "the worker logged the failure (outcome=retry, error)"
is "$(grep -c 'outcome=done' <<<"$log")" 5 "5 job lines with outcome=done"
max=$(grep -o ' batch=[0-9]*' <<<"$log" | cut -d= -f2 | sort -n | tail -n 1)
ok "$((${max:-0} > 1))" "jobs ran in batches (largest: ${max:-none})"

sql "UPDATE transactions SET amount = amount DIV 1000000 WHERE id = '$POISON'"
sql "UPDATE jobs SET run_at = UTC_TIMESTAMP(3) WHERE ref_id = '$POISON'"
settles "${TX[2]}" COMPLETED "with its amount back, payout 3 settles on its next attempt"
is "$(sql "SELECT COUNT(*), SUM(done_at IS NOT NULL) FROM jobs WHERE platform_id = '$NP_ID' AND kind = 'settle'")" \
    "$(printf '6\t6')" "6 settlement jobs, all done"
# A batch's payouts settle in one posting set (its balances change once
# per account): each payout's entries are its own, its shard to SANDBOX,
# naming it.
is "$(sql "SELECT a.kind, SUM(e.amount) FROM ledger_entries e JOIN internal_accounts a
    ON a.id = e.account_id WHERE e.platform_id = '$NP_ID' AND e.memo = 'payout_settled'
    GROUP BY a.kind ORDER BY a.kind")" "$(printf 'IN_TRANSIT\t-6000\nSANDBOX\t6000')" \
    "each payout settled once: 6 x 1000 from the in-transit shards to SANDBOX"
is "$(sql "SELECT COUNT(*), COUNT(DISTINCT e.transaction_id), SUM(a.kind = 'SANDBOX') FROM ledger_entries e
    JOIN internal_accounts a ON a.id = e.account_id
    WHERE e.platform_id = '$NP_ID' AND e.memo = 'payout_settled'")" "$(printf '12\t6\t6')" \
    "12 settlement entries, two a payout (its shard, SANDBOX), each naming its payout"
ok "$(($(sql "SELECT COUNT(DISTINCT posting_id) FROM ledger_entries
    WHERE platform_id = '$NP_ID' AND memo = 'payout_settled'") < 6))" \
    "fewer posting sets than payouts: the batch settled several in one"
balance_of "$A_INT"
is "$BAL" 94000 "the account: 100000 funded - 6 x 1000"
cmd_ok "xborderctl ledger-check: clean" xbctl ledger-check
use_root

done_testing
