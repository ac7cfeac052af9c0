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
 *   counts          txn_counts (totalCount) matches the transactions
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
 *
 * postings and quote-fees hold the transactions made since schema 016,
 * from which entries name their transaction; events those of the last 30
 * days, whose events the delivery log still keeps.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "xborder/db.h"
#include "xborder/db_checks.h"
#include "xborder/ledger.h"
#include "xborder/ledger_expect.h"
#include "xborder/txn_moves.h"
#include "xborder/util.h"

/* Since when entries name their transaction. */
#define SINCE_016 "(SELECT applied_at FROM schema_migrations" \
	" WHERE name = '016_ledger_entries_txn.sql')"

/* Transactions a page of the postings and events checks. */
#define PAGE_ROWS 500

struct run {
	struct db		*db;
	const struct check_sink	*sink;
	const char		*name;
	int			 problems;
	long			 examined;
};

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
	const char	*sql;
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
	struct db_rows r;
	char detail[256];
	int rc;

	for (size_t k = 0; k < nq; k++) {
		if ((rc = db_query(x->db, q[k].sql, a, na, &r)) != DB_OK)
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

static int
check_sums(struct run *x)
{
	static const struct query q[] = { {
	    "SELECT currency, CAST(SUM(amount) AS CHAR) FROM ledger_entries"
	    " GROUP BY currency HAVING SUM(amount) <> 0", "currency", 0, "entries sum to %1" } };

	return QUERIES(x, q);
}

static int
check_platform_sums(struct run *x)
{
	static const struct query q[] = { {
	    "SELECT CONCAT(platform_id, ' ', currency), CAST(SUM(amount) AS CHAR)"
	    " FROM ledger_entries GROUP BY platform_id, currency HAVING SUM(amount) <> 0",
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
	    "account", 0, "balance %1 but entries sum to %2" } };

	return QUERIES(x, q);
}

static int
check_negative(struct run *x)
{
	static const struct query q[] = { {
	    "SELECT id, balance FROM internal_accounts WHERE balance < 0 AND kind <> 'SANDBOX'",
	    "account", 0, "negative balance %1" } };

	return QUERIES(x, q);
}

static int
check_limit(struct run *x)
{
	static const struct query q[] = { {
	    "SELECT id, balance FROM internal_accounts WHERE balance > ? OR balance < ?",
	    "account", 0, "balance %1 past the limit" } };
	struct db_val lim[] = { DBI(LEDGER_BALANCE_MAX), DBI(-LEDGER_BALANCE_MAX) };

	return run_queries(x, q, 1, lim, 2);
}

static int
check_currency(struct run *x)
{
	static const struct query q[] = { {
	    "SELECT e.id, e.account_id FROM ledger_entries e JOIN internal_accounts a"
	    " ON a.id = e.account_id WHERE a.currency <> e.currency", "account", 1,
	    "entry %0 in another currency" } };

	return QUERIES(x, q);
}

/* txn_counts, which totalCount reads, against the transactions. */
static int
check_counts(struct run *x)
{
	static const struct query q[] = { {
	    "SELECT x.platform_id, x.status, x.type, CAST(SUM(x.c) AS CHAR),"
	    " CAST(SUM(x.n) AS CHAR) FROM ("
	    " SELECT platform_id, status, type, COUNT(*) AS c, 0 AS n FROM transactions"
	    "  GROUP BY platform_id, status, type"
	    " UNION ALL"
	    " SELECT platform_id, status, type, 0, SUM(n) FROM txn_counts"
	    "  GROUP BY platform_id, status, type) x"
	    " GROUP BY x.platform_id, x.status, x.type HAVING SUM(x.c) <> SUM(x.n)",
	    "count", 0, "%2 %1: %3 transactions, counted %4" } };

	return QUERIES(x, q);
}

/* The copy of a quote's expiry on its transaction (schema/010). */
static int
check_quote_expiry(struct run *x)
{
	static const struct query q[] = { {
	    "SELECT x.id, x.quote_expires_at, q.expires_at FROM transactions x"
	    " JOIN quotes q ON q.transaction_id = x.id"
	    " WHERE NOT (x.quote_expires_at <=> q.expires_at)", "transaction", 0,
	    "quote expiry %1 on the transaction, %2 on the quote" } };

	return QUERIES(x, q);
}

/*
 * Each in-transit shard against the transactions in flight on it:
 * transfers PENDING, payouts COMPLETED that the bank will return (on their
 * own shard), and quotes' payouts PROCESSING or completed to be returned
 * (R, on the receiving platform's shard 0).  A shard is the account whose
 * owner is "-" (0) or "-<shard>".
 */
static int
check_in_transit(struct run *x)
{
	static const struct query q[] = { {
	    "SELECT a.id, a.balance, CAST(IFNULL(f.s, 0) AS CHAR)"
	    " FROM internal_accounts a LEFT JOIN ("
	    "  SELECT p, c, sh, SUM(s) AS s FROM ("
	    "   SELECT platform_id AS p, currency AS c, transit_shard AS sh, amount AS s"
	    "    FROM transactions"
	    "    WHERE (kind IN ('TRANSFER_IN', 'TRANSFER_OUT') AND status = 'PENDING')"
	    "     OR (kind = 'TRANSFER_OUT' AND status = 'COMPLETED' AND outcome = 'RETURNS')"
	    "   UNION ALL"
	    "   SELECT q.recv_platform_id, q.recv_currency, 0, q.recv_amount"
	    "    FROM quotes q JOIN transactions t ON t.id = q.transaction_id"
	    "    WHERE t.kind = 'QUOTE' AND t.destination_type = 'EXTERNAL_ACCOUNT'"
	    "     AND (t.status = 'PROCESSING'"
	    "      OR (t.status = 'COMPLETED' AND q.outcome = 'RETURNS'))) u"
	    "  GROUP BY p, c, sh) f"
	    " ON f.p = a.platform_id AND f.c = a.currency"
	    "  AND f.sh = IF(a.owner = '-', 0, CAST(SUBSTRING(a.owner, 2) AS UNSIGNED))"
	    " WHERE a.kind = 'IN_TRANSIT' AND a.balance <> IFNULL(f.s, 0)",
	    "account", 0, "balance %1, in flight on it %2" } };

	return QUERIES(x, q);
}

/*
 * Each executed quote's fee credits: on its platform's fee account fs (and
 * fr when it receives too), on another receiving platform's fr; nothing
 * once failed or returned, or before execution.
 */
static int
check_quote_fees(struct run *x)
{
	static const struct query q[] = { {
	    "SELECT v.id, v.gs, v.gr, v.ws, v.wr FROM ("
	    " SELECT t.id,"
	    "  CAST((SELECT IFNULL(SUM(e.amount), 0) FROM ledger_entries e"
	    "   JOIN internal_accounts a ON a.id = e.account_id"
	    "   WHERE e.transaction_id = t.id AND a.kind = 'PLATFORM'"
	    "    AND a.platform_id = q.platform_id) AS CHAR) AS gs,"
	    "  CAST((SELECT IFNULL(SUM(e.amount), 0) FROM ledger_entries e"
	    "   JOIN internal_accounts a ON a.id = e.account_id"
	    "   WHERE e.transaction_id = t.id AND a.kind = 'PLATFORM'"
	    "    AND a.platform_id = q.recv_platform_id"
	    "    AND q.recv_platform_id <> q.platform_id) AS CHAR) AS gr,"
	    "  CAST(IF(t.status IN ('PROCESSING', 'COMPLETED'), q.fee_sender"
	    "   + IF(q.recv_platform_id = q.platform_id, q.fee_receiver, 0), 0) AS CHAR) AS ws,"
	    "  CAST(IF(t.status IN ('PROCESSING', 'COMPLETED')"
	    "   AND q.recv_platform_id <> q.platform_id, q.fee_receiver, 0) AS CHAR) AS wr"
	    " FROM quotes q JOIN transactions t ON t.id = q.transaction_id"
	    " WHERE t.created_at >= " SINCE_016 ") v"
	    " WHERE v.gs <> v.ws OR v.gr <> v.wr",
	    "transaction", 0, "fees credited %1 and %2 (receiving platform), its split %3 and %4" } };

	return QUERIES(x, q);
}

/*
 * The answers of creations (201) kept under an Idempotency-Key that name a
 * transaction: it exists in the platform, and no two name the same one.
 */
static int
check_idempotency(struct run *x)
{
#define TXN_OF_ANSWER "SUBSTRING_INDEX(JSON_VALUE(k.response_body, '$.transactionId'), ':', -1)"
	static const struct query q[] = { {
	    "SELECT k.idem_key, " TXN_OF_ANSWER " FROM idempotency_keys k"
	    " WHERE k.state = 'DONE' AND k.response_status = 201"
	    "  AND JSON_VALUE(k.response_body, '$.transactionId') IS NOT NULL"
	    "  AND NOT EXISTS (SELECT 1 FROM transactions t WHERE t.id = " TXN_OF_ANSWER
	    "   AND t.platform_id = k.platform_id)",
	    "idempotency-key", 0, "its answer names transaction %1, which does not exist" }, {
	    "SELECT " TXN_OF_ANSWER ", CAST(COUNT(*) AS CHAR) FROM idempotency_keys k"
	    " WHERE k.state = 'DONE' AND k.response_status = 201"
	    "  AND JSON_VALUE(k.response_body, '$.transactionId') IS NOT NULL"
	    " GROUP BY k.platform_id, " TXN_OF_ANSWER " HAVING COUNT(*) > 1",
	    "transaction", 0, "named by the answers of %1 Idempotency-Keys" } };
#undef TXN_OF_ANSWER

	return QUERIES(x, q);
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

static int
check_postings(struct run *x)
{
	static const char page_sql[] =
	    "SELECT t.id, t.kind, t.destination_type, t.status, IFNULL(q.outcome, t.outcome),"
	    " t.platform_id, t.currency, t.amount, t.transit_shard, IFNULL(ia.owner, ''),"
	    " IFNULL(q.recv_platform_id, ''), IFNULL(q.send_currency, ''),"
	    " IFNULL(q.recv_currency, ''), IFNULL(sa.owner, ''), IFNULL(q.recv_customer_id, ''),"
	    " IFNULL(q.send_amount, 0), IFNULL(q.principal, 0), IFNULL(q.fee_sender, 0),"
	    " IFNULL(q.fee_receiver, 0), IFNULL(q.recv_amount, 0)"
	    " FROM transactions t"
	    " LEFT JOIN internal_accounts ia ON ia.id = t.internal_account_id"
	    " LEFT JOIN quotes q ON q.transaction_id = t.id AND t.kind = 'QUOTE'"
	    " LEFT JOIN internal_accounts sa ON sa.id = q.source_account_id"
	    " WHERE t.id > ? AND t.created_at >= " SINCE_016 " ORDER BY t.id LIMIT ?";
	static const char entries_sql[] =
	    "SELECT e.transaction_id, a.platform_id, a.kind, a.owner, a.currency,"
	    " CAST(SUM(e.amount) AS CHAR) FROM ledger_entries e"
	    " JOIN internal_accounts a ON a.id = e.account_id"
	    " WHERE e.transaction_id >= ? AND e.transaction_id <= ?"
	    " GROUP BY e.transaction_id, a.id, a.platform_id, a.kind, a.owner, a.currency"
	    " HAVING SUM(e.amount) <> 0 ORDER BY e.transaction_id";
	/* Entries naming a transaction that does not exist. */
	static const struct query orphans[] = { {
	    "SELECT DISTINCT e.transaction_id FROM ledger_entries e"
	    " LEFT JOIN transactions t ON t.id = e.transaction_id"
	    " WHERE e.transaction_id IS NOT NULL AND t.id IS NULL", "transaction", 0,
	    "ledger entries name it, but no such transaction exists" } };
	char last[37] = "";
	struct db_rows r, e;
	int rc;

	x->examined = 0;
	for (;;) {
		struct db_val a[] = { DBS(last), DBI(PAGE_ROWS) };

		if ((rc = db_query(x->db, page_sql, a, 2, &r)) != DB_OK)
			return rc;
		if (r.nrows == 0) {
			db_rows_free(&r);
			break;
		}
		struct db_val b[] = { DBS(db_cell(&r, 0, 0)), DBS(db_cell(&r, r.nrows - 1, 0)) };

		if ((rc = db_query(x->db, entries_sql, b, 2, &e)) != DB_OK) {
			db_rows_free(&r);
			return rc;
		}
		postings_compare(x, &r, &e);
		str_copy(last, sizeof(last), db_cell(&r, r.nrows - 1, 0));
		db_rows_free(&e);
		db_rows_free(&r);
	}
	return QUERIES(x, orphans);
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

static int
check_events(struct run *x)
{
	static const char sql[] =
	    "SELECT t.id, t.kind, t.destination_type, t.type, t.status,"
	    " GROUP_CONCAT(w.type ORDER BY w.seq SEPARATOR ',')"
	    " FROM transactions t LEFT JOIN webhook_events w ON w.transaction_id = t.id"
	    " WHERE t.id > ? AND t.created_at > UTC_TIMESTAMP(3) - INTERVAL 30 DAY"
	    " GROUP BY t.id, t.kind, t.destination_type, t.type, t.status"
	    " ORDER BY t.id LIMIT ?";
	char last[37] = "", why[160];
	struct db_rows r;
	int rc;

	x->examined = 0;
	for (;;) {
		struct db_val a[] = { DBS(last), DBI(PAGE_ROWS) };

		if ((rc = db_query(x->db, sql, a, 2, &r)) != DB_OK)
			return rc;
		for (size_t i = 0; i < r.nrows; i++) {
			enum txn_class c = txn_class_of(db_cell(&r, i, 1), db_cell(&r, i, 2));

			x->examined++;
			if (c == TC_UNKNOWN)
				problem(x, "transaction", db_cell(&r, i, 0), "of an unknown kind");
			else if (events_path(c, db_cell(&r, i, 3), db_cell(&r, i, 4),
			    db_cell(&r, i, 5), why, sizeof(why)) != NULL)
				problem(x, "transaction", db_cell(&r, i, 0), why);
		}
		if (r.nrows > 0)
			str_copy(last, sizeof(last), db_cell(&r, r.nrows - 1, 0));
		db_rows_free(&r);
		if (r.nrows < PAGE_ROWS)
			break;
	}
	return DB_OK;
}

static const struct {
	const char	*name;
	int		(*run)(struct run *);
} checks[] = {
	{ "sums", check_sums },
	{ "platform-sums", check_platform_sums },
	{ "balances", check_balances },
	{ "negative", check_negative },
	{ "limit", check_limit },
	{ "currency", check_currency },
	{ "counts", check_counts },
	{ "quote-expiry", check_quote_expiry },
	{ "in-transit", check_in_transit },
	{ "postings", check_postings },
	{ "quote-fees", check_quote_fees },
	{ "events", check_events },
	{ "idempotency", check_idempotency },
};

int
db_checks_run(struct db *db, const struct check_sink *sink)
{
	int rc, problems = 0;

	for (size_t k = 0; k < sizeof(checks) / sizeof(checks[0]); k++) {
		struct run x = { db, sink, checks[k].name, 0, -1 };

		if ((rc = checks[k].run(&x)) != DB_OK)
			return rc > 0 ? DB_ERR : rc;
		sink->done(sink->arg, x.name, x.problems, x.examined);
		problems += x.problems;
	}
	return problems;
}
