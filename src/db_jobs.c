/*
 * db_jobs.c: SQL of the background jobs.  A job is queued in the database
 * transaction of the change that needs it, so a change that rolls back
 * leaves none; xborder-worker claims a batch of due jobs with SKIP LOCKED,
 * runs them and marks them done in one commit, and a failed job is
 * retried later with backoff.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xborder/db.h"
#include "xborder/db_jobs.h"
#include "xborder/util.h"

int
db_job_add(struct db *db, const char *kind, const char *ref_id, const char *platform,
    int64_t delay_ms)
{
	static const char sql[] =
	    "INSERT INTO jobs (kind, ref_id, platform_id, run_at, created_at)"
	    " VALUES (?, ?, ?, UTC_TIMESTAMP(3) + INTERVAL ? * 1000 MICROSECOND,"
	    " UTC_TIMESTAMP(3))";
	struct db_val a[] = { DBS(kind), DBS(ref_id), DBS(platform), DBI(delay_ms) };

	return db_exec_later(db, sql, a, NARGS(a), 1, DB_ERR);
}

struct job_args {
	const struct db_shard *shard;
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

/* claim_sql's statement for n ids: those still due, locked unless another worker holds them. */
static const char *
claim_sql(size_t n)
{
	static char *made[JOB_BATCH_MAX + 1];

	if (n == 0 || n > JOB_BATCH_MAX)
		abort();
	if (made[n] == NULL)
		made[n] = db_sql_list("SELECT id, kind, ref_id, platform_id, attempts FROM jobs"
		    " WHERE done_at IS NULL AND id IN (", "?", ", ", n,
		    ") ORDER BY run_at FOR UPDATE SKIP LOCKED");
	return made[n];
}

/*
 * Claims up to j->limit due jobs of the worker's share (oldest first,
 * skipping those another worker holds), runs each and marks them all
 * done, in the caller's transaction: one commit for the batch.  The due
 * jobs are read first without a lock, then locked by id: a locking read
 * of the due index would lock the other shares' rows it passes, and on a
 * Galera cluster another node's worker marking one of those done would
 * abort this whole batch.
 */
static int
job_tx(struct db *db, void *arg)
{
	static const char due[] =
	    "SELECT id FROM jobs"
	    " WHERE done_at IS NULL AND run_at <= UTC_TIMESTAMP(3)" DB_SHARD_SQL("platform_id")
	    " ORDER BY run_at LIMIT ?";
	struct job_args *j = arg;
	struct db_val a[] = { DBI(j->shard->n), DBI(j->shard->k), DBI(j->shard->n),
	    DBI(j->shard->n), DBI(j->limit) }, d[JOB_BATCH_MAX];
	unsigned char done[JOB_BATCH_MAX];
	struct db_rows r;
	size_t nd;
	uint64_t n = 0;
	int rc;

	j->claimed = 0;
	if ((rc = db_query(db, due, a, NARGS(a), &r)) != DB_OK)
		return rc;
	for (nd = 0; nd < r.nrows && nd < j->limit; nd++)
		d[nd] = DBI(db_cell_i64(&r, nd, 0));
	db_rows_free(&r);
	if (nd == 0)
		return DB_OK;
	if ((rc = db_query(db, claim_sql(nd), d, nd, &r)) != DB_OK)
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
db_worker_beat(struct db *db, const struct db_shard *shard, const char *node)
{
	static const char sql[] =
	    "INSERT INTO worker_beats (shards, shard, beat_at, node) VALUES (?, ?, UTC_TIMESTAMP(3), ?)"
	    " ON DUPLICATE KEY UPDATE beat_at = VALUES(beat_at), node = VALUES(node)";
	struct db_val a[] = { DBI(shard->n), DBI(shard->k), DBS(node) };

	return db_exec(db, sql, a, NARGS(a), NULL);
}

int
db_platform_node(struct db *db, const char *platform, char *node, size_t len)
{
	static const char sql[] =
	    "SET STATEMENT wsrep_sync_wait = 0 FOR"
	    " SELECT b.node FROM worker_beats b WHERE b.shards > 0 AND b.node <> ''"
	    " AND b.shard = MOD(CRC32(?), b.shards)"
	    " AND b.beat_at >= UTC_TIMESTAMP(3) - INTERVAL " DB_SHARD_TAKEOVER_SQL " SECOND"
	    " ORDER BY b.beat_at DESC LIMIT 1";
	struct db_val a[] = { DBS(platform) };
	struct db_rows r;
	int rc;

	node[0] = '\0';
	if ((rc = db_query(db, sql, a, NARGS(a), &r)) != DB_OK)
		return rc;
	if (r.nrows > 0)
		str_copy(node, len, db_cell(&r, 0, 0));
	db_rows_free(&r);
	return DB_OK;
}

int
db_job_run(struct db *db, const struct db_shard *shard, const struct job_handler *h,
    struct job *ran, size_t max, char *err, size_t errlen)
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
	j.shard = shard;
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
