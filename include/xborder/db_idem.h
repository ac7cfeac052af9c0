/*
 * db_idem.h: idempotency records (db_idem.c), and the housekeeping that
 * purges them with the other rows the request path leaves behind.
 */
#ifndef XBORDER_DB_IDEM_H
#define XBORDER_DB_IDEM_H

#include <stdint.h>

struct db;

/*
 * Housekeeping: deletes idempotency records past their expiry, jobs done
 * more than a day ago and webhook events created more than 30 days ago
 * that are no longer pending (each batch with its attempts, in one
 * database transaction), in bounded statements, up to a bounded
 * number of them; *n receives how many rows went, *more is set when rows
 * may be left (call again soon).
 */
int db_idem_purge(struct db *db, uint64_t *n, int *more);

enum idem_state { IDEM_NEW, IDEM_REPLAY, IDEM_REUSED, IDEM_IN_USE };

/*
 * Starts a request under an Idempotency-Key: records it as RUNNING under a
 * fresh claim id written to claim, with a lease of lease_s seconds
 * (IDEM_NEW), or finds the earlier one: IDEM_REPLAY with its response
 * (status, body owned by caller), IDEM_REUSED when the request differs,
 * IDEM_IN_USE while another attempt holds it.  A RUNNING claim whose lease
 * has passed (its worker, or its database node, died) is taken over:
 * IDEM_NEW.  Returns DB_OK or a failure.
 */
int db_idem_begin(struct db *db, const char *platform, const char *key, const char *hash,
    int64_t lease_s, char claim[37], enum idem_state *state, int *status, char **body);

/*
 * Inside the request's transaction, as its last statement: stores the
 * response to replay (DONE) if claim still holds the key.  The write goes
 * with the commit (db_exec_later), which then fails with DB_CONFLICT when
 * another attempt took the key over (the transaction is rolled back);
 * this call returns DB_OK or a failure.  Outside a transaction it runs at
 * once and returns DB_CONFLICT itself.
 */
int db_idem_finish(struct db *db, const char *platform, const char *key, const char *claim,
    int status, const char *body);

/* Forgets claim's key after a request that committed nothing (a 5xx). */
int db_idem_forget(struct db *db, const char *platform, const char *key, const char *claim);

#endif
