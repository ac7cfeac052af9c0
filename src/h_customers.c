/*
 * h_customers.c: customers and their PPV payment addresses.  A customer is
 * created with an internal account per supported currency; deleting one
 * is refused while it holds money and afterwards it answers 410 GONE.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "xborder/db.h"
#include "xborder/db_customers.h"
#include "xborder/handlers.h"
#include "xborder/http.h"
#include "xborder/ids.h"
#include "xborder/request.h"
#include "xborder/resp.h"
#include "xborder/valid.h"

static const char *const customer_types[] = { "INDIVIDUAL", "ENTITY", NULL };
static const char *const kyc_values[] = { "PENDING", "APPROVED", "REJECTED", NULL };

static const struct vfield create_fields[] = {
	{ "platformCustomerId", VK_STRING, VF_REQUIRED, 1, 128, NULL, NULL, NULL },
	{ "customerType", VK_ENUM, VF_REQUIRED, 0, 0, customer_types, NULL, NULL },
	{ "fullName", VK_STRING, VF_REQUIRED, 1, 256, NULL, NULL, NULL },
	{ "kycStatus", VK_ENUM, 0, 0, 0, kyc_values, NULL, NULL },
	{ "ppvName", VK_STRING, 0, 1, 64, NULL, valid_ppv_name, NULL },
	{ NULL, 0, 0, 0, 0, NULL, NULL, NULL }
};

static const struct vfield patch_fields[] = {
	{ "platformCustomerId", VK_STRING, 0, 1, 128, NULL, NULL, NULL },
	{ "customerType", VK_ENUM, 0, 0, 0, customer_types, NULL, NULL },
	{ "fullName", VK_STRING, 0, 1, 256, NULL, NULL, NULL },
	{ "kycStatus", VK_ENUM, 0, 0, 0, kyc_values, NULL, NULL },
	{ NULL, 0, 0, 0, 0, NULL, NULL, NULL }
};

static const struct vfield ppv_fields[] = {
	{ "ppvName", VK_STRING, VF_REQUIRED, 1, 64, NULL, valid_ppv_name, NULL },
	{ NULL, 0, 0, 0, 0, NULL, NULL, NULL }
};

json_object *
json_customer(const struct customer *c)
{
	json_object *o = json_object_new_object();
	char ppv[400];

	snprintf(ppv, sizeof(ppv), "%s@%s", c->ppv_name, c->ppv_domain);
	json_object_object_add(o, "id", json_prefixed("Customer", c->id));
	json_object_object_add(o, "platformId", json_prefixed("Platform", c->platform_id));
	json_object_object_add(o, "platformCustomerId",
	    json_object_new_string(c->platform_customer_id));
	json_object_object_add(o, "customerType", json_object_new_string(c->type));
	json_object_object_add(o, "fullName", json_object_new_string(c->full_name));
	json_object_object_add(o, "ppvAddress", json_object_new_string(ppv));
	json_object_object_add(o, "kycStatus", json_object_new_string(c->kyc));
	json_object_object_add(o, "createdAt", json_object_new_string(c->created_at));
	json_object_object_add(o, "updatedAt", json_object_new_string(c->updated_at));
	return o;
}

/* The string value of body field name, or NULL when absent. */
static const char *
body_str(struct req *req, const char *name)
{
	json_object *v;

	return json_object_object_get_ex(req->json, name, &v) && v != NULL ?
	    json_object_get_string(v) : NULL;
}

static int
conflict_reply(struct req *req, enum customer_conflict c)
{
	if (c == CONFLICT_PPV)
		return resp_error(req, 409, "PPV_ADDRESS_TAKEN",
		    "That PPV name is already in use on this platform.", NULL);
	return resp_error(req, 409, "CUSTOMER_ALREADY_EXISTS",
	    "A live customer with that platformCustomerId exists.", NULL);
}

int
customer_fail_reply(struct req *req, int rc)
{
	if (rc == DB_NOT_FOUND)
		return resp_error(req, 404, "CUSTOMER_NOT_FOUND", "No such customer.", NULL);
	if (rc == DB_GONE)
		return resp_error(req, 410, "GONE", "The customer has been deleted.", NULL);
	return req_db_fail(req, rc);
}

int
customer_id_or_reply(struct req *req, const char *value, const char *field,
    char id[37])
{
	if (ids_parse(value, "Customer", 0, id) < 0)
		return resp_invalid(req, field, "must be Customer:<uuid>");
	return 0;
}

int
h_customers_create(struct req *req)
{
	struct customer_fields f;
	enum customer_conflict conflict;
	struct customer c;
	struct db *db;
	int rc;

	if (body_valid_or_reply(req, create_fields) < 0)
		return -1;
	f.platform_customer_id = body_str(req, "platformCustomerId");
	f.type = body_str(req, "customerType");
	f.full_name = body_str(req, "fullName");
	f.kyc = body_str(req, "kycStatus") ? body_str(req, "kycStatus") : "APPROVED";
	f.ppv_name = body_str(req, "ppvName");
	if ((db = req_db_or_reply(req)) == NULL)
		return -1;
	rc = db_customer_create(db, req->platform_id, &f, &c, &conflict);
	if (rc == DB_DUPLICATE)
		return conflict_reply(req, conflict);
	if (rc != DB_OK)
		return req_db_fail(req, rc);
	resp_json(req, 201, json_customer(&c));
	customer_free(&c);
	return 0;
}

int
h_customers_list(struct req *req)
{
	static const struct list_filter filters[] = {
		{ "customerType", LF_ENUM, customer_types, NULL },
		{ "kycStatus", LF_ENUM, kyc_values, NULL },
		{ "platformCustomerId", LF_STRING, NULL, NULL },
		{ NULL, 0, NULL, NULL }
	};
	const char *values[3];
	char ids[3][37];
	struct customer_filter f;
	int64_t limit, cursor, total;
	struct customer *list;
	size_t n;
	json_object *data;
	struct db *db;
	int rc;

	if (list_params_or_reply(req, 20, 100, &limit, &cursor) < 0 ||
	    list_filters_or_reply(req, filters, values, ids) < 0)
		return -1;
	f.type = values[0];
	f.kyc = values[1];
	f.platform_customer_id = values[2];
	if ((db = req_db_or_reply(req)) == NULL)
		return -1;
	if ((rc = db_customer_list(db, req->platform_id, &f, limit, cursor, &list, &n,
	    &total)) != DB_OK)
		return req_db_fail(req, rc);
	data = json_object_new_array_ext((int)n);
	for (size_t i = 0; i < n; i++)
		json_object_array_add(data, json_customer(&list[i]));
	customer_list_free(list, n);
	resp_json(req, 200, list_envelope(data, cursor, total, LIST_END_NULL));
	return 0;
}

int
h_customers_get(struct req *req)
{
	char id[37];
	struct customer c;
	struct db *db;
	int rc;

	if (customer_id_or_reply(req, req_param(req, 0), "customerId", id) < 0)
		return -1;
	if ((db = req_db_or_reply(req)) == NULL)
		return -1;
	rc = db_customer_get(db, req->platform_id, id, &c);
	if (rc != DB_OK) {
		customer_free(&c);	/* filled when the customer is gone */
		return customer_fail_reply(req, rc);
	}
	resp_json(req, 200, json_customer(&c));
	customer_free(&c);
	return 0;
}

/* PATCH and PPV issuance: both apply customer_fields and answer the Customer. */
static int
update(struct req *req, const struct customer_fields *f)
{
	char id[37];
	enum customer_conflict conflict;
	struct customer c;
	struct db *db;
	int rc;

	if (customer_id_or_reply(req, req_param(req, 0), "customerId", id) < 0)
		return -1;
	if ((db = req_db_or_reply(req)) == NULL)
		return -1;
	rc = db_customer_update(db, req->platform_id, id, f, &c, &conflict);
	if (rc != DB_OK)
		customer_free(&c);	/* filled when the customer is gone */
	if (rc == DB_DUPLICATE)
		return conflict_reply(req, conflict);
	if (rc != DB_OK)
		return customer_fail_reply(req, rc);
	resp_json(req, 200, json_customer(&c));
	customer_free(&c);
	return 0;
}

int
h_customers_patch(struct req *req)
{
	struct customer_fields f;

	if (body_valid_or_reply(req, patch_fields) < 0)
		return -1;
	memset(&f, 0, sizeof(f));
	f.platform_customer_id = body_str(req, "platformCustomerId");
	f.type = body_str(req, "customerType");
	f.full_name = body_str(req, "fullName");
	f.kyc = body_str(req, "kycStatus");
	return update(req, &f);
}

int
h_customers_ppv(struct req *req)
{
	struct customer_fields f;

	if (body_valid_or_reply(req, ppv_fields) < 0)
		return -1;
	memset(&f, 0, sizeof(f));
	f.ppv_name = body_str(req, "ppvName");
	return update(req, &f);
}

int
h_customers_delete(struct req *req)
{
	char id[37];
	json_object *o;
	struct db *db;
	int rc;

	if (customer_id_or_reply(req, req_param(req, 0), "customerId", id) < 0)
		return -1;
	if ((db = req_db_or_reply(req)) == NULL)
		return -1;
	rc = db_customer_delete(db, req->platform_id, id);
	if (rc == DB_CONFLICT)
		return resp_error(req, 409, "CUSTOMER_HAS_BALANCE",
		    "The customer still holds money or has unfinished transactions.", NULL);
	if (rc != DB_OK)
		return customer_fail_reply(req, rc);
	o = json_object_new_object();
	json_object_object_add(o, "deleted", json_object_new_boolean(1));
	json_object_object_add(o, "customerId", json_prefixed("Customer", id));
	resp_json(req, 200, o);
	return 0;
}
