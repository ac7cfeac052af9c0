/*
 * db_webhooks.c: SQL of the webhook outbox.  An event row is written in
 * the database transaction of the change it reports, so a change that
 * rolls back has no event and a committed one always has.  Delivery
 * (xborder-worker) claims due rows with SKIP LOCKED and a lease, makes the
 * HTTP call outside any transaction and records the outcome afterwards.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xborder/db.h"
#include "xborder/db_webhooks.h"
#include "xborder/txn.h"
#include "xborder/ids.h"
#include "xborder/util.h"

#define WH_COLS "id, platform_id, transaction_id, type, status, attempts," \
	" last_response_status, last_attempt_at, next_attempt_at, created_at"

static void
stamp(char out[25], const char *db)
{
	out[0] = '\0';
	if (db != NULL)
		ids_timestamp(db, out);
}

static void
event_from_row(const struct db_rows *r, size_t i, void *out)
{
	struct wh_event *e = out;

	memset(e, 0, sizeof(*e));
	str_copy(e->id, sizeof(e->id), db_cell(r, i, 0));
	str_copy(e->platform_id, sizeof(e->platform_id), db_cell(r, i, 1));
	str_copy(e->transaction_id, sizeof(e->transaction_id), db_cell(r, i, 2));
	str_copy(e->type, sizeof(e->type), db_cell(r, i, 3));
	str_copy(e->status, sizeof(e->status), db_cell(r, i, 4));
	e->attempts = db_cell_i64(r, i, 5);
	e->last_status = db_cell(r, i, 6) != NULL ? db_cell_i64(r, i, 6) : -1;
	stamp(e->last_attempt_at, db_cell(r, i, 7));
	stamp(e->next_attempt_at, db_cell(r, i, 8));
	stamp(e->created_at, db_cell(r, i, 9));
}

/* The platform's endpoint now (owned), or NULL: DB_OK either way. */
static int
endpoint(struct db *db, const char *platform, char **url)
{
	static const char sql[] =
	    "SELECT webhook_endpoint FROM platform_configs WHERE platform_id = ?";
	struct db_val a[] = { DBS(platform) };
	struct db_rows r;
	int rc;

	*url = NULL;
	if ((rc = db_query_one(db, sql, a, NARGS(a), &r)) != DB_OK)
		return rc == DB_NOT_FOUND ? DB_OK : rc;
	if (db_cell(&r, 0, 0) != NULL && db_cell(&r, 0, 0)[0] != '\0')
		*url = xstrdup(db_cell(&r, 0, 0));
	db_rows_free(&r);
	return DB_OK;
}

int
db_wh_events_add(struct db *db, const struct wh_new_event *ev, size_t n)
{
	/*
	 * The endpoint is read by the INSERT itself (a consistent read, no
	 * lock): with none it is logged as FAILED, never attempted.  A
	 * platform without its configuration row gets NULL, which the NOT NULL
	 * status refuses.  INSERT ... VALUES, not INSERT ... SELECT: the latter
	 * holds the table's AUTO-INC lock (seq) to the end of the statement
	 * (innodb_autoinc_lock_mode 1, MariaDB's default), so every payout's
	 * event waited for the others' (performance_schema: 1.9 ms per insert
	 * under bench/run's transfer-out, against 0.4 ms for the transaction's).
	 */
	static char *made[TXN_BATCH_MAX + 1];
	struct db_val a[7 * TXN_BATCH_MAX];
	uint64_t added = 0;
	int rc;

	if (n == 0 || n > TXN_BATCH_MAX)
		return DB_ERR;
	if (made[n] == NULL)
		made[n] = db_sql_list("INSERT INTO webhook_events (id, platform_id,"
		    " transaction_id, type, payload, status, next_attempt_at, created_at) VALUES ",
		    "(?, ?, ?, ?, ?, (SELECT IF(COALESCE(webhook_endpoint, '') <> '', 'PENDING',"
		    " 'FAILED') FROM platform_configs WHERE platform_id = ?),"
		    " (SELECT IF(COALESCE(webhook_endpoint, '') <> '', UTC_TIMESTAMP(3), NULL)"
		    " FROM platform_configs WHERE platform_id = ?), UTC_TIMESTAMP(3))",
		    ", ", n, "");
	for (size_t i = 0; i < n; i++) {
		a[7 * i] = DBS(ev[i].id);
		a[7 * i + 1] = DBS(ev[i].platform_id);
		a[7 * i + 2] = DBS(ev[i].transaction_id);
		a[7 * i + 3] = DBS(ev[i].type);
		a[7 * i + 4] = DBS(ev[i].payload);
		a[7 * i + 5] = DBS(ev[i].platform_id);
		a[7 * i + 6] = DBS(ev[i].platform_id);
	}
	rc = db_exec(db, made[n], a, 7 * n, &added);
	return rc == DB_OK && added != n ? DB_ERR : rc;
}

int
db_wh_list(struct db *db, const char *platform, const char *status, const char *type,
    int64_t limit, int64_t offset, struct wh_event **out, size_t *n, int64_t *total)
{
#define FILTER " FROM webhook_events WHERE platform_id = ?" \
	" AND (? IS NULL OR status = ?) AND (? IS NULL OR type = ?)"
	static const char count[] = "SELECT COUNT(*)" FILTER;
	static const char sql[] = "SELECT " WH_COLS FILTER
	    " ORDER BY created_at DESC, seq DESC LIMIT ? OFFSET ?";
#undef FILTER
	struct db_val a[] = { DBS(platform), DBSN(status), DBSN(status), DBSN(type),
	    DBSN(type), DBI(limit), DBI(offset) };
	void *items;
	int rc;

	rc = db_read_page(db, count, sql, a, NARGS(a), event_from_row, sizeof(**out),
	    &items, n, total);
	*out = items;
	return rc;
}

int
db_wh_retry(struct db *db, const char *platform, const char *id, struct wh_event *out)
{
	static const char get[] =
	    "SELECT " WH_COLS " FROM webhook_events WHERE platform_id = ? AND id = ?";
	static const char queue[] =
	    "UPDATE webhook_events SET status = 'PENDING', next_attempt_at = UTC_TIMESTAMP(3)"
	    " WHERE platform_id = ? AND id = ?";
	struct db_val a[] = { DBS(platform), DBS(id) };
	struct db_rows r;
	char *url = NULL;
	int rc;

	if ((rc = db_query_one(db, get, a, NARGS(a), &r)) != DB_OK)
		return rc;
	db_rows_free(&r);
	if ((rc = endpoint(db, platform, &url)) != DB_OK)
		return rc;
	if (url == NULL)
		return DB_CONFLICT;
	free(url);
	if ((rc = db_exec(db, queue, a, NARGS(a), NULL)) != DB_OK ||
	    (rc = db_query_one(db, get, a, NARGS(a), &r)) != DB_OK)
		return rc;
	event_from_row(&r, 0, out);
	db_rows_free(&r);
	return DB_OK;
}

struct claim_args {
	int			 max, per_platform, lease_s;
	const struct wh_inflight *busy;
	size_t			 nbusy;
	struct wh_claim		*out;
	size_t			 n;
};

/* How many of platform's deliveries are in flight, counting this batch. */
static int
in_flight(const struct claim_args *c, const char *platform)
{
	int k = 0;

	for (size_t i = 0; i < c->nbusy; i++)
		if (strcmp(c->busy[i].platform_id, platform) == 0)
			k += c->busy[i].n;
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->out[i].platform_id, platform) == 0)
			k++;
	return k;
}

static void
claims_free(struct claim_args *c)
{
	for (size_t i = 0; i < c->n; i++)
		wh_claim_free(&c->out[i]);
	c->n = 0;
}

/* Locks one candidate and takes it (or fails it: no endpoint); 1 when taken. */
static int
claim_one(struct db *db, struct claim_args *c, const char *id, const char *platform,
    int *taken)
{
	static const char lock[] =
	    "SELECT payload, attempts FROM webhook_events WHERE id = ? AND status = 'PENDING'"
	    " AND next_attempt_at <= UTC_TIMESTAMP(3) FOR UPDATE SKIP LOCKED";
	/*
	 * The lease repeats the claim's conditions and must change the row:
	 * on Galera the row lock above is only this node's, and an event
	 * another node's worker leased meanwhile must not be taken twice
	 * (the claim is then run again, and sees that lease).
	 */
	static const char lease[] =
	    "UPDATE webhook_events SET next_attempt_at = UTC_TIMESTAMP(3) + INTERVAL ? SECOND"
	    " WHERE id = ? AND status = 'PENDING' AND next_attempt_at <= UTC_TIMESTAMP(3)";
	static const char failed[] =
	    "UPDATE webhook_events SET status = 'FAILED', next_attempt_at = NULL WHERE id = ?";
	struct db_val a[] = { DBS(id) };
	struct db_rows r;
	char *url;
	int rc;

	*taken = 0;
	if ((rc = db_query(db, lock, a, NARGS(a), &r)) != DB_OK)
		return rc;
	if (r.nrows == 0) {	/* another worker has it, or it is done */
		db_rows_free(&r);
		return DB_OK;
	}
	if ((rc = endpoint(db, platform, &url)) != DB_OK) {
		db_rows_free(&r);
		return rc;
	}
	if (url == NULL) {
		db_rows_free(&r);
		return db_exec(db, failed, a, NARGS(a), NULL);
	}
	{
		struct wh_claim *w = &c->out[c->n];
		struct db_val l[] = { DBI(c->lease_s), DBS(id) };
		uint64_t n = 0;

		memset(w, 0, sizeof(*w));
		str_copy(w->id, sizeof(w->id), id);
		str_copy(w->platform_id, sizeof(w->platform_id), platform);
		w->url = url;
		w->payload = xstrdup(db_cell(&r, 0, 0));
		w->attempts = db_cell_i64(&r, 0, 1);
		c->n++;
		*taken = 1;
		db_rows_free(&r);
		if ((rc = db_exec(db, lease, l, NARGS(l), &n)) != DB_OK)
			return rc;
		if (n == 1)
			return DB_OK;
		log_msg(LOG_LVL_INFO, NULL, "webhook %s was leased meanwhile by another worker", id);
		return DB_RETRY;
	}
}

static int
claim_tx(struct db *db, void *arg)
{
	/*
	 * A few of each platform's oldest due events, so that one platform
	 * with thousands waiting cannot hide another's from the batch.
	 */
	static const char due[] =
	    "SELECT id, platform_id FROM (SELECT id, platform_id, next_attempt_at, seq,"
	    " ROW_NUMBER() OVER (PARTITION BY platform_id ORDER BY next_attempt_at, seq) AS rn"
	    " FROM webhook_events WHERE status = 'PENDING'"
	    " AND next_attempt_at <= UTC_TIMESTAMP(3)) d"
	    " WHERE rn <= ? ORDER BY next_attempt_at, seq LIMIT ?";
	struct claim_args *c = arg;
	struct db_val a[] = { DBI(c->per_platform), DBI(c->max * 4) };
	struct db_rows r;
	int rc = DB_OK, taken;

	claims_free(c);		/* a retried transaction starts over */
	if ((rc = db_query(db, due, a, NARGS(a), &r)) != DB_OK)
		return rc;
	for (size_t i = 0; i < r.nrows && rc == DB_OK && c->n < (size_t)c->max; i++) {
		if (in_flight(c, db_cell(&r, i, 1)) >= c->per_platform)
			continue;
		rc = claim_one(db, c, db_cell(&r, i, 0), db_cell(&r, i, 1), &taken);
	}
	db_rows_free(&r);
	return rc;
}

int
db_wh_claim(struct db *db, int max, int per_platform, int lease_s,
    const struct wh_inflight *busy, size_t nbusy, struct wh_claim *out, size_t *n)
{
	struct claim_args c = { max, per_platform, lease_s, busy, nbusy, out, 0 };
	int rc;

	*n = 0;
	if (max <= 0)
		return DB_OK;
	if ((rc = db_transact(db, claim_tx, &c)) != DB_OK) {
		claims_free(&c);
		return rc;
	}
	*n = c.n;
	return DB_OK;
}

void
wh_claim_free(struct wh_claim *c)
{
	free(c->url);
	free(c->payload);
	memset(c, 0, sizeof(*c));
}

int
db_wh_result(struct db *db, const char *id, long status, int64_t retry_s, int64_t window_s)
{
	/*
	 * next_attempt_at first: an event another attempt has meanwhile
	 * delivered (or failed) keeps its status; a pending one either waits
	 * retry_s or, past its window, fails.
	 */
	static const char sql[] =
	    "UPDATE webhook_events SET attempts = attempts + 1,"
	    " last_response_status = ?, last_attempt_at = UTC_TIMESTAMP(3),"
	    " next_attempt_at = CASE WHEN ? OR status <> 'PENDING'"
	    "  OR UTC_TIMESTAMP(3) + INTERVAL ? SECOND > created_at + INTERVAL ? SECOND"
	    "  THEN NULL ELSE UTC_TIMESTAMP(3) + INTERVAL ? SECOND END,"
	    " status = CASE WHEN ? THEN 'DELIVERED' WHEN status <> 'PENDING' THEN status"
	    "  WHEN UTC_TIMESTAMP(3) + INTERVAL ? SECOND > created_at + INTERVAL ? SECOND"
	    "  THEN 'FAILED' ELSE 'PENDING' END"
	    " WHERE id = ?";
	int ok = status == 200 || status == 409;
	struct db_val a[] = { status > 0 ? DBI(status) : DBN, DBI(ok), DBI(retry_s),
	    DBI(window_s), DBI(retry_s), DBI(ok), DBI(retry_s), DBI(window_s), DBS(id) };

	return db_exec(db, sql, a, NARGS(a), NULL);
}

int
db_wh_test_lease(struct db *db, const char *platform, const char *holder, int *got)
{
	/*
	 * Taken when there is no row or its lease ran out; otherwise the row
	 * stays as it is and no row is affected.  `holder` is assigned before
	 * `until`, so both tests read the old `until`.
	 */
	static const char sql[] =
	    "INSERT INTO webhook_test_leases (platform_id, holder, until)"
	    " VALUES (?, ?, UTC_TIMESTAMP(3) + INTERVAL 30 SECOND)"
	    " ON DUPLICATE KEY UPDATE"
	    " holder = IF(until <= UTC_TIMESTAMP(3), VALUES(holder), holder),"
	    " until = IF(until <= UTC_TIMESTAMP(3), VALUES(until), until)";
	struct db_val a[] = { DBS(platform), DBS(holder) };

	return db_exec_changed(db, sql, a, NARGS(a), got);
}

int
db_wh_test_release(struct db *db, const char *platform, const char *holder)
{
	static const char sql[] =
	    "DELETE FROM webhook_test_leases WHERE platform_id = ? AND holder = ?";
	struct db_val a[] = { DBS(platform), DBS(holder) };

	return db_exec(db, sql, a, NARGS(a), NULL);
}
