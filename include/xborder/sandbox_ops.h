/*
 * sandbox_ops.h: the sandbox's state helpers (decisions.md section 14),
 * POST /sandbox/transactions/{transactionId}/complete|fail|return|expire:
 * each moves one transaction as settlement, suffix 002, suffix 005 or time
 * would, through the same code (settle.c, quote_ops.c, review_ops.c and
 * the lifecycle), in one database transaction.
 */
#ifndef XBORDER_SANDBOX_OPS_H
#define XBORDER_SANDBOX_OPS_H

#include "xborder/txn_moves.h"

struct db;
struct txn;

/* The helpers, in the order of section 14's table. */
enum sandbox_helper {
	SBX_COMPLETE,	/* as a normal settlement */
	SBX_FAIL,	/* as suffix 002 */
	SBX_RETURN,	/* as suffix 005: the bank returns a completed payout */
	SBX_EXPIRE,	/* as time: a quote's transaction, a review case */
	SBX__MAX
};

/* The most statuses a helper moves one class of transaction from. */
#define SBX_FROM_MAX 4

/*
 * The statuses from which helper h moves a transaction of class c, in the
 * helpers' table's order, into from (NULL-ended; at most SBX_FROM_MAX
 * entries before the NULL); returns how many (0: it moves none).
 */
int sandbox_allowed_from(enum sandbox_helper h, enum txn_class c,
    const char *from[SBX_FROM_MAX + 1]);

/*
 * The status helper h moves a transaction of class c in status from to
 * (a move the lifecycle's table allows), or NULL when it moves none from
 * there.  A static string.
 */
const char *sandbox_helper_to(enum sandbox_helper h, enum txn_class c, const char *from);

/*
 * Runs helper h on transaction id of platform, in one database transaction
 * that locks like settlement (the customer row, then a quote's row, then
 * the transaction) and makes exactly one move of the lifecycle: out
 * receives the transaction as changed (caller frees).  A quote or review
 * case found past its expiry is expired first, as any reader would, and
 * the helper refused.  Returns DB_OK; DB_NOT_FOUND; DB_CONFLICT when the
 * helper does not move a transaction of its class (*cls) from its status
 * (status, as a reader sees it); DB_GONE (a return would credit a deleted
 * customer); DB_LIMIT (a credit would pass the balance limit); or a
 * failure.  Nothing is written but on DB_OK (and the expiry above).
 */
int sandbox_move(struct db *db, const char *platform, const char *id,
    enum sandbox_helper h, struct txn *out, char status[16], enum txn_class *cls);

#endif
