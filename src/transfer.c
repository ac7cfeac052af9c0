/*
 * transfer.c: making a same-currency transfer.  Both directions move the
 * amount into one of the platform's in-transit accounts now: a payout from
 * the customer's balance, money coming in from the sandbox's own account.
 * So the sandbox account's limit is checked here, while the client can be
 * told (DB_LIMIT), and settlement (settle.c, through the lifecycle) only
 * moves money out of in-transit, which can never pass a limit.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "xborder/db.h"
#include "xborder/db_customers.h"
#include "xborder/db_jobs.h"
#include "xborder/db_ledger.h"
#include "xborder/db_transactions.h"
#include "xborder/ids.h"
#include "xborder/ledger.h"
#include "xborder/transfer.h"
#include "xborder/txn.h"
#include "xborder/txn_lifecycle.h"
#include "xborder/util.h"

/* A transfer is settled by the worker after this long. */
#define SETTLE_DELAY_MS 300

struct transfer_args {
	const char		*platform;
	const struct transfer	*t;
	int			 out;
	char			 id[37];
	struct ledger_short	*shortfall;
	int			 shard;		/* the in-transit account shard */
	struct txn		 txn;		/* the transaction as recorded */
};

/* The money of a new transfer: into its in-transit shard. */
static int
into_transit(struct db *db, const struct transfer_args *x)
{
	const struct transfer *t = x->t;
	struct posting_set s = { .n = 0 };
	char transit[UUID_LEN + 1], sandbox[UUID_LEN + 1];
	int rc;

	if ((rc = db_account_transit(db, x->platform, t->currency, x->shard,
	    transit)) != DB_OK)
		return rc;
	if (!x->out && (rc = db_account_system(db, x->platform, ACCT_SANDBOX, t->currency,
	    sandbox)) != DB_OK)
		return rc;
	str_copy(s.txn, sizeof(s.txn), x->id);
	if (ledger_move(&s, x->out ? t->internal_account_id : sandbox, transit, t->currency,
	    t->amount) < 0)
		return DB_CONFLICT;
	return db_ledger_apply(db, x->out ? "transfer_out" : "transfer_in", &s, x->shortfall);
}

static int
transfer_tx(struct db *db, void *arg)
{
	struct transfer_args *x = arg;
	struct txn t;
	char *pcid = NULL;
	int rc;

	txn_free(&x->txn);	/* read by an attempt that was rolled back */
	if ((rc = db_customer_lock(db, x->platform, x->t->customer_id, &pcid)) != DB_OK)
		return rc == DB_NOT_FOUND ? DB_GONE : rc;
	if ((rc = into_transit(db, x)) == DB_OK &&
	    (rc = db_transfer_insert(db, x->platform, x->id, x->t, x->out, pcid, x->shard,
	    &t)) == DB_OK &&
	    (rc = txn_created(db, &t, &x->txn)) == DB_OK && !txn_outcome_holds(x->t->outcome))
		rc = db_job_add(db, "settle", x->id, x->platform, SETTLE_DELAY_MS);
	free(pcid);
	return rc;
}

static int
transfer(struct db *db, const char *platform, const struct transfer *t, int out_dir,
    struct txn *out, struct ledger_short *shortfall)
{
	struct transfer_args x;
	int rc;

	memset(&x, 0, sizeof(x));
	x.platform = platform;
	x.t = t;
	x.out = out_dir;
	x.shortfall = shortfall;
	ids_uuid4(x.id);
	/* Spread over the shards by the transaction's random id. */
	x.shard = (int)(strtoul(x.id + 24, NULL, 16) % LEDGER_TRANSIT_SHARDS);
	rc = db_transact(db, transfer_tx, &x);
	/* What the transaction read back of its row is what it committed. */
	if (rc == DB_OK)
		*out = x.txn;
	else
		txn_free(&x.txn);
	return rc;
}

int
transfer_in(struct db *db, const char *platform, const struct transfer *t,
    struct txn *out)
{
	return transfer(db, platform, t, 0, out, NULL);
}

int
transfer_out(struct db *db, const char *platform, const struct transfer *t,
    struct txn *out, struct ledger_short *shortfall)
{
	return transfer(db, platform, t, 1, out, shortfall);
}
