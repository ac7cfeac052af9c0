/*
 * quote_ops.c: a quote's life (decisions.md section 9).  Making one
 * records it with its transaction in CREATED; executing it takes both
 * customers' row locks (lower id first), checks the quote under its own
 * lock and moves its transaction (txn_move: the execution's postings, the
 * status, the event); expiry moves an open quote past its time to
 * EXPIRED (quote_expire_locked, shared with the sandbox helper `expire`).
 * The SQL is db_quotes.c's.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "xborder/db.h"
#include "xborder/db_accounts.h"
#include "xborder/db_customers.h"
#include "xborder/db_jobs.h"
#include "xborder/db_quotes.h"
#include "xborder/db_transactions.h"
#include "xborder/ids.h"
#include "xborder/quote_ops.h"
#include "xborder/txn.h"
#include "xborder/txn_lifecycle.h"

/* A payout is settled by the worker after this long. */
#define PAYOUT_DELAY_MS 300

/* The most due quotes one round of quotes_expire_due() takes. */
#define EXPIRE_BATCH 100

struct create_args {
	const struct quote	*q;
	struct quote		*out;
};

static int
create_tx(struct db *db, void *arg)
{
	struct create_args *c = arg;
	const struct quote *q = c->q;
	char id[UUID_LEN + 1], *pcid = NULL;
	struct txn t;
	int rc;

	if ((rc = db_customer_lock(db, q->platform_id, q->customer_id, &pcid)) != DB_OK)
		return rc == DB_NOT_FOUND ? DB_GONE : rc;
	if ((rc = db_quote_insert(db, q, pcid, id, &t)) == DB_OK &&
	    (rc = txn_created(db, &t, NULL)) == DB_OK)
		rc = db_quote_get(db, q->platform_id, id, c->out);
	free(pcid);
	return rc;
}

int
quote_create(struct db *db, const struct quote *q, struct quote *out)
{
	struct create_args c = { q, out };

	memset(out, 0, sizeof(*out));
	return db_transact(db, create_tx, &c);
}

struct exec_args {
	const char		*platform, *id;
	struct txn		*out;
	enum quote_refusal	*why;
	struct ledger_short	*shortfall;
};

/* Locks the two customers of q, lower id first; DB_GONE when one is deleted. */
static int
lock_customers(struct db *db, const struct quote *q, char **recv_pcid)
{
	const char *a = q->customer_id, *b = q->recv_customer_id;
	const char *pa = q->platform_id, *pb = q->recv_platform_id;
	int rc, swap = strcmp(a, b) > 0, same = strcmp(a, b) == 0;

	*recv_pcid = NULL;
	if (same)
		return db_customer_lock(db, pa, a, recv_pcid);
	if ((rc = db_customer_lock(db, swap ? pb : pa, swap ? b : a,
	    swap ? recv_pcid : NULL)) != DB_OK)
		goto out;
	rc = db_customer_lock(db, swap ? pa : pb, swap ? a : b, swap ? NULL : recv_pcid);
out:
	if (rc == DB_NOT_FOUND)
		rc = DB_GONE;
	return rc;
}

/*
 * The locks of an execution, in the lock order: both customers, then the
 * payout's external account (its owner, the receiving customer, is locked:
 * a deletion waits for this), then the quote itself (q), checked for the
 * rules of execution (*why).  The quote's other values are its snapshot
 * and hold.
 */
static int
lock_for_execution(struct db *db, struct exec_args *x, struct quote *q, char **recv_pcid)
{
	int rc, expired;

	/* Customers first (the lock order), so read the quote once unlocked. */
	if ((rc = db_quote_get(db, x->platform, x->id, q)) != DB_OK)
		return rc;
	rc = lock_customers(db, q, recv_pcid);
	if (rc == DB_OK && strcmp(q->dest_type, "EXTERNAL_ACCOUNT") == 0 &&
	    (rc = db_external_lock(db, q->recv_platform_id, q->dest_ref)) != DB_OK) {
		if (rc == DB_GONE || rc == DB_NOT_FOUND) {
			*x->why = QUOTE_ACCOUNT_GONE;
			rc = DB_GONE;
		}
	}
	quote_free(q);
	if (rc != DB_OK || (rc = db_quote_lock(db, x->platform, x->id, q, &expired)) != DB_OK)
		return rc;
	if (q->executed_at[0] != '\0')
		*x->why = QUOTE_ALREADY_EXECUTED;
	else if (expired || strcmp(q->status, "EXPIRED") == 0)
		*x->why = QUOTE_EXPIRED;
	else if (strcmp(q->status, "BLOCKED") == 0)
		*x->why = QUOTE_BLOCKED;
	return *x->why == QUOTE_OK ? DB_OK : DB_CONFLICT;
}

static int
execute_tx(struct db *db, void *arg)
{
	struct exec_args *x = arg;
	struct txn_move_ctx ctx = { NULL, NULL, x->shortfall };
	struct quote q;
	struct txn t, in;
	char *recv_pcid = NULL, dest[37];
	int rc, ext;

	memset(&t, 0, sizeof(t));
	memset(&q, 0, sizeof(q));
	txn_free(x->out);	/* what an attempt that rolled back read */
	*x->why = QUOTE_OK;
	if ((rc = lock_for_execution(db, x, &q, &recv_pcid)) != DB_OK ||
	    (rc = db_txn_lock(db, q.platform_id, q.transaction_id, &t)) != DB_OK ||
	    (rc = txn_quote_credit_account(db, &q, dest)) != DB_OK)
		goto out;
	ext = strcmp(q.dest_type, "EXTERNAL_ACCOUNT") == 0;
	ctx.quote = &q;
	ctx.credit_account = dest;
	if ((rc = db_quote_mark_executed(db, q.id)) != DB_OK ||
	    (rc = txn_move(db, &t, ext ? "PROCESSING" : "COMPLETED", &ctx, x->out)) != DB_OK)
		goto out;
	if (ext) {
		/* An account that holds its payout (003): PROCESSING until a helper moves it. */
		if (!txn_outcome_holds(q.outcome))
			rc = db_job_add(db, "settle", q.transaction_id, q.platform_id,
			    PAYOUT_DELAY_MS);
	} else if ((rc = db_quote_insert_received(db, &q, recv_pcid, dest, &in)) == DB_OK)
		rc = txn_created(db, &in, NULL);
out:
	if (rc != DB_OK)
		txn_free(x->out);	/* the answer is the transaction as committed */
	txn_free(&t);
	quote_free(&q);
	free(recv_pcid);
	return rc;
}

int
quote_execute(struct db *db, const char *platform, const char *id, struct txn *out,
    enum quote_refusal *why, struct ledger_short *shortfall)
{
	struct exec_args x = { platform, id, out, why, shortfall };

	memset(out, 0, sizeof(*out));
	return db_transact(db, execute_tx, &x);
}

struct expire_args {
	const char	*id;
	int		 done;
};

int
quote_expire_locked(struct db *db, const char *quote_id, const struct txn *t, struct txn *out)
{
	int rc;

	if ((rc = db_quote_set_expired(db, quote_id)) != DB_OK)
		return rc;
	return txn_move(db, t, "EXPIRED", NULL, out);
}

static int
expire_tx(struct db *db, void *arg)
{
	struct expire_args *e = arg;
	char platform[UUID_LEN + 1], txn_id[UUID_LEN + 1];
	struct txn t;
	int rc;

	e->done = 0;
	if ((rc = db_quote_lock_due(db, e->id, platform, txn_id)) != DB_OK)
		return rc == DB_NOT_FOUND ? DB_OK : rc;	/* executed or expired meanwhile */
	/* Its transaction is still CREATED: a quote is executed at most once. */
	if ((rc = db_txn_lock(db, platform, txn_id, &t)) == DB_NOT_FOUND)
		return db_quote_set_expired(db, e->id);	/* the quote alone */
	if (rc != DB_OK)
		return rc;
	rc = quote_expire_locked(db, e->id, &t, NULL);
	txn_free(&t);
	e->done = rc == DB_OK;
	return rc;
}

int
quotes_expire_due(struct db *db, const char *platform, uint64_t *n)
{
	char ids[EXPIRE_BATCH][UUID_LEN + 1];
	uint64_t count = 0, batch;
	size_t rows;
	int rc;

	/*
	 * Every due quote, a hundred at a time: a reader that expires only
	 * some of them would show the rest QUOTE_READY past expiresAt.  A
	 * batch whose quotes were all executed or expired meanwhile leaves
	 * none due, so each round makes progress or ends it.
	 */
	do {
		if ((rc = db_quote_due(db, platform, ids, EXPIRE_BATCH, &rows)) != DB_OK)
			break;
		batch = 0;
		for (size_t i = 0; i < rows && rc == DB_OK; i++) {
			struct expire_args e = { ids[i], 0 };

			rc = db_transact(db, expire_tx, &e);
			batch += (uint64_t)e.done;
		}
		count += batch;
	} while (rc == DB_OK && rows == EXPIRE_BATCH && batch > 0);
	if (n != NULL)
		*n = count;
	return rc;
}
