/*
 * quote_ops.h: what happens to a quote (quote_ops.c): it is made, executed
 * or expires, each in database transactions of its own and through the
 * lifecycle (txn_lifecycle.h).
 */
#ifndef XBORDER_QUOTE_OPS_H
#define XBORDER_QUOTE_OPS_H

#include <stdint.h>

struct db;
struct ledger_short;
struct quote;
struct txn;

/* Why an execution was refused (DB_CONFLICT). */
enum quote_refusal { QUOTE_OK, QUOTE_ALREADY_EXECUTED, QUOTE_EXPIRED, QUOTE_BLOCKED,
	QUOTE_ACCOUNT_GONE };

/*
 * Records q (every field but id, transaction_id and the timestamps filled
 * by the caller) and its OUTGOING transaction in CREATED, in one
 * transaction; out receives the stored quote.  DB_OK, DB_GONE (the sending
 * customer was deleted meanwhile) or a failure.
 */
int quote_create(struct db *db, const struct quote *q, struct quote *out);

/*
 * Executes a quote of platform (decisions.md section 9): to a PPV address
 * it settles at once (the receiving platform's INCOMING transaction
 * included); to an external account the transaction goes PROCESSING and a
 * settlement job is queued.  out receives the sending transaction.
 * Returns DB_OK, DB_NOT_FOUND, DB_CONFLICT (*why says which rule),
 * DB_GONE (a customer was deleted), DB_INSUFFICIENT (*shortfall) or a
 * failure.
 */
int quote_execute(struct db *db, const char *platform, const char *id, struct txn *out,
    enum quote_refusal *why, struct ledger_short *shortfall);

/*
 * Marks every unexecuted quote past its expiry EXPIRED, with its
 * transaction (of platform, or of every platform when NULL), however many
 * are due, a hundred at a time, each in a transaction of its own.  *n (may
 * be NULL) receives how many.  Whoever looks first writes it: readers call
 * it when their statement says quotes are due, so none shows one stale.
 */
int quotes_expire_due(struct db *db, const char *platform, uint64_t *n);

/*
 * Inside the caller's transaction: expires quote quote_id, open and locked
 * by the caller (db_quote_lock or db_quote_lock_due), with its transaction
 * t, read under its lock and CREATED: the quote becomes EXPIRED and t
 * moves to EXPIRED (txn_move; out as its).  What time does to a quote
 * (quotes_expire_due) and the sandbox helper `expire`.
 */
int quote_expire_locked(struct db *db, const char *quote_id, const struct txn *t,
    struct txn *out);

#endif
