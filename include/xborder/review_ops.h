/*
 * review_ops.h: what happens to a case of the incoming-review lane
 * (review_ops.c): it is made, decided or expires, each in one database
 * transaction and through the lifecycle (txn_lifecycle.h).
 */
#ifndef XBORDER_REVIEW_OPS_H
#define XBORDER_REVIEW_OPS_H

struct db;
struct review_new;
struct review_decision;
struct txn;

/*
 * Records the case: an INCOMING transaction in PENDING for the receiver's
 * account in currency, with its scenario, and the job that expires it.
 * DB_OK, DB_NOT_FOUND, DB_GONE (receiver deleted) or a failure.
 */
int review_simulate(struct db *db, const char *platform, const struct review_new *n,
    struct txn *out);

/*
 * Decides a case of platform under the customer and transaction locks:
 * approve credits the receiver (COMPLETED), reject moves nothing
 * (REJECTED); the decision is recorded for audit.  out receives the
 * transaction afterwards.  DB_OK, DB_NOT_FOUND, DB_CONFLICT when it is no
 * longer a PENDING case (status_now says what it is; a case past its
 * window that the worker has not expired yet is expired here, and is
 * EXPIRED), or a failure.
 */
int review_decide(struct db *db, const char *platform, const char *id,
    const struct review_decision *d, struct txn *out, char status_now[16]);

/*
 * Inside the caller's transaction: expires the case t, read under its
 * lock (db_txn_lock), if it is still PENDING (the worker's review_expire
 * job, a decision past the window, the sandbox helper `expire`).  out,
 * when not NULL, receives the row as it then is (caller frees).
 */
int review_expire(struct db *db, const struct txn *t, struct txn *out);

#endif
