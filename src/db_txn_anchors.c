/*
 * db_txn_anchors.c: SQL of the anchors of GET /transactions' deep pages.
 *
 * A cursor is a decimal offset, newest first (decisions.md section 3), so
 * the page at offset k of the unfiltered list walked k entries of
 * ix_transactions_list.  Transactions never leave the list and a new one
 * is always the newest, so once every older row is committed, a row's
 * position counted from the oldest (seq) never changes.  xborder-worker
 * records (db_txn_anchors_place) the row at positions 0, step, 2 step, ...
 * among rows older than a delay longer than any transaction stays open; a
 * page at offset k of a platform of N rows starts at position
 * p = N - 1 - k, so it walks down from the nearest anchor at or above p
 * and skips seq - p < step entries instead of k.
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
 * The platform's nearest anchor at or above the position of offset ?,
 * with the platform's row count (the page's totalCount) that says where
 * that position is: both subqueries run once, in the statement's one
 * reading; no row when no anchor is there.
 */
#define ROW_COUNT "(SELECT COALESCE(SUM(n), 0) FROM txn_counts WHERE platform_id = ?)"
static const char find_sql[] =
    "SELECT " ROW_COUNT ", seq, created_at, id FROM txn_anchors"
    " WHERE platform_id = ? AND seq >= " ROW_COUNT " - 1 - ? ORDER BY seq LIMIT 1";

/*
 * The page walked down from an anchor (its row included), with the
 * columns of db_txn_list_sql(0, 1): the rows, the count, whether the
 * row's quote is due.
 */
static const char page_sql[] =
    "SELECT STRAIGHT_JOIN " TXN_COLS_OF("x.") ","
    " (SELECT COALESCE(SUM(n), 0) FROM txn_counts WHERE platform_id = ?), "
    TXN_QUOTE_DUE_OF("x")
    " FROM (SELECT id FROM transactions FORCE INDEX (ix_transactions_list)"
    " WHERE platform_id = ? AND (created_at < ? OR (created_at = ? AND id <= ?))"
    " ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?) page"
    " JOIN transactions x FORCE INDEX (PRIMARY) USING (id)";

int
db_txn_anchor_page(struct db *db, const char *platform, int64_t limit, int64_t offset,
    struct db_rows *r, int *found)
{
	struct db_rows a;
	int rc;

	*found = 0;
	memset(r, 0, sizeof(*r));
	for (int attempt = 0; attempt < PAGE_ATTEMPTS; attempt++) {
		struct db_val fv[] = { DBS(platform), DBS(platform), DBS(platform), DBI(offset) };
		int64_t n, seq;
		char at[32], id[40];

		/* No anchor at or above it: the page is among the newest rows. */
		if ((rc = db_query_one(db, find_sql, fv, NARGS(fv), &a)) != DB_OK)
			return rc == DB_NOT_FOUND ? DB_OK : rc;
		n = db_cell_i64(&a, 0, 0);
		if (offset >= n) {
			db_rows_free(&a);
			return DB_OK;	/* past the end */
		}
		seq = db_cell_i64(&a, 0, 1);
		str_copy(at, sizeof(at), db_cell(&a, 0, 2));
		str_copy(id, sizeof(id), db_cell(&a, 0, 3));
		db_rows_free(&a);
		{
			/* The anchor is at position seq; the page's first row at n - 1 - offset. */
			struct db_val pv[] = { DBS(platform), DBS(platform), DBS(at), DBS(at), DBS(id),
			    DBI(limit), DBI(seq - (n - 1 - offset)) };

			if ((rc = db_query(db, page_sql, pv, NARGS(pv), r)) != DB_OK)
				return rc;
		}
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
db_txn_anchor_explain(struct db *db, const char *platform, int page, struct db_rows *out)
{
	static const char at[] = "2026-01-01 00:00:00.000", id[] = "00000000-0000-4000-8000-000000000000";
	struct db_val fv[] = { DBS(platform), DBS(platform), DBS(platform), DBI(100000) };
	struct db_val pv[] = { DBS(platform), DBS(platform), DBS(at), DBS(at), DBS(id), DBI(20),
	    DBI(5000) };

	return page ? db_explain(db, page_sql, pv, NARGS(pv), out) :
	    db_explain(db, find_sql, fv, NARGS(fv), out);
}

/*
 * The platforms with step rows or more past their newest anchor (or with
 * step rows and none), those with the most first (16 at most), with that
 * anchor.
 */
static const char due_sql[] =
    "SELECT c.platform_id, a.seq, a.created_at, a.id"
    " FROM (SELECT platform_id, SUM(n) AS n FROM txn_counts GROUP BY platform_id) c"
    " LEFT JOIN (SELECT platform_id, MAX(seq) AS seq FROM txn_anchors GROUP BY platform_id) m"
    " ON m.platform_id = c.platform_id"
    " LEFT JOIN txn_anchors a ON a.platform_id = m.platform_id AND a.seq = m.seq"
    " WHERE c.n > COALESCE(m.seq, -1) + ?"
    " ORDER BY c.n - COALESCE(m.seq, -1) DESC LIMIT 16";

/* The oldest row, and whether it is older than ? seconds. */
static const char first_sql[] =
    "SELECT created_at, id, created_at < UTC_TIMESTAMP(3) - INTERVAL ? SECOND"
    " FROM transactions FORCE INDEX (ix_transactions_list) WHERE platform_id = ?"
    " ORDER BY created_at, id LIMIT 1";

/* The row step positions past an anchor, and whether it is older than ? seconds. */
static const char next_sql[] =
    "SELECT created_at, id, created_at < UTC_TIMESTAMP(3) - INTERVAL ? SECOND"
    " FROM transactions FORCE INDEX (ix_transactions_list)"
    " WHERE platform_id = ? AND (created_at > ? OR (created_at = ? AND id > ?))"
    " ORDER BY created_at, id LIMIT 1 OFFSET ?";

static const char insert_sql[] =
    "INSERT IGNORE INTO txn_anchors (platform_id, seq, created_at, id) VALUES (?, ?, ?, ?)";

/*
 * Places the anchors of platform after the one at seq (created_at at, id;
 * seq -1: none yet), up to *budget of them.  DB_OK or the failure.
 */
static int
place_after(struct db *db, const char *platform, int64_t seq, const char *at, const char *id,
    int64_t step, int64_t delay, int *budget, int *placed)
{
	char last_at[32], last_id[40];
	struct db_rows r;
	int rc;

	str_copy(last_at, sizeof(last_at), at != NULL ? at : "");
	str_copy(last_id, sizeof(last_id), id != NULL ? id : "");
	while (*budget > 0) {
		int64_t next = seq < 0 ? 0 : seq + step;

		if (seq < 0) {
			struct db_val v[] = { DBI(delay), DBS(platform) };

			rc = db_query_one(db, first_sql, v, NARGS(v), &r);
		} else {
			struct db_val v[] = { DBI(delay), DBS(platform), DBS(last_at), DBS(last_at),
			    DBS(last_id), DBI(step - 1) };

			rc = db_query_one(db, next_sql, v, NARGS(v), &r);
		}
		if (rc == DB_NOT_FOUND)
			return DB_OK;	/* fewer rows past the anchor than a step */
		if (rc != DB_OK)
			return rc;
		if (db_cell_i64(&r, 0, 2) == 0) {
			db_rows_free(&r);
			return DB_OK;	/* too new: a transaction may still write before it */
		}
		str_copy(last_at, sizeof(last_at), db_cell(&r, 0, 0));
		str_copy(last_id, sizeof(last_id), db_cell(&r, 0, 1));
		db_rows_free(&r);
		{
			struct db_val v[] = { DBS(platform), DBI(next), DBS(last_at), DBS(last_id) };

			if ((rc = db_exec(db, insert_sql, v, NARGS(v), NULL)) != DB_OK)
				return rc;
		}
		seq = next;
		(*budget)--;
		(*placed)++;
	}
	return DB_OK;
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
		rc = place_after(db, db_cell(&r, i, 0),
		    db_cell(&r, i, 1) != NULL ? db_cell_i64(&r, i, 1) : -1,
		    db_cell(&r, i, 2), db_cell(&r, i, 3), step, delay, &budget, placed);
	db_rows_free(&r);
	return rc;
}
