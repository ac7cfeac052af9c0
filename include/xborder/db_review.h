/*
 * db_review.h: the incoming-review lane: simulated incoming payments that
 * wait for a decision, the decisions, and their audit trail.
 */
#ifndef XBORDER_DB_REVIEW_H
#define XBORDER_DB_REVIEW_H

#include <stdint.h>

struct db;
struct db_rows;
struct txn;

/* A simulated incoming payment. */
struct review_new {
	const char	*customer_id;	/* raw uuid, the receiver */
	const char	*scenario;
	const char	*detail;	/* JSON text of the scenario's details, or NULL */
	const char	*currency;
	int64_t		 amount;
	int64_t		 window_ms;	/* undecided for this long: EXPIRED */
};

/* A decision on a case. */
struct review_decision {
	int		 approve;
	const char	*token_id;	/* who decided (raw uuid) */
	const char	*note;		/* the reason or note, or NULL */
	const char	*counterparty;	/* JSON text of counterpartyInfo, or NULL */
};

/*
 * Records the case: an INCOMING transaction in PENDING for the receiver's
 * account in currency, with its scenario, and the job that expires it.
 * DB_OK, DB_NOT_FOUND, DB_GONE (receiver deleted) or a failure.
 */
int db_review_simulate(struct db *db, const char *platform, const struct review_new *n,
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
int db_review_decide(struct db *db, const char *platform, const char *id,
    const struct review_decision *d, struct txn *out, char status_now[16]);

/*
 * Inside the caller's transaction: expires the case t, read under its
 * lock (db_txn_lock), if it is still PENDING (the worker's review_expire
 * job).
 */
int db_review_expire(struct db *db, const struct txn *t);

/*
 * The decisions on transaction id (any platform), oldest first: created_at,
 * action, token_id, note, counterparty.  DB_OK (maybe no rows) or a failure.
 */
int db_review_audit(struct db *db, const char *id, struct db_rows *out);

#endif
