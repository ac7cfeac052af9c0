/*
 * db_txn_anchors.h: the anchors of GET /transactions' deep pages
 * (schema/023_txn_anchors.sql): the row at every list_anchor_step-th
 * position of a platform's list, counted from the oldest, which a deep
 * page of the unfiltered list starts its walk from.
 */
#ifndef XBORDER_DB_TXN_ANCHORS_H
#define XBORDER_DB_TXN_ANCHORS_H

#include <stdint.h>

struct db;
struct db_rows;

/*
 * From this offset on, a page of the unfiltered list looks for an anchor
 * (two statements, not one): below it the walk costs less than the look.
 */
#define TXN_ANCHOR_MIN_OFFSET 2000

/*
 * The page of the unfiltered list of platform at offset (newest first),
 * walked from the nearest anchor at or above it, into r with the columns
 * of db_txn_list_sql(0, 1) (the rows, the total, whether quotes are due),
 * and *found = 1.  *found = 0 (r empty) when no anchor serves: the page
 * lies above the newest anchor or past the end, or the platform's
 * transactions kept changing between the two statements; the caller walks
 * from the top.  DB_OK or the store's failure.
 */
int db_txn_anchor_page(struct db *db, const char *platform, int64_t limit, int64_t offset,
    struct db_rows *r, int *found);

/*
 * EXPLAIN of db_txn_anchor_page()'s statements for platform, with sample
 * values: the look for the anchor (page 0) or the walk from it (page 1).
 * For xborderctl explain-lists.
 */
int db_txn_anchor_explain(struct db *db, const char *platform, int page, struct db_rows *out);

/*
 * xborder-worker: places up to budget anchors, every step rows of each
 * platform that has step rows or more past its newest anchor, at rows
 * older than delay seconds (so that no transaction still open can write a
 * row before them); *placed says how many.  DB_OK or the failure.
 */
int db_txn_anchors_place(struct db *db, int64_t step, int64_t delay, int budget, int *placed);

#endif
