#!/usr/bin/env bash
# 75-lock-retry.t - money-moving transactions under a held row lock.
# A separate database session locks a customer's internal account row for
# longer than innodb_lock_wait_timeout (10 s in the service's sessions):
#  - a transfer-out that needs the row times out waiting, is retried whole
#    by the store (the retry is logged), and succeeds once the lock goes,
#    moving the money exactly once;
#  - while that first request waits, the same Idempotency-Key gets 409
#    IDEMPOTENCY_KEY_IN_USE, and afterwards the first answer is replayed.
# Talks to the stack's private MariaDB over its unix socket as the OS user.
. "$(dirname "${BASH_SOURCE[0]}")/lib/api.sh"
. "$(dirname "${BASH_SOURCE[0]}")/lib/money.sh"
no_plan

SOCK=${XB_DEV_DIR:?}/run/mysqld.sock
FCGI_LOG=$XB_DEV_DIR/log/xborder-fcgi.log
HOLD=13

retries() { grep -c 'transaction retried' "$FCGI_LOG" 2>/dev/null || true; }

mk_customer locks
int_account "$CUST"
mk_ext "$CUST" 000111222333
fund "$INT" 10000
raw=${INT#InternalAccount:}

# Hold the account row for HOLD seconds in another session.
mariadb --no-defaults --socket="$SOCK" --user="$(id -un)" xborder -e \
    "START TRANSACTION; SELECT balance FROM internal_accounts WHERE id = '$raw' FOR UPDATE; DO SLEEP($HOLD); COMMIT;" \
    >"$_API_TMP/holder.out" 2>&1 &
holder=$!
sleep 1
before=$(retries)
key=$(uniq_name lock-key)
body=$(xfer_body "$INT" "$EXT" 2500)

# The first request waits on the lock (in the background, its own files).
(
    curl -sk -o "$_API_TMP/first.body" -w '%{http_code}' --max-time 60 \
        -u "$XB_CLIENT_ID:$XB_CLIENT_SECRET" -H 'Content-Type: application/json' \
        -H "Idempotency-Key: $key" --data-binary "$body" "$XB_BASE_URL/transfer-out" \
        >"$_API_TMP/first.status"
) &
first=$!
sleep 2
api POST /transfer-out "$body" -H "Idempotency-Key: $key"
is_error 409 IDEMPOTENCY_KEY_IN_USE "same key while the first request waits on a lock"
api GET "/transactions?customerId=$CUST"
jis '.totalCount' 0 "nothing recorded while the lock is held"

started=$SECONDS
wait "$first"
wait "$holder"
is "$(<"$_API_TMP/first.status")" 201 "the waiting transfer-out succeeds once the lock is gone"
ok "$(($(retries) > before))" "the store retried the transaction after the lock wait timeout ($before -> $(retries) retries logged)"
diag "the waiting request ended $((SECONDS - started)) s after the same-key check"
BODY=$(<"$_API_TMP/first.body")
jis '.status' '"PENDING"' "the answer is the new transfer, PENDING"
jis '.sentAmount.amountMinor' '"2500"' "the answer is the transfer of 2500"
tx=$(jr .transactionId)

api POST /transfer-out "$body" -H "Idempotency-Key: $key"
is "$STATUS" 201 "the same key afterwards: the first status replayed"
is_header Idempotent-Replayed true "the same key afterwards: Idempotent-Replayed"
jis '.transactionId' "\"$tx\"" "the same key afterwards: the same transaction"

api GET "/transactions?customerId=$CUST"
jis '.totalCount' 1 "exactly one transaction"
balance_of "$INT"
is "$BAL" 7500 "the money left once: 10000 - 2500"
out=$(xbctl ledger-check 2>&1)
like "$out" 'ledger ok' "xborderctl ledger-check: ledger ok"

done_testing
