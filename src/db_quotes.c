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
#include "xborder/db_quotes.h"
#include "xborder/db_transactions.h"
#include "xborder/ids.h"
#include "xborder/util.h"

#define QUOTE_COLS "id, platform_id, transaction_id, customer_id, source_account_id," \
	" dest_type, dest_ref, recv_platform_id, recv_customer_id, recv_ppv_address," \
	" send_currency, recv_currency, locked_side, locked_amount, send_amount," \
	" recv_amount, principal, fees, fee_sender, fee_receiver, exchange_rate," \
	" price_send, price_recv, spread_bps, fee_sender_bps, fee_receiver_bps," \
	" counterparty, outcome, status, created_at, expires_at, executed_at"

static void
quote_from_row(const struct db_rows *r, size_t i, void *out)
{
	struct quote *q = out;

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
	return db_read_one(db, sql, a, na, quote_from_row, out);
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
	void *items;
	int rc;

	rc = db_read_page(db, count, sql, a, NARGS(a), quote_from_row, sizeof(**out),
	    &items, n, total);
	*out = items;
	return rc;
}

int
db_fx_get(struct db *db, const char *currency, int64_t *price)
{
	static const char sql[] =
	    "SELECT price_minor_per_btc FROM fx_reference_prices WHERE currency_code = ?";
	struct db_val a[] = { DBS(currency) };

	return db_read_i64(db, sql, a, NARGS(a), price);
}

int
db_quote_insert(struct db *db, const struct quote *q, const char *pcid, char id[37],
    struct txn *txn)
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
	int ext = strcmp(q->dest_type, "EXTERNAL_ACCOUNT") == 0;
	char txn_id[UUID_LEN + 1];
	struct db_val t[] = { DBI(q->lock_seconds) };
	struct db_rows r;
	int rc;

	ids_uuid4(id);
	ids_uuid4(txn_id);
	if ((rc = db_query(db, now, t, NARGS(t), &r)) != DB_OK)
		return rc;
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

		if ((rc = db_txn_insert(db, ins_txn, a, NARGS(a), txn)) == DB_OK &&
		    (rc = db_exec(db, ins_quote, b, NARGS(b), NULL)) != DB_OK)
			txn_free(txn);
	}
	db_rows_free(&r);
	return rc;
}

int
db_quote_lock(struct db *db, const char *platform, const char *id, struct quote *out,
    int *expired)
{
	static const char sql[] =
	    "SELECT " QUOTE_COLS ", expires_at <= UTC_TIMESTAMP(3) FROM quotes"
	    " WHERE platform_id = ? AND id = ? FOR UPDATE";
	struct db_val a[] = { DBS(platform), DBS(id) };
	struct db_rows r;
	int rc;

	if ((rc = db_query_one(db, sql, a, NARGS(a), &r)) != DB_OK)
		return rc;
	quote_from_row(&r, 0, out);
	*expired = db_cell_i64(&r, 0, 32) != 0;
	db_rows_free(&r);
	return DB_OK;
}

int
db_quote_mark_executed(struct db *db, const char *id)
{
	static const char sql[] =
	    "UPDATE quotes SET executed_at = UTC_TIMESTAMP(3) WHERE id = ?";
	struct db_val a[] = { DBS(id) };

	return db_exec(db, sql, a, NARGS(a), NULL);
}

int
db_quote_insert_received(struct db *db, const struct quote *q, const char *pcid,
    const char *account, struct txn *out)
{
	static const char sql[] =
	    "INSERT INTO transactions (id, platform_id, kind, type, status, customer_id,"
	    " platform_customer_id, internal_account_id, destination_type, destination_ref,"
	    " currency, amount, created_at, updated_at, settled_at)"
	    " VALUES (?, ?, 'QUOTE_IN', 'INCOMING', 'COMPLETED', ?, ?, ?, 'PPV_ADDRESS', ?,"
	    " ?, ?, UTC_TIMESTAMP(3), UTC_TIMESTAMP(3), UTC_TIMESTAMP(3)) RETURNING " TXN_COLS;
	char id[UUID_LEN + 1];

	ids_uuid4(id);
	{
		struct db_val a[] = { DBS(id), DBS(q->recv_platform_id),
		    DBS(q->recv_customer_id), DBSN(pcid), DBS(account),
		    DBS(q->recv_ppv_address), DBS(q->recv_currency), DBI(q->recv_amount) };

		return db_txn_insert(db, sql, a, NARGS(a), out);
	}
}

int
db_quote_due(struct db *db, const char *platform, char (*ids)[37], size_t max, size_t *n)
{
	static const char sql[] =
	    "SELECT id FROM quotes WHERE (? IS NULL OR platform_id = ?)"
	    " AND status IN ('QUOTE_READY', 'BLOCKED') AND expires_at <= UTC_TIMESTAMP(3)"
	    " AND executed_at IS NULL LIMIT ?";
	struct db_val a[] = { DBSN(platform), DBSN(platform), DBI((int64_t)max) };
	struct db_rows r;
	int rc;

	*n = 0;
	if ((rc = db_query(db, sql, a, NARGS(a), &r)) != DB_OK)
		return rc;
	for (size_t i = 0; i < r.nrows && i < max; i++)
		str_copy(ids[(*n)++], 37, db_cell(&r, i, 0));
	db_rows_free(&r);
	return DB_OK;
}

int
db_quote_lock_due(struct db *db, const char *id, char platform[37], char txn_id[37])
{
	static const char sql[] =
	    "SELECT platform_id, transaction_id FROM quotes WHERE id = ?"
	    " AND executed_at IS NULL AND status IN ('QUOTE_READY', 'BLOCKED')"
	    " AND expires_at <= UTC_TIMESTAMP(3) FOR UPDATE";
	struct db_val a[] = { DBS(id) };
	struct db_rows r;
	int rc;

	if ((rc = db_query_one(db, sql, a, NARGS(a), &r)) != DB_OK)
		return rc;
	str_copy(platform, 37, db_cell(&r, 0, 0));
	str_copy(txn_id, 37, db_cell(&r, 0, 1));
	db_rows_free(&r);
	return DB_OK;
}

int
db_quote_set_expired(struct db *db, const char *id)
{
	static const char sql[] = "UPDATE quotes SET status = 'EXPIRED' WHERE id = ?";
	struct db_val a[] = { DBS(id) };

	return db_exec(db, sql, a, NARGS(a), NULL);
}
