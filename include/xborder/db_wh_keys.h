/*
 * db_wh_keys.h: the platforms' webhook signing keys (table
 * webhook_platform_keys): per key the salt and master id that derive its
 * private half again, and its public half.  Never a private key.
 */
#ifndef XBORDER_DB_WH_KEYS_H
#define XBORDER_DB_WH_KEYS_H

#include <stddef.h>
#include <stdint.h>

#include "xborder/wh_sign.h"

struct db;
struct db_rows;

/* One key's row. */
struct wh_key_row {
	char	 key_id[WH_KEY_ID_LEN + 1];
	char	 salt[WH_SALT_LEN + 1];
	char	 master_id[WH_KEY_ID_LEN + 1];
	char	*pub_pem;		/* owned; wh_key_row_free */
};

/* Frees what a row owns. */
void wh_key_row_free(struct wh_key_row *k);

/*
 * The platform's current key: DB_OK (*out filled, caller frees it with
 * wh_key_row_free) or DB_NOT_FOUND when the platform has none yet.
 */
int db_wh_key_current(struct db *db, const char *platform, struct wh_key_row *out);

/*
 * Makes k the platform's first current key, unless the platform has one
 * already (then nothing changes: two processes that make the first key
 * at once make one).  DB_OK either way, or a failure.
 */
int db_wh_key_first(struct db *db, const char *platform, const struct wh_key_row *k);

/*
 * Rotation: when the platform's current key is expect_key_id, it becomes
 * the previous key, readable for keep_s more seconds, any older previous
 * key is deleted at once, and k becomes the current key, all in one
 * transaction.  prev_expires receives the previous key's expiry as the
 * database writes DATETIME(3) ("YYYY-MM-DD hh:mm:ss.mmm").  DB_OK, or
 * DB_CONFLICT when the current key is not expect_key_id (another rotation
 * came first; nothing changed), or a failure.
 */
int db_wh_key_rotate(struct db *db, const char *platform, const char *expect_key_id,
    const struct wh_key_row *k, int64_t keep_s, char prev_expires[32]);

/*
 * One of the platform's kept keys (the current one, or a previous one
 * before its expiry): DB_OK (*out filled; free with wh_key_row_free) or
 * DB_NOT_FOUND (no such key of this platform, or past its expiry).
 */
int db_wh_key_get(struct db *db, const char *platform, const char *key_id,
    struct wh_key_row *out);

/*
 * The recorded keys of one platform (platform not NULL) or of all:
 * rows of platform_id, key_id, master_id, created_at, retired_at (NULL for
 * the current key), expires_at, expired (1 when past expires_at), by
 * platform, then oldest first.
 */
int db_wh_key_list(struct db *db, const char *platform, struct db_rows *out);

/*
 * Forgets one of the platform's previous keys at once: DB_OK,
 * DB_NOT_FOUND, or DB_CONFLICT when it is the current key.
 */
int db_wh_key_drop(struct db *db, const char *platform, const char *key_id);

#endif
