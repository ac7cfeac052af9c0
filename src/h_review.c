/*
 * h_review.c: the incoming-review lane (decisions.md section 10).  POST
 * /sandbox/incoming-payments/simulate creates a case: an INCOMING
 * transaction in PENDING that waits for a decision; its readback carries
 * the review fields of its scenario while it is in the lane.  POST
 * /transactions/{id}/approve credits the receiver, /reject moves nothing;
 * a case nobody decides expires after review_window.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/rand.h>

#include "xborder/conf.h"
#include "xborder/db.h"
#include "xborder/db_customers.h"
#include "xborder/db_review.h"
#include "xborder/db_transactions.h"
#include "xborder/handlers.h"
#include "xborder/ids.h"
#include "xborder/json_txn.h"
#include "xborder/request.h"
#include "xborder/resp.h"
#include "xborder/review_ops.h"
#include "xborder/util.h"
#include "xborder/valid.h"

#define AMOUNT_MAX INT64_C(999999999999999999)	/* 18 digits, as MoneyAmount */

static const char *const scenarios[] = { "sanctions_hit", "sender_kyc_not_approved",
	"counterparty_info_incomplete", NULL };

static const struct vfield simulate_fields[] = {
	{ "receiverCustomerId", VK_STRING, VF_REQUIRED, 1, 128, NULL, NULL, NULL },
	{ "scenario", VK_ENUM, VF_REQUIRED, 0, 0, scenarios, NULL, NULL },
	{ "amountMinor", VK_INT, VF_REQUIRED, 1, AMOUNT_MAX, NULL, NULL, NULL },
	{ "currencyCode", VK_STRING, VF_REQUIRED, 3, 3, NULL, valid_currency_form, NULL },
	{ NULL, 0, 0, 0, 0, NULL, NULL, NULL }
};

static const struct vfield counterparty_fields[] = {
	{ "senderFullLegalName", VK_STRING, 0, 1, 256, NULL, NULL, NULL },
	{ "senderCountryCode", VK_STRING, 0, 2, 2, NULL, valid_country_code, NULL },
	{ "senderDateOfBirthOrRegistrationId", VK_STRING, 0, 1, 64, NULL, NULL, NULL },
	{ "purposeOfPayment", VK_STRING, 0, 1, 256, NULL, NULL, NULL },
	{ NULL, 0, 0, 0, 0, NULL, NULL, NULL }
};

static const struct vfield approve_fields[] = {
	{ "counterpartyInfo", VK_OBJECT, 0, 0, 0, NULL, NULL, counterparty_fields },
	{ "note", VK_STRING, 0, 1, 500, NULL, NULL, NULL },
	{ NULL, 0, 0, 0, 0, NULL, NULL, NULL }
};

static const struct vfield reject_fields[] = {
	{ "reason", VK_STRING, 0, 0, 500, NULL, NULL, NULL },
	{ NULL, 0, 0, 0, 0, NULL, NULL, NULL }
};

/* A sanctions_hit's match, made up for the sandbox. */
static char *
sanctions_match(void)
{
	static const char *const names[] = { "Viktor Sandboxov", "Omar Testani",
		"Lena Fictiva", "Juan Ejemplo" };
	static const char *const labels[] = { "LOW", "MEDIUM", "HIGH" };
	unsigned char b[2] = { 0, 0 };
	json_object *o = json_object_new_object();
	char *s;

	if (RAND_bytes(b, sizeof(b)) != 1)
		abort();
	json_object_object_add(o, "matchedName", json_object_new_string(names[b[0] % 4]));
	json_object_object_add(o, "matchedListName",
	    json_object_new_string("Sandbox Consolidated Sanctions List"));
	json_object_object_add(o, "confidenceLabel", json_object_new_string(labels[b[1] % 3]));
	s = xstrdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
	return s;
}

/*
 * The receiverCustomerId v as a bare id in customer[37]: only a live
 * customer of this platform receives; any other id is unknown (404).
 * 0, or -1 once answered (404, 410, 5xx).
 */
static int
receiver_or_reply(struct req *req, struct db *db, const char *v, char customer[37])
{
	struct customer c;
	int rc;

	if (ids_parse(v, "Customer", 0, customer) < 0)
		return resp_error(req, 404, "CUSTOMER_NOT_FOUND", "No such customer.", NULL);
	rc = db_customer_get(db, req->platform_id, customer, &c);
	if (rc == DB_OK || rc == DB_GONE)
		customer_free(&c);
	return rc == DB_OK ? 0 : customer_fail_reply(req, rc);
}

int
h_review_simulate(struct req *req)
{
	struct review_new n;
	char customer[37], *detail = NULL;
	const char *v;
	int64_t min = 0, max = 0;
	json_object *o;
	struct txn t;
	struct db *db;
	int rc;

	if (body_valid_or_reply(req, simulate_fields) < 0)
		return -1;
	memset(&n, 0, sizeof(n));
	v = json_object_get_string(json_object_object_get(req->json, "receiverCustomerId"));
	n.scenario = json_object_get_string(json_object_object_get(req->json, "scenario"));
	n.amount = json_object_get_int64(json_object_object_get(req->json, "amountMinor"));
	n.currency = json_object_get_string(json_object_object_get(req->json, "currencyCode"));
	n.window_ms = req->conf->review_window * 1000;
	if ((db = req_db_or_reply(req)) == NULL)
		return -1;
	if (receiver_or_reply(req, db, v, customer) < 0)
		return -1;
	n.customer_id = customer;
	if (currency_enabled_or_reply(req, db, req->platform_id, n.currency, "INCOMING",
	    &min, &max) < 0 ||
	    amount_range_or_reply(req, "amountMinor", n.amount, min, max) < 0)
		return -1;
	if (strcmp(n.scenario, "sanctions_hit") == 0)
		n.detail = detail = sanctions_match();
	rc = review_simulate(db, req->platform_id, &n, &t);
	free(detail);
	if (rc != DB_OK)
		return customer_fail_reply(req, rc);
	o = json_object_new_object();
	json_object_object_add(o, "transactionId", json_prefixed("Transaction", t.id));
	json_object_object_add(o, "receiverCustomerId", json_prefixed("Customer", customer));
	json_object_object_add(o, "scenario", json_object_new_string(n.scenario));
	json_object_object_add(o, "type", json_object_new_string("INCOMING"));
	json_object_object_add(o, "status", json_object_new_string("PENDING"));
	json_object_object_add(o, "decisionRequired", json_object_new_boolean(1));
	json_object_object_add(o, "receivedAmount", json_money(t.currency, t.amount));
	json_object_object_add(o, "createdAt", json_object_new_string(t.created_at));
	txn_free(&t);
	resp_json(req, 201, o);
	return 0;
}

static int
not_pending_reply(struct req *req, const char *status)
{
	json_object *d = json_object_new_object();

	json_object_object_add(d, "status", json_object_new_string(status));
	return resp_error(req, 409, "TRANSACTION_NOT_PENDING",
	    "The transaction is not waiting for a decision.", d);
}

/*
 * The rules of an approval that the case itself decides: a reject_only
 * case cannot be approved (409), a manual-review case needs every missing
 * field in counterpartyInfo (400).
 */
static int
approvable_or_reply(struct req *req, const struct txn *t)
{
	json_object *info, *missing, *d;

	if (txn_review_reject_only(t->review_scenario)) {
		d = json_object_new_object();
		json_object_object_add(d, "approveBlockedReason",
		    json_object_new_string("reject_only"));
		return resp_error(req, 409, "APPROVAL_NOT_ALLOWED",
		    "This case can only be rejected.", d);
	}
	info = req->json != NULL ? json_object_object_get(req->json, "counterpartyInfo") : NULL;
	missing = json_object_new_array();
	for (size_t i = 0; txn_review_required_fields[i] != NULL; i++)
		if (!json_object_object_get_ex(info, txn_review_required_fields[i], NULL))
			json_object_array_add(missing, json_object_new_string(txn_review_required_fields[i]));
	if (json_object_array_length(missing) == 0) {
		json_object_put(missing);
		return 0;
	}
	d = json_object_new_object();
	json_object_object_add(d, "missingRequiredFields", missing);
	return resp_error(req, 400, "INVALID_REQUEST",
	    "Approval needs the missing counterparty information; see details.", d);
}

/* POST /transactions/{id}/approve (approve == 1) and /reject. */
static int
decide(struct req *req, int approve)
{
	struct review_decision d;
	char id[37], status[16];
	const char *note_key = approve ? "note" : "reason";
	json_object *info;
	struct txn t;
	struct db *db;
	int rc;

	if (transaction_id_or_reply(req, id) < 0)
		return -1;
	if (req->json != NULL &&
	    body_valid_or_reply(req, approve ? approve_fields : reject_fields) < 0)
		return -1;
	if (id[0] == '\0')
		return transaction_not_found_reply(req);
	if ((db = req_db_or_reply(req)) == NULL)
		return -1;
	rc = db_txn_get(db, req->platform_id, id, &t);
	if (rc == DB_NOT_FOUND)
		return transaction_not_found_reply(req);
	if (rc != DB_OK)
		return req_db_fail(req, rc);
	if (t.review_scenario[0] == '\0' || strcmp(t.status, "PENDING") != 0) {
		not_pending_reply(req, t.status);
		txn_free(&t);
		return -1;
	}
	rc = approve ? approvable_or_reply(req, &t) : 0;
	txn_free(&t);
	if (rc < 0)
		return -1;
	memset(&d, 0, sizeof(d));
	d.approve = approve;
	d.token_id = req->token_id;
	if (req->json != NULL) {
		d.note = json_object_get_string(json_object_object_get(req->json, note_key));
		if ((info = json_object_object_get(req->json, "counterpartyInfo")) != NULL)
			d.counterparty = json_object_to_json_string_ext(info, JSON_C_TO_STRING_PLAIN);
	}
	rc = review_decide(db, req->platform_id, id, &d, &t, status);
	if (rc == DB_CONFLICT)
		return not_pending_reply(req, status);
	if (rc == DB_LIMIT)
		return balance_limit_reply(req, "amountMinor");
	if (rc == DB_NOT_FOUND)
		return transaction_not_found_reply(req);
	if (rc != DB_OK)
		return req_db_fail(req, rc);
	resp_json(req, 200, json_transaction(&t));
	txn_free(&t);
	return 0;
}

int
h_review_approve(struct req *req)
{
	return decide(req, 1);
}

int
h_review_reject(struct req *req)
{
	return decide(req, 0);
}
