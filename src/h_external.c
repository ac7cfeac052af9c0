/*
 * h_external.c: customer-bound external bank accounts.  The account and
 * routing numbers are write-only: they are reduced to their last four
 * characters and a keyed fingerprint here, before anything reaches the
 * store, and never appear in a response or a log line.
 */
#include "config.h"

#include <string.h>

#include <openssl/crypto.h>

#include "xborder/bankacct.h"
#include "xborder/conf.h"
#include "xborder/db.h"
#include "xborder/db_accounts.h"
#include "xborder/handlers.h"
#include "xborder/http.h"
#include "xborder/ids.h"
#include "xborder/request.h"
#include "xborder/resp.h"
#include "xborder/valid.h"

static const char *const account_types[] = { "CHECKING", "SAVINGS", NULL };
static const char *const account_categories[] = { "PERSONAL", "BUSINESS", NULL };

static const struct vfield info_fields[] = {
	{ "accountType", VK_ENUM, VF_REQUIRED, 0, 0, account_types, NULL, NULL },
	{ "accountCategory", VK_ENUM, VF_REQUIRED, 0, 0, account_categories, NULL, NULL },
	{ "bankName", VK_STRING, VF_REQUIRED, 1, 140, NULL, NULL, NULL },
	{ "accountNumber", VK_STRING, VF_REQUIRED, 4, 34, NULL, valid_account_number, NULL },
	{ "routingNumber", VK_STRING, VF_REQUIRED, 4, 11, NULL, valid_routing_number, NULL },
	{ NULL, 0, 0, 0, 0, NULL, NULL, NULL }
};

static const struct vfield create_fields[] = {
	{ "customerId", VK_STRING, VF_REQUIRED, 1, 64, NULL, NULL, NULL },
	{ "currency", VK_STRING, VF_REQUIRED, 3, 3, NULL, valid_currency, NULL },
	{ "platformAccountId", VK_STRING, VF_REQUIRED, 1, 128, NULL, NULL, NULL },
	{ "accountInfo", VK_OBJECT, VF_REQUIRED, 0, 0, NULL, NULL, info_fields },
	{ NULL, 0, 0, 0, 0, NULL, NULL, NULL }
};

json_object *
json_external_account(const struct external_account *a)
{
	json_object *o = json_object_new_object(), *info = json_object_new_object();

	json_object_object_add(o, "id", json_prefixed("ExternalAccount", a->id));
	json_object_object_add(o, "status", json_object_new_string(a->status));
	json_object_object_add(o, "customerId", json_prefixed("Customer", a->customer_id));
	json_object_object_add(o, "currency", json_object_new_string(a->currency));
	json_object_object_add(info, "accountType", json_object_new_string(a->account_type));
	json_object_object_add(info, "accountCategory",
	    json_object_new_string(a->account_category));
	json_object_object_add(info, "bankName", json_object_new_string(a->bank_name));
	json_object_object_add(info, "accountNumberLast4",
	    json_object_new_string(a->account_last4));
	json_object_object_add(info, "routingNumberLast4",
	    json_object_new_string(a->routing_last4));
	json_object_object_add(o, "accountInfo", info);
	json_object_object_add(o, "platformAccountId",
	    json_object_new_string(a->platform_account_id));
	json_object_object_add(o, "createdAt", json_object_new_string(a->created_at));
	json_object_object_add(o, "updatedAt", json_object_new_string(a->updated_at));
	return o;
}

static const char *
str(json_object *o, const char *key)
{
	return json_object_get_string(json_object_object_get(o, key));
}

int
h_external_create(struct req *req)
{
	json_object *info;
	struct external_new n;
	struct external_account a;
	char customer[37], last4[5], rlast4[5], fp[65];
	struct db *db;
	int rc;

	if (body_valid_or_reply(req, create_fields) < 0 ||
	    customer_id_or_reply(req, str(req->json, "customerId"), "customerId", customer) < 0)
		return -1;
	info = json_object_object_get(req->json, "accountInfo");
	bankacct_last4(str(info, "accountNumber"), last4);
	bankacct_last4(str(info, "routingNumber"), rlast4);
	bankacct_fingerprint(req->conf->fingerprint_key, str(info, "accountNumber"),
	    str(info, "routingNumber"), fp);
	n.customer_id = customer;
	n.currency = str(req->json, "currency");
	n.platform_account_id = str(req->json, "platformAccountId");
	n.account_type = str(info, "accountType");
	n.account_category = str(info, "accountCategory");
	n.bank_name = str(info, "bankName");
	n.account_last4 = last4;
	n.routing_last4 = rlast4;
	n.fingerprint = fp;
	if ((db = req_db_or_reply(req)) == NULL)
		return -1;
	rc = db_external_create(db, req->platform_id, &n, &a);
	if (rc == DB_NOT_FOUND)
		return resp_error(req, 404, "CUSTOMER_NOT_FOUND", "No such customer.", NULL);
	if (rc == DB_GONE)
		return resp_error(req, 410, "GONE", "The customer has been deleted.", NULL);
	if (rc == DB_DUPLICATE)
		return resp_error(req, 409, "EXTERNAL_ACCOUNT_EXISTS",
		    "This customer already has that account in that currency.", NULL);
	if (rc != DB_OK)
		return req_db_fail(req, rc);
	resp_json(req, 201, json_external_account(&a));
	external_account_free(&a);
	return 0;
}

int
h_external_list(struct req *req)
{
	static const struct list_filter filters[] = {
		{ "customerId", LF_ID, NULL, "Customer" },
		{ "currency", LF_CURRENCY, NULL, NULL },
		{ NULL, 0, NULL, NULL }
	};
	const char *vals[2];
	char ids[2][37];
	int64_t limit, cursor, total;
	struct external_account *list;
	size_t n;
	json_object *data;
	struct db *db;
	int rc;

	if (list_params_or_reply(req, 10, 100, &limit, &cursor) < 0 ||
	    list_filters_or_reply(req, filters, vals, ids) < 0)
		return -1;
	if ((db = req_db_or_reply(req)) == NULL)
		return -1;
	if ((rc = db_external_list(db, req->platform_id, vals[0], vals[1], limit, cursor,
	    &list, &n, &total)) != DB_OK)
		return req_db_fail(req, rc);
	data = json_object_new_array_ext((int)n);
	for (size_t i = 0; i < n; i++)
		json_object_array_add(data, json_external_account(&list[i]));
	external_account_list_free(list, n);
	resp_json(req, 200, list_envelope(data, cursor, total, LIST_END_EMPTY));
	return 0;
}

int
h_external_get(struct req *req)
{
	char id[37];
	struct external_account a;
	struct db *db;
	int rc;

	if (ids_parse(req_param(req, 0), "ExternalAccount", 0, id) < 0)
		return resp_invalid(req, "accountId", "must be ExternalAccount:<uuid>");
	if ((db = req_db_or_reply(req)) == NULL)
		return -1;
	rc = db_external_get(db, req->platform_id, id, &a);
	if (rc == DB_GONE) {
		external_account_free(&a);
		return resp_error(req, 410, "GONE", "The owning customer has been deleted.", NULL);
	}
	if (rc == DB_NOT_FOUND)
		return resp_error(req, 404, "NOT_FOUND", "No such external account.", NULL);
	if (rc != DB_OK)
		return req_db_fail(req, rc);
	resp_json(req, 200, json_external_account(&a));
	external_account_free(&a);
	return 0;
}

int
h_external_delete(struct req *req)
{
	char id[37], customer[37];
	const char *cv = NULL;
	json_object *o;
	struct db *db;
	int rc, n;

	if (ids_parse(req_param(req, 0), "ExternalAccount", 0, id) < 0)
		return resp_invalid(req, "accountId", "must be ExternalAccount:<uuid>");
	if ((n = query_or_reply(req, "customerId", &cv)) < 0)
		return -1;
	if (n == 0)
		return resp_invalid(req, "customerId", "is required");
	if (customer_id_or_reply(req, cv, "customerId", customer) < 0)
		return -1;
	if ((db = req_db_or_reply(req)) == NULL)
		return -1;
	rc = db_external_delete(db, req->platform_id, id, customer);
	if (rc == DB_GONE)
		return resp_error(req, 410, "GONE", "The owning customer has been deleted.", NULL);
	if (rc == DB_NOT_FOUND)
		return resp_error(req, 404, "NOT_FOUND", "No such external account.", NULL);
	if (rc != DB_OK)
		return req_db_fail(req, rc);
	o = json_object_new_object();
	json_object_object_add(o, "deleted", json_object_new_boolean(1));
	json_object_object_add(o, "accountId", json_prefixed("ExternalAccount", id));
	resp_json(req, 200, o);
	return 0;
}
