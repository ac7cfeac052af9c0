/*
 * db_transactions.h: transactions, the transfers that create them, the
 * background jobs that settle them, and idempotency records.
 */
#ifndef XBORDER_DB_TRANSACTIONS_H
#define XBORDER_DB_TRANSACTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "xborder/db_ledger.h"
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
 * Records a transfer-in (INCOMING, PENDING): moves the amount from the
 * platform's sandbox account to its in-transit account, records the
 * transaction and its settlement job, in one transaction.  DB_OK,
 * DB_LIMIT (the sandbox account would pass the balance limit), DB_GONE
 * (customer deleted meanwhile) or a failure.
 */
int db_transfer_in(struct db *db, const char *platform, const struct transfer *t,
    struct txn *out);

/*
 * Records a transfer-out (OUTGOING, PENDING): moves the amount from the
 * customer's account to the platform's in-transit account, records the
 * transaction and its settlement job, in one transaction.  DB_OK,
 * DB_LIMIT, DB_INSUFFICIENT (*shortfall filled), DB_GONE or a failure.
 */
int db_transfer_out(struct db *db, const char *platform, const struct transfer *t,
    struct txn *out, struct ledger_short *shortfall);

/* Reads a transaction of platform: DB_OK or DB_NOT_FOUND. */
int db_txn_get(struct db *db, const char *platform, const char *id, struct txn *out);

/*
 * Lists transactions, newest first; quotes past their expiry are expired
 * first (as db_txn_get_fresh does).
 */
int db_txn_list(struct db *db, const char *platform, const struct txn_filter *f,
    int64_t limit, int64_t offset, struct txn **out, size_t *n, int64_t *total);

/*
 * The text of db_txn_list()'s statement for the filter combination mask
 * (0 .. db_txn_list_combinations() - 1): its page (page 1), its page read
 * with the token (page 2, db_token_auth_get_list), its first page read
 * with the token (page 3, the same) or its count (page 0); NULL past the
 * last.  For xborderctl explain-lists.
 */
const char *db_txn_list_sql(unsigned mask, int page);
unsigned db_txn_list_combinations(void);

/*
 * EXPLAIN of that statement for platform, with sample values of the
 * filters: out has EXPLAIN's rows (id, select_type, table, type,
 * possible_keys, key, key_len, ref, rows, Extra).  page 2 is the page
 * read with token token_id (db_token_auth_get_list), which must exist for
 * the plan to show the page.
 */
int db_txn_list_explain(struct db *db, const char *platform, const char *token_id,
    unsigned mask, int page, struct db_rows *out);

/*
 * A page of GET /transactions read in the statement that reads the
 * caller's token (one round trip), for a platform the worker already saw
 * the token authenticate in.  usable: the token's platform is that one,
 * the page has rows and no quote is past its expiry, so list, n and total
 * are the answer once the token is authenticated; otherwise the handler
 * reads the page itself (db_txn_list).  list is newest first (txn_list_free).
 */
struct txn_list_prefetch {
	char		 platform_id[37];
	int64_t		 limit, offset;
	int		 usable;
	struct txn	*list;
	size_t		 n;
	int64_t		 total;
	/*
	 * The version of the platform's transactions read with the page
	 * (LIST_VERSION_OF), and the earliest expiry of a quote open on it
	 * ("" when none): the page stays the answer while both hold.
	 */
	int64_t		 version;
	char		 expires[24];
	/*
	 * checked: only the token, the version of its platform's
	 * transactions and the server's time (db_now) were read, for a page
	 * the worker keeps (db_token_auth_get_version).
	 */
	int		 checked;
	char		 db_now[24];
};

/*
 * The version of the transactions of the platform in column pcol: it moves
 * with every insert and status change of one of them, and only grows
 * (schema/011_list_version.sql).
 */
#define LIST_VERSION_OF(pcol) \
	"(SELECT COALESCE(SUM(changes), 0) FROM txn_counts WHERE platform_id = " pcol ")"

/*
 * db_token_auth_get() of token_id and, in the same statement, the page of
 * f, limit and offset in platform (a guess: used only when it is the
 * token's) into p.  Returns what db_token_auth_get returns.
 */
struct token_auth;
int db_token_auth_get_list(struct db *db, const char *token_id, const char *addr,
    const char *platform,
    const struct txn_filter *f, int64_t limit, int64_t offset, struct token_auth *ta,
    struct txn_list_prefetch *p);
void txn_list_prefetch_free(struct txn_list_prefetch *p);

/*
 * db_token_auth_get() of token_id and, in the same statement, the version
 * of its platform's transactions and the server's time, into p (checked):
 * for a page of GET /transactions the worker keeps.
 */
int db_token_auth_get_version(struct db *db, const char *token_id, const char *addr,
    struct token_auth *ta,
    struct txn_list_prefetch *p);

/*
 * Runs sql, the INSERT of one transaction ending in "RETURNING " TXN_COLS,
 * and records the new row: counts it in txn_counts and queues its event
 * (db_txn_event), in the caller's database transaction.  Every insert of a
 * transaction goes through here, as every status change goes through
 * db_txn_set_status().  out, when not NULL, receives the row (caller
 * frees).
 */
int db_txn_insert(struct db *db, const char *sql, const struct db_val *args, size_t n,
    struct txn *out);

/*
 * Counts the customer's transactions that are not finished: not in a
 * terminal state, or a completed payout that the bank is going to return.
 */
int db_txn_open_count(struct db *db, const char *customer_id, int64_t *count);

/* ---- background jobs (xborder-worker) ---- */

/* The most jobs one batch claims (db_job_run clamps max to it). */
#define JOB_BATCH_MAX 64

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
 * Runs due jobs, up to max of them in one transaction (one commit for
 * all): claims them (oldest first, FOR UPDATE SKIP LOCKED), runs them with
 * h and marks them done.  When one fails the batch rolls back and the
 * jobs before it run again as a batch (or the oldest alone, when it was
 * the first or begin or end failed); if it fails alone it is rescheduled
 * with backoff in a second transaction and err says why (else err is
 * empty).  Returns how many jobs ran (ran[0..n-1], as claimed; 0: none
 * was due), or < 0 on a database failure.
 */
int db_job_run(struct db *db, const struct job_handler *h, struct job *ran, size_t max,
    char *err, size_t errlen);

/* Queues a job to run after delay_ms (inside the caller's transaction). */
int db_job_add(struct db *db, const char *kind, const char *ref_id, const char *platform,
    int64_t delay_ms);

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
int db_token_auth_get_txn(struct db *db, const char *token_id, const char *addr,
    const char *txn_id,
    struct token_auth *ta, struct txn_prefetch *p);

/*
 * db_txn_get() for what a request shows: when the platform has quotes past
 * their expiry (read in the same statement), they are expired first and
 * the transaction read again, so it is never shown stale.
 */
int db_txn_get_fresh(struct db *db, const char *platform, const char *id, struct txn *out);

/* Locks a transaction for settlement: DB_OK or DB_NOT_FOUND. */
int db_txn_lock(struct db *db, const char *platform, const char *id, struct txn *out);

/*
 * Locks, of the n transactions (platforms[i], ids[i]) (n at most
 * JOB_BATCH_MAX), those of the given kind, status and outcome, by one
 * statement in id order, and reads them as db_txn_lock() does (with one
 * db_now): out[0..*nout-1] (the caller frees each with txn_free).
 */
int db_txn_lock_many(struct db *db, const char *const *platforms, const char *const *ids,
    size_t n, const char *kind, const char *status, const char *outcome, struct txn *out,
    size_t *nout);

/*
 * EXPLAIN of db_txn_lock_many's statement (lock) or of the status change's
 * (else) over n pairs of platform and id.  For xborderctl explain-lists.
 */
int db_txn_change_explain(struct db *db, const char *platform, const char *id, size_t n,
    int lock, struct db_rows *out);

/*
 * Sets a transaction's status (settled stamps settled_at when not yet set)
 * and, in the same database transaction, counts it and queues its webhook
 * event; nothing when it already has that status.  Every status change
 * goes through here.
 */
int db_txn_set_status(struct db *db, const char *platform, const char *id,
    const char *status, int settled);

/*
 * db_txn_set_status() of t, read with db_txn_lock() in this database
 * transaction (so its status is the row's, and stays so): updated_at (and
 * settled_at) become the time of that read (t->db_now), so the row as
 * changed is known without reading it again.  DB_ERR for a t not read
 * under its lock.  out, when not NULL, receives the row as it then is
 * (caller frees).
 */
int db_txn_set_status_from(struct db *db, const struct txn *t, const char *status,
    int settled, struct txn *out);

/*
 * db_txn_set_status_from() of the n rows ts, read by one db_txn_lock_many()
 * and all of one status, by one UPDATE, one counting statement and one
 * event INSERT.
 */
int db_txn_set_status_all(struct db *db, const struct txn *ts, size_t n,
    const char *status, int settled);

/*
 * Housekeeping: deletes idempotency records past their expiry, jobs done
 * more than a day ago and webhook events created more than 30 days ago
 * that are no longer pending, in bounded statements, up to a bounded
 * number of them; *n receives how many rows went, *more is set when rows
 * may be left (call again soon).
 */
int db_idem_purge(struct db *db, uint64_t *n, int *more);

/* ---- idempotency ---- */

enum idem_state { IDEM_NEW, IDEM_REPLAY, IDEM_REUSED, IDEM_IN_USE };

/*
 * Starts a request under an Idempotency-Key: records it as RUNNING under a
 * fresh claim id written to claim, with a lease of lease_s seconds
 * (IDEM_NEW), or finds the earlier one: IDEM_REPLAY with its response
 * (status, body owned by caller), IDEM_REUSED when the request differs,
 * IDEM_IN_USE while another attempt holds it.  A RUNNING claim whose lease
 * has passed (its worker, or its database node, died) is taken over:
 * IDEM_NEW.  Returns DB_OK or a failure.
 */
int db_idem_begin(struct db *db, const char *platform, const char *key, const char *hash,
    int64_t lease_s, char claim[37], enum idem_state *state, int *status, char **body);

/*
 * Inside the request's transaction, as its last statement: stores the
 * response to replay (DONE) if claim still holds the key.  DB_OK,
 * DB_CONFLICT when another attempt took it over (the caller rolls back),
 * or a failure.
 */
int db_idem_finish(struct db *db, const char *platform, const char *key, const char *claim,
    int status, const char *body);

/* Forgets claim's key after a request that committed nothing (a 5xx). */
int db_idem_forget(struct db *db, const char *platform, const char *key, const char *claim);

#endif
