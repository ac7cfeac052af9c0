/*
 * db_status.c: the job queue and the webhook backlog for the status page
 * (see db_status.h).  Both read indexes: jobs by ix_jobs_due (done_at,
 * run_at), events by ix_webhook_events_due (status, next_attempt_at).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "xborder/db.h"
#include "xborder/db_status.h"

int
db_status_jobs(struct db *db, struct job_queue *out)
{
	static const char sql[] =
	    "SELECT COUNT(*), COALESCE(SUM(run_at <= UTC_TIMESTAMP(3)), 0),"
	    " MIN(IF(run_at <= UTC_TIMESTAMP(3), run_at, NULL)),"
	    " TIMESTAMPDIFF(MICROSECOND, MIN(IF(run_at <= UTC_TIMESTAMP(3), run_at, NULL)),"
	    "  UTC_TIMESTAMP(3)) DIV 1000"
	    " FROM jobs WHERE done_at IS NULL";
	struct db_rows r;
	const char *oldest;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = db_query(db, sql, NULL, 0, &r)) != DB_OK)
		return rc;
	if (r.nrows == 1) {
		out->queued = db_cell_i64(&r, 0, 0);
		out->due = db_cell_i64(&r, 0, 1);
		if ((oldest = db_cell(&r, 0, 2)) != NULL) {
			snprintf(out->oldest_due_at, sizeof(out->oldest_due_at), "%s", oldest);
			out->oldest_due_ms = db_cell_i64(&r, 0, 3);
		}
	}
	db_rows_free(&r);
	return DB_OK;
}

int
db_status_webhooks(struct db *db, int64_t *pending, struct db_rows *out)
{
	static const char total[] =
	    "SELECT COUNT(*) FROM webhook_events FORCE INDEX (ix_webhook_events_due)"
	    " WHERE status = 'PENDING'";
	static const char sql[] =
	    "SELECT platform_id, COUNT(*) AS n, MIN(created_at) FROM webhook_events"
	    " FORCE INDEX (ix_webhook_events_due) WHERE status = 'PENDING'"
	    " GROUP BY platform_id ORDER BY n DESC, platform_id LIMIT ?";
	struct db_val a[] = { DBI(STATUS_WEBHOOK_PLATFORMS) };
	struct db_rows r;
	int rc;

	if ((rc = db_query(db, total, NULL, 0, &r)) != DB_OK)
		return rc;
	*pending = r.nrows == 1 ? db_cell_i64(&r, 0, 0) : 0;
	db_rows_free(&r);
	return db_query(db, sql, a, NARGS(a), out);
}
