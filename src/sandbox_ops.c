/*
 * sandbox_ops.c: the sandbox's state helpers (decisions.md section 14).
 * Each call is one database transaction that takes the locks of
 * settlement (the customer row first, then a quote's row, then the
 * transaction: db_customer_lock's order), checks the helpers' table below
 * against the transaction as locked, and makes exactly one move of the
 * lifecycle by the code that would make it anyway:
 *
 *   complete  settle_complete (settle.c): COMPLETED, and for a 005 payout
 *             the refund job that returns it, as its settlement does
 *   fail      txn_move to FAILED, as a 002 settlement
 *   return    txn_move to REFUNDED, as the bank's return of a 005 payout
 *             (txn_postings.c takes the money back from wherever the
 *             outcome left it)
 *   expire    quote_expire_locked (quote_ops.c) or review_expire
 *             (review_ops.c), as time
 *
 * A helper racing the worker: the row lock orders them, the first commit
 * wins, and the other finds the transaction moved (the helper answers 409,
 * the worker's job logs it and does nothing).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "xborder/db.h"
#include "xborder/db_customers.h"
#include "xborder/db_quotes.h"
#include "xborder/db_review.h"
#include "xborder/db_transactions.h"
#include "xborder/quote_ops.h"
#include "xborder/review_ops.h"
#include "xborder/sandbox_ops.h"
#include "xborder/settle.h"
#include "xborder/txn.h"
#include "xborder/txn_lifecycle.h"
#include "xborder/txn_moves.h"

/*
 * The helpers' table (section 14): which helper moves which class of
 * transaction from which status, and to which.  Each row is a move the
 * lifecycle's table allows (txn_moves.c); anything not here is refused.
 */
static const struct {
	enum sandbox_helper	 h;
	enum txn_class		 c;
	const char		*from, *to;
} helpers[] = {
	{ SBX_COMPLETE, TC_TRANSFER_IN, "PENDING", "COMPLETED" },
	{ SBX_COMPLETE, TC_TRANSFER_OUT, "PENDING", "COMPLETED" },
	{ SBX_COMPLETE, TC_QUOTE_PAYOUT, "PROCESSING", "COMPLETED" },
	{ SBX_FAIL, TC_TRANSFER_IN, "PENDING", "FAILED" },
	{ SBX_FAIL, TC_TRANSFER_OUT, "PENDING", "FAILED" },
	{ SBX_FAIL, TC_QUOTE_PAYOUT, "PROCESSING", "FAILED" },
	{ SBX_RETURN, TC_TRANSFER_OUT, "COMPLETED", "REFUNDED" },
	{ SBX_RETURN, TC_QUOTE_PAYOUT, "COMPLETED", "REFUNDED" },
	{ SBX_EXPIRE, TC_QUOTE_PAYOUT, "CREATED", "EXPIRED" },
	{ SBX_EXPIRE, TC_QUOTE_PPV, "CREATED", "EXPIRED" },
	{ SBX_EXPIRE, TC_REVIEW, "PENDING", "EXPIRED" },
};

#define NHELPERS (sizeof(helpers) / sizeof(helpers[0]))

int
sandbox_allowed_from(enum sandbox_helper h, enum txn_class c,
    const char *from[SBX_FROM_MAX + 1])
{
	int n = 0;

	for (size_t i = 0; i < NHELPERS && n < SBX_FROM_MAX; i++)
		if (helpers[i].h == h && helpers[i].c == c)
			from[n++] = helpers[i].from;
	from[n] = NULL;
	return n;
}

const char *
sandbox_helper_to(enum sandbox_helper h, enum txn_class c, const char *from)
{
	for (size_t i = 0; i < NHELPERS; i++)
		if (helpers[i].h == h && helpers[i].c == c && strcmp(helpers[i].from, from) == 0)
			return helpers[i].to;
	return NULL;
}

struct helper_args {
	const char		*platform, *id;
	enum sandbox_helper	 h;
	struct txn		*out;
	char			*status;	/* [16] */
	enum txn_class		*cls;
	int			 lapsed;	/* expired by time under the locks */
};

/*
 * The locks, in db_customer_lock's order: the customer row (read the
 * transaction once unlocked to learn whose it is; *gone when the customer
 * was deleted), a quote's row (q, with *expired when it is past its
 * expiry; q stays zeroed for any other kind), then the transaction (t).
 */
static int
lock_all(struct db *db, const struct helper_args *x, struct txn *t, struct quote *q,
    int *expired, int *gone)
{
	int rc;

	if ((rc = db_txn_get(db, x->platform, x->id, t)) != DB_OK)
		return rc;
	rc = t->customer_id[0] != '\0' ?
	    db_customer_lock(db, x->platform, t->customer_id, NULL) : DB_OK;
	*gone = rc == DB_GONE;
	if ((rc == DB_OK || rc == DB_GONE) && strcmp(t->kind, "QUOTE") == 0 &&
	    t->quote_id != NULL)
		rc = db_quote_lock(db, x->platform, t->quote_id, q, expired);
	txn_free(t);
	if (rc != DB_OK && rc != DB_GONE)
		return rc == DB_NOT_FOUND ? DB_ERR : rc;	/* a transaction's own rows */
	return db_txn_lock(db, x->platform, x->id, t);
}

/*
 * A quote or review case past its expiry counts as EXPIRED for every rule
 * (decisions.md section 1): it is expired now, as any reader would, and
 * x->lapsed says so (the helper is then refused, its status EXPIRED).
 */
static int
lapse(struct db *db, struct helper_args *x, const struct txn *t, const struct quote *q,
    int quote_expired)
{
	int past = 0, rc = DB_OK;

	if (q->id[0] != '\0' && quote_expired && strcmp(t->status, "CREATED") == 0)
		rc = quote_expire_locked(db, q->id, t, NULL);
	else if (t->review_scenario[0] != '\0' && strcmp(t->status, "PENDING") == 0 &&
	    (rc = db_review_past_window(db, t->id, &past)) == DB_OK && past)
		rc = review_expire(db, t, NULL);
	else
		return rc;
	if (rc == DB_OK) {
		x->lapsed = 1;
		snprintf(x->status, 16, "EXPIRED");
	}
	return rc;
}

/* The one move of helper h on t (under its locks) to status to; q its quote or zeroed. */
static int
helper_move(struct db *db, enum sandbox_helper h, const struct txn *t, const struct quote *q,
    const char *to, struct txn *out)
{
	const struct quote *qp = q->id[0] != '\0' ? q : NULL;
	struct txn_move_ctx ctx = { qp, NULL, NULL };

	switch (h) {
	case SBX_COMPLETE:
		return settle_complete(db, t, qp, out);
	case SBX_EXPIRE:
		if (qp != NULL)
			return quote_expire_locked(db, qp->id, t, out);
		return review_expire(db, t, out);
	default:
		return txn_move(db, t, to, &ctx, out);
	}
}

static int
helper_tx(struct db *db, void *arg)
{
	struct helper_args *x = arg;
	struct quote q;
	struct txn t;
	const char *to;
	int rc, expired = 0, gone = 0;

	txn_free(x->out);	/* read by an attempt that was rolled back */
	x->lapsed = 0;
	memset(&q, 0, sizeof(q));
	memset(&t, 0, sizeof(t));
	if ((rc = lock_all(db, x, &t, &q, &expired, &gone)) != DB_OK)
		goto out;
	*x->cls = txn_class(&t);
	snprintf(x->status, 16, "%s", t.status);
	if ((rc = lapse(db, x, &t, &q, expired)) != DB_OK || x->lapsed)
		goto out;
	if ((to = sandbox_helper_to(x->h, *x->cls, t.status)) == NULL)
		rc = DB_CONFLICT;
	else if (gone && x->h == SBX_RETURN)
		rc = DB_GONE;	/* a return credits the customer, who is gone */
	else
		rc = helper_move(db, x->h, &t, &q, to, x->out);
out:
	if (rc != DB_OK)
		txn_free(x->out);	/* the answer is the transaction as committed */
	txn_free(&t);
	quote_free(&q);
	return rc;
}

int
sandbox_move(struct db *db, const char *platform, const char *id,
    enum sandbox_helper h, struct txn *out, char status[16], enum txn_class *cls)
{
	struct helper_args x = { platform, id, h, out, status, cls, 0 };
	int rc;

	memset(out, 0, sizeof(*out));
	status[0] = '\0';
	*cls = TC_UNKNOWN;
	rc = db_transact(db, helper_tx, &x);
	return rc == DB_OK && x.lapsed ? DB_CONFLICT : rc;
}
