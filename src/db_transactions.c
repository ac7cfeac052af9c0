/*
 * db_transactions.c: SQL of a transaction's row.  Reads (with the quote
 * expiry a reader must act on first, and fused with the caller's token
 * for GET /transactions/{id}), locks (one or a batch, in id order), the
 * inserts of every kind, the one UPDATE of transactions.status and the
 * counts in txn_counts, all for the lifecycle (txn_lifecycle.c), which is
 * the only caller of the writes.  Lists are db_txn_lists.c's.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xborder/db.h"
#include "xborder/db_tokens.h"
#include "xborder/db_transactions.h"
#include "xborder/ids.h"
#include "xborder/util.h"

void
db_txn_from_cols(const struct db_rows *r, size_t i, unsigned c, struct txn *t)
{
	memset(t, 0, sizeof(*t));
	str_copy(t->id, sizeof(t->id), db_cell(r, i, c + 0));
	str_copy(t->platform_id, sizeof(t->platform_id), db_cell(r, i, c + 1));
	str_copy(t->kind, sizeof(t->kind), db_cell(r, i, c + 2));
	str_copy(t->type, sizeof(t->type), db_cell(r, i, c + 3));
	str_copy(t->status, sizeof(t->status), db_cell(r, i, c + 4));
	str_copy(t->customer_id, sizeof(t->customer_id), db_cell(r, i, c + 5));
	t->platform_customer_id = dup_or_null(db_cell(r, i, c + 6));
	t->quote_id = dup_or_null(db_cell(r, i, c + 7));
	str_copy(t->internal_account_id, sizeof(t->internal_account_id), db_cell(r, i, c + 8));
	str_copy(t->external_account_id, sizeof(t->external_account_id), db_cell(r, i, c + 9));
	str_copy(t->destination_type, sizeof(t->destination_type), db_cell(r, i, c + 10));
	t->destination_ref = dup_or_null(db_cell(r, i, c + 11));
	str_copy(t->currency, sizeof(t->currency), db_cell(r, i, c + 12));
	t->amount = db_cell_i64(r, i, c + 13);
	t->exchange_rate = dup_or_null(db_cell(r, i, c + 14));
	str_copy(t->fee_currency, sizeof(t->fee_currency), db_cell(r, i, c + 15));
	t->fee_amount = db_cell_i64(r, i, c + 16);
	str_copy(t->outcome, sizeof(t->outcome), db_cell(r, i, c + 17));
	ids_timestamp(db_cell(r, i, c + 18), t->created_at);
	ids_timestamp(db_cell(r, i, c + 19), t->updated_at);
	if (db_cell(r, i, c + 20) != NULL)
		ids_timestamp(db_cell(r, i, c + 20), t->settled_at);
	str_copy(t->review_scenario, sizeof(t->review_scenario), db_cell(r, i, c + 21));
	t->review_detail = dup_or_null(db_cell(r, i, c + 22));
	t->transit_shard = (int)db_cell_i64(r, i, c + 23);
}

/* A transaction whose columns are the row's first ones. */
static void
txn_from_row(const struct db_rows *r, size_t i, struct txn *t)
{
	db_txn_from_cols(r, i, 0, t);
}

static int
txn_read(struct db *db, const char *platform, const char *id, struct txn *out, int lock)
{
	static const char sql[] =
	    "SELECT " TXN_COLS " FROM transactions WHERE platform_id = ? AND id = ?";
	static const char sql_lock[] =
	    "SELECT " TXN_COLS ", UTC_TIMESTAMP(3) FROM transactions"
	    " WHERE platform_id = ? AND id = ? FOR UPDATE";
	struct db_val a[] = { DBS(platform), DBS(id) };
	struct db_rows r;
	int rc;

	if ((rc = db_query_one(db, lock ? sql_lock : sql, a, NARGS(a), &r)) != DB_OK)
		return rc;
	txn_from_row(&r, 0, out);
	if (lock)
		str_copy(out->db_now, sizeof(out->db_now), db_cell(&r, 0, TXN_NCOLS));
	db_rows_free(&r);
	return DB_OK;
}

int
db_txn_get(struct db *db, const char *platform, const char *id, struct txn *out)
{
	return txn_read(db, platform, id, out, 0);
}

int
db_txn_get_fresh(struct db *db, const char *platform, const char *id, struct txn *out,
    int *due)
{
	static const char sql[] =
	    "SELECT " TXN_COLS ", " TXN_QUOTE_DUE_OF("transactions")
	    " FROM transactions WHERE platform_id = ? AND id = ?";
	struct db_val a[] = { DBS(platform), DBS(id) };
	struct db_rows r;
	int rc;

	if ((rc = db_query_one(db, sql, a, NARGS(a), &r)) != DB_OK)
		return rc;
	*due = db_cell_i64(&r, 0, TXN_NCOLS) != 0;
	if (!*due)
		txn_from_row(&r, 0, out);
	db_rows_free(&r);
	return DB_OK;
}

int
db_token_auth_get_txn(struct db *db, const char *token_id,
    const char *txn_id,
    struct token_auth *ta, struct txn_prefetch *p)
{
	/*
	 * The transaction is looked for in the token's own platform only:
	 * the join is on t.platform_id, whatever the caller sent.  Only its
	 * own quote can change it by expiring (expire_tx), and the row says
	 * when that quote expires (TXN_QUOTE_DUE_OF), so two tables are
	 * opened: the token's and the transaction's.  The index is named: left to itself the
	 * optimizer weighs every index that starts with platform_id on each
	 * execution, which costs more than the read.
	 */
	static const char sql[] =
	    "SELECT " TOKEN_AUTH_COLS ", " TXN_COLS_OF("x.") ", "
	    TXN_QUOTE_DUE_OF("x") TOKEN_AUTH_FROM
	    " LEFT JOIN transactions x FORCE INDEX (PRIMARY)"
	    " ON x.platform_id = t.platform_id AND x.id = ?"
	    " WHERE t.id = ?";
	struct db_val a[] = { DBS(txn_id), DBS(token_id) };
	struct db_rows r;
	int rc;

	memset(ta, 0, sizeof(*ta));
	memset(p, 0, sizeof(*p));
	str_copy(p->id, sizeof(p->id), txn_id);
	if ((rc = db_query_one(db, sql, a, NARGS(a), &r)) != DB_OK)
		return rc;
	token_auth_from_row(&r, ta);
	str_copy(p->platform_id, sizeof(p->platform_id), ta->platform_id);
	p->read = 1;
	p->due = db_cell_i64(&r, 0, TOKEN_AUTH_NCOLS + TXN_NCOLS) != 0;
	if (!p->due && db_cell(&r, 0, TOKEN_AUTH_NCOLS) != NULL) {
		db_txn_from_cols(&r, 0, TOKEN_AUTH_NCOLS, &p->t);
		p->found = 1;
	}
	db_rows_free(&r);
	return DB_OK;
}

int
db_txn_lock(struct db *db, const char *platform, const char *id, struct txn *out)
{
	return txn_read(db, platform, id, out, 1);
}

/*
 * The statements that read or change n transactions named by (platform,
 * id) pairs end in "id IN (?, ...) AND (platform_id, id) IN ((?, ?), ...)":
 * the row list alone lets MariaDB 10.11 walk a whole index (an UPDATE with
 * one pair reads every row of the table), the id list keeps the plan on
 * the primary key, which both name as well: on a small table, or with the
 * lock's other conditions, the optimizer may take the status index (and a
 * sort) instead (xborderctl explain-lists checks both statements).
 */
static char *
pairs_sql(const char *head, size_t n, const char *tail)
{
	char *ids = db_sql_list(head, "?", ", ", n, ") AND (platform_id, id) IN (");
	char *all = db_sql_list(ids, "(?, ?)", ", ", n, tail);

	free(ids);
	return all;
}

static size_t
bind_pairs(struct db_val *a, const char *const *platforms, const char *const *ids, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		a[i] = DBS(ids[i]);
		a[n + 2 * i] = DBS(platforms[i]);
		a[n + 2 * i + 1] = DBS(ids[i]);
	}
	return 3 * n;
}

/* db_txn_lock_many's statement for n pairs; 3 values, then the pairs'. */
static const char *
lock_many_sql(size_t n)
{
	static char *made[TXN_BATCH_MAX + 1];

	/* In id order: two batches lock common rows in the same order. */
	if (made[n] == NULL)
		made[n] = pairs_sql("SELECT " TXN_COLS ", UTC_TIMESTAMP(3)"
		    " FROM transactions FORCE INDEX (PRIMARY)"
		    " WHERE kind = ? AND status = ? AND outcome = ? AND id IN (", n,
		    ") ORDER BY id FOR UPDATE");
	return made[n];
}

/* set_status's statement for n pairs; 4 values, then the pairs'. */
static const char *
set_status_sql(size_t n)
{
	static char *made[TXN_BATCH_MAX + 1];

	if (made[n] == NULL)
		made[n] = pairs_sql("UPDATE transactions FORCE INDEX (PRIMARY)"
		    " SET status = ?, updated_at = ?,"
		    " settled_at = IF(? AND settled_at IS NULL, ?, settled_at) WHERE id IN (", n,
		    ")");
	return made[n];
}

int
db_txn_lock_many(struct db *db, const char *const *platforms, const char *const *ids,
    size_t n, const char *kind, const char *status, const char *outcome, struct txn *out,
    size_t *nout)
{
	struct db_val a[3 + 3 * TXN_BATCH_MAX];
	struct db_rows r;
	size_t k;
	int rc;

	*nout = 0;
	if (n == 0)
		return DB_OK;
	if (n > TXN_BATCH_MAX)
		return DB_ERR;
	a[0] = DBS(kind);
	a[1] = DBS(status);
	a[2] = DBS(outcome);
	k = 3 + bind_pairs(a + 3, platforms, ids, n);
	if ((rc = db_query(db, lock_many_sql(n), a, k, &r)) != DB_OK)
		return rc;
	for (size_t i = 0; i < r.nrows && i < n; i++) {
		txn_from_row(&r, i, &out[i]);
		str_copy(out[i].db_now, sizeof(out[i].db_now), db_cell(&r, i, TXN_NCOLS));
		(*nout)++;
	}
	db_rows_free(&r);
	return DB_OK;
}

int
db_txn_customers_but(struct db *db, const char *const *platforms, const char *const *ids,
    size_t n, const char *kind, const char *status, const char *outcome, struct db_rows *out)
{
	static char *made[TXN_BATCH_MAX + 1];
	struct db_val a[3 + 3 * TXN_BATCH_MAX];
	size_t k;

	memset(out, 0, sizeof(*out));
	if (n == 0)
		return DB_OK;
	if (n > TXN_BATCH_MAX)
		return DB_ERR;
	if (made[n] == NULL)
		made[n] = pairs_sql("SELECT DISTINCT platform_id, customer_id"
		    " FROM transactions FORCE INDEX (PRIMARY)"
		    " WHERE customer_id IS NOT NULL AND NOT (kind = ? AND status = ? AND outcome = ?)"
		    " AND id IN (", n, ") ORDER BY customer_id");
	a[0] = DBS(kind);
	a[1] = DBS(status);
	a[2] = DBS(outcome);
	k = 3 + bind_pairs(a + 3, platforms, ids, n);
	return db_query(db, made[n], a, k, out);
}

int
db_txn_change_explain(struct db *db, const char *platform, const char *id, size_t n,
    int lock, struct db_rows *out)
{
	const char *platforms[TXN_BATCH_MAX], *ids[TXN_BATCH_MAX];
	static char others[TXN_BATCH_MAX][UUID_LEN + 1];
	struct db_val a[4 + 3 * TXN_BATCH_MAX];
	size_t k;

	memset(out, 0, sizeof(*out));
	if (n == 0 || n > TXN_BATCH_MAX)
		return DB_ERR;
	/* id, then made-up ids that no row has. */
	for (size_t i = 0; i < n; i++) {
		snprintf(others[i], sizeof(others[i]), "00000000-0000-4000-8000-%012zx", i);
		platforms[i] = platform;
		ids[i] = i == 0 ? id : others[i];
	}
	a[0] = DBS(lock ? "TRANSFER_OUT" : "COMPLETED");
	a[1] = DBS(lock ? "PENDING" : "2026-01-01 00:00:00.000");
	a[2] = lock ? DBS("COMPLETES") : DBI(1);
	a[3] = DBS("2026-01-01 00:00:00.000");
	k = (lock ? 3 : 4);
	k += bind_pairs(a + k, platforms, ids, n);
	return db_explain(db, lock ? lock_many_sql(n) : set_status_sql(n), a, k, out);
}

int
db_txn_open_count(struct db *db, const char *customer_id, int64_t *count)
{
	/*
	 * A payout the bank will return is not finished until it is REFUNDED.
	 * A quote's transaction or a review case past its expiry is EXPIRED
	 * for this rule too, whether the worker has marked it yet or not
	 * (decisions.md section 1): neither can move any more.
	 */
	static const char sql[] =
	    "SELECT COUNT(*) FROM transactions WHERE customer_id = ?"
	    " AND ((status IN ('CREATED', 'PENDING', 'PROCESSING')"
	    "   AND NOT (status = 'CREATED' AND IFNULL(quote_expires_at <= UTC_TIMESTAMP(3), 0))"
	    "   AND NOT (status = 'PENDING' AND IFNULL(review_expires_at <= UTC_TIMESTAMP(3), 0)))"
	    " OR (status = 'COMPLETED' AND outcome = 'RETURNS'))";
	struct db_val a[] = { DBS(customer_id) };

	return db_read_i64(db, sql, a, NARGS(a), count);
}

/* One row of a change to txn_counts. */
struct count_delta {
	const char	*platform, *status, *type;
	int64_t		 n;
};

static int
delta_cmp(const void *a, const void *b)
{
	const struct count_delta *x = a, *y = b;
	int c;

	if ((c = strcmp(x->platform, y->platform)) != 0 ||
	    (c = strcmp(x->status, y->status)) != 0)
		return c;
	return strcmp(x->type, y->type);
}

/* Platform, then customer: the order customer count rows are written in. */
static int
customer_cmp(const void *a, const void *b)
{
	const struct txn *x = *(const struct txn *const *)a, *y = *(const struct txn *const *)b;
	int c = strcmp(x->platform_id, y->platform_id);

	return c != 0 ? c : strcmp(x->customer_id, y->customer_id);
}

/*
 * Writes the customers of the transactions of ts that have one in
 * txn_customer_counts, one row per customer in the shard, in one
 * statement, rows in a fixed order: each row adds one to `changes`, the
 * version of the customer's transactions (schema/029), and, for new
 * transactions (added), their number to `n` (schema/025); a status
 * change adds 0.
 */
static int
count_customers(struct db *db, const struct txn *ts, size_t n, int64_t shard, int added)
{
	static char *made[TXN_BATCH_MAX + 1];
	const struct txn *c[TXN_BATCH_MAX];
	struct db_val a[4 * TXN_BATCH_MAX];
	int64_t k[TXN_BATCH_MAX];
	size_t m = 0, rows = 0;

	for (size_t i = 0; i < n; i++)
		if (ts[i].customer_id[0] != '\0')
			c[m++] = &ts[i];
	if (m == 0)
		return DB_OK;
	qsort(c, m, sizeof(c[0]), customer_cmp);
	for (size_t i = 0; i < m; i++) {
		if (rows > 0 && customer_cmp(&c[i - 1], &c[i]) == 0) {
			k[rows - 1]++;
			continue;
		}
		a[4 * rows] = DBS(c[i]->platform_id);
		a[4 * rows + 1] = DBS(c[i]->customer_id);
		a[4 * rows + 2] = DBI(shard);
		k[rows++] = 1;
	}
	for (size_t i = 0; i < rows; i++)
		a[4 * i + 3] = DBI(added ? k[i] : 0);
	if (made[rows] == NULL)
		made[rows] = db_sql_list("INSERT INTO txn_customer_counts (platform_id, customer_id,"
		    " shard, n, changes) VALUES ", "(?, ?, ?, ?, 1)", ", ", rows,
		    " ON DUPLICATE KEY UPDATE n = n + VALUES(n), changes = changes + 1");
	return db_exec_later(db, made[rows], a, 4 * rows, -1, DB_ERR);
}

/*
 * Counts the n transactions ts in txn_counts: +1 each under its status
 * and, when old_status is set, -1 under that one, in one statement, in
 * this process's shard (db_count_shard).  The rows are summed and go in a
 * fixed order (platform, status, type), so two changes cannot wait on
 * each other's rows.  Every row written adds one to its `changes`, a row
 * whose sum is 0 too: the sum of a platform's `changes` is the version of
 * its transactions (schema/011_list_version.sql), and it must move with
 * every insert and status change, since each is one of these calls.  The
 * same goes for each customer's rows of txn_customer_counts (schema/029).
 */
int
db_txn_count(struct db *db, const struct txn *ts, size_t n, const char *old_status)
{
	static char *made[2 * TXN_BATCH_MAX + 1];
	struct count_delta d[2 * TXN_BATCH_MAX];
	struct db_val a[5 * 2 * TXN_BATCH_MAX];
	int64_t shard = db_count_shard();
	size_t k = 0, m = 0;
	int rc;

	if (n == 0 || n > TXN_BATCH_MAX)
		return DB_ERR;
	for (size_t i = 0; i < n; i++) {
		d[k++] = (struct count_delta){ ts[i].platform_id, ts[i].status, ts[i].type, 1 };
		if (old_status != NULL)
			d[k++] = (struct count_delta){ ts[i].platform_id, old_status,
			    ts[i].type, -1 };
	}
	qsort(d, k, sizeof(d[0]), delta_cmp);
	for (size_t i = 0; i < k; i++) {
		if (m > 0 && delta_cmp(&d[m - 1], &d[i]) == 0)
			d[m - 1].n += d[i].n;
		else
			d[m++] = d[i];
	}
	k = m;
	m = 0;
	for (size_t i = 0; i < k; i++) {
		a[5 * m] = DBS(d[i].platform);
		a[5 * m + 1] = DBS(d[i].status);
		a[5 * m + 2] = DBS(d[i].type);
		a[5 * m + 3] = DBI(shard);
		a[5 * m + 4] = DBI(d[i].n);
		m++;
	}
	if (made[m] == NULL)
		made[m] = db_sql_list("INSERT INTO txn_counts (platform_id, status, type, shard, n,"
		    " changes) VALUES ", "(?, ?, ?, ?, ?, 1)", ", ", m,
		    " ON DUPLICATE KEY UPDATE n = n + VALUES(n), changes = changes + 1");
	if ((rc = db_exec_later(db, made[m], a, 5 * m, -1, DB_ERR)) != DB_OK)
		return rc;
	/* Their customers' counts and versions too. */
	return count_customers(db, ts, n, shard, old_status == NULL);
}

int
db_txn_insert(struct db *db, const char *sql, const struct db_val *args, size_t n,
    struct txn *out)
{
	struct db_rows r;
	int rc;

	if ((rc = db_query_one(db, sql, args, n, &r)) != DB_OK)
		return rc == DB_NOT_FOUND ? DB_ERR : rc;
	txn_from_row(&r, 0, out);
	db_rows_free(&r);
	return DB_OK;
}

int
db_txn_status_write(struct db *db, const struct txn *ts, size_t n, const char *status,
    int settled, struct txn *changed)
{
	const char *platforms[TXN_BATCH_MAX], *ids[TXN_BATCH_MAX];
	struct db_val a[4 + 3 * TXN_BATCH_MAX];
	uint64_t rows = 0;
	size_t k;
	int rc;

	if (n == 0 || n > TXN_BATCH_MAX || strlen(status) >= sizeof(ts->status))
		return DB_ERR;
	for (size_t i = 0; i < n; i++) {
		if (ts[i].db_now[0] == '\0' || strcmp(ts[i].db_now, ts[0].db_now) != 0 ||
		    strcmp(ts[i].status, ts[0].status) != 0)
			return DB_ERR;	/* not read under its lock with the others */
		platforms[i] = ts[i].platform_id;
		ids[i] = ts[i].id;
	}
	a[0] = DBS(status);
	a[1] = DBS(ts[0].db_now);
	a[2] = DBI(settled);
	a[3] = DBS(ts[0].db_now);
	k = 4 + bind_pairs(a + 4, platforms, ids, n);
	if ((rc = db_exec(db, set_status_sql(n), a, k, &rows)) != DB_OK)
		return rc;
	if (rows != n)
		return DB_ERR;
	for (size_t i = 0; i < n; i++) {
		struct txn *c = &changed[i];

		txn_copy(&ts[i], c);
		str_copy(c->status, sizeof(c->status), status);
		ids_timestamp(ts[i].db_now, c->updated_at);
		if (settled && c->settled_at[0] == '\0')
			ids_timestamp(ts[i].db_now, c->settled_at);
	}
	return DB_OK;
}

int
db_transfer_insert(struct db *db, const char *platform, const char *id,
    const struct transfer *t, int out_dir, const char *pcid, int shard, struct txn *out)
{
	static const char ins[] =
	    "INSERT INTO transactions (id, platform_id, kind, type, status, customer_id,"
	    " platform_customer_id, internal_account_id, external_account_id,"
	    " destination_type, destination_ref, currency, amount, outcome, transit_shard,"
	    " created_at, updated_at) VALUES (?, ?, ?, ?, 'PENDING', ?, ?, ?, ?, ?, ?, ?, ?,"
	    " ?, ?, UTC_TIMESTAMP(3), UTC_TIMESTAMP(3)) RETURNING " TXN_COLS;
	struct db_val a[] = { DBS(id), DBS(platform),
	    DBS(out_dir ? "TRANSFER_OUT" : "TRANSFER_IN"),
	    DBS(out_dir ? "OUTGOING" : "INCOMING"), DBS(t->customer_id), DBS(pcid),
	    DBS(t->internal_account_id), DBS(t->external_account_id),
	    DBS(out_dir ? "EXTERNAL_ACCOUNT" : "PPV_ADDRESS"),
	    DBS(out_dir ? t->external_account_id : t->ppv_address),
	    DBS(t->currency), DBI(t->amount), DBS(t->outcome), DBI(shard) };

	return db_txn_insert(db, ins, a, NARGS(a), out);
}
