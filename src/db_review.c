/*
 * db_review.c: SQL of the incoming-review lane.  A case is a transaction
 * of kind SIMULATION that carries its review scenario; it is in the lane
 * while PENDING.  What happens to a case (made, decided, expired) is
 * review_ops.c's; this file reads and writes its rows.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xborder/db.h"
#include "xborder/db_review.h"
#include "xborder/db_transactions.h"
#include "xborder/ids.h"
#include "xborder/util.h"

int
db_review_insert(struct db *db, const char *platform, const struct review_new *n,
    const char *pcid, const char *account, struct txn *out)
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
	struct db_val c[] = { DBS(n->customer_id) };
	char id[UUID_LEN + 1];
	struct db_rows r;
	int rc;

	ids_uuid4(id);
	if ((rc = db_query_one(db, ppv, c, NARGS(c), &r)) != DB_OK)
		return rc;
	{
		struct db_val a[] = { DBS(id), DBS(platform), DBS(n->customer_id), DBS(pcid),
		    DBS(account), DBS(db_cell(&r, 0, 0)), DBS(n->currency), DBI(n->amount),
		    DBS(n->scenario), DBSN(n->detail), DBI(n->window_ms) };

		rc = db_txn_insert(db, ins, a, NARGS(a), out);
	}
	db_rows_free(&r);
	return rc;
}

int
db_review_past_window(struct db *db, const char *id, int *past)
{
	static const char sql[] =
	    "SELECT review_expires_at <= UTC_TIMESTAMP(3) FROM transactions WHERE id = ?";
	struct db_val a[] = { DBS(id) };
	int64_t v = 0;
	int rc;

	if ((rc = db_read_i64(db, sql, a, NARGS(a), &v)) == DB_OK)
		*past = v != 0;
	return rc;
}

int
db_review_audit_add(struct db *db, const char *platform, const char *id,
    const struct review_decision *d)
{
	static const char sql[] =
	    "INSERT INTO review_decisions (transaction_id, platform_id, token_id, action,"
	    " note, counterparty, created_at) VALUES (?, ?, ?, ?, ?, ?, UTC_TIMESTAMP(3))";
	struct db_val a[] = { DBS(id), DBS(platform), DBS(d->token_id),
	    DBS(d->approve ? "APPROVE" : "REJECT"), DBSN(d->note), DBSN(d->counterparty) };

	return db_exec(db, sql, a, NARGS(a), NULL);
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
