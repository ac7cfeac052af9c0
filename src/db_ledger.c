/*
 * db_ledger.c: the only code that changes a balance.  Every change goes
 * through db_ledger_apply(), which writes the ledger entries in the same
 * transaction as the balance update, so a balance is always the sum of its
 * entries and the entries of every currency sum to zero.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xborder/db.h"
#include "xborder/db_ledger.h"
#include "xborder/ids.h"
#include "xborder/util.h"

/*
 * The statements of a posting set of n accounts and m entries, one round
 * trip each: the accounts locked together (FOR UPDATE, in id order, so two
 * sets lock common accounts in the same order), their balances changed by
 * one UPDATE, the entries written by one INSERT.  The texts are made on
 * first use and kept for the process.
 */
enum { SQL_LOCK, SQL_UPDATE, SQL_ENTRIES };

static const char *
apply_sql(int which, size_t n)
{
	static char *made[3][LEDGER_MAX_ENTRIES + 1];
	char buf[8192];
	size_t len = 0;

	if (n == 0 || n > (which == SQL_ENTRIES ? LEDGER_MAX_ENTRIES : LEDGER_MAX_POSTINGS))
		abort();
	if (made[which][n] != NULL)
		return made[which][n];
#define ADD(...) (len += (size_t)snprintf(buf + len, sizeof(buf) - len, __VA_ARGS__))
	switch (which) {
	case SQL_LOCK:
		ADD("SELECT id, balance, kind, currency, platform_id FROM internal_accounts"
		    " WHERE id IN (");
		for (size_t i = 0; i < n; i++)
			ADD("%s?", i ? ", " : "");
		ADD(") ORDER BY id FOR UPDATE");
		break;
	case SQL_UPDATE:
		ADD("UPDATE internal_accounts SET balance = balance + CASE id");
		for (size_t i = 0; i < n; i++)
			ADD(" WHEN ? THEN ?");
		ADD(" END, updated_at = UTC_TIMESTAMP(3) WHERE id IN (");
		for (size_t i = 0; i < n; i++)
			ADD("%s?", i ? ", " : "");
		ADD(")");
		break;
	default:
		ADD("INSERT INTO ledger_entries (posting_id, transaction_id, platform_id,"
		    " account_id, currency, amount, memo, created_at) VALUES");
		for (size_t i = 0; i < n; i++)
			ADD("%s (?, ?, ?, ?, ?, ?, ?, UTC_TIMESTAMP(3))", i ? "," : "");
	}
#undef ADD
	if (len >= sizeof(buf))
		abort();
	made[which][n] = xstrdup(buf);
	return made[which][n];
}

/*
 * Checks the accounts of s as locked (r, in id order as order[] is): each
 * exists in its posting's currency, its net change (nets[k]) keeps it
 * within the balance limit, and it holds what the set takes from it.
 * Keeps each account's platform in platform[].  DB_OK, DB_CONFLICT,
 * DB_LIMIT, or DB_INSUFFICIENT with the first short account in *shortfall.
 */
static int
check_locked(const struct db_rows *r, const struct posting_set *s, const size_t *order,
    size_t n, char platform[][37], int64_t *nets, struct ledger_short *shortfall)
{
	int past_limit = 0, short_of = 0;

	for (size_t k = 0; k < n; k++) {
		const struct posting *p = &s->p[order[k]];
		int64_t balance, after, taken;
		int overflow, sandbox;

		if (strcmp(db_cell(r, k, 0), p->account_id) != 0 ||
		    strcmp(db_cell(r, k, 3), p->currency) != 0)
			return DB_CONFLICT;
		balance = db_cell_i64(r, k, 1);
		sandbox = strcmp(db_cell(r, k, 2), ACCT_SANDBOX) == 0;
		snprintf(platform[order[k]], sizeof(platform[0]), "%s", db_cell(r, k, 4));
		nets[k] = ledger_net(s, p->account_id, &overflow);
		if (!overflow)
			taken = ledger_taken(s, p->account_id, &overflow);
		if (overflow) {
			past_limit = 1;
			continue;
		}
		if (ledger_balance_after(balance, nets[k], sandbox, &after) == LEDGER_PAST_LIMIT)
			past_limit = 1;
		/*
		 * Every debit against the balance before the set, whatever the
		 * set credits to the same account (a quote paid to the sender's
		 * own address in the same currency still needs all it sends).
		 */
		if (!ledger_funds_cover(balance, taken, sandbox)) {
			if (!short_of && shortfall != NULL) {
				memcpy(shortfall->account_id, p->account_id,
				    sizeof(shortfall->account_id));
				memcpy(shortfall->currency, p->currency, sizeof(shortfall->currency));
				shortfall->available = balance;
				shortfall->requested = taken;
			}
			short_of = 1;
		}
	}
	/* AMOUNT_OUT_OF_RANGE comes before INSUFFICIENT_FUNDS (decisions.md). */
	if (past_limit)
		return DB_LIMIT;
	if (short_of)
		return DB_INSUFFICIENT;
	return DB_OK;
}

/* Locks the n accounts of s (FOR UPDATE, in id order) and checks them. */
static int
lock_and_check(struct db *db, const struct posting_set *s, const size_t *order, size_t n,
    char platform[][37], int64_t *nets, struct ledger_short *shortfall)
{
	struct db_val v[LEDGER_MAX_POSTINGS];
	struct db_rows r;
	int rc;

	for (size_t k = 0; k < n; k++)
		v[k] = DBS(s->p[order[k]].account_id);
	if ((rc = db_query(db, apply_sql(SQL_LOCK, n), v, n, &r)) != DB_OK)
		return rc;
	if (r.nrows != n) {
		db_rows_free(&r);
		return DB_CONFLICT;	/* an account does not exist */
	}
	/* Rows come in id order, as order[] is. */
	rc = check_locked(&r, s, order, n, platform, nets, shortfall);
	db_rows_free(&r);
	return rc;
}

/* Adds each locked account's net change to its balance, in one UPDATE. */
static int
update_balances(struct db *db, const struct posting_set *s, const size_t *order, size_t n,
    const int64_t *nets)
{
	struct db_val v[LEDGER_MAX_POSTINGS * 3];
	size_t m = 0;

	for (size_t k = 0; k < n; k++)
		if (nets[k] != 0) {
			v[2 * m] = DBS(s->p[order[k]].account_id);
			v[2 * m + 1] = DBI(nets[k]);
			m++;
		}
	if (m == 0)
		return DB_OK;
	for (size_t k = 0; k < m; k++)
		v[2 * m + k] = v[2 * k];
	return db_exec_later(db, apply_sql(SQL_UPDATE, m), v, 3 * m, (int64_t)m, DB_ERR);
}

/*
 * Writes the ne entries e under one new posting id, in one INSERT; each
 * names its account's platform as read under lock (the set's accounts, in
 * order[]'s n, with their platforms in platform[]).
 */
static int
write_entries(struct db *db, const char *memo, const struct ledger_entry *e, size_t ne,
    const struct posting_set *s, const size_t *order, size_t n, char platform[][37])
{
	static struct db_val v[LEDGER_MAX_ENTRIES * 7];
	char posting_id[UUID_LEN + 1];

	ids_uuid4(posting_id);
	for (size_t i = 0; i < ne; i++) {
		const char *plat = NULL;

		for (size_t k = 0; k < n; k++)
			if (strcmp(s->p[order[k]].account_id, e[i].account_id) == 0)
				plat = platform[order[k]];
		v[7 * i] = DBS(posting_id);
		v[7 * i + 1] = e[i].txn[0] != '\0' ? DBS(e[i].txn) : DBN;
		v[7 * i + 2] = DBS(plat);
		v[7 * i + 3] = DBS(e[i].account_id);
		v[7 * i + 4] = DBS(e[i].currency);
		v[7 * i + 5] = DBI(e[i].amount);
		v[7 * i + 6] = DBS(memo);
	}
	return db_exec_later(db, apply_sql(SQL_ENTRIES, ne), v, 7 * ne, (int64_t)ne, DB_ERR);
}

/*
 * Applies s and writes the entries e (ne of them, ledger_split_matches s),
 * or, with e NULL, one entry per posting of s, naming s->txn.
 */
static int
apply(struct db *db, const char *memo, const struct posting_set *s,
    const struct ledger_entry *e, size_t ne, struct ledger_short *shortfall)
{
	size_t order[LEDGER_MAX_POSTINGS], n;
	char platform[LEDGER_MAX_POSTINGS][37];
	int64_t nets[LEDGER_MAX_POSTINGS];
	struct ledger_entry own[LEDGER_MAX_POSTINGS];
	int rc;

	if (ledger_balanced(s) < 0)
		return DB_CONFLICT;
	if (e == NULL) {
		for (size_t i = 0; i < s->n; i++) {
			memcpy(own[i].txn, s->txn, sizeof(own[i].txn));
			memcpy(own[i].account_id, s->p[i].account_id, sizeof(own[i].account_id));
			memcpy(own[i].currency, s->p[i].currency, sizeof(own[i].currency));
			own[i].amount = s->p[i].amount;
		}
		e = own;
		ne = s->n;
	} else if (!ledger_split_matches(s, e, ne)) {
		return DB_CONFLICT;
	}
	n = ledger_lock_order(s, order);
	/*
	 * Lock and check every account before changing any, so that a
	 * refusal leaves the caller's transaction untouched (settlement goes
	 * on with another posting after DB_LIMIT).
	 */
	if ((rc = lock_and_check(db, s, order, n, platform, nets, shortfall)) != DB_OK)
		return rc;
	if ((rc = update_balances(db, s, order, n, nets)) != DB_OK)
		return rc;
	return write_entries(db, memo, e, ne, s, order, n, platform);
}

int
db_ledger_apply(struct db *db, const char *memo, const struct posting_set *s,
    struct ledger_short *shortfall)
{
	return apply(db, memo, s, NULL, 0, shortfall);
}

int
db_ledger_apply_split(struct db *db, const char *memo, const struct posting_set *s,
    const struct ledger_entry *e, size_t ne)
{
	return apply(db, memo, s, e, ne, NULL);
}

/*
 * The worker's cache of system account ids.  A system account is never
 * deleted, so an id is good for ever once its row is committed; but a row
 * this worker created (or found) inside a transaction may yet be rolled
 * back.  So an id found inside a transaction waits in `pending` until the
 * transaction commits (db.c calls system_tx_end); a rollback, to a
 * savepoint too, drops what waits.  Outside a transaction a found row is
 * committed: it goes to the cache at once.
 */
#define SYSTEM_SETS 256	/* of SYSTEM_WAYS ids each: 1024 accounts */
#define SYSTEM_WAYS 4
#define SYSTEM_PENDING LEDGER_MAX_POSTINGS	/* a settlement batch finds up to 17 */

struct system_key {
	char	platform[37], kind[16], owner[8], currency[4], id[37];
};

static struct system_key system_cache[SYSTEM_SETS][SYSTEM_WAYS];
static struct system_key system_pending[SYSTEM_PENDING];
static size_t system_npending;

static int
same_account(const struct system_key *k, const char *platform, const char *kind,
    const char *owner, const char *currency)
{
	return strcmp(k->platform, platform) == 0 && strcmp(k->kind, kind) == 0 &&
	    strcmp(k->owner, owner) == 0 && strcmp(k->currency, currency) == 0;
}

/*
 * The set of the account's key.  A platform's 16 in-transit shards of a
 * currency, its sandbox and fee accounts must not evict one another (a
 * miss is a statement), so the parts are mixed, not summed, and a set
 * holds four.
 */
static struct system_key *
system_set(const char *platform, const char *kind, const char *owner, const char *currency)
{
	uint64_t h = str_hash(platform);

	h = h * 1000003u ^ str_hash(kind);
	h = h * 1000003u ^ str_hash(owner);
	h = (h * 1000003u ^ str_hash(currency)) * UINT64_C(0x9E3779B97F4A7C15);
	return system_cache[(h >> 32) % SYSTEM_SETS];
}

/* The cached id of the account, or NULL. */
static const struct system_key *
system_find(const char *platform, const char *kind, const char *owner, const char *currency)
{
	const struct system_key *set = system_set(platform, kind, owner, currency);

	for (size_t w = 0; w < SYSTEM_WAYS; w++)
		if (set[w].id[0] != '\0' && same_account(&set[w], platform, kind, owner, currency))
			return &set[w];
	return NULL;
}

/* Caches k: in its own way, else an empty one, else in turn. */
static void
system_put(const struct system_key *k)
{
	static unsigned turn;
	struct system_key *set = system_set(k->platform, k->kind, k->owner, k->currency);
	size_t w;

	for (w = 0; w < SYSTEM_WAYS; w++)
		if (set[w].id[0] == '\0' ||
		    same_account(&set[w], k->platform, k->kind, k->owner, k->currency))
			break;
	if (w == SYSTEM_WAYS)
		w = turn++ % SYSTEM_WAYS;
	set[w] = *k;
}

static void
system_tx_end(int committed)
{
	for (size_t i = 0; committed && i < system_npending; i++)
		system_put(&system_pending[i]);
	system_npending = 0;
}

static void
system_remember(struct db *db, const char *platform, const char *kind, const char *owner,
    const char *currency, const char *id)
{
	struct system_key k;

	if (strlen(platform) >= sizeof(k.platform) || strlen(kind) >= sizeof(k.kind) ||
	    strlen(owner) >= sizeof(k.owner) || strlen(currency) >= sizeof(k.currency))
		return;
	snprintf(k.platform, sizeof(k.platform), "%s", platform);
	snprintf(k.kind, sizeof(k.kind), "%s", kind);
	snprintf(k.owner, sizeof(k.owner), "%s", owner);
	snprintf(k.currency, sizeof(k.currency), "%s", currency);
	snprintf(k.id, sizeof(k.id), "%s", id);
	db_set_tx_hook(system_tx_end);
	if (!db_in_transaction(db))
		system_put(&k);
	else if (system_npending < SYSTEM_PENDING)
		system_pending[system_npending++] = k;
}

/* The platform's account of kind and currency held by owner, made on first use. */
static int
system_account(struct db *db, const char *platform, const char *kind, const char *owner,
    const char *currency, char id[37])
{
	static const char find[] =
	    "SELECT id FROM internal_accounts WHERE platform_id = ? AND kind = ?"
	    " AND owner = ? AND currency = ?";
	static const char create[] =
	    "INSERT IGNORE INTO internal_accounts (id, platform_id, customer_id, owner, kind,"
	    " currency, balance, created_at, updated_at)"
	    " VALUES (?, ?, NULL, ?, ?, ?, 0, UTC_TIMESTAMP(3), UTC_TIMESTAMP(3))";
	const struct system_key *k = system_find(platform, kind, owner, currency);
	char fresh[UUID_LEN + 1];
	struct db_rows r;
	int rc;

	if (k != NULL) {
		snprintf(id, 37, "%s", k->id);
		return DB_OK;
	}
	ids_uuid4(fresh);
	for (int attempt = 0; attempt < 2; attempt++) {
		struct db_val a[] = { DBS(platform), DBS(kind), DBS(owner), DBS(currency) };
		struct db_val c[] = { DBS(fresh), DBS(platform), DBS(owner), DBS(kind),
		    DBS(currency) };

		if ((rc = db_query(db, find, a, NARGS(a), &r)) != DB_OK)
			return rc;
		if (r.nrows > 0) {
			snprintf(id, 37, "%s", db_cell(&r, 0, 0));
			db_rows_free(&r);
			system_remember(db, platform, kind, owner, currency, id);
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
db_account_system(struct db *db, const char *platform, const char *kind,
    const char *currency, char id[37])
{
	return system_account(db, platform, kind, "-", currency, id);
}

int
db_account_transit(struct db *db, const char *platform, const char *currency, int shard,
    char id[37])
{
	char owner[8];

	if (shard < 0 || shard >= LEDGER_TRANSIT_SHARDS)
		return DB_CONFLICT;
	/* Shard 0 is the account of every transaction made before shards. */
	if (shard == 0)
		snprintf(owner, sizeof(owner), "-");
	else
		snprintf(owner, sizeof(owner), "-%d", shard);
	return system_account(db, platform, ACCT_IN_TRANSIT, owner, currency, id);
}
