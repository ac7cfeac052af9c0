/*
 * ledger_expect.c: where a transaction's money is, by its kind and status.
 *
 *   transfer-in    PENDING    SANDBOX -A, its in-transit shard +A
 *                  COMPLETED  SANDBOX -A, the customer +A
 *   transfer-out   PENDING    the customer -A, its in-transit shard +A
 *                  COMPLETED  the customer -A, SANDBOX +A; a payout the
 *                             bank will return (RETURNS): the shard +A
 *   review case    COMPLETED  SANDBOX -A, the customer +A
 *   quote          executed (PROCESSING, COMPLETED): the sending side,
 *                  the sender -S, its platform's SANDBOX +P and fee
 *                  account +fs, the receiving platform's fee account +fr
 *                  (through both SANDBOX accounts when that is another
 *                  platform); then R from the receiving platform's
 *                  SANDBOX to the receiving customer (PPV), or to its
 *                  in-transit account (shard 0) while the payout is
 *                  PROCESSING or completed to be returned
 *
 * Every other status holds nothing: the money went back (FAILED, REFUNDED)
 * or never moved (CREATED, EXPIRED, REJECTED).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "xborder/ledger.h"
#include "xborder/ledger_expect.h"

struct rows {
	struct expect_row	*r;
	int			 n, bad;
};

/* Adds amount to the account's row (a new row when it has none). */
static void
add(struct rows *s, const char *platform, const char *kind, const char *owner,
    const char *currency, int64_t amount)
{
	struct expect_row *e;
	__int128 sum;

	if (amount == 0)
		return;
	for (int i = 0; i < s->n; i++) {
		e = &s->r[i];
		if (strcmp(e->platform, platform) == 0 && strcmp(e->kind, kind) == 0 &&
		    strcmp(e->owner, owner) == 0 && strcmp(e->currency, currency) == 0) {
			sum = (__int128)e->amount + amount;
			if (sum > LEDGER_BALANCE_MAX || sum < -LEDGER_BALANCE_MAX)
				s->bad = 1;
			else
				e->amount = (int64_t)sum;
			return;
		}
	}
	if (s->n == EXPECT_MAX_ROWS) {
		s->bad = 1;
		return;
	}
	e = &s->r[s->n++];
	snprintf(e->platform, sizeof(e->platform), "%s", platform);
	snprintf(e->kind, sizeof(e->kind), "%s", kind);
	snprintf(e->owner, sizeof(e->owner), "%s", owner);
	snprintf(e->currency, sizeof(e->currency), "%s", currency);
	e->amount = amount;
}

/* Drops the rows whose sum came to 0. */
static int
finish(struct rows *s)
{
	int k = 0;

	if (s->bad)
		return -1;
	for (int i = 0; i < s->n; i++)
		if (s->r[i].amount != 0)
			s->r[k++] = s->r[i];
	return k;
}

static int
is(const char *status, const char *what)
{
	return strcmp(status, what) == 0;
}

/* A transfer's or review case's amount from account kind from to kind to. */
static void
move(struct rows *s, const struct expect_txn *t, const char *from, const char *to)
{
	char shard[8];
	const char *kinds[2] = { from, to };

	snprintf(shard, sizeof(shard), t->shard == 0 ? "-" : "-%d", t->shard);
	for (int i = 0; i < 2; i++) {
		const char *owner = strcmp(kinds[i], "CUSTOMER") == 0 ? t->customer :
		    strcmp(kinds[i], "IN_TRANSIT") == 0 ? shard : "-";

		add(s, t->platform, kinds[i], owner, t->currency, i == 0 ? -t->amount : t->amount);
	}
}

/* A quote's sending side, as executed. */
static void
sending_side(struct rows *s, const struct expect_txn *t)
{
	const char *c = t->send_currency;
	int other = strcmp(t->recv_platform, t->platform) != 0;

	add(s, t->platform, "CUSTOMER", t->sender, c, -t->send_amount);
	add(s, t->platform, "SANDBOX", "-", c, t->principal + (other ? t->fee_receiver : 0));
	add(s, t->platform, "PLATFORM", "-", c, t->fee_sender);
	if (other)
		add(s, t->recv_platform, "SANDBOX", "-", c, -t->fee_receiver);
	add(s, t->recv_platform, "PLATFORM", "-", c, t->fee_receiver);
}

static int
quote(struct rows *s, const struct expect_txn *t)
{
	int ppv = t->c == TC_QUOTE_PPV;

	if (is(t->status, "CREATED") || is(t->status, "EXPIRED") ||
	    (!ppv && (is(t->status, "FAILED") || is(t->status, "REFUNDED"))))
		return 0;
	if (!(is(t->status, "COMPLETED") || (!ppv && is(t->status, "PROCESSING"))))
		return -1;
	sending_side(s, t);
	/* Paid out by the bank: R went from SANDBOX to the outside world and back. */
	if (!ppv && is(t->status, "COMPLETED") && !t->returns)
		return 0;
	add(s, t->recv_platform, "SANDBOX", "-", t->recv_currency, -t->recv_amount);
	add(s, t->recv_platform, ppv ? "CUSTOMER" : "IN_TRANSIT", ppv ? t->receiver : "-",
	    t->recv_currency, t->recv_amount);
	return 0;
}

int
ledger_expect(const struct expect_txn *t, struct expect_row out[EXPECT_MAX_ROWS])
{
	struct rows s = { out, 0, 0 };
	int rc = 0;

	switch (t->c) {
	case TC_TRANSFER_IN:
		if (is(t->status, "PENDING"))
			move(&s, t, "SANDBOX", "IN_TRANSIT");
		else if (is(t->status, "COMPLETED"))
			move(&s, t, "SANDBOX", "CUSTOMER");
		else if (!is(t->status, "FAILED"))
			rc = -1;
		break;
	case TC_TRANSFER_OUT:
		if (is(t->status, "PENDING") || (is(t->status, "COMPLETED") && t->returns))
			move(&s, t, "CUSTOMER", "IN_TRANSIT");
		else if (is(t->status, "COMPLETED"))
			move(&s, t, "CUSTOMER", "SANDBOX");
		else if (!is(t->status, "FAILED") && !is(t->status, "REFUNDED"))
			rc = -1;
		break;
	case TC_REVIEW:
		if (is(t->status, "COMPLETED"))
			move(&s, t, "SANDBOX", "CUSTOMER");
		else if (!is(t->status, "PENDING") && !is(t->status, "REJECTED") &&
		    !is(t->status, "EXPIRED"))
			rc = -1;
		break;
	case TC_QUOTE_PAYOUT:
	case TC_QUOTE_PPV:
		rc = quote(&s, t);
		break;
	case TC_QUOTE_IN:
		rc = is(t->status, "COMPLETED") ? 0 : -1;
		break;
	default:
		rc = -1;
	}
	return rc < 0 ? -1 : finish(&s);
}

/* 1 when every non-zero row of a has its account in b with the same net. */
static int
covered(const struct expect_row *a, size_t n, const struct expect_row *b, size_t m)
{
	for (size_t i = 0; i < n; i++) {
		int found = a[i].amount == 0;

		for (size_t k = 0; k < m && !found; k++)
			found = strcmp(a[i].platform, b[k].platform) == 0 &&
			    strcmp(a[i].kind, b[k].kind) == 0 &&
			    strcmp(a[i].owner, b[k].owner) == 0 &&
			    strcmp(a[i].currency, b[k].currency) == 0 &&
			    a[i].amount == b[k].amount;
		if (!found)
			return 0;
	}
	return 1;
}

int
ledger_expect_same(const struct expect_row *a, size_t n, const struct expect_row *b,
    size_t m)
{
	return covered(a, n, b, m) && covered(b, m, a, n);
}
