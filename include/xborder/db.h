/*
 * db.h: the store layer's connection and statement helpers.  Only db*.c
 * files include <mysql.h>; everything above sees these functions and plain
 * C values.  Every statement is prepared once per connection (cached by
 * its SQL text) and executed with bound parameters.
 */
#ifndef XBORDER_DB_H
#define XBORDER_DB_H

#include <stddef.h>
#include <stdint.h>

struct conf;
struct db;

/* Results of store functions; negative values are failures. */
enum db_rc {
	DB_OK = 0,
	DB_NOT_FOUND = 1,	/* the row does not exist (not a failure) */
	DB_INSUFFICIENT = 2,	/* a posting would take a balance below zero */
	DB_GONE = 3,		/* the row exists but is soft-deleted */
	DB_CONFLICT = 4,	/* a business rule of the store refused the change */
	DB_LIMIT = 5,		/* a posting would take a balance past the limit */
	DB_INVALID_MOVE = 6,	/* the lifecycle's table refuses a status change */
	DB_ERR = -1,		/* any other database error: answer 500 */
	DB_UNAVAILABLE = -2,	/* the server cannot be reached: answer 503 */
	DB_RETRY = -3,		/* deadlock or lock wait timeout: retry */
	DB_DUPLICATE = -4	/* a unique key was violated */
};

enum db_vtype { DBV_NULL, DBV_STR, DBV_I64 };

/* One bound parameter. */
struct db_val {
	enum db_vtype	 t;
	const char	*s;
	size_t		 len;
	int64_t		 i;
};

#define DBS(x)	((struct db_val){ DBV_STR, (x), strlen(x), 0 })
#define DBI(x)	((struct db_val){ DBV_I64, NULL, 0, (int64_t)(x) })
#define DBN	((struct db_val){ DBV_NULL, NULL, 0, 0 })
#define DBSN(x)	((x) != NULL ? DBS(x) : DBN)
#define NARGS(a) (sizeof(a) / sizeof((a)[0]))

/*
 * A worker's share of the background work (worker_shard = K/N in
 * xborder.conf): the jobs and webhook events of the platforms whose
 * MOD(CRC32(platform_id), N) is K, so that workers on different nodes of a
 * cluster write different platforms' rows and do not conflict; and those
 * of a share whose worker has not beaten (db_worker_beat) for
 * DB_SHARD_TAKEOVER_S seconds (it is gone).  {0, 1}: everything.
 */
struct db_shard {
	unsigned	 k, n;
};
#define DB_SHARD_TAKEOVER_S 10
#define DB_SHARD_TAKEOVER_SQL "10"	/* DB_SHARD_TAKEOVER_S, in statements */
/* The platforms of shard s (binds n, k, n, n): its own, or a dead share's. */
#define DB_SHARD_SQL(col) " AND (MOD(CRC32(" col "), ?) = ? OR MOD(CRC32(" col "), ?) NOT IN" \
	" (SELECT b.shard FROM worker_beats b WHERE b.shards = ?" \
	" AND b.beat_at >= UTC_TIMESTAMP(3) - INTERVAL " DB_SHARD_TAKEOVER_SQL " SECOND))"

/* A result set with every cell as a string (NULL for SQL NULL). */
struct db_rows {
	size_t	 nrows, ncols;
	char	**cell;		/* row-major, into data; owned */
	char	*data;		/* the cells' text; owned */
};

/*
 * The process's connection, opened on first use (and again after a
 * failure).  Returns NULL when the server cannot be reached.
 */
struct db *db_handle(const struct conf *c);

/*
 * A new unit of work (a request, a worker's pass) begins: its first
 * db_handle() looks whether the server closed the idle connection (one
 * poll, no round trip); later calls within the unit do not, since the
 * connection was just used (a server lost meanwhile fails the statement).
 */
void db_work_begin(void);

/* Opens a new connection; NULL with a message in err on failure. */
struct db *db_open(const struct conf *c, char *err, size_t errlen);

/* Closes a connection and its cached statements. */
void db_close(struct db *db);

/*
 * txn_counts has DB_COUNT_SHARDS rows per count, and each process adds to
 * its own: each xborder-fcgi worker its slot modulo 15, xborder-worker
 * the last one, which no fcgi worker uses (a settlement batch holds its
 * counter rows until it commits, and a payout waiting on one while the
 * batch waits on the payout's in-transit account would be a deadlock).
 * A process that names none (xborderctl) moves on from its pid with every
 * change.  db_set_count_shard: < 0 names none.
 */
#define DB_COUNT_SHARDS 16
void db_set_count_shard(int shard);
int db_count_shard(void);

/* Closes the process's cached connection (after a failure, or at exit). */
void db_handle_reset(void);

/* Executes a statement that returns no rows; *affected may be NULL. */
int db_exec(struct db *db, const char *sql, const struct db_val *args,
    size_t nargs, uint64_t *affected);

/*
 * Inside a transaction, queues a write whose answer the caller does not
 * read, to be sent with the transaction's next statement or its commit in
 * one round trip (db.c, "Deferred writes"); outside one, runs it at once.
 * expect >= 0: the write must change exactly that many rows, else the
 * statement that carries it (or this call) fails with otherwise (DB_ERR,
 * or DB_CONFLICT for a refusal the caller answers).  A queued write's
 * failure is that statement's failure, so only writes whose failure the
 * caller would merely pass on, or expects at its commit, may be deferred.
 */
int db_exec_later(struct db *db, const char *sql, const struct db_val *args,
    size_t nargs, int64_t expect, int otherwise);

/*
 * Runs sql, a locking read of one row by (platform, id) whose first column
 * says whether the row is deleted (e.g. "SELECT deleted_at IS NOT NULL
 * FROM t WHERE platform_id = ? AND id = ? FOR UPDATE"): DB_OK (live),
 * DB_GONE (deleted), DB_NOT_FOUND (no such row) or a failure.
 */
int db_lock_live(struct db *db, const char *sql, const char *platform, const char *id);

/*
 * db_exec() of a statement that changes a row or nothing, e.g. an INSERT
 * ... ON DUPLICATE KEY UPDATE that leaves the row as it is when a
 * condition fails: *changed is 1 when a row was inserted or changed, else
 * 0 (set to 0 on failure too).
 */
int db_exec_changed(struct db *db, const char *sql, const struct db_val *args,
    size_t nargs, int *changed);

/*
 * Prepares, executes and discards a statement whose text is not static
 * (migrations); nothing is cached.
 */
int db_exec_once(struct db *db, const char *sql);

/*
 * The text of a statement over n items: head, then item n times with sep
 * between, then tail (n >= 1).  The statement cache keeps a statement by
 * its text's address, so a caller makes each text once and keeps it for
 * the process (a static array per n).
 */
char *db_sql_list(const char *head, const char *item, const char *sep, size_t n,
    const char *tail);

/* Executes a query; out receives every row (free with db_rows_free). */
int db_query(struct db *db, const char *sql, const struct db_val *args,
    size_t nargs, struct db_rows *out);

/* db_query() for a text made at run time: the statement is not kept. */
int db_query_once(struct db *db, const char *sql, const struct db_val *args,
    size_t nargs, struct db_rows *out);

/*
 * A query that names one row: like db_query, but DB_NOT_FOUND (with
 * nothing to free) when no row matched.
 */
int db_query_one(struct db *db, const char *sql, const struct db_val *args,
    size_t nargs, struct db_rows *out);

/*
 * One page of a list: runs count_sql with all args but the last two (the
 * filters) into *total, then page_sql with all of them (the filters, then
 * LIMIT and OFFSET) into rows.
 */
int db_page(struct db *db, const char *count_sql, const char *page_sql,
    const struct db_val *args, size_t nargs, struct db_rows *rows, int64_t *total);

/*
 * The text of a DATETIME or TIMESTAMP value of decimals (0..6) fractional
 * digits, as MariaDB Connector/C writes it into a string buffer:
 * "YYYY-MM-DD hh:mm:ss" and then, for 1 to 6 decimals, "." and the first
 * decimals digits of the microseconds written in six.  Returns its length.
 */
#define DB_DATETIME_TEXT_MAX 96
struct st_mysql_time;
size_t db_datetime_text(const struct st_mysql_time *t, unsigned decimals,
    char out[DB_DATETIME_TEXT_MAX]);

/* Returns cell (row, col), NULL for SQL NULL. */
const char *db_cell(const struct db_rows *r, size_t row, size_t col);

/* Cell as int64 (0 for NULL or garbage). */
int64_t db_cell_i64(const struct db_rows *r, size_t row, size_t col);

/* Frees a result set. */
void db_rows_free(struct db_rows *r);

/*
 * On a cluster (db_nodes), the node named name (its socket or host:port,
 * as db_nodes or db_socket/db_host spell it) is where db_handle() takes
 * the process's work from now on, between transactions, while it serves;
 * NULL or a name not configured: the configured node.  Returns the node's
 * index (0: the configured one).  Without db_nodes it does nothing.
 */
int db_want_node(const struct conf *c, const char *name);

/* The name of the node db is connected to, as db_want_node() takes it. */
void db_node_name(const struct conf *c, const struct db *db, char *out, size_t len);

/* Transactions: begin turns autocommit off, commit/rollback turn it on. */
int db_begin(struct db *db);
int db_commit(struct db *db);
void db_rollback(struct db *db);

/*
 * Runs fn(db, arg) inside a transaction and commits.  A deadlock or lock
 * wait timeout (DB_RETRY, from fn or from the commit) rolls back and runs
 * the whole transaction again, up to a bounded number of attempts; any
 * other failure rolls back and is returned.  fn returns DB_OK to commit, or
 * any other value (including a positive "business" outcome) to roll back
 * and return it.
 */
int db_transact(struct db *db, int (*fn)(struct db *, void *), void *arg);

/*
 * As db_transact(), but every read of fn sees one snapshot of the
 * database, taken at its first read (REPEATABLE READ), where the
 * session's other transactions read what is committed at each statement.
 * For readers that compare tables with each other while writers run.
 */
int db_transact_snapshot(struct db *db, int (*fn)(struct db *, void *), void *arg);

/*
 * A request-wide transaction, for a request whose every write must commit
 * together with its Idempotency-Key record.  db_outer_begin() opens it
 * (attempt > 0 backs off first, as db_transact's retries do); while it is
 * open, db_transact() runs its function under a savepoint instead of
 * committing (from the second run of the request on: a function that
 * refuses in the first run, which takes no savepoint, marks the request
 * for a retry with them).  A deadlock or lock wait timeout anywhere inside
 * marks it for a retry too (db_outer_retry() is 1): the owner rolls back
 * and runs the whole request again.  db_outer_commit() returns DB_OK or the failure;
 * after DB_UNAVAILABLE the outcome of the commit is unknown.
 */
int db_outer_begin(struct db *db, int attempt);
int db_outer_commit(struct db *db);
void db_outer_rollback(struct db *db);
int db_outer_retry(const struct db *db);

/* 1 between db_begin() and the commit or rollback that ends it. */
int db_in_transaction(const struct db *db);

/*
 * hook is told how every transaction ends: committed (1), or rolled back
 * (0; also a rollback to a savepoint, the start of a transaction and a
 * connection dropped inside one).  For a cache of rows that may only be
 * trusted once committed (db_ledger.c's system accounts).  One hook.
 */
void db_set_tx_hook(void (*hook)(int committed));

/*
 * Attempts a transaction (or a request-wide one) gets before it fails:
 * 8, or 12 on a Galera cluster (db_nodes or db_sync_wait set), where two
 * nodes' transactions on the same rows meet only at commit.
 */
int db_attempts(void);

/*
 * The statements this process sent to MariaDB and the microseconds it
 * waited for them since the last call; resets both (for the request log).
 */
void db_tally_take(uint64_t *statements, uint64_t *us);

/* How many transactions were retried by this process (for logs and tests). */
uint64_t db_retries(void);

/* A trivial round trip; DB_OK when the server answers. */
int db_ping(struct db *db);

/* What a db_rc means, in words (for logs). */
const char *db_rc_name(int rc);

/* Text of the last error of this connection (for logs). */
const char *db_error(struct db *db);

/*
 * Reads one row of a table family into a struct: row i of r into out (a
 * struct of the caller's kind).  The store's X_from_row functions.
 */
typedef void (*db_row_reader)(const struct db_rows *r, size_t i, void *out);

/*
 * Runs sql, which selects one row, and reads it into out with read: DB_OK,
 * DB_NOT_FOUND (out untouched) or a failure.
 */
int db_read_one(struct db *db, const char *sql, const struct db_val *args, size_t nargs,
    db_row_reader read, void *out);

/*
 * db_page() read into a new array of *n elements of size bytes each, each
 * filled by read (caller frees the array, and each element as its kind
 * says).  *items is NULL when the page has no row.
 */
int db_read_page(struct db *db, const char *count_sql, const char *page_sql,
    const struct db_val *args, size_t nargs, db_row_reader read, size_t size,
    void **items, size_t *n, int64_t *total);

/*
 * Runs sql, which selects one integer in one row, into *v: DB_OK,
 * DB_NOT_FOUND (*v untouched) or a failure.
 */
int db_read_i64(struct db *db, const char *sql, const struct db_val *args, size_t nargs,
    int64_t *v);

/*
 * EXPLAIN of sql with its values a[0..n-1], its rows into out (caller
 * frees): for xborderctl explain-lists.
 */
int db_explain(struct db *db, const char *sql, const struct db_val *a, size_t n,
    struct db_rows *out);

#endif
