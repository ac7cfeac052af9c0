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
 * Inserts the case: an INCOMING transaction of kind SIMULATION in PENDING
 * for the receiver's account (account) in currency, with its scenario,
 * due to expire after n->window_ms, for the customer whose platform
 * customer id is pcid (NULL when none); out receives the row (caller
 * frees).  For review_simulate(), which records it and adds its expiry job.
 */
int db_review_insert(struct db *db, const char *platform, const struct review_new *n,
    const char *pcid, const char *account, struct txn *out);

/*
 * Whether case id is past its review window by the server's clock: *past
 * is 1 or 0.  DB_OK, DB_NOT_FOUND or a failure.
 */
int db_review_past_window(struct db *db, const char *id, int *past);

/* Records decision d on case id of platform, for the audit trail. */
int db_review_audit_add(struct db *db, const char *platform, const char *id,
    const struct review_decision *d);

/*
 * The decisions on transaction id (any platform), oldest first: created_at,
 * action, token_id, note, counterparty.  DB_OK (maybe no rows) or a failure.
 */
int db_review_audit(struct db *db, const char *id, struct db_rows *out);

#endif
