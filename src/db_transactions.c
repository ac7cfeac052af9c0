/*
 * db_transactions.c: SQL for transactions, transfers, background jobs and
 * idempotency records.  A transfer's money movement, its transaction row
 * and its settlement job are written in one database transaction, so a
 * crash leaves either all of them or none.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xborder/db.h"
#include "xborder/db_ledger.h"
#include "xborder/db_tokens.h"
#include "xborder/db_transactions.h"
#include "xborder/ids.h"
#include "xborder/util.h"

static void
txn_from_cols(const struct db_rows *r, size_t i, unsigned c, struct txn *t)
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

static void
txn_from_row(const struct db_rows *r, size_t i, struct txn *t)
{
	txn_from_cols(r, i, 0, t);
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
db_token_auth_get_txn(struct db *db, const char *token_id, const char *addr,
    const char *txn_id,
    struct token_auth *ta, struct txn_prefetch *p)
{
	/*
	 * The transaction is looked for in the token's own platform only:
	 * the join is on t.platform_id, whatever the caller sent.  Only its
	 * own quote can change it by expiring (expire_tx), and the row says
	 * when that quote expires (TXN_QUOTE_DUE_OF), so two tables are
	 * opened: the token's and the transaction's (this route never reads
	 * the configuration).  The index is named: left to itself the
	 * optimizer weighs every index that starts with platform_id on each
	 * execution, which costs more than the read.
	 */
	static const char sql[] =
	    "SELECT " TOKEN_AUTH_COLS_NO_CONFIG ", " TXN_COLS_OF("x.") ", "
	    TXN_QUOTE_DUE_OF("x") TOKEN_AUTH_FROM_NO_CONFIG
	    " LEFT JOIN transactions x FORCE INDEX (PRIMARY)"
	    " ON x.platform_id = t.platform_id AND x.id = ?" TOKEN_AUTH_FAILURES_JOIN
	    " WHERE t.id = ?";
	struct db_val a[] = { DBS(txn_id), DBS(addr), DBS(token_id) };
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
		txn_from_cols(&r, 0, TOKEN_AUTH_NCOLS, &p->t);
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

/* EXPLAIN of a statement with its values (xborderctl explain-lists). */
static int
explain(struct db *db, const char *sql, const struct db_val *a, size_t n,
    struct db_rows *out)
{
	size_t len = strlen(sql) + sizeof("EXPLAIN ");
	char *text = xmalloc(len);
	int rc;

	snprintf(text, len, "EXPLAIN %s", sql);
	rc = db_query_once(db, text, a, n, out);
	free(text);
	return rc;
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
	static char *made[JOB_BATCH_MAX + 1];

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
	static char *made[JOB_BATCH_MAX + 1];

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
	struct db_val a[3 + 3 * JOB_BATCH_MAX];
	struct db_rows r;
	size_t k;
	int rc;

	*nout = 0;
	if (n == 0)
		return DB_OK;
	if (n > JOB_BATCH_MAX)
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
db_txn_change_explain(struct db *db, const char *platform, const char *id, size_t n,
    int lock, struct db_rows *out)
{
	const char *platforms[JOB_BATCH_MAX], *ids[JOB_BATCH_MAX];
	static char others[JOB_BATCH_MAX][UUID_LEN + 1];
	struct db_val a[4 + 3 * JOB_BATCH_MAX];
	size_t k;

	memset(out, 0, sizeof(*out));
	if (n == 0 || n > JOB_BATCH_MAX)
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
	return explain(db, lock ? lock_many_sql(n) : set_status_sql(n), a, k, out);
}

/*
 * GET /transactions.  The statement depends on which filters are set (one
 * text per combination, made on first use and kept), so that MariaDB
 * walks the index of the filter in the list's order; a test runs EXPLAIN
 * on every combination (xborderctl explain-lists).  The page is found on
 * the index alone and only its rows are read whole (a deferred join), so
 * a deep cursor walks index entries, not rows (the page's few rows are put
 * in order here, not by a sort in the server); the first page read with
 * the token walks the index to its rows directly.  totalCount comes with
 * the page in the same statement: from txn_counts when only type and
 * status filter (no counting of rows), else by counting on the filter's
 * index.  So does whether quotes are due that the answer depends on.
 */
enum {
	TF_CUSTOMER = 1, TF_PCID = 2, TF_TYPE = 4, TF_STATUS = 8, TF_START = 16,
	TF_END = 32, TF_COMBINATIONS = 64
};

static unsigned
filter_mask(const struct txn_filter *f)
{
	return (f->customer_id ? TF_CUSTOMER : 0) | (f->platform_customer_id ? TF_PCID : 0) |
	    (f->type ? TF_TYPE : 0) | (f->status ? TF_STATUS : 0) |
	    (f->start ? TF_START : 0) | (f->end ? TF_END : 0);
}

/* Only type and status filter: the total is a sum of txn_counts rows. */
static int
counted(unsigned mask)
{
	return (mask & ~(unsigned)(TF_TYPE | TF_STATUS)) == 0;
}

/* The filters of mask, in bind_filter's order, on the columns of x ("" or "x."). */
static void
where_of(unsigned mask, const char *x, char *buf, size_t len)
{
	static const struct {
		unsigned	 bit;
		const char	*cond;
	} conds[] = {
		{ TF_CUSTOMER, "customer_id = ?" }, { TF_PCID, "platform_customer_id = ?" },
		{ TF_TYPE, "type = ?" }, { TF_STATUS, "status = ?" },
		{ TF_START, "created_at >= ?" }, { TF_END, "created_at <= ?" },
	};
	size_t n = (size_t)snprintf(buf, len, "%splatform_id = ?", x);

	for (size_t i = 0; i < sizeof(conds) / sizeof(conds[0]) && n < len; i++)
		if (mask & conds[i].bit)
			n += (size_t)snprintf(buf + n, len - n, " AND %s%s", x, conds[i].cond);
}

/*
 * The index a list with the filters of mask walks, named so the plan does
 * not depend on the optimizer's estimates: each has platform_id, its own
 * equality and then created_at (and the primary key id), the list's order.
 */
static const char *
index_of(unsigned mask)
{
	if (mask & TF_CUSTOMER)
		return "ix_transactions_customer";
	if (mask & TF_PCID)
		return "ix_transactions_pcid";
	if (mask & TF_STATUS)
		return "ix_transactions_status";
	if (mask & TF_TYPE)
		return "ix_transactions_type";
	return "ix_transactions_list";
}

/* The statement counting the rows of mask (without "SELECT "). */
static void
count_of(unsigned mask, char *buf, size_t len)
{
	char where[256];

	if (counted(mask)) {
		snprintf(buf, len, "COALESCE(SUM(n), 0) FROM txn_counts WHERE platform_id = ?%s%s",
		    mask & TF_TYPE ? " AND type = ?" : "", mask & TF_STATUS ? " AND status = ?" : "");
		return;
	}
	where_of(mask, "", where, sizeof(where));
	snprintf(buf, len, "COUNT(*) FROM transactions FORCE INDEX (%s) WHERE %s",
	    index_of(mask), where);
}

/* The page's ids on the filter's index: a derived table named page. */
static void
page_of(unsigned mask, char *buf, size_t len)
{
	char where[256];

	where_of(mask, "", where, sizeof(where));
	snprintf(buf, len, "(SELECT id FROM transactions FORCE INDEX (%s)"
	    " WHERE %s ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?) page",
	    index_of(mask), where);
}

const char *
db_txn_list_sql(unsigned mask, int page)
{
	static char *texts[4][TF_COMBINATIONS];
	char count[384], ids[512], buf[4096];

	if (mask >= TF_COMBINATIONS || page < 0 || page > 3)
		return NULL;
	if (texts[page][mask] == NULL) {
		/*
		 * Whether quotes are due (open and past their expiry) that the
		 * answer depends on: with a status filter, any of the platform's,
		 * which may change the page and the count; else only the page's
		 * own rows, whose status is all that expiring changes.
		 */
		const char *due = !(mask & TF_STATUS) ? TXN_QUOTE_DUE_OF("x") :
		    page == 1 ? QUOTES_DUE_SQL("x.platform_id") : QUOTES_DUE_SQL("t.platform_id");

		count_of(mask, count, sizeof(count));
		page_of(mask, ids, sizeof(ids));
		if (page == 0)
			snprintf(buf, sizeof(buf), "SELECT %s", count);
		else if (page == 1)
			/* The page's ids first, then their rows by primary key. */
			snprintf(buf, sizeof(buf), "SELECT STRAIGHT_JOIN " TXN_COLS_OF("x.")
			    ", (SELECT %s), %s FROM %s JOIN transactions x FORCE INDEX (PRIMARY)"
			    " USING (id)", count, due, ids);
		else if (page == 2)
			/*
			 * The token's row, once per row of the page (once when
			 * the page is empty); the rows only of the token's own
			 * platform, whatever platform the page was looked for in.
			 * A list never reads the configuration: not joined.
			 */
			snprintf(buf, sizeof(buf), "SELECT STRAIGHT_JOIN " TOKEN_AUTH_COLS_NO_CONFIG ", "
			    TXN_COLS_OF("x.") ", (SELECT %s), %s"
			    TOKEN_AUTH_FROM_NO_CONFIG " LEFT JOIN %s ON TRUE LEFT JOIN transactions x"
			    " FORCE INDEX (PRIMARY) ON x.id = page.id AND x.platform_id = t.platform_id"
			    TOKEN_AUTH_FAILURES_JOIN " WHERE t.id = ?",
			    count, due, ids);
		else {
			/*
			 * The first page with the token, without the page's
			 * ids in a derived table: the rows walked on the
			 * filter's index in the list's order and the token's
			 * row joined to each (no row when the page is empty or
			 * the token is not the platform's).
			 */
			where_of(mask, "x.", ids, sizeof(ids));
			snprintf(buf, sizeof(buf), "SELECT " TOKEN_AUTH_COLS_NO_CONFIG ", "
			    TXN_COLS_OF("x.") ", (SELECT %s), %s, " LIST_VERSION_OF("t.platform_id")
			    ", IF(x.status = 'CREATED', x.quote_expires_at, NULL)"
			    " FROM transactions x FORCE INDEX (%s) JOIN tokens t"
			    " ON t.id = ? AND t.platform_id = x.platform_id" TOKEN_AUTH_FAILURES_JOIN
			    " WHERE %s"
			    " ORDER BY x.created_at DESC, x.id DESC LIMIT ?",
			    count, due, index_of(mask), ids);
		}
		texts[page][mask] = xstrdup(buf);
	}
	return texts[page][mask];
}

/* The values of mask's placeholders: the count's, or the filter's. */
static size_t
bind_filter(const char *platform, const struct txn_filter *f, unsigned mask, int count,
    struct db_val *v)
{
	size_t n = 0;

	v[n++] = DBS(platform);
	if (count && counted(mask)) {
		if (mask & TF_TYPE)
			v[n++] = DBS(f->type);
		if (mask & TF_STATUS)
			v[n++] = DBS(f->status);
		return n;
	}
	if (mask & TF_CUSTOMER)
		v[n++] = DBS(f->customer_id);
	if (mask & TF_PCID)
		v[n++] = DBS(f->platform_customer_id);
	if (mask & TF_TYPE)
		v[n++] = DBS(f->type);
	if (mask & TF_STATUS)
		v[n++] = DBS(f->status);
	if (mask & TF_START)
		v[n++] = DBS(f->start);
	if (mask & TF_END)
		v[n++] = DBS(f->end);
	return n;
}

/* The values of a page statement's placeholders (count, page, limit, offset). */
static size_t
bind_page(const char *platform, const struct txn_filter *f, unsigned mask,
    int64_t limit, int64_t offset, struct db_val *v)
{
	size_t k = bind_filter(platform, f, mask, 1, v);

	k += bind_filter(platform, f, mask, 0, v + k);
	v[k++] = DBI(limit);
	v[k++] = DBI(offset);
	return k;
}

/* The values of the first page's statement (count, token, address, filter, limit). */
static size_t
bind_first(const char *platform, const struct txn_filter *f, unsigned mask,
    const char *token_id, const char *addr, int64_t limit, struct db_val *v)
{
	size_t k = bind_filter(platform, f, mask, 1, v);

	v[k++] = DBS(token_id);
	v[k++] = DBS(addr);
	k += bind_filter(platform, f, mask, 0, v + k);
	v[k++] = DBI(limit);
	return k;
}

unsigned
db_txn_list_combinations(void)
{
	return TF_COMBINATIONS;
}

int
db_txn_list_explain(struct db *db, const char *platform, const char *token_id,
    unsigned mask, int page, struct db_rows *out)
{
	/* Values of every filter; mask says which of them the statement has. */
	static const struct txn_filter sample = { "00000000-0000-4000-8000-000000000000",
	    "sample", "OUTGOING", "COMPLETED", "2026-01-01 00:00:00.000",
	    "2026-12-31 23:59:59.999" };
	const char *sql = db_txn_list_sql(mask, page);
	struct db_val v[20];
	size_t k;

	memset(out, 0, sizeof(*out));
	if (sql == NULL)
		return DB_ERR;
	if (page == 0)
		k = bind_filter(platform, &sample, mask, 1, v);
	else if (page == 3)
		k = bind_first(platform, &sample, mask, token_id, "127.0.0.1", 20, v);
	else
		k = bind_page(platform, &sample, mask, 20, 0, v);
	if (page == 2) {
		v[k++] = DBS("127.0.0.1");
		v[k++] = DBS(token_id);
	}
	return explain(db, sql, v, k, out);
}

/* Whether a row of a page says quotes are due (its column col). */
static int
any_due(const struct db_rows *r, size_t col)
{
	for (size_t i = 0; i < r->nrows; i++)
		if (db_cell_i64(r, i, col) != 0)
			return 1;
	return 0;
}

/* Newest first: createdAt descending, then id descending (decisions.md). */
static int
newest_first(const void *a, const void *b)
{
	const struct txn *x = a, *y = b;
	int c = strcmp(y->created_at, x->created_at);

	return c != 0 ? c : strcmp(y->id, x->id);
}

int
db_txn_list(struct db *db, const char *platform, const struct txn_filter *f,
    int64_t limit, int64_t offset, struct txn **out, size_t *n, int64_t *total, int *due)
{
	unsigned mask = filter_mask(f);
	struct db_val v[20];
	struct db_rows r;
	size_t k;
	int rc;

	*out = NULL;
	*n = 0;
	k = bind_page(platform, f, mask, limit, offset, v);
	if ((rc = db_query(db, db_txn_list_sql(mask, 1), v, k, &r)) != DB_OK)
		return rc;
	/*
	 * The rows say whether the platform has quotes past their expiry (an
	 * empty page cannot): if so, the caller expires them (whoever looks
	 * first writes it) and, when it expired any, reads the page again.
	 */
	if (due != NULL)
		*due = r.nrows == 0 || any_due(&r, TXN_NCOLS + 1);
	if (r.nrows > 0)
		*total = db_cell_i64(&r, 0, 24);
	else if (offset == 0)
		*total = 0;
	else {
		/* Past the end: no row carries the total. */
		struct db_rows c;

		db_rows_free(&r);
		k = bind_filter(platform, f, mask, 1, v);
		if ((rc = db_query(db, db_txn_list_sql(mask, 0), v, k, &c)) != DB_OK)
			return rc;
		*total = db_cell_i64(&c, 0, 0);
		db_rows_free(&c);
		return DB_OK;
	}
	*out = xcalloc(r.nrows ? r.nrows : 1, sizeof(**out));
	for (size_t i = 0; i < r.nrows; i++)
		txn_from_row(&r, i, &(*out)[i]);
	*n = r.nrows;
	db_rows_free(&r);
	qsort(*out, *n, sizeof(**out), newest_first);
	return DB_OK;
}

int
db_token_auth_get_list(struct db *db, const char *token_id, const char *addr,
    const char *platform,
    const struct txn_filter *f, int64_t limit, int64_t offset, struct token_auth *ta,
    struct txn_list_prefetch *p)
{
	enum {
		X = TOKEN_AUTH_NCOLS, TOTAL = X + TXN_NCOLS, DUE = TOTAL + 1,
		PAGE_VERSION = DUE + 1, PAGE_EXPIRES = DUE + 2
	};
	unsigned mask = filter_mask(f);
	int first = 0;
	struct db_val v[21];
	struct db_rows r;
	size_t k;
	int rc;

	memset(ta, 0, sizeof(*ta));
	txn_list_prefetch_free(p);
	r.nrows = 0;
	/*
	 * The first page: its rows walked in order with the token's row
	 * joined to each, which costs the server less than the page's ids in
	 * a derived table.  It has no row when the page is empty or the token
	 * is not the platform's: then the statement of every page, which has
	 * the token's row in any case.
	 */
	if (offset == 0) {
		k = bind_first(platform, f, mask, token_id, addr, limit, v);
		if ((rc = db_query(db, db_txn_list_sql(mask, 3), v, k, &r)) != DB_OK)
			return rc;
		if (r.nrows == 0)
			db_rows_free(&r);
		first = r.nrows > 0;
	}
	if (r.nrows == 0) {
		k = bind_page(platform, f, mask, limit, offset, v);
		v[k++] = DBS(addr);
		v[k++] = DBS(token_id);
		if ((rc = db_query(db, db_txn_list_sql(mask, 2), v, k, &r)) != DB_OK)
			return rc;
	}
	if (r.nrows == 0) {
		db_rows_free(&r);
		return DB_NOT_FOUND;
	}
	token_auth_from_row(&r, ta);
	str_copy(p->platform_id, sizeof(p->platform_id), platform);
	p->limit = limit;
	p->offset = offset;
	/* An empty page, or quotes to expire first: the handler reads it. */
	if (strcmp(ta->platform_id, platform) == 0 && db_cell(&r, 0, X) != NULL &&
	    !any_due(&r, DUE)) {
		p->list = xcalloc(r.nrows, sizeof(*p->list));
		for (size_t i = 0; i < r.nrows; i++)
			if (db_cell(&r, i, X) != NULL)
				txn_from_cols(&r, i, X, &p->list[p->n++]);
		p->total = db_cell_i64(&r, 0, TOTAL);
		qsort(p->list, p->n, sizeof(*p->list), newest_first);
		p->usable = 1;
		/* The first page's statement also says how long it stays the answer. */
		p->version = first ? db_cell_i64(&r, 0, PAGE_VERSION) : -1;
		for (size_t i = 0; first && i < r.nrows; i++) {
			const char *e = db_cell(&r, i, PAGE_EXPIRES);

			if (e != NULL && (p->expires[0] == '\0' || strcmp(e, p->expires) < 0))
				str_copy(p->expires, sizeof(p->expires), e);
		}
	}
	db_rows_free(&r);
	return DB_OK;
}

int
db_token_auth_get_version(struct db *db, const char *token_id, const char *addr,
    struct token_auth *ta,
    struct txn_list_prefetch *p)
{
	static const char sql[] =
	    "SELECT " TOKEN_AUTH_COLS_NO_CONFIG ", " LIST_VERSION_OF("t.platform_id")
	    ", UTC_TIMESTAMP(3)" TOKEN_AUTH_FROM_NO_CONFIG TOKEN_AUTH_FAILURES_JOIN
	    " WHERE t.id = ?";
	struct db_val a[] = { DBS(addr), DBS(token_id) };
	struct db_rows r;
	int rc;

	memset(ta, 0, sizeof(*ta));
	txn_list_prefetch_free(p);
	if ((rc = db_query_one(db, sql, a, NARGS(a), &r)) != DB_OK)
		return rc;
	token_auth_from_row(&r, ta);
	str_copy(p->platform_id, sizeof(p->platform_id), ta->platform_id);
	p->version = db_cell_i64(&r, 0, TOKEN_AUTH_NCOLS);
	str_copy(p->db_now, sizeof(p->db_now), db_cell(&r, 0, TOKEN_AUTH_NCOLS + 1));
	p->checked = 1;
	db_rows_free(&r);
	return DB_OK;
}

void
txn_list_prefetch_free(struct txn_list_prefetch *p)
{
	if (p->list != NULL)
		txn_list_free(p->list, p->n);
	memset(p, 0, sizeof(*p));
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
	struct db_rows r;
	int rc;

	if ((rc = db_query(db, sql, a, NARGS(a), &r)) != DB_OK)
		return rc;
	*count = db_cell_i64(&r, 0, 0);
	db_rows_free(&r);
	return DB_OK;
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

/*
 * Counts the n transactions ts in txn_counts: +1 each under its status
 * and, when old_status is set, -1 under that one, in one statement, in
 * this process's shard (db_count_shard).  The rows are summed and go in a
 * fixed order (platform, status, type), so two changes cannot wait on
 * each other's rows.  Every row written adds one to its `changes`, a row
 * whose sum is 0 too: the sum of a platform's `changes` is the version of
 * its transactions (schema/011_list_version.sql), and it must move with
 * every insert and status change, since each is one of these calls.
 */
int
db_txn_count(struct db *db, const struct txn *ts, size_t n, const char *old_status)
{
	static char *made[2 * JOB_BATCH_MAX + 1];
	struct count_delta d[2 * JOB_BATCH_MAX];
	struct db_val a[5 * 2 * JOB_BATCH_MAX];
	int64_t shard = db_count_shard();
	size_t k = 0, m = 0;

	if (n == 0 || n > JOB_BATCH_MAX)
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
	return db_exec(db, made[m], a, 5 * m, NULL);
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
	const char *platforms[JOB_BATCH_MAX], *ids[JOB_BATCH_MAX];
	struct db_val a[4 + 3 * JOB_BATCH_MAX];
	uint64_t rows = 0;
	size_t k;
	int rc;

	if (n == 0 || n > JOB_BATCH_MAX || strlen(status) >= sizeof(ts->status))
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
db_job_add(struct db *db, const char *kind, const char *ref_id, const char *platform,
    int64_t delay_ms)
{
	static const char sql[] =
	    "INSERT INTO jobs (kind, ref_id, platform_id, run_at, created_at)"
	    " VALUES (?, ?, ?, UTC_TIMESTAMP(3) + INTERVAL ? * 1000 MICROSECOND,"
	    " UTC_TIMESTAMP(3))";
	struct db_val a[] = { DBS(kind), DBS(ref_id), DBS(platform), DBI(delay_ms) };

	return db_exec(db, sql, a, NARGS(a), NULL);
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

struct job_args {
	const struct job_handler *h;
	struct job	*job;
	size_t		 limit;		/* how many to claim */
	size_t		 claimed;
	size_t		 failed;	/* the job that failed, when one did */
};

/*
 * Marking the batch's n jobs done checks the claim once more, by a write:
 * on Galera the claim's row lock is only this node's.  Certification
 * stops the second of two workers that did the same job on two nodes
 * (both wrote its row), but t/88-cluster.t once saw a claim read just
 * before the other node's commit was applied here, and the rest of its
 * transaction run after it and commit.  Changing fewer rows than it
 * claimed, the transaction runs again whole, and sees the job done.  One
 * statement for the batch, its text made per n on first use.
 */
static const char *
done_sql(size_t n)
{
	static char *made[JOB_BATCH_MAX + 1];

	if (n == 0 || n > JOB_BATCH_MAX)
		abort();
	if (made[n] == NULL)
		made[n] = db_sql_list("UPDATE jobs SET done_at = UTC_TIMESTAMP(3),"
		    " attempts = attempts + 1 WHERE done_at IS NULL AND id IN (", "?", ", ", n, ")");
	return made[n];
}

/*
 * Claims up to j->limit due jobs (oldest first, skipping those another
 * worker holds), runs each and marks them all done, in the caller's
 * transaction: one commit for the batch.
 */
static int
job_tx(struct db *db, void *arg)
{
	static const char claim[] =
	    "SELECT id, kind, ref_id, platform_id, attempts FROM jobs"
	    " WHERE done_at IS NULL AND run_at <= UTC_TIMESTAMP(3)"
	    " ORDER BY run_at LIMIT ? FOR UPDATE SKIP LOCKED";
	struct job_args *j = arg;
	struct db_val a[] = { DBI(j->limit) }, d[JOB_BATCH_MAX];
	unsigned char done[JOB_BATCH_MAX];
	struct db_rows r;
	uint64_t n = 0;
	int rc;

	j->claimed = 0;
	if ((rc = db_query(db, claim, a, NARGS(a), &r)) != DB_OK)
		return rc;
	for (size_t i = 0; i < r.nrows && i < j->limit; i++) {
		struct job *x = &j->job[i];

		x->id = db_cell_i64(&r, i, 0);
		str_copy(x->kind, sizeof(x->kind), db_cell(&r, i, 1));
		str_copy(x->ref_id, sizeof(x->ref_id), db_cell(&r, i, 2));
		str_copy(x->platform_id, sizeof(x->platform_id), db_cell(&r, i, 3));
		x->attempts = db_cell_i64(&r, i, 4);
		j->claimed++;
	}
	db_rows_free(&r);
	if (j->claimed == 0)
		return DB_OK;
	memset(done, 0, sizeof(done));
	j->failed = 0;
	if (j->h->begin != NULL &&
	    (rc = j->h->begin(db, j->job, j->claimed, done, j->h->arg)) != DB_OK)
		return rc;
	for (size_t i = 0; i < j->claimed; i++) {
		d[i] = DBI(j->job[i].id);
		if (done[i])
			continue;
		j->failed = i;
		if ((rc = j->h->run(db, &j->job[i], j->h->arg)) != DB_OK)
			return rc;
	}
	j->failed = 0;
	if (j->h->end != NULL && (rc = j->h->end(db, j->h->arg)) != DB_OK)
		return rc;
	if ((rc = db_exec(db, done_sql(j->claimed), d, j->claimed, &n)) != DB_OK)
		return rc;
	if (n != j->claimed) {
		log_msg(LOG_LVL_INFO, NULL, "%llu of a batch of %zu jobs were done meanwhile by"
		    " another worker", (unsigned long long)(j->claimed - n), j->claimed);
		return DB_RETRY;
	}
	return DB_OK;
}

int
db_job_run(struct db *db, const struct job_handler *h, struct job *ran, size_t max,
    char *err, size_t errlen)
{
	/* Backoff doubles from one second up to five minutes. */
	static const char retry[] =
	    "UPDATE jobs SET attempts = attempts + 1, last_error = ?,"
	    " run_at = UTC_TIMESTAMP(3) + INTERVAL LEAST(300, POW(2, LEAST(attempts, 9))) SECOND"
	    " WHERE id = ?";
	struct job_args j;
	int rc;

	err[0] = '\0';
	memset(&j, 0, sizeof(j));
	j.h = h;
	j.job = ran;
	j.limit = max > 0 ? (max < JOB_BATCH_MAX ? max : JOB_BATCH_MAX) : 1;
	rc = db_transact(db, job_tx, &j);
	if (rc == DB_OK)
		return (int)j.claimed;
	if (rc == DB_UNAVAILABLE || j.claimed == 0)
		return rc < 0 ? rc : DB_ERR;
	if (j.claimed > 1) {
		/*
		 * One job of the batch failed, and the batch with it: run again
		 * the ones before it (they succeeded), or, when it was the first,
		 * that one alone, to reschedule it; the rest come again in the
		 * next batch.
		 */
		j.limit = j.failed > 0 ? j.failed : 1;
		if ((rc = db_transact(db, job_tx, &j)) == DB_OK)
			return (int)j.claimed;
		if (rc == DB_UNAVAILABLE || j.claimed == 0)
			return rc < 0 ? rc : DB_ERR;
	}
	snprintf(err, errlen, "%s%s%s", db_rc_name(rc), rc < 0 ? ": " : "",
	    rc < 0 ? db_error(db) : "");
	{
		char msg[256];	/* last_error is VARCHAR(255) */
		struct db_val a[2];

		/* The text first: DBS() takes its length when it is evaluated. */
		snprintf(msg, sizeof(msg), "%s", err);
		a[0] = DBS(msg);
		a[1] = DBI(ran[0].id);

		if (db_exec(db, retry, a, NARGS(a), NULL) != DB_OK)
			return DB_ERR;
	}
	return 1;
}

/*
 * The purge deletes at most PURGE_ROWS rows a statement (each its own
 * short transaction), and repeats a statement that deleted as many up to
 * PURGE_STATEMENTS times a call: 20,000 rows of a table a minute at least,
 * more when the worker calls again at once (*more).
 */
#define PURGE_ROWS 1000
#define PURGE_LIMIT " LIMIT 1000"	/* PURGE_ROWS */
#define PURGE_STATEMENTS 20

static int
purge(struct db *db, const char *sql, const struct db_val *a, size_t na, uint64_t *n,
    int *more)
{
	for (int i = 0; i < PURGE_STATEMENTS; i++) {
		uint64_t k = 0;
		int rc;

		if ((rc = db_exec(db, sql, a, na, &k)) != DB_OK)
			return rc;
		*n += k;
		if (k < PURGE_ROWS)
			return DB_OK;
	}
	*more = 1;
	return DB_OK;
}

int
db_idem_purge(struct db *db, uint64_t *n, int *more)
{
	static const char keys[] =
	    "DELETE FROM idempotency_keys WHERE expires_at < UTC_TIMESTAMP(3)" PURGE_LIMIT;
	static const char jobs[] =
	    "DELETE FROM jobs WHERE done_at < UTC_TIMESTAMP(3) - INTERVAL 1 DAY" PURGE_LIMIT;
	static const char platforms[] = "SELECT id FROM platforms";
	/*
	 * The delivery log keeps 30 days of finished events.  Platform by
	 * platform, so that each statement walks (platform_id, created_at) of
	 * ix_webhook_events_list to the old rows only: without the platform,
	 * MariaDB read every finished event of every platform a minute.
	 */
	static const char events[] =
	    "DELETE FROM webhook_events WHERE platform_id = ?"
	    " AND created_at < UTC_TIMESTAMP(3) - INTERVAL 30 DAY AND status <> 'PENDING'"
	    " ORDER BY created_at" PURGE_LIMIT;
	struct db_rows r;
	int rc;

	*n = 0;
	*more = 0;
	if ((rc = purge(db, keys, NULL, 0, n, more)) != DB_OK ||
	    (rc = purge(db, jobs, NULL, 0, n, more)) != DB_OK ||
	    (rc = db_query(db, platforms, NULL, 0, &r)) != DB_OK)
		return rc;
	for (size_t i = 0; i < r.nrows && rc == DB_OK; i++) {
		struct db_val a[] = { DBS(db_cell(&r, i, 0)) };

		rc = purge(db, events, a, NARGS(a), n, more);
	}
	db_rows_free(&r);
	return rc;
}

int
db_idem_begin(struct db *db, const char *platform, const char *key, const char *hash,
    int64_t lease_s, char claim[37], enum idem_state *state, int *status, char **body)
{
	static const char ins[] =
	    "INSERT INTO idempotency_keys (platform_id, idem_key, request_hash, state,"
	    " claim_id, lease_until, created_at, expires_at)"
	    " VALUES (?, ?, ?, 'RUNNING', ?, UTC_TIMESTAMP(3) + INTERVAL ? SECOND,"
	    " UTC_TIMESTAMP(3), UTC_TIMESTAMP(3) + INTERVAL 24 HOUR)";
	static const char get[] =
	    "SELECT request_hash, state, response_status, response_body,"
	    " expires_at < UTC_TIMESTAMP(3), claim_id,"
	    " IFNULL(lease_until < UTC_TIMESTAMP(3), 1) FROM idempotency_keys"
	    " WHERE platform_id = ? AND idem_key = ?";
	static const char drop[] =
	    "DELETE FROM idempotency_keys WHERE platform_id = ? AND idem_key = ?"
	    " AND expires_at < UTC_TIMESTAMP(3)";
	/* Takes over a claim whose lease passed: its worker died, or gave up. */
	static const char take[] =
	    "SET STATEMENT innodb_lock_wait_timeout = 1 FOR"
	    " UPDATE idempotency_keys SET claim_id = ?,"
	    " lease_until = UTC_TIMESTAMP(3) + INTERVAL ? SECOND"
	    " WHERE platform_id = ? AND idem_key = ? AND state = 'RUNNING'"
	    " AND claim_id <=> ? AND IFNULL(lease_until < UTC_TIMESTAMP(3), 1)";
	struct db_val a[] = { DBS(platform), DBS(key), DBS(hash),
	    { DBV_STR, claim, UUID_LEN, 0 }, DBI(lease_s) };
	struct db_rows r;
	uint64_t n;
	int rc;

	*body = NULL;
	ids_uuid4(claim);	/* a[3] points at it */
	for (int attempt = 0; attempt < 4; attempt++) {
		rc = db_exec(db, ins, a, NARGS(a), NULL);
		if (rc == DB_OK) {
			*state = IDEM_NEW;
			return DB_OK;
		}
		/*
		 * On Galera the same key inserted on two nodes at once is a
		 * certification conflict (1213), not a duplicate: the loser
		 * looks again and finds the winner's row.
		 */
		if (rc == DB_RETRY)
			continue;
		if (rc != DB_DUPLICATE)
			return rc;
		if ((rc = db_query(db, get, a, 2, &r)) != DB_OK)
			return rc;
		if (r.nrows == 0) {	/* forgotten meanwhile: try again */
			db_rows_free(&r);
			continue;
		}
		if (db_cell_i64(&r, 0, 4)) {	/* expired: the key is free again */
			db_rows_free(&r);
			if ((rc = db_exec(db, drop, a, 2, NULL)) != DB_OK)
				return rc;
			continue;
		}
		if (strcmp(db_cell(&r, 0, 0), hash) != 0)
			*state = IDEM_REUSED;
		else if (strcmp(db_cell(&r, 0, 1), "RUNNING") == 0) {
			*state = IDEM_IN_USE;
			if (db_cell_i64(&r, 0, 6)) {
				struct db_val t[] = { DBS(claim), DBI(lease_s),
				    DBS(platform), DBS(key), DBSN(db_cell(&r, 0, 5)) };

				/* A claim held under a row lock stays IN_USE. */
				rc = db_exec(db, take, t, NARGS(t), &n);
				if (rc != DB_OK && rc != DB_RETRY) {
					db_rows_free(&r);
					return rc;
				}
				if (rc == DB_OK && n == 1) {
					log_msg(LOG_LVL_WARN, NULL, "idempotency key claim"
					    " taken over after its lease passed");
					*state = IDEM_NEW;
				}
			}
		} else {
			*state = IDEM_REPLAY;
			*status = (int)db_cell_i64(&r, 0, 2);
			*body = xstrdup(db_cell(&r, 0, 3) ? db_cell(&r, 0, 3) : "{}");
		}
		db_rows_free(&r);
		return DB_OK;
	}
	return DB_ERR;
}

int
db_idem_finish(struct db *db, const char *platform, const char *key, const char *claim,
    int status, const char *body)
{
	static const char sql[] =
	    "UPDATE idempotency_keys SET state = 'DONE', response_status = ?,"
	    " response_body = ?, claim_id = NULL, lease_until = NULL"
	    " WHERE platform_id = ? AND idem_key = ? AND claim_id = ?";
	struct db_val a[] = { DBI(status), DBS(body), DBS(platform), DBS(key), DBS(claim) };
	uint64_t n = 0;
	int rc;

	if ((rc = db_exec(db, sql, a, NARGS(a), &n)) != DB_OK)
		return rc;
	return n == 1 ? DB_OK : DB_CONFLICT;
}

int
db_idem_forget(struct db *db, const char *platform, const char *key, const char *claim)
{
	static const char sql[] =
	    "DELETE FROM idempotency_keys WHERE platform_id = ? AND idem_key = ?"
	    " AND claim_id = ? AND state = 'RUNNING'";
	struct db_val a[] = { DBS(platform), DBS(key), DBS(claim) };

	return db_exec(db, sql, a, NARGS(a), NULL);
}
