/*
 * h_transactions.c: reading transactions.  The Transaction resource is
 * closed: the outgoing variant has source and sentAmount, the incoming one
 * receivedAmount, and nothing else beyond the documented table.
 * Transaction ids are opaque to clients: a well-formed id that is not ours
 * is simply not found.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xborder/cache_ways.h"
#include "xborder/db.h"
#include "xborder/db_tokens.h"
#include "xborder/db_transactions.h"
#include "xborder/db_txn_lists.h"
#include "xborder/handlers.h"
#include "xborder/http.h"
#include "xborder/ids.h"
#include "xborder/jtext.h"
#include "xborder/quote_ops.h"
#include "xborder/request.h"
#include "xborder/resp.h"
#include "xborder/stats.h"
#include "xborder/util.h"
#include "xborder/valid.h"

static const char *const types[] = { "OUTGOING", "INCOMING", NULL };
static const char *const statuses[] = { "CREATED", "PENDING", "PROCESSING", "COMPLETED",
	"REJECTED", "FAILED", "REFUNDED", "EXPIRED", NULL };

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
transaction_ref_or_reply(struct req *req, const char *v, char id[37])
{
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
transaction_id_or_reply(struct req *req, char id[37])
{
	return transaction_ref_or_reply(req, req_param(req, 0), id);
}

int
h_transactions_get(struct req *req)
{
	char id[37];
	const struct txn_prefetch *p;
	struct txn t;
	struct db *db;
	int rc, due;

	if (transaction_id_or_reply(req, id) < 0)
		return -1;
	if (id[0] == '\0')
		return transaction_not_found_reply(req);
	p = req->prefetch;
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
	rc = db_txn_get_fresh(db, req->platform_id, id, &t, &due);
	/* Expiry is written by whoever looks first: a reader never sees it stale. */
	if (rc == DB_OK && due && (rc = quotes_expire_due(db, req->platform_id, NULL)) == DB_OK)
		rc = db_txn_get(db, req->platform_id, id, &t);
	if (rc == DB_NOT_FOUND)
		return transaction_not_found_reply(req);
	if (rc != DB_OK)
		return req_db_fail(req, rc);
	resp_json(req, 200, json_transaction(&t));
	txn_free(&t);
	return 0;
}

static void
txn_prefetch_free(void *p)
{
	txn_free(&((struct txn_prefetch *)p)->t);
	free(p);
}

/*
 * GET /transactions/{id}'s with_token: the transaction, read with the
 * token in the token's own platform (req->prefetch).  An id that does not
 * parse is left to the handler.
 */
int
transactions_get_with_token(struct req *req, struct db *db, const char *token_id,
    const char *platform, struct token_auth *ta)
{
	char id[UUID_LEN + 1];

	(void)platform;		/* the statement joins on the token's own */
	if (ids_parse(req_param(req, 0), "Transaction", 0, id) < 0)
		return db_token_auth_get(db, token_id, ta);
	if (req->prefetch == NULL) {
		req->prefetch = xcalloc(1, sizeof(struct txn_prefetch));
		req->prefetch_free = txn_prefetch_free;
	}
	return db_token_auth_get_txn(db, token_id, id, ta, req->prefetch);
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
	const char *vals[4];

	memset(q, 0, sizeof(*q));
	if (list_params_or_reply(req, 20, 100, &q->limit, &q->cursor) < 0 ||
	    list_filters_or_reply(req, filters, vals, q->ids) < 0)
		return -1;
	q->f.customer_id = vals[0];
	q->f.platform_customer_id = vals[1];
	q->f.type = vals[2];
	q->f.status = vals[3];
	return date_filters_or_reply(req, q->start, q->end, &q->f.start, &q->f.end);
}

static int
transactions_query_quiet(struct req *req, struct txn_list_query *q)
{
	size_t nhdr = req->nhdr;

	if (transactions_query(req, q) == 0)
		return 0;
	resp_reset(req);	/* the 400 is the handler's to give */
	req->nhdr = nhdr;
	return -1;
}

/*
 * The first pages of GET /transactions this worker answered last, as JSON,
 * by platform and query (128, 4 to a set: cache_ways.h), with the version
 * of the platform's transactions they were read with (LIST_VERSION_OF, in
 * the same statement; of the customer's, LIST_VERSION_OF_CUSTOMER, for a
 * page filtered by customerId) and the earliest expiry of a quote open on
 * them.  A request whose token was read
 * with the same version, before that expiry by the server's clock, is
 * answered with the same JSON, shared (a response is never changed once
 * made): nothing about those transactions committed since, and only an
 * expiry changes a page with time.  A status filter makes the page depend
 * on any of the platform's open quotes (db_txn_list_sql): its page holds
 * until the earliest of their expiries.  A page past the first is not
 * kept.
 */
#define LISTED_SETS 32
#define LISTED_WAYS 4

static struct {
	char		 platform[37];
	char		 key[256];
	int64_t		 version;
	char		 expires[24];
	json_object	*json;
} listed[LISTED_SETS * LISTED_WAYS];
static uint64_t listed_used[LISTED_SETS * LISTED_WAYS];
static struct cache_ways listed_ways = CACHE_WAYS_INIT(listed_used, LISTED_SETS, LISTED_WAYS);

struct listed_id {
	const char	*platform, *key;
};

/*
 * The key of q's page in listed[], or -1: not a page kept.  The filters as
 * parsed (no '|' in any but platformCustomerId, which goes last, after its
 * length), so two queries share a key only when they ask the same.
 */
static int
listed_key(const struct txn_list_query *q, char *key, size_t len)
{
	const struct txn_filter *f = &q->f;
	const char *pcid = f->platform_customer_id ? f->platform_customer_id : "";
	char plen[24] = "-";	/* no platformCustomerId filter */
	int n;

	if (q->cursor != 0)
		return -1;
	if (f->platform_customer_id != NULL)
		snprintf(plen, sizeof(plen), "%zu:", strlen(pcid));
	n = snprintf(key, len, "%lld|%s|%s|%s|%s|%s|%s%s", (long long)q->limit,
	    f->customer_id ? f->customer_id : "", f->type ? f->type : "",
	    f->status ? f->status : "", f->start ? f->start : "", f->end ? f->end : "",
	    plen, pcid);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

static int
listed_is(size_t i, const void *id)
{
	const struct listed_id *l = id;

	return strcmp(listed[i].platform, l->platform) == 0 && strcmp(listed[i].key, l->key) == 0;
}

static size_t
listed_hash(const char *platform, const char *key)
{
	return str_hash(platform) ^ str_hash(key);
}

/* The entry of listed[] that holds the page of key in platform, or -1. */
static long
listed_find(const char *platform, const char *key)
{
	struct listed_id l = { platform, key };
	long i = cache_ways_find(&listed_ways, listed_hash(platform, key), listed_is, &l);

	return i >= 0 && listed[i].json != NULL ? i : -1;
}

/*
 * Whether this worker keeps the answer to q in platform (a first page, read
 * with the version of the platform's transactions): then the token's
 * statement reads only that version (db_token_auth_get_version).
 */
static int
transactions_list_kept(const char *platform, const struct txn_list_query *q)
{
	char key[256];

	return listed_key(q, key, sizeof(key)) == 0 && listed_find(platform, key) >= 0;
}

/*
 * Answers q from listed[] when p (the token's statement) read the version
 * the page was kept with, before its expiry; a page that no longer holds
 * is dropped (the next request reads it with the token again).  1 when
 * answered.
 */
static int
listed_reply(struct req *req, const struct txn_list_query *q,
    const struct txn_list_prefetch *p)
{
	char key[256];
	long i;

	if (!p->checked || strcmp(p->platform_id, req->platform_id) != 0 ||
	    listed_key(q, key, sizeof(key)) < 0 || (i = listed_find(req->platform_id, key)) < 0)
		return 0;
	if (listed[i].version == p->version &&
	    (listed[i].expires[0] == '\0' || strcmp(p->db_now, listed[i].expires) < 0)) {
		cache_ways_use(&listed_ways, (size_t)i);
		stats_add(STAT_LIST_CACHE_HITS, 1);
		resp_json(req, 200, json_object_get(listed[i].json));
		return 1;
	}
	json_object_put(listed[i].json);
	listed[i].json = NULL;
	cache_ways_drop(&listed_ways, (size_t)i);
	return 0;
}

/* Keeps the answer just made to q, read with p's version, in listed[]. */
static void
listed_keep(struct req *req, const struct txn_list_query *q, const struct txn_list_prefetch *p)
{
	char key[256];
	long held;
	size_t i;

	if (p->version < 0 || req->out == NULL || listed_key(q, key, sizeof(key)) < 0)
		return;
	held = listed_find(req->platform_id, key);
	i = held >= 0 ? (size_t)held :
	    cache_ways_place(&listed_ways, listed_hash(req->platform_id, key));
	cache_ways_use(&listed_ways, i);
	if (listed[i].json != NULL)
		json_object_put(listed[i].json);
	str_copy(listed[i].platform, sizeof(listed[i].platform), req->platform_id);
	str_copy(listed[i].key, sizeof(listed[i].key), key);
	listed[i].version = p->version;
	str_copy(listed[i].expires, sizeof(listed[i].expires), p->expires);
	listed[i].json = json_object_get(req->out);
}

static void
list_prefetch_free(void *p)
{
	txn_list_prefetch_free(p);
	free(p);
}

/*
 * GET /transactions' with_token: the page in platform, the token's as this
 * worker saw it (NULL: not known yet, the token alone is read), into
 * req->prefetch; for a page this worker keeps, only the version of the
 * platform's transactions, to see that it holds.  A query that does not
 * parse is left to the handler.
 */
int
transactions_list_with_token(struct req *req, struct db *db, const char *token_id,
    const char *platform, struct token_auth *ta)
{
	struct txn_list_query q;
	struct txn_list_prefetch *p;

	/* A deep page that starts at an anchor is the handler's to read. */
	if (platform == NULL || transactions_query_quiet(req, &q) < 0 ||
	    db_txn_list_anchored(&q.f, q.cursor))
		return db_token_auth_get(db, token_id, ta);
	if (req->prefetch == NULL) {
		req->prefetch = xcalloc(1, sizeof(struct txn_list_prefetch));
		req->prefetch_free = list_prefetch_free;
	}
	p = req->prefetch;
	if (transactions_list_kept(platform, &q))
		return db_token_auth_get_version(db, token_id, q.f.customer_id, ta, p);
	return db_token_auth_get_list(db, token_id, platform, &q.f, q.limit, q.cursor,
	    ta, p);
}

int
h_transactions_list(struct req *req)
{
	const struct txn_list_prefetch *p = req->prefetch;
	struct txn_list_query q;
	int64_t total;
	struct txn *list;
	size_t n;
	struct db *db;
	uint64_t expired = 0;
	int rc, due;

	if (transactions_query(req, &q) < 0)
		return -1;
	if (p != NULL && listed_reply(req, &q, p))
		return 0;	/* kept, and nothing changed: one round trip */
	if (p != NULL && p->usable && p->limit == q.limit && p->offset == q.cursor &&
	    strcmp(p->platform_id, req->platform_id) == 0) {
		/* Read with the token, in the caller's platform: one round trip. */
		list_reply(req, p->list, p->n, q.cursor, p->total);
		listed_keep(req, &q, p);
		return 0;
	}
	if ((db = req_db_or_reply(req)) == NULL)
		return -1;
	if ((rc = db_txn_list(db, req->platform_id, &q.f, q.limit, q.cursor, &list, &n,
	    &total, &due)) != DB_OK)
		return req_db_fail(req, rc);
	/* Quotes past their expiry on the page are expired first: then read again. */
	if (due && (rc = quotes_expire_due(db, req->platform_id, &expired)) == DB_OK &&
	    expired > 0) {
		txn_list_free(list, n);
		rc = db_txn_list(db, req->platform_id, &q.f, q.limit, q.cursor, &list, &n,
		    &total, NULL);
	}
	if (rc != DB_OK) {
		txn_list_free(list, n);
		return req_db_fail(req, rc);
	}
	list_reply(req, list, n, q.cursor, total);
	txn_list_free(list, n);
	return 0;
}
