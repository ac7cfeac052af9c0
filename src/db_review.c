/*
 * db_review.c: SQL of the incoming-review lane.  A case is a transaction
 * of kind SIMULATION that carries its review scenario; it is in the lane
 * while PENDING.  Deciding it takes the receiver's customer row lock, then
 * the transaction's (the lock order of db_customer_lock), so that two
 * decisions cannot both apply and a deletion cannot slip in between.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xborder/db.h"
#include "xborder/db_accounts.h"
#include "xborder/db_customers.h"
#include "xborder/db_ledger.h"
#include "xborder/db_review.h"
#include "xborder/db_transactions.h"
#include "xborder/db_webhooks.h"
#include "xborder/ids.h"
#include "xborder/util.h"

struct simulate_args {
	const char		*platform;
	const struct review_new	*n;
	struct txn		*out;
};

static int
simulate_tx(struct db *db, void *arg)
{
	static const char ppv[] =
	    "SELECT CONCAT(c.ppv_name, '@', p.ppv_domain) FROM customers c"
	    " JOIN platform_configs p ON p.platform_id = c.platform_id WHERE c.id = ?";
	static const char ins[] =
	    "INSERT INTO transactions (id, platform_id, kind, type, status, customer_id,"
	    " platform_customer_id, internal_account_id, destination_type, destination_ref,"
	    " currency, amount, review_scenario, review_detail, review_expires_at,"
	    " created_at, updated_at)"
	    " VALUES (?, ?, 'SIMULATION', 'INCOMING', 'PENDING', ?, ?, ?, 'PPV_ADDRESS', ?,"
	    " ?, ?, ?, ?, UTC_TIMESTAMP(3) + INTERVAL ? * 1000 MICROSECOND,"
	    " UTC_TIMESTAMP(3), UTC_TIMESTAMP(3)) RETURNING " TXN_COLS;
	struct simulate_args *x = arg;
	const struct review_new *n = x->n;
	char id[UUID_LEN + 1], account[37], *pcid = NULL;
	struct db_val c[] = { DBS(n->customer_id) };
	struct db_rows r;
	int rc;

	ids_uuid4(id);
	txn_free(x->out);	/* read by an attempt that was rolled back */
	if ((rc = db_customer_lock(db, x->platform, n->customer_id, &pcid)) != DB_OK)
		return rc;
	if ((rc = db_customer_account(db, x->platform, n->customer_id, n->currency,
	    account)) != DB_OK ||
	    (rc = db_query_one(db, ppv, c, NARGS(c), &r)) != DB_OK)
		goto out;
	{
		struct db_val a[] = { DBS(id), DBS(x->platform), DBS(n->customer_id), DBS(pcid),
		    DBS(account), DBS(db_cell(&r, 0, 0)), DBS(n->currency), DBI(n->amount),
		    DBS(n->scenario), DBSN(n->detail), DBI(n->window_ms) };

		/* The row as recorded is the answer: it comes back with the insert. */
		rc = db_txn_insert(db, ins, a, NARGS(a), x->out);
	}
	db_rows_free(&r);
	if (rc == DB_OK)
		rc = db_job_add(db, "review_expire", id, x->platform, n->window_ms);
out:
	if (rc != DB_OK)
		txn_free(x->out);	/* rolled back: not the answer */
	free(pcid);
	return rc;
}

int
db_review_simulate(struct db *db, const char *platform, const struct review_new *n,
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

static int
decide_tx(struct db *db, void *arg)
{
	static const char audit[] =
	    "INSERT INTO review_decisions (transaction_id, platform_id, token_id, action,"
	    " note, counterparty, created_at) VALUES (?, ?, ?, ?, ?, ?, UTC_TIMESTAMP(3))";
	static const char due[] =
	    "SELECT review_expires_at <= UTC_TIMESTAMP(3) FROM transactions WHERE id = ?";
	struct decide_args *x = arg;
	const struct review_decision *d = x->d;
	struct db_val k[] = { DBS(x->id) };
	struct db_rows r;
	struct txn t;
	int rc, expired;

	txn_free(x->out);	/* read by an attempt that was rolled back */
	/* The customer first: read the case once unlocked to learn whose it is. */
	if ((rc = db_txn_get(db, x->platform, x->id, &t)) != DB_OK)
		return rc;
	rc = db_customer_lock(db, x->platform, t.customer_id, NULL);
	txn_free(&t);
	if (rc != DB_OK && rc != DB_GONE)
		return rc;
	if ((rc = db_txn_lock(db, x->platform, x->id, &t)) != DB_OK)
		return rc;
	snprintf(x->status_now, 16, "%s", t.status);
	if (t.review_scenario[0] == '\0' || strcmp(t.status, "PENDING") != 0) {
		rc = DB_CONFLICT;
		goto out;
	}
	/* Past its window, before the worker got to it: it expires now. */
	if ((rc = db_query_one(db, due, k, NARGS(k), &r)) != DB_OK)
		goto out;
	expired = db_cell_i64(&r, 0, 0) != 0;
	db_rows_free(&r);
	if (expired) {
		*x->expired = 1;
		snprintf(x->status_now, 16, "EXPIRED");
		rc = db_review_expire(db, &t);
		goto out;
	}
	if (d->approve) {
		struct posting_set s = { .n = 0 };
		char sandbox[37];

		if ((rc = db_account_system(db, x->platform, ACCT_SANDBOX, t.currency,
		    sandbox)) != DB_OK)
			goto out;
		if (ledger_move(&s, sandbox, t.internal_account_id, t.currency, t.amount) < 0) {
			rc = DB_CONFLICT;
			goto out;
		}
		if ((rc = db_ledger_apply(db, "review_approved", &s, NULL)) != DB_OK)
			goto out;
	}
	/* The answer is the row as changed (the audit row is another table's). */
	if ((rc = db_txn_set_status_from(db, &t, d->approve ? "COMPLETED" : "REJECTED",
	    d->approve, x->out)) != DB_OK)
		goto out;
	{
		struct db_val a[] = { DBS(t.id), DBS(x->platform), DBS(d->token_id),
		    DBS(d->approve ? "APPROVE" : "REJECT"), DBSN(d->note), DBSN(d->counterparty) };

		rc = db_exec(db, audit, a, NARGS(a), NULL);
	}
out:
	if (rc != DB_OK)
		txn_free(x->out);	/* the answer is the transaction as committed */
	txn_free(&t);
	return rc;
}

int
db_review_decide(struct db *db, const char *platform, const char *id,
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
db_review_expire(struct db *db, const struct txn *t)
{
	if (t->review_scenario[0] == '\0' || strcmp(t->status, "PENDING") != 0)
		return DB_OK;
	return db_txn_set_status_from(db, t, "EXPIRED", 0, NULL);
}

int
db_review_audit(struct db *db, const char *id, struct db_rows *out)
{
	static const char sql[] =
	    "SELECT created_at, action, token_id, note, counterparty FROM review_decisions"
	    " WHERE transaction_id = ? ORDER BY id";
	struct db_val a[] = { DBS(id) };

	return db_query(db, sql, a, NARGS(a), out);
}
