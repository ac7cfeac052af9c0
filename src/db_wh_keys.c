/*
 * db_wh_keys.c: SQL for the public halves of the webhook signing keys.
 * The private key lives only in the key file; these rows let GET
 * /webhooks/signing-key?keyId= serve a retired key, so receivers can still
 * check deliveries signed just before a rotation, until the operator
 * drops it.  retired_at NULL marks the current key.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "xborder/db.h"
#include "xborder/db_wh_keys.h"
#include "xborder/util.h"

struct record_args {
	const char	*key_id, *pub_pem;
	int		 current;
};

static int
record_tx(struct db *db, void *arg)
{
	/*
	 * A key recorded as not current is one being retired (the previous
	 * key, at a rotation), so it starts retired.
	 */
	static const char ins[] =
	    "INSERT INTO webhook_signing_keys (key_id, public_key_pem, created_at,"
	    " retired_at) VALUES (?, ?, UTC_TIMESTAMP(3),"
	    " IF(? = 1, NULL, UTC_TIMESTAMP(3)))"
	    " ON DUPLICATE KEY UPDATE key_id = key_id";
	static const char retire_others[] =
	    "UPDATE webhook_signing_keys SET retired_at = UTC_TIMESTAMP(3)"
	    " WHERE key_id <> ? AND retired_at IS NULL";
	static const char revive[] =
	    "UPDATE webhook_signing_keys SET retired_at = NULL WHERE key_id = ?";
	struct record_args *a = arg;
	struct db_val in[] = { DBS(a->key_id), DBS(a->pub_pem), DBI(a->current != 0) };
	struct db_val id[] = { DBS(a->key_id) };
	int rc;

	if ((rc = db_exec(db, ins, in, NARGS(in), NULL)) != DB_OK || !a->current)
		return rc;
	if ((rc = db_exec(db, retire_others, id, NARGS(id), NULL)) != DB_OK)
		return rc;
	return db_exec(db, revive, id, NARGS(id), NULL);
}

int
db_wh_key_record(struct db *db, const char *key_id, const char *pub_pem, int current)
{
	struct record_args a = { key_id, pub_pem, current };

	return db_transact(db, record_tx, &a);
}

int
db_wh_key_get(struct db *db, const char *key_id, char **pub_pem)
{
	static const char sql[] =
	    "SELECT public_key_pem FROM webhook_signing_keys WHERE key_id = ?";
	struct db_val a[] = { DBS(key_id) };
	struct db_rows r;
	int rc;

	*pub_pem = NULL;
	if ((rc = db_query_one(db, sql, a, NARGS(a), &r)) != DB_OK)
		return rc;
	*pub_pem = xstrdup(db_cell(&r, 0, 0));
	db_rows_free(&r);
	return DB_OK;
}

int
db_wh_key_list(struct db *db, struct db_rows *out)
{
	static const char sql[] =
	    "SELECT key_id, created_at, retired_at FROM webhook_signing_keys"
	    " ORDER BY created_at, key_id";

	return db_query(db, sql, NULL, 0, out);
}

int
db_wh_key_drop(struct db *db, const char *key_id)
{
	static const char del[] =
	    "DELETE FROM webhook_signing_keys WHERE key_id = ? AND retired_at IS NOT NULL";
	static const char known[] =
	    "SELECT 1 FROM webhook_signing_keys WHERE key_id = ?";
	struct db_val a[] = { DBS(key_id) };
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
