/*
 * review_ops.c: the incoming-review lane's cases (decisions.md section
 * 10), each step one database transaction.  Deciding a case takes the
 * receiver's customer row lock, then the transaction's (the lock order of
 * db_customer_lock), so that two decisions cannot both apply and a
 * deletion cannot slip in between; the status change and the approval's
 * credit are the lifecycle's (txn_move).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xborder/db.h"
#include "xborder/db_accounts.h"
#include "xborder/db_customers.h"
#include "xborder/db_jobs.h"
#include "xborder/db_review.h"
#include "xborder/db_transactions.h"
#include "xborder/review_ops.h"
#include "xborder/txn.h"
#include "xborder/txn_lifecycle.h"

struct simulate_args {
	const char		*platform;
	const struct review_new	*n;
	struct txn		*out;
};

static int
simulate_tx(struct db *db, void *arg)
{
	struct simulate_args *x = arg;
	const struct review_new *n = x->n;
	char account[37], *pcid = NULL;
	struct txn t;
	int rc;

	txn_free(x->out);	/* read by an attempt that was rolled back */
	if ((rc = db_customer_lock(db, x->platform, n->customer_id, &pcid)) != DB_OK)
		return rc;
	if ((rc = db_customer_account(db, x->platform, n->customer_id, n->currency,
	    account)) != DB_OK ||
	    (rc = db_review_insert(db, x->platform, n, pcid, account, &t)) != DB_OK)
		goto out;
	/* The row as recorded is the answer: it comes back with the insert. */
	if ((rc = txn_created(db, &t, x->out)) == DB_OK)
		rc = db_job_add(db, "review_expire", x->out->id, x->platform, n->window_ms);
out:
	if (rc != DB_OK)
		txn_free(x->out);	/* rolled back: not the answer */
	free(pcid);
	return rc;
}

int
review_simulate(struct db *db, const char *platform, const struct review_new *n,
    struct txn *out)
{
	struct simulate_args x = { platform, n, out };

	memset(out, 0, sizeof(*out));
	return db_transact(db, simulate_tx, &x);
}

struct decide_args {
	const char			*platform, *id;
	const struct review_decision	*d;
	struct txn			*out;
	char				*status_now;
	int				*expired;
};

/* Locks case id: its customer first (read once unlocked to learn whose it is). */
static int
lock_case(struct db *db, const char *platform, const char *id, struct txn *t)
{
	int rc;

	if ((rc = db_txn_get(db, platform, id, t)) != DB_OK)
		return rc;
	rc = db_customer_lock(db, platform, t->customer_id, NULL);
	txn_free(t);
	if (rc != DB_OK && rc != DB_GONE)
		return rc;
	return db_txn_lock(db, platform, id, t);
}

static int
decide_tx(struct db *db, void *arg)
{
	struct decide_args *x = arg;
	const struct review_decision *d = x->d;
	struct txn t;
	int rc, past;

	txn_free(x->out);	/* read by an attempt that was rolled back */
	if ((rc = lock_case(db, x->platform, x->id, &t)) != DB_OK)
		return rc;
	snprintf(x->status_now, 16, "%s", t.status);
	if (t.review_scenario[0] == '\0' || strcmp(t.status, "PENDING") != 0) {
		rc = DB_CONFLICT;
		goto out;
	}
	if ((rc = db_review_past_window(db, x->id, &past)) != DB_OK)
		goto out;
	if (past) {
		/* Past its window, before the worker got to it: it expires now. */
		*x->expired = 1;
		snprintf(x->status_now, 16, "EXPIRED");
		rc = review_expire(db, &t, NULL);
		goto out;
	}
	/* The answer is the row as changed (the audit row is another table's). */
	if ((rc = txn_move(db, &t, d->approve ? "COMPLETED" : "REJECTED", NULL,
	    x->out)) == DB_OK)
		rc = db_review_audit_add(db, x->platform, t.id, d);
out:
	if (rc != DB_OK)
		txn_free(x->out);	/* the answer is the transaction as committed */
	txn_free(&t);
	return rc;
}

int
review_decide(struct db *db, const char *platform, const char *id,
    const struct review_decision *d, struct txn *out, char status_now[16])
{
	int expired = 0, rc;
	struct decide_args x = { platform, id, d, out, status_now, &expired };

	memset(out, 0, sizeof(*out));
	status_now[0] = '\0';
	rc = db_transact(db, decide_tx, &x);
	return rc == DB_OK && expired ? DB_CONFLICT : rc;
}

int
review_expire(struct db *db, const struct txn *t, struct txn *out)
{
	if (t->review_scenario[0] == '\0' || strcmp(t->status, "PENDING") != 0) {
		if (out != NULL)
			txn_copy(t, out);
		return DB_OK;
	}
	return txn_move(db, t, "EXPIRED", NULL, out);
}
