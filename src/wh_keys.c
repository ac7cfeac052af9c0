/*
 * wh_keys.c: each platform's webhook signing key over its life.
 *
 * A platform gets its first key when it first needs one (GET
 * /webhooks/signing-key, a test call, a delivery): a random salt, the key
 * derived from the operator's master with it, and a row inserted only if
 * the platform still has no current key, so concurrent first needs end
 * with one key.  When the operator replaces the master (xborderctl
 * webhook-keygen), the keys derived from the old one can no longer sign:
 * each platform's current key is then replaced on its next need exactly
 * as a rotation replaces it, the old public key staying readable for
 * WH_KEY_KEEP_S.  A rotation names the key it replaces, so two processes
 * that see the same stale key replace it once.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "xborder/db.h"
#include "xborder/db_wh_keys.h"
#include "xborder/wh_keys.h"
#include "xborder/wh_sign.h"

#define ATTEMPTS 4	/* rounds against concurrent first keys and rotations */

/*
 * A new key row for platform under the master of path (a fresh salt).
 * 0, or -1 with err.
 */
static int
new_key(const char *path, const char *platform, struct wh_key_row *k, char *err,
    size_t errlen)
{
	memset(k, 0, sizeof(*k));
	if (wh_salt_new(k->salt) < 0) {
		snprintf(err, errlen, "no random bytes for a salt");
		return -1;
	}
	return wh_platform_key(path, platform, k->salt, k->master_id, k->key_id, &k->pub_pem,
	    err, errlen);
}

/* The platform's current key, made or re-made as needed (wh_keys.h). */
int
wh_keys_current(struct db *db, const char *path, const char *platform,
    struct wh_key_row *out, char *err, size_t errlen)
{
	char master_id[WH_KEY_ID_LEN + 1], expires[32];
	struct wh_key_row k;
	int rc = DB_ERR;

	memset(out, 0, sizeof(*out));
	if (wh_master_current(path, master_id, NULL, err, errlen) < 0)
		return WH_KEYS_NO_MASTER;
	for (int i = 0; i < ATTEMPTS; i++) {
		rc = db_wh_key_current(db, platform, out);
		if (rc == DB_OK && strcmp(out->master_id, master_id) == 0)
			return DB_OK;
		if (rc != DB_OK && rc != DB_NOT_FOUND)
			return rc;
		if (new_key(path, platform, &k, err, errlen) < 0) {
			wh_key_row_free(out);
			return WH_KEYS_NO_MASTER;
		}
		if (rc == DB_NOT_FOUND)
			rc = db_wh_key_first(db, platform, &k);
		else	/* made from another master: replaced as a rotation would */
			rc = db_wh_key_rotate(db, platform, out->key_id, &k, WH_KEY_KEEP_S, expires);
		wh_key_row_free(&k);
		wh_key_row_free(out);
		if (rc != DB_OK && rc != DB_CONFLICT)
			return rc;
		/* Read again: ours, or the one a concurrent process made. */
	}
	snprintf(err, errlen, "platform %s: no stable current key after %d rounds", platform,
	    ATTEMPTS);
	return DB_ERR;
}

/* A new current key for the platform; the replaced one is kept (wh_keys.h). */
int
wh_keys_rotate(struct db *db, const char *path, const char *platform,
    struct wh_key_row *out, char prev_id[WH_KEY_ID_LEN + 1], char prev_expires[32],
    char *err, size_t errlen)
{
	struct wh_key_row cur;
	int rc = DB_ERR;

	memset(out, 0, sizeof(*out));
	for (int i = 0; i < ATTEMPTS; i++) {
		if ((rc = wh_keys_current(db, path, platform, &cur, err, errlen)) != DB_OK)
			return rc;
		if (new_key(path, platform, out, err, errlen) < 0) {
			wh_key_row_free(&cur);
			return WH_KEYS_NO_MASTER;
		}
		rc = db_wh_key_rotate(db, platform, cur.key_id, out, WH_KEY_KEEP_S, prev_expires);
		if (rc == DB_OK)
			snprintf(prev_id, WH_KEY_ID_LEN + 1, "%s", cur.key_id);
		wh_key_row_free(&cur);
		if (rc == DB_OK)
			return DB_OK;
		wh_key_row_free(out);
		if (rc != DB_CONFLICT)
			return rc;
		/* Another rotation came first: this one replaces its key. */
	}
	snprintf(err, errlen, "platform %s: rotation lost %d races", platform, ATTEMPTS);
	return DB_ERR;
}

/* Signs with the platform's current key (wh_keys.h). */
int
wh_keys_sign(struct db *db, const char *path, const char *platform, int64_t t,
    const char *body, size_t len, char *out, size_t outlen, char *err, size_t errlen)
{
	struct wh_key_row k;
	int rc;

	if ((rc = wh_keys_current(db, path, platform, &k, err, errlen)) != DB_OK)
		return rc;
	if (wh_sign_platform(path, k.master_id, platform, k.salt, k.key_id, t, body, len, out,
	    outlen, err, errlen) < 0)
		rc = WH_KEYS_NO_MASTER;
	wh_key_row_free(&k);
	return rc;
}
