/*
 * db_status.h: what the status page reads from the database: the job
 * queue and the webhook backlog.  These are operator reads over every
 * platform (counts and ids only, never a platform's data), so unlike the
 * rest of the store they take no platform.
 */
#ifndef XBORDER_DB_STATUS_H
#define XBORDER_DB_STATUS_H

#include <stdint.h>

struct db;
struct db_rows;

struct job_queue {
	int64_t	 queued;	/* jobs not done */
	int64_t	 due;		/* of those, due now */
	char	 oldest_due_at[32];	/* run_at of the oldest due job; "" when none */
	int64_t	 oldest_due_ms;	/* how long it has been due */
};

int db_status_jobs(struct db *db, struct job_queue *out);

/* The 100 platforms with the most pending webhook events. */
#define STATUS_WEBHOOK_PLATFORMS 100

/*
 * *pending: every pending event; out: rows of (platform_id, pending,
 * oldest created_at as "YYYY-MM-DD HH:MM:SS.fff") for the platforms with
 * the most, most first.
 */
int db_status_webhooks(struct db *db, int64_t *pending, struct db_rows *out);

#endif
