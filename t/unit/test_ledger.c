/* Unit tests of the posting builder: balanced sets only, lock order. */
#include <criterion/criterion.h>
#include <string.h>

#include "xborder/ledger.h"

#define A "00000000-0000-4000-8000-00000000000a"
#define B "00000000-0000-4000-8000-00000000000b"
#define C "00000000-0000-4000-8000-00000000000c"

Test(ledger, move_is_balanced)
{
	struct posting_set s = { .n = 0 };

	cr_assert_eq(ledger_move(&s, A, B, "USD", 500), 0);
	cr_assert_eq(s.n, 2);
	cr_assert_eq(s.p[0].amount, -500);
	cr_assert_eq(s.p[1].amount, 500);
	cr_assert_eq(ledger_balanced(&s), 0);
}

Test(ledger, unbalanced_is_rejected)
{
	struct posting_set s = { .n = 0 };

	cr_assert_eq(ledger_add(&s, A, "USD", -500), 0);
	cr_assert_eq(ledger_add(&s, B, "USD", 499), 0);
	cr_assert_eq(ledger_balanced(&s), -1);
	cr_assert_eq(ledger_add(&s, C, "USD", 1), 0);
	cr_assert_eq(ledger_balanced(&s), 0);
}

Test(ledger, balance_is_per_currency)
{
	struct posting_set s = { .n = 0 };

	/* 500 USD out and 500 EUR in sums to zero numerically, not per currency. */
	cr_assert_eq(ledger_add(&s, A, "USD", -500), 0);
	cr_assert_eq(ledger_add(&s, B, "EUR", 500), 0);
	cr_assert_eq(ledger_balanced(&s), -1);
}

Test(ledger, single_posting_is_not_a_set)
{
	struct posting_set s = { .n = 0 };

	cr_assert_eq(ledger_balanced(&s), -1);
	cr_assert_eq(ledger_add(&s, A, "USD", 1), 0);
	cr_assert_eq(ledger_balanced(&s), -1);
}

Test(ledger, overflow_cannot_hide_imbalance)
{
	struct posting_set s = { .n = 0 };

	/* In 64 bits these would wrap around to zero. */
	cr_assert_eq(ledger_add(&s, A, "USD", INT64_MAX), 0);
	cr_assert_eq(ledger_add(&s, B, "USD", INT64_MAX), 0);
	cr_assert_eq(ledger_add(&s, C, "USD", 2), 0);
	cr_assert_eq(ledger_balanced(&s), -1);
}

Test(ledger, rejects_bad_postings)
{
	struct posting_set s = { .n = 0 };

	cr_assert_eq(ledger_add(&s, A, "USD", 0), -1, "zero amount");
	cr_assert_eq(ledger_add(&s, A, "USD", INT64_MIN), -1, "cannot be negated");
	cr_assert_eq(ledger_add(&s, "not-a-uuid", "USD", 1), -1);
	cr_assert_eq(ledger_add(&s, A, "usd", 1), -1);
	cr_assert_eq(ledger_move(&s, A, A, "USD", 1), -1, "same account");
	cr_assert_eq(ledger_move(&s, A, B, "USD", 0), -1);
	cr_assert_eq(ledger_move(&s, A, B, "USD", -5), -1);
	cr_assert_eq(s.n, 0, "nothing half-added");
	for (int i = 0; i < LEDGER_MAX_POSTINGS / 2; i++)
		cr_assert_eq(ledger_move(&s, A, B, "USD", 1), 0);
	cr_assert_eq(ledger_move(&s, A, B, "USD", 1), -1, "full");
	cr_assert_eq(s.n, LEDGER_MAX_POSTINGS);
}

Test(ledger, lock_order_is_sorted_and_distinct)
{
	struct posting_set s = { .n = 0 };
	size_t order[LEDGER_MAX_POSTINGS], n;

	cr_assert_eq(ledger_move(&s, C, A, "USD", 5), 0);
	cr_assert_eq(ledger_move(&s, B, C, "USD", 3), 0);
	n = ledger_lock_order(&s, order);
	cr_assert_eq(n, 3);
	cr_assert_str_eq(s.p[order[0]].account_id, A);
	cr_assert_str_eq(s.p[order[1]].account_id, B);
	cr_assert_str_eq(s.p[order[2]].account_id, C);
}

Test(ledger, net_per_account)
{
	struct posting_set s = { .n = 0 };
	int overflow;

	cr_assert_eq(ledger_move(&s, C, A, "USD", 5), 0);
	cr_assert_eq(ledger_move(&s, B, C, "USD", 3), 0);
	cr_assert_eq(ledger_net(&s, C, &overflow), -2);
	cr_assert_eq(overflow, 0);
	cr_assert_eq(ledger_net(&s, A, &overflow), 5);
	cr_assert_eq(ledger_net(&s, B, &overflow), -3);
}

/*
 * The funds rule: what a set takes from an account is its debits alone,
 * whatever the set credits back to it (a quote paid to the sender's own
 * address in the same currency: S out, R back in).
 */
Test(ledger, taken_counts_every_debit)
{
	struct posting_set s = { .n = 0 };
	int overflow;

	cr_assert_eq(ledger_add(&s, A, "USD", -500000), 0);
	cr_assert_eq(ledger_add(&s, A, "USD", 493273), 0);
	cr_assert_eq(ledger_add(&s, B, "USD", 6727), 0);
	cr_assert_eq(ledger_balanced(&s), 0);
	cr_assert_eq(ledger_net(&s, A, &overflow), -6727);
	cr_assert_eq(ledger_taken(&s, A, &overflow), 500000, "the whole debit, not the net");
	cr_assert_eq(overflow, 0);
	cr_assert_eq(ledger_taken(&s, B, &overflow), 0, "a credited account gives nothing");
	cr_assert_eq(ledger_funds_cover(10000, ledger_taken(&s, A, &overflow), 0), 0,
	    "10,000 held does not cover 500,000 taken, though the net is -6,727");
	cr_assert_eq(ledger_funds_cover(500000, 500000, 0), 1, "exactly the balance is covered");
	cr_assert_eq(ledger_funds_cover(499999, 500000, 0), 0);
	cr_assert_eq(ledger_funds_cover(-5, 500000, 1), 1, "an account that may go negative");
	cr_assert_eq(ledger_funds_cover(0, 0, 0), 1, "nothing taken");
}

Test(ledger, taken_overflow)
{
	struct posting_set s = { .n = 0 };
	int overflow;

	cr_assert_eq(ledger_add(&s, A, "USD", -INT64_MAX), 0);
	cr_assert_eq(ledger_add(&s, A, "USD", -2), 0);
	(void)ledger_taken(&s, A, &overflow);
	cr_assert_eq(overflow, 1, "debits past int64 are reported, not wrapped");
}

/* Property: any sequence of moves yields a balanced set whose nets sum to 0. */
Test(ledger, random_moves_create_no_money)
{
	const char *ids[] = { A, B, C };
	unsigned seed = 12345;

	for (int round = 0; round < 1000; round++) {
		struct posting_set s = { .n = 0 };
		__int128 total = 0;
		int overflow;

		for (int k = 0; k < LEDGER_MAX_POSTINGS / 2; k++) {
			seed = seed * 1103515245u + 12345u;
			int from = (int)(seed >> 16) % 3, to = (from + 1 + (int)((seed >> 8) % 2)) % 3;
			int64_t amount = (int64_t)(seed % 1000000) + 1;

			cr_assert_eq(ledger_move(&s, ids[from], ids[to], "USD", amount), 0);
		}
		cr_assert_eq(ledger_balanced(&s), 0);
		for (int i = 0; i < 3; i++)
			total += ledger_net(&s, ids[i], &overflow);
		cr_assert(total == 0);
	}
}

/* ledger_balance_after: both bounds, without overflow. */

#define LIM LEDGER_BALANCE_MAX

/* The result of ledger_balance_after, with *out checked on LEDGER_OK. */
static enum ledger_bound
after(int64_t balance, int64_t net, int neg)
{
	int64_t out = 12345;
	enum ledger_bound b = ledger_balance_after(balance, net, neg, &out);

	if (b == LEDGER_OK)
		cr_assert_eq(out, balance + net, "%lld + %lld gave %lld",
		    (long long)balance, (long long)net, (long long)out);
	else
		cr_assert_eq(out, 12345, "out written although the change was refused");
	return b;
}

Test(ledger, balance_limit_is_ten_to_the_eighteen_minus_one)
{
	cr_assert_eq(LEDGER_BALANCE_MAX, INT64_C(1000000000000000000) - 1);
	cr_assert_lt(LEDGER_AMOUNT_CFG_MAX, LEDGER_BALANCE_MAX);
}

Test(ledger, balance_after_within_the_limit)
{
	cr_assert_eq(after(0, 0, 0), LEDGER_OK);
	cr_assert_eq(after(0, 1, 0), LEDGER_OK);
	cr_assert_eq(after(1, -1, 0), LEDGER_OK);
	cr_assert_eq(after(0, LIM, 0), LEDGER_OK);
	cr_assert_eq(after(LIM - 1, 1, 0), LEDGER_OK);
	cr_assert_eq(after(LIM, -LIM, 0), LEDGER_OK);
	cr_assert_eq(after(0, -LIM, 1), LEDGER_OK);
	cr_assert_eq(after(-LIM + 1, -1, 1), LEDGER_OK);
	cr_assert_eq(after(-LIM, LIM, 1), LEDGER_OK);
	cr_assert_eq(after(-LIM, 2 * LIM, 1), LEDGER_OK);
	cr_assert_eq(after(LIM, -2 * LIM, 1), LEDGER_OK);
}

Test(ledger, balance_after_past_the_upper_limit)
{
	cr_assert_eq(after(LIM, 1, 0), LEDGER_PAST_LIMIT);
	cr_assert_eq(after(LIM, 1, 1), LEDGER_PAST_LIMIT);
	cr_assert_eq(after(0, LIM + 1, 0), LEDGER_PAST_LIMIT);
	cr_assert_eq(after(1, LIM, 0), LEDGER_PAST_LIMIT);
	cr_assert_eq(after(LIM - 1, 2, 0), LEDGER_PAST_LIMIT);
	cr_assert_eq(after(0, INT64_MAX, 0), LEDGER_PAST_LIMIT);
	/* Past int64: the old check's case, and beyond it. */
	cr_assert_eq(after(INT64_MAX, 1, 0), LEDGER_PAST_LIMIT);
	cr_assert_eq(after(INT64_MAX, INT64_MAX, 0), LEDGER_PAST_LIMIT);
	cr_assert_eq(after(LIM, INT64_MAX, 1), LEDGER_PAST_LIMIT);
}

Test(ledger, balance_after_past_the_lower_limit)
{
	/* The sandbox account may go negative, but not past -LIM. */
	cr_assert_eq(after(-LIM, -1, 1), LEDGER_PAST_LIMIT);
	cr_assert_eq(after(0, -LIM - 1, 1), LEDGER_PAST_LIMIT);
	cr_assert_eq(after(-1, -LIM, 1), LEDGER_PAST_LIMIT);
	cr_assert_eq(after(-LIM + 1, -2, 1), LEDGER_PAST_LIMIT);
	cr_assert_eq(after(0, INT64_MIN, 1), LEDGER_PAST_LIMIT);
	/* Past int64 (undefined behaviour in plain C): the case. */
	cr_assert_eq(after(INT64_MIN, -1, 1), LEDGER_PAST_LIMIT);
	cr_assert_eq(after(-INT64_C(8999999999999999991), -INT64_C(999999999999999999), 1),
	    LEDGER_PAST_LIMIT);
	cr_assert_eq(after(INT64_MIN, INT64_MIN, 1), LEDGER_PAST_LIMIT);
	cr_assert_eq(after(-LIM, INT64_MIN, 1), LEDGER_PAST_LIMIT);
}

Test(ledger, balance_after_below_zero)
{
	cr_assert_eq(after(0, -1, 0), LEDGER_BELOW_ZERO);
	cr_assert_eq(after(5, -6, 0), LEDGER_BELOW_ZERO);
	cr_assert_eq(after(LIM, -LIM - 1, 0), LEDGER_BELOW_ZERO);
	/* Short of money comes first, even far past the lower limit. */
	cr_assert_eq(after(0, -LIM - 1, 0), LEDGER_BELOW_ZERO);
	cr_assert_eq(after(0, INT64_MIN, 0), LEDGER_BELOW_ZERO);
	cr_assert_eq(after(0, -1, 1), LEDGER_OK);
}

Test(ledger, balance_after_outside_may_move_back)
{
	/* Older data outside the limit: moving toward zero is allowed ... */
	cr_assert_eq(after(LIM + 10, -1, 0), LEDGER_OK);
	cr_assert_eq(after(INT64_MAX, -1, 0), LEDGER_OK);
	cr_assert_eq(after(-LIM - 10, 1, 1), LEDGER_OK);
	cr_assert_eq(after(INT64_MIN, 1, 1), LEDGER_OK);
	cr_assert_eq(after(LIM + 10, 0, 0), LEDGER_OK);
	/* ... further out is not. */
	cr_assert_eq(after(LIM + 10, 1, 0), LEDGER_PAST_LIMIT);
	cr_assert_eq(after(-LIM - 10, -1, 1), LEDGER_PAST_LIMIT);
}
