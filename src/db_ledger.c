/*
 * db_ledger.c: the only code that changes a balance.  Every change goes
 * through db_ledger_apply(), which writes the ledger entries in the same
 * transaction as the balance update, so a balance is always the sum of its
 * entries and the entries of every currency sum to zero.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "xborder/db.h"
#include "xborder/db_ledger.h"
#include "xborder/ids.h"
#include "xborder/util.h"

int
db_ledger_apply(struct db *db, const char *memo, const struct posting_set *s,
    struct ledger_short *shortfall)
{
	static const char lock[] =
	    "SELECT balance, kind, currency, platform_id FROM internal_accounts"
	    " WHERE id = ? FOR UPDATE";
	static const char update[] =
	    "UPDATE internal_accounts SET balance = balance + ?, updated_at = UTC_TIMESTAMP(3)"
	    " WHERE id = ?";
	static const char entry[] =
	    "INSERT INTO ledger_entries (posting_id, platform_id, account_id, currency,"
	    " amount, memo, created_at) VALUES (?, ?, ?, ?, ?, ?, UTC_TIMESTAMP(3))";
	size_t order[LEDGER_MAX_POSTINGS], n;
	char platform[LEDGER_MAX_POSTINGS][37], posting_id[UUID_LEN + 1];
	int64_t nets[LEDGER_MAX_POSTINGS];
	int rc, past_limit = 0, short_of = 0;

	if (ledger_balanced(s) < 0)
		return DB_CONFLICT;
	n = ledger_lock_order(s, order);
	/*
	 * Lock and check every account before changing any, so that a
	 * refusal leaves the caller's transaction untouched (settlement goes
	 * on with another posting after DB_LIMIT).
	 */
	for (size_t k = 0; k < n; k++) {
		const struct posting *p = &s->p[order[k]];
		struct db_val a[] = { DBS(p->account_id) };
		struct db_rows r;
		int64_t balance, after;
		int overflow, sandbox;

		if ((rc = db_query(db, lock, a, NARGS(a), &r)) != DB_OK)
			return rc;
		if (r.nrows == 0) {
			db_rows_free(&r);
			return DB_CONFLICT;
		}
		if (strcmp(db_cell(&r, 0, 2), p->currency) != 0) {
			db_rows_free(&r);
			return DB_CONFLICT;
		}
		balance = db_cell_i64(&r, 0, 0);
		sandbox = strcmp(db_cell(&r, 0, 1), ACCT_SANDBOX) == 0;
		snprintf(platform[order[k]], sizeof(platform[0]), "%s", db_cell(&r, 0, 3));
		db_rows_free(&r);
		nets[k] = ledger_net(s, p->account_id, &overflow);
		if (overflow) {
			past_limit = 1;
			continue;
		}
		switch (ledger_balance_after(balance, nets[k], sandbox, &after)) {
		case LEDGER_OK:
			break;
		case LEDGER_PAST_LIMIT:
			past_limit = 1;
			break;
		case LEDGER_BELOW_ZERO:
			if (!short_of && shortfall != NULL) {
				memcpy(shortfall->account_id, p->account_id,
				    sizeof(shortfall->account_id));
				memcpy(shortfall->currency, p->currency, sizeof(shortfall->currency));
				shortfall->available = balance;
				shortfall->requested = -nets[k];
			}
			short_of = 1;
			break;
		}
	}
	/* AMOUNT_OUT_OF_RANGE comes before INSUFFICIENT_FUNDS (decisions.md). */
	if (past_limit)
		return DB_LIMIT;
	if (short_of)
		return DB_INSUFFICIENT;
	for (size_t k = 0; k < n; k++) {
		struct db_val u[] = { DBI(nets[k]), DBS(s->p[order[k]].account_id) };

		if (nets[k] != 0 && (rc = db_exec(db, update, u, NARGS(u), NULL)) != DB_OK)
			return rc;
	}
	ids_uuid4(posting_id);
	for (size_t i = 0; i < s->n; i++) {
		const struct posting *p = &s->p[i];
		const char *plat = NULL;

		/* Postings of one account share the platform read under lock. */
		for (size_t k = 0; k < n; k++)
			if (strcmp(s->p[order[k]].account_id, p->account_id) == 0)
				plat = platform[order[k]];
		{
			struct db_val e[] = { DBS(posting_id), DBS(plat), DBS(p->account_id),
			    DBS(p->currency), DBI(p->amount), DBS(memo) };

			if ((rc = db_exec(db, entry, e, NARGS(e), NULL)) != DB_OK)
				return rc;
		}
	}
	return DB_OK;
}

int
db_account_system(struct db *db, const char *platform, const char *kind,
    const char *currency, char id[37])
{
	static const char find[] =
	    "SELECT id FROM internal_accounts WHERE platform_id = ? AND kind = ?"
	    " AND owner = '-' AND currency = ?";
	static const char create[] =
	    "INSERT IGNORE INTO internal_accounts (id, platform_id, customer_id, owner, kind,"
	    " currency, balance, created_at, updated_at)"
	    " VALUES (?, ?, NULL, '-', ?, ?, 0, UTC_TIMESTAMP(3), UTC_TIMESTAMP(3))";
	char fresh[UUID_LEN + 1];
	struct db_rows r;
	int rc;

	ids_uuid4(fresh);
	for (int attempt = 0; attempt < 2; attempt++) {
		struct db_val a[] = { DBS(platform), DBS(kind), DBS(currency) };
		struct db_val c[] = { DBS(fresh), DBS(platform), DBS(kind), DBS(currency) };

		if ((rc = db_query(db, find, a, NARGS(a), &r)) != DB_OK)
			return rc;
		if (r.nrows > 0) {
			snprintf(id, 37, "%s", db_cell(&r, 0, 0));
			db_rows_free(&r);
			return DB_OK;
		}
		db_rows_free(&r);
		/* IGNORE: a concurrent creator may win; then we read its row. */
		if ((rc = db_exec(db, create, c, NARGS(c), NULL)) != DB_OK)
			return rc;
	}
	return DB_ERR;
}

int
db_ledger_check(struct db *db, void (*report)(const char *what, const char *id,
    const char *detail))
{
	static const char sums[] =
	    "SELECT currency, CAST(SUM(amount) AS CHAR) FROM ledger_entries"
	    " GROUP BY currency HAVING SUM(amount) <> 0";
	static const char balances[] =
	    "SELECT a.id, a.balance, CAST(IFNULL(SUM(e.amount), 0) AS CHAR)"
	    " FROM internal_accounts a LEFT JOIN ledger_entries e ON e.account_id = a.id"
	    " GROUP BY a.id, a.balance HAVING a.balance <> IFNULL(SUM(e.amount), 0)";
	static const char negative[] =
	    "SELECT id, balance FROM internal_accounts WHERE balance < 0 AND kind <> 'SANDBOX'";
	static const char outside[] =
	    "SELECT id, balance FROM internal_accounts WHERE balance > ? OR balance < ?";
	static const char mismatch[] =
	    "SELECT e.id, e.account_id FROM ledger_entries e JOIN internal_accounts a"
	    " ON a.id = e.account_id WHERE a.currency <> e.currency";
	struct db_val lim[] = { DBI(LEDGER_BALANCE_MAX), DBI(-LEDGER_BALANCE_MAX) };
	struct db_rows r;
	char detail[128];
	int rc, problems = 0;

	if ((rc = db_query(db, sums, NULL, 0, &r)) != DB_OK)
		return rc;
	for (size_t i = 0; i < r.nrows; i++, problems++) {
		snprintf(detail, sizeof(detail), "entries sum to %s", db_cell(&r, i, 1));
		report("currency", db_cell(&r, i, 0), detail);
	}
	db_rows_free(&r);
	if ((rc = db_query(db, balances, NULL, 0, &r)) != DB_OK)
		return rc;
	for (size_t i = 0; i < r.nrows; i++, problems++) {
		snprintf(detail, sizeof(detail), "balance %s but entries sum to %s",
		    db_cell(&r, i, 1), db_cell(&r, i, 2));
		report("account", db_cell(&r, i, 0), detail);
	}
	db_rows_free(&r);
	if ((rc = db_query(db, negative, NULL, 0, &r)) != DB_OK)
		return rc;
	for (size_t i = 0; i < r.nrows; i++, problems++) {
		snprintf(detail, sizeof(detail), "negative balance %s", db_cell(&r, i, 1));
		report("account", db_cell(&r, i, 0), detail);
	}
	db_rows_free(&r);
	if ((rc = db_query(db, outside, lim, NARGS(lim), &r)) != DB_OK)
		return rc;
	for (size_t i = 0; i < r.nrows; i++, problems++) {
		snprintf(detail, sizeof(detail), "balance %s past the limit", db_cell(&r, i, 1));
		report("account", db_cell(&r, i, 0), detail);
	}
	db_rows_free(&r);
	if ((rc = db_query(db, mismatch, NULL, 0, &r)) != DB_OK)
		return rc;
	for (size_t i = 0; i < r.nrows; i++, problems++) {
		snprintf(detail, sizeof(detail), "entry %s in another currency", db_cell(&r, i, 0));
		report("account", db_cell(&r, i, 1), detail);
	}
	db_rows_free(&r);
	return problems;
}
