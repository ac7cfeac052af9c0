/*
 * txn_lifecycle.c: the one function that changes a transaction's status
 * (txn_move), checked against the table of txn_moves.c, and the one that
 * records a new one (txn_created).  A move writes, in the caller's
 * database transaction and in this order: the ledger postings of the move
 * (txn_postings.c), which may refuse it (funds, limits) before anything
 * else is written; the status with updatedAt and settledAt (the store's
 * one UPDATE of transactions.status, db_txn_status_write); the
 * transaction counts (db_txn_count, the list version moves with them);
 * and one webhook event carrying the transaction as it now is.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "xborder/db.h"
#include "xborder/db_transactions.h"
#include "xborder/db_webhooks.h"
#include "xborder/events.h"
#include "xborder/ids.h"
#include "xborder/log.h"
#include "xborder/txn.h"
#include "xborder/txn_lifecycle.h"
#include "xborder/txn_moves.h"
#include "xborder/util.h"

/* Queues the event of each of the n transactions ts as they now are. */
static int
queue_events(struct db *db, const struct txn *ts, size_t n)
{
	struct wh_new_event ev[TXN_BATCH_MAX];
	int rc;

	if (n == 0 || n > TXN_BATCH_MAX)
		return DB_ERR;
	memset(ev, 0, n * sizeof(ev[0]));
	for (size_t i = 0; i < n; i++) {
		ids_uuid4(ev[i].id);
		ev[i].platform_id = ts[i].platform_id;
		ev[i].transaction_id = ts[i].id;
		event_type(&ts[i], ev[i].type);
		ev[i].payload = event_txn_body(&ts[i], ev[i].id);
	}
	rc = db_wh_events_add(db, ev, n);
	for (size_t i = 0; i < n; i++)
		free(ev[i].payload);
	return rc;
}

/* A move the table refuses: logged, since every caller checks first. */
static int
refused(const struct txn *t, const char *to)
{
	log_msg(LOG_LVL_ERROR, NULL, "lifecycle: %s %s cannot move from %s to %s",
	    txn_class_name(txn_class(t)), t->id, t->status, to);
	return DB_INVALID_MOVE;
}

int
txn_created(struct db *db, struct txn *t, struct txn *out)
{
	const char *initial = txn_initial_status(txn_class(t));
	int rc;

	if (initial == NULL || strcmp(initial, t->status) != 0)
		rc = refused(t, t->status);
	else if ((rc = db_txn_count(db, t, 1, NULL)) == DB_OK)
		rc = queue_events(db, t, 1);
	if (rc == DB_OK && out != NULL)
		*out = *t;
	else
		txn_free(t);
	return rc;
}

/*
 * The writes of a move after its postings, for the n rows ts, all of one
 * status and read under their locks together: status, counts, events.
 * changed[0..n-1] receives the rows as changed (caller frees) when DB_OK.
 */
static int
moved(struct db *db, const struct txn *ts, size_t n, const char *to, struct txn *changed)
{
	int rc;

	if ((rc = db_txn_status_write(db, ts, n, to, txn_move_settles(to), changed)) != DB_OK)
		return rc;
	if ((rc = db_txn_count(db, changed, n, ts[0].status)) == DB_OK)
		rc = queue_events(db, changed, n);
	if (rc != DB_OK)
		txns_free(changed, n);
	return rc;
}

int
txn_move(struct db *db, const struct txn *t, const char *to,
    const struct txn_move_ctx *ctx, struct txn *out)
{
	static const struct txn_move_ctx none = { NULL, NULL, NULL };
	struct txn changed;
	int rc;

	if (strcmp(t->status, to) == 0) {
		if (out != NULL)
			txn_copy(t, out);
		return DB_OK;
	}
	if (!txn_move_allowed(txn_class(t), t->status, to))
		return refused(t, to);
	if ((rc = txn_postings(db, t, to, ctx != NULL ? ctx : &none)) != DB_OK ||
	    (rc = moved(db, t, 1, to, &changed)) != DB_OK)
		return rc;
	if (out != NULL)
		*out = changed;
	else
		txn_free(&changed);
	return DB_OK;
}

int
txn_move_batch(struct db *db, const struct txn *ts, size_t n, const char *to)
{
	struct txn changed[TXN_BATCH_MAX];
	int rc;

	if (n == 0)
		return DB_OK;
	if (n > TXN_BATCH_MAX)
		return DB_ERR;
	for (size_t i = 0; i < n; i++)
		if (txn_class(&ts[i]) != TC_TRANSFER_OUT || strcmp(ts[i].outcome, "COMPLETES") != 0 ||
		    !txn_move_allowed(TC_TRANSFER_OUT, ts[i].status, to) ||
		    strcmp(to, "COMPLETED") != 0)
			return refused(&ts[i], to);
	if ((rc = moved(db, ts, n, to, changed)) == DB_OK)
		txns_free(changed, n);
	return rc;
}
