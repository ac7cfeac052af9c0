/*
 * settle.c: settlement of same-currency transfers by the sandbox bank.
 * The outcome was fixed when the transfer was made, from the external
 * account number's last three digits: 002 fails, 005 (payouts only)
 * completes and is then returned, anything else completes.
 *
 * Both kinds put the amount in the platform's IN_TRANSIT account when
 * they are made (db_transactions.c): transfer-in from the SANDBOX account,
 * transfer-out from the customer.  Settlement moves it out again:
 *
 *   transfer-in   COMPLETES: IN_TRANSIT -> customer, COMPLETED
 *                 FAILS:     IN_TRANSIT -> SANDBOX, FAILED (nothing moved
 *                            in the end); also when the customer's credit
 *                            would pass the balance limit
 *   transfer-out  COMPLETES: IN_TRANSIT -> SANDBOX, COMPLETED
 *                 FAILS:     IN_TRANSIT -> customer, FAILED
 *                 RETURNS:   COMPLETED with the amount kept in IN_TRANSIT,
 *                            then later IN_TRANSIT -> customer, REFUNDED
 *                            (settledAt kept)
 *
 * Every balance of a platform and currency but the SANDBOX one is >= 0
 * and they all sum to zero, so what is in IN_TRANSIT plus any customer's
 * balance is at most -SANDBOX, which the balance limit bounds: no move
 * out of IN_TRANSIT can pass the limit, and no settlement job can fail
 * for ever on it.  (A returned payout keeps its amount in IN_TRANSIT for
 * the same reason: taking it from SANDBOX later could pass the limit.)
 * Only the customer's credit of a transfer-in is checked anyway, for data
 * older than that rule.
 *
 *   quote payout  (PROCESSING) the same, with the postings of db_quotes.c:
 *                 a failed or returned payout gives the sender the whole
 *                 sending amount back and takes back both fee credits
 *
 * The batch's transfer-outs that complete, nearly all of them, settle
 * together (settle_begin, settle_end): one statement locks them, one
 * changes their status, one counts them, one queues their events, and
 * one posting set per platform and currency moves their money from the
 * in-transit shards to the SANDBOX account: no customer's balance moves,
 * so no customer row is locked.  The postings come last, just before the
 * commit, so the in-transit rows a payout also writes are held for as
 * short a time as can be.  The rest run one by one (settle_run).
 */
#include "config.h"

#include <string.h>

#include "xborder/db.h"
#include "xborder/db_customers.h"
#include "xborder/db_ledger.h"
#include "xborder/db_quotes.h"
#include "xborder/db_review.h"
#include "xborder/db_transactions.h"
#include "xborder/ids.h"
#include "xborder/settle.h"
#include "xborder/util.h"

/*
 * The id of the account of kind: the transaction's own for ACCT_CUSTOMER,
 * its in-transit shard for ACCT_IN_TRANSIT.
 */
static int
account_of(struct db *db, const struct txn *t, const char *kind, char id[UUID_LEN + 1])
{
	if (strcmp(kind, ACCT_CUSTOMER) == 0) {
		memcpy(id, t->internal_account_id, UUID_LEN + 1);
		return DB_OK;
	}
	if (strcmp(kind, ACCT_IN_TRANSIT) == 0)
		return db_account_transit(db, t->platform_id, t->currency, t->transit_shard, id);
	return db_account_system(db, t->platform_id, kind, t->currency, id);
}

/*
 * Moves the transaction's amount from the account of kind from to the one
 * of kind to.  DB_LIMIT leaves nothing written (db_ledger_apply).
 */
static int
move(struct db *db, const struct txn *t, const char *from, const char *to,
    const char *memo)
{
	struct posting_set s = { .n = 0 };
	char a[UUID_LEN + 1], b[UUID_LEN + 1];
	int rc;

	if ((rc = account_of(db, t, from, a)) != DB_OK ||
	    (rc = account_of(db, t, to, b)) != DB_OK)
		return rc;
	if (ledger_move(&s, a, b, t->currency, t->amount) < 0)
		return DB_CONFLICT;
	return db_ledger_apply(db, memo, &s, NULL);
}

/*
 * A quote's payout to an external account (decisions.md section 9): the
 * bank pays it (COMPLETED; 005 is returned later), or it fails (002) and
 * the sender gets the whole sending amount back, fees included.
 */
static int
settle_quote(struct db *db, const struct txn *t)
{
	struct quote q;
	int rc;

	if ((rc = db_quote_by_txn(db, t->id, &q)) != DB_OK)
		return rc == DB_NOT_FOUND ? DB_ERR : rc;
	if (strcmp(q.outcome, "FAILS") == 0) {
		if ((rc = db_quote_reverse(db, &q, "quote_payout_failed")) == DB_OK)
			rc = db_txn_set_status_from(db, t, "FAILED", 0, NULL);
	} else if (strcmp(q.outcome, "RETURNS") == 0) {
		/* Kept in transit until the bank returns it, as transfer-outs. */
		if ((rc = db_txn_set_status_from(db, t, "COMPLETED", 1, NULL)) == DB_OK)
			rc = db_job_add(db, "refund", t->id, t->platform_id, REFUND_DELAY_MS);
	} else if ((rc = db_quote_payout_done(db, &q)) == DB_OK)
		rc = db_txn_set_status_from(db, t, "COMPLETED", 1, NULL);
	quote_free(&q);
	return rc;
}

/* The bank returns a completed payout: the money goes back to the sender. */
static int
refund(struct db *db, const struct txn *t)
{
	struct quote q;
	int rc;

	if (strcmp(t->kind, "QUOTE") != 0)
		rc = move(db, t, ACCT_IN_TRANSIT, ACCT_CUSTOMER, "payout_returned");
	else if ((rc = db_quote_by_txn(db, t->id, &q)) == DB_OK) {
		rc = db_quote_reverse(db, &q, "quote_payout_returned");
		quote_free(&q);
	}
	if (rc == DB_OK)
		rc = db_txn_set_status_from(db, t, "REFUNDED", 1, NULL);
	return rc;
}

static int
settle(struct db *db, const struct txn *t)
{
	int fails = strcmp(t->outcome, "FAILS") == 0, rc;

	if (strcmp(t->kind, "TRANSFER_IN") == 0) {
		if (!fails) {
			rc = move(db, t, ACCT_IN_TRANSIT, ACCT_CUSTOMER, "transfer_in_settled");
			if (rc == DB_OK)
				return db_txn_set_status_from(db, t, "COMPLETED", 1, NULL);
			if (rc != DB_LIMIT)
				return rc;
			log_msg(LOG_LVL_WARN, NULL, "settle: transfer-in %s would take account %s"
			    " past the balance limit: FAILED", t->id, t->internal_account_id);
		}
		if ((rc = move(db, t, ACCT_IN_TRANSIT, ACCT_SANDBOX, "transfer_in_failed")) != DB_OK)
			return rc;
		return db_txn_set_status_from(db, t, "FAILED", 0, NULL);
	}
	if (strcmp(t->kind, "TRANSFER_OUT") == 0) {
		if (fails) {
			if ((rc = move(db, t, ACCT_IN_TRANSIT, ACCT_CUSTOMER, "payout_failed")) != DB_OK)
				return rc;
			return db_txn_set_status_from(db, t, "FAILED", 0, NULL);
		}
		if (strcmp(t->outcome, "RETURNS") == 0) {
			if ((rc = db_txn_set_status_from(db, t, "COMPLETED", 1, NULL)) != DB_OK)
				return rc;
			return db_job_add(db, "refund", t->id, t->platform_id, REFUND_DELAY_MS);
		}
		if ((rc = move(db, t, ACCT_IN_TRANSIT, ACCT_SANDBOX, "payout_settled")) != DB_OK)
			return rc;
		return db_txn_set_status_from(db, t, "COMPLETED", 1, NULL);
	}
	log_msg(LOG_LVL_WARN, NULL, "settle: transaction %s of kind %s has no settlement",
	    t->id, t->kind);
	return DB_OK;
}

/* The batch's payouts that complete, locked by settle_begin. */
struct settle_batch {
	struct txn	t[JOB_BATCH_MAX];
	size_t		n;
};

static int
settle_begin(struct db *db, const struct job *jobs, size_t n, unsigned char *ran, void *arg)
{
	struct settle_batch *b = arg;
	const char *platforms[JOB_BATCH_MAX], *ids[JOB_BATCH_MAX];
	size_t m = 0;
	int rc;

	for (size_t i = 0; i < b->n; i++)
		txn_free(&b->t[i]);	/* of an attempt that was rolled back */
	b->n = 0;
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
	return db_txn_set_status_all(db, b->t, b->n, "COMPLETED", 1);
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
	unsigned char posted[JOB_BATCH_MAX] = { 0 };
	int rc;

	for (size_t i = 0; i < b->n; i++) {
		const struct txn *g = &b->t[i];
		__int128 shard[LEDGER_TRANSIT_SHARDS] = { 0 }, total = 0;
		struct posting_set s = { .n = 0 };
		char id[UUID_LEN + 1];

		if (posted[i])
			continue;
		for (size_t k = i; k < b->n; k++) {
			const struct txn *t = &b->t[k];

			if (posted[k] || strcmp(t->platform_id, g->platform_id) != 0 ||
			    strcmp(t->currency, g->currency) != 0)
				continue;
			if (t->transit_shard < 0 || t->transit_shard >= LEDGER_TRANSIT_SHARDS ||
			    t->amount <= 0 || t->amount > LEDGER_BALANCE_MAX)
				return DB_CONFLICT;
			shard[t->transit_shard] += t->amount;
			total += t->amount;
			posted[k] = 1;
		}
		if (total > LEDGER_BALANCE_MAX)
			return DB_CONFLICT;
		for (int k = 0; k < LEDGER_TRANSIT_SHARDS; k++) {
			if (shard[k] == 0)
				continue;
			if ((rc = db_account_transit(db, g->platform_id, g->currency, k, id)) != DB_OK)
				return rc;
			if (ledger_add(&s, id, g->currency, -(int64_t)shard[k]) < 0)
				return DB_CONFLICT;
		}
		if ((rc = db_account_system(db, g->platform_id, ACCT_SANDBOX, g->currency,
		    id)) != DB_OK)
			return rc;
		if (ledger_add(&s, id, g->currency, (int64_t)total) < 0)
			return DB_CONFLICT;
		if ((rc = db_ledger_apply(db, "payout_settled", &s, NULL)) != DB_OK)
			return rc;
	}
	return DB_OK;
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
	if (strcmp(job->kind, "settle") == 0 && strcmp(t.kind, "QUOTE") == 0 &&
	    strcmp(t.status, "PROCESSING") == 0)
		rc = settle_quote(db, &t);
	else if (strcmp(job->kind, "settle") == 0 && strcmp(t.status, "PENDING") == 0)
		rc = settle(db, &t);
	else if (strcmp(job->kind, "refund") == 0 && strcmp(t.status, "COMPLETED") == 0)
		rc = refund(db, &t);
	else if (strcmp(job->kind, "review_expire") == 0)
		rc = db_review_expire(db, &t);
	txn_free(&t);
	return rc;
}
