/*
 * db.c: MariaDB Connector/C plumbing.  A worker holds one connection,
 * opened lazily by db_handle() and dropped after any error that means the
 * server went away, so the next request reconnects instead of failing
 * forever.  Statements are prepared once per connection and kept in a
 * small cache keyed by their SQL text; results come back as strings, and
 * the typed structs are built by the db_<resource>.c files.
 */
#include "config.h"

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mysql.h>
#include <errmsg.h>
#include <mysqld_error.h>

#include "xborder/conf.h"
#include "xborder/db.h"
#include "xborder/fault.h"
#include "xborder/stats.h"
#include "xborder/util.h"

#define STMT_CACHE 512
/* A deferred write's refusal (DB_CONFLICT): an error number SIGNAL may set. */
#define ER_XB_REFUSED 30001

/*
 * Where a query's columns are fetched to: a buffer per column, sized by
 * the column's declared length within RESULT_COL_MIN..RESULT_COL_MAX
 * bytes, made on the statement's first query and kept with it.  A longer
 * value is fetched again whole (mysql_stmt_fetch_column).
 */
#define RESULT_COL_MIN 24
#define RESULT_COL_MAX 256

/*
 * A DATETIME or TIMESTAMP column of 0 to 6 decimals is fetched as a
 * MYSQL_TIME and written as text here (db_datetime_text), the text the
 * library would have made with sprintf; every other column as text.
 */
struct result_binds {
	size_t		 ncols;
	MYSQL_BIND	*b;
	unsigned long	*len;
	my_bool		*isnull;
	char		*buf;
	MYSQL_TIME	*tm;		/* per column; used by time columns */
	signed char	*time_dec;	/* decimals of a time column, else -1 */
};

struct stmt_slot {
	const char	*sql;	/* static text: pointer identity first */
	MYSQL_STMT	*stmt;
	struct result_binds *rb; /* NULL until its first query */
};

/*
 * The writes db_exec_later() queued in a transaction: each statement's
 * static text, its arguments (strings copied into data, at the offsets in
 * soff) and the rows it must change (-1: any), and what it is if not.  The next statement sent
 * carries them (carry()).
 */
struct later_stmt {
	const char	*sql;
	size_t		 a0, na;
	int64_t		 expect;
	int		 conflict;	/* a wrong count is DB_CONFLICT, not DB_ERR */
};

struct later {
	struct later_stmt *st;
	size_t		 n, cap;
	struct db_val	*args;
	size_t		*soff;
	size_t		 nargs, acap;
	char		*data;
	size_t		 dlen, dcap;
	/* the carrying statement's text (when not kept) and arguments */
	char		*text;
	size_t		 tcap;
	struct db_val	*all;
	size_t		 allcap;
};

struct db {
	MYSQL		*my;
	struct stmt_slot cache[STMT_CACHE];
	size_t		 ncache;
	struct stmt_slot once;	/* a statement not kept: closed after its call */
	struct stmt_slot *later;	/* ... or, inside a transaction, at its end */
	size_t		 nlater, later_cap;
	int		 broken;	/* the server went away */
	int		 outer;		/* a request-wide transaction is open */
	int		 outer_retry;	/* ...and must be run again whole */
	int		 outer_savepoints; /* ...and takes savepoints (see transact_nested) */
	int		 outer_resavepoint; /* the retry is for savepoints, not a conflict */
	int		 in_tx;		/* between db_begin and its commit or rollback */
	int		 tx_sent;	/* ...and its begin has reached the server */
	struct later	 q;		/* writes queued by db_exec_later() */
	size_t		 node;		/* 0: the configured node; i: db_nodes[i - 1] */
	char		 err[256];
};

static struct db *process_db;
static void (*tx_hook)(int committed);

/*
 * On a Galera cluster (db_nodes or db_sync_wait set) every transaction
 * opens with SAVEPOINT xb_guard and releases it just before its commit.
 * A transaction aborted by a conflict with another node's write set (a
 * brute-force abort, which can come between two statements) must fail
 * its caller; if the server ever lets the next statements run in a new
 * transaction instead, without an error, the savepoint is gone with the
 * old one, the release fails and the whole transaction runs again, rather
 * than committing its second half alone.
 */
static int tx_guard;

static void close_later(struct db *db);
static void later_free(struct later *q);
static int64_t process_db_used_ms;
/* Whether db_handle() has looked for a closed connection since db_work_begin(). */
static int closed_checked;

static void
binds_free(struct result_binds *rb)
{
	if (rb == NULL)
		return;
	free(rb->b);
	free(rb->len);
	free(rb->isnull);
	free(rb->buf);
	free(rb->tm);
	free(rb->time_dec);
	free(rb);
}

static void
slot_close(struct stmt_slot *s)
{
	mysql_stmt_close(s->stmt);
	binds_free(s->rb);
}

/*
 * What this process sent to MariaDB since db_tally_take() last asked: the
 * statements (round trips) and the time spent waiting for them, for the
 * request log.  Connects are counted for the status page.
 */
static uint64_t tally_statements, tally_us;

static void
count(uint64_t n)
{
	stats_add(STAT_DB_STATEMENTS, n);
	tally_statements += n;
}

/* Starts timing a call to the server; tock() adds the time to the tally. */
static int64_t
tick(void)
{
	return now_us();
}

static void
tock(int64_t t0)
{
	tally_us += (uint64_t)(now_us() - t0);
}

void
db_tally_take(uint64_t *statements, uint64_t *us)
{
	*statements = tally_statements;
	*us = tally_us;
	tally_statements = tally_us = 0;
}

static int count_shard = -1;

void
db_set_count_shard(int shard)
{
	count_shard = shard < 0 ? -1 : shard % DB_COUNT_SHARDS;
}

int
db_count_shard(void)
{
	static unsigned next;

	if (count_shard >= 0)
		return count_shard;
	if (next == 0)
		next = (unsigned)getpid();
	return (int)(next++ % DB_COUNT_SHARDS);
}

/* After this long unused, a connection is checked before it is lent out. */
#define IDLE_CHECK_MS 2000

/*
 * A Galera cluster's nodes (db_nodes): a node that failed is passed over
 * for NODE_DOWN_MS while another serves.  The process's work goes through
 * the node it wants (want_node: its configured node, or the node that
 * db_want_node() named for a request): a connection elsewhere moves there
 * between transactions, at once when that node has not failed, else when
 * it has not for FAILBACK_MS, tried with a connect timeout of
 * FAILBACK_TIMEOUT_S; after a try that failed slowly (FAILBACK_SLOW_MS or
 * more: a host that is down without refusing connections costs a request
 * that timeout), twice as long, up to FAILBACK_MAX_MS.  The connection
 * left is kept (spare) for the next move back.
 */
#define NODE_DOWN_MS 2000
#define FAILBACK_MS 3000
#define FAILBACK_MAX_MS 60000
#define FAILBACK_SLOW_MS 100
#define FAILBACK_TIMEOUT_S 1
#define CONNECT_TIMEOUT_S 5

static int64_t node_down_ms[1 + CONF_DB_NODES_MAX];
static int64_t node_wait_ms[1 + CONF_DB_NODES_MAX];
static size_t want_node;
static struct db *spare[1 + CONF_DB_NODES_MAX];

/* Node i's address: 0 the configured one, else db_nodes[i - 1]. */
static void
node_addr(const struct conf *c, size_t i, const char **host, unsigned *port, const char **sock)
{
	const struct conf_node *n;

	*host = NULL;
	*port = 0;
	*sock = NULL;
	if (i == 0) {
		if (c->db_socket[0] != '\0')
			*sock = c->db_socket;
		else {
			*host = c->db_host;
			*port = c->db_port;
		}
		return;
	}
	n = &c->db_nodes[i - 1];
	if (n->socket != NULL)
		*sock = n->socket;
	else {
		*host = n->host;
		*port = n->port != 0 ? n->port : c->db_port;
	}
}

/* How node i is named in log lines: its socket or host:port. */
static void
node_name(const struct conf *c, size_t i, char *out, size_t outlen)
{
	const char *host, *sock;
	unsigned port;

	node_addr(c, i, &host, &port, &sock);
	if (sock != NULL)
		snprintf(out, outlen, "%s", sock);
	else
		snprintf(out, outlen, "%s:%u", host, port);
}

/*
 * Whether the node db is connected to serves: with db_nodes set, a Galera
 * node that is in the primary component and Synced.  A node still joining
 * or cut off from the majority accepts connections but not work; one in
 * the Joined state would make every causal read wait for its catching up.
 * wsrep_sync_wait off for this read: it must not wait for that either.
 */
static int
node_ready(const struct conf *c, struct db *db)
{
	static const char sql[] =
	    "SET STATEMENT wsrep_sync_wait = 0 FOR"
	    " SELECT COUNT(*) FROM information_schema.GLOBAL_STATUS"
	    " WHERE (VARIABLE_NAME = 'WSREP_READY' AND VARIABLE_VALUE = 'ON')"
	    " OR (VARIABLE_NAME = 'WSREP_LOCAL_STATE' AND VARIABLE_VALUE = '4')";
	int64_t n = 0;

	if (c->db_nnodes == 0)
		return 1;
	if (db_read_i64(db, sql, NULL, 0, &n) != DB_OK)
		return 0;
	if (n != 2)
		snprintf(db->err, sizeof(db->err), "the node is not Synced in the primary component");
	return n == 2;
}

/* A connection to node i, or NULL with the reason in err. */
static struct db *
open_node(const struct conf *c, size_t i, unsigned timeout, char *err, size_t errlen)
{
	struct db *db = xcalloc(1, sizeof(*db));
	unsigned rw = c->db_read_timeout;
	my_bool off = 0;
	const char *host, *sock;
	unsigned port;
	char init[256];
	int64_t t0;
	int len;

	if ((db->my = mysql_init(NULL)) == NULL)
		abort();
	mysql_optionsv(db->my, MYSQL_OPT_CONNECT_TIMEOUT, &timeout);
	mysql_optionsv(db->my, MYSQL_OPT_READ_TIMEOUT, &rw);
	mysql_optionsv(db->my, MYSQL_OPT_WRITE_TIMEOUT, &rw);
	mysql_optionsv(db->my, MYSQL_OPT_RECONNECT, &off);
	mysql_optionsv(db->my, MYSQL_SET_CHARSET_NAME, "utf8mb4");
	/*
	 * On a Galera node, db_sync_wait makes the session's reads causal
	 * (wsrep_sync_wait): the first statement of every transaction, and
	 * every statement outside one, waits until the node has applied what
	 * the cluster committed before it was sent, so a read on one node sees
	 * a commit acknowledged by another (doc/cluster.md).
	 * Not set by default: a server without wsrep has no such variable.
	 */
	len = snprintf(init, sizeof(init), "%s",
	    "SET time_zone = '+00:00', tx_isolation = 'READ-COMMITTED',"
	    " innodb_lock_wait_timeout = 10, sql_mode = 'STRICT_ALL_TABLES,NO_ZERO_DATE'");
	if (c->db_sync_wait > 0)
		snprintf(init + len, sizeof(init) - (size_t)len, ", wsrep_sync_wait = %u",
		    c->db_sync_wait);
	mysql_optionsv(db->my, MYSQL_INIT_COMMAND, init);
	tx_guard = c->db_nnodes > 0 || c->db_sync_wait > 0;
	node_addr(c, i, &host, &port, &sock);
	t0 = tick();
	stats_add(STAT_DB_CONNECTS, 1);
	if (mysql_real_connect(db->my, host, c->db_user, c->db_password, c->db_name, port,
	    sock, 0) == NULL) {
		tock(t0);
		snprintf(err, errlen, "%s", mysql_error(db->my));
		mysql_close(db->my);
		free(db);
		return NULL;
	}
	tock(t0);
	db->node = i;
	if (!node_ready(c, db)) {
		snprintf(err, errlen, "%s", db->err);
		db_close(db);
		return NULL;
	}
	return db;
}

/*
 * A connection to the wanted node, or, with db_nodes, to the first of the
 * cluster's nodes that serves (the wanted one first, then the configured
 * one, then db_nodes in order): those that failed in the last NODE_DOWN_MS
 * are tried last.  err holds the last node's failure.
 */
static struct db *
open_wanted(const struct conf *c, size_t want, char *err, size_t errlen)
{
	size_t n = 1 + c->db_nnodes;
	char name[300], first[300] = "";
	struct db *db;

	if (want >= n)
		want = 0;
	for (int pass = 0; pass < 2; pass++)
		for (size_t k = 0; k < n; k++) {
			size_t i = k == 0 ? want : k <= want ? k - 1 : k;
			int recent = node_down_ms[i] != 0 &&
			    now_ms() - node_down_ms[i] < NODE_DOWN_MS;

			if (recent != pass)
				continue;
			if ((db = open_node(c, i, CONNECT_TIMEOUT_S, err, errlen)) != NULL) {
				node_down_ms[i] = 0;
				if (i != want) {
					node_name(c, i, name, sizeof(name));
					log_msg(LOG_LVL_WARN, NULL, "database: connected to node %s"
					    " (the %s node failed: %s)", name,
					    want == 0 ? "configured" : "wanted", first);
				}
				return db;
			}
			node_down_ms[i] = now_ms();
			if (n > 1) {
				node_name(c, i, name, sizeof(name));
				if (first[0] == '\0')
					snprintf(first, sizeof(first), "%.100s", err);
				log_msg(LOG_LVL_WARN, NULL, "database: node %s unavailable: %s",
				    name, err);
			}
		}
	return NULL;
}

struct db *
db_open(const struct conf *c, char *err, size_t errlen)
{
	return open_wanted(c, 0, err, errlen);
}

/* Between transactions: no statement of a request's work is pending. */
static int
between_transactions(const struct db *db)
{
	return !db->in_tx && !db->outer;
}

/*
 * Whether the server closed db's idle connection (it died or shut down):
 * its socket then reads as at end of file, found without a round trip.
 * Nothing else arrives unasked between statements.
 */
static int
conn_closed(struct db *db)
{
	struct pollfd p;

	p.fd = mysql_get_socket(db->my);
	p.events = POLLIN;
	p.revents = 0;
	return p.fd < 0 || poll(&p, 1, 0) != 0;
}

/* The spare connection to node i, if it is still open. */
static struct db *
spare_take(size_t i)
{
	struct db *db = spare[i];

	spare[i] = NULL;
	if (db != NULL && conn_closed(db)) {
		db_close(db);
		db = NULL;
	}
	return db;
}

/*
 * Moves the process's connection to the node it wants, between
 * transactions, when that node serves (see NODE_DOWN_MS above).
 */
static void
move_to_wanted(const struct conf *c)
{
	size_t i = want_node;
	struct db *db;
	char err[256], name[300];
	int64_t t0;

	if (process_db == NULL || process_db->node == i || !between_transactions(process_db))
		return;
	if ((db = spare_take(i)) == NULL) {
		if (node_wait_ms[i] == 0)
			node_wait_ms[i] = FAILBACK_MS;
		if (node_down_ms[i] != 0 && now_ms() - node_down_ms[i] < node_wait_ms[i])
			return;
		t0 = now_ms();
		if ((db = open_node(c, i, FAILBACK_TIMEOUT_S, err, sizeof(err))) == NULL) {
			/* Refused at once, it costs nothing; a timeout, a request's wait. */
			if (now_ms() - t0 >= FAILBACK_SLOW_MS && node_wait_ms[i] < FAILBACK_MAX_MS)
				node_wait_ms[i] *= 2;
			node_down_ms[i] = now_ms();
			return;
		}
		if (node_down_ms[i] != 0) {
			node_name(c, i, name, sizeof(name));
			log_msg(LOG_LVL_INFO, NULL, "database: back on the %s node %s",
			    i == 0 ? "configured" : "wanted", name);
		}
		node_down_ms[i] = 0;
		node_wait_ms[i] = FAILBACK_MS;
	}
	db_close(spare[process_db->node]);
	spare[process_db->node] = process_db;
	process_db = db;
}

int
db_want_node(const struct conf *c, const char *name)
{
	char have[300];
	size_t found = 0;

	for (size_t i = 0; name != NULL && c->db_nnodes > 0 && i <= c->db_nnodes; i++) {
		node_name(c, i, have, sizeof(have));
		if (strcmp(have, name) == 0) {
			found = i;
			break;
		}
	}
	want_node = found;
	return (int)found;
}

void
db_node_name(const struct conf *c, const struct db *db, char *out, size_t len)
{
	node_name(c, db->node, out, len);
}

void
db_close(struct db *db)
{
	if (db == NULL)
		return;
	if (db->in_tx && tx_hook != NULL)
		tx_hook(0);	/* a transaction left open is lost with the connection */
	for (size_t i = 0; i < db->ncache; i++)
		slot_close(&db->cache[i]);
	close_later(db);
	free(db->later);
	later_free(&db->q);
	mysql_close(db->my);
	free(db);
}

struct db *
db_handle(const struct conf *c)
{
	char err[256];

	if (process_db != NULL && process_db->broken)
		db_handle_reset();
	/*
	 * A node that died since the last request closed its connections:
	 * found here, the request starts on another node instead of failing.
	 * Not inside a transaction: its work is lost with the connection,
	 * and the request must say so (a 503), not go on elsewhere.
	 */
	if (process_db != NULL && !closed_checked && between_transactions(process_db) &&
	    conn_closed(process_db))
		db_handle_reset();
	closed_checked = 1;
	move_to_wanted(c);
	/*
	 * A connection that sat idle may have been closed by a server restart
	 * or wait_timeout; find out now, with one round trip, rather than
	 * failing the request that happens to come first.
	 */
	if (process_db != NULL && now_ms() - process_db_used_ms > IDLE_CHECK_MS &&
	    db_ping(process_db) != DB_OK)
		db_handle_reset();
	process_db_used_ms = now_ms();
	if (process_db == NULL) {
		process_db = open_wanted(c, want_node, err, sizeof(err));
		if (process_db == NULL)
			log_msg(LOG_LVL_ERROR, NULL, "database connection failed: %s", err);
	}
	return process_db;
}

void
db_work_begin(void)
{
	closed_checked = 0;
}

void
db_handle_reset(void)
{
	db_close(process_db);
	process_db = NULL;
}

const char *
db_rc_name(int rc)
{
	switch (rc) {
	case DB_OK: return "ok";
	case DB_NOT_FOUND: return "not found";
	case DB_INSUFFICIENT: return "insufficient balance";
	case DB_GONE: return "deleted";
	case DB_CONFLICT: return "conflict";
	case DB_LIMIT: return "balance limit";
	case DB_UNAVAILABLE: return "database unavailable";
	case DB_RETRY: return "deadlock or lock wait, retries exhausted";
	case DB_DUPLICATE: return "duplicate key";
	default: return "database error";
	}
}

const char *
db_error(struct db *db)
{
	return db->err;
}

/*
 * Maps a server or client error number to a db_rc and remembers the text.
 *
 * On a Galera node two more cases matter.  A transaction that loses a
 * certification conflict to another node's commit, or is aborted by the
 * applier of one, fails with ER_LOCK_DEADLOCK ("WSREP detected
 * deadlock/conflict"), at any statement or at the commit: retried whole,
 * like an InnoDB deadlock.  A node outside the primary component (cut off
 * from the majority, or still joining) answers ER_UNKNOWN_COM_ERROR, "WSREP
 * has not yet prepared node for application use", to every query: the
 * service is unavailable on this connection, which is dropped, so the
 * request is answered 503 and the next one connects again.
 */
static int
classify(struct db *db, unsigned no, const char *msg)
{
	snprintf(db->err, sizeof(db->err), "%u: %s", no, msg);
	switch (no) {
	case CR_CONNECTION_ERROR:
	case CR_CONN_HOST_ERROR:
	case CR_SERVER_GONE_ERROR:
	case CR_SERVER_LOST:
	case CR_SERVER_LOST_EXTENDED:
	case ER_SERVER_SHUTDOWN:
	case ER_CONNECTION_KILLED:
	case ER_UNKNOWN_COM_ERROR:
		db->broken = 1;
		return DB_UNAVAILABLE;
	case ER_ERROR_DURING_COMMIT:
		/*
		 * Galera: the node left the primary component as this
		 * transaction committed (its write set was not replicated):
		 * the node is away, as below.
		 */
		db->broken = 1;
		return DB_UNAVAILABLE;
	case ER_SP_DOES_NOT_EXIST:
		/* A savepoint gone: the transaction was rolled back under us. */
		log_msg(LOG_LVL_WARN, NULL, "database: transaction lost before its end (%s);"
		    " it runs again", db->err);
		/* FALLTHROUGH */
	case ER_LOCK_DEADLOCK:
	case ER_LOCK_WAIT_TIMEOUT:
		/* Inside a request-wide transaction only its owner can retry. */
		if (db->outer)
			db->outer_retry = 1;
		return DB_RETRY;
	case ER_DUP_ENTRY:
		return DB_DUPLICATE;
	case ER_XB_REFUSED:
		return DB_CONFLICT;	/* a deferred write's refusal (check_refused) */
	default:
		log_msg(LOG_LVL_ERROR, NULL, "database error %s", db->err);
		return DB_ERR;
	}
}

/*
 * The slot of the prepared statement for sql: a cached one, or db->once
 * when keep is 0 or the cache is full; NULL with *rc set on failure.
 */
static struct stmt_slot *
prepare(struct db *db, const char *sql, int keep, int *rc)
{
	struct stmt_slot *s;
	MYSQL_STMT *st;
	int64_t t0;
	int failed;

	for (size_t i = 0; i < db->ncache; i++)
		if (db->cache[i].sql == sql)
			return &db->cache[i];
	for (size_t i = 0; i < db->ncache; i++)
		if (strcmp(db->cache[i].sql, sql) == 0)
			return &db->cache[i];
	if ((st = mysql_stmt_init(db->my)) == NULL)
		abort();
	count(1);
	t0 = tick();
	failed = mysql_stmt_prepare(st, sql, strlen(sql)) != 0;
	tock(t0);
	if (failed) {
		*rc = classify(db, mysql_stmt_errno(st), mysql_stmt_error(st));
		mysql_stmt_close(st);
		return NULL;
	}
	/* Only statements with static text are cached; migrations are not. */
	s = keep && db->ncache < STMT_CACHE ? &db->cache[db->ncache++] : &db->once;
	s->sql = sql;
	s->stmt = st;
	s->rb = NULL;
	return s;
}

/*
 * After a call: a statement not kept is closed, but not inside a
 * transaction.  COM_STMT_CLOSE has no answer: on a Galera node, a
 * transaction aborted meanwhile by a conflict with another node's write
 * set (a brute-force abort, which comes at any time) reports its error
 * to the next command, and when that command is a close the error is
 * lost, the rollback unseen, and the caller's next statements would run
 * in a new transaction and commit without the ones before.  So such a
 * statement waits for the transaction's end (close_later).
 */
static void
unprepare(struct db *db, struct stmt_slot *s)
{
	if (s != &db->once)
		return;
	if (db->in_tx && !db->broken) {
		if (db->nlater == db->later_cap) {
			db->later_cap = db->later_cap ? 2 * db->later_cap : 8;
			db->later = xrealloc(db->later, db->later_cap * sizeof(*db->later));
		}
		db->later[db->nlater++] = *s;
	} else
		slot_close(s);
	memset(s, 0, sizeof(*s));
}

/* The statements unprepare() kept until the transaction's end. */
static void
close_later(struct db *db)
{
	for (size_t i = 0; i < db->nlater; i++)
		slot_close(&db->later[i]);
	db->nlater = 0;
}

/* Binds args and executes; returns DB_OK or a failure code. */
static int
run(struct db *db, MYSQL_STMT *st, const struct db_val *args, size_t nargs)
{
	MYSQL_BIND few[16], *b = few;
	int rc = DB_OK;

	if (mysql_stmt_param_count(st) != nargs) {
		snprintf(db->err, sizeof(db->err), "parameter count mismatch");
		log_msg(LOG_LVL_ERROR, NULL, "statement expects %lu parameters, got %zu",
		    mysql_stmt_param_count(st), nargs);
		return DB_ERR;
	}
	if (nargs > 0) {
		if (nargs > NARGS(few))
			b = xcalloc(nargs, sizeof(*b));
		else
			memset(few, 0, nargs * sizeof(*few));
		for (size_t i = 0; i < nargs; i++) {
			switch (args[i].t) {
			case DBV_NULL:
				b[i].buffer_type = MYSQL_TYPE_NULL;
				break;
			case DBV_STR:
				b[i].buffer_type = MYSQL_TYPE_STRING;
				b[i].buffer = (void *)args[i].s;
				b[i].buffer_length = args[i].len;
				break;
			case DBV_I64:
				b[i].buffer_type = MYSQL_TYPE_LONGLONG;
				b[i].buffer = (void *)&args[i].i;
				break;
			}
		}
		if (mysql_stmt_bind_param(st, b) != 0)
			rc = classify(db, mysql_stmt_errno(st), mysql_stmt_error(st));
	}
	if (rc == DB_OK) {
		int64_t t0 = tick();

		count(1);
		if (mysql_stmt_execute(st) != 0)
			rc = classify(db, mysql_stmt_errno(st), mysql_stmt_error(st));
		tock(t0);
	}
	if (b != few)
		free(b);
	return rc;
}

/*
 * After an execution: frees its result.  A statement that succeeded can be
 * executed again as it is (no COM_STMT_RESET round trip); one that failed
 * is reset on the server too, or its next execution waits for an answer
 * that never comes.
 */
static void
done_with(struct db *db, MYSQL_STMT *st, int rc)
{
	mysql_stmt_free_result(st);
	/* A compound statement (carry()) ends with a status of its own. */
	if (rc == DB_OK)
		while (mysql_stmt_next_result(st) == 0)
			mysql_stmt_free_result(st);
	if (rc != DB_OK && !db->broken) {
		int64_t t0 = tick();

		count(1);
		/*
		 * A reset that fails may carry a Galera abort of the open
		 * transaction (see unprepare): nothing after it may run as if
		 * the transaction went on, so the connection is dropped.
		 */
		if (mysql_stmt_reset(st) != 0) {
			log_msg(LOG_LVL_WARN, NULL, "database: statement reset failed (%u: %s);"
			    " connection dropped", mysql_stmt_errno(st), mysql_stmt_error(st));
			db->broken = 1;
		}
		tock(t0);
	}
}

/*
 * Deferred writes.  A transaction's write whose answer nobody reads (no
 * rows; at most a row count fixed in advance) need not wait for the
 * server by itself: db_exec_later() queues it, and the next statement of
 * the transaction, or its commit, carries the queue in one compound
 * statement, "BEGIN NOT ATOMIC w1; w2; ...; next; END", prepared and
 * cached by its text like any other, with every parameter bound in
 * order.  The statements run in the order they were issued, in the same
 * transaction, so a read after a queued write sees it.  A queued write
 * that fails fails the statement that carried it with its own error, and
 * the caller rolls the transaction back as it would have had the write
 * failed alone; so only writes whose failure the caller merely passes on
 * are deferred (never one whose DB_DUPLICATE it answers).  An expected
 * row count is checked in the block (IF ROW_COUNT() <> ? THEN SIGNAL).
 * db_begin() queues its SET autocommit = 0 too: a transaction's first
 * statement carries its begin.  On a Galera cluster (tx_guard) nothing is
 * deferred: every statement there goes alone, as before.
 */
#define LATER_MAX 32		/* statements queued before one carries them */
#define LATER_ARGS_MAX 4096	/* ... or their parameters */
#define BLOCKS_MAX 256		/* carrying statements' texts kept for the process */

static const char begin_sql[] = "SET autocommit = 0";
static const char commit_sql[] = "SET autocommit = 1";
static const char flush_sql[] = "DO 0";
static const char check_rows[] = " IF ROW_COUNT() <> ? THEN SIGNAL SQLSTATE '45000'"
    " SET MESSAGE_TEXT = 'xborder: a deferred write changed an unexpected number of rows';"
    " END IF;";
static const char check_refused[] = " IF ROW_COUNT() <> ? THEN SIGNAL SQLSTATE '45000'"
    " SET MYSQL_ERRNO = 30001, MESSAGE_TEXT = 'xborder: a deferred write was refused';"
    " END IF;";

static void
later_clear(struct db *db)
{
	db->q.n = db->q.nargs = db->q.dlen = 0;
}

static void
later_free(struct later *q)
{
	free(q->st);
	free(q->args);
	free(q->soff);
	free(q->data);
	free(q->text);
	free(q->all);
}

static void
later_add(struct db *db, const char *sql, const struct db_val *args, size_t nargs,
    int64_t expect, int conflict)
{
	struct later *q = &db->q;

	if (q->n == q->cap) {
		q->cap = q->cap ? 2 * q->cap : 16;
		q->st = xrealloc(q->st, q->cap * sizeof(*q->st));
	}
	if (q->nargs + nargs > q->acap) {
		while (q->nargs + nargs > q->acap)
			q->acap = q->acap ? 2 * q->acap : 64;
		q->args = xrealloc(q->args, q->acap * sizeof(*q->args));
		q->soff = xrealloc(q->soff, q->acap * sizeof(*q->soff));
	}
	q->st[q->n++] = (struct later_stmt){ sql, q->nargs, nargs, expect, conflict };
	for (size_t i = 0; i < nargs; i++) {
		struct db_val v = args[i];
		size_t off = SIZE_MAX;

		if (v.t == DBV_STR) {
			if (q->dlen + v.len + 1 > q->dcap) {
				while (q->dlen + v.len + 1 > q->dcap)
					q->dcap = q->dcap ? 2 * q->dcap : 1024;
				q->data = xrealloc(q->data, q->dcap);
			}
			if (v.len > 0)
				memcpy(q->data + q->dlen, v.s, v.len);
			off = q->dlen;
			q->dlen += v.len;
			v.s = NULL;	/* data may move: resolved by carry() */
		}
		q->args[q->nargs] = v;
		q->soff[q->nargs++] = off;
	}
}

static void
text_add(struct later *q, size_t *len, const char *s)
{
	size_t n = strlen(s);

	if (*len + n + 1 > q->tcap) {
		q->tcap = 2 * (*len + n + 1);
		q->text = xrealloc(q->text, q->tcap);
	}
	memcpy(q->text + *len, s, n + 1);
	*len += n;
}

/*
 * The process's copy of a carrying statement's text, so that the
 * statement cache finds it by address; NULL when BLOCKS_MAX are kept.
 */
static const char *
block_kept(const char *text, size_t len)
{
	static struct {
		uint64_t	 h;
		char		*text;
	} kept[BLOCKS_MAX];
	static size_t n;
	uint64_t h = 1469598103934665603u;	/* FNV-1a */

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)text[i]) * 1099511628211u;
	for (size_t i = 0; i < n; i++)
		if (kept[i].h == h && strcmp(kept[i].text, text) == 0)
			return kept[i].text;
	if (n == BLOCKS_MAX)
		return NULL;
	kept[n].h = h;
	kept[n].text = xstrdup(text);
	return kept[n++].text;
}

/*
 * The statement that runs the queued writes, then sql (then SELECT
 * ROW_COUNT(), sql's own count, when rows is set), with every parameter
 * in *args and *nargs.  *keep says whether its text is kept for the
 * process; if not it is the connection's scratch text, good until the
 * next carry.  Empties the queue.
 */
static const char *
carry(struct db *db, const char *sql, const struct db_val **args, size_t *nargs, int rows,
    int *keep)
{
	struct later *q = &db->q;
	size_t len = 0, n = q->nargs + *nargs, k = 0;
	const char *kept;

	for (size_t i = 0; i < q->n; i++)
		n += q->st[i].expect >= 0;
	if (n > q->allcap) {
		q->allcap = n;
		q->all = xrealloc(q->all, n * sizeof(*q->all));
	}
	text_add(q, &len, "BEGIN NOT ATOMIC ");
	for (size_t i = 0; i < q->n; i++) {
		const struct later_stmt *t = &q->st[i];

		text_add(q, &len, t->sql);
		text_add(q, &len, ";");
		for (size_t j = t->a0; j < t->a0 + t->na; j++) {
			q->all[k] = q->args[j];
			if (q->all[k].t == DBV_STR)
				q->all[k].s = q->data + q->soff[j];
			k++;
		}
		if (t->expect >= 0) {
			text_add(q, &len, t->conflict ? check_refused : check_rows);
			q->all[k++] = DBI(t->expect);
		}
		text_add(q, &len, " ");
	}
	text_add(q, &len, sql);
	text_add(q, &len, rows ? "; SELECT ROW_COUNT(); END" : "; END");
	for (size_t j = 0; j < *nargs; j++)
		q->all[k++] = (*args)[j];
	later_clear(db);
	*args = q->all;
	*nargs = k;
	db->tx_sent = 1;
	kept = block_kept(q->text, len);
	*keep = kept != NULL;
	return kept != NULL ? kept : q->text;
}

static int exec_text(struct db *db, const char *sql, int keep, const struct db_val *args,
    size_t nargs, uint64_t *affected);
static int query(struct db *db, const char *sql, int keep, const struct db_val *args,
    size_t nargs, struct db_rows *out);

/* db_exec() of sql carrying the queued writes. */
static int
exec_carried(struct db *db, const char *sql, const struct db_val *args, size_t nargs,
    uint64_t *affected)
{
	struct db_rows r;
	int keep, rc;

	sql = carry(db, sql, &args, &nargs, affected != NULL, &keep);
	if (affected == NULL)
		return exec_text(db, sql, keep, args, nargs, NULL);
	if ((rc = query(db, sql, keep, args, nargs, &r)) == DB_OK) {
		*affected = r.nrows == 1 && db_cell(&r, 0, 0) != NULL ?
		    strtoull(db_cell(&r, 0, 0), NULL, 10) : 0;
		db_rows_free(&r);
	}
	return rc;
}

int
db_exec_later(struct db *db, const char *sql, const struct db_val *args, size_t nargs,
    int64_t expect, int otherwise)
{
	int conflict = otherwise == DB_CONFLICT;
	uint64_t n = 0;
	int rc;

	if (fault_point("break-deferred-write"))
		expect = INT64_MAX;	/* no statement changes that many rows */
	if (db->in_tx && !tx_guard) {
		if (db->q.n >= LATER_MAX || db->q.nargs + nargs > LATER_ARGS_MAX)
			if ((rc = exec_carried(db, flush_sql, NULL, 0, NULL)) != DB_OK)
				return rc;
		later_add(db, sql, args, nargs, expect, conflict);
		return DB_OK;
	}
	rc = db_exec(db, sql, args, nargs, expect >= 0 ? &n : NULL);
	if (rc == DB_OK && expect >= 0 && n != (uint64_t)expect) {
		if (conflict)
			return DB_CONFLICT;
		snprintf(db->err, sizeof(db->err), "a write changed %llu rows, not %lld",
		    (unsigned long long)n, (long long)expect);
		log_msg(LOG_LVL_ERROR, NULL, "database error %s", db->err);
		return DB_ERR;
	}
	return rc;
}

static int
exec_text(struct db *db, const char *sql, int keep, const struct db_val *args,
    size_t nargs, uint64_t *affected)
{
	struct stmt_slot *s;
	int rc = DB_ERR;

	if ((s = prepare(db, sql, keep, &rc)) == NULL)
		return rc;
	rc = run(db, s->stmt, args, nargs);
	if (rc == DB_OK && affected != NULL)
		*affected = mysql_stmt_affected_rows(s->stmt);
	done_with(db, s->stmt, rc);
	unprepare(db, s);
	return rc;
}

int
db_exec(struct db *db, const char *sql, const struct db_val *args,
    size_t nargs, uint64_t *affected)
{
	if (db->q.n > 0)
		return exec_carried(db, sql, args, nargs, affected);
	return exec_text(db, sql, 1, args, nargs, affected);
}

int
db_lock_live(struct db *db, const char *sql, const char *platform, const char *id)
{
	struct db_val a[] = { DBS(platform), DBS(id) };
	struct db_rows r;
	int rc;

	if ((rc = db_query(db, sql, a, NARGS(a), &r)) != DB_OK)
		return rc;
	rc = r.nrows == 0 ? DB_NOT_FOUND : db_cell_i64(&r, 0, 0) ? DB_GONE : DB_OK;
	db_rows_free(&r);
	return rc;
}

int
db_exec_changed(struct db *db, const char *sql, const struct db_val *args,
    size_t nargs, int *changed)
{
	uint64_t n = 0;
	int rc;

	/* Affected rows, not found rows: the connection has no CLIENT_FOUND_ROWS. */
	rc = db_exec(db, sql, args, nargs, &n);
	*changed = rc == DB_OK && n > 0;
	return rc;
}

int
db_query(struct db *db, const char *sql, const struct db_val *args,
    size_t nargs, struct db_rows *out)
{
	return query(db, sql, 1, args, nargs, out);
}

int
db_query_once(struct db *db, const char *sql, const struct db_val *args,
    size_t nargs, struct db_rows *out)
{
	return query(db, sql, 0, args, nargs, out);
}

/* Writes v in at least width digits at p; returns the end. */
static char *
put_digits(char *p, unsigned long v, int width)
{
	char tmp[24];
	int n = 0;

	do
		tmp[n++] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	while (n < width)
		tmp[n++] = '0';
	while (n > 0)
		*p++ = tmp[--n];
	return p;
}

size_t
db_datetime_text(const MYSQL_TIME *t, unsigned decimals, char out[DB_DATETIME_TEXT_MAX])
{
	char *p = out;

	p = put_digits(p, t->year, 4);
	*p++ = '-';
	p = put_digits(p, t->month, 2);
	*p++ = '-';
	p = put_digits(p, t->day, 2);
	*p++ = ' ';
	p = put_digits(p, t->hour, 2);
	*p++ = ':';
	p = put_digits(p, t->minute, 2);
	*p++ = ':';
	p = put_digits(p, t->second, 2);
	if (decimals > 0 && decimals <= 6) {
		char frac[24], *e = put_digits(frac, t->second_part, 6);

		/* The first digits of at least six, as the library's ".%06lu" cut. */
		*p++ = '.';
		if ((size_t)(e - frac) < decimals)
			decimals = (unsigned)(e - frac);
		memcpy(p, frac, decimals);
		p += decimals;
	}
	*p = '\0';
	return (size_t)(p - out);
}

/* The slot's result buffers (see RESULT_COL_MAX); NULL with *rc set. */
static struct result_binds *
binds_of(struct db *db, struct stmt_slot *s, int *rc)
{
	size_t n = mysql_stmt_field_count(s->stmt), total = 0;
	struct result_binds *rb = s->rb;
	MYSQL_RES *meta;
	MYSQL_FIELD *f;

	if (rb != NULL && rb->ncols == n)
		return rb;
	binds_free(rb);
	s->rb = NULL;
	if (n == 0 || (meta = mysql_stmt_result_metadata(s->stmt)) == NULL) {
		*rc = classify(db, mysql_stmt_errno(s->stmt), mysql_stmt_error(s->stmt));
		return NULL;
	}
	f = mysql_fetch_fields(meta);
	rb = xcalloc(1, sizeof(*rb));
	rb->ncols = n;
	rb->b = xcalloc(n, sizeof(*rb->b));
	rb->len = xcalloc(n, sizeof(*rb->len));
	rb->isnull = xcalloc(n, sizeof(*rb->isnull));
	rb->tm = xcalloc(n, sizeof(*rb->tm));
	rb->time_dec = xcalloc(n, sizeof(*rb->time_dec));
	for (size_t i = 0; i < n; i++) {
		size_t sz = f[i].length + 1;

		rb->time_dec[i] = (f[i].type == MYSQL_TYPE_DATETIME ||
		    f[i].type == MYSQL_TYPE_TIMESTAMP) && f[i].decimals <= 6 ?
		    (signed char)f[i].decimals : -1;

		sz = sz < RESULT_COL_MIN ? RESULT_COL_MIN : sz > RESULT_COL_MAX ? RESULT_COL_MAX : sz;
		rb->b[i].buffer_length = sz;
		total += sz;
	}
	mysql_free_result(meta);
	rb->buf = xmalloc(total);
	total = 0;
	for (size_t i = 0; i < n; i++) {
		rb->b[i].buffer_type = MYSQL_TYPE_STRING;
		rb->b[i].buffer = rb->buf + total;
		rb->b[i].length = &rb->len[i];
		rb->b[i].is_null = &rb->isnull[i];
		total += rb->b[i].buffer_length;
		if (rb->time_dec[i] >= 0) {
			rb->b[i].buffer_type = MYSQL_TYPE_DATETIME;
			rb->b[i].buffer = &rb->tm[i];
			rb->b[i].buffer_length = sizeof(rb->tm[i]);
		}
	}
	s->rb = rb;
	return rb;
}

/*
 * Copies the fetched row into out's text (*data, *used of *cap bytes) and
 * its cells' offsets into off (SIZE_MAX for NULL): a value longer than its
 * buffer is fetched again whole.
 */
static void
keep_row(MYSQL_STMT *st, const struct result_binds *rb, char **data, size_t *used,
    size_t *cap, size_t *off)
{
	char text[DB_DATETIME_TEXT_MAX];
	size_t need = 0;

	for (size_t i = 0; i < rb->ncols; i++) {
		if (rb->isnull[i])
			continue;
		if (rb->time_dec[i] >= 0)
			rb->len[i] = db_datetime_text(&rb->tm[i], (unsigned)rb->time_dec[i], text);
		need += rb->len[i] + 1;
	}
	if (*used + need > *cap) {
		*cap = *cap * 2 > *used + need ? *cap * 2 : *used + need + 256;
		*data = xrealloc(*data, *cap);
	}
	for (size_t i = 0; i < rb->ncols; i++) {
		char *to;

		if (rb->isnull[i]) {
			off[i] = SIZE_MAX;
			continue;
		}
		to = *data + *used;
		if (rb->time_dec[i] >= 0)
			db_datetime_text(&rb->tm[i], (unsigned)rb->time_dec[i], to);
		else if (rb->len[i] < rb->b[i].buffer_length) {
			memcpy(to, rb->b[i].buffer, rb->len[i]);
		} else {
			MYSQL_BIND one = rb->b[i];

			one.buffer = to;
			one.buffer_length = rb->len[i] + 1;
			mysql_stmt_fetch_column(st, &one, (unsigned)i, 0);
		}
		to[rb->len[i]] = '\0';
		off[i] = *used;
		*used += rb->len[i] + 1;
	}
}

static int
query(struct db *db, const char *sql, int keep, const struct db_val *args,
    size_t nargs, struct db_rows *out)
{
	struct stmt_slot *s;
	struct result_binds *rb;
	size_t *off = NULL, cap = 0, used = 0, dcap = 0, n;
	int rc = DB_ERR, fr;
	int64_t t0;

	memset(out, 0, sizeof(*out));
	if (db->q.n > 0)
		sql = carry(db, sql, &args, &nargs, 0, &keep);
	if ((s = prepare(db, sql, keep, &rc)) == NULL)
		return rc;
	if ((rc = run(db, s->stmt, args, nargs)) != DB_OK)
		goto out;
	if ((rb = binds_of(db, s, &rc)) == NULL)
		goto out;
	t0 = tick();
	fr = mysql_stmt_store_result(s->stmt);
	tock(t0);
	if (fr != 0 || mysql_stmt_bind_result(s->stmt, rb->b) != 0) {
		rc = classify(db, mysql_stmt_errno(s->stmt), mysql_stmt_error(s->stmt));
		goto out;
	}
	n = rb->ncols;
	out->ncols = n;
	while ((fr = mysql_stmt_fetch(s->stmt)) == 0 || fr == MYSQL_DATA_TRUNCATED) {
		if (out->nrows == cap) {
			cap = cap ? cap * 2 : 8;
			off = xrealloc(off, cap * n * sizeof(*off));
		}
		keep_row(s->stmt, rb, &out->data, &used, &dcap, off + out->nrows * n);
		out->nrows++;
	}
	if (fr != MYSQL_NO_DATA) {
		rc = classify(db, mysql_stmt_errno(s->stmt), mysql_stmt_error(s->stmt));
		db_rows_free(out);
		goto out;
	}
	rc = DB_OK;
	if (out->nrows > 0) {
		out->cell = xcalloc(out->nrows * n, sizeof(*out->cell));
		for (size_t i = 0; i < out->nrows * n; i++)
			out->cell[i] = off[i] == SIZE_MAX ? NULL : out->data + off[i];
	}
out:
	free(off);
	done_with(db, s->stmt, rc);
	unprepare(db, s);
	return rc;
}

char *
db_sql_list(const char *head, const char *item, const char *sep, size_t n, const char *tail)
{
	size_t hl = strlen(head), il = strlen(item), sl = strlen(sep), len;
	char *s, *p;

	if (n == 0)
		abort();
	len = hl + n * il + (n - 1) * sl + strlen(tail) + 1;
	p = s = xmalloc(len);
	memcpy(p, head, hl);
	p += hl;
	for (size_t i = 0; i < n; i++) {
		if (i > 0) {
			memcpy(p, sep, sl);
			p += sl;
		}
		memcpy(p, item, il);
		p += il;
	}
	memcpy(p, tail, strlen(tail) + 1);
	return s;
}

int
db_exec_once(struct db *db, const char *sql)
{
	struct stmt_slot *s;
	int rc = DB_ERR;

	if (db->q.n > 0 && (rc = exec_carried(db, flush_sql, NULL, 0, NULL)) != DB_OK)
		return rc;
	if ((s = prepare(db, sql, 0, &rc)) == NULL)
		return rc;
	rc = run(db, s->stmt, NULL, 0);
	unprepare(db, s);
	return rc;
}

int
db_query_one(struct db *db, const char *sql, const struct db_val *args,
    size_t nargs, struct db_rows *out)
{
	int rc = db_query(db, sql, args, nargs, out);

	if (rc == DB_OK && out->nrows == 0) {
		db_rows_free(out);
		return DB_NOT_FOUND;
	}
	return rc;
}

int
db_page(struct db *db, const char *count_sql, const char *page_sql,
    const struct db_val *args, size_t nargs, struct db_rows *rows, int64_t *total)
{
	int rc;

	memset(rows, 0, sizeof(*rows));
	if ((rc = db_query(db, count_sql, args, nargs - 2, rows)) != DB_OK)
		return rc;
	*total = db_cell_i64(rows, 0, 0);
	db_rows_free(rows);
	return db_query(db, page_sql, args, nargs, rows);
}

const char *
db_cell(const struct db_rows *r, size_t row, size_t col)
{
	if (row >= r->nrows || col >= r->ncols)
		return NULL;
	return r->cell[row * r->ncols + col];
}

int64_t
db_cell_i64(const struct db_rows *r, size_t row, size_t col)
{
	const char *s = db_cell(r, row, col);

	return s ? strtoll(s, NULL, 10) : 0;
}

void
db_rows_free(struct db_rows *r)
{
	free(r->cell);
	free(r->data);
	memset(r, 0, sizeof(*r));
}

/* Tells the hook how the transaction ended; the connection is out of it. */
static void
tx_end(struct db *db, int committed)
{
	db->in_tx = 0;
	db->tx_sent = 0;
	later_clear(db);
	close_later(db);
	if (tx_hook != NULL)
		tx_hook(committed);
}

/*
 * A transaction opens with SET autocommit = 0 and ends with SET
 * autocommit = 1, which commits what is open (documented MariaDB and
 * MySQL behaviour) and reports a failure to commit as its own error.
 * Outside a transaction the session is in autocommit mode.  Switching
 * autocommit off (rather than START TRANSACTION) means that after a
 * deadlock, which rolls the transaction back, any further statement of the
 * caller still runs in a transaction that the caller's rollback undoes
 * instead of committing on its own.  Both go with other statements where
 * they can (see "Deferred writes"): the begin with the transaction's first
 * statement, the commit with the writes still queued.
 */
int
db_begin(struct db *db)
{
	static const char guard[] = "SAVEPOINT xb_guard";
	int64_t t0;
	int rc, failed;

	if (tx_hook != NULL)
		tx_hook(0);
	if (!tx_guard) {
		db->in_tx = 1;
		later_add(db, begin_sql, NULL, 0, -1, 0);
		return DB_OK;
	}
	t0 = tick();
	count(1);
	failed = mysql_autocommit(db->my, 0) != 0;
	tock(t0);
	if (failed)
		return classify(db, mysql_errno(db->my), mysql_error(db->my));
	db->in_tx = 1;
	db->tx_sent = 1;
	if ((rc = db_exec(db, guard, NULL, 0, NULL)) != DB_OK) {
		db_rollback(db);
		return rc;
	}
	return DB_OK;
}

int
db_commit(struct db *db)
{
	static const char release[] = "RELEASE SAVEPOINT xb_guard";
	int64_t t0;
	int rc, failed;

	if (tx_guard && (rc = db_exec(db, release, NULL, 0, NULL)) != DB_OK) {
		db_rollback(db);
		return rc;
	}
	if (!db->tx_sent && db->q.n == 1) {
		/* Nothing but the begin: nothing to send. */
		tx_end(db, 1);
		return DB_OK;
	}
	if (db->q.n > 0) {
		if ((rc = exec_carried(db, commit_sql, NULL, 0, NULL)) == DB_OK) {
			tx_end(db, 1);
			return DB_OK;
		}
		db_rollback(db);
		return rc;
	}
	t0 = tick();
	count(1);
	failed = mysql_autocommit(db->my, 1) != 0;
	tock(t0);
	if (!failed) {
		tx_end(db, 1);
		return DB_OK;
	}
	rc = classify(db, mysql_errno(db->my), mysql_error(db->my));
	db_rollback(db);
	return rc;
}

void
db_rollback(struct db *db)
{
	int64_t t0;

	if (db->tx_sent) {	/* else nothing reached the server */
		t0 = tick();
		count(2);
		mysql_rollback(db->my);
		mysql_autocommit(db->my, 1);
		tock(t0);
	}
	tx_end(db, 0);
}

int
db_in_transaction(const struct db *db)
{
	return db->in_tx;
}

void
db_set_tx_hook(void (*hook)(int committed))
{
	tx_hook = hook;
}

static uint64_t tx_retries;

int
db_attempts(void)
{
	return tx_guard ? 12 : 8;
}

/*
 * Counts and logs a retry, then backs off a little more each time, so the
 * winner can finish: (attempt + 1)^2 ms, and as much again at random.  The
 * random half matters on Galera, where two nodes' transactions on a row
 * meet only at commit: without it, the two losers of a conflict would
 * come back in step and meet again.
 */
static void
retry_pause(struct db *db, int attempt)
{
	static uint32_t x;
	uint32_t step = 1000u * (uint32_t)((attempt + 1) * (attempt + 1));

	tx_retries++;
	log_msg(LOG_LVL_INFO, NULL, "transaction retried (%s)", db->err);
	if (x == 0)
		x = ((uint32_t)now_us() ^ ((uint32_t)getpid() << 16)) | 1u;
	x ^= x << 13;	/* xorshift32: no need for more */
	x ^= x >> 17;
	x ^= x << 5;
	usleep((useconds_t)(step + x % step));
}

/*
 * Inside a request-wide transaction db_transact() cannot commit: fn runs
 * under a savepoint instead.  A business refusal (a positive result) or a
 * plain failure rolls back to the savepoint, so nothing of fn survives; a
 * deadlock or lock wait timeout is left to db_outer_*'s owner, who runs
 * the whole request again.
 *
 * The savepoint costs two round trips, and almost every fn succeeds, so
 * the first run of a request takes none: fn runs directly, and if it
 * refuses (it may have written something first) the request is marked to
 * run again, whole, with savepoints.  A refused request runs twice; one
 * that succeeds saves SAVEPOINT and RELEASE.
 */
static int
transact_nested(struct db *db, int (*fn)(struct db *, void *), void *arg)
{
	static const char sp[] = "SAVEPOINT xb_tx";
	static const char release[] = "RELEASE SAVEPOINT xb_tx";
	static const char undo[] = "ROLLBACK TO SAVEPOINT xb_tx";
	int rc, rc2;

	if (!db->outer_savepoints) {
		rc = fn(db, arg);
		if (rc > 0 && !db->outer_retry) {
			db->outer_savepoints = 1;
			db->outer_resavepoint = 1;
			db->outer_retry = 1;
		}
		return rc;
	}
	if ((rc = db_exec(db, sp, NULL, 0, NULL)) != DB_OK)
		return rc;
	rc = fn(db, arg);
	if (rc == DB_OK)
		return db_exec(db, release, NULL, 0, NULL);
	if (rc == DB_RETRY || rc == DB_UNAVAILABLE || db->outer_retry)
		return rc;
	if ((rc2 = db_exec(db, undo, NULL, 0, NULL)) != DB_OK)
		return rc2;
	/* What fn wrote is undone, while the transaction goes on. */
	if (tx_hook != NULL)
		tx_hook(0);
	return rc;
}

int
db_transact(struct db *db, int (*fn)(struct db *, void *), void *arg)
{
	int rc = DB_ERR;

	if (db->outer)
		return transact_nested(db, fn, arg);
	for (int attempt = 0; attempt < db_attempts(); attempt++) {
		if ((rc = db_begin(db)) != DB_OK)
			return rc;
		rc = fn(db, arg);
		if (rc == DB_OK)
			rc = db_commit(db);
		else
			db_rollback(db);
		if (rc != DB_RETRY)
			return rc;
		retry_pause(db, attempt);
	}
	return rc;
}

int
db_transact_snapshot(struct db *db, int (*fn)(struct db *, void *), void *arg)
{
	static const char rr[] = "SET SESSION tx_isolation = 'REPEATABLE-READ'";
	static const char rc_[] = "SET SESSION tx_isolation = 'READ-COMMITTED'";
	int rc, rc2;

	if (db->outer || db->in_tx)
		return DB_ERR;
	if ((rc = db_exec(db, rr, NULL, 0, NULL)) != DB_OK)
		return rc;
	rc = db_transact(db, fn, arg);
	/* A connection lost meanwhile comes back READ COMMITTED (its init command). */
	rc2 = db_exec(db, rc_, NULL, 0, NULL);
	return rc != DB_OK ? rc : rc2;
}

int
db_outer_begin(struct db *db, int attempt)
{
	int rc;

	/* A rerun to take savepoints needs no pause: nothing conflicted. */
	if (attempt == 0)
		db->outer_savepoints = 0;
	else if (!db->outer_resavepoint)
		retry_pause(db, attempt - 1);
	db->outer_resavepoint = 0;
	db->outer_retry = 0;
	if ((rc = db_begin(db)) != DB_OK)
		return rc;
	db->outer = 1;
	return DB_OK;
}

int
db_outer_commit(struct db *db)
{
	int rc;

	db->outer = 0;
	rc = db_commit(db);
	if (rc == DB_RETRY)
		db->outer_retry = 1;
	return rc;
}

void
db_outer_rollback(struct db *db)
{
	db->outer = 0;
	db_rollback(db);
}

int
db_outer_retry(const struct db *db)
{
	return db->outer_retry;
}

uint64_t
db_retries(void)
{
	return tx_retries;
}

int
db_ping(struct db *db)
{
	struct db_rows r;
	int rc = db_query(db, "SELECT 1", NULL, 0, &r);

	db_rows_free(&r);
	return rc;
}

int
db_explain(struct db *db, const char *sql, const struct db_val *a, size_t n,
    struct db_rows *out)
{
	size_t len = strlen(sql) + sizeof("EXPLAIN ");
	char *text = xmalloc(len);
	int rc;

	snprintf(text, len, "EXPLAIN %s", sql);
	rc = db_query_once(db, text, a, n, out);
	free(text);
	return rc;
}

int
db_read_one(struct db *db, const char *sql, const struct db_val *args, size_t nargs,
    db_row_reader read, void *out)
{
	struct db_rows r;
	int rc;

	if ((rc = db_query_one(db, sql, args, nargs, &r)) != DB_OK)
		return rc;
	read(&r, 0, out);
	db_rows_free(&r);
	return DB_OK;
}

int
db_read_page(struct db *db, const char *count_sql, const char *page_sql,
    const struct db_val *args, size_t nargs, db_row_reader read, size_t size,
    void **items, size_t *n, int64_t *total)
{
	struct db_rows r;
	char *a;
	int rc;

	*items = NULL;
	*n = 0;
	if ((rc = db_page(db, count_sql, page_sql, args, nargs, &r, total)) != DB_OK)
		return rc;
	a = r.nrows > 0 ? xcalloc(r.nrows, size) : NULL;
	for (size_t i = 0; i < r.nrows; i++)
		read(&r, i, a + i * size);
	*items = a;
	*n = r.nrows;
	db_rows_free(&r);
	return DB_OK;
}

int
db_read_i64(struct db *db, const char *sql, const struct db_val *args, size_t nargs,
    int64_t *v)
{
	struct db_rows r;
	int rc;

	if ((rc = db_query_one(db, sql, args, nargs, &r)) != DB_OK)
		return rc;
	*v = db_cell_i64(&r, 0, 0);
	db_rows_free(&r);
	return DB_OK;
}
