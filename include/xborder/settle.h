/*
 * settle.h: what the background worker does with a job.  The rules of the
 * sandbox bank live here; the SQL lives in the store.
 */
#ifndef XBORDER_SETTLE_H
#define XBORDER_SETTLE_H

struct db;
struct job;
struct job_handler;
struct quote;
struct txn;

#define REFUND_DELAY_MS 500

/*
 * Runs one job inside the worker's transaction: "settle" moves a PENDING
 * transfer to COMPLETED or FAILED (with its postings), "refund" returns a
 * COMPLETED payout whose bank sent it back (REFUNDED).  A job whose
 * transaction has already moved on (the first commit won: a sandbox
 * helper, a decision) does nothing and logs one info line saying so.
 * Returns DB_OK or a failure (the job is then retried with backoff).
 */
int settle_run(struct db *db, const struct job *job, void *arg);

/*
 * The worker's handler of a batch of jobs (db_job_run): the batch's
 * transfer-outs that complete settle together, the other jobs one by one
 * with settle_run().
 */
void settle_handler(struct job_handler *h);

/*
 * Inside the caller's transaction: completes t, read under its lock (a
 * PENDING transfer, or a PROCESSING quote payout with its quote q; q NULL
 * for a transfer), as the sandbox bank does: COMPLETED (txn_move), and
 * for a payout the bank returns (005) the refund job that returns it
 * later.  out as txn_move's (caller frees; freed on failure).  What
 * txn_move returns, or a failure to queue the job.
 */
int settle_complete(struct db *db, const struct txn *t, const struct quote *q,
    struct txn *out);

#endif
