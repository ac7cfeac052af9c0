/*
 * Unit tests of ledger_expect.c: where a transaction's money is by kind and
 * status.  Every status of every kind conserves money per platform and
 * currency; the rows of a few cases are written out from the contract's
 * formulas; statuses that hold nothing give no row; unknown ones are
 * refused; ledger_expect_same ignores order and sees a cent's difference.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "xborder/ledger_expect.h"
#include "xborder/txn_moves.h"

static const char *const statuses[] = { "CREATED", "PENDING", "PROCESSING", "COMPLETED",
	"REJECTED", "FAILED", "REFUNDED", "EXPIRED" };
#define NSTATUS (sizeof(statuses) / sizeof(statuses[0]))

#define PA "11111111-1111-4111-8111-111111111111"
#define PB "22222222-2222-4222-8222-222222222222"
#define CA "33333333-3333-4333-8333-333333333333"
#define CB "44444444-4444-4444-8444-444444444444"

/* A transaction of class c between two platforms (quotes) or of PA. */
static struct expect_txn
sample(enum txn_class c, const char *status, int returns, const char *recv_platform)
{
	struct expect_txn t = {
		.c = c, .status = status, .returns = returns, .platform = PA,
		.currency = "USD", .amount = 1234, .shard = 5, .customer = CA,
		.recv_platform = recv_platform, .send_currency = "USD", .recv_currency = "EUR",
		.sender = CA, .receiver = CB, .send_amount = 10000, .principal = 9900,
		.fee_sender = 60, .fee_receiver = 40, .recv_amount = 9108,
	};
	return t;
}

/* The statuses a class can be in: its initial one and every move's target. */
static int
reachable(enum txn_class c, const char *status)
{
	const char *from[8];

	return strcmp(txn_initial_status(c), status) == 0 ||
	    txn_moves_into(c, status, from, 8) > 0;
}

Test(ledger_expect, every_reachable_status_conserves_money_per_platform_and_currency)
{
	static const char *const recv[] = { PA, PB };

	for (enum txn_class c = 0; c < TC__MAX; c++)
		for (size_t i = 0; i < NSTATUS; i++)
			for (int ret = 0; ret < 2; ret++)
				for (size_t p = 0; p < 2; p++) {
					struct expect_txn t = sample(c, statuses[i], ret, recv[p]);
					struct expect_row r[EXPECT_MAX_ROWS];
					int n = ledger_expect(&t, r);

					if (!reachable(c, statuses[i])) {
						cr_expect_eq(n, -1, "%s %s: not refused",
						    txn_class_name(c), statuses[i]);
						continue;
					}
					cr_assert_geq(n, 0, "%s %s refused", txn_class_name(c),
					    statuses[i]);
					for (int a = 0; a < n; a++) {
						__int128 sum = 0;

						for (int b = 0; b < n; b++)
							if (strcmp(r[a].platform, r[b].platform) == 0 &&
							    strcmp(r[a].currency, r[b].currency) == 0)
								sum += r[b].amount;
						cr_expect(sum == 0, "%s %s (returns %d): %s %s does not sum to 0",
						    txn_class_name(c), statuses[i], ret, r[a].platform,
						    r[a].currency);
						cr_expect_neq(r[a].amount, 0);
					}
				}
}

Test(ledger_expect, terminal_statuses_that_gave_the_money_back_hold_nothing)
{
	static const struct {
		enum txn_class	 c;
		const char	*status;
	} none[] = {
		{ TC_TRANSFER_IN, "FAILED" }, { TC_TRANSFER_OUT, "FAILED" },
		{ TC_TRANSFER_OUT, "REFUNDED" }, { TC_QUOTE_PAYOUT, "CREATED" },
		{ TC_QUOTE_PAYOUT, "EXPIRED" }, { TC_QUOTE_PAYOUT, "FAILED" },
		{ TC_QUOTE_PAYOUT, "REFUNDED" }, { TC_QUOTE_PPV, "CREATED" },
		{ TC_QUOTE_PPV, "EXPIRED" }, { TC_QUOTE_IN, "COMPLETED" },
		{ TC_REVIEW, "PENDING" }, { TC_REVIEW, "REJECTED" }, { TC_REVIEW, "EXPIRED" },
	};

	for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++)
		for (int ret = 0; ret < 2; ret++) {
			struct expect_txn t = sample(none[i].c, none[i].status, ret, PB);
			struct expect_row r[EXPECT_MAX_ROWS];

			cr_expect_eq(ledger_expect(&t, r), 0, "%s %s", txn_class_name(none[i].c),
			    none[i].status);
		}
}

/* 1 when r (n rows) has the row (platform, kind, owner, currency, amount). */
static int
has(const struct expect_row *r, int n, const char *platform, const char *kind,
    const char *owner, const char *currency, int64_t amount)
{
	for (int i = 0; i < n; i++)
		if (strcmp(r[i].platform, platform) == 0 && strcmp(r[i].kind, kind) == 0 &&
		    strcmp(r[i].owner, owner) == 0 && strcmp(r[i].currency, currency) == 0 &&
		    r[i].amount == amount)
			return 1;
	return 0;
}

Test(ledger_expect, transfers_by_status_and_outcome)
{
	struct expect_row r[EXPECT_MAX_ROWS];
	struct expect_txn t = sample(TC_TRANSFER_OUT, "PENDING", 0, PA);
	int n = ledger_expect(&t, r);

	cr_expect_eq(n, 2);
	cr_expect(has(r, n, PA, "CUSTOMER", CA, "USD", -1234));
	cr_expect(has(r, n, PA, "IN_TRANSIT", "-5", "USD", 1234));
	t.status = "COMPLETED";
	n = ledger_expect(&t, r);
	cr_expect(n == 2 && has(r, n, PA, "SANDBOX", "-", "USD", 1234), "paid out: SANDBOX");
	t.returns = 1;
	n = ledger_expect(&t, r);
	cr_expect(n == 2 && has(r, n, PA, "IN_TRANSIT", "-5", "USD", 1234),
	    "to be returned: still in transit");
	t = sample(TC_TRANSFER_IN, "PENDING", 0, PA);
	t.shard = 0;
	n = ledger_expect(&t, r);
	cr_expect(n == 2 && has(r, n, PA, "SANDBOX", "-", "USD", -1234) &&
	    has(r, n, PA, "IN_TRANSIT", "-", "USD", 1234), "shard 0 is the account owned by -");
	t.status = "COMPLETED";
	n = ledger_expect(&t, r);
	cr_expect(n == 2 && has(r, n, PA, "CUSTOMER", CA, "USD", 1234));
}

Test(ledger_expect, a_quote_to_another_platforms_ppv_address)
{
	struct expect_row r[EXPECT_MAX_ROWS];
	struct expect_txn t = sample(TC_QUOTE_PPV, "COMPLETED", 0, PB);
	int n = ledger_expect(&t, r);

	/* S = P + fs + fr; the receiving fee passes through both SANDBOX accounts. */
	cr_expect_eq(n, 7);
	cr_expect(has(r, n, PA, "CUSTOMER", CA, "USD", -10000));
	cr_expect(has(r, n, PA, "SANDBOX", "-", "USD", 9900 + 40));
	cr_expect(has(r, n, PA, "PLATFORM", "-", "USD", 60));
	cr_expect(has(r, n, PB, "SANDBOX", "-", "USD", -40));
	cr_expect(has(r, n, PB, "PLATFORM", "-", "USD", 40));
	cr_expect(has(r, n, PB, "SANDBOX", "-", "EUR", -9108));
	cr_expect(has(r, n, PB, "CUSTOMER", CB, "EUR", 9108));
}

Test(ledger_expect, a_payout_quote_of_one_platform)
{
	struct expect_row r[EXPECT_MAX_ROWS];
	struct expect_txn t = sample(TC_QUOTE_PAYOUT, "PROCESSING", 0, PA);
	int n = ledger_expect(&t, r);

	/* Both fees to the one platform's fee account; R in transit (shard 0). */
	cr_expect_eq(n, 5);
	cr_expect(has(r, n, PA, "PLATFORM", "-", "USD", 100));
	cr_expect(has(r, n, PA, "SANDBOX", "-", "USD", 9900));
	cr_expect(has(r, n, PA, "IN_TRANSIT", "-", "EUR", 9108));
	cr_expect(has(r, n, PA, "SANDBOX", "-", "EUR", -9108));
	t.status = "COMPLETED";
	n = ledger_expect(&t, r);
	cr_expect(n == 3 && !has(r, n, PA, "IN_TRANSIT", "-", "EUR", 9108), "paid: nothing in transit");
}

Test(ledger_expect, same_ignores_order_and_sees_a_cent)
{
	struct expect_row a[EXPECT_MAX_ROWS], b[EXPECT_MAX_ROWS];
	struct expect_txn t = sample(TC_QUOTE_PPV, "COMPLETED", 0, PB);
	int n = ledger_expect(&t, a);

	for (int i = 0; i < n; i++)
		b[i] = a[n - 1 - i];
	cr_expect(ledger_expect_same(a, (size_t)n, b, (size_t)n));
	b[2].amount += 1;
	cr_expect(!ledger_expect_same(a, (size_t)n, b, (size_t)n));
	cr_expect(!ledger_expect_same(a, (size_t)n, b, (size_t)n - 1), "a row missing");
}
