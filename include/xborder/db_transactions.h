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
 * Lists transactions, newest first.  *due (when due is not NULL) is 1 when
 * the platform may have quotes past their expiry (the page's rows say so;
 * an empty page cannot tell): the caller expires them (quotes_expire_due)
 * and, when it expired any, frees the page and lists again.
 */
int db_txn_list(struct db *db, const char *platform, const struct txn_filter *f,
    int64_t limit, int64_t offset, struct txn **out, size_t *n, int64_t *total, int *due);

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

/* ---- background jobs (xborder-worker) ---- */

/* The most jobs one batch claims (db_job_run clamps max to it). */
#define JOB_BATCH_MAX TXN_BATCH_MAX

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
 * Writes status on the n rows ts (n at most JOB_BATCH_MAX), all of one
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
 * transactions, LIST_VERSION_OF).  For the lifecycle, with every insert
 * and status change.
 */
int db_txn_count(struct db *db, const struct txn *ts, size_t n, const char *old_status);

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
