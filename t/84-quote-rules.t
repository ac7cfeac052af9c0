#!/usr/bin/env bash
# 84-quote-rules.t - the money and time rules of quote execution, on a
# platform of its own (decisions.md sections 1, 8 and 9):
#  - the funds rule compares the whole sending amount with the balance
#    before: a quote paid to the sender's own PPV address in the same
#    currency still needs all of S (409 INSUFFICIENT_FUNDS, requested S),
#    and nothing moves;
#  - a payout whose external account was deleted after the quote is 410
#    GONE naming destination.accountId, and nothing moves; the quote's
#    snapshot holds against a re-issued PPV address and a removed currency;
#  - past its expiry a quote is EXPIRED for every read and rule, marked or
#    not: with xborder-worker stopped, a customer whose only quote just
#    expired can be deleted, and 150 quotes due at once read EXPIRED in
#    every list, filter and count at once.
# Talks to the stack's private MariaDB over its unix socket (to set quotes'
# expiry in the past) and stops xborder-worker for a moment, always
# starting it again.
. "$(dirname "${BASH_SOURCE[0]}")/lib/api.sh"
. "$(dirname "${BASH_SOURCE[0]}")/lib/money.sh"
. "$(dirname "${BASH_SOURCE[0]}")/lib/stack.sh"
no_plan

# age_quotes WHERE: the quotes matching WHERE (of this platform) expired a
# moment ago, as time would have made them; their transactions carry the
# quote's expiry too.
age_quotes() {
    sql "UPDATE quotes q JOIN transactions x ON x.id = q.transaction_id
         SET q.expires_at = UTC_TIMESTAMP(3) - INTERVAL 1 SECOND,
             x.quote_expires_at = UTC_TIMESTAMP(3) - INTERVAL 1 SECOND
         WHERE q.platform_id = '$NP_ID' AND ($1)"
}

fx_prices USD=10000000 EUR=9213377
new_platform t84 || BAIL_OUT "platform-create failed"
use_creds "$NP_CLIENT_ID" "$NP_SECRET"
set_profile 25 900
set_fees 0 0

# --- 1. the funds rule: every debit against the balance before ---------------------------
mk_customer self
SELF=$CUST SELF_PPV=$CUST_PPV
int_account "$SELF" USD
SELF_USD=$INT
fund "$SELF_USD" 10000
api POST /quotes "$(ppv_quote "$SELF_USD" "$SELF_PPV" USD SENDING 500000)"
is_status 201 "a quote of 500000 USD to the sender's own address in USD"
Q_SELF=$(jr .quoteId) QT_SELF=$(jr .transactionId) R_SELF=$(jr .receivingAmount.amountMinor)
ok "$((R_SELF > 0 && R_SELF < 500000))" "its receiving amount R=$R_SELF is below S (the spread)"
api POST "/quotes/$Q_SELF/execute"
is_error 409 INSUFFICIENT_FUNDS "execute with 10000 held and S 500000 (R $R_SELF credited back to the same account)"
jis .details '{"available":{"currencyCode":"USD","amountMinor":"10000"},"requested":{"currencyCode":"USD","amountMinor":"500000"}}' \
    "INSUFFICIENT_FUNDS: available 10000, requested the whole S"
balance_of "$SELF_USD"
is "$BAL" 10000 "the balance is unchanged"
api GET "/transactions/$QT_SELF"
jis '[.status, .settledAt]' '["CREATED",null]' "the quote's transaction is still CREATED"
fund "$SELF_USD" 490000
api POST "/quotes/$Q_SELF/execute"
is_status 200 "with 500000 held: executed"
jis .status '"COMPLETED"' "COMPLETED at once (a PPV address)"
balance_of "$SELF_USD"
is "$BAL" "$R_SELF" "the balance is 500000 - S + R = R"

# --- 2. what must still exist at execution -------------------------------------------------
mk_customer payee
PAYEE=$CUST
int_account "$PAYEE" USD
PAYEE_USD=$INT
fund "$PAYEE_USD" 100000
mk_ext "$PAYEE" 000840840001 USD
EXT=$EXT
api POST /quotes "$(ext_quote "$PAYEE_USD" "$EXT" SENDING 5000)"
is_status 201 "a quote paying an external account"
Q_EXT=$(jr .quoteId) QT_EXT=$(jr .transactionId)
api DELETE "/customers/external-accounts/$EXT?customerId=$PAYEE"
is_status 200 "the external account is deleted after the quote"
api POST "/quotes/$Q_EXT/execute"
is_error 410 GONE "execute after the account's deletion"
jis '.details | keys' '["destination.accountId"]' "410: details names destination.accountId"
balance_of "$PAYEE_USD"
is "$BAL" 100000 "nothing moved"
api GET "/transactions/$QT_EXT"
jis .status '"CREATED"' "the quote's transaction is unchanged"
api GET "/quotes/$Q_EXT"
jis '[.status, .executedAt]' '["QUOTE_READY",null]' "the quote is unchanged, not executed"

# The snapshot holds: a PPV address re-issued and a currency removed since.
mk_customer recv
RECV=$CUST RECV_PPV=$CUST_PPV
api POST /quotes "$(ppv_quote "$PAYEE_USD" "$RECV_PPV" EUR SENDING 3000)"
is_status 201 "a quote to a PPV address in EUR"
Q_SNAP=$(jr .quoteId)
api POST "/customers/$RECV/ppv-address" "{\"ppvName\":\"$(uniq_name r84 | tr 'A-Z' 'a-z')\"}"
is_status 200 "the receiver's PPV address is re-issued"
RECV_PPV=$(jr .ppvAddress)
api PATCH /config "{\"supportedCurrencies\":[$(cur_entry USD 1 100000000 both)]}"
is_status 200 "EUR is removed from the platform's currencies"
api POST "/quotes/$Q_SNAP/execute"
is_status 200 "the quote executes on its snapshot all the same"
jis .status '"COMPLETED"' "COMPLETED"

# --- 3. past its expiry a quote is EXPIRED for every rule, marked or not -------------------
worker_stop
ok "$worker_stopped" "xborder-worker stopped (nothing marks quotes EXPIRED now)"
mk_customer only-quote
ONLY=$CUST
int_account "$ONLY" USD
api POST /quotes "$(ppv_quote "$INT" "$RECV_PPV" USD SENDING 1000)"
is_status 201 "the customer's only transaction is a quote"
Q_ONLY=$(jr .quoteId)
age_quotes "q.id = '${Q_ONLY#Quote:}' OR q.id = '$Q_ONLY'"
api DELETE "/customers/$ONLY"
is_status 200 "DELETE the customer right after its quote expired: 200"
jis . "{\"deleted\":true,\"customerId\":\"$ONLY\"}" "the deletion's answer"

# So is a review case past its window.
mk_customer only-case
api POST /sandbox/incoming-payments/simulate "{\"receiverCustomerId\":\"$CUST\",\"scenario\":\"sanctions_hit\",\"amountMinor\":700,\"currencyCode\":\"USD\"}"
is_status 201 "the customer's only transaction is a review case"
sql "UPDATE transactions SET review_expires_at = UTC_TIMESTAMP(3) - INTERVAL 1 SECOND
     WHERE platform_id = '$NP_ID' AND customer_id = '${CUST#Customer:}'"
api DELETE "/customers/$CUST"
is_status 200 "DELETE the customer right after its review case expired: 200"

N=150
for ((i = 0; i < N; i++)); do
    api --nocheck POST /quotes "$(ppv_quote "$PAYEE_USD" "$RECV_PPV" USD SENDING $((100 + i)))"
    [[ $STATUS == 201 ]] || { fail "quote $i: $STATUS $BODY"; break; }
done
pass "$N more quotes"
# Besides these: two executed quotes (QUOTE_READY for good, the outcome
# lives on their transactions) and the payout quote left unexecuted.
api GET "/quotes?status=QUOTE_READY&limit=1"
is "$(jr .totalCount)" $((N + 3)) "before their expiry: $N + 3 QUOTE_READY"
age_quotes "q.executed_at IS NULL AND q.status = 'QUOTE_READY'"
is "$(sql "SELECT COUNT(*) FROM quotes WHERE platform_id = '$NP_ID' AND status = 'QUOTE_READY' AND executed_at IS NULL")" $((N + 1)) \
    "$((N + 1)) quotes due at once, none marked yet"
api GET "/quotes?status=QUOTE_READY&limit=100"
jis '[.totalCount, ([.data[].quoteId] | sort)]' "[2,$(jq -cn --arg a "$Q_SELF" --arg b "$Q_SNAP" '[$a, $b] | sort')]" \
    "GET /quotes?status=QUOTE_READY: only the two executed quotes"
api GET "/quotes?status=PENDING"
jis .totalCount 2 "GET /quotes?status=PENDING (the alias): the same two"
api GET "/quotes?status=EXPIRED&limit=100"
jis .totalCount $((N + 2)) "GET /quotes?status=EXPIRED: all $((N + 1)) due and the deleted customer's"
api GET "/quotes?limit=100"
jis "[.data[] | select(.status == \"QUOTE_READY\") | .quoteId] - [\"$Q_SELF\", \"$Q_SNAP\"] | length" 0 \
    "GET /quotes: no row but the executed ones reads QUOTE_READY"
LAST_Q=$(jr '[.data[] | select(.status == "EXPIRED")][0].quoteId')
api GET "/transactions?status=CREATED"
jis .totalCount 0 "GET /transactions?status=CREATED: none"
api GET "/transactions?status=EXPIRED&limit=100"
jis .totalCount $((N + 2)) "GET /transactions?status=EXPIRED: $((N + 2))"
api GET "/transactions?limit=100"
jis '[.data[] | select(.status == "CREATED")] | length' 0 "GET /transactions: no row reads CREATED"
api POST "/quotes/$LAST_Q/execute"
is_error 409 QUOTE_EXPIRED "a quote of the $N, past its expiry: 409 QUOTE_EXPIRED"

worker_start
ok "$((!worker_stopped))" "xborder-worker started again"
out=$(xbctl ledger-check 2>&1)
is "$?" 0 "xborderctl ledger-check is clean${out:+: $(tail -n 1 <<<"$out")}"

done_testing
