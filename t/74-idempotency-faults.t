#!/usr/bin/env bash
# 74-idempotency-faults.t - what a crash or a lost answer does to a request
# made with an Idempotency-Key, and to a customer deletion racing a
# settlement.  Drives the fault points of a build configured with
# --enable-fault-injection (scripts/dev check always builds one) through
# the X-Xborder-Fault header:
#  - kill-after-commit: the worker dies after the business commit; the
#    retry replays the first answer and moves nothing more;
#  - lose-commit: the commit succeeds but the answer is a 503; the retry
#    replays the 201 (a 5xx after a commit never frees the key);
#  - kill-before-commit: the worker dies before the commit; nothing moved,
#    the claim is IN_USE until its lease (idempotency_lease, 30 s) passes
#    (moved to have passed, in SQL), then a retry runs the request, once;
#  - pause-before-handler: the claim passes to another attempt while the
#    first pauses; the first rolls back and answers 409;
#  - pause-delete-customer: DELETE /customers pauses between its balance
#    check and its count of open transactions while a transfer-in settles:
#    the delete is refused (409) and the money lands on a live customer;
#  - break-deferred-write: every write queued to go with the transaction's
#    next statement (db_exec_later) fails its row-count check: the
#    statement carrying them fails, the whole transaction rolls back (no
#    balance moved, no transaction, no count), the answer is a 500, and
#    the key is free for a retry.
. "$(dirname "${BASH_SOURCE[0]}")/lib/api.sh"
. "$(dirname "${BASH_SOURCE[0]}")/lib/money.sh"

needs_faults
no_plan

RUN=$(uniq_name t74)
FCGI_LOG=$XB_DEV_DIR/log/xborder-fcgi.log
SOCK=$XB_DEV_DIR/run/mysqld.sock
sql() { mariadb --no-defaults --socket="$SOCK" --user="$(id -un)" xborder -N -e "$1"; }
LEASE=$(sed -n 's/^idempotency_lease *= *//p' "$XB_CONF" | tail -n 1)
LEASE=${LEASE:-30}

# tx_count CUSTOMER: sets TXN to the customer's number of transactions.
tx_count() {
    local save_s=$STATUS save_b=$BODY save_h=$HEADERS
    api --nocheck GET "/transactions?customerId=$1&limit=1"
    TXN=$(jr .totalCount)
    STATUS=$save_s BODY=$save_b HEADERS=$save_h
}

# faulted FAULT KEY BODY: a transfer-out under KEY with FAULT armed.
faulted() {
    api --nocheck POST /transfer-out "$3" -H "Idempotency-Key: $2" -H "X-Xborder-Fault: $1"
}

mk_customer t74
C=$CUST
int_account "$C" USD
C_INT=$INT
mk_ext "$C" 000747474001
C_EXT=$EXT
fund "$C_INT" 100000
tx_count "$C"
n0=$TXN

# --- the worker dies right after the commit ----------------------------------------
key="$RUN-kill-after"
body=$(xfer_body "$C_INT" "$C_EXT" 1000)
faulted kill-after-commit "$key" "$body"
is "$STATUS" 503 "kill-after-commit: the worker died before answering (nginx's 503)"
jis .code '"SERVICE_UNAVAILABLE"' "kill-after-commit: in nginx's JSON envelope"
balance_of "$C_INT"
is "$BAL" 99000 "kill-after-commit: the transfer-out was committed (1000 left)"
api POST /transfer-out "$body" -H "Idempotency-Key: $key"
is_status 201 "kill-after-commit, retried with the same key: 201"
is_header Idempotent-Replayed true "kill-after-commit, retried: the committed answer is replayed"
jis .status '"PENDING"' "kill-after-commit, retried: the answer of the first request (PENDING)"
first_tx=$(jr .transactionId)
balance_of "$C_INT"
is "$BAL" 99000 "kill-after-commit, retried: nothing moved a second time"
tx_count "$C"
is "$TXN" $((n0 + 1)) "kill-after-commit, retried: one transaction in all"
api GET "/transactions/$first_tx"
is_status 200 "kill-after-commit: the replayed transaction id is the committed one"

# --- the commit succeeds, the answer is lost (503) ----------------------------------
key="$RUN-lose"
body=$(xfer_body "$C_INT" "$C_EXT" 2000)
faulted lose-commit "$key" "$body"
is_error 503 SERVICE_UNAVAILABLE "lose-commit: the client sees a 503"
balance_of "$C_INT"
is "$BAL" 97000 "lose-commit: the transfer-out was committed all the same"
api POST /transfer-out "$body" -H "Idempotency-Key: $key"
is_status 201 "lose-commit, retried with the same key: 201"
is_header Idempotent-Replayed true "lose-commit, retried: replayed, not run again"
balance_of "$C_INT"
is "$BAL" 97000 "lose-commit, retried: nothing moved a second time"
tx_count "$C"
is "$TXN" $((n0 + 2)) "lose-commit, retried: one more transaction in all"

# --- the worker dies before the commit: the lease frees the claim ------------------
key="$RUN-kill-before"
body=$(xfer_body "$C_INT" "$C_EXT" 3000)
faulted kill-before-commit "$key" "$body"
is "$STATUS" 503 "kill-before-commit: the worker died before answering (nginx's 503)"
claimed=$SECONDS
balance_of "$C_INT"
is "$BAL" 97000 "kill-before-commit: nothing was committed"
tx_count "$C"
is "$TXN" $((n0 + 2)) "kill-before-commit: no transaction was made"
api POST /transfer-out "$body" -H "Idempotency-Key: $key"
is_error 409 IDEMPOTENCY_KEY_IN_USE "kill-before-commit, retried at once: the dead claim's lease still holds"
# The claim's lease is idempotency_lease (30 s) from when it was taken.
# Rather than wait for it, the test moves its end to a second ago: what is
# tested is that a passed lease is taken over, and once.
left=$(sql "SELECT TIMESTAMPDIFF(MICROSECOND, UTC_TIMESTAMP(3), lease_until) FROM idempotency_keys
    WHERE platform_id = '$XB_PLATFORM_ID' AND idem_key = '$key' AND state = 'RUNNING'")
ok "$((left > (LEASE - SECONDS + claimed - 2) * 1000000 && left <= LEASE * 1000000))" \
    "kill-before-commit: the claim's lease ends idempotency_lease ($LEASE s) after it was taken (${left} us left)"
sql "UPDATE idempotency_keys SET lease_until = UTC_TIMESTAMP(3) - INTERVAL 1 SECOND
    WHERE platform_id = '$XB_PLATFORM_ID' AND idem_key = '$key' AND state = 'RUNNING'"
api POST /transfer-out "$body" -H "Idempotency-Key: $key"
is_status 201 "kill-before-commit, retried after the lease: the request runs (201)"
isnt "$(header Idempotent-Replayed)" true "kill-before-commit, retried after the lease: a first answer, not a replay"
balance_of "$C_INT"
is "$BAL" 94000 "kill-before-commit: the amount moved once"
api POST /transfer-out "$body" -H "Idempotency-Key: $key"
is_status 201 "kill-before-commit, retried again: 201"
is_header Idempotent-Replayed true "kill-before-commit, retried again: replayed"
balance_of "$C_INT"
is "$BAL" 94000 "kill-before-commit: still moved once"
tx_count "$C"
is "$TXN" $((n0 + 3)) "kill-before-commit: one transaction for the key"
ok "$(grep -c 'taken over after its lease passed' "$FCGI_LOG")" "the take-over is logged"

# --- the claim taken over while its attempt still runs ------------------------------
# The attempt pauses before its handler; meanwhile its claim passes to
# another attempt (as a take-over after the lease does; here written in
# SQL).  The attempt's last statement finds the claim gone: everything it
# did rolls back and it answers 409, retryable.  The claim is checked only
# there, so a check that is missing moves the money.
key="$RUN-overtaken"
body=$(xfer_body "$C_INT" "$C_EXT" 500)
balance_of "$C_INT"
bal0=$BAL
tx_count "$C"
n1=$TXN
curl -sk --max-time 30 -u "$XB_CLIENT_ID:$XB_CLIENT_SECRET" -H 'Content-Type: application/json' \
    -H "Idempotency-Key: $key" -H 'X-Xborder-Fault: pause-before-handler' \
    -w '\n%{http_code}' -X POST "$XB_BASE_URL/transfer-out" -d "$body" >"$_API_TMP/overtaken.out" &
paused=$!
for ((i = 0; i < 40; i++)); do
    [[ $(sql "SELECT COUNT(*) FROM idempotency_keys WHERE idem_key = '$key' AND state = 'RUNNING'") == 1 ]] && break
    sleep 0.05
done
is "$(sql "UPDATE idempotency_keys SET claim_id = UUID() WHERE idem_key = '$key' AND state = 'RUNNING'; SELECT ROW_COUNT()")" 1 \
    "overtaken: the running claim passed to another attempt"
wait "$paused"
out=$(cat "$_API_TMP/overtaken.out")
is "${out##*$'\n'}" 409 "overtaken: the paused attempt answers 409"
is "$(jq -r .code <<<"${out%$'\n'*}")" IDEMPOTENCY_KEY_IN_USE "overtaken: IDEMPOTENCY_KEY_IN_USE"
balance_of "$C_INT"
is "$BAL" "$bal0" "overtaken: nothing moved"
tx_count "$C"
is "$TXN" "$n1" "overtaken: no transaction was made"
is "$(sql "SELECT state FROM idempotency_keys WHERE idem_key = '$key'")" RUNNING "overtaken: the key is still the new owner's"

# --- a deferred write fails: nothing of the transaction lands ------------------------
# A payout's ledger, counts, event and job go to the server with the
# transaction's later statements (db_exec_later); made to fail there, the
# payout must vanish whole.
mk_customer t74d
W=$CUST
int_account "$W" USD
W_INT=$INT
mk_ext "$W" 000747474009
W_EXT=$EXT
fund "$W_INT" 50000
tx_count "$W"
w0=$TXN
wrows() { sql "SELECT COUNT(*) FROM transactions WHERE customer_id = '$W'"; }
r0=$(wrows)
body=$(xfer_body "$W_INT" "$W_EXT" 1500)
for how in keyed plain; do
    if [[ $how == keyed ]]; then
        faulted break-deferred-write "$RUN-deferred" "$body"
    else
        api --nocheck POST /transfer-out "$body" -H "X-Xborder-Fault: break-deferred-write"
    fi
    is_error 500 INTERNAL_ERROR "break-deferred-write ($how): 500 in the error envelope"
    balance_of "$W_INT"
    is "$BAL" 50000 "break-deferred-write ($how): no money moved"
    is "$(wrows)" "$r0" "break-deferred-write ($how): no transaction row"
    tx_count "$W"
    is "$TXN" "$w0" "break-deferred-write ($how): the customer's count did not move"
done
api POST /transfer-out "$body" -H "Idempotency-Key: $RUN-deferred"
is_status 201 "break-deferred-write, retried with the same key: the request runs (201)"
isnt "$(header Idempotent-Replayed)" true "break-deferred-write, retried: a first answer, not a replay"
balance_of "$W_INT"
is "$BAL" 48500 "break-deferred-write, retried: the amount moved once"
tx_count "$W"
is "$TXN" $((w0 + 1)) "break-deferred-write, retried: one transaction, counted"
ok "$(grep -c 'deferred write changed an unexpected number of rows' "$FCGI_LOG")" \
    "the failed deferred write is logged"

# --- a deletion racing a settlement ---------------------------------------------------
# The customer holds nothing and has one transfer-in, settling ~0.3 s after
# it is made; the delete pauses 2 s between its balance check and its count
# of open transactions.  Settlement and deletion take the customer row
# lock, so the settlement waits for the delete, which still sees the
# transfer-in open and refuses.  Without that lock the settlement would
# credit the customer inside the pause and the delete would succeed.
mk_customer t74-del
D=$CUST
int_account "$D" USD
D_INT=$INT
mk_ext "$D" 000747474011
D_EXT=$EXT
# Straight curl, back to back: the DELETE must start well inside the 0.3 s
# before the settlement job is due.
raw() {
    curl -sk --max-time 30 -u "$XB_CLIENT_ID:$XB_CLIENT_SECRET" -H 'Content-Type: application/json' \
        -w '\n%{http_code}' "$@"
}
tin_out=$(raw -X POST "$XB_BASE_URL/transfer-in" -d "$(xfer_body "$D_EXT" "$D_INT" 4242)")
del_out=$(raw -X DELETE -H 'X-Xborder-Fault: pause-delete-customer' "$XB_BASE_URL/customers/$D")
is "${tin_out##*$'\n'}" 201 "transfer-in to the customer about to be deleted: 201"
tin=$(jq -r .transactionId <<<"${tin_out%$'\n'*}")
is "${del_out##*$'\n'}" 409 "DELETE racing the transfer-in's settlement: 409"
is "$(jq -r .code <<<"${del_out%$'\n'*}")" CUSTOMER_HAS_BALANCE "DELETE racing the settlement: CUSTOMER_HAS_BALANCE"
settles "$tin" COMPLETED "the transfer-in completes"
api GET "/customers/$D"
is_status 200 "the customer is still live"
balance_of "$D_INT"
is "$BAL" 4242 "the settled money is on the live customer's account"

out=$(xbctl ledger-check 2>&1)
is "$?" 0 "xborderctl ledger-check exits 0"
like "$out" 'ledger ok' "xborderctl ledger-check: ledger ok"

done_testing
