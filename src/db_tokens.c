/*
 * db_tokens.c: SQL for API tokens.  Every statement but the
 * authentication lookup is scoped by platform_id; the lookup is what
 * discovers the platform from the credentials.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xborder/auth_secret.h"
#include "xborder/db.h"
#include "xborder/db_tokens.h"
#include "xborder/ids.h"
#include "xborder/util.h"

#define TOKEN_COLS "id, name, perm_view, perm_manage, issuer_type, " \
	"created_at, updated_at, revoked_at"

static void
token_from_row(const struct db_rows *r, size_t i, void *out)
{
	struct token *t = out;

	memset(t, 0, sizeof(*t));
	snprintf(t->id, sizeof(t->id), "%s", db_cell(r, i, 0));
	t->name = xstrdup(db_cell(r, i, 1) ? db_cell(r, i, 1) : "");
	t->view = db_cell_i64(r, i, 2) != 0;
	t->manage = db_cell_i64(r, i, 3) != 0;
	t->operator_issued = strcmp(db_cell(r, i, 4), "operator_issued") == 0;
	ids_timestamp(db_cell(r, i, 5), t->created_at);
	ids_timestamp(db_cell(r, i, 6), t->updated_at);
	if (db_cell(r, i, 7) != NULL)
		ids_timestamp(db_cell(r, i, 7), t->revoked_at);
}

/*
 * The failures (wrong secrets) and the checks in flight of a window that
 * started since_us ago, into out.
 */
static void
failures_in_window(int64_t failures, int64_t pending, int have_since, int64_t since_us,
    struct token_auth *out)
{
	const int64_t window_us = (int64_t)AUTH_FAILURE_WINDOW * 1000000;

	out->failures = 0;
	out->pending = 0;
	out->retry_after = 0;
	/* Failures count while their window (from the first) is open. */
	if (have_since && since_us < window_us) {
		out->failures = failures - pending;
		out->pending = pending;
		out->retry_after = (window_us - since_us + 999999) / 1000000;
		if (out->retry_after < 1)
			out->retry_after = 1;
	}
}

void
token_auth_from_row(const struct db_rows *r, struct token_auth *out)
{
	memset(out, 0, sizeof(*out));
	snprintf(out->platform_id, sizeof(out->platform_id), "%s", db_cell(r, 0, 0));
	out->secret_hash = xstrdup(db_cell(r, 0, 1));
	out->view = db_cell_i64(r, 0, 2) != 0;
	out->manage = db_cell_i64(r, 0, 3) != 0;
	out->revoked = db_cell_i64(r, 0, 4) != 0;
	out->failures_open = db_cell_i64(r, 0, 5) != 0;
	out->config_version = db_cell_i64(r, 0, 6);
}

int
db_token_auth_failures(struct db *db, const char *id, const char *addr,
    struct token_auth *out)
{
	static const char sql[] =
	    "SELECT failures, pending, TIMESTAMPDIFF(MICROSECOND, since, UTC_TIMESTAMP(3))"
	    " FROM auth_failures WHERE token_id = ? AND addr = ?";
	struct db_val a[] = { DBS(id), DBS(addr) };
	struct db_rows r;
	int rc;

	if ((rc = db_query(db, sql, a, NARGS(a), &r)) != DB_OK) {
		token_auth_free(out);
		return rc;
	}
	failures_in_window(r.nrows > 0 ? db_cell_i64(&r, 0, 0) : 0,
	    r.nrows > 0 ? db_cell_i64(&r, 0, 1) : 0,
	    r.nrows > 0 && db_cell(&r, 0, 2) != NULL, r.nrows > 0 ? db_cell_i64(&r, 0, 2) : 0, out);
	db_rows_free(&r);
	return DB_OK;
}

int
db_token_auth_get(struct db *db, const char *id, struct token_auth *out)
{
	/*
	 * Run for every request: kept cheap for the server to plan and run
	 * (one table, one row).
	 */
	static const char sql[] =
	    "SELECT " TOKEN_AUTH_COLS TOKEN_AUTH_FROM " WHERE t.id = ?";
	struct db_val a[] = { DBS(id) };
	struct db_rows r;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = db_query_one(db, sql, a, NARGS(a), &r)) != DB_OK)
		return rc;
	token_auth_from_row(&r, out);
	db_rows_free(&r);
	return DB_OK;
}

struct charge_args {
	const char	*id, *addr;
	int		 max, charged;
};

static int
charge_tx(struct db *db, void *arg)
{
	/*
	 * One statement counts: the row of (token, address) is made with one
	 * check in flight, or counts one more (a new window when the old one
	 * closed, whose checks in flight are forgotten with it), unless max
	 * are counted within the window already, failures and checks in
	 * flight together; then nothing changes and no row is affected.
	 * Assignments run left to right: `pending` and `failures` read the
	 * old count and the old start.
	 */
	static const char sql[] =
	    "INSERT INTO auth_failures (token_id, addr, failures, pending, since)"
	    " VALUES (?, ?, 1, 1, UTC_TIMESTAMP(3))"
	    " ON DUPLICATE KEY UPDATE"
	    " pending = IF(since > UTC_TIMESTAMP(3) - INTERVAL 60 SECOND,"
	    "   IF(failures >= ?, pending, pending + 1), 1),"
	    " failures = IF(since > UTC_TIMESTAMP(3) - INTERVAL 60 SECOND,"
	    "   IF(failures >= ?, failures, failures + 1), 1),"
	    " since = IF(since > UTC_TIMESTAMP(3) - INTERVAL 60 SECOND, since, UTC_TIMESTAMP(3))";
	struct charge_args *x = arg;
	struct db_val a[] = { DBS(x->id), DBS(x->addr), DBI(x->max), DBI(x->max) };

	/* Inserted or updated: counted; the row as it was: full. */
	return db_exec_changed(db, sql, a, NARGS(a), &x->charged);
}

/* In a transaction of its own: a deadlock or conflict runs it again. */
int
db_token_auth_charge(struct db *db, const char *id, const char *addr, int max, int *charged)
{
	struct charge_args x = { id, addr, max, 0 };
	int rc = db_transact(db, charge_tx, &x);

	*charged = x.charged;
	return rc;
}

int
db_token_auth_refund(struct db *db, const char *id, const char *addr)
{
	static const char sql[] =
	    "UPDATE auth_failures SET failures = failures - 1, pending = pending - 1"
	    " WHERE token_id = ? AND addr = ? AND pending > 0";
	struct db_val a[] = { DBS(id), DBS(addr) };

	return db_exec(db, sql, a, NARGS(a), NULL);
}

struct failed_args {
	const char	*id, *addr;
	int		 max;
};

static int
failed_tx(struct db *db, void *arg)
{
	/* The check ends; its count stays, as a failure. */
	static const char done[] =
	    "UPDATE auth_failures SET pending = pending - 1"
	    " WHERE token_id = ? AND addr = ? AND pending > 0";
	/*
	 * Failures at max (their row locked by the statement above) make the
	 * token's failures_until the end of their window or later, committed
	 * with them: a request that reads the token without it sees no
	 * address throttled.
	 */
	static const char until[] =
	    "UPDATE tokens SET failures_until = GREATEST(COALESCE(failures_until,"
	    " UTC_TIMESTAMP(3)), UTC_TIMESTAMP(3) + INTERVAL 60 SECOND)"
	    " WHERE id = ? AND EXISTS (SELECT 1 FROM auth_failures"
	    " WHERE token_id = ? AND addr = ? AND failures - pending >= ?)";
	struct failed_args *x = arg;
	struct db_val a[] = { DBS(x->id), DBS(x->addr) };
	struct db_val u[] = { DBS(x->id), DBS(x->id), DBS(x->addr), DBI(x->max) };
	int rc;

	if ((rc = db_exec(db, done, a, NARGS(a), NULL)) != DB_OK)
		return rc;
	return db_exec(db, until, u, NARGS(u), NULL);
}

int
db_token_auth_failed(struct db *db, const char *id, const char *addr, int max)
{
	struct failed_args x = { id, addr, max };

	return db_transact(db, failed_tx, &x);
}

int
db_auth_failures_purge(struct db *db, uint64_t *n)
{
	/* A row whose window closed an hour ago counts nothing any more. */
	static const char sql[] =
	    "DELETE FROM auth_failures WHERE since < UTC_TIMESTAMP(3) - INTERVAL 1 HOUR"
	    " LIMIT 1000";
	uint64_t k = 0;
	int rc;

	rc = db_exec(db, sql, NULL, 0, &k);
	*n += k;
	return rc;
}

void
token_auth_free(struct token_auth *t)
{
	free(t->secret_hash);
	t->secret_hash = NULL;
}

int
db_token_get(struct db *db, const char *platform, const char *id, struct token *out)
{
	static const char sql[] =
	    "SELECT " TOKEN_COLS " FROM tokens WHERE platform_id = ? AND id = ?";
	struct db_val a[] = { DBS(platform), DBS(id) };
	return db_read_one(db, sql, a, NARGS(a), token_from_row, out);
}

struct insert_args {
	const char	*platform, *id, *name;
	int		 view, manage, operator_issued;
	const char	*hash;
	struct token	*out;
};

static int
insert_tx(struct db *db, void *arg)
{
	/*
	 * The configuration's version, under a shared lock of its row: a
	 * change of the configuration (which locks the row for update) either
	 * committed before, and the version read is its own, or waits for
	 * this token and then sets the new version on it too.
	 */
	static const char version[] =
	    "SELECT version FROM platform_configs WHERE platform_id = ? LOCK IN SHARE MODE";
	static const char sql[] =
	    "INSERT INTO tokens (id, platform_id, name, secret_hash, perm_view,"
	    " perm_manage, issuer_type, config_version, created_at, updated_at)"
	    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, UTC_TIMESTAMP(3), UTC_TIMESTAMP(3))";
	struct insert_args *x = arg;
	struct db_val v[] = { DBS(x->platform) };
	struct db_rows r;
	int64_t cv;
	int rc;

	if ((rc = db_query(db, version, v, NARGS(v), &r)) != DB_OK)
		return rc;
	cv = r.nrows > 0 ? db_cell_i64(&r, 0, 0) : 0;
	db_rows_free(&r);
	{
		struct db_val a[] = { DBS(x->id), DBS(x->platform), DBS(x->name), DBS(x->hash),
		    DBI(x->view), DBI(x->manage),
		    DBS(x->operator_issued ? "operator_issued" : "platform_self_service"),
		    DBI(cv) };

		if ((rc = db_exec(db, sql, a, NARGS(a), NULL)) != DB_OK)
			return rc;
	}
	rc = db_token_get(db, x->platform, x->id, x->out);
	return rc == DB_NOT_FOUND ? DB_ERR : rc;
}

int
db_token_insert(struct db *db, const char *platform, const char *id,
    const char *name, int view, int manage, int operator_issued,
    const char *hash, struct token *out)
{
	struct insert_args x = { platform, id, name, view, manage, operator_issued, hash, out };

	/* Inside the caller's transaction (a new platform's): part of it. */
	if (db_in_transaction(db))
		return insert_tx(db, &x);
	return db_transact(db, insert_tx, &x);
}

int
db_token_list(struct db *db, const char *platform, int64_t limit,
    int64_t offset, struct token **out, size_t *n, int64_t *total)
{
	static const char sql[] =
	    "SELECT " TOKEN_COLS " FROM tokens WHERE platform_id = ?"
	    " ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?";
	static const char count[] =
	    "SELECT COUNT(*) FROM tokens WHERE platform_id = ?";
	struct db_val a[] = { DBS(platform), DBI(limit), DBI(offset) };
	void *items;
	int rc;

	rc = db_read_page(db, count, sql, a, NARGS(a), token_from_row, sizeof(**out),
	    &items, n, total);
	*out = items;
	return rc;
}

int
db_token_revoke(struct db *db, const char *platform, const char *id, struct token *out)
{
	static const char sql[] =
	    "UPDATE tokens SET revoked_at = UTC_TIMESTAMP(3), updated_at = UTC_TIMESTAMP(3)"
	    " WHERE platform_id = ? AND id = ? AND revoked_at IS NULL"
	    " AND issuer_type = 'platform_self_service'";
	struct db_val a[] = { DBS(platform), DBS(id) };
	int rc;

	if ((rc = db_exec(db, sql, a, NARGS(a), NULL)) != DB_OK)
		return rc;
	return db_token_get(db, platform, id, out);
}

int
db_token_rotate_root(struct db *db, const char *platform, const char *hash,
    char id[37])
{
	/*
	 * Scoped by platform and issuer both times: only the operator-issued
	 * token of this platform is ever read or changed here.
	 */
	static const char find[] =
	    "SELECT id FROM tokens WHERE platform_id = ?"
	    " AND issuer_type = 'operator_issued'";
	static const char set[] =
	    "UPDATE tokens SET secret_hash = ?, updated_at = UTC_TIMESTAMP(3)"
	    " WHERE platform_id = ? AND id = ? AND issuer_type = 'operator_issued'";
	struct db_val fa[] = { DBS(platform) };
	struct db_rows r;
	uint64_t n = 0;
	int rc;

	id[0] = '\0';
	if ((rc = db_query_one(db, find, fa, NARGS(fa), &r)) != DB_OK)
		return rc;
	snprintf(id, 37, "%s", db_cell(&r, 0, 0));
	db_rows_free(&r);
	{
		struct db_val sa[] = { DBS(hash), DBS(platform), DBS(id) };

		if ((rc = db_exec(db, set, sa, NARGS(sa), &n)) != DB_OK)
			return rc;
	}
	/* A new argon2 hash always differs (new salt): one row changed. */
	return n == 1 ? DB_OK : DB_NOT_FOUND;
}

void
token_free(struct token *t)
{
	free(t->name);
	t->name = NULL;
}

void
token_list_free(struct token *t, size_t n)
{
	for (size_t i = 0; i < n; i++)
		token_free(&t[i]);
	free(t);
}
