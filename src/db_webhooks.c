/*
 * db_webhooks.c: SQL of the webhook outbox.  An event row is written in
 * the database transaction of the change it reports, so a change that
 * rolls back has no event and a committed one always has.  Delivery
 * (xborder-worker) claims due rows with SKIP LOCKED and a lease, makes the
 * HTTP call outside any transaction and records the outcome afterwards,
 * with a small row per attempt (webhook_attempts) that the delivery log
 * shows; an event keeps its last WH_ATTEMPTS_KEPT.
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
	return db_exec_later(db, made[n], a, 7 * n, (int64_t)n, DB_ERR);
}

/*
 * The delivery log's filters as bits, in the order of struct wh_filter:
 * one statement text per combination, made on first use and kept (the
 * statement cache keeps a statement by its text's address).  Each names
 * the index of its most selective filter, which has platform_id, that
 * filter's column and then (created_at, seq), the list's order, so the
 * page is a walk down the index and the date bounds a range on it.
 */
enum {
	WF_STATUS = 1, WF_TYPE = 2, WF_TXN = 4, WF_START = 8, WF_END = 16,
	WF_COMBINATIONS = 32
};

static const char *
list_index(unsigned mask)
{
	if (mask & WF_TXN)
		return "ix_webhook_events_txn";
	if (mask & WF_STATUS)
		return "ix_webhook_events_status";
	if (mask & WF_TYPE)
		return "ix_webhook_events_type";
	return "ix_webhook_events_list";
}

/* The statement of the filters of mask: its count (count 1) or its page. */
static const char *
list_sql(unsigned mask, int count)
{
	static const char *const conds[] = { " AND status = ?", " AND type = ?",
	    " AND transaction_id = ?", " AND created_at >= ?", " AND created_at <= ?" };
	static char *texts[2][WF_COMBINATIONS];
	char from[384], buf[768];
	size_t n;

	if (texts[count][mask] != NULL)
		return texts[count][mask];
	n = (size_t)snprintf(from, sizeof(from), "FROM webhook_events FORCE INDEX (%s)"
	    " WHERE platform_id = ?", list_index(mask));
	for (size_t i = 0; i < NARGS(conds); i++)
		if (mask & (1u << i))
			n += (size_t)snprintf(from + n, sizeof(from) - n, "%s", conds[i]);
	if (count)
		snprintf(buf, sizeof(buf), "SELECT COUNT(*) %s", from);
	else
		snprintf(buf, sizeof(buf), "SELECT " WH_COLS " %s"
		    " ORDER BY created_at DESC, seq DESC LIMIT ? OFFSET ?", from);
	texts[count][mask] = xstrdup(buf);
	return texts[count][mask];
}

int
db_wh_list(struct db *db, const char *platform, const struct wh_filter *f,
    int64_t limit, int64_t offset, struct wh_event **out, size_t *n, int64_t *total)
{
	const char *vals[] = { f->status, f->type, f->transaction_id, f->start, f->end };
	struct db_val a[NARGS(vals) + 3];
	unsigned mask = 0;
	size_t na = 0;
	void *items;
	int rc;

	a[na++] = DBS(platform);
	for (size_t i = 0; i < NARGS(vals); i++)
		if (vals[i] != NULL) {
			mask |= 1u << i;
			a[na++] = DBS(vals[i]);
		}
	a[na++] = DBI(limit);
	a[na++] = DBI(offset);
	rc = db_read_page(db, list_sql(mask, 1), list_sql(mask, 0), a, na, event_from_row,
	    sizeof(**out), &items, n, total);
	*out = items;
	return rc;
}

unsigned
db_wh_list_combinations(void)
{
	return WF_COMBINATIONS;
}

int
db_wh_list_explain(struct db *db, const char *platform, unsigned mask, int count,
    struct db_rows *out)
{
	/* A value of every filter, in the order of the mask's bits. */
	static const char *const sample[] = { "DELIVERED", "OUTGOING_PAYMENT.COMPLETED",
	    "00000000-0000-4000-8000-000000000000", "2026-01-01 00:00:00.000",
	    "2026-12-31 23:59:59.999" };
	struct db_val v[NARGS(sample) + 3];
	size_t k = 0;

	memset(out, 0, sizeof(*out));
	if (mask >= WF_COMBINATIONS)
		return DB_ERR;
	v[k++] = DBS(platform);
	for (size_t i = 0; i < NARGS(sample); i++)
		if (mask & (1u << i))
			v[k++] = DBS(sample[i]);
	if (!count) {
		v[k++] = DBI(20);
		v[k++] = DBI(0);
	}
	return db_explain(db, list_sql(mask, count != 0), v, k, out);
}

static void
attempt_from_row(const struct db_rows *r, size_t i, void *out)
{
	struct wh_attempt *a = out;

	memset(a, 0, sizeof(*a));
	stamp(a->at, db_cell(r, i, 0));
	a->response_status = db_cell(r, i, 1) != NULL ? db_cell_i64(r, i, 1) : -1;
	a->error = (int)db_cell_i64(r, i, 2);
	a->duration_ms = db_cell_i64(r, i, 3);
	a->manual = db_cell_i64(r, i, 4) != 0;
}

struct view_args {
	const char		*platform, *id;
	struct wh_event		*e;
	char			*payload;
	struct wh_attempt	*list;
	size_t			 n;
};

static void
view_args_free(struct view_args *v)
{
	free(v->payload);
	free(v->list);
	v->payload = NULL;
	v->list = NULL;
	v->n = 0;
}

static int
view_tx(struct db *db, void *arg)
{
	/*
	 * The event with a shared lock: an attempt is recorded under the
	 * event's exclusive lock (db_wh_result), so none lands between this
	 * read and the attempts' (each statement of READ COMMITTED reads what
	 * is committed when it runs), and the newest attempt is the one the
	 * event's lastAttemptAt names.
	 */
	static const char get[] = "SELECT " WH_COLS ", payload FROM webhook_events"
	    " WHERE platform_id = ? AND id = ? LOCK IN SHARE MODE";
	static const char recent[] = "SELECT started_at, response_status, error, duration_ms,"
	    " manual FROM webhook_attempts WHERE platform_id = ? AND event_id = ?"
	    " ORDER BY started_at DESC, n DESC LIMIT ?";
	struct view_args *v = arg;
	struct db_val a[] = { DBS(v->platform), DBS(v->id), DBI(WH_ATTEMPTS_KEPT) };
	struct db_rows r;
	int rc;

	view_args_free(v);	/* a retried transaction starts over */
	if ((rc = db_query_one(db, get, a, 2, &r)) != DB_OK)
		return rc;
	event_from_row(&r, 0, v->e);
	v->payload = xstrdup(db_cell(&r, 0, 10) != NULL ? db_cell(&r, 0, 10) : "{}");
	db_rows_free(&r);
	if ((rc = db_query(db, recent, a, NARGS(a), &r)) != DB_OK)
		return rc;
	if (r.nrows > 0) {
		v->list = xcalloc(r.nrows, sizeof(*v->list));
		for (size_t i = 0; i < r.nrows; i++)
			attempt_from_row(&r, i, &v->list[i]);
	}
	v->n = r.nrows;
	db_rows_free(&r);
	return DB_OK;
}

int
db_wh_view(struct db *db, const char *platform, const char *id, struct wh_event *e,
    char **payload, struct wh_attempt **attempts, size_t *n)
{
	struct view_args v = { platform, id, e, NULL, NULL, 0 };
	int rc;

	*payload = NULL;
	*attempts = NULL;
	*n = 0;
	if ((rc = db_transact(db, view_tx, &v)) != DB_OK) {
		view_args_free(&v);
		return rc;
	}
	*payload = v.payload;
	*attempts = v.list;
	*n = v.n;
	return DB_OK;
}

int
db_wh_retry(struct db *db, const char *platform, const char *id, struct wh_event *out)
{
	static const char get[] =
	    "SELECT " WH_COLS " FROM webhook_events WHERE platform_id = ? AND id = ?";
	/* manual_retry: the claim of the attempt this asks for marks it manual. */
	static const char queue[] =
	    "UPDATE webhook_events SET status = 'PENDING', next_attempt_at = UTC_TIMESTAMP(3),"
	    " manual_retry = 1 WHERE platform_id = ? AND id = ?";
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
	const struct db_shard	*shard;
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

/*
 * Takes the locked candidate id, whose row r holds its payload, attempts
 * and manual_retry, into c->out with the endpoint url (passes to the
 * claim), and leases it.
 */
static int
take(struct db *db, struct claim_args *c, const char *id, const char *platform, char *url,
    const struct db_rows *r)
{
	/*
	 * The lease repeats the claim's conditions and must change the row:
	 * on Galera the row lock above is only this node's, and an event
	 * another node's worker leased meanwhile must not be taken twice
	 * (the claim is then run again, and sees that lease).  A retry
	 * request's mark passes to the claim, which carries it to the row of
	 * the attempt.
	 */
	static const char lease[] =
	    "UPDATE webhook_events SET next_attempt_at = UTC_TIMESTAMP(3) + INTERVAL ? SECOND,"
	    " manual_retry = 0"
	    " WHERE id = ? AND status = 'PENDING' AND next_attempt_at <= UTC_TIMESTAMP(3)";
	struct wh_claim *w = &c->out[c->n];
	struct db_val l[] = { DBI(c->lease_s), DBS(id) };
	uint64_t n = 0;
	int rc;

	memset(w, 0, sizeof(*w));
	str_copy(w->id, sizeof(w->id), id);
	str_copy(w->platform_id, sizeof(w->platform_id), platform);
	w->url = url;
	w->payload = xstrdup(db_cell(r, 0, 0));
	w->attempts = db_cell_i64(r, 0, 1);
	w->manual = db_cell_i64(r, 0, 2) != 0;
	c->n++;
	if ((rc = db_exec(db, lease, l, NARGS(l), &n)) != DB_OK)
		return rc;
	if (n == 1)
		return DB_OK;
	log_msg(LOG_LVL_INFO, NULL, "webhook %s was leased meanwhile by another worker", id);
	return DB_RETRY;
}

/* Locks one candidate and takes it (or fails it: no endpoint); 1 when taken. */
static int
claim_one(struct db *db, struct claim_args *c, const char *id, const char *platform,
    int *taken)
{
	static const char lock[] =
	    "SELECT payload, attempts, manual_retry FROM webhook_events WHERE id = ?"
	    " AND status = 'PENDING'"
	    " AND next_attempt_at <= UTC_TIMESTAMP(3) FOR UPDATE SKIP LOCKED";
	static const char failed[] =
	    "UPDATE webhook_events SET status = 'FAILED', next_attempt_at = NULL,"
	    " manual_retry = 0 WHERE id = ?";
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
	*taken = 1;
	rc = take(db, c, id, platform, url, &r);
	db_rows_free(&r);
	return rc;
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
	    " AND next_attempt_at <= UTC_TIMESTAMP(3)" DB_SHARD_SQL("platform_id") ") d"
	    " WHERE rn <= ? ORDER BY next_attempt_at, seq LIMIT ?";
	struct claim_args *c = arg;
	struct db_val a[] = { DBI(c->shard->n), DBI(c->shard->k), DBI(c->shard->n),
	    DBI(c->shard->n), DBI(c->per_platform), DBI(c->max * 4) };
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
db_wh_claim(struct db *db, const struct db_shard *shard, int max, int per_platform,
    int lease_s, const struct wh_inflight *busy, size_t nbusy, struct wh_claim *out, size_t *n)
{
	struct claim_args c = { shard, max, per_platform, lease_s, busy, nbusy, out, 0 };
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

struct result_args {
	const char		*id;
	const struct wh_outcome	*o;
	int64_t			 retry_s, window_s;
};

/*
 * Locks event id and reads its new attempt's number *n, the attempt's
 * start at (the server's clock now less dur_ms: the same time goes into
 * both rows) and its platform.  DB_NOT_FOUND when it was purged.
 */
static int
attempt_lock(struct db *db, const char *id, int64_t dur_ms, int64_t *n, char at[32],
    char platform[37])
{
	static const char lock[] =
	    "SELECT attempts + 1, CAST(UTC_TIMESTAMP(3) - INTERVAL ? MICROSECOND AS DATETIME(3)),"
	    " platform_id FROM webhook_events WHERE id = ? FOR UPDATE";
	struct db_val l[] = { DBI(dur_ms * 1000), DBS(id) };
	struct db_rows r;
	int rc;

	if ((rc = db_query_one(db, lock, l, NARGS(l), &r)) != DB_OK)
		return rc;
	*n = db_cell_i64(&r, 0, 0);
	str_copy(at, 32, db_cell(&r, 0, 1));
	str_copy(platform, 37, db_cell(&r, 0, 2));
	db_rows_free(&r);
	return DB_OK;
}

/*
 * Writes attempt n of event ra->id (of platform, started at at): the
 * event's state, the attempt's row, and the oldest kept one dropped.
 */
static int
attempt_write(struct db *db, const struct result_args *ra, int64_t n, const char *at,
    const char *platform)
{
	/*
	 * next_attempt_at before status: an event another attempt has
	 * meanwhile delivered (or failed) keeps its status; a pending one
	 * either waits retry_s or, past its window, fails; one whose retry
	 * was asked for since the claim (manual_retry) stays due for it.
	 * last_response_status before last_attempt_at: both follow the
	 * attempt that started last.
	 */
	static const char update[] =
	    "UPDATE webhook_events SET attempts = attempts + 1,"
	    " last_response_status = IF(IFNULL(last_attempt_at <= ?, 1), ?, last_response_status),"
	    " last_attempt_at = IF(IFNULL(last_attempt_at <= ?, 1), ?, last_attempt_at),"
	    " next_attempt_at = CASE WHEN manual_retry THEN next_attempt_at"
	    "  WHEN ? OR status <> 'PENDING'"
	    "  OR UTC_TIMESTAMP(3) + INTERVAL ? SECOND > created_at + INTERVAL ? SECOND"
	    "  THEN NULL ELSE UTC_TIMESTAMP(3) + INTERVAL ? SECOND END,"
	    " status = CASE WHEN manual_retry THEN 'PENDING' WHEN ? THEN 'DELIVERED'"
	    "  WHEN status <> 'PENDING' THEN status"
	    "  WHEN UTC_TIMESTAMP(3) + INTERVAL ? SECOND > created_at + INTERVAL ? SECOND"
	    "  THEN 'FAILED' ELSE 'PENDING' END"
	    " WHERE id = ?";
	static const char insert[] =
	    "INSERT INTO webhook_attempts (event_id, n, platform_id, started_at, response_status,"
	    " error, duration_ms, manual) VALUES (?, ?, ?, ?, ?, ?, ?, ?)";
	static const char prune[] =
	    "DELETE FROM webhook_attempts WHERE platform_id = ? AND event_id = ? AND n <= ?";
	const struct wh_outcome *o = ra->o;
	int ok = o->status == 200 || o->status == 409, rc;
	struct db_val st = o->status > 0 ? DBI(o->status) : DBN;
	struct db_val u[] = { DBS(at), st, DBS(at), DBS(at), DBI(ok), DBI(ra->retry_s),
	    DBI(ra->window_s), DBI(ra->retry_s), DBI(ok), DBI(ra->retry_s), DBI(ra->window_s),
	    DBS(ra->id) };
	struct db_val i[] = { DBS(ra->id), DBI(n), DBS(platform), DBS(at), st,
	    DBI(o->status > 0 ? 0 : o->error), DBI(o->duration_ms), DBI(o->manual != 0) };
	struct db_val p[] = { DBS(platform), DBS(ra->id), DBI(n - WH_ATTEMPTS_KEPT) };

	if ((rc = db_exec(db, update, u, NARGS(u), NULL)) != DB_OK ||
	    (rc = db_exec(db, insert, i, NARGS(i), NULL)) != DB_OK)
		return rc;
	return n > WH_ATTEMPTS_KEPT ? db_exec(db, prune, p, NARGS(p), NULL) : DB_OK;
}

/*
 * The attempt under its event's lock, so that attempts of one event are
 * numbered in turn and none is recorded for an event purged meanwhile.
 */
static int
result_tx(struct db *db, void *arg)
{
	const struct result_args *ra = arg;
	char at[32], platform[37];
	int64_t n;
	int rc;

	if ((rc = attempt_lock(db, ra->id, ra->o->duration_ms, &n, at, platform)) != DB_OK)
		return rc == DB_NOT_FOUND ? DB_OK : rc;
	return attempt_write(db, ra, n, at, platform);
}

int
db_wh_result(struct db *db, const char *id, const struct wh_outcome *o, int64_t retry_s,
    int64_t window_s)
{
	struct result_args a = { id, o, retry_s, window_s };

	return db_transact(db, result_tx, &a);
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
