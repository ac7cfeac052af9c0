/*
 * db_quotes.c: SQL for cross-currency quotes.  A quote and its OUTGOING
 * transaction are written together; executing it moves money in two
 * currencies in one posting set, each currency summing to zero:
 *
 *   sending currency    sender -S, sending platform's SANDBOX +P,
 *                       sending platform's fee account +fee_s,
 *                       receiving platform's fee account +fee_r
 *   receiving currency  receiving platform's SANDBOX -R,
 *                       receiver's account +R (PPV) or in-transit +R (payout)
 *
 * The SANDBOX accounts are the test environment's outside world, which
 * converts P into R.  A failed or returned payout runs the sending side
 * backwards, so nothing has moved in the end.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xborder/db.h"
#include "xborder/db_accounts.h"
#include "xborder/db_customers.h"
#include "xborder/db_ledger.h"
#include "xborder/db_quotes.h"
#include "xborder/db_transactions.h"
#include "xborder/db_webhooks.h"
#include "xborder/ids.h"
#include "xborder/util.h"

#define QUOTE_COLS "id, platform_id, transaction_id, customer_id, source_account_id," \
	" dest_type, dest_ref, recv_platform_id, recv_customer_id, recv_ppv_address," \
	" send_currency, recv_currency, locked_side, locked_amount, send_amount," \
	" recv_amount, principal, fees, fee_sender, fee_receiver, exchange_rate," \
	" price_send, price_recv, spread_bps, fee_sender_bps, fee_receiver_bps," \
	" counterparty, outcome, status, created_at, expires_at, executed_at"

/* A payout is settled by the worker after this long. */
#define PAYOUT_DELAY_MS 300

static void
quote_from_row(const struct db_rows *r, size_t i, struct quote *q)
{
	memset(q, 0, sizeof(*q));
	str_copy(q->id, sizeof(q->id), db_cell(r, i, 0));
	str_copy(q->platform_id, sizeof(q->platform_id), db_cell(r, i, 1));
	str_copy(q->transaction_id, sizeof(q->transaction_id), db_cell(r, i, 2));
	str_copy(q->customer_id, sizeof(q->customer_id), db_cell(r, i, 3));
	str_copy(q->source_account_id, sizeof(q->source_account_id), db_cell(r, i, 4));
	str_copy(q->dest_type, sizeof(q->dest_type), db_cell(r, i, 5));
	q->dest_ref = dup_or_null(db_cell(r, i, 6));
	str_copy(q->recv_platform_id, sizeof(q->recv_platform_id), db_cell(r, i, 7));
	str_copy(q->recv_customer_id, sizeof(q->recv_customer_id), db_cell(r, i, 8));
	q->recv_ppv_address = dup_or_null(db_cell(r, i, 9));
	str_copy(q->send_currency, sizeof(q->send_currency), db_cell(r, i, 10));
	str_copy(q->recv_currency, sizeof(q->recv_currency), db_cell(r, i, 11));
	str_copy(q->locked_side, sizeof(q->locked_side), db_cell(r, i, 12));
	q->locked_amount = db_cell_i64(r, i, 13);
	q->send_amount = db_cell_i64(r, i, 14);
	q->recv_amount = db_cell_i64(r, i, 15);
	q->principal = db_cell_i64(r, i, 16);
	q->fees = db_cell_i64(r, i, 17);
	q->fee_sender = db_cell_i64(r, i, 18);
	q->fee_receiver = db_cell_i64(r, i, 19);
	str_copy(q->exchange_rate, sizeof(q->exchange_rate), db_cell(r, i, 20));
	q->price_send = db_cell_i64(r, i, 21);
	q->price_recv = db_cell_i64(r, i, 22);
	q->spread_bps = (int)db_cell_i64(r, i, 23);
	q->fee_sender_bps = (int)db_cell_i64(r, i, 24);
	q->fee_receiver_bps = (int)db_cell_i64(r, i, 25);
	q->counterparty = dup_or_null(db_cell(r, i, 26));
	str_copy(q->outcome, sizeof(q->outcome), db_cell(r, i, 27));
	str_copy(q->status, sizeof(q->status), db_cell(r, i, 28));
	ids_timestamp(db_cell(r, i, 29), q->created_at);
	ids_timestamp(db_cell(r, i, 30), q->expires_at);
	if (db_cell(r, i, 31) != NULL)
		ids_timestamp(db_cell(r, i, 31), q->executed_at);
}

void
quote_free(struct quote *q)
{
	free(q->dest_ref);
	free(q->recv_ppv_address);
	free(q->counterparty);
	memset(q, 0, sizeof(*q));
}

void
quote_list_free(struct quote *q, size_t n)
{
	for (size_t i = 0; i < n; i++)
		quote_free(&q[i]);
	free(q);
}

/* Reads one quote by a column (id or transaction_id), optionally locked. */
static int
quote_read(struct db *db, const char *sql, const struct db_val *a, size_t na,
    struct quote *out)
{
	struct db_rows r;
	int rc;

	if ((rc = db_query_one(db, sql, a, na, &r)) != DB_OK)
		return rc;
	quote_from_row(&r, 0, out);
	db_rows_free(&r);
	return DB_OK;
}

int
db_quote_get(struct db *db, const char *platform, const char *id, struct quote *out)
{
	static const char sql[] =
	    "SELECT " QUOTE_COLS " FROM quotes WHERE platform_id = ? AND id = ?";
	struct db_val a[] = { DBS(platform), DBS(id) };

	return quote_read(db, sql, a, NARGS(a), out);
}

int
db_quote_by_txn(struct db *db, const char *txn_id, struct quote *out)
{
	static const char sql[] =
	    "SELECT " QUOTE_COLS " FROM quotes WHERE transaction_id = ?";
	struct db_val a[] = { DBS(txn_id) };

	return quote_read(db, sql, a, NARGS(a), out);
}

int
db_quote_list(struct db *db, const char *platform, const char *status, int64_t limit,
    int64_t offset, struct quote **out, size_t *n, int64_t *total)
{
#define FILTER " FROM quotes WHERE platform_id = ? AND (? IS NULL OR status = ?)"
	static const char count[] = "SELECT COUNT(*)" FILTER;
	static const char sql[] = "SELECT " QUOTE_COLS FILTER
	    " ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?";
#undef FILTER
	struct db_val a[] = { DBS(platform), DBSN(status), DBSN(status), DBI(limit),
	    DBI(offset) };
	struct db_rows r;
	int rc;

	*out = NULL;
	*n = 0;
	if ((rc = db_page(db, count, sql, a, NARGS(a), &r, total)) != DB_OK)
		return rc;
	*out = xcalloc(r.nrows, sizeof(**out));
	for (size_t i = 0; i < r.nrows; i++)
		quote_from_row(&r, i, &(*out)[i]);
	*n = r.nrows;
	db_rows_free(&r);
	return DB_OK;
}

int
db_fx_get(struct db *db, const char *currency, int64_t *price)
{
	static const char sql[] =
	    "SELECT price_minor_per_btc FROM fx_reference_prices WHERE currency_code = ?";
	struct db_val a[] = { DBS(currency) };
	struct db_rows r;
	int rc;

	if ((rc = db_query_one(db, sql, a, NARGS(a), &r)) != DB_OK)
		return rc;
	*price = db_cell_i64(&r, 0, 0);
	db_rows_free(&r);
	return DB_OK;
}

struct create_args {
	const struct quote	*q;
	struct quote		*out;
};

static int
create_tx(struct db *db, void *arg)
{
	static const char now[] = "SELECT UTC_TIMESTAMP(3),"
	    " UTC_TIMESTAMP(3) + INTERVAL ? SECOND";
	static const char ins_txn[] =
	    "INSERT INTO transactions (id, platform_id, kind, type, status, customer_id,"
	    " platform_customer_id, quote_id, internal_account_id, external_account_id,"
	    " destination_type, destination_ref, currency, amount, exchange_rate,"
	    " fee_currency, fee_amount, outcome, created_at, updated_at, quote_expires_at)"
	    " VALUES (?, ?, 'QUOTE', 'OUTGOING', 'CREATED', ?, ?, ?, ?, ?, ?, ?, ?, ?,"
	    " ?, ?, ?, ?, ?, ?, ?) RETURNING " TXN_COLS;
	static const char ins_quote[] =
	    "INSERT INTO quotes (" QUOTE_COLS ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
	    " ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)";
	struct create_args *c = arg;
	const struct quote *q = c->q;
	int ext = strcmp(q->dest_type, "EXTERNAL_ACCOUNT") == 0;
	char id[UUID_LEN + 1], txn_id[UUID_LEN + 1], *pcid = NULL;
	struct db_val t[] = { DBI(q->lock_seconds) };
	struct db_rows r;
	int rc;

	ids_uuid4(id);
	ids_uuid4(txn_id);
	if ((rc = db_customer_lock(db, q->platform_id, q->customer_id, &pcid)) != DB_OK)
		return rc == DB_NOT_FOUND ? DB_GONE : rc;
	if ((rc = db_query(db, now, t, NARGS(t), &r)) != DB_OK)
		goto out;
	{
		const char *created = db_cell(&r, 0, 0), *expires = db_cell(&r, 0, 1);
		struct db_val a[] = { DBS(txn_id), DBS(q->platform_id), DBS(q->customer_id),
		    DBS(pcid), DBS(id), DBS(q->source_account_id),
		    ext ? DBS(q->dest_ref) : DBN, DBS(q->dest_type), DBS(q->dest_ref),
		    DBS(q->send_currency), DBI(q->send_amount), DBS(q->exchange_rate),
		    DBS(q->send_currency), DBI(q->fees), DBS(q->outcome), DBS(created),
		    DBS(created), DBS(expires) };
		struct db_val b[] = { DBS(id), DBS(q->platform_id), DBS(txn_id),
		    DBS(q->customer_id), DBS(q->source_account_id), DBS(q->dest_type),
		    DBS(q->dest_ref), DBS(q->recv_platform_id), DBS(q->recv_customer_id),
		    DBSN(q->recv_ppv_address), DBS(q->send_currency), DBS(q->recv_currency),
		    DBS(q->locked_side), DBI(q->locked_amount), DBI(q->send_amount),
		    DBI(q->recv_amount), DBI(q->principal), DBI(q->fees), DBI(q->fee_sender),
		    DBI(q->fee_receiver), DBS(q->exchange_rate), DBI(q->price_send),
		    DBI(q->price_recv), DBI(q->spread_bps), DBI(q->fee_sender_bps),
		    DBI(q->fee_receiver_bps), DBSN(q->counterparty), DBS(q->outcome),
		    DBS(q->status), DBS(created), DBS(expires) };

		if ((rc = db_txn_insert(db, ins_txn, a, NARGS(a), NULL)) == DB_OK)
			rc = db_exec(db, ins_quote, b, NARGS(b), NULL);
	}
	db_rows_free(&r);
	if (rc == DB_OK)
		rc = db_quote_get(db, q->platform_id, id, c->out);
out:
	free(pcid);
	return rc;
}

int
db_quote_create(struct db *db, const struct quote *q, struct quote *out)
{
	struct create_args c = { q, out };

	memset(out, 0, sizeof(*out));
	return db_transact(db, create_tx, &c);
}

/*
 * Adds the sending side of q to s, forwards (sign 1: the sender pays S,
 * the outside world gets P, the platforms their fees) or backwards
 * (sign -1).
 */
static int
sending_side(struct db *db, const struct quote *q, int sign, struct posting_set *s)
{
	char sandbox[37], fee_s[37], fee_r[37];
	const char *cur = q->send_currency;
	int rc;

	if ((rc = db_account_system(db, q->platform_id, ACCT_SANDBOX, cur, sandbox)) != DB_OK ||
	    (rc = db_account_system(db, q->platform_id, ACCT_PLATFORM, cur, fee_s)) != DB_OK ||
	    (rc = db_account_system(db, q->recv_platform_id, ACCT_PLATFORM, cur,
	    fee_r)) != DB_OK)
		return rc;
	if (ledger_add(s, q->source_account_id, cur, -sign * q->send_amount) < 0 ||
	    ledger_add(s, sandbox, cur, sign * q->principal) < 0 ||
	    (q->fee_sender > 0 && ledger_add(s, fee_s, cur, sign * q->fee_sender) < 0) ||
	    (q->fee_receiver > 0 && ledger_add(s, fee_r, cur, sign * q->fee_receiver) < 0))
		return DB_CONFLICT;
	return DB_OK;
}

/* Adds a move of R from one account of the receiving side to another. */
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

static int
execute_tx(struct db *db, void *arg)
{
	static const char lock[] =
	    "SELECT " QUOTE_COLS ", expires_at <= UTC_TIMESTAMP(3) FROM quotes"
	    " WHERE platform_id = ? AND id = ? FOR UPDATE";
	static const char done[] =
	    "UPDATE quotes SET executed_at = UTC_TIMESTAMP(3) WHERE id = ?";
	static const char ins_in[] =
	    "INSERT INTO transactions (id, platform_id, kind, type, status, customer_id,"
	    " platform_customer_id, internal_account_id, destination_type, destination_ref,"
	    " currency, amount, created_at, updated_at, settled_at)"
	    " VALUES (?, ?, 'QUOTE_IN', 'INCOMING', 'COMPLETED', ?, ?, ?, 'PPV_ADDRESS', ?,"
	    " ?, ?, UTC_TIMESTAMP(3), UTC_TIMESTAMP(3), UTC_TIMESTAMP(3)) RETURNING " TXN_COLS;
	struct exec_args *x = arg;
	struct db_val a[] = { DBS(x->platform), DBS(x->id) };
	struct posting_set s = { .n = 0 };
	struct quote q;
	struct txn t;
	struct db_rows r;
	char *recv_pcid = NULL, dest[37], in_id[UUID_LEN + 1];
	int rc, ext, expired;

	memset(&t, 0, sizeof(t));
	txn_free(x->out);	/* what an attempt that rolled back read */
	ids_uuid4(in_id);
	*x->why = QUOTE_OK;
	/* Customers first (the lock order), so read the quote once unlocked. */
	if ((rc = db_quote_get(db, x->platform, x->id, &q)) != DB_OK)
		return rc;
	rc = lock_customers(db, &q, &recv_pcid);
	/*
	 * The payout's external account must still be there (its owner, the
	 * receiving customer, is locked: a deletion waits for this).  The
	 * quote's other values are its snapshot and hold.
	 */
	if (rc == DB_OK && strcmp(q.dest_type, "EXTERNAL_ACCOUNT") == 0 &&
	    (rc = db_external_lock(db, q.recv_platform_id, q.dest_ref)) != DB_OK) {
		if (rc == DB_GONE || rc == DB_NOT_FOUND) {
			*x->why = QUOTE_ACCOUNT_GONE;
			rc = DB_GONE;
		}
	}
	quote_free(&q);
	if (rc != DB_OK)
		goto out;
	if ((rc = db_query_one(db, lock, a, NARGS(a), &r)) != DB_OK)
		goto out;
	quote_from_row(&r, 0, &q);
	expired = db_cell_i64(&r, 0, 32) != 0;
	db_rows_free(&r);
	ext = strcmp(q.dest_type, "EXTERNAL_ACCOUNT") == 0;
	if (q.executed_at[0] != '\0')
		*x->why = QUOTE_ALREADY_EXECUTED;
	else if (expired || strcmp(q.status, "EXPIRED") == 0)
		*x->why = QUOTE_EXPIRED;
	else if (strcmp(q.status, "BLOCKED") == 0)
		*x->why = QUOTE_BLOCKED;
	if (*x->why != QUOTE_OK) {
		rc = DB_CONFLICT;
		goto out;
	}
	if ((rc = db_txn_lock(db, q.platform_id, q.transaction_id, &t)) != DB_OK)
		goto out;
	if (ext)
		rc = db_account_system(db, q.recv_platform_id, ACCT_IN_TRANSIT, q.recv_currency,
		    dest);
	else
		rc = db_customer_account(db, q.recv_platform_id, q.recv_customer_id,
		    q.recv_currency, dest);
	if (rc != DB_OK || (rc = sending_side(db, &q, 1, &s)) != DB_OK ||
	    (rc = receiving_move(db, &q, ACCT_SANDBOX, dest, &s)) != DB_OK ||
	    (rc = db_ledger_apply(db, "quote_executed", &s, x->shortfall)) != DB_OK)
		goto out;
	{
		struct db_val d[] = { DBS(q.id) };

		if ((rc = db_exec(db, done, d, NARGS(d), NULL)) != DB_OK)
			goto out;
	}
	if (ext) {
		if ((rc = db_txn_set_status_from(db, &t, "PROCESSING", 0, x->out)) != DB_OK ||
		    (rc = db_job_add(db, "settle", q.transaction_id, q.platform_id,
		    PAYOUT_DELAY_MS)) != DB_OK)
			goto out;
	} else {
		struct db_val in[] = { DBS(in_id), DBS(q.recv_platform_id),
		    DBS(q.recv_customer_id), DBSN(recv_pcid), DBS(dest),
		    DBS(q.recv_ppv_address), DBS(q.recv_currency), DBI(q.recv_amount) };

		if ((rc = db_txn_set_status_from(db, &t, "COMPLETED", 1, x->out)) != DB_OK ||
		    (rc = db_txn_insert(db, ins_in, in, NARGS(in), NULL)) != DB_OK)
			goto out;
	}
out:
	if (rc != DB_OK)
		txn_free(x->out);	/* the answer is the transaction as committed */
	txn_free(&t);
	quote_free(&q);
	free(recv_pcid);
	return rc;
}

int
db_quote_execute(struct db *db, const char *platform, const char *id, struct txn *out,
    enum quote_refusal *why, struct ledger_short *shortfall)
{
	struct exec_args x = { platform, id, out, why, shortfall };

	memset(out, 0, sizeof(*out));
	return db_transact(db, execute_tx, &x);
}

int
db_quote_payout_done(struct db *db, const struct quote *q)
{
	struct posting_set s = { .n = 0 };
	char sandbox[37];
	int rc;

	if ((rc = db_account_system(db, q->recv_platform_id, ACCT_SANDBOX, q->recv_currency,
	    sandbox)) != DB_OK ||
	    (rc = receiving_move(db, q, ACCT_IN_TRANSIT, sandbox, &s)) != DB_OK)
		return rc;
	return db_ledger_apply(db, "quote_payout_settled", &s, NULL);
}

int
db_quote_reverse(struct db *db, const struct quote *q, const char *memo)
{
	struct posting_set s = { .n = 0 };
	char sandbox[37];
	int rc;

	if ((rc = sending_side(db, q, -1, &s)) != DB_OK ||
	    (rc = db_account_system(db, q->recv_platform_id, ACCT_SANDBOX, q->recv_currency,
	    sandbox)) != DB_OK ||
	    (rc = receiving_move(db, q, ACCT_IN_TRANSIT, sandbox, &s)) != DB_OK)
		return rc;
	return db_ledger_apply(db, memo, &s, NULL);
}

struct expire_args {
	const char	*id;
	int		 done;
};

static int
expire_tx(struct db *db, void *arg)
{
	static const char lock[] =
	    "SELECT platform_id, transaction_id FROM quotes WHERE id = ?"
	    " AND executed_at IS NULL AND status IN ('QUOTE_READY', 'BLOCKED')"
	    " AND expires_at <= UTC_TIMESTAMP(3) FOR UPDATE";
	static const char quote[] = "UPDATE quotes SET status = 'EXPIRED' WHERE id = ?";
	struct expire_args *e = arg;
	struct db_val a[] = { DBS(e->id) };
	struct db_rows r;
	int rc;

	e->done = 0;
	if ((rc = db_query_one(db, lock, a, NARGS(a), &r)) != DB_OK)
		return rc == DB_NOT_FOUND ? DB_OK : rc;	/* executed or expired meanwhile */
	/* Its transaction is still CREATED: a quote is executed at most once. */
	if ((rc = db_exec(db, quote, a, NARGS(a), NULL)) == DB_OK)
		rc = db_txn_set_status(db, db_cell(&r, 0, 0), db_cell(&r, 0, 1), "EXPIRED", 0);
	db_rows_free(&r);
	e->done = rc == DB_OK;
	return rc;
}

int
db_quote_expire_due(struct db *db, const char *platform, uint64_t *n)
{
	static const char due[] =
	    "SELECT id FROM quotes WHERE (? IS NULL OR platform_id = ?)"
	    " AND status IN ('QUOTE_READY', 'BLOCKED') AND expires_at <= UTC_TIMESTAMP(3)"
	    " AND executed_at IS NULL LIMIT 100";
	struct db_val a[] = { DBSN(platform), DBSN(platform) };
	struct db_rows r;
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
		if ((rc = db_query(db, due, a, NARGS(a), &r)) != DB_OK)
			break;
		batch = 0;
		rows = r.nrows;
		for (size_t i = 0; i < r.nrows && rc == DB_OK; i++) {
			struct expire_args e = { db_cell(&r, i, 0), 0 };

			rc = db_transact(db, expire_tx, &e);
			batch += (uint64_t)e.done;
		}
		db_rows_free(&r);
		count += batch;
	} while (rc == DB_OK && rows == 100 && batch > 0);
	if (n != NULL)
		*n = count;
	return rc;
}
