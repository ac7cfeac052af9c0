/*
 * db_txn_anchors.h: the anchors of GET /transactions' deep pages
 * (schema/023_txn_anchors.sql, 024_txn_anchor_types.sql,
 * 026_txn_anchor_customers.sql): the row at every list_anchor_step-th
 * position of a platform's list, and of its list of each type and of each
 * customer, counted from the oldest, which a deep page of that list starts
 * its walk from.
 */
#ifndef XBORDER_DB_TXN_ANCHORS_H
#define XBORDER_DB_TXN_ANCHORS_H

#include <stdint.h>

struct db;
struct db_rows;

/*
 * From this offset on, a page of the unfiltered list or of a list filtered
 * by type only or by customer only looks for an anchor (two statements,
 * not one): below it the walk costs less than the look.
 */
#define TXN_ANCHOR_MIN_OFFSET 2000

/*
 * A list with anchors: a platform's whole list (both NULL or ''), its
 * list of one type, or of one customer (the customer's when both are set).
 */
struct txn_anchor_list {
	const char	*type;
	const char	*customer;
};

/*
 * The page at offset (newest first) of platform's list l, walked from the
 * nearest anchor at or above it (or, above the newest anchor, up from it
 * when that is shorter than from the newest row), into r
 * with the columns of db_txn_list_sql(mask, 1) (the rows, the total,
 * whether quotes are due), and *found = 1; past the end of the list (by
 * the count the anchor's statement read), *found = 1 with r empty: no walk
 * finds a row there.  *found = 0 (r empty) when no anchor serves: the page
 * lies above the newest anchor, or the list kept changing between the two
 * statements; the caller walks from the top.  DB_OK or the store's
 * failure.
 */
int db_txn_anchor_page(struct db *db, const char *platform, const struct txn_anchor_list *l,
    int64_t limit, int64_t offset, struct db_rows *r, int *found);

/*
 * EXPLAIN of db_txn_anchor_page()'s statements for platform's list l,
 * with sample values: the look for the anchor at or above the page (page
 * 0), the walk down from it (1), the look for the anchor below the page
 * when none is above (2), the walk up from it (3).  For xborderctl
 * explain-lists.
 */
int db_txn_anchor_explain(struct db *db, const char *platform, const struct txn_anchor_list *l,
    int page, struct db_rows *out);

/*
 * xborder-worker: places up to budget anchors, every step rows of each
 * list (a platform's, its list of each type and of each customer) that
 * has step rows or more past its newest anchor, at rows
 * older than delay seconds (so that no transaction still open can write a
 * row before them); *placed says how many.  DB_OK or the failure.
 */
int db_txn_anchors_place(struct db *db, int64_t step, int64_t delay, int budget, int *placed);

/*
 * A wrong anchor: the one at seq of platform's list of type and customer
 * ('' and '' the whole list).  Its list has rows rows after the anchor
 * before it (for the first, from the oldest row) up to its own row, where
 * want would be right; rows is -1 when type and customer name no list.
 */
typedef void (*txn_anchor_bad_fn)(void *arg, const char *platform, const char *type,
    const char *customer, int64_t seq, int64_t want, int64_t rows);

/*
 * Checks every anchor against the rows it counts (one walk of each list's
 * index in all, a statement an anchor): the first of a list has seq + 1
 * rows up to it, each next one the difference of their seqs after the one
 * before.  Calls bad for each wrong one; *examined says how many were
 * counted.  For xborderctl ledger-check.  DB_OK or the failure.
 */
int db_txn_anchors_verify(struct db *db, txn_anchor_bad_fn bad, void *arg, long *examined);

#endif
