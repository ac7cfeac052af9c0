/*
 * h_internal.c: internal accounts (balances held by the service) and the
 * sandbox helper that funds one from the test environment's own account.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "xborder/db.h"
#include "xborder/db_accounts.h"
#include "xborder/handlers.h"
#include "xborder/ids.h"
#include "xborder/request.h"
#include "xborder/resp.h"
#include "xborder/valid.h"

#define FUND_MAX INT64_C(100000000000)

static const struct vfield fund_fields[] = {
	{ "amountMinor", VK_INT, VF_REQUIRED, 1, FUND_MAX, NULL, NULL, NULL },
	{ NULL, 0, 0, 0, 0, NULL, NULL, NULL }
};

json_object *
json_internal_account(const struct internal_account *a)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "id", json_prefixed("InternalAccount", a->id));
	json_object_object_add(o, "customerId",
	    a->customer_id[0] ? json_prefixed("Customer", a->customer_id) : NULL);
	json_object_object_add(o, "currency", json_object_new_string(a->currency));
	json_object_object_add(o, "balance", json_money(a->currency, a->balance));
	json_object_object_add(o, "createdAt", json_object_new_string(a->created_at));
	json_object_object_add(o, "updatedAt", json_object_new_string(a->updated_at));
	return o;
}

static int
list(struct req *req, const char *kind, const struct list_filter *filters)
{
	const char *vals[2] = { NULL, NULL };
	char ids[2][37];
	int64_t limit, cursor, total;
	struct internal_account *rows;
	size_t n;
	json_object *data;
	struct db *db;
	int rc;

	if (list_params_or_reply(req, 20, 100, &limit, &cursor) < 0 ||
	    list_filters_or_reply(req, filters, vals, ids) < 0)
		return -1;
	if ((db = req_db_or_reply(req)) == NULL)
		return -1;
	/* The customer list has (customerId, currency); the platform one (currency). */
	if (strcmp(kind, ACCT_PLATFORM) == 0) {
		vals[1] = vals[0];
		vals[0] = NULL;
	}
	if ((rc = db_internal_list(db, req->platform_id, kind, vals[0], vals[1], limit,
	    cursor, &rows, &n, &total)) != DB_OK)
		return req_db_fail(req, rc);
	data = json_object_new_array_ext((int)n);
	for (size_t i = 0; i < n; i++)
		json_object_array_add(data, json_internal_account(&rows[i]));
	free(rows);
	resp_json(req, 200, list_envelope(data, cursor, total, LIST_END_NULL));
	return 0;
}

int
h_internal_customer_list(struct req *req)
{
	static const struct list_filter filters[] = {
		{ "customerId", LF_ID, NULL, "Customer" },
		{ "currency", LF_CURRENCY, NULL, NULL },
		{ NULL, 0, NULL, NULL }
	};

	return list(req, ACCT_CUSTOMER, filters);
}

int
h_internal_platform_list(struct req *req)
{
	static const struct list_filter filters[] = {
		{ "currency", LF_CURRENCY, NULL, NULL },
		{ NULL, 0, NULL, NULL }
	};

	return list(req, ACCT_PLATFORM, filters);
}

int
h_internal_fund(struct req *req)
{
	char id[37];
	struct internal_account a;
	struct db *db;
	int64_t amount;
	int rc;

	if (ids_parse(req_param(req, 0), "InternalAccount", 0, id) < 0)
		return resp_invalid(req, "accountId", "must be InternalAccount:<uuid>");
	if (body_valid_or_reply(req, fund_fields) < 0)
		return -1;
	amount = json_object_get_int64(json_object_object_get(req->json, "amountMinor"));
	if ((db = req_db_or_reply(req)) == NULL)
		return -1;
	rc = db_internal_get(db, req->platform_id, id, &a);
	if (rc == DB_NOT_FOUND)
		return resp_error(req, 404, "ACCOUNT_NOT_FOUND", "No such internal account.", NULL);
	if (rc != DB_OK)
		return req_db_fail(req, rc);
	if (a.customer_deleted)
		return resp_error(req, 410, "GONE", "The owning customer has been deleted.", NULL);
	if (currency_enabled_or_reply(req, db, req->platform_id, a.currency, NULL, NULL,
	    NULL) < 0)
		return -1;
	rc = db_internal_fund(db, req->platform_id, id, amount, &a);
	if (rc == DB_LIMIT)
		return balance_limit_reply(req, "amountMinor");
	if (rc == DB_NOT_FOUND)
		return resp_error(req, 404, "ACCOUNT_NOT_FOUND", "No such internal account.", NULL);
	if (rc == DB_GONE)
		return resp_error(req, 410, "GONE", "The owning customer has been deleted.", NULL);
	if (rc != DB_OK)
		return req_db_fail(req, rc);
	resp_json(req, 200, json_internal_account(&a));
	return 0;
}
