/*
 * db_jobs.h: the background jobs xborder-worker runs (db_jobs.c): queued
 * in the transaction of the change that needs them, claimed in batches
 * with SKIP LOCKED, done in one commit per batch.
 */
#ifndef XBORDER_DB_JOBS_H
#define XBORDER_DB_JOBS_H

#include <stddef.h>
#include <stdint.h>

#include "xborder/txn.h"

struct db;
struct db_shard;

/* The most jobs one batch claims (db_job_run clamps max to it). */
#define JOB_BATCH_MAX TXN_BATCH_MAX

struct job {
	int64_t	 id;
	char	 kind[33];
	char	 ref_id[37];
	char	 platform_id[37];
	int64_t	 attempts;
};

/*
 * What a batch of jobs does.  begin (may be NULL) runs first, in the
 * batch's transaction, with all n claimed jobs: it does what it can for
 * several jobs at once and sets ran[i] for each job it has done.  run
 * then runs each other job, and end (may be NULL) runs last, before the
 * jobs are marked done.  Each returns DB_OK or a failure, which rolls the
 * batch back; the batch may run again, so begin starts afresh.
 */
struct job_handler {
	int	(*begin)(struct db *, const struct job *, size_t, unsigned char *, void *);
	int	(*run)(struct db *, const struct job *, void *);
	int	(*end)(struct db *, void *);
	void	*arg;
};

/*
 * Runs due jobs of shard (db.h), up to max of them in one transaction (one
 * commit for all): claims them (oldest first, FOR UPDATE SKIP LOCKED), runs them with
 * h and marks them done.  When one fails the batch rolls back and the
 * jobs before it run again as a batch (or the oldest alone, when it was
 * the first or begin or end failed); if it fails alone it is rescheduled
 * with backoff in a second transaction and err says why (else err is
 * empty).  Returns how many jobs ran (ran[0..n-1], as claimed; 0: none
 * was due), or < 0 on a database failure.
 */
int db_job_run(struct db *db, const struct db_shard *shard, const struct job_handler *h,
    struct job *ran, size_t max, char *err, size_t errlen);

/*
 * The worker of shard says it is alive (worker_beats): another worker
 * takes its share when it has not for DB_SHARD_TAKEOVER_S seconds.
 */
int db_worker_beat(struct db *db, const struct db_shard *shard, const char *node);

/*
 * The node (as db_node_name() names it) where the live worker whose share
 * holds platform writes, into node (empty: none beats); DB_OK or a failure.
 */
int db_platform_node(struct db *db, const char *platform, char *node, size_t len);

/* Queues a job to run after delay_ms (inside the caller's transaction). */
int db_job_add(struct db *db, const char *kind, const char *ref_id, const char *platform,
    int64_t delay_ms);

#endif
