/*
 * db_wh_keys.c: SQL for the platforms' webhook signing keys.
 *
 * A row holds what derives a key's private half again from the operator's
 * master (the platform id and a random salt, wh_sign.c), the id of that
 * master and the key's public half: never a private key.  is_current = 1
 * marks the key that signs now (a unique key allows one per platform);
 * is_current NULL the previous key, readable by GET
 * /webhooks/signing-key?keyId= until expires_at.  A rotation keeps one
 * previous key only: an older one is deleted at once.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xborder/db.h"
#include "xborder/db_wh_keys.h"
#include "xborder/util.h"

/* Frees what a key row owns (see db_wh_keys.h). */
void
wh_key_row_free(struct wh_key_row *k)
{
	free(k->pub_pem);
	k->pub_pem = NULL;
}

#define KEY_COLS "key_id, salt, master_id, public_key_pem"

/* Row i of r, KEY_COLS of one key, into a struct wh_key_row. */
static void
key_from_row(const struct db_rows *r, size_t i, void *out)
{
	struct wh_key_row *k = out;

	snprintf(k->key_id, sizeof(k->key_id), "%s", db_cell(r, i, 0));
	snprintf(k->salt, sizeof(k->salt), "%s", db_cell(r, i, 1));
	snprintf(k->master_id, sizeof(k->master_id), "%s", db_cell(r, i, 2));
	k->pub_pem = xstrdup(db_cell(r, i, 3));
}

/*
 * Runs sql, which selects KEY_COLS of one key, into *out: DB_OK,
 * DB_NOT_FOUND or a failure.
 */
static int
key_read(struct db *db, const char *sql, const struct db_val *a, size_t n,
    struct wh_key_row *out)
{
	memset(out, 0, sizeof(*out));
	return db_read_one(db, sql, a, n, key_from_row, out);
}

/* The platform's current key: DB_OK or DB_NOT_FOUND (db_wh_keys.h). */
int
db_wh_key_current(struct db *db, const char *platform, struct wh_key_row *out)
{
	static const char sql[] =
	    "SELECT " KEY_COLS " FROM webhook_platform_keys"
	    " WHERE platform_id = ? AND is_current = 1";
	struct db_val a[] = { DBS(platform) };

	return key_read(db, sql, a, NARGS(a), out);
}

/* The platform's first current key, unless it has one: DB_OK (db_wh_keys.h). */
int
db_wh_key_first(struct db *db, const char *platform, const struct wh_key_row *k)
{
	/* IGNORE: the unique (platform_id, is_current) lets one of two racers in. */
	static const char sql[] =
	    "INSERT IGNORE INTO webhook_platform_keys (platform_id, key_id, salt, master_id,"
	    " public_key_pem, is_current, created_at) VALUES (?, ?, ?, ?, ?, 1, UTC_TIMESTAMP(3))";
	struct db_val a[] = { DBS(platform), DBS(k->key_id), DBS(k->salt), DBS(k->master_id),
	    DBS(k->pub_pem) };

	return db_exec(db, sql, a, NARGS(a), NULL);
}

struct rotate_args {
	const char		*platform, *expect;
	const struct wh_key_row	*k;
	int64_t			 keep_s;
	char			*prev_expires;
};

static int
rotate_tx(struct db *db, void *arg)
{
	static const char lock[] =
	    "SELECT key_id, CAST(UTC_TIMESTAMP(3) + INTERVAL ? SECOND AS DATETIME(3))"
	    " FROM webhook_platform_keys WHERE platform_id = ? AND is_current = 1 FOR UPDATE";
	static const char drop_older[] =
	    "DELETE FROM webhook_platform_keys WHERE platform_id = ? AND is_current IS NULL";
	static const char retire[] =
	    "UPDATE webhook_platform_keys SET is_current = NULL, retired_at = UTC_TIMESTAMP(3),"
	    " expires_at = ? WHERE platform_id = ? AND key_id = ?";
	static const char ins[] =
	    "INSERT INTO webhook_platform_keys (platform_id, key_id, salt, master_id,"
	    " public_key_pem, is_current, created_at) VALUES (?, ?, ?, ?, ?, 1, UTC_TIMESTAMP(3))";
	struct rotate_args *a = arg;
	struct db_val la[] = { DBI(a->keep_s), DBS(a->platform) };
	struct db_val pa[] = { DBS(a->platform) };
	struct db_val ia[] = { DBS(a->platform), DBS(a->k->key_id), DBS(a->k->salt),
	    DBS(a->k->master_id), DBS(a->k->pub_pem) };
	struct db_rows r;
	int rc;

	if ((rc = db_query_one(db, lock, la, NARGS(la), &r)) == DB_NOT_FOUND)
		return DB_CONFLICT;
	if (rc != DB_OK)
		return rc;
	if (strcmp(db_cell(&r, 0, 0), a->expect) != 0) {
		db_rows_free(&r);
		return DB_CONFLICT;
	}
	snprintf(a->prev_expires, 32, "%s", db_cell(&r, 0, 1));
	db_rows_free(&r);
	{
		struct db_val ra[] = { DBS(a->prev_expires), DBS(a->platform), DBS(a->expect) };

		if ((rc = db_exec(db, drop_older, pa, NARGS(pa), NULL)) != DB_OK ||
		    (rc = db_exec(db, retire, ra, NARGS(ra), NULL)) != DB_OK)
			return rc;
	}
	return db_exec(db, ins, ia, NARGS(ia), NULL);
}

/*
 * A new current key for the platform if its current one is expect_key_id:
 * DB_OK or DB_CONFLICT (db_wh_keys.h).
 */
int
db_wh_key_rotate(struct db *db, const char *platform, const char *expect_key_id,
    const struct wh_key_row *k, int64_t keep_s, char prev_expires[32])
{
	struct rotate_args a = { platform, expect_key_id, k, keep_s, prev_expires };

	prev_expires[0] = '\0';
	return db_transact(db, rotate_tx, &a);
}

/* One of the platform's kept keys: DB_OK or DB_NOT_FOUND (db_wh_keys.h). */
int
db_wh_key_get(struct db *db, const char *platform, const char *key_id,
    struct wh_key_row *out)
{
	static const char sql[] =
	    "SELECT " KEY_COLS " FROM webhook_platform_keys"
	    " WHERE platform_id = ? AND key_id = ?"
	    " AND (is_current = 1 OR expires_at > UTC_TIMESTAMP(3))";
	struct db_val a[] = { DBS(platform), DBS(key_id) };

	return key_read(db, sql, a, NARGS(a), out);
}

/* The keys of one platform, or of all when platform is NULL (db_wh_keys.h). */
int
db_wh_key_list(struct db *db, const char *platform, struct db_rows *out)
{
	static const char one[] =
	    "SELECT platform_id, key_id, master_id, created_at, retired_at, expires_at,"
	    " is_current IS NULL AND expires_at <= UTC_TIMESTAMP(3)"
	    " FROM webhook_platform_keys WHERE platform_id = ?"
	    " ORDER BY created_at, key_id";
	/* The operator's view of every platform (xborderctl webhook-key-list). */
	static const char all[] =
	    "SELECT platform_id, key_id, master_id, created_at, retired_at, expires_at,"
	    " is_current IS NULL AND expires_at <= UTC_TIMESTAMP(3)"
	    " FROM webhook_platform_keys ORDER BY platform_id, created_at, key_id";
	struct db_val a[] = { DBSN(platform) };

	if (platform == NULL)
		return db_query(db, all, NULL, 0, out);
	return db_query(db, one, a, NARGS(a), out);
}

/* Forgets a previous key: DB_OK, DB_NOT_FOUND or DB_CONFLICT (db_wh_keys.h). */
int
db_wh_key_drop(struct db *db, const char *platform, const char *key_id)
{
	static const char del[] =
	    "DELETE FROM webhook_platform_keys WHERE platform_id = ? AND key_id = ?"
	    " AND is_current IS NULL";
	static const char known[] =
	    "SELECT 1 FROM webhook_platform_keys WHERE platform_id = ? AND key_id = ?";
	struct db_val a[] = { DBS(platform), DBS(key_id) };
	struct db_rows r;
	uint64_t n = 0;
	int rc;

	if ((rc = db_exec(db, del, a, NARGS(a), &n)) != DB_OK || n > 0)
		return rc;
	/* Nothing deleted: either no such key or the current one. */
	if ((rc = db_query_one(db, known, a, NARGS(a), &r)) != DB_OK)
		return rc;
	db_rows_free(&r);
	return DB_CONFLICT;
}
