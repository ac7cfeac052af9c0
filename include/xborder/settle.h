/*
 * settle.h: what the background worker does with a job.  The rules of the
 * sandbox bank live here; the SQL lives in the store.
 */
#ifndef XBORDER_SETTLE_H
#define XBORDER_SETTLE_H

struct db;
struct job;
struct job_handler;

#define REFUND_DELAY_MS 500

/*
 * Runs one job inside the worker's transaction: "settle" moves a PENDING
 * transfer to COMPLETED or FAILED (with its postings), "refund" returns a
 * COMPLETED payout whose bank sent it back (REFUNDED).  A job whose
 * transaction has already moved on does nothing.  Returns DB_OK or a
 * failure (the job is then retried with backoff).
 */
int settle_run(struct db *db, const struct job *job, void *arg);

/*
 * The worker's handler of a batch of jobs (db_job_run): the batch's
 * transfer-outs that complete settle together, the other jobs one by one
 * with settle_run().
 */
void settle_handler(struct job_handler *h);

#endif
