/*
 * h_transfers.c: same-currency transfers between a customer's external
 * bank account and its internal account.  POST /transfer-in brings money
 * in (credited when the bank settles); POST /transfer-out takes it out of
 * the balance at once (into the platform's in-transit account) and the
 * background worker settles it.  Checks follow decisions.md: the form,
 * then the accounts, then currency, amount range (the currency's limits,
 * then the service's balance limit) and funds.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "xborder/bankacct.h"
#include "xborder/db.h"
#include "xborder/db_accounts.h"
#include "xborder/db_customers.h"
#include "xborder/db_transactions.h"
#include "xborder/handlers.h"
#include "xborder/ids.h"
#include "xborder/ledger.h"
#include "xborder/request.h"
#include "xborder/resp.h"
#include "xborder/transfer.h"
#include "xborder/util.h"
#include "xborder/valid.h"

static const struct vfield account_ref[] = {
	{ "accountId", VK_STRING, VF_REQUIRED, 1, 128, NULL, NULL, NULL },
	{ NULL, 0, 0, 0, 0, NULL, NULL, NULL }
};

static const struct vfield money_fields[] = {
	{ "currencyCode", VK_STRING, VF_REQUIRED, 3, 3, NULL, valid_currency_form, NULL },
	{ "amountMinor", VK_STRING, VF_REQUIRED, 1, 18, NULL, valid_amount_minor, NULL },
	{ NULL, 0, 0, 0, 0, NULL, NULL, NULL }
};

static const struct vfield transfer_fields[] = {
	{ "source", VK_OBJECT, VF_REQUIRED, 0, 0, NULL, NULL, account_ref },
	{ "destination", VK_OBJECT, VF_REQUIRED, 0, 0, NULL, NULL, account_ref },
	{ "amount", VK_OBJECT, VF_REQUIRED, 0, 0, NULL, NULL, money_fields },
	{ NULL, 0, 0, 0, 0, NULL, NULL, NULL }
};

static const char *
path_str(json_object *o, const char *a, const char *b)
{
	return json_object_get_string(json_object_object_get(json_object_object_get(o, a), b));
}

int
amount_range_or_reply(struct req *req, const char *field, int64_t amount, int64_t min,
    int64_t max)
{
	json_object *d;
	char rule[128];

	if (amount >= min && amount <= max)
		return 0;
	d = json_object_new_object();
	snprintf(rule, sizeof(rule), "must be from %" PRId64 " to %" PRId64, min, max);
	json_object_object_add(d, field, json_object_new_string(rule));
	return resp_error(req, 400, "AMOUNT_OUT_OF_RANGE",
	    "The amount is outside the limits of the currency.", d);
}

int
balance_limit_reply(struct req *req, const char *field)
{
	json_object *d = json_object_new_object();
	char rule[128];

	snprintf(rule, sizeof(rule), "must keep every balance it moves from -%" PRId64
	    " to %" PRId64, LEDGER_BALANCE_MAX, LEDGER_BALANCE_MAX);
	json_object_object_add(d, field, json_object_new_string(rule));
	return resp_error(req, 400, "AMOUNT_OUT_OF_RANGE",
	    "The amount would take a balance past the service's balance limit.", d);
}

int
insufficient_reply(struct req *req, const struct ledger_short *s)
{
	json_object *d = json_object_new_object();

	json_object_object_add(d, "available", json_money(s->currency, s->available));
	json_object_object_add(d, "requested", json_money(s->currency, s->requested));
	return resp_error(req, 409, "INSUFFICIENT_FUNDS",
	    "The account does not hold enough money.", d);
}

/*
 * Loads the external account ext_id and the internal account int_id in one
 * round trip and checks that they may meet in a transfer: the internal one
 * a customer's, both of the same customer and in the transfer's currency.
 * 0 with *ea to free by the caller; -1 once answered (404, 410, 400, 5xx).
 */
static int
accounts_or_reply(struct req *req, struct db *db, const char *ext_id, const char *int_id,
    const char *int_field, const char *currency, struct external_account *ea,
    struct internal_account *ia)
{
	int rc, int_rc;

	/* Both accounts in one round trip; the external account's answer first. */
	rc = db_transfer_accounts(db, req->platform_id, ext_id, int_id, ea, ia, &int_rc);
	if (rc == DB_GONE) {
		external_account_free(ea);
		return resp_error(req, 410, "GONE", "The owning customer has been deleted.", NULL);
	}
	if (rc == DB_NOT_FOUND)
		return resp_error(req, 404, "NOT_FOUND", "No such external account.", NULL);
	if (rc != DB_OK)
		return req_db_fail(req, rc);
	rc = int_rc;
	if (rc == DB_OK && ia->customer_id[0] == '\0')
		rc = DB_NOT_FOUND;	/* platform-owned: not a customer's account */
	if (rc != DB_OK) {
		external_account_free(ea);
		if (rc == DB_NOT_FOUND)
			return resp_error(req, 404, "ACCOUNT_NOT_FOUND",
			    "No such internal account.", NULL);
		return req_db_fail(req, rc);
	}
	if (strcmp(ia->customer_id, ea->customer_id) != 0) {
		external_account_free(ea);
		return resp_invalid(req, int_field,
		    "must belong to the same customer as the external account");
	}
	if (strcmp(ia->currency, ea->currency) != 0 || strcmp(currency, ia->currency) != 0) {
		char rule[96];

		snprintf(rule, sizeof(rule), "must be the currency of both accounts (%s and %s)",
		    ia->currency, ea->currency);
		external_account_free(ea);
		return resp_invalid(req, "amount.currencyCode", rule);
	}
	return 0;
}

/*
 * The checks of a transfer in that need the customer: it still exists
 * (410) and the credit keeps the balance within the limit (400).  Writes
 * the customer's address to ppv.  0, or -1 once answered.
 */
static int
transfer_in_or_reply(struct req *req, struct db *db, const struct internal_account *ia,
    int64_t amount, char *ppv, size_t ppvlen)
{
	struct customer c;
	int64_t after;
	int rc;

	rc = db_customer_get(db, req->platform_id, ia->customer_id, &c);
	if (rc != DB_OK && rc != DB_GONE)
		return req_db_fail(req, rc);
	snprintf(ppv, ppvlen, "%s@%s", c.ppv_name, c.ppv_domain);
	customer_free(&c);
	if (rc == DB_GONE)
		return resp_error(req, 410, "GONE", "The customer has been deleted.", NULL);
	/*
	 * The customer's credit is checked again at settlement (the
	 * balance may have grown meanwhile); this answers the plain
	 * case now, while the client can be told.
	 */
	if (ledger_balance_after(ia->balance, amount, 0, &after) == LEDGER_PAST_LIMIT)
		return balance_limit_reply(req, "amount.amountMinor");
	return 0;
}

/*
 * Answers what writing the transfer returned (rc): 201 with the
 * transaction (txn, freed here), 400 past the balance limit, 409 short of
 * funds (shortfall), 410 or 5xx.
 */
static int
transfer_reply(struct req *req, int rc, struct txn *txn, const struct ledger_short *shortfall)
{
	if (rc == DB_LIMIT)
		return balance_limit_reply(req, "amount.amountMinor");
	if (rc == DB_INSUFFICIENT)
		return insufficient_reply(req, shortfall);
	if (rc == DB_GONE)
		return resp_error(req, 410, "GONE", "The customer has been deleted.", NULL);
	if (rc != DB_OK)
		return req_db_fail(req, rc);
	resp_json(req, 201, json_transaction(txn));
	txn_free(txn);
	return 0;
}

/* POST /transfer-in (out == 0) and POST /transfer-out (out == 1). */
static int
transfer(struct req *req, int out)
{
	const char *ext_field = out ? "destination.accountId" : "source.accountId";
	const char *int_field = out ? "source.accountId" : "destination.accountId";
	char ext_id[37], int_id[37], ppv[400];
	struct external_account ea;
	struct internal_account ia;
	struct transfer t;
	struct ledger_short shortfall;
	struct txn txn;
	int64_t amount, min = 0, max = 0;
	const char *currency;
	struct db *db;
	int rc;

	if (body_valid_or_reply(req, transfer_fields) < 0)
		return -1;
	if (ids_parse(path_str(req->json, out ? "destination" : "source", "accountId"),
	    "ExternalAccount", 0, ext_id) < 0)
		return resp_invalid(req, ext_field, "must be ExternalAccount:<uuid>");
	if (ids_parse(path_str(req->json, out ? "source" : "destination", "accountId"),
	    "InternalAccount", 0, int_id) < 0)
		return resp_invalid(req, int_field, "must be InternalAccount:<uuid>");
	currency = path_str(req->json, "amount", "currencyCode");
	parse_i64_digits(path_str(req->json, "amount", "amountMinor"), &amount);
	if ((db = req_db_or_reply(req)) == NULL)
		return -1;
	if (accounts_or_reply(req, db, ext_id, int_id, int_field, currency, &ea, &ia) < 0)
		return -1;
	if (currency_enabled_or_reply(req, db, req->platform_id, currency,
	    out ? "OUTGOING" : "INCOMING", &min, &max) < 0 ||
	    amount_range_or_reply(req, "amount.amountMinor", amount, min, max) < 0) {
		external_account_free(&ea);
		return -1;
	}

	memset(&t, 0, sizeof(t));
	t.customer_id = ia.customer_id;
	t.internal_account_id = int_id;
	t.external_account_id = ext_id;
	t.currency = currency;
	t.amount = amount;
	t.outcome = bankacct_outcome_name(ea.account_last4, out);
	external_account_free(&ea);
	if (!out) {
		if (transfer_in_or_reply(req, db, &ia, amount, ppv, sizeof(ppv)) < 0)
			return -1;
		t.ppv_address = ppv;
		rc = transfer_in(db, req->platform_id, &t, &txn);
	} else
		rc = transfer_out(db, req->platform_id, &t, &txn, &shortfall);
	return transfer_reply(req, rc, &txn, &shortfall);
}

int
h_transfer_in(struct req *req)
{
	return transfer(req, 0);
}

int
h_transfer_out(struct req *req)
{
	return transfer(req, 1);
}
