/*
 * db_txn_lists.c: SQL of GET /transactions' pages: one statement text per
 * combination of filters, the page with its total in one round trip, the
 * first page read with the caller's token and the version that says a
 * page a worker keeps still holds, and their EXPLAIN for xborderctl
 * explain-lists.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xborder/db.h"
#include "xborder/db_tokens.h"
#include "xborder/db_txn_anchors.h"
#include "xborder/db_txn_lists.h"
#include "xborder/util.h"

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
 * status filter, from txn_customer_counts when only customerId does (no
 * counting of rows), else by counting on the filter's index.  So does
 * whether quotes are due that the answer depends on.
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

/* Only customerId filters: the total is a sum of txn_customer_counts rows. */
static int
customer_counted(unsigned mask)
{
	return mask == TF_CUSTOMER;
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
	if (customer_counted(mask)) {
		snprintf(buf, len, "COALESCE(SUM(n), 0) FROM txn_customer_counts"
		    " WHERE platform_id = ? AND customer_id = ?");
		return;
	}
	where_of(mask, "", where, sizeof(where));
	snprintf(buf, len, "COUNT(*) FROM transactions FORCE INDEX (%s) WHERE %s",
	    index_of(mask), where);
}

/*
 * Whether a page of mask is not looked for past the count: when the count
 * is kept (txn_counts, txn_customer_counts), a page whose offset is at or
 * past it is empty without walking the index that far (MariaDB finds the
 * condition false before the walk: "Impossible WHERE").
 */
static int
guarded(unsigned mask)
{
	return counted(mask) || customer_counted(mask);
}

/* The page's ids on the filter's index: a derived table named page. */
static void
page_of(unsigned mask, char *buf, size_t len)
{
	char where[256], count[384], guard[416] = "";

	where_of(mask, "", where, sizeof(where));
	if (guarded(mask)) {
		count_of(mask, count, sizeof(count));
		snprintf(guard, sizeof(guard), " AND ? < (SELECT %s)", count);
	}
	snprintf(buf, len, "(SELECT id FROM transactions FORCE INDEX (%s)"
	    " WHERE %s%s ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?) page",
	    index_of(mask), where, guard);
}

const char *
db_txn_list_sql(unsigned mask, int page)
{
	static char *texts[5][TF_COMBINATIONS];
	char count[384], ids[512], extra[768], buf[4096];

	if (mask >= TF_COMBINATIONS || page < 0 || page > 4)
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
		/*
		 * Until when a first page holds, time alone: the expiry of a
		 * quote open on the page's rows (none on an empty page); with
		 * a status filter, of any quote open in the platform, whose
		 * expiry may add a row to the page or take one off.
		 */
		const char *until = !(mask & TF_STATUS) ?
		    "IF(x.status = 'CREATED', x.quote_expires_at, NULL)" :
		    "LEAST(" QUOTE_OPEN_MIN("t.platform_id", "QUOTE_READY") ", "
		    QUOTE_OPEN_MIN("t.platform_id", "BLOCKED") ")";

		count_of(mask, count, sizeof(count));
		page_of(mask, ids, sizeof(ids));
		/*
		 * A first page read with the token: the version (of the
		 * customer's transactions when customerId filters: version_bind),
		 * and until.
		 */
		snprintf(extra, sizeof(extra), ", %s, %s", (mask & TF_CUSTOMER) ?
		    LIST_VERSION_OF_CUSTOMER("t.platform_id") : LIST_VERSION_OF("t.platform_id"),
		    until);
		if (page == 0)
			snprintf(buf, sizeof(buf), "SELECT %s", count);
		else if (page == 1)
			/* The page's ids first, then their rows by primary key. */
			snprintf(buf, sizeof(buf), "SELECT STRAIGHT_JOIN " TXN_COLS_OF("x.")
			    ", (SELECT %s), %s FROM %s JOIN transactions x FORCE INDEX (PRIMARY)"
			    " USING (id)", count, due, ids);
		else if (page == 2 || page == 4)
			/*
			 * The token's row, once per row of the page (once when
			 * the page is empty); the rows only of the token's own
			 * platform, whatever platform the page was looked for in.
			 * Page 4 is a first page that the walk of page 3 found
			 * no row of: empty, or not the token's platform.
			 */
			snprintf(buf, sizeof(buf), "SELECT STRAIGHT_JOIN " TOKEN_AUTH_COLS ", "
			    TXN_COLS_OF("x.") ", (SELECT %s), %s%s"
			    TOKEN_AUTH_FROM " LEFT JOIN %s ON TRUE LEFT JOIN transactions x"
			    " FORCE INDEX (PRIMARY) ON x.id = page.id AND x.platform_id = t.platform_id"
			    " WHERE t.id = ?",
			    count, due, page == 4 ? extra : "", ids);
		else {
			/*
			 * The first page with the token, without the page's
			 * ids in a derived table: the rows walked on the
			 * filter's index in the list's order and the token's
			 * row joined to each (no row when the page is empty or
			 * the token is not the platform's).
			 */
			where_of(mask, "x.", ids, sizeof(ids));
			snprintf(buf, sizeof(buf), "SELECT " TOKEN_AUTH_COLS ", "
			    TXN_COLS_OF("x.") ", (SELECT %s), %s%s FROM transactions x"
			    " FORCE INDEX (%s) JOIN tokens t"
			    " ON t.id = ? AND t.platform_id = x.platform_id"
			    " WHERE %s"
			    " ORDER BY x.created_at DESC, x.id DESC LIMIT ?",
			    count, due, extra, index_of(mask), ids);
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

/*
 * The value of the version's placeholder in a first page's statement (page
 * 3 or 4), after the count's: the customer, when customerId filters
 * (LIST_VERSION_OF_CUSTOMER); the platform's version has none.
 */
static size_t
version_bind(const struct txn_filter *f, unsigned mask, struct db_val *v)
{
	if (!(mask & TF_CUSTOMER))
		return 0;
	v[0] = DBS(f->customer_id);
	return 1;
}

/*
 * The values of a page statement's placeholders: the count's, the
 * version's (first: page 4), then the page's (page_of: the filter's, the
 * offset and the count's when guarded, limit and offset).
 */
static size_t
bind_page(const char *platform, const struct txn_filter *f, unsigned mask,
    int64_t limit, int64_t offset, int first, struct db_val *v)
{
	size_t k = bind_filter(platform, f, mask, 1, v);

	if (first)
		k += version_bind(f, mask, v + k);
	k += bind_filter(platform, f, mask, 0, v + k);
	if (guarded(mask)) {
		v[k++] = DBI(offset);
		k += bind_filter(platform, f, mask, 1, v + k);
	}
	v[k++] = DBI(limit);
	v[k++] = DBI(offset);
	return k;
}

/*
 * The values of the first page's statement (count, version, token,
 * filter, limit).
 */
static size_t
bind_first(const char *platform, const struct txn_filter *f, unsigned mask,
    const char *token_id, int64_t limit, struct db_val *v)
{
	size_t k = bind_filter(platform, f, mask, 1, v);

	k += version_bind(f, mask, v + k);
	v[k++] = DBS(token_id);
	k += bind_filter(platform, f, mask, 0, v + k);
	v[k++] = DBI(limit);
	return k;
}

int
db_txn_list_anchored(const struct txn_filter *f, int64_t offset)
{
	unsigned mask = filter_mask(f);

	return (mask == 0 || mask == TF_TYPE || mask == TF_CUSTOMER) &&
	    offset >= TXN_ANCHOR_MIN_OFFSET;
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
		k = bind_first(platform, &sample, mask, token_id, 20, v);
	else
		k = bind_page(platform, &sample, mask, 20, 0, page == 4, v);
	if (page == 2 || page == 4)
		v[k++] = DBS(token_id);
	return db_explain(db, sql, v, k, out);
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
	int rc, found;

	*out = NULL;
	*n = 0;
	k = bind_page(platform, f, mask, limit, offset, 0, v);
	/*
	 * A deep page of the whole list, of a type's or of a customer's
	 * starts at an anchor when one serves.
	 */
	found = 0;
	if (db_txn_list_anchored(f, offset)) {
		struct txn_anchor_list l = { f->type, f->customer_id };

		if ((rc = db_txn_anchor_page(db, platform, &l, limit, offset, &r,
		    &found)) != DB_OK)
			return rc;
	}
	if (!found && (rc = db_query(db, db_txn_list_sql(mask, 1), v, k, &r)) != DB_OK)
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
		db_txn_from_cols(&r, i, 0, &(*out)[i]);
	*n = r.nrows;
	db_rows_free(&r);
	qsort(*out, *n, sizeof(**out), newest_first);
	return DB_OK;
}

/* The columns of a page read with the token, after the token's own. */
enum {
	PAGE_X = TOKEN_AUTH_NCOLS, PAGE_TOTAL = PAGE_X + TXN_NCOLS, PAGE_DUE = PAGE_TOTAL + 1,
	PAGE_VERSION = PAGE_DUE + 1, PAGE_EXPIRES = PAGE_DUE + 2
};

/*
 * Takes the page of rows r, read with the token, into p, usable: its
 * transactions newest first and its total; for the first page (first),
 * also the version of the platform's transactions and the earliest expiry
 * of a quote open on it, which say how long it stays the answer.
 */
static void
page_take(const struct db_rows *r, int first, struct txn_list_prefetch *p)
{
	p->list = xcalloc(r->nrows, sizeof(*p->list));
	for (size_t i = 0; i < r->nrows; i++)
		if (db_cell(r, i, PAGE_X) != NULL)
			db_txn_from_cols(r, i, PAGE_X, &p->list[p->n++]);
	p->total = db_cell_i64(r, 0, PAGE_TOTAL);
	qsort(p->list, p->n, sizeof(*p->list), newest_first);
	p->usable = 1;
	p->version = first ? db_cell_i64(r, 0, PAGE_VERSION) : -1;
	for (size_t i = 0; first && i < r->nrows; i++) {
		const char *e = db_cell(r, i, PAGE_EXPIRES);

		if (e != NULL && (p->expires[0] == '\0' || strcmp(e, p->expires) < 0))
			str_copy(p->expires, sizeof(p->expires), e);
	}
}

int
db_token_auth_get_list(struct db *db, const char *token_id,
    const char *platform,
    const struct txn_filter *f, int64_t limit, int64_t offset, struct token_auth *ta,
    struct txn_list_prefetch *p)
{
	unsigned mask = filter_mask(f);
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
	 * the token's row in any case (for a first page, with the version and
	 * until when it holds, so that an empty first page is kept too).
	 */
	if (offset == 0) {
		k = bind_first(platform, f, mask, token_id, limit, v);
		if ((rc = db_query(db, db_txn_list_sql(mask, 3), v, k, &r)) != DB_OK)
			return rc;
		if (r.nrows == 0)
			db_rows_free(&r);
	}
	if (r.nrows == 0) {
		k = bind_page(platform, f, mask, limit, offset, offset == 0, v);
		v[k++] = DBS(token_id);
		if ((rc = db_query(db, db_txn_list_sql(mask, offset == 0 ? 4 : 2), v, k,
		    &r)) != DB_OK)
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
	/*
	 * In the token's platform, a row without a transaction is an empty
	 * page (its total and whether quotes are due are on the token's row).
	 * Quotes to expire first: the handler reads it.
	 */
	if (strcmp(ta->platform_id, platform) == 0 &&
	    (db_cell(&r, 0, PAGE_X) != NULL || r.nrows == 1) && !any_due(&r, PAGE_DUE))
		page_take(&r, offset == 0, p);
	db_rows_free(&r);
	return DB_OK;
}

int
db_token_auth_get_version(struct db *db, const char *token_id,
    const char *customer_id, struct token_auth *ta,
    struct txn_list_prefetch *p)
{
	static const char sql[] =
	    "SELECT " TOKEN_AUTH_COLS ", " LIST_VERSION_OF("t.platform_id")
	    ", UTC_TIMESTAMP(3)" TOKEN_AUTH_FROM
	    " WHERE t.id = ?";
	static const char customer_sql[] =
	    "SELECT " TOKEN_AUTH_COLS ", " LIST_VERSION_OF_CUSTOMER("t.platform_id")
	    ", UTC_TIMESTAMP(3)" TOKEN_AUTH_FROM
	    " WHERE t.id = ?";
	struct db_val a[2];
	struct db_rows r;
	size_t k = 0;
	int rc;

	memset(ta, 0, sizeof(*ta));
	txn_list_prefetch_free(p);
	if (customer_id != NULL)
		a[k++] = DBS(customer_id);
	a[k++] = DBS(token_id);
	if ((rc = db_query_one(db, customer_id != NULL ? customer_sql : sql, a, k,
	    &r)) != DB_OK)
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
