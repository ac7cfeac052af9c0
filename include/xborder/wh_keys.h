/*
 * wh_keys.h: each platform's webhook signing key over its life: made on
 * first need, replaced when the operator's master changes or the platform
 * rotates it, used to sign every attempt.  Over db_wh_keys.c (the rows)
 * and wh_sign.c (the derivation and the signature).
 */
#ifndef XBORDER_WH_KEYS_H
#define XBORDER_WH_KEYS_H

#include <stddef.h>
#include <stdint.h>

#include "xborder/db_wh_keys.h"

struct db;

/* How long a key replaced by a rotation stays readable by its keyId. */
#define WH_KEY_KEEP_S (72 * 3600)

/* The master secret (webhook_signing_key) is missing or unreadable. */
#define WH_KEYS_NO_MASTER (-100)

/*
 * The platform's current key (*out, caller frees with wh_key_row_free),
 * under the master of path: made when the platform has none yet (once,
 * whoever else makes it at the same time), and replaced as a rotation
 * would (the old one kept WH_KEY_KEEP_S) when it was derived from another
 * master than the file's.  DB_OK, WH_KEYS_NO_MASTER with err, or a store
 * failure.
 */
int wh_keys_current(struct db *db, const char *path, const char *platform,
    struct wh_key_row *out, char *err, size_t errlen);

/*
 * Rotation: a new current key for the platform (*out, caller frees),
 * derived from the master of path; the key it replaces is prev_id,
 * readable until prev_expires (DATETIME(3) text of the database), and any
 * older one is retired at once.  DB_OK, WH_KEYS_NO_MASTER with err, or a
 * store failure.
 */
int wh_keys_rotate(struct db *db, const char *path, const char *platform,
    struct wh_key_row *out, char prev_id[WH_KEY_ID_LEN + 1], char prev_expires[32],
    char *err, size_t errlen);

/*
 * Signs "<t>.<body>" with the platform's current key (wh_keys_current) and
 * writes the X-Xborder-Signature value into out.  DB_OK,
 * WH_KEYS_NO_MASTER with err (no master, or the key cannot be derived
 * from it), or a store failure.
 */
int wh_keys_sign(struct db *db, const char *path, const char *platform, int64_t t,
    const char *body, size_t len, char *out, size_t outlen, char *err, size_t errlen);

#endif
