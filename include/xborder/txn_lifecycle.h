/*
 * txn_lifecycle.h: the one way a transaction is recorded and changes
 * status (DESIGN.md "Transactions: one lifecycle").  Settlement, refunds,
 * quote execution and expiry, review decisions and transfers are callers;
 * nothing else writes transactions.status.  Every function works inside
 * the caller's database transaction (db_transact) and leaves nothing
 * written when it fails.
 */
#ifndef XBORDER_TXN_LIFECYCLE_H
#define XBORDER_TXN_LIFECYCLE_H

#include <stddef.h>

struct db;
struct ledger_short;
struct quote;
struct txn;

/* What a move may need beyond the transaction itself. */
struct txn_move_ctx {
	/* A quote's moves: its quote, locked by the caller (NULL: read). */
	const struct quote	*quote;
	/* A PPV quote's CREATED -> COMPLETED: the receiver's account (NULL: read). */
	const char		*credit_account;
	/* DB_INSUFFICIENT: what the paying account lacks (may be NULL). */
	struct ledger_short	*shortfall;
};

/*
 * Records t, a transaction just inserted (db_txn_insert), in the status
 * its kind is created in (txn_moves.h): counts it and queues its webhook
 * event.  t is moved into out when out is not NULL, else freed.  DB_OK,
 * DB_INVALID_MOVE (created in another status) or a failure.
 */
int txn_created(struct db *db, struct txn *t, struct txn *out);

/*
 * Moves t, read under its lock in this database transaction (db_txn_lock),
 * to status to, when the table allows it: writes the ledger postings of
 * the move (txn_postings.c), then the status (settledAt on the first move
 * to COMPLETED or REFUNDED), the counts and the webhook event.  A move to
 * the status t already has does nothing.  out, when not NULL, receives the
 * row as it then is (caller frees).  DB_OK; DB_INVALID_MOVE (the table
 * refuses: nothing written); DB_INSUFFICIENT, DB_LIMIT (a posting would
 * take a balance out of bounds: nothing written); or a failure.
 */
int txn_move(struct db *db, const struct txn *t, const char *to,
    const struct txn_move_ctx *ctx, struct txn *out);

/*
 * txn_move() of the n transfer-outs ts that complete (n at most
 * TXN_BATCH_MAX), read by one db_txn_lock_many() and all PENDING, by one
 * UPDATE, one counting statement and one event INSERT.  Their postings
 * are txn_postings_batch()'s, which the caller runs last, just before its
 * commit, so the in-transit accounts they write are held as briefly as can
 * be.
 */
int txn_move_batch(struct db *db, const struct txn *ts, size_t n, const char *to);

/*
 * The postings of txn_move_batch()'s payouts, moved to COMPLETED: per
 * platform and currency, each in-transit shard gives what its payouts hold
 * and the SANDBOX account takes the sum.  DB_CONFLICT for a row no payout
 * can have (data changed by hand).
 */
int txn_postings_batch(struct db *db, const struct txn *ts, size_t n);

/*
 * The postings of moving t to status to (txn_postings.c): none for a move
 * that moves no money.  For txn_move() only.
 */
int txn_postings(struct db *db, const struct txn *t, const char *to,
    const struct txn_move_ctx *ctx);

/*
 * The account a quote's execution credits on the receiving side: the
 * receiving platform's in-transit account for a payout, the receiving
 * customer's account for a PPV address.  dest receives its id.
 */
int txn_quote_credit_account(struct db *db, const struct quote *q, char dest[37]);

#endif
