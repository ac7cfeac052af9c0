#!/usr/bin/env bash
# 73-returned-payout.t - a payout the bank is going to return (account
# number ending in 005) is not finished while it is COMPLETED: its customer
# cannot be deleted (409 CUSTOMER_HAS_BALANCE) even with a zero balance, so
# the returned money always lands on a live customer's account.
. "$(dirname "${BASH_SOURCE[0]}")/lib/api.sh"
. "$(dirname "${BASH_SOURCE[0]}")/lib/money.sh"
no_plan

tried=0
for attempt in 1 2 3 4 5; do
    mk_customer "returned-$attempt"
    int_account "$CUST"
    mk_ext "$CUST" 000444555005
    fund "$INT" 700
    api POST /transfer-out "$(xfer_body "$INT" "$EXT" 700)"
    is_status 201 "transfer-out of the whole balance to ...005: 201"
    tx=$(jr .transactionId)
    # Catch the moment between COMPLETED and REFUNDED (about half a second).
    if ! wait_status "$tx" 'COMPLETED|REFUNDED|FAILED' 10; then
        fail "the payout settles"
        continue
    fi
    [[ $(jr .status) == COMPLETED ]] || continue
    api DELETE "/customers/$CUST"
    del_status=$STATUS del_body=$BODY
    api --nocheck GET "/transactions/$tx"
    if [[ $(jr .status) != COMPLETED ]]; then
        # The return landed before the DELETE could be judged: try again.
        [[ $del_status == 409 ]] && pass "DELETE while the payout is COMPLETED and returning: 409 (just in time)"
        [[ $del_status == 409 ]] && { tried=1; break; }
        continue
    fi
    tried=1
    BODY=$del_body STATUS=$del_status
    is_error 409 CUSTOMER_HAS_BALANCE "DELETE while the payout is COMPLETED and about to be returned"
    settles "$tx" REFUNDED "the payout is then returned (REFUNDED)"
    balance_of "$INT"
    is "$BAL" 700 "the returned money is back on the live customer's account"
    api DELETE "/customers/$CUST"
    is_status 409 "DELETE after the return: 409 (the customer holds the money again)"
    break
done
ok "$tried" "caught a returning payout in COMPLETED within 5 attempts"

done_testing
