/*
 * db_transactions.h: a transaction's row (db_transactions.c): reading it,
 * locking it, inserting it, the one UPDATE of its status and its counts.
 * Lists of transactions are db_txn_lists.h's, what happens to a
 * transaction the lifecycle's (txn_lifecycle.h).
 */
#ifndef XBORDER_DB_TRANSACTIONS_H
#define XBORDER_DB_TRANSACTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "xborder/txn.h"

struct db;
struct db_rows;
struct db_val;

/*
 * The columns of a transaction in the order the store reads them, each
 * prefixed by p (a table alias and '.'): for "RETURNING " TXN_COLS.
 */
#define TXN_COLS_OF(p) p "id, " p "platform_id, " p "kind, " p "type, " p "status, " \
	p "customer_id, " p "platform_customer_id, " p "quote_id, " p "internal_account_id, " \
	p "external_account_id, " p "destination_type, " p "destination_ref, " p "currency, " \
	p "amount, " p "exchange_rate, " p "fee_currency, " p "fee_amount, " p "outcome, " \
	p "created_at, " p "updated_at, " p "settled_at, " p "review_scenario, " \
	p "review_detail, " p "transit_shard"
#define TXN_COLS TXN_COLS_OF("")
#define TXN_NCOLS 24


/* A same-currency transfer between a customer's two accounts. */
struct transfer {
	const char	*customer_id;
	const char	*internal_account_id;
	const char	*external_account_id;
	const char	*ppv_address;		/* transfer-in: the destination shown */
	const char	*currency;
	int64_t		 amount;
	const char	*outcome;		/* from the external account number */
};

struct txn_filter {
	const char	*customer_id, *platform_customer_id, *type, *status;
	const char	*start, *end;		/* "YYYY-MM-DD HH:MM:SS.mmm" */
};

/*
 * Inserts transfer t of platform with id: a transfer-out (OUTGOING, to the
 * external account) when out_dir, else a transfer-in (INCOMING, to the PPV
 * address), in PENDING, its money in in-transit shard shard; pcid is the
 * customer's platform customer id (NULL when none).  out receives the row
 * (caller frees), for transfer_in() or transfer_out() to record.
 */
int db_transfer_insert(struct db *db, const char *platform, const char *id,
    const struct transfer *t, int out_dir, const char *pcid, int shard, struct txn *out);

/* Reads a transaction of platform: DB_OK or DB_NOT_FOUND. */
int db_txn_get(struct db *db, const char *platform, const char *id, struct txn *out);

/*
 * Runs sql, the INSERT of one transaction ending in "RETURNING " TXN_COLS,
 * and reads the new row into out (caller frees).  Every insert of a
 * transaction goes through here; the caller then hands the row to
 * txn_created() (txn_lifecycle.h), which counts it and queues its event.
 */
int db_txn_insert(struct db *db, const char *sql, const struct db_val *args, size_t n,
    struct txn *out);

/*
 * Counts the customer's transactions that are not finished: not in a
 * terminal state, or a completed payout that the bank is going to return.
 */
int db_txn_open_count(struct db *db, const char *customer_id, int64_t *count);

/*
 * A transaction read in the statement that reads the caller's token (for
 * GET /transactions/{id}: one round trip).  read: the statement ran; due:
 * the transaction's quote is past its expiry, so t was not taken
 * (db_txn_get_fresh must expire it first); found: t holds transaction
 * id of the token's platform (caller frees with txn_free).
 */
struct txn_prefetch {
	char		 id[37];
	char		 platform_id[37];	/* the token's, where it was looked for */
	int		 read, due, found;
	struct txn	 t;
};

/*
 * db_token_auth_get() of token_id and, in the same statement, transaction
 * txn_id of the token's platform into p.  Returns what db_token_auth_get
 * returns.
 */
struct token_auth;
int db_token_auth_get_txn(struct db *db, const char *token_id,
    const char *txn_id,
    struct token_auth *ta, struct txn_prefetch *p);

/*
 * db_txn_get() for what a request shows: *due is 1, and out not filled,
 * when the transaction's quote is past its expiry (read in the same
 * statement): the caller expires it (quotes_expire_due) and reads it
 * again, so it is never shown stale.
 */
int db_txn_get_fresh(struct db *db, const char *platform, const char *id, struct txn *out,
    int *due);

/* Locks a transaction for settlement: DB_OK or DB_NOT_FOUND. */
int db_txn_lock(struct db *db, const char *platform, const char *id, struct txn *out);

/*
 * Locks, of the n transactions (platforms[i], ids[i]) (n at most
 * TXN_BATCH_MAX), those of the given kind, status and outcome, by one
 * statement in id order, and reads them as db_txn_lock() does (with one
 * db_now): out[0..*nout-1] (the caller frees each with txn_free).
 */
int db_txn_lock_many(struct db *db, const char *const *platforms, const char *const *ids,
    size_t n, const char *kind, const char *status, const char *outcome, struct txn *out,
    size_t *nout);

/*
 * The customers (platform_id, customer_id; in customer id order, each
 * once) of those of the n transactions (platforms[i], ids[i]) that are
 * not of the given kind, status and outcome, read without a lock, into
 * out (the caller frees it with db_rows_free).
 */
int db_txn_customers_but(struct db *db, const char *const *platforms, const char *const *ids,
    size_t n, const char *kind, const char *status, const char *outcome, struct db_rows *out);

/*
 * EXPLAIN of db_txn_lock_many's statement (lock) or of the status change's
 * (else) over n pairs of platform and id.  For xborderctl explain-lists.
 */
int db_txn_change_explain(struct db *db, const char *platform, const char *id, size_t n,
    int lock, struct db_rows *out);

/*
 * Writes status on the n rows ts (n at most TXN_BATCH_MAX), all of one
 * status and read under their locks by one statement of this database
 * transaction (db_txn_lock, db_txn_lock_many: so with one db_now), by one
 * UPDATE: updated_at (and settled_at when settled and not yet set) become
 * the server's time of that read, so the rows as changed are ts with those
 * columns, put in changed[0..n-1] (the caller frees them) without reading
 * them again.  DB_ERR for rows not read so.  The statement of the
 * lifecycle (txn_lifecycle.c), its only caller: nothing else writes
 * transactions.status.
 */
int db_txn_status_write(struct db *db, const struct txn *ts, size_t n, const char *status,
    int settled, struct txn *changed);

/*
 * Counts the n transactions ts in txn_counts, in this process's shard
 * (db_count_shard): +1 each under its status and, when old_status is set,
 * -1 under that one, in one statement, rows in a fixed order; every row
 * written adds one to its `changes` (the version of the platform's
 * transactions, LIST_VERSION_OF).  The customers of those that have one
 * are written too (txn_customer_counts, in the same shard; a second
 * statement): new transactions (old_status NULL) are counted under their
 * customer, and every row written adds one to its `changes` (the version
 * of the customer's transactions, LIST_VERSION_OF_CUSTOMER).  For the
 * lifecycle, with every insert and status change.
 */
int db_txn_count(struct db *db, const struct txn *ts, size_t n, const char *old_status);

/*
 * The columns TXN_COLS_OF read from row i of r, starting at column c, into
 * t (the store's files that read transactions share it).
 */
void db_txn_from_cols(const struct db_rows *r, size_t i, unsigned c, struct txn *t);

/*
 * SQL: 1 when the platform whose id is `pcol` (a column or "?") has an
 * open quote past its expiry (QUOTE_READY or BLOCKED, not executed).  MIN
 * on the prefix of ix_quotes_open_due: one look into the index per
 * status, however many executed quotes the platform has.  Read with the
 * transactions a request shows, so that quotes_expire_due() (quote_ops.c) runs only
 * when there is something to expire.
 */
#define QUOTE_OPEN_MIN(pcol, st) \
	"COALESCE((SELECT MIN(q.expires_at) FROM quotes q FORCE INDEX (ix_quotes_open_due)" \
	" WHERE q.platform_id = " pcol " AND q.status = '" st "'" \
	" AND q.executed_at IS NULL), '9999-12-31')"
/*
 * SQL: 1 when the transaction alias x is a quote's whose quote is open
 * (QUOTE_READY or BLOCKED, not executed) and past its expiry, what
 * quotes_expire_due() (quote_ops.c) expires; read from the transaction's own row
 * (schema/010_quote_expiry.sql says why it is the same).
 */
#define TXN_QUOTE_DUE_OF(x) \
	"(" x ".status = 'CREATED' AND " x ".quote_expires_at <= UTC_TIMESTAMP(3))"
#define QUOTES_DUE_SQL(pcol) \
	"(LEAST(" QUOTE_OPEN_MIN(pcol, "QUOTE_READY") ", " \
	QUOTE_OPEN_MIN(pcol, "BLOCKED") ") <= UTC_TIMESTAMP(3))"

#endif
