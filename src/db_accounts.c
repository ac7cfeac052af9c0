/*
 * db_accounts.c: SQL for internal accounts (whose balances only
 * db_ledger_apply changes) and external bank accounts (masked: the store
 * never sees a full account or routing number).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xborder/db.h"
#include "xborder/db_accounts.h"
#include "xborder/db_ledger.h"
#include "xborder/ids.h"
#include "xborder/util.h"

/* An internal account's columns, a the account's alias, c its customer's. */
#define INTERNAL_COLS_OF(a, c) a "id, " a "platform_id, " a "customer_id, " a "kind, " \
	a "currency, " a "balance, " a "created_at, " a "updated_at, " \
	"IFNULL(" c "deleted_at IS NOT NULL, 0)"
#define INTERNAL_COLS INTERNAL_COLS_OF("a.", "c.")
#define INTERNAL_FROM " FROM internal_accounts a LEFT JOIN customers c ON c.id = a.customer_id"

static int lock_customer(struct db *db, const char *platform, const char *customer);

/* The internal account of row i whose columns start at c. */
static void
internal_from_cols(const struct db_rows *r, size_t i, size_t c, struct internal_account *a)
{
	memset(a, 0, sizeof(*a));
	snprintf(a->id, sizeof(a->id), "%s", db_cell(r, i, c));
	snprintf(a->platform_id, sizeof(a->platform_id), "%s", db_cell(r, i, c + 1));
	snprintf(a->customer_id, sizeof(a->customer_id), "%s",
	    db_cell(r, i, c + 2) ? db_cell(r, i, c + 2) : "");
	snprintf(a->kind, sizeof(a->kind), "%s", db_cell(r, i, c + 3));
	snprintf(a->currency, sizeof(a->currency), "%s", db_cell(r, i, c + 4));
	a->balance = db_cell_i64(r, i, c + 5);
	ids_timestamp(db_cell(r, i, c + 6), a->created_at);
	ids_timestamp(db_cell(r, i, c + 7), a->updated_at);
	a->customer_deleted = db_cell_i64(r, i, c + 8) != 0;
}

static void
internal_from_row(const struct db_rows *r, size_t i, void *out)
{
	struct internal_account *a = out;

	internal_from_cols(r, i, 0, a);
}

int
db_internal_list(struct db *db, const char *platform, const char *kind,
    const char *customer, const char *currency, int64_t limit, int64_t offset,
    struct internal_account **out, size_t *n, int64_t *total)
{
#define FILTER " WHERE a.platform_id = ? AND a.kind = ? AND c.deleted_at IS NULL" \
	" AND (? IS NULL OR a.customer_id = ?) AND (? IS NULL OR a.currency = ?)"
	static const char count[] = "SELECT COUNT(*)" INTERNAL_FROM FILTER;
	static const char sql[] = "SELECT " INTERNAL_COLS INTERNAL_FROM FILTER
	    " ORDER BY a.created_at DESC, a.id DESC LIMIT ? OFFSET ?";
#undef FILTER
	struct db_val a[] = { DBS(platform), DBS(kind), DBSN(customer), DBSN(customer),
	    DBSN(currency), DBSN(currency), DBI(limit), DBI(offset) };
	void *items;
	int rc;

	rc = db_read_page(db, count, sql, a, NARGS(a), internal_from_row, sizeof(**out),
	    &items, n, total);
	*out = items;
	return rc;
}

static int
internal_get(struct db *db, const char *platform, const char *id,
    struct internal_account *out, int lock)
{
	static const char sql[] = "SELECT " INTERNAL_COLS INTERNAL_FROM
	    " WHERE a.platform_id = ? AND a.id = ? AND a.kind IN ('CUSTOMER', 'PLATFORM')";
	static const char sql_lock[] = "SELECT " INTERNAL_COLS INTERNAL_FROM
	    " WHERE a.platform_id = ? AND a.id = ? AND a.kind IN ('CUSTOMER', 'PLATFORM')"
	    " FOR UPDATE";
	struct db_val a[] = { DBS(platform), DBS(id) };
	return db_read_one(db, lock ? sql_lock : sql, a, NARGS(a), internal_from_row, out);
}

int
db_internal_get(struct db *db, const char *platform, const char *id,
    struct internal_account *out)
{
	return internal_get(db, platform, id, out, 0);
}

struct fund_args {
	const char		*platform, *id;
	int64_t			 amount;
	struct internal_account	*out;
};

static int
fund_tx(struct db *db, void *arg)
{
	struct fund_args *f = arg;
	struct posting_set s = { .n = 0 };
	char source[UUID_LEN + 1];
	int rc;

	if ((rc = internal_get(db, f->platform, f->id, f->out, 0)) != DB_OK)
		return rc;
	/* The customer row lock orders funding against a concurrent delete. */
	if (f->out->customer_id[0] != '\0' &&
	    (rc = lock_customer(db, f->platform, f->out->customer_id)) != DB_OK)
		return rc;
	if ((rc = db_account_system(db, f->platform, ACCT_SANDBOX, f->out->currency,
	    source)) != DB_OK)
		return rc;
	if (ledger_move(&s, source, f->id, f->out->currency, f->amount) < 0)
		return DB_CONFLICT;
	if ((rc = db_ledger_apply(db, "sandbox_funding", &s, NULL)) != DB_OK)
		return rc;
	return internal_get(db, f->platform, f->id, f->out, 0);
}

int
db_internal_fund(struct db *db, const char *platform, const char *id, int64_t amount,
    struct internal_account *out)
{
	struct fund_args f = { platform, id, amount, out };

	return db_transact(db, fund_tx, &f);
}

int
db_internal_ensure_currency(struct db *db, const char *platform, const char *currency)
{
	static const char missing[] =
	    "SELECT c.id FROM customers c WHERE c.platform_id = ? AND c.deleted_at IS NULL"
	    " AND NOT EXISTS (SELECT 1 FROM internal_accounts a WHERE a.customer_id = c.id"
	    " AND a.kind = 'CUSTOMER' AND a.currency = ?)";
	static const char ins[] =
	    "INSERT INTO internal_accounts (id, platform_id, customer_id, owner, kind,"
	    " currency, balance, created_at, updated_at)"
	    " VALUES (?, ?, ?, ?, 'CUSTOMER', ?, 0, UTC_TIMESTAMP(3), UTC_TIMESTAMP(3))";
	struct db_val a[] = { DBS(platform), DBS(currency) };
	struct db_rows r;
	int rc;

	if ((rc = db_query(db, missing, a, NARGS(a), &r)) != DB_OK)
		return rc;
	for (size_t i = 0; i < r.nrows && rc == DB_OK; i++) {
		char id[UUID_LEN + 1];

		ids_uuid4(id);
		{
			struct db_val v[] = { DBS(id), DBS(platform), DBS(db_cell(&r, i, 0)),
			    DBS(db_cell(&r, i, 0)), DBS(currency) };

			rc = db_exec(db, ins, v, NARGS(v), NULL);
		}
	}
	db_rows_free(&r);
	return rc;
}

#define EXTERNAL_COLS "e.id, e.customer_id, e.currency, e.platform_account_id," \
	" e.account_type, e.account_category, e.bank_name, e.account_last4," \
	" e.routing_last4, e.status, e.created_at, e.updated_at," \
	" e.deleted_at IS NOT NULL, c.deleted_at IS NOT NULL"
#define EXTERNAL_NCOLS 14
#define EXTERNAL_FROM " FROM external_accounts e JOIN customers c ON c.id = e.customer_id"

/* The external account of row i whose columns start at c. */
static void
external_from_cols(const struct db_rows *r, size_t i, size_t c, struct external_account *a)
{
	memset(a, 0, sizeof(*a));
	snprintf(a->id, sizeof(a->id), "%s", db_cell(r, i, c));
	snprintf(a->customer_id, sizeof(a->customer_id), "%s", db_cell(r, i, c + 1));
	snprintf(a->currency, sizeof(a->currency), "%s", db_cell(r, i, c + 2));
	a->platform_account_id = xstrdup(db_cell(r, i, c + 3));
	snprintf(a->account_type, sizeof(a->account_type), "%s", db_cell(r, i, c + 4));
	snprintf(a->account_category, sizeof(a->account_category), "%s", db_cell(r, i, c + 5));
	a->bank_name = xstrdup(db_cell(r, i, c + 6));
	snprintf(a->account_last4, sizeof(a->account_last4), "%s", db_cell(r, i, c + 7));
	snprintf(a->routing_last4, sizeof(a->routing_last4), "%s", db_cell(r, i, c + 8));
	snprintf(a->status, sizeof(a->status), "%s", db_cell(r, i, c + 9));
	ids_timestamp(db_cell(r, i, c + 10), a->created_at);
	ids_timestamp(db_cell(r, i, c + 11), a->updated_at);
	a->deleted = db_cell_i64(r, i, c + 12) != 0;
	a->customer_deleted = db_cell_i64(r, i, c + 13) != 0;
}

static void
external_from_row(const struct db_rows *r, size_t i, void *out)
{
	struct external_account *a = out;

	external_from_cols(r, i, 0, a);
}

void
external_account_free(struct external_account *a)
{
	free(a->platform_account_id);
	free(a->bank_name);
	memset(a, 0, sizeof(*a));
}

void
external_account_list_free(struct external_account *a, size_t n)
{
	for (size_t i = 0; i < n; i++)
		external_account_free(&a[i]);
	free(a);
}

/* Locks customer of platform: DB_OK, DB_NOT_FOUND or DB_GONE. */
static int
lock_customer(struct db *db, const char *platform, const char *customer)
{
	return db_lock_live(db, "SELECT deleted_at IS NOT NULL FROM customers"
	    " WHERE platform_id = ? AND id = ? FOR UPDATE", platform, customer);
}

static int
external_get(struct db *db, const char *platform, const char *id,
    struct external_account *out)
{
	static const char sql[] = "SELECT " EXTERNAL_COLS EXTERNAL_FROM
	    " WHERE e.platform_id = ? AND e.id = ?";
	struct db_val a[] = { DBS(platform), DBS(id) };
	return db_read_one(db, sql, a, NARGS(a), external_from_row, out);
}

struct ext_create_args {
	const char			*platform;
	const struct external_new	*n;
	char				 id[37];
};

static int
ext_create_tx(struct db *db, void *arg)
{
	static const char ins[] =
	    "INSERT INTO external_accounts (id, platform_id, customer_id, currency,"
	    " platform_account_id, account_type, account_category, bank_name,"
	    " account_last4, routing_last4, fingerprint, status, created_at, updated_at)"
	    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'ACTIVE', UTC_TIMESTAMP(3),"
	    " UTC_TIMESTAMP(3))";
	struct ext_create_args *c = arg;
	const struct external_new *n = c->n;
	struct db_val a[] = { DBS(c->id), DBS(c->platform), DBS(n->customer_id),
	    DBS(n->currency), DBS(n->platform_account_id), DBS(n->account_type),
	    DBS(n->account_category), DBS(n->bank_name), DBS(n->account_last4),
	    DBS(n->routing_last4), DBS(n->fingerprint) };
	int rc;

	if ((rc = lock_customer(db, c->platform, n->customer_id)) != DB_OK)
		return rc;
	return db_exec(db, ins, a, NARGS(a), NULL);
}

int
db_external_create(struct db *db, const char *platform, const struct external_new *n,
    struct external_account *out)
{
	struct ext_create_args c;
	int rc;

	c.platform = platform;
	c.n = n;
	ids_uuid4(c.id);
	if ((rc = db_transact(db, ext_create_tx, &c)) != DB_OK)
		return rc;
	rc = external_get(db, platform, c.id, out);
	return rc == DB_OK ? DB_OK : DB_ERR;
}

/*
 * What db_external_get() answers for an account read with rc: a deleted
 * account is not found (and freed), one whose customer is deleted DB_GONE.
 */
static int
external_state(int rc, struct external_account *out)
{
	if (rc == DB_OK && out->deleted) {
		external_account_free(out);
		return DB_NOT_FOUND;
	}
	if (rc == DB_OK && out->customer_deleted)
		return DB_GONE;
	return rc;
}

int
db_external_get(struct db *db, const char *platform, const char *id,
    struct external_account *out)
{
	return external_state(external_get(db, platform, id, out), out);
}

int
db_transfer_accounts(struct db *db, const char *platform, const char *ext_id,
    const char *int_id, struct external_account *ea, struct internal_account *ia,
    int *int_rc)
{
	/* One row always: each account's columns are NULL when it is not found. */
	static const char sql[] =
	    "SELECT " EXTERNAL_COLS ", " INTERNAL_COLS_OF("a.", "ac.") " FROM (SELECT 1) one"
	    " LEFT JOIN (external_accounts e JOIN customers c ON c.id = e.customer_id)"
	    " ON e.platform_id = ? AND e.id = ?"
	    " LEFT JOIN (internal_accounts a LEFT JOIN customers ac ON ac.id = a.customer_id)"
	    " ON a.platform_id = ? AND a.id = ? AND a.kind IN ('CUSTOMER', 'PLATFORM')";
	struct db_val a[] = { DBS(platform), DBS(ext_id), DBS(platform), DBS(int_id) };
	struct db_rows r;
	int rc;

	*int_rc = DB_NOT_FOUND;
	if ((rc = db_query_one(db, sql, a, NARGS(a), &r)) != DB_OK)
		return rc == DB_NOT_FOUND ? DB_ERR : rc;
	rc = DB_NOT_FOUND;
	if (db_cell(&r, 0, 0) != NULL) {
		external_from_cols(&r, 0, 0, ea);
		rc = DB_OK;
	}
	if (db_cell(&r, 0, EXTERNAL_NCOLS) != NULL) {
		internal_from_cols(&r, 0, EXTERNAL_NCOLS, ia);
		*int_rc = DB_OK;
	}
	db_rows_free(&r);
	return external_state(rc, ea);
}

int
db_external_list(struct db *db, const char *platform, const char *customer,
    const char *currency, int64_t limit, int64_t offset,
    struct external_account **out, size_t *n, int64_t *total)
{
#define FILTER " WHERE e.platform_id = ? AND e.deleted_at IS NULL AND c.deleted_at IS NULL" \
	" AND (? IS NULL OR e.customer_id = ?) AND (? IS NULL OR e.currency = ?)"
	static const char count[] = "SELECT COUNT(*)" EXTERNAL_FROM FILTER;
	static const char sql[] = "SELECT " EXTERNAL_COLS EXTERNAL_FROM FILTER
	    " ORDER BY e.created_at DESC, e.id DESC LIMIT ? OFFSET ?";
#undef FILTER
	struct db_val a[] = { DBS(platform), DBSN(customer), DBSN(customer),
	    DBSN(currency), DBSN(currency), DBI(limit), DBI(offset) };
	void *items;
	int rc;

	rc = db_read_page(db, count, sql, a, NARGS(a), external_from_row, sizeof(**out),
	    &items, n, total);
	*out = items;
	return rc;
}

struct ext_delete_args {
	const char	*platform, *id, *customer;
};

static int
ext_delete_tx(struct db *db, void *arg)
{
	static const char del[] =
	    "UPDATE external_accounts SET deleted_at = UTC_TIMESTAMP(3),"
	    " updated_at = UTC_TIMESTAMP(3)"
	    " WHERE platform_id = ? AND id = ? AND customer_id = ? AND deleted_at IS NULL";
	struct ext_delete_args *d = arg;
	struct db_val a[] = { DBS(d->platform), DBS(d->id), DBS(d->customer) };
	uint64_t changed = 0;
	int rc;

	if ((rc = lock_customer(db, d->platform, d->customer)) != DB_OK)
		return rc;
	if ((rc = db_exec(db, del, a, NARGS(a), &changed)) != DB_OK)
		return rc;
	return changed == 1 ? DB_OK : DB_NOT_FOUND;
}

int
db_external_lock(struct db *db, const char *platform, const char *id)
{
	/* A locking read: the latest committed row, whatever the snapshot. */
	return db_lock_live(db, "SELECT deleted_at IS NOT NULL FROM external_accounts"
	    " WHERE platform_id = ? AND id = ? FOR UPDATE", platform, id);
}

int
db_external_delete(struct db *db, const char *platform, const char *id,
    const char *customer)
{
	struct ext_delete_args d = { platform, id, customer };

	return db_transact(db, ext_delete_tx, &d);
}

int
db_customer_account(struct db *db, const char *platform, const char *customer,
    const char *currency, char id[37])
{
	static const char sql[] =
	    "SELECT id FROM internal_accounts WHERE platform_id = ? AND kind = 'CUSTOMER'"
	    " AND owner = ? AND currency = ?";
	struct db_val a[] = { DBS(platform), DBS(customer), DBS(currency) };
	struct db_rows r;
	int rc;

	if ((rc = db_query_one(db, sql, a, NARGS(a), &r)) != DB_OK)
		return rc == DB_NOT_FOUND ? DB_ERR : rc;
	snprintf(id, 37, "%s", db_cell(&r, 0, 0));
	db_rows_free(&r);
	return DB_OK;
}
