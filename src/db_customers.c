/*
 * db_customers.c: SQL for customers.  A customer is soft-deleted: the row
 * stays (its ledger history refers to it) but leaves every list, and its
 * platformCustomerId and PPV name become free again (the unique keys are on
 * generated columns that are NULL once deleted_at is set).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/rand.h>

#include "xborder/db.h"
#include "xborder/db_customers.h"
#include "xborder/db_ledger.h"
#include "xborder/db_transactions.h"
#include "xborder/fault.h"
#include "xborder/ids.h"
#include "xborder/util.h"

#define CUSTOMER_COLS "c.id, c.platform_id, c.platform_customer_id, c.customer_type," \
	" c.full_name, c.kyc_status, c.ppv_name, p.ppv_domain, c.created_at," \
	" c.updated_at, c.deleted_at IS NOT NULL"
#define CUSTOMER_FROM " FROM customers c JOIN platform_configs p ON p.platform_id = c.platform_id"

static void
customer_from_row(const struct db_rows *r, size_t i, void *out)
{
	struct customer *c = out;

	memset(c, 0, sizeof(*c));
	snprintf(c->id, sizeof(c->id), "%s", db_cell(r, i, 0));
	snprintf(c->platform_id, sizeof(c->platform_id), "%s", db_cell(r, i, 1));
	c->platform_customer_id = xstrdup(db_cell(r, i, 2));
	snprintf(c->type, sizeof(c->type), "%s", db_cell(r, i, 3));
	c->full_name = xstrdup(db_cell(r, i, 4));
	snprintf(c->kyc, sizeof(c->kyc), "%s", db_cell(r, i, 5));
	c->ppv_name = xstrdup(db_cell(r, i, 6));
	c->ppv_domain = xstrdup(db_cell(r, i, 7));
	ids_timestamp(db_cell(r, i, 8), c->created_at);
	ids_timestamp(db_cell(r, i, 9), c->updated_at);
	c->deleted = db_cell_i64(r, i, 10) != 0;
}

void
customer_free(struct customer *c)
{
	free(c->platform_customer_id);
	free(c->full_name);
	free(c->ppv_name);
	free(c->ppv_domain);
	memset(c, 0, sizeof(*c));
}

void
customer_list_free(struct customer *c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		customer_free(&c[i]);
	free(c);
}

static enum customer_conflict
which_conflict(struct db *db)
{
	return strstr(db_error(db), "uq_customers_ppv") != NULL ? CONFLICT_PPV : CONFLICT_PCID;
}

/* A random PPV name: "p" and 15 lowercase letters or digits. */
static void
random_ppv_name(char out[17])
{
	static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	unsigned char b[15];

	if (RAND_bytes(b, sizeof(b)) != 1)
		abort();
	out[0] = 'p';
	for (size_t i = 0; i < sizeof(b); i++)
		out[i + 1] = alphabet[b[i] % 36];
	out[16] = '\0';
}

static int
get_locked(struct db *db, const char *platform, const char *id, struct customer *out,
    int lock)
{
	static const char sql[] =
	    "SELECT " CUSTOMER_COLS CUSTOMER_FROM " WHERE c.platform_id = ? AND c.id = ?";
	static const char sql_lock[] =
	    "SELECT " CUSTOMER_COLS CUSTOMER_FROM " WHERE c.platform_id = ? AND c.id = ?"
	    " FOR UPDATE";
	struct db_val a[] = { DBS(platform), DBS(id) };
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = db_read_one(db, lock ? sql_lock : sql, a, NARGS(a), customer_from_row,
	    out)) != DB_OK)
		return rc;
	return out->deleted ? DB_GONE : DB_OK;
}

int
db_customer_get(struct db *db, const char *platform, const char *id, struct customer *out)
{
	return get_locked(db, platform, id, out, 0);
}

int
db_customer_lock(struct db *db, const char *platform, const char *id, char **pcid)
{
	static const char sql[] =
	    "SELECT deleted_at IS NOT NULL, platform_customer_id FROM customers"
	    " WHERE platform_id = ? AND id = ? FOR UPDATE";
	struct db_val a[] = { DBS(platform), DBS(id) };
	struct db_rows r;
	int rc;

	if (pcid != NULL)
		*pcid = NULL;
	if ((rc = db_query_one(db, sql, a, NARGS(a), &r)) != DB_OK)
		return rc;
	rc = db_cell_i64(&r, 0, 0) ? DB_GONE : DB_OK;
	if (rc == DB_OK && pcid != NULL)
		*pcid = xstrdup(db_cell(&r, 0, 1));
	db_rows_free(&r);
	return rc;
}

struct create_args {
	const char			*platform;
	const struct customer_fields	*f;
	char				 id[37];
	char				 ppv[65];
};

static int
create_tx(struct db *db, void *arg)
{
	static const char ins[] =
	    "INSERT INTO customers (id, platform_id, platform_customer_id, customer_type,"
	    " full_name, kyc_status, ppv_name, created_at, updated_at)"
	    " VALUES (?, ?, ?, ?, ?, ?, ?, UTC_TIMESTAMP(3), UTC_TIMESTAMP(3))";
	static const char accounts[] =
	    "SELECT currency_code FROM supported_currencies WHERE platform_id = ?";
	static const char ins_account[] =
	    "INSERT INTO internal_accounts (id, platform_id, customer_id, owner, kind,"
	    " currency, balance, created_at, updated_at)"
	    " VALUES (?, ?, ?, ?, 'CUSTOMER', ?, 0, UTC_TIMESTAMP(3), UTC_TIMESTAMP(3))";
	struct create_args *c = arg;
	struct db_val a[] = { DBS(c->id), DBS(c->platform), DBS(c->f->platform_customer_id),
	    DBS(c->f->type), DBS(c->f->full_name), DBS(c->f->kyc), DBS(c->ppv) };
	struct db_val p[] = { DBS(c->platform) };
	struct db_rows r;
	int rc;

	if ((rc = db_exec(db, ins, a, NARGS(a), NULL)) != DB_OK)
		return rc;
	if ((rc = db_query(db, accounts, p, NARGS(p), &r)) != DB_OK)
		return rc;
	for (size_t i = 0; i < r.nrows && rc == DB_OK; i++) {
		char aid[UUID_LEN + 1];

		ids_uuid4(aid);
		{
			struct db_val v[] = { DBS(aid), DBS(c->platform), DBS(c->id),
			    DBS(c->id), DBS(db_cell(&r, i, 0)) };

			rc = db_exec(db, ins_account, v, NARGS(v), NULL);
		}
	}
	db_rows_free(&r);
	return rc;
}

int
db_customer_create(struct db *db, const char *platform, const struct customer_fields *f,
    struct customer *out, enum customer_conflict *conflict)
{
	struct create_args c;
	int rc = DB_ERR;

	*conflict = CONFLICT_NONE;
	c.platform = platform;
	c.f = f;
	/* A random name may collide; a chosen one is the caller's to fix. */
	for (int attempt = 0; attempt < 5; attempt++) {
		ids_uuid4(c.id);
		if (f->ppv_name != NULL)
			snprintf(c.ppv, sizeof(c.ppv), "%s", f->ppv_name);
		else
			random_ppv_name(c.ppv);
		rc = db_transact(db, create_tx, &c);
		if (rc != DB_DUPLICATE)
			break;
		*conflict = which_conflict(db);
		if (*conflict != CONFLICT_PPV || f->ppv_name != NULL)
			return rc;
	}
	if (rc != DB_OK)
		return rc;
	*conflict = CONFLICT_NONE;
	rc = get_locked(db, platform, c.id, out, 0);
	return rc == DB_OK ? DB_OK : DB_ERR;
}

struct update_args {
	const char			*platform, *id;
	const struct customer_fields	*f;
};

static int
update_tx(struct db *db, void *arg)
{
	static const char upd[] =
	    "UPDATE customers SET"
	    " platform_customer_id = COALESCE(?, platform_customer_id),"
	    " customer_type = COALESCE(?, customer_type),"
	    " full_name = COALESCE(?, full_name),"
	    " kyc_status = COALESCE(?, kyc_status),"
	    " ppv_name = COALESCE(?, ppv_name),"
	    " updated_at = UTC_TIMESTAMP(3)"
	    " WHERE platform_id = ? AND id = ?";
	struct update_args *u = arg;
	struct db_val a[] = { DBSN(u->f->platform_customer_id), DBSN(u->f->type),
	    DBSN(u->f->full_name), DBSN(u->f->kyc), DBSN(u->f->ppv_name),
	    DBS(u->platform), DBS(u->id) };
	struct customer c;
	int rc;

	if ((rc = get_locked(db, u->platform, u->id, &c, 1)) != DB_OK) {
		customer_free(&c);
		return rc;
	}
	customer_free(&c);
	return db_exec(db, upd, a, NARGS(a), NULL);
}

int
db_customer_update(struct db *db, const char *platform, const char *id,
    const struct customer_fields *f, struct customer *out, enum customer_conflict *conflict)
{
	struct update_args u = { platform, id, f };
	int rc;

	memset(out, 0, sizeof(*out));
	*conflict = CONFLICT_NONE;
	rc = db_transact(db, update_tx, &u);
	if (rc == DB_DUPLICATE)
		*conflict = which_conflict(db);
	if (rc != DB_OK)
		return rc;
	return get_locked(db, platform, id, out, 0);
}

struct delete_args {
	const char	*platform, *id;
};

/*
 * Under the customer row lock, which every settlement takes first too, no
 * credit can land between the balance check and the count of unfinished
 * transactions below.
 */
static int
delete_tx(struct db *db, void *arg)
{
	static const char balances[] =
	    "SELECT COUNT(*) FROM internal_accounts WHERE customer_id = ? AND balance <> 0"
	    " FOR UPDATE";
	static const char del[] =
	    "UPDATE customers SET deleted_at = UTC_TIMESTAMP(3), updated_at = UTC_TIMESTAMP(3)"
	    " WHERE platform_id = ? AND id = ?";
	struct delete_args *d = arg;
	struct db_val a[] = { DBS(d->id) };
	struct db_val b[] = { DBS(d->platform), DBS(d->id) };
	struct customer c;
	struct db_rows r;
	int rc, held;

	rc = get_locked(db, d->platform, d->id, &c, 1);
	customer_free(&c);
	if (rc != DB_OK)
		return rc;
	if ((rc = db_query(db, balances, a, NARGS(a), &r)) != DB_OK)
		return rc;
	held = db_cell_i64(&r, 0, 0) > 0;
	db_rows_free(&r);
	if (held)
		return DB_CONFLICT;
	/* Tests widen the window in which a settlement could slip in here. */
	fault_point("pause-delete-customer");
	{
		int64_t open = 0;

		if ((rc = db_txn_open_count(db, d->id, &open)) != DB_OK)
			return rc;
		if (open > 0)
			return DB_CONFLICT;
	}
	return db_exec(db, del, b, NARGS(b), NULL);
}

int
db_customer_delete(struct db *db, const char *platform, const char *id)
{
	struct delete_args d = { platform, id };

	return db_transact(db, delete_tx, &d);
}

int
db_customer_list(struct db *db, const char *platform, const struct customer_filter *f,
    int64_t limit, int64_t offset, struct customer **out, size_t *n, int64_t *total)
{
#define FILTER " WHERE c.platform_id = ? AND c.deleted_at IS NULL" \
	" AND (? IS NULL OR c.customer_type = ?) AND (? IS NULL OR c.kyc_status = ?)" \
	" AND (? IS NULL OR c.platform_customer_id = ?)"
	static const char count[] = "SELECT COUNT(*) FROM customers c" FILTER;
	static const char sql[] = "SELECT " CUSTOMER_COLS CUSTOMER_FROM FILTER
	    " ORDER BY c.created_at DESC, c.id DESC LIMIT ? OFFSET ?";
#undef FILTER
	struct db_val a[] = { DBS(platform), DBSN(f->type), DBSN(f->type), DBSN(f->kyc),
	    DBSN(f->kyc), DBSN(f->platform_customer_id), DBSN(f->platform_customer_id),
	    DBI(limit), DBI(offset) };
	void *items;
	int rc;

	rc = db_read_page(db, count, sql, a, NARGS(a), customer_from_row, sizeof(**out),
	    &items, n, total);
	*out = items;
	return rc;
}

int
db_customer_by_ppv(struct db *db, const char *name, const char *domain,
    struct customer *out)
{
	static const char sql[] =
	    "SELECT " CUSTOMER_COLS CUSTOMER_FROM
	    " WHERE (p.ppv_domain = ? OR p.uma_domain = ?) AND c.live_ppv_name = ?"
	    " ORDER BY p.ppv_domain = ? DESC LIMIT 1";
	struct db_val a[] = { DBS(domain), DBS(domain), DBS(name), DBS(domain) };
	return db_read_one(db, sql, a, NARGS(a), customer_from_row, out);
}
