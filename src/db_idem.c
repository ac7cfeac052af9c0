/*
 * db_idem.c: SQL of idempotency records (decisions.md section 3): a claim
 * taken before a write runs, its answer kept for replay, a claim dropped
 * when nothing was committed; and the purge of old records, done jobs and
 * delivered webhook events (with their attempts) in bounded statements.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "xborder/db.h"
#include "xborder/db_idem.h"
#include "xborder/ids.h"
#include "xborder/log.h"
#include "xborder/util.h"

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

struct purge_events_args {
	const char	*platform;
	uint64_t	 events, attempts;
};

/*
 * One batch of platform's old events and their attempts, in one database
 * transaction: the events are locked first, so the attempt an event is
 * getting meanwhile (recorded under the event's lock, db_wh_result) either
 * committed before and goes with it, or finds the event gone and is not
 * recorded: no attempt outlives its event.
 */
static int
purge_events_tx(struct db *db, void *arg)
{
	/*
	 * The delivery log keeps 30 days of finished events.  Platform by
	 * platform, so that each statement walks (platform_id, created_at) of
	 * ix_webhook_events_list to the old rows only: without the platform,
	 * MariaDB read every finished event of every platform a minute.  The
	 * three statements name the same PURGE_ROWS events (in the same
	 * order, and locked by the first).
	 */
#define OLD_EVENTS "FROM webhook_events WHERE platform_id = ?" \
	" AND created_at < UTC_TIMESTAMP(3) - INTERVAL 30 DAY AND status <> 'PENDING'" \
	" ORDER BY created_at, seq" PURGE_LIMIT
	static const char lock[] = "SELECT id " OLD_EVENTS " FOR UPDATE";
	/*
	 * An event has at most about WH_ATTEMPTS_KEPT attempts (db_webhooks.c).
	 * A join from the events' ids, each to its rows by the primary key: a
	 * DELETE ... WHERE event_id IN (subquery) reads every attempt of the
	 * table in MariaDB 10.11 (no semi-join for a single-table DELETE).
	 */
	static const char attempts[] =
	    "DELETE a FROM (SELECT id " OLD_EVENTS ") old"
	    " JOIN webhook_attempts a ON a.event_id = old.id WHERE a.platform_id = ?";
	static const char events[] = "DELETE " OLD_EVENTS;
#undef OLD_EVENTS
	struct purge_events_args *p = arg;
	struct db_val a[] = { DBS(p->platform), DBS(p->platform) };
	struct db_rows r;
	int rc;

	p->events = p->attempts = 0;
	if ((rc = db_query(db, lock, a, 1, &r)) != DB_OK)
		return rc;
	db_rows_free(&r);
	if ((rc = db_exec(db, attempts, a, 2, &p->attempts)) != DB_OK)
		return rc;
	return db_exec(db, events, a, 1, &p->events);
}

/* purge() of platform's old events, each batch with its attempts. */
static int
purge_events(struct db *db, const char *platform, uint64_t *n, int *more)
{
	for (int i = 0; i < PURGE_STATEMENTS; i++) {
		struct purge_events_args p = { platform, 0, 0 };
		int rc;

		if ((rc = db_transact(db, purge_events_tx, &p)) != DB_OK)
			return rc;
		*n += p.events + p.attempts;
		if (p.events < PURGE_ROWS)
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
	struct db_rows r;
	int rc;

	*n = 0;
	*more = 0;
	if ((rc = purge(db, keys, NULL, 0, n, more)) != DB_OK ||
	    (rc = purge(db, jobs, NULL, 0, n, more)) != DB_OK ||
	    (rc = db_query(db, platforms, NULL, 0, &r)) != DB_OK)
		return rc;
	for (size_t i = 0; i < r.nrows && rc == DB_OK; i++)
		rc = purge_events(db, db_cell(&r, i, 0), n, more);
	db_rows_free(&r);
	return rc;
}

/* The key of a request being made: platform, key, hash, claim and lease. */
struct idem_key {
	const char	*platform, *key, *hash, *claim;
	int64_t		 lease_s;
};

/*
 * Takes over the claim of k's RUNNING row, held as old_claim, when its
 * lease has passed: its worker died, or gave up.  *state becomes IDEM_NEW
 * when it did; a claim held under a row lock stays IN_USE.
 */
static int
take_over(struct db *db, const struct idem_key *k, const char *old_claim,
    enum idem_state *state)
{
	static const char take[] =
	    "SET STATEMENT innodb_lock_wait_timeout = 1 FOR"
	    " UPDATE idempotency_keys SET claim_id = ?,"
	    " lease_until = UTC_TIMESTAMP(3) + INTERVAL ? SECOND"
	    " WHERE platform_id = ? AND idem_key = ? AND state = 'RUNNING'"
	    " AND claim_id <=> ? AND IFNULL(lease_until < UTC_TIMESTAMP(3), 1)";
	struct db_val t[] = { DBS(k->claim), DBI(k->lease_s), DBS(k->platform), DBS(k->key),
	    DBSN(old_claim) };
	uint64_t n;
	int rc;

	rc = db_exec(db, take, t, NARGS(t), &n);
	if (rc != DB_OK && rc != DB_RETRY)
		return rc;
	if (rc == DB_OK && n == 1) {
		log_msg(LOG_LVL_WARN, NULL, "idempotency key claim taken over after its lease"
		    " passed");
		*state = IDEM_NEW;
	}
	return DB_OK;
}

/*
 * What k's existing row r (request_hash, state, response_status,
 * response_body, expired, claim_id, lease passed) says of the request:
 * another request's (IDEM_REUSED), one running (IDEM_IN_USE, or IDEM_NEW
 * when its lease passed and this one took it over) or one done (IDEM_REPLAY
 * with its answer).
 */
static int
existing(struct db *db, const struct idem_key *k, const struct db_rows *r,
    enum idem_state *state, int *status, char **body)
{
	if (strcmp(db_cell(r, 0, 0), k->hash) != 0)
		*state = IDEM_REUSED;
	else if (strcmp(db_cell(r, 0, 1), "RUNNING") == 0) {
		*state = IDEM_IN_USE;
		if (db_cell_i64(r, 0, 6))
			return take_over(db, k, db_cell(r, 0, 5), state);
	} else {
		*state = IDEM_REPLAY;
		*status = (int)db_cell_i64(r, 0, 2);
		*body = xstrdup(db_cell(r, 0, 3) ? db_cell(r, 0, 3) : "{}");
	}
	return DB_OK;
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
	struct idem_key k = { platform, key, hash, claim, lease_s };
	struct db_val a[] = { DBS(platform), DBS(key), DBS(hash),
	    { DBV_STR, claim, UUID_LEN, 0 }, DBI(lease_s) };
	struct db_rows r;
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
		if (rc != DB_DUPLICATE || (rc = db_query(db, get, a, 2, &r)) != DB_OK)
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
		rc = existing(db, &k, &r, state, status, body);
		db_rows_free(&r);
		return rc;
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

	return db_exec_later(db, sql, a, NARGS(a), 1, DB_CONFLICT);
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
