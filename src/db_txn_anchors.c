/*
 * db_txn_anchors.c: SQL of the anchors of GET /transactions' deep pages.
 *
 * A cursor is a decimal offset, newest first (decisions.md section 3), so
 * the page at offset k of the unfiltered list walked k entries of
 * ix_transactions_list.  Transactions never leave the list and a new one
 * is always the newest, so once every older row is committed, a row's
 * position counted from the oldest (seq) never changes.  Nor does its
 * position among the rows of its type or of its customer, neither of
 * which ever changes: the lists filtered by type (schema/024) and by
 * customer (schema/026, counted in txn_customer_counts) have anchors of
 * their own.
 * xborder-worker records (db_txn_anchors_place) the row at positions 0,
 * step, 2 step, ... of each list among rows older than a delay longer
 * than any transaction stays open; a page at offset k of a list of N rows
 * starts at position p = N - 1 - k, so it walks down from the nearest
 * anchor at or above p and skips seq - p < step entries instead of k.  A
 * page above the newest anchor (among rows younger than the delay) walks
 * up from that anchor when that is shorter than the walk down from the
 * newest row: the rows above an anchor are counted in the same reading as
 * the list's count, so their positions are exact there too.
 */
#include "config.h"

#include <string.h>

#include "xborder/db.h"
#include "xborder/db_transactions.h"
#include "xborder/db_txn_anchors.h"
#include "xborder/util.h"

/* How often a page looks again when the list changed between its statements. */
#define PAGE_ATTEMPTS 3

/*
 * The statements of one anchored list: the whole list (type and
 * customer_id '' in txn_anchors), the list of one type, or of one
 * customer.  Each names the list's rows (its count's and its walk's) with
 * the platform, then the type or the customer: cond and bind_list.
 */
struct anchor_sql {
	const char	*find, *below, *page, *up, *first, *next, *gap;
};

enum { LIST_ALL, LIST_TYPE, LIST_CUSTOMER };

/* The row count of a list (the page's totalCount) from its counts table, a subquery. */
#define COUNT_ROWS(counts, cond) "(SELECT COALESCE(SUM(n), 0) FROM " counts \
	" WHERE platform_id = ?" cond ")"

/*
 * The list's nearest anchor at or above the position of offset ?, with
 * the list's row count that says where that position is: both subqueries
 * run once, in the statement's one reading; no row when no anchor is
 * there.  Its anchors: platform_id = ? AND type = ? AND customer_id = ?
 * ('' and '' for the whole list).
 */
#define FIND(cond, counts) "SELECT " COUNT_ROWS(counts, cond) ", seq, created_at, id" \
	" FROM txn_anchors WHERE platform_id = ? AND type = ? AND customer_id = ?" \
	" AND seq >= " COUNT_ROWS(counts, cond) " - 1 - ? ORDER BY seq LIMIT 1"

/*
 * When none is: the list's nearest anchor at or below the lowest position
 * of the page at offset ? of ? rows (N - offset - limit), with the count.
 */
#define BELOW(cond, counts) "SELECT " COUNT_ROWS(counts, cond) ", seq, created_at, id" \
	" FROM txn_anchors WHERE platform_id = ? AND type = ? AND customer_id = ?" \
	" AND seq <= " COUNT_ROWS(counts, cond) " - ? - ? ORDER BY seq DESC LIMIT 1"

/*
 * The page walked down from an anchor (its row included), with the
 * columns of db_txn_list_sql(mask, 1): the rows, the count, whether the
 * row's quote is due.
 */
#define PAGE(index, cond, counts) "SELECT STRAIGHT_JOIN " TXN_COLS_OF("x.") ", " \
	COUNT_ROWS(counts, cond) ", " \
	TXN_QUOTE_DUE_OF("x") \
	" FROM (SELECT id FROM transactions FORCE INDEX (" index ")" \
	" WHERE platform_id = ?" cond " AND (created_at < ? OR (created_at = ? AND id <= ?))" \
	" ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?) page" \
	" JOIN transactions x FORCE INDEX (PRIMARY) USING (id)"

/* Microseconds until the row is ? seconds old (negative: it is older). */
#define YOUNG_US "TIMESTAMPDIFF(MICROSECOND, UTC_TIMESTAMP(3), created_at + INTERVAL ? SECOND)"

/* The list's oldest row, and how long until it is older than ? seconds. */
#define FIRST(index, cond) "SELECT created_at, id, " YOUNG_US \
	" FROM transactions FORCE INDEX (" index ") WHERE platform_id = ?" cond \
	" ORDER BY created_at, id LIMIT 1"

/* The row step positions past an anchor, and how long until it is older than ? seconds. */
#define NEXT(index, cond) "SELECT created_at, id, " YOUNG_US \
	" FROM transactions FORCE INDEX (" index ")" \
	" WHERE platform_id = ?" cond " AND (created_at > ? OR (created_at = ? AND id > ?))" \
	" ORDER BY created_at, id LIMIT 1 OFFSET ?"

/* How many rows of the list lie after one row and up to another (included). */
#define GAP(index, cond) "SELECT COUNT(*) FROM transactions FORCE INDEX (" index ")" \
	" WHERE platform_id = ?" cond " AND (created_at > ? OR (created_at = ? AND id > ?))" \
	" AND (created_at < ? OR (created_at = ? AND id <= ?))"

/*
 * The page walked up from an anchor below it (its row included), in the
 * list's ascending order, with the columns of PAGE: the caller puts the
 * rows newest first.
 */
#define UP(index, cond, counts) "SELECT STRAIGHT_JOIN " TXN_COLS_OF("x.") ", " \
	COUNT_ROWS(counts, cond) ", " \
	TXN_QUOTE_DUE_OF("x") \
	" FROM (SELECT id FROM transactions FORCE INDEX (" index ")" \
	" WHERE platform_id = ?" cond " AND (created_at > ? OR (created_at = ? AND id >= ?))" \
	" ORDER BY created_at, id LIMIT ? OFFSET ?) page" \
	" JOIN transactions x FORCE INDEX (PRIMARY) USING (id)"

#define ANCHOR_SQL(index, cond, counts) { FIND(cond, counts), BELOW(cond, counts), \
	PAGE(index, cond, counts), UP(index, cond, counts), FIRST(index, cond), \
	NEXT(index, cond), GAP(index, cond) }

static const struct anchor_sql lists[3] = {
	[LIST_ALL] = ANCHOR_SQL("ix_transactions_list", "", "txn_counts"),
	[LIST_TYPE] = ANCHOR_SQL("ix_transactions_type", " AND type = ?", "txn_counts"),
	[LIST_CUSTOMER] = ANCHOR_SQL("ix_transactions_customer", " AND customer_id = ?",
	    "txn_customer_counts"),
};

/* Which list a type and a customer ('' or NULL: none) name: the customer's first. */
static int
list_of(const struct txn_anchor_list *l)
{
	if (l->customer != NULL && l->customer[0] != '\0')
		return LIST_CUSTOMER;
	return l->type != NULL && l->type[0] != '\0' ? LIST_TYPE : LIST_ALL;
}

/* The values that name a list's rows: the platform, then its type or customer. */
static size_t
bind_list(const char *platform, const struct txn_anchor_list *l, struct db_val *v)
{
	size_t k = 0;
	int which = list_of(l);

	v[k++] = DBS(platform);
	if (which == LIST_TYPE)
		v[k++] = DBS(l->type);
	else if (which == LIST_CUSTOMER)
		v[k++] = DBS(l->customer);
	return k;
}

/* The list's key in txn_anchors: its type and its customer, '' where none. */
static void
key_of(const struct txn_anchor_list *l, const char **type, const char **customer)
{
	int which = list_of(l);

	*type = which == LIST_TYPE ? l->type : "";
	*customer = which == LIST_CUSTOMER ? l->customer : "";
}

/*
 * The values of FIND: the count's, the anchors', the count's, the offset;
 * of BELOW (limit > 0): the same and the limit.
 */
static size_t
bind_find(const char *platform, const struct txn_anchor_list *l, int64_t offset,
    int64_t limit, struct db_val *v)
{
	size_t k = bind_list(platform, l, v);
	const char *type, *customer;

	key_of(l, &type, &customer);
	v[k++] = DBS(platform);
	v[k++] = DBS(type);
	v[k++] = DBS(customer);
	k += bind_list(platform, l, v + k);
	v[k++] = DBI(offset);
	if (limit > 0)
		v[k++] = DBI(limit);
	return k;
}

/* The values of PAGE: the count's, the rows', the anchor, limit and offset. */
static size_t
bind_page(const char *platform, const struct txn_anchor_list *l, const char *at,
    const char *id, int64_t limit, int64_t skip, struct db_val *v)
{
	size_t k = bind_list(platform, l, v);

	k += bind_list(platform, l, v + k);
	v[k++] = DBS(at);
	v[k++] = DBS(at);
	v[k++] = DBS(id);
	v[k++] = DBI(limit);
	v[k++] = DBI(skip);
	return k;
}

/*
 * The anchor of the page at offset of l: the nearest at or above its first
 * row (*up = 0), else, when walking up from the nearest at or below its
 * last row costs less than walking down from the newest, that one (*up =
 * 1).  DB_NOT_FOUND when neither serves, or past the end (*past set);
 * else *n, the list's count the statement read, *seq, at and id.
 */
static int
find_anchor(struct db *db, const char *platform, const struct txn_anchor_list *l,
    int64_t limit, int64_t offset, int64_t *n, int64_t *seq, char at[32], char id[40], int *up,
    int *past)
{
	const struct anchor_sql *q = &lists[list_of(l)];
	struct db_val v[12];
	struct db_rows a;
	size_t k = bind_find(platform, l, offset, 0, v);
	int rc;

	*up = 0;
	*past = 0;
	if ((rc = db_query_one(db, q->find, v, k, &a)) == DB_NOT_FOUND) {
		/* The page lies above the newest anchor: among the newest rows. */
		*up = 1;
		k = bind_find(platform, l, offset, limit, v);
		rc = db_query_one(db, q->below, v, k, &a);
	}
	if (rc != DB_OK)
		return rc;
	*n = db_cell_i64(&a, 0, 0);
	*seq = db_cell_i64(&a, 0, 1);
	str_copy(at, 32, db_cell(&a, 0, 2));
	str_copy(id, 40, db_cell(&a, 0, 3));
	db_rows_free(&a);
	if (offset >= *n) {
		*past = 1;
		return DB_NOT_FOUND;
	}
	/* Up from seq to the page's last row, or down from the newest to its first. */
	if (*up && (*n - offset - limit) - *seq >= offset)
		return DB_NOT_FOUND;
	return DB_OK;
}

int
db_txn_anchor_page(struct db *db, const char *platform, const struct txn_anchor_list *l,
    int64_t limit, int64_t offset, struct db_rows *r, int *found)
{
	const struct anchor_sql *q = &lists[list_of(l)];
	int rc;

	*found = 0;
	memset(r, 0, sizeof(*r));
	for (int attempt = 0; attempt < PAGE_ATTEMPTS; attempt++) {
		struct db_val v[12];
		int64_t n, seq;
		char at[32], id[40];
		size_t k;
		int up, past;

		rc = find_anchor(db, platform, l, limit, offset, &n, &seq, at, id, &up, &past);
		/* Past the end: the page is empty, whatever a walk would find. */
		*found = rc == DB_NOT_FOUND && past;
		if (rc != DB_OK)
			return rc == DB_NOT_FOUND ? DB_OK : rc;
		/*
		 * The anchor is at position seq; the page's first row at
		 * n - 1 - offset, its last at n - offset - limit.
		 */
		k = bind_page(platform, l, at, id, limit,
		    up ? (n - offset - limit) - seq : seq - (n - 1 - offset), v);
		if ((rc = db_query(db, up ? q->up : q->page, v, k, r)) != DB_OK)
			return rc;
		/*
		 * The page's own count is of its own reading: the same n, so
		 * nothing was added between the two statements and the page
		 * starts where n said; else look again.
		 */
		if (r->nrows > 0 && db_cell_i64(r, 0, TXN_NCOLS) == n) {
			*found = 1;
			return DB_OK;
		}
		db_rows_free(r);
		memset(r, 0, sizeof(*r));
	}
	return DB_OK;
}

int
db_txn_anchor_explain(struct db *db, const char *platform, const struct txn_anchor_list *l,
    int page, struct db_rows *out)
{
	static const char at[] = "2026-01-01 00:00:00.000", id[] = "00000000-0000-4000-8000-000000000000";
	const struct anchor_sql *q = &lists[list_of(l)];
	const char *sql[4] = { q->find, q->page, q->below, q->up };
	struct db_val v[12];
	size_t k = page % 2 ? bind_page(platform, l, at, id, 20, 500, v) :
	    bind_find(platform, l, 100000, page ? 20 : 0, v);

	if (page < 0 || page > 3)
		return DB_ERR;
	return db_explain(db, sql[page], v, k, out);
}

/*
 * The lists (the whole list of a platform and its list of each type) with
 * step rows or more past their newest anchor (or with step rows and
 * none), those with the most first (16 at most), with that anchor.
 */
static const char due_sql[] =
    "SELECT c.platform_id, c.type, CONVERT('' USING ascii), a.seq, a.created_at, a.id"
    " FROM (SELECT platform_id, CONVERT('' USING ascii) AS type, SUM(n) AS n FROM txn_counts"
    " GROUP BY platform_id"
    " UNION ALL SELECT platform_id, type, SUM(n) FROM txn_counts GROUP BY platform_id, type) c"
    " LEFT JOIN (SELECT platform_id, type, MAX(seq) AS seq FROM txn_anchors"
    " WHERE customer_id = '' GROUP BY platform_id, type) m ON m.platform_id = c.platform_id"
    " AND m.type = c.type"
    " LEFT JOIN txn_anchors a ON a.platform_id = m.platform_id AND a.type = m.type"
    " AND a.customer_id = '' AND a.seq = m.seq"
    " WHERE c.n > COALESCE(m.seq, -1) + ?"
    " ORDER BY c.n - COALESCE(m.seq, -1) DESC LIMIT 16";

/*
 * Customers' lists: a platform may have more customers than a pass should
 * read, so each pass reads the next CUSTOMER_CHUNK customers of
 * txn_customer_counts in its key's order after the last one read (cursor,
 * kept by the process: the worker's; from the start again at the end),
 * and of those the lists with step rows or more past their newest anchor,
 * with that anchor.  A customer whose anchors the budget cut short is
 * read again first the next pass.
 */
#define CUSTOMER_CHUNK 2000

static const char customers_due_sql[] =
    "SELECT c.platform_id, CONVERT('' USING ascii), c.customer_id, a.seq, a.created_at, a.id,"
    " c.n > COALESCE(a.seq, -1) + ?"
    " FROM (SELECT platform_id, customer_id, SUM(n) AS n FROM txn_customer_counts"
    " WHERE platform_id > ? OR (platform_id = ? AND customer_id > ?)"
    " GROUP BY platform_id, customer_id ORDER BY platform_id, customer_id LIMIT ?) c"
    " LEFT JOIN txn_anchors a ON a.platform_id = c.platform_id AND a.type = ''"
    " AND a.customer_id = c.customer_id AND a.seq = (SELECT MAX(seq) FROM txn_anchors m"
    " WHERE m.platform_id = c.platform_id AND m.type = '' AND m.customer_id = c.customer_id)"
    " ORDER BY c.platform_id, c.customer_id";

static struct {
	char	platform[37], customer[37];
} cursor;

static const char insert_sql[] =
    "INSERT IGNORE INTO txn_anchors (platform_id, type, customer_id, seq, created_at, id)"
    " VALUES (?, ?, ?, ?, ?, ?)";

/*
 * Lists whose next anchor's row was too young when last looked at, each
 * with when it will not be (now_ms): a pass leaves them alone until then,
 * rather than walk a step of their index again every pass for as long as
 * list_anchor_delay lasts.  The process's own (the worker's); when full,
 * the entry due first makes room.  The row at a position only changes if
 * rows are written into the past (xborderctl(8), anchors), so waiting on
 * it delays an anchor, never misplaces one.
 */
#define WAITS 256

static struct wait {
	char	 platform[37], type[12], customer[37];
	int64_t	 until;
} waits[WAITS];

/* The entry of list (platform, type, customer), or NULL. */
static struct wait *
wait_of(const char *platform, const char *type, const char *customer)
{
	for (size_t i = 0; i < WAITS; i++)
		if (waits[i].until != 0 && strcmp(waits[i].platform, platform) == 0 &&
		    strcmp(waits[i].type, type) == 0 && strcmp(waits[i].customer, customer) == 0)
			return &waits[i];
	return NULL;
}

/* Whether the list waits for its next row to grow old. */
static int
waiting(const char *platform, const char *type, const char *customer)
{
	struct wait *w = wait_of(platform, type, customer);

	if (w == NULL)
		return 0;
	if (now_ms() < w->until)
		return 1;
	w->until = 0;
	return 0;
}

/* The list waits until now_ms() reaches until. */
static void
wait_for_row(const char *platform, const char *type, const char *customer, int64_t until)
{
	struct wait *w = wait_of(platform, type, customer);

	for (size_t i = 0; w == NULL && i < WAITS; i++)
		if (waits[i].until == 0)
			w = &waits[i];
	if (w == NULL) {
		w = &waits[0];
		for (size_t i = 1; i < WAITS; i++)
			if (waits[i].until < w->until)
				w = &waits[i];
	}
	str_copy(w->platform, sizeof(w->platform), platform);
	str_copy(w->type, sizeof(w->type), type);
	str_copy(w->customer, sizeof(w->customer), customer);
	w->until = until;
}

/*
 * Places the anchors of platform's list l after the one at seq
 * (created_at at, id; seq -1: none yet), up to *budget of them.  DB_OK or
 * the failure.
 */
static int
place_after(struct db *db, const char *platform, const struct txn_anchor_list *l, int64_t seq,
    const char *at, const char *id, int64_t step, int64_t delay, int *budget, int *placed)
{
	const struct anchor_sql *q = &lists[list_of(l)];
	const char *type, *customer;
	char last_at[32], last_id[40];
	struct db_rows r;
	int rc;

	key_of(l, &type, &customer);
	if (waiting(platform, type, customer))
		return DB_OK;
	str_copy(last_at, sizeof(last_at), at != NULL ? at : "");
	str_copy(last_id, sizeof(last_id), id != NULL ? id : "");
	while (*budget > 0) {
		int64_t next = seq < 0 ? 0 : seq + step;
		struct db_val v[8];
		size_t k = 0;

		v[k++] = DBI(delay);
		k += bind_list(platform, l, v + k);
		if (seq < 0)
			rc = db_query_one(db, q->first, v, k, &r);
		else {
			v[k++] = DBS(last_at);
			v[k++] = DBS(last_at);
			v[k++] = DBS(last_id);
			v[k++] = DBI(step - 1);
			rc = db_query_one(db, q->next, v, k, &r);
		}
		if (rc == DB_NOT_FOUND)
			return DB_OK;	/* fewer rows past the anchor than a step */
		if (rc != DB_OK)
			return rc;
		if (db_cell_i64(&r, 0, 2) >= 0) {
			/* Too new: a transaction may still write before it. */
			wait_for_row(platform, type, customer,
			    now_ms() + db_cell_i64(&r, 0, 2) / 1000 + 1);
			db_rows_free(&r);
			return DB_OK;
		}
		str_copy(last_at, sizeof(last_at), db_cell(&r, 0, 0));
		str_copy(last_id, sizeof(last_id), db_cell(&r, 0, 1));
		db_rows_free(&r);
		{
			struct db_val a[] = { DBS(platform), DBS(type), DBS(customer), DBI(next),
			    DBS(last_at), DBS(last_id) };

			if ((rc = db_exec(db, insert_sql, a, NARGS(a), NULL)) != DB_OK)
				return rc;
		}
		seq = next;
		(*budget)--;
		(*placed)++;
	}
	return DB_OK;
}

/* Places the anchors of the due list of row i of r (due_sql's columns). */
static int
place_row(struct db *db, const struct db_rows *r, size_t i, int64_t step, int64_t delay,
    int *budget, int *placed)
{
	struct txn_anchor_list l = { db_cell(r, i, 1), db_cell(r, i, 2) };

	return place_after(db, db_cell(r, i, 0), &l,
	    db_cell(r, i, 3) != NULL ? db_cell_i64(r, i, 3) : -1,
	    db_cell(r, i, 4), db_cell(r, i, 5), step, delay, budget, placed);
}

/* The next chunk of customers' lists, from the cursor, within the budget left. */
static int
place_customers(struct db *db, int64_t step, int64_t delay, int *budget, int *placed)
{
	struct db_val v[] = { DBI(step), DBS(cursor.platform), DBS(cursor.platform),
	    DBS(cursor.customer), DBI(CUSTOMER_CHUNK) };
	struct db_rows r;
	size_t i;
	int rc;

	if ((rc = db_query(db, customers_due_sql, v, NARGS(v), &r)) != DB_OK)
		return rc;
	for (i = 0; i < r.nrows && rc == DB_OK && *budget > 0; i++)
		if (db_cell_i64(&r, i, 6) != 0)
			rc = place_row(db, &r, i, step, delay, budget, placed);
	/*
	 * The cursor: after the chunk's last customer, or, the budget spent
	 * on customer i - 1 (which may have more), before that one; from the
	 * start after the last chunk.
	 */
	if (rc == DB_OK && *budget > 0 && r.nrows < CUSTOMER_CHUNK)
		memset(&cursor, 0, sizeof(cursor));
	else if (rc == DB_OK && (*budget > 0 || i >= 2)) {
		size_t last = *budget > 0 ? r.nrows - 1 : i - 2;

		str_copy(cursor.platform, sizeof(cursor.platform), db_cell(&r, last, 0));
		str_copy(cursor.customer, sizeof(cursor.customer), db_cell(&r, last, 2));
	}
	db_rows_free(&r);
	return rc;
}

int
db_txn_anchors_place(struct db *db, int64_t step, int64_t delay, int budget, int *placed)
{
	struct db_val v[] = { DBI(step) };
	struct db_rows r;
	int rc = DB_OK;

	*placed = 0;
	if (step <= 0 || budget <= 0)
		return DB_OK;
	if ((rc = db_query(db, due_sql, v, NARGS(v), &r)) != DB_OK)
		return rc;
	for (size_t i = 0; i < r.nrows && rc == DB_OK && budget > 0; i++)
		rc = place_row(db, &r, i, step, delay, &budget, placed);
	db_rows_free(&r);
	if (rc == DB_OK && budget > 0)
		rc = place_customers(db, step, delay, &budget, placed);
	return rc;
}

/*
 * The rows of the list of anchor i of a (its platform, type and customer)
 * after the anchor before it, i - 1 (first: from the oldest row), up to
 * its own row.
 */
static int
gap_rows(struct db *db, const struct db_rows *a, size_t i, int first, int64_t *rows)
{
	struct txn_anchor_list l = { db_cell(a, i, 1), db_cell(a, i, 2) };
	const char *at = db_cell(a, i, 4), *id = db_cell(a, i, 5);
	/* Before every row: DATETIME's least value. */
	const char *pat = first ? "1000-01-01 00:00:00.000" : db_cell(a, i - 1, 4);
	const char *pid = first ? "" : db_cell(a, i - 1, 5);
	struct db_val v[9];
	struct db_rows r;
	size_t k = bind_list(db_cell(a, i, 0), &l, v);
	int rc;

	v[k++] = DBS(pat);
	v[k++] = DBS(pat);
	v[k++] = DBS(pid);
	v[k++] = DBS(at);
	v[k++] = DBS(at);
	v[k++] = DBS(id);
	if ((rc = db_query_one(db, lists[list_of(&l)].gap, v, k, &r)) != DB_OK)
		return rc;
	*rows = db_cell_i64(&r, 0, 0);
	db_rows_free(&r);
	return DB_OK;
}

int
db_txn_anchors_verify(struct db *db, txn_anchor_bad_fn bad, void *arg, long *examined)
{
	static const char all_sql[] =
	    "SELECT platform_id, type, customer_id, seq, created_at, id FROM txn_anchors"
	    " ORDER BY platform_id, type, customer_id, seq";
	struct db_rows a;
	int rc;

	*examined = 0;
	if ((rc = db_query(db, all_sql, NULL, 0, &a)) != DB_OK)
		return rc;
	for (size_t i = 0; i < a.nrows; i++) {
		/* The anchor before it in the same list, if any. */
		int first = i == 0;
		int64_t seq = db_cell_i64(&a, i, 3), want, rows;
		const char *type = db_cell(&a, i, 1), *customer = db_cell(&a, i, 2);

		for (size_t c = 0; c < 3 && !first; c++)
			first = strcmp(db_cell(&a, i, c), db_cell(&a, i - 1, c)) != 0;
		want = first ? seq + 1 : seq - db_cell_i64(&a, i - 1, 3);
		/* A type's list or a customer's, not both; a type of the two there are. */
		if ((type[0] != '\0' && customer[0] != '\0') || (type[0] != '\0' &&
		    strcmp(type, "OUTGOING") != 0 && strcmp(type, "INCOMING") != 0)) {
			bad(arg, db_cell(&a, i, 0), type, customer, seq, want, -1);
			continue;
		}
		if ((rc = gap_rows(db, &a, i, first, &rows)) != DB_OK)
			break;
		(*examined)++;
		if (rows != want)
			bad(arg, db_cell(&a, i, 0), type, customer, seq, want, rows);
	}
	db_rows_free(&a);
	return rc;
}
