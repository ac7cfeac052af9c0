/*
 * db_checks.c: the ledger's invariants over the whole database, each a
 * named check (xborderctl ledger-check prints one line each):
 *
 *   sums            every currency's entries sum to zero
 *   platform-sums   each platform's entries sum to zero per currency: its
 *                   customers, its own accounts, its in-transit shards and
 *                   its SANDBOX account together
 *   balances        each account's balance is the sum of its entries
 *   negative        no balance but a SANDBOX one is below zero
 *   limit           no balance is past the balance limit
 *   currency        no entry is in another currency than its account
 *   counts          txn_counts and txn_customer_counts (totalCount)
 *                   match the transactions
 *   quote-expiry    a quote's transaction keeps a copy of its expiry
 *   in-transit      each in-transit shard holds exactly the money of the
 *                   transactions in flight on it
 *   postings        each transaction's entries are those its kind and
 *                   current status imply (ledger_expect.c), to the minor
 *                   unit, fees included
 *   quote-fees      each quote's fee credits are its stored split, or
 *                   nothing once its payout failed or was returned
 *   events          each transaction has one webhook event per status it
 *                   has held, in the order of the lifecycle's table
 *   idempotency     each answer of a creation kept under an
 *                   Idempotency-Key names a transaction that exists, and
 *                   no two name the same one
 *   anchors         each anchor of GET /transactions' deep pages is the
 *                   row at its position of its list (db_txn_anchors.h):
 *                   a wrong one would serve wrong pages
 *
 * postings and quote-fees hold the transactions made since schema 016,
 * from which entries name their transaction; events those of the last 30
 * days, whose events the delivery log still keeps.
 *
 * The recent checks (db_checks_recent, xborder-worker once a minute) run
 * the same checks over what changed since the last run: the ledger
 * entries and webhook events after the ids it reached, the accounts,
 * transactions, quotes, platforms and idempotency records they name.
 * sums and platform-sums then hold each new posting to zero per platform
 * and currency (which their whole-database forms follow from), and
 * balances holds each account touched to its balance at the last run plus
 * its entries since (account_checkpoints), and counts each platform's
 * counts to the checkpoint of its transactions' counts moved by the
 * events since (count_checkpoints, db_checks_counts.c).  A run covers the entries and
 * events that existed when a run at least `lag` seconds older started
 * (invariant_lag, more than the lock wait timeout), so that a transaction
 * that took an id but had not committed yet is not passed over.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xborder/db.h"
#include "xborder/db_checks.h"
#include "xborder/db_checks_counts.h"
#include "xborder/db_txn_anchors.h"
#include "xborder/fault.h"
#include "xborder/ledger.h"
#include "xborder/ledger_expect.h"
#include "xborder/txn_moves.h"
#include "xborder/util.h"

/* Since when entries name their transaction. */
#define SINCE_016 "(SELECT applied_at FROM schema_migrations" \
	" WHERE name = '016_ledger_entries_txn.sql')"

/*
 * Transactions a page of the postings and events checks.  A recent run's
 * page is the first of its transactions after the last page's, and MariaDB
 * makes the whole set (the new entries' and events' transactions, about
 * 2,500 a run catching up) anew for each page: a page as large as a run's
 * set makes it once.
 */
#define PAGE_ROWS 2000

/* What a run covers: the whole database, or the recent changes. */
struct scope {
	int	 recent;
	int	 catching_up;		/* skips the checks of whole platforms */
	int64_t	 e_from, e_to;		/* ledger entries (e_from, e_to] */
	int64_t	 v_from, v_to;		/* webhook events, by seq (v_from, v_to] */
	int64_t	 v_seen;		/* the newest event when the run started */
	char	 since[24];		/* idempotency records expiring after ... */
	char	 until[24];		/* ... and up to (a recent run) */
};

struct run {
	struct db		*db;
	const struct check_sink	*sink;
	const struct scope	*s;
	const char		*name;
	int			 problems;
	long			 examined;
};

/*
 * The restrictions of a recent run, each with the scope values it binds
 * (enum bind): the accounts, postings and entries of the new entries, the
 * transactions and platforms of the new entries and events.
 */
enum bind { B_NONE, B_ENTRIES, B_EVENTS, B_BOTH, B_SINCE };

#define NEW_ENTRIES "SELECT id FROM ledger_entries WHERE id > ? AND id <= ?"
#define NEW_ACCOUNTS "SELECT account_id FROM ledger_entries WHERE id > ? AND id <= ?"
#define NEW_POSTINGS "SELECT posting_id FROM ledger_entries WHERE id > ? AND id <= ?"
/* A derived table, made once (an IN over a UNION would run it for every row). */
#define NEW_TXNS "SELECT n.id FROM (SELECT transaction_id AS id FROM ledger_entries" \
	" WHERE id > ? AND id <= ? AND transaction_id IS NOT NULL" \
	" UNION SELECT transaction_id FROM webhook_events WHERE seq > ? AND seq <= ?) n"
#define NEW_EVENT_TXNS "SELECT transaction_id FROM webhook_events WHERE seq > ? AND seq <= ?"

/* The scope's values a query binds (at most 5), before its own. */
static size_t
bind(const struct scope *s, enum bind b, struct db_val *v)
{
	size_t n = 0;

	if (b == B_ENTRIES || b == B_BOTH) {
		v[n++] = DBI(s->e_from);
		v[n++] = DBI(s->e_to);
	}
	if (b == B_EVENTS || b == B_BOTH) {
		v[n++] = DBI(s->v_from);
		v[n++] = DBI(s->v_to);
	}
	if (b == B_SINCE) {
		v[n++] = DBS(s->since);
		v[n++] = DBS(s->until);
	}
	return n;
}

static void
problem(struct run *x, const char *what, const char *id, const char *detail)
{
	x->sink->problem(x->sink->arg, x->name, what, id, detail);
	x->problems++;
}

/*
 * A check made of queries, each returning one row a problem: what it is,
 * the column of its id, and its detail, a template whose %1..%9 are the
 * row's columns.
 */
struct query {
	const char	*sql;		/* the whole database */
	const char	*recent;	/* a recent run (NULL: the check has no recent form) */
	enum bind	 b;		/* what the recent form binds */
	const char	*what;
	size_t		 id;
	const char	*detail;
};

/* Writes tmpl with %N replaced by column N of row i. */
static void
fill(char *out, size_t len, const char *tmpl, const struct db_rows *r, size_t i)
{
	size_t n = 0;

	for (const char *p = tmpl; *p && n + 1 < len; p++) {
		if (p[0] == '%' && p[1] >= '0' && p[1] <= '9' && (size_t)(p[1] - '0') < r->ncols) {
			const char *v = db_cell(r, i, (size_t)(p[1] - '0'));

			n += (size_t)snprintf(out + n, len - n, "%s", v != NULL ? v : "NULL");
			if (n >= len)
				n = len - 1;
			p++;
		} else {
			out[n++] = *p;
		}
	}
	out[n] = '\0';
}

static int
run_queries(struct run *x, const struct query *q, size_t nq, const struct db_val *a,
    size_t na)
{
	struct db_val v[8];
	struct db_rows r;
	char detail[256];
	size_t n;
	int rc;

	for (size_t k = 0; k < nq; k++) {
		const char *sql = x->s->recent ? q[k].recent : q[k].sql;

		if (sql == NULL)
			continue;
		n = x->s->recent ? bind(x->s, q[k].b, v) : 0;
		for (size_t i = 0; i < na && n < sizeof(v) / sizeof(v[0]); i++)
			v[n++] = a[i];
		if ((rc = db_query(x->db, sql, v, n, &r)) != DB_OK)
			return rc;
		for (size_t i = 0; i < r.nrows; i++) {
			fill(detail, sizeof(detail), q[k].detail, &r, i);
			problem(x, q[k].what, db_cell(&r, i, q[k].id), detail);
		}
		db_rows_free(&r);
	}
	return DB_OK;
}

#define QUERIES(x, q) run_queries((x), (q), sizeof(q) / sizeof((q)[0]), NULL, 0)

/*
 * A recent run's balances: each account the new entries touched holds its
 * balance at its checkpoint plus its entries since, and its checkpoint
 * moves to the run's last entry (an account without one gets its first).
 * The entries are summed an account at a time, from bounds bound as
 * values: a busy account's entries since its checkpoint are a range of
 * (account_id, id), where a bound read from another table would make
 * MariaDB read every entry of the account.
 */
static int
recent_balances(struct run *x)
{
	static const char sql[] =
	    "SELECT a.id, CAST(a.balance AS CHAR), c.entry_id, CAST(c.balance AS CHAR)"
	    " FROM internal_accounts a LEFT JOIN account_checkpoints c ON c.account_id = a.id"
	    " WHERE a.id IN (" NEW_ACCOUNTS ")";
	/* Its entries after the checkpoint, and after the run's last entry. */
	static const char since[] =
	    "SELECT CAST(IFNULL(SUM(IF(id > ?, amount, 0)), 0) AS CHAR),"
	    " CAST(IFNULL(SUM(IF(id > ?, amount, 0)), 0) AS CHAR)"
	    " FROM ledger_entries WHERE account_id = ? AND id > ?";
	static const char save[] =
	    "INSERT INTO account_checkpoints (account_id, entry_id, balance) VALUES (?, ?, ?)"
	    " ON DUPLICATE KEY UPDATE entry_id = VALUES(entry_id), balance = VALUES(balance)";
	struct db_val a[] = { DBI(x->s->e_from), DBI(x->s->e_to) };
	struct db_rows r, e;
	char detail[160];
	int rc;

	if ((rc = db_query(x->db, sql, a, 2, &r)) != DB_OK)
		return rc;
	for (size_t i = 0; i < r.nrows && rc == DB_OK; i++) {
		const char *ckpt = db_cell(&r, i, 2);
		/* No checkpoint: from the run's last entry (its first). */
		int64_t from = ckpt != NULL ? db_cell_i64(&r, i, 2) : x->s->e_to;
		__int128 balance = db_cell_i64(&r, i, 1), want;
		struct db_val b[] = { DBI(from), DBI(x->s->e_to), DBS(db_cell(&r, i, 0)),
			DBI(from < x->s->e_to ? from : x->s->e_to) };
		struct db_val v[3];

		if ((rc = db_query(x->db, since, b, NARGS(b), &e)) != DB_OK)
			break;
		if (ckpt != NULL) {
			want = (__int128)db_cell_i64(&r, i, 3) + db_cell_i64(&e, 0, 0);
			if (balance != want) {
				snprintf(detail, sizeof(detail), "balance %s, but %s at entry %s"
				    " and %s since", db_cell(&r, i, 1), db_cell(&r, i, 3),
				    ckpt, db_cell(&e, 0, 0));
				problem(x, "account", db_cell(&r, i, 0), detail);
			}
		}
		v[0] = DBS(db_cell(&r, i, 0));
		v[1] = DBI(x->s->e_to);
		v[2] = DBI((int64_t)(balance - db_cell_i64(&e, 0, 1)));
		db_rows_free(&e);
		rc = db_exec(x->db, save, v, 3, NULL);
	}
	db_rows_free(&r);
	return rc;
}

static int
check_sums(struct run *x)
{
	static const struct query q[] = { {
	    "SELECT currency, CAST(SUM(amount) AS CHAR) FROM ledger_entries"
	    " GROUP BY currency HAVING SUM(amount) <> 0",
	    "SELECT CONCAT(posting_id, ' ', currency), CAST(SUM(amount) AS CHAR)"
	    " FROM ledger_entries WHERE posting_id IN (" NEW_POSTINGS ")"
	    " GROUP BY posting_id, currency HAVING SUM(amount) <> 0", B_ENTRIES,
	    "currency", 0, "entries sum to %1" } };

	return QUERIES(x, q);
}

static int
check_platform_sums(struct run *x)
{
	static const struct query q[] = { {
	    "SELECT CONCAT(platform_id, ' ', currency), CAST(SUM(amount) AS CHAR)"
	    " FROM ledger_entries GROUP BY platform_id, currency HAVING SUM(amount) <> 0",
	    "SELECT CONCAT(platform_id, ' ', currency, ' posting ', posting_id),"
	    " CAST(SUM(amount) AS CHAR) FROM ledger_entries"
	    " WHERE posting_id IN (" NEW_POSTINGS ")"
	    " GROUP BY posting_id, platform_id, currency HAVING SUM(amount) <> 0", B_ENTRIES,
	    "platform", 0, "its entries sum to %1" } };

	return QUERIES(x, q);
}

static int
check_balances(struct run *x)
{
	static const struct query q[] = { {
	    "SELECT a.id, a.balance, CAST(IFNULL(SUM(e.amount), 0) AS CHAR)"
	    " FROM internal_accounts a LEFT JOIN ledger_entries e ON e.account_id = a.id"
	    " GROUP BY a.id, a.balance HAVING a.balance <> IFNULL(SUM(e.amount), 0)",
	    NULL, B_NONE, "account", 0, "balance %1 but entries sum to %2" } };

	return x->s->recent ? recent_balances(x) : QUERIES(x, q);
}

static int
check_negative(struct run *x)
{
	static const struct query q[] = { {
	    "SELECT id, balance FROM internal_accounts WHERE balance < 0 AND kind <> 'SANDBOX'",
	    "SELECT id, balance FROM internal_accounts WHERE balance < 0 AND kind <> 'SANDBOX'"
	    " AND id IN (" NEW_ACCOUNTS ")", B_ENTRIES,
	    "account", 0, "negative balance %1" } };

	return QUERIES(x, q);
}

static int
check_limit(struct run *x)
{
	static const struct query q[] = { {
	    "SELECT id, balance FROM internal_accounts WHERE (balance > ? OR balance < ?)",
	    "SELECT id, balance FROM internal_accounts WHERE id IN (" NEW_ACCOUNTS ")"
	    " AND (balance > ? OR balance < ?)", B_ENTRIES,
	    "account", 0, "balance %1 past the limit" } };
	struct db_val lim[] = { DBI(LEDGER_BALANCE_MAX), DBI(-LEDGER_BALANCE_MAX) };

	return run_queries(x, q, 1, lim, 2);
}

static int
check_currency(struct run *x)
{
	/*
	 * The whole form reads the entries in their order, each account found
	 * by its key: from the accounts, each entry was a lookup by its id
	 * (32 s for 1.5 million entries, against 2.6 s).
	 */
	static const struct query q[] = { {
	    "SELECT e.id, e.account_id FROM ledger_entries e STRAIGHT_JOIN internal_accounts a"
	    " ON a.id = e.account_id WHERE a.currency <> e.currency",
	    "SELECT e.id, e.account_id FROM ledger_entries e JOIN internal_accounts a"
	    " ON a.id = e.account_id WHERE e.id > ? AND e.id <= ? AND a.currency <> e.currency",
	    B_ENTRIES, "account", 1, "entry %0 in another currency" } };

	return QUERIES(x, q);
}

/*
 * txn_counts, which totalCount reads, against the transactions (a recent
 * run: of the platforms db_counts_recent names, one at a time).
 */
#define COUNTS(where) \
	"SELECT x.platform_id, x.status, x.type, CAST(SUM(x.c) AS CHAR)," \
	" CAST(SUM(x.n) AS CHAR) FROM (" \
	" SELECT platform_id, status, type, COUNT(*) AS c, 0 AS n FROM transactions" \
	"  " where " GROUP BY platform_id, status, type" \
	" UNION ALL" \
	" SELECT platform_id, status, type, 0, SUM(n) FROM txn_counts" \
	"  " where " GROUP BY platform_id, status, type) x" \
	" GROUP BY x.platform_id, x.status, x.type HAVING SUM(x.c) <> SUM(x.n)"

/*
 * txn_customer_counts (schema/025), which a customer's list's totalCount
 * reads, against the customer's transactions.
 */
#define CUSTOMER_COUNTS(and) \
	"SELECT x.platform_id, x.customer_id, CAST(SUM(x.c) AS CHAR)," \
	" CAST(SUM(x.n) AS CHAR) FROM (" \
	" SELECT platform_id, customer_id, COUNT(*) AS c, 0 AS n FROM transactions" \
	"  WHERE customer_id IS NOT NULL" and " GROUP BY platform_id, customer_id" \
	" UNION ALL" \
	" SELECT platform_id, customer_id, 0, SUM(n) FROM txn_customer_counts" \
	"  WHERE TRUE" and " GROUP BY platform_id, customer_id) x" \
	" GROUP BY x.platform_id, x.customer_id HAVING SUM(x.c) <> SUM(x.n)"

/*
 * A recent run compares the counts with their checkpoints only when at
 * most this many events came after its range (the comparison reads what
 * they changed); a run further behind moves the checkpoints only.
 */
#define COUNTS_AHEAD_MAX 20000

static int
check_counts(struct run *x)
{
	static const struct query q[] = { {
	    COUNTS(""), COUNTS("WHERE platform_id = ?"), B_NONE,
	    "count", 0, "%2 %1: %3 transactions, counted %4" }, {
	    CUSTOMER_COUNTS(""), CUSTOMER_COUNTS(" AND platform_id = ?"),
	    B_NONE, "customer", 1, "platform %0: %2 transactions, counted %3" } };
	const struct scope *s = x->s;
	struct count_recount *whole;
	size_t n;
	int rc;

	if (!s->recent)
		return QUERIES(x, q);
	/* The platforms whose checkpoint did not agree: counted, as ledger-check does. */
	if ((rc = db_counts_recent(x->db, s->v_from, s->v_to,
	    !s->catching_up && s->v_seen - s->v_to <= COUNTS_AHEAD_MAX, &whole, &n)) != DB_OK)
		return rc;
	for (size_t i = 0; i < n && rc == DB_OK; i++) {
		/* Each form names the platform twice. */
		struct db_val p[] = { DBS(whole[i].platform), DBS(whole[i].platform) };

		if ((rc = run_queries(x, q, 2, p, 2)) == DB_OK && whole[i].rebase)
			rc = db_counts_rebase(x->db, whole[i].platform, s->v_to);
	}
	free(whole);
	return rc;
}

/* The copy of a quote's expiry on its transaction (schema/010). */
static int
check_quote_expiry(struct run *x)
{
#define EXPIRY "SELECT x.id, x.quote_expires_at, q.expires_at FROM transactions x" \
	" JOIN quotes q ON q.transaction_id = x.id" \
	" WHERE NOT (x.quote_expires_at <=> q.expires_at)"
	static const struct query q[] = { {
	    EXPIRY, EXPIRY " AND x.id IN (" NEW_EVENT_TXNS ")", B_EVENTS, "transaction", 0,
	    "quote expiry %1 on the transaction, %2 on the quote" } };
#undef EXPIRY

	return QUERIES(x, q);
}

/*
 * Each in-transit shard against the transactions in flight on it:
 * transfers PENDING, payouts COMPLETED that the bank will return (on their
 * own shard), and quotes' payouts PROCESSING or completed to be returned
 * (R, on the receiving platform's shard 0).  A shard is the account whose
 * owner is "-" (0) or "-<shard>".  A recent run: the shards posted to.
 */
#define IN_TRANSIT \
	"SELECT a.id, a.balance, CAST(IFNULL(f.s, 0) AS CHAR)" \
	" FROM internal_accounts a LEFT JOIN (" \
	"  SELECT p, c, sh, SUM(s) AS s FROM (" \
	"   SELECT platform_id AS p, currency AS c, transit_shard AS sh, amount AS s" \
	"    FROM transactions" \
	"    WHERE (kind IN ('TRANSFER_IN', 'TRANSFER_OUT') AND status = 'PENDING')" \
	"     OR (kind = 'TRANSFER_OUT' AND status = 'COMPLETED' AND outcome = 'RETURNS')" \
	"   UNION ALL" \
	"   SELECT q.recv_platform_id, q.recv_currency, 0, q.recv_amount" \
	"    FROM quotes q JOIN transactions t ON t.id = q.transaction_id" \
	"    WHERE t.kind = 'QUOTE' AND t.destination_type = 'EXTERNAL_ACCOUNT'" \
	"     AND (t.status = 'PROCESSING'" \
	"      OR (t.status = 'COMPLETED' AND q.outcome = 'RETURNS'))) u" \
	"  GROUP BY p, c, sh) f" \
	" ON f.p = a.platform_id AND f.c = a.currency" \
	"  AND f.sh = IF(a.owner = '-', 0, CAST(SUBSTRING(a.owner, 2) AS UNSIGNED))" \
	" WHERE a.kind = 'IN_TRANSIT' AND a.balance <> IFNULL(f.s, 0)"

static int
check_in_transit(struct run *x)
{
	static const struct query q[] = { {
	    IN_TRANSIT, IN_TRANSIT " AND a.id IN (" NEW_ACCOUNTS ")", B_ENTRIES,
	    "account", 0, "balance %1, in flight on it %2" } };

	return QUERIES(x, q);
}

/*
 * Each executed quote's fee credits: on its platform's fee account fs (and
 * fr when it receives too), on another receiving platform's fr; nothing
 * once failed or returned, or before execution.
 */
#define QUOTE_FEES(from) \
	"SELECT v.id, v.gs, v.gr, v.ws, v.wr FROM (" \
	" SELECT t.id," \
	"  CAST((SELECT IFNULL(SUM(e.amount), 0) FROM ledger_entries e" \
	"   JOIN internal_accounts a ON a.id = e.account_id" \
	"   WHERE e.transaction_id = t.id AND a.kind = 'PLATFORM'" \
	"    AND a.platform_id = q.platform_id) AS CHAR) AS gs," \
	"  CAST((SELECT IFNULL(SUM(e.amount), 0) FROM ledger_entries e" \
	"   JOIN internal_accounts a ON a.id = e.account_id" \
	"   WHERE e.transaction_id = t.id AND a.kind = 'PLATFORM'" \
	"    AND a.platform_id = q.recv_platform_id" \
	"    AND q.recv_platform_id <> q.platform_id) AS CHAR) AS gr," \
	"  CAST(IF(t.status IN ('PROCESSING', 'COMPLETED'), q.fee_sender" \
	"   + IF(q.recv_platform_id = q.platform_id, q.fee_receiver, 0), 0) AS CHAR) AS ws," \
	"  CAST(IF(t.status IN ('PROCESSING', 'COMPLETED')" \
	"   AND q.recv_platform_id <> q.platform_id, q.fee_receiver, 0) AS CHAR) AS wr" \
	" FROM " from " JOIN transactions t ON t.id = q.transaction_id" \
	" WHERE t.created_at >= " SINCE_016 ") v" \
	" WHERE v.gs <> v.ws OR v.gr <> v.wr"

static int
check_quote_fees(struct run *x)
{
	static const struct query q[] = { {
	    QUOTE_FEES("quotes q"),
	    /* From the new transactions to their quotes: not every quote to them. */
	    QUOTE_FEES("(" NEW_TXNS ") nt STRAIGHT_JOIN quotes q ON q.transaction_id = nt.id"), B_BOTH,
	    "transaction", 0, "fees credited %1 and %2 (receiving platform), its split %3 and %4" } };

	return QUERIES(x, q);
}

/*
 * The answers of creations (201) kept under an Idempotency-Key that name a
 * transaction: it exists in the platform, and no two name the same one.
 * A recent run: the records made since the last (by their expiry) name a
 * transaction that exists.
 */
/* The id an answer names, in the id columns' character set (so that their index serves). */
#define TXN_OF(k) "CONVERT(SUBSTRING_INDEX(JSON_VALUE(" k ".response_body, '$.transactionId')," \
	" ':', -1) USING ascii)"
#define NAMING(k) k ".state = 'DONE' AND " k ".response_status = 201" \
	" AND JSON_VALUE(" k ".response_body, '$.transactionId') IS NOT NULL"
#define MISSING(where) \
	"SELECT k.idem_key, " TXN_OF("k") " FROM idempotency_keys k WHERE " NAMING("k") where \
	" AND NOT EXISTS (SELECT 1 FROM transactions t WHERE t.id = " TXN_OF("k") \
	"  AND t.platform_id = k.platform_id)"
#define TWICE(where) \
	"SELECT " TXN_OF("k") ", CAST(COUNT(*) AS CHAR) FROM idempotency_keys k" \
	" WHERE " NAMING("k") where " GROUP BY k.platform_id, " TXN_OF("k") " HAVING COUNT(*) > 1"

static int
check_idempotency(struct run *x)
{
	static const struct query q[] = { {
	    MISSING(""), MISSING(" AND k.expires_at > ? AND k.expires_at <= ?"), B_SINCE,
	    "idempotency-key", 0, "its answer names transaction %1, which does not exist" }, {
	    /* Over every kept record: ledger-check's alone (no index finds a name). */
	    TWICE(""), NULL, B_NONE,
	    "transaction", 0, "named by the answers of %1 Idempotency-Keys" } };

	return QUERIES(x, q);
}

/* A wrong anchor (db_txn_anchors_verify), reported. */
static void
bad_anchor(void *arg, const char *platform, const char *type, const char *customer,
    int64_t seq, int64_t want, int64_t rows)
{
	char id[128], detail[200];

	snprintf(id, sizeof(id), "%s %s %" PRId64, platform, customer[0] != '\0' ? customer :
	    type[0] != '\0' ? type : "all", seq);
	if (rows < 0)
		snprintf(detail, sizeof(detail), "its list, type '%s' customer '%s', is no list",
		    type, customer);
	else
		snprintf(detail, sizeof(detail), "%" PRId64 " rows up to it from the anchor before,"
		    " not %" PRId64 ": it is not the row at position %" PRId64, rows, want, seq);
	problem(arg, "anchor", id, detail);
}

/*
 * The anchors of deep pages: ledger-check's alone (a walk of every
 * anchored list); a recent run has no form of it.
 */
static int
check_anchors(struct run *x)
{
	if (x->s->recent)
		return DB_OK;
	return db_txn_anchors_verify(x->db, bad_anchor, x, &x->examined);
}

/* --- postings: each transaction's entries against ledger_expect() -------- */

/* The transaction of row i of a page of postings_page's query. */
static struct expect_txn
expect_of(const struct db_rows *r, size_t i)
{
	const char *outcome = db_cell(r, i, 4);
	struct expect_txn t = {
		.c = txn_class_of(db_cell(r, i, 1), db_cell(r, i, 2)),
		.status = db_cell(r, i, 3),
		.returns = outcome != NULL && strcmp(outcome, "RETURNS") == 0,
		.platform = db_cell(r, i, 5),
		.currency = db_cell(r, i, 6),
		.amount = db_cell_i64(r, i, 7),
		.shard = (int)db_cell_i64(r, i, 8),
		.customer = db_cell(r, i, 9),
		.recv_platform = db_cell(r, i, 10),
		.send_currency = db_cell(r, i, 11),
		.recv_currency = db_cell(r, i, 12),
		.sender = db_cell(r, i, 13),
		.receiver = db_cell(r, i, 14),
		.send_amount = db_cell_i64(r, i, 15),
		.principal = db_cell_i64(r, i, 16),
		.fee_sender = db_cell_i64(r, i, 17),
		.fee_receiver = db_cell_i64(r, i, 18),
		.recv_amount = db_cell_i64(r, i, 19),
	};
	return t;
}

/* The entries of transaction id, from e (sorted by transaction) at *at on. */
static size_t
entries_of(const struct db_rows *e, size_t *at, const char *id,
    struct expect_row out[EXPECT_MAX_ROWS], int *more)
{
	size_t n = 0;

	*more = 0;
	while (*at < e->nrows && strcmp(db_cell(e, *at, 0), id) < 0)
		(*at)++;
	for (; *at < e->nrows && strcmp(db_cell(e, *at, 0), id) == 0; (*at)++) {
		struct expect_row *w;

		if (n == EXPECT_MAX_ROWS) {
			*more = 1;
			continue;
		}
		w = &out[n++];
		str_copy(w->platform, sizeof(w->platform), db_cell(e, *at, 1));
		str_copy(w->kind, sizeof(w->kind), db_cell(e, *at, 2));
		str_copy(w->owner, sizeof(w->owner), db_cell(e, *at, 3));
		str_copy(w->currency, sizeof(w->currency), db_cell(e, *at, 4));
		w->amount = db_cell_i64(e, *at, 5);
	}
	return n;
}

/* The first difference of got from want, as text. */
static void
difference(const struct expect_row *want, int nw, const struct expect_row *got, size_t ng,
    char *out, size_t len)
{
	snprintf(out, len, "%d accounts expected, %zu with entries", nw, ng);
	for (int i = 0; i < nw; i++) {
		int64_t g = 0;

		for (size_t k = 0; k < ng; k++)
			if (strcmp(want[i].platform, got[k].platform) == 0 &&
			    strcmp(want[i].kind, got[k].kind) == 0 &&
			    strcmp(want[i].owner, got[k].owner) == 0 &&
			    strcmp(want[i].currency, got[k].currency) == 0)
				g = got[k].amount;
		if (g != want[i].amount) {
			snprintf(out, len, "%s %s %s of platform %s: entries %" PRId64
			    ", expected %" PRId64, want[i].kind, want[i].owner, want[i].currency,
			    want[i].platform, g, want[i].amount);
			return;
		}
	}
}

/* Checks one page of transactions (r) against their entries (e). */
static void
postings_compare(struct run *x, const struct db_rows *r, const struct db_rows *e)
{
	struct expect_row want[EXPECT_MAX_ROWS], got[EXPECT_MAX_ROWS];
	char detail[256];
	size_t at = 0;

	for (size_t i = 0; i < r->nrows; i++) {
		struct expect_txn t = expect_of(r, i);
		int nw = ledger_expect(&t, want), more;
		size_t ng = entries_of(e, &at, db_cell(r, i, 0), got, &more);

		x->examined++;
		if (nw < 0) {
			snprintf(detail, sizeof(detail), "kind %s in status %s: not in the table",
			    db_cell(r, i, 1), t.status);
			problem(x, "transaction", db_cell(r, i, 0), detail);
		} else if (more || !ledger_expect_same(want, (size_t)nw, got, ng)) {
			difference(want, nw, got, ng, detail, sizeof(detail));
			problem(x, "transaction", db_cell(r, i, 0), detail);
		}
	}
}

/* A page of transactions since 016, after the id bound first (and, in a recent run, touched). */
#define POSTINGS_PAGE(where) \
	"SELECT t.id, t.kind, t.destination_type, t.status, IFNULL(q.outcome, t.outcome)," \
	" t.platform_id, t.currency, t.amount, t.transit_shard, IFNULL(ia.owner, '')," \
	" IFNULL(q.recv_platform_id, ''), IFNULL(q.send_currency, '')," \
	" IFNULL(q.recv_currency, ''), IFNULL(sa.owner, ''), IFNULL(q.recv_customer_id, '')," \
	" IFNULL(q.send_amount, 0), IFNULL(q.principal, 0), IFNULL(q.fee_sender, 0)," \
	" IFNULL(q.fee_receiver, 0), IFNULL(q.recv_amount, 0)" \
	" FROM transactions t" \
	" LEFT JOIN internal_accounts ia ON ia.id = t.internal_account_id" \
	" LEFT JOIN quotes q ON q.transaction_id = t.id AND t.kind = 'QUOTE'" \
	" LEFT JOIN internal_accounts sa ON sa.id = q.source_account_id" \
	" WHERE t.id > ? AND t.created_at >= " SINCE_016 where " ORDER BY t.id LIMIT ?"

/*
 * Runs page_sql (whose first value is the last id of the page before, then
 * those of the scope's binding b, then the page's size) page after page,
 * handing each page to fn.
 */
static int
pages(struct run *x, const char *page_sql, enum bind b,
    int (*fn)(struct run *, const struct db_rows *))
{
	char last[37] = "";
	struct db_val v[8];
	struct db_rows r;
	size_t n, rows;
	int rc;

	x->examined = 0;
	do {
		v[0] = DBS(last);
		n = 1 + bind(x->s, x->s->recent ? b : B_NONE, v + 1);
		v[n++] = DBI(PAGE_ROWS);
		if ((rc = db_query(x->db, page_sql, v, n, &r)) != DB_OK)
			return rc;
		rows = r.nrows;
		if (rows > 0) {
			str_copy(last, sizeof(last), db_cell(&r, rows - 1, 0));
			rc = fn(x, &r);
		}
		db_rows_free(&r);
		if (rc != DB_OK)
			return rc;
	} while (rows == PAGE_ROWS);
	return DB_OK;
}

/*
 * One page of postings: its transactions' entries read and compared.  By
 * the page's ids, not their range: a recent run's page is the touched
 * transactions, scattered over the whole table.  One statement for every
 * page, the last id repeated to fill it.
 */
static int
postings_page(struct run *x, const struct db_rows *r)
{
	static char *entries_sql;
	struct db_val b[PAGE_ROWS];
	struct db_rows e;
	int rc;

	if (entries_sql == NULL)
		entries_sql = db_sql_list("SELECT e.transaction_id, a.platform_id, a.kind, a.owner,"
		    " a.currency, CAST(SUM(e.amount) AS CHAR) FROM ledger_entries e"
		    " JOIN internal_accounts a ON a.id = e.account_id"
		    " WHERE e.transaction_id IN (", "?", ", ", PAGE_ROWS, ")"
		    " GROUP BY e.transaction_id, a.id, a.platform_id, a.kind, a.owner, a.currency"
		    " HAVING SUM(e.amount) <> 0 ORDER BY e.transaction_id");
	for (size_t i = 0; i < PAGE_ROWS; i++)
		b[i] = DBS(db_cell(r, i < r->nrows ? i : r->nrows - 1, 0));
	/* Tests move a transaction between its row's read and its entries'. */
	fault_point("pause-checks-entries");
	if ((rc = db_query(x->db, entries_sql, b, PAGE_ROWS, &e)) != DB_OK)
		return rc;
	postings_compare(x, r, &e);
	db_rows_free(&e);
	return DB_OK;
}

static int
check_postings(struct run *x)
{
	/* Entries naming a transaction that does not exist. */
#define ORPHANS(where) "SELECT DISTINCT e.transaction_id FROM ledger_entries e" \
	" LEFT JOIN transactions t ON t.id = e.transaction_id" \
	" WHERE e.transaction_id IS NOT NULL AND t.id IS NULL" where
	static const struct query orphans[] = { {
	    ORPHANS(""), ORPHANS(" AND e.id > ? AND e.id <= ?"), B_ENTRIES, "transaction", 0,
	    "ledger entries name it, but no such transaction exists" } };
#undef ORPHANS
	int rc;

	rc = pages(x, x->s->recent ? POSTINGS_PAGE(" AND t.id IN (" NEW_TXNS ")") :
	    POSTINGS_PAGE(""), B_BOTH, postings_page);
	return rc != DB_OK ? rc : QUERIES(x, orphans);
}

/* --- events: one per status held, in the table's order ------------------- */

/*
 * Checks the event types of one transaction (comma-separated, in their
 * order) against its class, type and current status: the first is the
 * status it is created in, each next one a move of the table, the last
 * its status now, and each names its direction.  NULL when they do, else
 * why not, in why.
 */
static const char *
events_path(enum txn_class c, const char *type, const char *status, const char *types,
    char *why, size_t len)
{
	const char *prefix = strcmp(type, "INCOMING") == 0 ? "INCOMING_PAYMENT." :
	    "OUTGOING_PAYMENT.";
	char list[512], *save = NULL, prev[24] = "";
	int n = 0;

	str_copy(list, sizeof(list), types != NULL ? types : "");
	for (char *ev = strtok_r(list, ",", &save); ev != NULL; ev = strtok_r(NULL, ",", &save)) {
		const char *st = ev + strlen(prefix);

		if (strncmp(ev, prefix, strlen(prefix)) != 0)
			snprintf(why, len, "event %s of an %s transaction", ev, type);
		else if (n == 0 && strcmp(st, txn_initial_status(c)) != 0)
			snprintf(why, len, "first event %s, created %s", ev, txn_initial_status(c));
		else if (n > 0 && !txn_move_allowed(c, prev, st))
			snprintf(why, len, "event %s after %s: no such move", ev, prev);
		else {
			str_copy(prev, sizeof(prev), st);
			n++;
			continue;
		}
		return why;
	}
	if (n == 0)
		snprintf(why, len, "no event");
	else if (strcmp(prev, status) != 0)
		snprintf(why, len, "last event %s%s, status %s", prefix, prev, status);
	else
		return NULL;
	return why;
}

/* One page of transactions with their events' types, in order. */
static int
events_page(struct run *x, const struct db_rows *r)
{
	char why[160];

	for (size_t i = 0; i < r->nrows; i++) {
		enum txn_class c = txn_class_of(db_cell(r, i, 1), db_cell(r, i, 2));

		x->examined++;
		if (c == TC_UNKNOWN)
			problem(x, "transaction", db_cell(r, i, 0), "of an unknown kind");
		else if (events_path(c, db_cell(r, i, 3), db_cell(r, i, 4), db_cell(r, i, 5), why,
		    sizeof(why)) != NULL)
			problem(x, "transaction", db_cell(r, i, 0), why);
	}
	return DB_OK;
}

static int
check_events(struct run *x)
{
	/* The page's ids first (a derived table of LIMIT rows), then their events. */
#define EVENTS(where) \
	"SELECT t.id, t.kind, t.destination_type, t.type, t.status," \
	" GROUP_CONCAT(w.type ORDER BY w.seq SEPARATOR ',')" \
	" FROM (SELECT t.id FROM transactions t" \
	"  WHERE t.id > ? AND t.created_at > UTC_TIMESTAMP(3) - INTERVAL 30 DAY" where \
	"  ORDER BY t.id LIMIT ?) p" \
	" JOIN transactions t ON t.id = p.id LEFT JOIN webhook_events w" \
	"  ON w.platform_id = t.platform_id AND w.transaction_id = t.id" \
	" GROUP BY t.id, t.kind, t.destination_type, t.type, t.status ORDER BY t.id"
	return pages(x, x->s->recent ? EVENTS(" AND t.id IN (" NEW_EVENT_TXNS ")") : EVENTS(""),
	    B_EVENTS, events_page);
#undef EVENTS
}

/*
 * The checks, in order.  Those marked whole read all of a platform's
 * transactions (what is in flight, the anchors): a recent run that
 * catches up on a backlog (check_limits.catching_up) leaves them to the
 * next regular run.  counts reads the transactions that changed
 * (db_checks_counts.c), a whole platform only when its checkpoint does
 * not agree.
 */
static const struct {
	const char	*name;
	int		(*run)(struct run *);
	int		 whole;
} checks[] = {
	{ "sums", check_sums, 0 },
	{ "platform-sums", check_platform_sums, 0 },
	{ "balances", check_balances, 0 },
	{ "negative", check_negative, 0 },
	{ "limit", check_limit, 0 },
	{ "currency", check_currency, 0 },
	{ "counts", check_counts, 0 },
	{ "quote-expiry", check_quote_expiry, 0 },
	{ "in-transit", check_in_transit, 1 },
	{ "postings", check_postings, 0 },
	{ "quote-fees", check_quote_fees, 0 },
	{ "events", check_events, 0 },
	{ "idempotency", check_idempotency, 0 },
	{ "anchors", check_anchors, 1 },
};

/* Runs every check over scope s; the number of problems, or a DB_ failure. */
static int
run_all(struct db *db, const struct scope *s, const struct check_sink *sink)
{
	int rc, problems = 0;

	for (size_t k = 0; k < sizeof(checks) / sizeof(checks[0]); k++) {
		struct run x = { db, sink, s, checks[k].name, 0, -1 };

		if (checks[k].whole && s->catching_up)
			continue;
		if ((rc = checks[k].run(&x)) != DB_OK)
			return rc > 0 ? DB_ERR : rc;
		sink->done(sink->arg, x.name, x.problems, x.examined);
		problems += x.problems;
	}
	return problems;
}

struct whole_args {
	const struct check_sink	*sink;
	int			 problems;
};

static int
whole_tx(struct db *db, void *arg)
{
	static const struct scope whole = { .recent = 0 };
	struct whole_args *a = arg;

	a->problems = run_all(db, &whole, a->sink);
	return a->problems < 0 ? a->problems : DB_OK;
}

/* In one snapshot: a transaction moving between two reads is not a problem. */
int
db_checks_run(struct db *db, const struct check_sink *sink)
{
	struct whole_args a = { sink, 0 };
	int rc;

	if ((rc = db_transact_snapshot(db, whole_tx, &a)) != DB_OK)
		return rc;
	return a.problems;
}

/* --- the recent checks ------------------------------------------------------ */

/* Collects a recent run's failing checks for its row, then tells the caller's sink. */
struct tally {
	const struct check_sink	*next;
	struct check_summary	*out;
};

static void
tally_problem(void *arg, const char *check, const char *what, const char *id,
    const char *detail)
{
	struct tally *t = arg;

	t->next->problem(t->next->arg, check, what, id, detail);
}

static void
tally_done(void *arg, const char *check, int problems, long examined)
{
	struct tally *t = arg;
	size_t len = strlen(t->out->failing);

	if (problems > 0 && len + strlen(check) + 2 < sizeof(t->out->failing))
		snprintf(t->out->failing + len, sizeof(t->out->failing) - len, "%s%s",
		    len ? " " : "", check);
	t->out->problems += problems;
	t->next->done(t->next->arg, check, problems, examined);
}

/*
 * The range of this run, from the last run's row (none: the first run
 * starts at the newest entry and event, covering nothing).
 */
static int
recent_scope(struct db *db, const struct check_limits *lim, struct scope *s,
    int64_t seen[2], char started[32], int *behind)
{
	/*
	 * The idempotency records: those made before the lagged run started
	 * (expiring before its start + 24 h), after where the last run
	 * reached (a run before 018 recorded none: from a minute before it
	 * started), at most IDEM_WINDOW_S seconds of them.
	 */
#define IDEM_WINDOW_S "10"
#define DT(e) "DATE_FORMAT(" e ", '%Y-%m-%d %H:%i:%s.%f')"
	static const char last_sql[] =
	    "SELECT l.entry_upto, l.event_upto, " DT("f.since") ","
	    " (SELECT b.entry_seen FROM invariant_runs b"
	    "  WHERE b.started_at <= UTC_TIMESTAMP(3) - INTERVAL ? SECOND ORDER BY b.id DESC LIMIT 1),"
	    " (SELECT b.event_seen FROM invariant_runs b"
	    "  WHERE b.started_at <= UTC_TIMESTAMP(3) - INTERVAL ? SECOND ORDER BY b.id DESC LIMIT 1),"
	    " " DT("LEAST(f.since + INTERVAL " IDEM_WINDOW_S " SECOND, GREATEST(f.since,"
	    "  IFNULL((SELECT b.started_at + INTERVAL 1 DAY FROM invariant_runs b"
	    "   WHERE b.started_at <= UTC_TIMESTAMP(3) - INTERVAL ? SECOND ORDER BY b.id DESC LIMIT 1),"
	    "  f.since)))") ","
	    " (SELECT b.started_at + INTERVAL 1 DAY FROM invariant_runs b"
	    "  WHERE b.started_at <= UTC_TIMESTAMP(3) - INTERVAL ? SECOND ORDER BY b.id DESC LIMIT 1)"
	    "  > f.since + INTERVAL " IDEM_WINDOW_S " SECOND"
	    " FROM invariant_runs l, (SELECT IFNULL(r.idem_upto, r.started_at + INTERVAL 1439 MINUTE)"
	    "  AS since FROM invariant_runs r ORDER BY r.id DESC LIMIT 1) f"
	    " ORDER BY l.id DESC LIMIT 1";
#undef DT
	struct db_val lag[] = { DBI(lim->lag), DBI(lim->lag), DBI(lim->lag), DBI(lim->lag) };
	static const char now_sql[] =
	    "SELECT (SELECT IFNULL(MAX(id), 0) FROM ledger_entries),"
	    " (SELECT IFNULL(MAX(seq), 0) FROM webhook_events), UTC_TIMESTAMP(3),"
	    " UTC_TIMESTAMP(3) + INTERVAL 1 DAY";
	char day[32];
	struct db_rows r;
	int rc;

	if ((rc = db_query(db, now_sql, NULL, 0, &r)) != DB_OK)
		return rc;
	seen[0] = db_cell_i64(&r, 0, 0);
	seen[1] = db_cell_i64(&r, 0, 1);
	str_copy(started, 32, db_cell(&r, 0, 2));
	str_copy(day, sizeof(day), db_cell(&r, 0, 3));
	db_rows_free(&r);
	memset(s, 0, sizeof(*s));
	s->recent = 1;
	s->v_seen = seen[1];
	s->catching_up = lim->catching_up;
	rc = db_query_one(db, last_sql, lag, NARGS(lag), &r);
	if (rc == DB_NOT_FOUND) {
		s->e_from = s->e_to = seen[0];
		s->v_from = s->v_to = seen[1];
		/* The records made from now on: the next run's. */
		str_copy(s->since, sizeof(s->since), day);
		str_copy(s->until, sizeof(s->until), day);
		return DB_OK;
	}
	if (rc != DB_OK)
		return rc;
	/* Up to what existed when a run at least lag seconds old started. */
	s->e_from = db_cell_i64(&r, 0, 0);
	s->e_to = db_cell(&r, 0, 3) != NULL ? db_cell_i64(&r, 0, 3) : s->e_from;
	if (s->e_to - s->e_from > lim->entries) {
		s->e_to = s->e_from + lim->entries;
		*behind = 1;
	}
	s->v_from = db_cell_i64(&r, 0, 1);
	s->v_to = db_cell(&r, 0, 4) != NULL ? db_cell_i64(&r, 0, 4) : s->v_from;
	if (s->v_to - s->v_from > lim->events) {
		s->v_to = s->v_from + lim->events;
		*behind = 1;
	}
	str_copy(s->since, sizeof(s->since), db_cell(&r, 0, 2));
	str_copy(s->until, sizeof(s->until), db_cell(&r, 0, 5));
	if (db_cell_i64(&r, 0, 6))
		*behind = 1;
	db_rows_free(&r);
	/* A range that would run backwards (rows deleted by hand): nothing. */
	if (s->e_to < s->e_from)
		s->e_to = s->e_from;
	if (s->v_to < s->v_from)
		s->v_to = s->v_from;
	return DB_OK;
}

struct recent_args {
	const struct check_limits	*lim;
	const struct check_sink		*sink;
	struct check_summary		*out;
};

static int
recent_tx(struct db *db, void *arg)
{
	static const char insert_sql[] =
	    "INSERT INTO invariant_runs (started_at, finished_at, entry_seen, entry_upto,"
	    " event_seen, event_upto, idem_upto, examined, problems, failing)"
	    " VALUES (?, UTC_TIMESTAMP(3), ?, ?, ?, ?, ?, ?, ?, ?)";
	static const char keep_sql[] =
	    "DELETE FROM invariant_runs WHERE id + 1000 < LAST_INSERT_ID()";
	struct recent_args *a = arg;
	struct tally t = { a->sink, a->out };
	struct check_sink wrap = { tally_problem, tally_done, &t };
	struct scope s;
	int64_t seen[2];
	int rc;

	memset(a->out, 0, sizeof(*a->out));
	if ((rc = recent_scope(db, a->lim, &s, seen, a->out->started_at,
	    &a->out->behind)) != DB_OK)
		return rc;
	if ((s.e_to > s.e_from || s.v_to > s.v_from || strcmp(s.until, s.since) > 0) &&
	    (rc = run_all(db, &s, &wrap)) < 0)
		return rc;
	a->out->examined = (s.e_to - s.e_from) + (s.v_to - s.v_from);
	a->out->entry_upto = s.e_to;
	a->out->event_upto = s.v_to;
	struct db_val v[] = { DBS(a->out->started_at), DBI(seen[0]), DBI(s.e_to), DBI(seen[1]),
		DBI(s.v_to), DBS(s.until), DBI(a->out->examined), DBI(a->out->problems),
		DBS(a->out->failing) };
	if ((rc = db_exec(db, insert_sql, v, NARGS(v), NULL)) != DB_OK)
		return rc;
	return db_exec(db, keep_sql, NULL, 0, NULL);
}

int
db_checks_recent(struct db *db, const struct check_limits *lim, const struct check_sink *sink,
    struct check_summary *out)
{
	struct recent_args a = { lim, sink, out };

	return db_transact_snapshot(db, recent_tx, &a);
}

int
db_checks_last(struct db *db, struct check_summary *out)
{
	static const char sql[] =
	    "SELECT started_at, finished_at, entry_upto, event_upto, examined, problems, failing"
	    " FROM invariant_runs ORDER BY id DESC LIMIT 1";
	struct db_rows r;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = db_query_one(db, sql, NULL, 0, &r)) != DB_OK)
		return rc;
	str_copy(out->started_at, sizeof(out->started_at), db_cell(&r, 0, 0));
	str_copy(out->finished_at, sizeof(out->finished_at), db_cell(&r, 0, 1));
	out->entry_upto = db_cell_i64(&r, 0, 2);
	out->event_upto = db_cell_i64(&r, 0, 3);
	out->examined = db_cell_i64(&r, 0, 4);
	out->problems = (int)db_cell_i64(&r, 0, 5);
	str_copy(out->failing, sizeof(out->failing), db_cell(&r, 0, 6));
	db_rows_free(&r);
	return DB_OK;
}
