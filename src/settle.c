/*
 * settle.c: settlement of same-currency transfers by the sandbox bank.
 * The outcome was fixed when the transfer was made, from the external
 * account number's last three digits: 002 fails, 003 holds (no job: it
 * waits for a sandbox helper, sandbox_ops.c), 005 (payouts only)
 * completes and is then returned, anything else completes.  A helper's
 * `complete` is settle_complete(), the same completion.
 *
 * What each outcome does to a transaction is a move of the lifecycle
 * (txn_move), whose postings are txn_postings.c's:
 *
 *   transfer-in   COMPLETES: COMPLETED; FAILED instead when the customer's
 *                 credit would pass the balance limit
 *                 FAILS:     FAILED
 *   transfer-out  COMPLETES: COMPLETED
 *                 FAILS:     FAILED
 *                 RETURNS:   COMPLETED, then later (a refund job) REFUNDED
 *                            (settledAt kept)
 *   quote payout  (PROCESSING) the same
 *
 * The batch's transfer-outs that complete, nearly all of them, settle
 * together (settle_begin, settle_end): one statement locks them, one
 * changes their status, one counts them, one queues their events
 * (txn_move_batch), and one posting set per platform and currency moves
 * their money from the in-transit shards to the SANDBOX account
 * (txn_postings_batch): no customer's balance moves, so no customer row is
 * locked.  The postings come last, just before the commit, so the
 * in-transit rows a payout also writes are held for as short a time as can
 * be.  The rest run one by one (settle_run).
 */
#include "config.h"

#include <string.h>

#include "xborder/db.h"
#include "xborder/db_customers.h"
#include "xborder/db_jobs.h"
#include "xborder/db_quotes.h"
#include "xborder/db_transactions.h"
#include "xborder/ids.h"
#include "xborder/review_ops.h"
#include "xborder/settle.h"
#include "xborder/txn.h"
#include "xborder/txn_lifecycle.h"
#include "xborder/util.h"

int
settle_complete(struct db *db, const struct txn *t, const struct quote *q, struct txn *out)
{
	struct txn_move_ctx ctx = { q, NULL, NULL };
	int rc;

	if ((rc = txn_move(db, t, "COMPLETED", &ctx, out)) != DB_OK ||
	    !txn_outcome_returns(q != NULL ? q->outcome : t->outcome))
		return rc;
	/* Kept in transit until the bank returns it (a refund job). */
	if ((rc = db_job_add(db, "refund", t->id, t->platform_id, REFUND_DELAY_MS)) != DB_OK &&
	    out != NULL)
		txn_free(out);
	return rc;
}

/*
 * A quote's payout to an external account (decisions.md section 9): the
 * bank pays it (COMPLETED; 005 is returned later), or it fails (002) and
 * the sender gets the whole sending amount back, fees included.
 */
static int
settle_quote(struct db *db, const struct txn *t)
{
	struct txn_move_ctx ctx = { NULL, NULL, NULL };
	struct quote q;
	int rc;

	if ((rc = db_quote_by_txn(db, t->id, &q)) != DB_OK)
		return rc == DB_NOT_FOUND ? DB_ERR : rc;
	ctx.quote = &q;
	if (strcmp(q.outcome, "FAILS") == 0)
		rc = txn_move(db, t, "FAILED", &ctx, NULL);
	else
		rc = settle_complete(db, t, &q, NULL);
	quote_free(&q);
	return rc;
}

/* The bank returns a completed payout: the money goes back to the sender. */
static int
refund(struct db *db, const struct txn *t)
{
	return txn_move(db, t, "REFUNDED", NULL, NULL);
}

static int
settle(struct db *db, const struct txn *t)
{
	int fails = strcmp(t->outcome, "FAILS") == 0, rc;

	if (strcmp(t->kind, "TRANSFER_IN") == 0) {
		if (!fails) {
			if ((rc = txn_move(db, t, "COMPLETED", NULL, NULL)) != DB_LIMIT)
				return rc;
			log_msg(LOG_LVL_WARN, NULL, "settle: transfer-in %s would take account %s"
			    " past the balance limit: FAILED", t->id, t->internal_account_id);
		}
		return txn_move(db, t, "FAILED", NULL, NULL);
	}
	if (strcmp(t->kind, "TRANSFER_OUT") == 0)
		return fails ? txn_move(db, t, "FAILED", NULL, NULL) :
		    settle_complete(db, t, NULL, NULL);
	log_msg(LOG_LVL_WARN, NULL, "settle: transaction %s of kind %s has no settlement",
	    t->id, t->kind);
	return DB_OK;
}

/* The batch's payouts that complete, locked by settle_begin. */
struct settle_batch {
	struct txn	t[JOB_BATCH_MAX];
	size_t		n;
};

/*
 * The customer rows the batch's other jobs lock (settle_run), all first
 * and in id order: a job that locked a customer after the batch took an
 * account or a count (its payouts' move, an earlier job's postings) would
 * wait for a request that holds the customer (db_customer_lock's order)
 * while that request waits for the account: a deadlock.
 */
static int
lock_customers(struct db *db, const struct job *jobs, size_t n)
{
	const char *platforms[JOB_BATCH_MAX] = { NULL }, *ids[JOB_BATCH_MAX] = { NULL };
	struct db_rows r;
	int rc = DB_OK;

	for (size_t i = 0; i < n && i < JOB_BATCH_MAX; i++) {
		platforms[i] = jobs[i].platform_id;
		ids[i] = jobs[i].ref_id;
	}
	if ((rc = db_txn_customers_but(db, platforms, ids, n < JOB_BATCH_MAX ? n : JOB_BATCH_MAX,
	    "TRANSFER_OUT", "PENDING", "COMPLETES", &r)) != DB_OK)
		return rc;
	for (size_t i = 0; i < r.nrows && rc == DB_OK; i++)
		if ((rc = db_customer_lock(db, db_cell(&r, i, 0), db_cell(&r, i, 1), NULL)) == DB_GONE)
			rc = DB_OK;
	db_rows_free(&r);
	return rc;
}

static int
settle_begin(struct db *db, const struct job *jobs, size_t n, unsigned char *ran, void *arg)
{
	struct settle_batch *b = arg;
	const char *platforms[JOB_BATCH_MAX] = { NULL }, *ids[JOB_BATCH_MAX] = { NULL };
	size_t m = 0;
	int rc;

	for (size_t i = 0; i < b->n; i++)
		txn_free(&b->t[i]);	/* of an attempt that was rolled back */
	b->n = 0;
	if ((rc = lock_customers(db, jobs, n)) != DB_OK)
		return rc;
	for (size_t i = 0; i < n && i < JOB_BATCH_MAX; i++)
		if (strcmp(jobs[i].kind, "settle") == 0) {
			platforms[m] = jobs[i].platform_id;
			ids[m++] = jobs[i].ref_id;
		}
	if ((rc = db_txn_lock_many(db, platforms, ids, m, "TRANSFER_OUT", "PENDING",
	    "COMPLETES", b->t, &b->n)) != DB_OK)
		return rc;
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < b->n && !ran[i]; k++)
			ran[i] = strcmp(jobs[i].kind, "settle") == 0 &&
			    strcmp(jobs[i].ref_id, b->t[k].id) == 0 &&
			    strcmp(jobs[i].platform_id, b->t[k].platform_id) == 0;
	return txn_move_batch(db, b->t, b->n, "COMPLETED");
}

/*
 * The money of settle_begin's payouts: per platform and currency, each
 * in-transit shard gives what its payouts hold, the SANDBOX account
 * takes the sum.  Each shard holds at least its payouts' money and the
 * SANDBOX account at most minus all of it (ledger.h), so no sum leaves
 * the balance limit and no balance check can fail.  If one did (data
 * changed by hand), the batch fails and its oldest job runs alone
 * (db_job_run): batch after batch settles the jobs before the one at
 * fault, until it runs alone, fails and is rescheduled.
 */
static int
settle_end(struct db *db, void *arg)
{
	struct settle_batch *b = arg;

	return txn_postings_batch(db, b->t, b->n);
}

void
settle_handler(struct job_handler *h)
{
	static struct settle_batch batch;

	memset(h, 0, sizeof(*h));
	h->begin = settle_begin;
	h->run = settle_run;
	h->end = settle_end;
	h->arg = &batch;
}

/*
 * What job does to t, read under its lock: its move when t is still in
 * the status the job expects; else t was moved meanwhile (a sandbox helper,
 * a review decision, or the job ran before), which the first commit won,
 * and the job does nothing but say so.
 */
static int
settle_locked(struct db *db, const struct job *job, const struct txn *t)
{
	int settling = strcmp(job->kind, "settle") == 0;

	if (settling && txn_outcome_holds(t->outcome)) {
		/* 003 queues no job; one made before that rule leaves it alone too. */
		log_msg(LOG_LVL_INFO, NULL, "settle: %s job: transaction %s is held by its"
		    " account (003), left to a sandbox helper", job->kind, t->id);
		return DB_OK;
	}
	if (settling && strcmp(t->kind, "QUOTE") == 0 && strcmp(t->status, "PROCESSING") == 0)
		return settle_quote(db, t);
	if (settling && strcmp(t->status, "PENDING") == 0)
		return settle(db, t);
	if (strcmp(job->kind, "refund") == 0 && strcmp(t->status, "COMPLETED") == 0)
		return refund(db, t);
	if (strcmp(job->kind, "review_expire") == 0 && t->review_scenario[0] != '\0' &&
	    strcmp(t->status, "PENDING") == 0)
		return review_expire(db, t, NULL);
	log_msg(LOG_LVL_INFO, NULL, "settle: %s job: transaction %s already moved, found %s;"
	    " nothing to do", job->kind, t->id, t->status);
	return DB_OK;
}

int
settle_run(struct db *db, const struct job *job, void *arg)
{
	struct txn t;
	int rc;

	(void)arg;
	/*
	 * The customer row first (db_customer_lock's order): a deletion holds
	 * it while it checks balances and open transactions, so a credit can
	 * never land on a customer deleted in between.
	 */
	memset(&t, 0, sizeof(t));
	rc = db_txn_get(db, job->platform_id, job->ref_id, &t);
	if (rc == DB_OK && t.customer_id[0] != '\0' &&
	    (rc = db_customer_lock(db, job->platform_id, t.customer_id, NULL)) == DB_GONE)
		rc = DB_OK;	/* cannot happen while it is unfinished; settle anyway */
	txn_free(&t);
	if (rc == DB_OK)
		rc = db_txn_lock(db, job->platform_id, job->ref_id, &t);
	if (rc == DB_NOT_FOUND)
		return DB_OK;	/* nothing left to do */
	if (rc != DB_OK)
		return rc;
	rc = settle_locked(db, job, &t);
	txn_free(&t);
	return rc;
}
