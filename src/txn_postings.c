/*
 * txn_postings.c: the money of each move of the lifecycle (txn_move), as
 * double-entry postings applied in the caller's database transaction.
 *
 * Transfers put their amount in the platform's in-transit account when
 * they are made (transfer.c): transfer-in from the SANDBOX account,
 * transfer-out from the customer.  Their moves take it out again:
 *
 *   transfer-in   PENDING -> COMPLETED  IN_TRANSIT -> customer
 *                 PENDING -> FAILED     IN_TRANSIT -> SANDBOX
 *   transfer-out  PENDING -> COMPLETED  IN_TRANSIT -> SANDBOX; nothing
 *                                       for a payout the bank will return
 *                                       (outcome RETURNS): it stays in
 *                                       transit until
 *                 COMPLETED -> REFUNDED IN_TRANSIT -> customer; for any
 *                                       other outcome (a completed payout
 *                                       returned by the sandbox helper)
 *                                       the money was paid out, so
 *                                       SANDBOX -> customer
 *                 PENDING -> FAILED     IN_TRANSIT -> customer
 *
 * A quote moves nothing while CREATED.  Executing it:
 *
 *   CREATED -> PROCESSING (payout) or COMPLETED (PPV address): the sender
 *       pays the sending amount S; SANDBOX (the outside world) gets the
 *       principal P and each platform its fee; on the receiving side the
 *       receiving amount R moves from SANDBOX to the receiving platform's
 *       in-transit account (payout) or the receiving customer (PPV)
 *   PROCESSING -> COMPLETED  R: receiving IN_TRANSIT -> SANDBOX; nothing
 *       for a payout the bank will return
 *   PROCESSING -> FAILED, COMPLETED -> REFUNDED  all of the execution's
 *       sending side backwards (the sender gets S back, fees included),
 *       and R from receiving IN_TRANSIT to SANDBOX while it is still there
 *       (failed, or completed to be returned: RETURNS); a payout that
 *       completed with any other outcome and is returned by the sandbox
 *       helper has paid R out already, so only its sending side goes back
 *
 * The outcome decides where a COMPLETED payout's money is, so a move's
 * postings never depend on who makes it (the worker or a sandbox helper).
 * HOLDS (003) moves as COMPLETES does; only its settlement differs (none).
 *
 * A review case approved (PENDING -> COMPLETED) credits the receiver from
 * SANDBOX.  Expiry, rejection and the rest move nothing.
 */
#include "config.h"

#include <string.h>

#include "xborder/db.h"
#include "xborder/db_accounts.h"
#include "xborder/db_ledger.h"
#include "xborder/db_quotes.h"
#include "xborder/ids.h"
#include "xborder/ledger.h"
#include "xborder/txn.h"
#include "xborder/txn_lifecycle.h"
#include "xborder/txn_moves.h"
#include "xborder/util.h"

/*
 * The id of the account of kind: the transaction's own for ACCT_CUSTOMER,
 * its in-transit shard for ACCT_IN_TRANSIT, else the platform's account of
 * that kind in the transaction's currency.
 */
static int
account_of(struct db *db, const struct txn *t, const char *kind, char id[UUID_LEN + 1])
{
	if (strcmp(kind, ACCT_CUSTOMER) == 0) {
		memcpy(id, t->internal_account_id, UUID_LEN + 1);
		return DB_OK;
	}
	if (strcmp(kind, ACCT_IN_TRANSIT) == 0)
		return db_account_transit(db, t->platform_id, t->currency, t->transit_shard, id);
	return db_account_system(db, t->platform_id, kind, t->currency, id);
}

/*
 * Moves the transaction's amount from the account of kind from to the one
 * of kind to.  DB_LIMIT leaves nothing written (db_ledger_apply).
 */
static int
move(struct db *db, const struct txn *t, const char *from, const char *to,
    const char *memo)
{
	struct posting_set s = { .n = 0 };
	char a[UUID_LEN + 1], b[UUID_LEN + 1];
	int rc;

	if ((rc = account_of(db, t, from, a)) != DB_OK ||
	    (rc = account_of(db, t, to, b)) != DB_OK)
		return rc;
	str_copy(s.txn, sizeof(s.txn), t->id);
	if (ledger_move(&s, a, b, t->currency, t->amount) < 0)
		return DB_CONFLICT;
	return db_ledger_apply(db, memo, &s, NULL);
}

/*
 * Adds the sending side of q to s, forwards (sign 1: the sender pays S,
 * the outside world gets P, the platforms their fees) or backwards
 * (sign -1).  Each platform's accounts stay balanced on their own: the
 * receiving platform's fee, when that is another platform, leaves the
 * sender's side through its SANDBOX account (the outside world) and
 * comes in through the receiving platform's.
 */
static int
sending_side(struct db *db, const struct quote *q, int sign, struct posting_set *s)
{
	char sandbox[37], fee_s[37], fee_r[37], r_sandbox[37];
	const char *cur = q->send_currency;
	int other = strcmp(q->recv_platform_id, q->platform_id) != 0 && q->fee_receiver > 0;
	int rc;

	if ((rc = db_account_system(db, q->platform_id, ACCT_SANDBOX, cur, sandbox)) != DB_OK ||
	    (rc = db_account_system(db, q->platform_id, ACCT_PLATFORM, cur, fee_s)) != DB_OK ||
	    (rc = db_account_system(db, q->recv_platform_id, ACCT_PLATFORM, cur,
	    fee_r)) != DB_OK ||
	    (other && (rc = db_account_system(db, q->recv_platform_id, ACCT_SANDBOX, cur,
	    r_sandbox)) != DB_OK))
		return rc;
	if (ledger_add(s, q->source_account_id, cur, -sign * q->send_amount) < 0 ||
	    ledger_add(s, sandbox, cur, sign * (q->principal + (other ? q->fee_receiver : 0))) < 0 ||
	    (q->fee_sender > 0 && ledger_add(s, fee_s, cur, sign * q->fee_sender) < 0) ||
	    (other && ledger_add(s, r_sandbox, cur, -sign * q->fee_receiver) < 0) ||
	    (q->fee_receiver > 0 && ledger_add(s, fee_r, cur, sign * q->fee_receiver) < 0))
		return DB_CONFLICT;
	return DB_OK;
}

/* Adds a move of R from the receiving platform's account of from_kind to to. */
static int
receiving_move(struct db *db, const struct quote *q, const char *from_kind, const char *to,
    struct posting_set *s)
{
	char from[37];
	int rc;

	if ((rc = db_account_system(db, q->recv_platform_id, from_kind, q->recv_currency,
	    from)) != DB_OK)
		return rc;
	return ledger_move(s, from, to, q->recv_currency, q->recv_amount) < 0 ? DB_CONFLICT : DB_OK;
}

int
txn_quote_credit_account(struct db *db, const struct quote *q, char dest[37])
{
	if (strcmp(q->dest_type, "EXTERNAL_ACCOUNT") == 0)
		return db_account_system(db, q->recv_platform_id, ACCT_IN_TRANSIT,
		    q->recv_currency, dest);
	return db_customer_account(db, q->recv_platform_id, q->recv_customer_id,
	    q->recv_currency, dest);
}

/* A quote executed: the sending side forwards, R credited on the receiving side. */
static int
quote_executed(struct db *db, const struct quote *q, const struct txn_move_ctx *ctx)
{
	struct posting_set s = { .n = 0 };
	char dest[37];
	int rc;

	if (ctx->credit_account != NULL)
		str_copy(dest, sizeof(dest), ctx->credit_account);
	else if ((rc = txn_quote_credit_account(db, q, dest)) != DB_OK)
		return rc;
	str_copy(s.txn, sizeof(s.txn), q->transaction_id);
	if ((rc = sending_side(db, q, 1, &s)) != DB_OK ||
	    (rc = receiving_move(db, q, ACCT_SANDBOX, dest, &s)) != DB_OK)
		return rc;
	return db_ledger_apply(db, "quote_executed", &s, ctx->shortfall);
}

/* A payout paid by the bank: R leaves the receiving side's in-transit account. */
static int
quote_paid(struct db *db, const struct quote *q)
{
	struct posting_set s = { .n = 0 };
	char sandbox[37];
	int rc;

	str_copy(s.txn, sizeof(s.txn), q->transaction_id);
	if ((rc = db_account_system(db, q->recv_platform_id, ACCT_SANDBOX, q->recv_currency,
	    sandbox)) != DB_OK ||
	    (rc = receiving_move(db, q, ACCT_IN_TRANSIT, sandbox, &s)) != DB_OK)
		return rc;
	return db_ledger_apply(db, "quote_payout_settled", &s, NULL);
}

/*
 * A payout failed or returned: the sender gets S back, fees included; R
 * goes from the receiving in-transit account back to SANDBOX when it is
 * still there (r_in_transit), else it was paid out and stays so.
 */
static int
quote_reversed(struct db *db, const struct quote *q, int r_in_transit, const char *memo)
{
	struct posting_set s = { .n = 0 };
	char sandbox[37];
	int rc;

	str_copy(s.txn, sizeof(s.txn), q->transaction_id);
	if ((rc = sending_side(db, q, -1, &s)) != DB_OK)
		return rc;
	if (r_in_transit &&
	    ((rc = db_account_system(db, q->recv_platform_id, ACCT_SANDBOX, q->recv_currency,
	    sandbox)) != DB_OK ||
	    (rc = receiving_move(db, q, ACCT_IN_TRANSIT, sandbox, &s)) != DB_OK))
		return rc;
	return db_ledger_apply(db, memo, &s, NULL);
}

/* The postings of a quote's move from t->status to to, with its quote q. */
static int
quote_postings(struct db *db, const struct txn *t, const struct quote *q, const char *to,
    const struct txn_move_ctx *ctx)
{
	if (strcmp(t->status, "CREATED") == 0)
		return strcmp(to, "EXPIRED") == 0 ? DB_OK : quote_executed(db, q, ctx);
	if (strcmp(to, "COMPLETED") == 0)
		return txn_outcome_returns(q->outcome) ? DB_OK : quote_paid(db, q);
	if (strcmp(to, "FAILED") == 0)
		return quote_reversed(db, q, 1, "quote_payout_failed");
	if (strcmp(to, "REFUNDED") == 0)
		return quote_reversed(db, q, txn_outcome_returns(q->outcome),
		    "quote_payout_returned");
	return DB_OK;
}

/* A quote's move: with the caller's quote, or its own read by the transaction. */
static int
quote_move(struct db *db, const struct txn *t, const char *to, const struct txn_move_ctx *ctx)
{
	struct quote q;
	int rc;

	if (ctx->quote != NULL)
		return quote_postings(db, t, ctx->quote, to, ctx);
	if ((rc = db_quote_by_txn(db, t->id, &q)) != DB_OK)
		return rc == DB_NOT_FOUND ? DB_ERR : rc;
	rc = quote_postings(db, t, &q, to, ctx);
	quote_free(&q);
	return rc;
}

/*
 * A transfer-out's move.  Its money is in transit while it is PENDING, and
 * while it is COMPLETED only when the bank will return it (RETURNS).
 */
static int
payout_postings(struct db *db, const struct txn *t, const char *to)
{
	int returns = txn_outcome_returns(t->outcome);

	if (strcmp(to, "COMPLETED") == 0)
		return returns ? DB_OK :
		    move(db, t, ACCT_IN_TRANSIT, ACCT_SANDBOX, "payout_settled");
	if (strcmp(to, "REFUNDED") == 0)
		return move(db, t, returns ? ACCT_IN_TRANSIT : ACCT_SANDBOX, ACCT_CUSTOMER,
		    "payout_returned");
	return move(db, t, ACCT_IN_TRANSIT, ACCT_CUSTOMER, "payout_failed");
}

int
txn_postings(struct db *db, const struct txn *t, const char *to,
    const struct txn_move_ctx *ctx)
{
	switch (txn_class(t)) {
	case TC_TRANSFER_IN:
		if (strcmp(to, "COMPLETED") == 0)
			return move(db, t, ACCT_IN_TRANSIT, ACCT_CUSTOMER, "transfer_in_settled");
		return move(db, t, ACCT_IN_TRANSIT, ACCT_SANDBOX, "transfer_in_failed");
	case TC_TRANSFER_OUT:
		return payout_postings(db, t, to);
	case TC_QUOTE_PAYOUT:
	case TC_QUOTE_PPV:
		return quote_move(db, t, to, ctx);
	case TC_REVIEW:
		if (strcmp(to, "COMPLETED") == 0)
			return move(db, t, ACCT_SANDBOX, ACCT_CUSTOMER, "review_approved");
		return DB_OK;
	default:
		return DB_INVALID_MOVE;
	}
}

/* Fills one ledger entry of payout t: amount on account. */
static void
entry(struct ledger_entry *e, const struct txn *t, const char *account, int64_t amount)
{
	str_copy(e->txn, sizeof(e->txn), t->id);
	str_copy(e->account_id, sizeof(e->account_id), account);
	str_copy(e->currency, sizeof(e->currency), t->currency);
	e->amount = amount;
}

/*
 * The postings of the batch's payouts of one platform and currency, those
 * of ts from i on that posted[] does not mark yet (they are marked): one
 * set that takes each in-transit shard's share out at once, written as
 * two entries per payout (its shard to SANDBOX), each naming its payout.
 */
static int
batch_group(struct db *db, const struct txn *ts, size_t n, size_t i, unsigned char *posted)
{
	const struct txn *g = &ts[i];
	__int128 shard[LEDGER_TRANSIT_SHARDS] = { 0 }, total = 0;
	char shard_id[LEDGER_TRANSIT_SHARDS][UUID_LEN + 1], sandbox[UUID_LEN + 1];
	struct ledger_entry e[LEDGER_MAX_ENTRIES];
	struct posting_set s = { .n = 0 };
	size_t group[TXN_BATCH_MAX], ng = 0, ne = 0;
	int rc;

	for (size_t k = i; k < n; k++) {
		const struct txn *t = &ts[k];

		if (posted[k] || strcmp(t->platform_id, g->platform_id) != 0 ||
		    strcmp(t->currency, g->currency) != 0)
			continue;
		if (t->transit_shard < 0 || t->transit_shard >= LEDGER_TRANSIT_SHARDS ||
		    t->amount <= 0 || t->amount > LEDGER_BALANCE_MAX)
			return DB_CONFLICT;
		shard[t->transit_shard] += t->amount;
		total += t->amount;
		posted[k] = 1;
		group[ng++] = k;
	}
	if (total > LEDGER_BALANCE_MAX)
		return DB_CONFLICT;
	for (int k = 0; k < LEDGER_TRANSIT_SHARDS; k++) {
		if (shard[k] == 0)
			continue;
		if ((rc = db_account_transit(db, g->platform_id, g->currency, k,
		    shard_id[k])) != DB_OK)
			return rc;
		if (ledger_add(&s, shard_id[k], g->currency, -(int64_t)shard[k]) < 0)
			return DB_CONFLICT;
	}
	if ((rc = db_account_system(db, g->platform_id, ACCT_SANDBOX, g->currency,
	    sandbox)) != DB_OK)
		return rc;
	if (ledger_add(&s, sandbox, g->currency, (int64_t)total) < 0)
		return DB_CONFLICT;
	for (size_t k = 0; k < ng; k++) {
		const struct txn *t = &ts[group[k]];

		entry(&e[ne++], t, shard_id[t->transit_shard], -t->amount);
		entry(&e[ne++], t, sandbox, t->amount);
	}
	return db_ledger_apply_split(db, "payout_settled", &s, e, ne);
}

_Static_assert(2 * TXN_BATCH_MAX <= LEDGER_MAX_ENTRIES, "two entries per payout of a batch");

int
txn_postings_batch(struct db *db, const struct txn *ts, size_t n)
{
	unsigned char posted[TXN_BATCH_MAX] = { 0 };
	int rc;

	if (n > TXN_BATCH_MAX)
		return DB_ERR;
	/*
	 * Each shard holds at least its payouts' money and the SANDBOX account
	 * at most minus all of it (ledger.h), so no sum leaves the balance
	 * limit and no balance check can fail.
	 */
	for (size_t i = 0; i < n; i++)
		if (!posted[i] && (rc = batch_group(db, ts, n, i, posted)) != DB_OK)
			return rc;
	return DB_OK;
}
