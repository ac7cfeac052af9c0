/*
 * h_transactions.c: reading transactions.  The Transaction resource is
 * closed: the outgoing variant has source and sentAmount, the incoming one
 * receivedAmount, and nothing else beyond the documented table.
 * Transaction ids are opaque to clients: a well-formed id that is not ours
 * is simply not found.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "xborder/db.h"
#include "xborder/db_transactions.h"
#include "xborder/handlers.h"
#include "xborder/http.h"
#include "xborder/ids.h"
#include "xborder/jtext.h"
#include "xborder/req.h"
#include "xborder/resp.h"
#include "xborder/valid.h"

static const char *const types[] = { "OUTGOING", "INCOMING", NULL };
static const char *const statuses[] = { "CREATED", "PENDING", "PROCESSING", "COMPLETED",
	"REJECTED", "FAILED", "REFUNDED", "EXPIRED", NULL };

/*
 * The Transaction resource, written as text: the one definition of its
 * shape, for every answer and event that carries one.  Review fields (an
 * incoming payment held in the review lane) come from json_review_fields().
 */
static void
txn_text(struct jtext *j, const struct txn *t)
{
	int out = strcmp(t->type, "OUTGOING") == 0;
	int settled = strcmp(t->status, "COMPLETED") == 0 || strcmp(t->status, "REFUNDED") == 0;

	jt_open(j, '{');
	jt_key(j, "transactionId");
	jt_prefixed(j, "Transaction", t->id);
	jt_key(j, "quoteId");
	jt_prefixed_or_null(j, "Quote", t->quote_id);
	jt_key(j, "type");
	jt_str(j, t->type);
	jt_key(j, "status");
	jt_str(j, t->status);
	jt_key(j, "customerId");
	jt_prefixed_or_null(j, "Customer", t->customer_id);
	jt_key(j, "platformCustomerId");
	jt_str_or_null(j, t->platform_customer_id);
	jt_key(j, "createdAt");
	jt_str(j, t->created_at);
	jt_key(j, "updatedAt");
	jt_str(j, t->updated_at);
	jt_key(j, "settledAt");
	jt_str_or_null(j, settled && t->settled_at[0] ? t->settled_at : NULL);
	if (t->exchange_rate != NULL) {
		jt_key(j, "exchangeRate");
		jt_str(j, t->exchange_rate);
	}
	if (t->fee_currency[0]) {
		jt_key(j, "fees");
		jt_money(j, t->fee_currency, t->fee_amount);
	}
	if (out) {
		jt_key(j, "source");
		jt_open(j, '{');
		jt_key(j, "accountId");
		jt_prefixed_or_null(j, "InternalAccount", t->internal_account_id);
		jt_key(j, "sourceType");
		jt_str(j, "INTERNAL_ACCOUNT");
		jt_close(j, '}');
	}
	jt_key(j, "destination");
	jt_open(j, '{');
	jt_key(j, "accountId");
	if (strcmp(t->destination_type, "EXTERNAL_ACCOUNT") == 0)
		jt_prefixed_or_null(j, "ExternalAccount", t->destination_ref);
	else
		jt_str_or_null(j, t->destination_ref);
	jt_key(j, "destinationType");
	jt_str(j, t->destination_type);
	jt_close(j, '}');
	jt_key(j, out ? "sentAmount" : "receivedAmount");
	jt_money(j, t->currency, t->amount);
	if (!out) {
		json_object *r = json_object_new_object();

		json_review_fields(r, t);
		if (json_object_object_length(r) > 0)
			jt_members(j, json_object_to_json_string_ext(r,
			    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(r);
	}
	jt_close(j, '}');
}

json_object *
json_transaction(const struct txn *t)
{
	struct jtext j;

	jt_init(&j);
	txn_text(&j, t);
	return json_text(jt_take(&j, NULL));
}

static void
list_reply(struct req *req, const struct txn *list, size_t n, int64_t cursor, int64_t total)
{
	json_object *data = json_object_new_array_ext((int)n);

	for (size_t i = 0; i < n; i++)
		json_object_array_add(data, json_transaction(&list[i]));
	resp_json(req, 200, list_envelope(data, cursor, total, LIST_END_NULL));
}

int
transaction_not_found_reply(struct req *req)
{
	return resp_error(req, 404, "TRANSACTION_NOT_FOUND", "No such transaction.", NULL);
}

int
transaction_id_or_reply(struct req *req, char id[37])
{
	const char *v = req_param(req, 0);
	size_t n = strlen(v);

	if (n == 0 || n > 128)
		return resp_invalid(req, "transactionId", "must be 1 to 128 printable characters");
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)v[i] < 0x20 || (unsigned char)v[i] > 0x7e)
			return resp_invalid(req, "transactionId",
			    "must be 1 to 128 printable characters");
	if (ids_parse(v, "Transaction", 0, id) < 0)
		id[0] = '\0';	/* opaque and not ours: not found */
	return 0;
}

int
h_transactions_get(struct req *req)
{
	char id[37];
	const struct txn_prefetch *p;
	struct txn t;
	struct db *db;
	int rc;

	if (transaction_id_or_reply(req, id) < 0)
		return -1;
	if (id[0] == '\0')
		return transaction_not_found_reply(req);
	p = req->txn_prefetch;
	if (p != NULL && p->read && !p->due && strcmp(p->id, id) == 0 &&
	    strcmp(p->platform_id, req->platform_id) == 0) {
		/* Read with the token, in the caller's platform: one round trip. */
		if (!p->found)
			return transaction_not_found_reply(req);
		resp_json(req, 200, json_transaction(&p->t));
		return 0;
	}
	if ((db = req_db_or_reply(req)) == NULL)
		return -1;
	rc = db_txn_get_fresh(db, req->platform_id, id, &t);
	if (rc == DB_NOT_FOUND)
		return transaction_not_found_reply(req);
	if (rc != DB_OK)
		return req_db_fail(req, rc);
	resp_json(req, 200, json_transaction(&t));
	txn_free(&t);
	return 0;
}

/* Parses the query of GET /transactions into q; answers 400 and returns -1. */
static int
transactions_query(struct req *req, struct txn_list_query *q)
{
	static const struct list_filter filters[] = {
		{ "customerId", LF_ID, NULL, "Customer" },
		{ "platformCustomerId", LF_STRING, NULL, NULL },
		{ "type", LF_ENUM, types, NULL },
		{ "status", LF_ENUM, statuses, NULL },
		{ NULL, 0, NULL, NULL }
	};
	const char *vals[4], *v;
	int k;

	memset(q, 0, sizeof(*q));
	if (list_params_or_reply(req, 20, 100, &q->limit, &q->cursor) < 0 ||
	    list_filters_or_reply(req, filters, vals, q->ids) < 0)
		return -1;
	q->f.customer_id = vals[0];
	q->f.platform_customer_id = vals[1];
	q->f.type = vals[2];
	q->f.status = vals[3];
	if ((k = query_or_reply(req, "startDate", &v)) < 0)
		return -1;
	if (k == 1) {
		if (valid_datetime_param(v, 0, q->start) < 0)
			return resp_invalid(req, "startDate",
			    "must be a date (YYYY-MM-DD) or a UTC date-time (YYYY-MM-DDTHH:MM:SS[.sss]Z)");
		q->f.start = q->start;
	}
	if ((k = query_or_reply(req, "endDate", &v)) < 0)
		return -1;
	if (k == 1) {
		if (valid_datetime_param(v, 1, q->end) < 0)
			return resp_invalid(req, "endDate",
			    "must be a date (YYYY-MM-DD) or a UTC date-time (YYYY-MM-DDTHH:MM:SS[.sss]Z)");
		q->f.end = q->end;
	}
	return 0;
}

int
transactions_query_quiet(struct req *req, struct txn_list_query *q)
{
	size_t nhdr = req->nhdr;

	if (transactions_query(req, q) == 0)
		return 0;
	resp_reset(req);	/* the 400 is the handler's to give */
	req->nhdr = nhdr;
	return -1;
}

int
h_transactions_list(struct req *req)
{
	const struct txn_list_prefetch *p = req->list_prefetch;
	struct txn_list_query q;
	int64_t total;
	struct txn *list;
	size_t n;
	struct db *db;
	int rc;

	if (transactions_query(req, &q) < 0)
		return -1;
	if (p != NULL && p->usable && p->limit == q.limit && p->offset == q.cursor &&
	    strcmp(p->platform_id, req->platform_id) == 0) {
		/* Read with the token, in the caller's platform: one round trip. */
		list_reply(req, p->list, p->n, q.cursor, p->total);
		return 0;
	}
	if ((db = req_db_or_reply(req)) == NULL)
		return -1;
	if ((rc = db_txn_list(db, req->platform_id, &q.f, q.limit, q.cursor, &list, &n,
	    &total)) != DB_OK)
		return req_db_fail(req, rc);
	list_reply(req, list, n, q.cursor, total);
	txn_list_free(list, n);
	return 0;
}
