/*
 * db_checks_counts.c: the recent checks' counts check from checkpoints
 * (schema/027).  txn_counts and txn_customer_counts (totalCount) must
 * match the transactions; counting a platform's transactions reads all of
 * them, which the recent checks did each minute for every platform that
 * moved.  Instead each platform has a checkpoint, the counts of its
 * transactions when the webhook events up to the last run's reach
 * (event_upto) had been made, and a run:
 *
 *   - moves it by what the events of its range (from, to] changed: a
 *     transaction's state at an event seq is that of its last event up to
 *     there (a transaction makes one in the same database transaction as
 *     each status, check events), none before its first;
 *   - compares it, plus what the events after `to` changed up to the
 *     transactions' state now, with the counts the writes keep.
 *
 * A platform whose checkpoint disagrees, or has none, or that has a
 * transaction older than OLD_DAYS with new events (its earlier events may
 * be purged, db_idem.c), is counted whole by the caller, as before, which
 * alone reports problems: a checkpoint gone wrong (rows written behind the
 * service's back, by tests or by hand) costs a count, never a false
 * alarm.  The checkpoint is then taken anew from the transactions.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "xborder/db.h"
#include "xborder/db_checks_counts.h"
#include "xborder/util.h"

/* Younger than the delivery log's 30 days, by a margin. */
#define OLD_DAYS "29"

/* The type of transaction t's last event at seq ? or before (NULL: none). */
#define EVENT_AT "(SELECT w.type FROM webhook_events w WHERE w.platform_id = t.platform_id" \
	" AND w.transaction_id = t.id AND w.seq <= ? ORDER BY w.seq DESC LIMIT 1)"
/* Transaction t's state now, spelt as an event's type. */
#define NOW_STATE "CONCAT(t.type, '_PAYMENT.', t.status)"

/*
 * What the transactions with events in (?, ?] changed in the counts: per
 * platform p, each (status st, type ty) count (cust '') and each
 * customer's (st and ty ''), those not zero.  Each transaction's state
 * moves from s0, its last event's up to the range's start (EVENT_AT), to
 * s1 (`to`: EVENT_AT at its end, or NOW_STATE); a customer's count moves
 * by the transaction being there at all.  The derived table u is made
 * once (GROUP BY), then read four times: s1 counted (k 0, 2), s0 taken
 * away (k 1, 3).  Binds `to`'s ? (if any), EVENT_AT's, the range's two.
 */
#define DELTA(to) \
	"SELECT u.p, IF(r.k < 2, '', u.c) AS cust," \
	" IF(r.k < 2, SUBSTRING_INDEX(IF(r.k = 0, u.s1, u.s0), '.', -1), '') AS st," \
	" IF(r.k < 2, SUBSTRING_INDEX(IF(r.k = 0, u.s1, u.s0), '_PAYMENT.', 1), '') AS ty," \
	" SUM(IF(r.k % 2 = 0, 1, -1)) AS dn FROM (" \
	"  SELECT t.platform_id AS p, IFNULL(t.customer_id, '') AS c, " to " AS s1," \
	"   " EVENT_AT " AS s0 FROM transactions t" \
	"  WHERE t.id IN (SELECT transaction_id FROM webhook_events WHERE seq > ? AND seq <= ?)" \
	"  GROUP BY t.id) u" \
	" JOIN (SELECT 0 AS k UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3) r" \
	"  ON IF(r.k % 2 = 0, u.s1, u.s0) IS NOT NULL AND (r.k < 2 OR u.c <> '')" \
	" GROUP BY u.p, cust, st, ty HAVING SUM(IF(r.k % 2 = 0, 1, -1)) <> 0"

#define SINCE "SELECT transaction_id FROM webhook_events WHERE seq > ?"
/*
 * The platforms with events after ?, a derived table made once: as a
 * subquery, MariaDB looked each platform up in ix_webhook_events_list and
 * read its events from the oldest (3.8 million rows for one comparison).
 */
#define PLATFORMS_SINCE "SELECT p.platform_id FROM (SELECT DISTINCT platform_id" \
	" FROM webhook_events WHERE seq > ?) p"
/* The customers of the transactions with events after ?. */
#define CUSTOMERS_SINCE "SELECT t.platform_id, t.customer_id FROM transactions t" \
	" WHERE t.id IN (" SINCE ") AND t.customer_id IS NOT NULL"

/*
 * The platforms with events in (?, ?]: whether an old transaction is among
 * them, whether their checkpoint stands at the first ?.
 */
static const char changed_sql[] =
    "SELECT t.platform_id, MAX(t.created_at < UTC_TIMESTAMP(3) - INTERVAL " OLD_DAYS " DAY),"
    " MAX(IFNULL(m.event_seq = ?, 0)) FROM transactions t"
    " LEFT JOIN count_checkpoint_platforms m ON m.platform_id = t.platform_id"
    " WHERE t.id IN (" SINCE " AND seq <= ?) GROUP BY t.platform_id";

static const char drop_mark_sql[] = "DELETE FROM count_checkpoint_platforms WHERE platform_id = ?";
static const char drop_rows_sql[] = "DELETE FROM count_checkpoints WHERE platform_id = ?";

/* What the events (from, to] changed, for the checkpoints at `from`. */
static const char advance_sql[] =
    "SELECT d.p, d.cust, d.st, d.ty, d.dn FROM (" DELTA(EVENT_AT) ") d"
    " JOIN count_checkpoint_platforms m ON m.platform_id = d.p AND m.event_seq = ?";
static const char move_sql[] =
    "UPDATE count_checkpoint_platforms SET event_seq = ? WHERE event_seq = ?";

/*
 * The platforms with events after `from` and a checkpoint at `to` whose
 * counts (the writes' minus the checkpoint's minus what changed after
 * `to`) are not all zero: of their (status, type), and of the customers
 * of the transactions that changed.
 */
static const char compare_sql[] =
    "SELECT DISTINCT y.p FROM (SELECT x.p FROM ("
    "  SELECT c.platform_id AS p, '' AS cust, c.status AS st, c.type AS ty, c.n AS dn"
    "   FROM txn_counts c WHERE c.platform_id IN (" PLATFORMS_SINCE ")"
    "  UNION ALL SELECT k.platform_id, k.customer_id, '', '', k.n FROM txn_customer_counts k"
    "   WHERE (k.platform_id, k.customer_id) IN (" CUSTOMERS_SINCE ")"
    "  UNION ALL SELECT k.platform_id, k.customer_id, k.status, k.type, -k.n"
    "   FROM count_checkpoints k WHERE k.platform_id IN (" PLATFORMS_SINCE ")"
    "   AND k.customer_id = ''"
    "  UNION ALL SELECT k.platform_id, k.customer_id, k.status, k.type, -k.n"
    "   FROM count_checkpoints k WHERE (k.platform_id, k.customer_id) IN (" CUSTOMERS_SINCE ")"
    "  UNION ALL SELECT d.p, d.cust, d.st, d.ty, -d.dn FROM (" DELTA(NOW_STATE) ") d) x"
    " JOIN count_checkpoint_platforms m ON m.platform_id = x.p AND m.event_seq = ?"
    " GROUP BY x.p, x.cust, x.st, x.ty HAVING SUM(x.dn) <> 0) y";

/*
 * Adds rows (platform, customer, status, type, n) to the checkpoints, at
 * most PUT_ROWS a statement.  INSERT ... VALUES of what a SELECT read,
 * never INSERT ... SELECT: that would hold a shared lock on every row it
 * read (the transactions, their events) to the end of the run, and the
 * payouts' writes would wait for it.
 */
#define PUT_ROWS 32

static int
put_rows(struct db *db, const struct db_rows *r)
{
	static char *made[PUT_ROWS + 1];
	struct db_val v[5 * PUT_ROWS];
	int rc = DB_OK;

	for (size_t i = 0; i < r->nrows && rc == DB_OK; i += PUT_ROWS) {
		size_t n = r->nrows - i < PUT_ROWS ? r->nrows - i : PUT_ROWS;

		if (made[n] == NULL && (made[n] = db_sql_list("INSERT INTO count_checkpoints"
		    " (platform_id, customer_id, status, type, n) VALUES ", "(?, ?, ?, ?, ?)",
		    ", ", n, " ON DUPLICATE KEY UPDATE n = n + VALUES(n)")) == NULL)
			return DB_ERR;
		for (size_t k = 0; k < n; k++) {
			for (size_t c = 0; c < 4; c++)
				v[5 * k + c] = DBS(db_cell(r, i + k, c));
			v[5 * k + 4] = DBI(db_cell_i64(r, i + k, 4));
		}
		rc = db_exec(db, made[n], v, 5 * n, NULL);
	}
	return rc;
}

/* Adds platform p to the run's list (once). */
static int
add(struct count_recount **out, size_t *n, const char *p, int rebase)
{
	struct count_recount *grown;

	for (size_t i = 0; i < *n; i++)
		if (strcmp((*out)[i].platform, p) == 0)
			return DB_OK;
	if ((grown = realloc(*out, (*n + 1) * sizeof(**out))) == NULL)
		return DB_ERR;
	*out = grown;
	str_copy(grown[*n].platform, sizeof(grown[*n].platform), p);
	grown[(*n)++].rebase = rebase;
	return DB_OK;
}

static int
recent(struct db *db, int64_t from, int64_t to, int compare, struct count_recount **out,
    size_t *n)
{
	/* Without the comparison, what the events (from, to] changed only. */
	struct db_val ch[] = { DBI(from), DBI(from), DBI(compare ? INT64_MAX : to) };
	struct db_val adv[] = { DBI(to), DBI(from), DBI(from), DBI(to), DBI(from) };
	struct db_val mv[] = { DBI(to), DBI(from) };
	struct db_val cmp[] = { DBI(from), DBI(from), DBI(from), DBI(from), DBI(to), DBI(to),
		DBI(INT64_MAX), DBI(to) };
	struct db_rows r;
	int rc;

	if ((rc = db_query(db, changed_sql, ch, NARGS(ch), &r)) != DB_OK)
		return rc;
	for (size_t i = 0; i < r.nrows && rc == DB_OK; i++) {
		struct db_val p[] = { DBS(db_cell(&r, i, 0)) };

		if (db_cell_i64(&r, i, 1)) {
			/* An old transaction moved: no checkpoint of its platform now. */
			if ((rc = db_exec(db, drop_mark_sql, p, 1, NULL)) == DB_OK &&
			    (rc = db_exec(db, drop_rows_sql, p, 1, NULL)) == DB_OK && compare)
				rc = add(out, n, db_cell(&r, i, 0), 0);
		} else if (!db_cell_i64(&r, i, 2) && compare) {
			rc = add(out, n, db_cell(&r, i, 0), 1);
		}
	}
	db_rows_free(&r);
	if (rc != DB_OK)
		return rc;
	if (to > from) {
		if ((rc = db_query(db, advance_sql, adv, NARGS(adv), &r)) != DB_OK)
			return rc;
		rc = put_rows(db, &r);
		db_rows_free(&r);
		if (rc != DB_OK || (rc = db_exec(db, move_sql, mv, NARGS(mv), NULL)) != DB_OK)
			return rc;
	}
	if (!compare)
		return DB_OK;
	if ((rc = db_query(db, compare_sql, cmp, NARGS(cmp), &r)) != DB_OK)
		return rc;
	for (size_t i = 0; i < r.nrows && rc == DB_OK; i++)
		rc = add(out, n, db_cell(&r, i, 0), 1);
	db_rows_free(&r);
	return rc;
}

int
db_counts_recent(struct db *db, int64_t from, int64_t to, int compare,
    struct count_recount **out, size_t *n)
{
	int rc;

	*out = NULL;
	*n = 0;
	if ((rc = recent(db, from, to, compare, out, n)) != DB_OK) {
		free(*out);
		*out = NULL;
		*n = 0;
	}
	return rc;
}

int
db_counts_rebase(struct db *db, const char *platform, int64_t at)
{
	static const char rebase_sql[] =
	    "SELECT ?, x.cust, x.st, x.ty, SUM(x.dn) FROM ("
	    "  SELECT '' AS cust, status AS st, type AS ty, COUNT(*) AS dn FROM transactions"
	    "   WHERE platform_id = ? GROUP BY status, type"
	    "  UNION ALL SELECT customer_id, '', '', COUNT(*) FROM transactions"
	    "   WHERE platform_id = ? AND customer_id IS NOT NULL GROUP BY customer_id"
	    "  UNION ALL SELECT d.cust, d.st, d.ty, -d.dn FROM (" DELTA(NOW_STATE) ") d"
	    "   WHERE d.p = ?) x"
	    " GROUP BY x.cust, x.st, x.ty HAVING SUM(x.dn) <> 0";
	static const char mark_sql[] =
	    "INSERT INTO count_checkpoint_platforms (platform_id, event_seq, counted_seq)"
	    " VALUES (?, ?, ?) ON DUPLICATE KEY UPDATE event_seq = VALUES(event_seq),"
	    " counted_seq = VALUES(counted_seq)";
	struct db_val p[] = { DBS(platform) };
	struct db_val v[] = { DBS(platform), DBS(platform), DBS(platform), DBI(at), DBI(at),
		DBI(INT64_MAX), DBS(platform) };
	struct db_val m[] = { DBS(platform), DBI(at), DBI(at) };
	struct db_rows r;
	int rc;

	if ((rc = db_exec(db, drop_rows_sql, p, 1, NULL)) != DB_OK ||
	    (rc = db_query(db, rebase_sql, v, NARGS(v), &r)) != DB_OK)
		return rc;
	rc = put_rows(db, &r);
	db_rows_free(&r);
	return rc != DB_OK ? rc : db_exec(db, mark_sql, m, NARGS(m), NULL);
}
