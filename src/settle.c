/*
 * settle.c: settlement of same-currency transfers by the sandbox bank.
 * The outcome was fixed when the transfer was made, from the external
 * account number's last three digits: 002 fails, 005 (payouts only)
 * completes and is then returned, anything else completes.
 *
 *   transfer-in   COMPLETES: SANDBOX -> customer, COMPLETED
 *                 FAILS:     nothing moves, FAILED
 *   transfer-out  COMPLETES: IN_TRANSIT -> SANDBOX, COMPLETED
 *                 FAILS:     IN_TRANSIT -> customer, FAILED
 *                 RETURNS:   as COMPLETES, then later SANDBOX -> customer,
 *                            REFUNDED (settledAt kept)
 *   quote payout  (PROCESSING) as transfer-out, with the postings of
 *                 db_quotes.c: a failed or returned payout gives the sender
 *                 the whole sending amount back and takes back the fees
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

/* Moves amount between a system account of kind and the customer account. */
static int
post(struct db *db, const struct txn *t, const char *kind, int to_customer,
    const char *memo)
{
	struct posting_set s = { .n = 0 };
	char sys[UUID_LEN + 1];
	int rc;

	if ((rc = db_account_system(db, t->platform_id, kind, t->currency, sys)) != DB_OK)
		return rc;
	if (ledger_move(&s, to_customer ? sys : t->internal_account_id,
	    to_customer ? t->internal_account_id : sys, t->currency, t->amount) < 0)
		return DB_CONFLICT;
	return db_ledger_apply(db, memo, &s, NULL);
}

/* Moves the payout from in-transit to the outside world. */
static int
pay_out(struct db *db, const struct txn *t)
{
	struct posting_set s = { .n = 0 };
	char transit[UUID_LEN + 1], sandbox[UUID_LEN + 1];
	int rc;

	if ((rc = db_account_system(db, t->platform_id, ACCT_IN_TRANSIT, t->currency,
	    transit)) != DB_OK ||
	    (rc = db_account_system(db, t->platform_id, ACCT_SANDBOX, t->currency,
	    sandbox)) != DB_OK)
		return rc;
	if (ledger_move(&s, transit, sandbox, t->currency, t->amount) < 0)
		return DB_CONFLICT;
	return db_ledger_apply(db, "payout_settled", &s, NULL);
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
		if ((rc = db_quote_reverse(db, &q, 1)) == DB_OK)
			rc = db_txn_set_status(db, t->id, "FAILED", 0);
	} else if ((rc = db_quote_payout_done(db, &q)) == DB_OK &&
	    (rc = db_txn_set_status(db, t->id, "COMPLETED", 1)) == DB_OK &&
	    strcmp(q.outcome, "RETURNS") == 0)
		rc = db_job_add(db, "refund", t->id, t->platform_id, REFUND_DELAY_MS);
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
		rc = post(db, t, ACCT_SANDBOX, 1, "payout_returned");
	else if ((rc = db_quote_by_txn(db, t->id, &q)) == DB_OK) {
		rc = db_quote_reverse(db, &q, 0);
		quote_free(&q);
	}
	if (rc == DB_OK)
		rc = db_txn_set_status(db, t->id, "REFUNDED", 1);
	return rc;
}

static int
settle(struct db *db, const struct txn *t)
{
	int fails = strcmp(t->outcome, "FAILS") == 0, rc;

	if (strcmp(t->kind, "TRANSFER_IN") == 0) {
		if (fails)
			return db_txn_set_status(db, t->id, "FAILED", 0);
		if ((rc = post(db, t, ACCT_SANDBOX, 1, "transfer_in_settled")) != DB_OK)
			return rc;
		return db_txn_set_status(db, t->id, "COMPLETED", 1);
	}
	if (strcmp(t->kind, "TRANSFER_OUT") == 0) {
		if (fails) {
			if ((rc = post(db, t, ACCT_IN_TRANSIT, 1, "payout_failed")) != DB_OK)
				return rc;
			return db_txn_set_status(db, t->id, "FAILED", 0);
		}
		if ((rc = pay_out(db, t)) != DB_OK ||
		    (rc = db_txn_set_status(db, t->id, "COMPLETED", 1)) != DB_OK)
			return rc;
		if (strcmp(t->outcome, "RETURNS") == 0)
			return db_job_add(db, "refund", t->id, t->platform_id, REFUND_DELAY_MS);
		return DB_OK;
	}
	log_msg(LOG_LVL_WARN, NULL, "settle: transaction %s of kind %s has no settlement",
	    t->id, t->kind);
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
