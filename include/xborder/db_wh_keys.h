/*
 * db_wh_keys.h: the public halves of the webhook signing keys (table
 * webhook_signing_keys), kept so a retired key stays readable.
 */
#ifndef XBORDER_DB_WH_KEYS_H
#define XBORDER_DB_WH_KEYS_H

#include <stddef.h>

struct db;
struct db_rows;

/*
 * Records a public key (INSERT, or nothing when key_id is known) and, when
 * current is set, marks every other key retired (retired_at = now where
 * NULL) and this one not retired.  DB_OK or a failure.
 */
int db_wh_key_record(struct db *db, const char *key_id, const char *pub_pem, int current);

/* A recorded key's public PEM (owned by the caller): DB_OK or DB_NOT_FOUND. */
int db_wh_key_get(struct db *db, const char *key_id, char **pub_pem);

/* Every recorded key: rows of key_id, created_at, retired_at (NULL: current), oldest first. */
int db_wh_key_list(struct db *db, struct db_rows *out);

/* Forgets a key: DB_OK, DB_NOT_FOUND, or DB_CONFLICT when it is not retired. */
int db_wh_key_drop(struct db *db, const char *key_id);

#endif
