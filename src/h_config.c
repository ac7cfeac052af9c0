/*
 * h_config.c: GET and PATCH /config, the platform configuration bound to
 * the credentials.  PATCH takes webhookEndpoint, supportedCurrencies
 * (replacing the whole list) and quoteFeePolicy; the domains belong to the
 * operator.  Everything is validated before anything is written, and the
 * write is one transaction.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xborder/cache_ways.h"
#include "xborder/db.h"
#include "xborder/db_platforms.h"
#include "xborder/handlers.h"
#include "xborder/ledger.h"
#include "xborder/money.h"
#include "xborder/request.h"
#include "xborder/resp.h"
#include "xborder/stats.h"
#include "xborder/util.h"
#include "xborder/valid.h"

/*
 * A currency's minAmount and maxAmount: at most 10^15, a thousandth of the
 * balance limit, so that a platform cannot come near the limit in a few
 * transfers (the limit itself is enforced on every posting).
 */
#define MAX_AMOUNT LEDGER_AMOUNT_CFG_MAX
#define MAX_CURRENCIES 64

static const char *const tx_types[] = { "OUTGOING", "INCOMING", NULL };
static const char *const profiles[] = { "FULL_NAME", "BIRTH_DATE", "NATIONALITY", NULL };

static const struct vfield counterparty_fields[] = {
	{ "profile", VK_ENUM, VF_REQUIRED, 0, 0, profiles, NULL, NULL },
	{ "mandatory", VK_BOOL, VF_REQUIRED, 0, 0, NULL, NULL, NULL },
	{ NULL, 0, 0, 0, 0, NULL, NULL, NULL }
};

static const struct vfield currency_fields[] = {
	{ "currencyCode", VK_STRING, VF_REQUIRED, 3, 3, NULL, valid_currency, NULL },
	{ "minAmount", VK_INT, VF_REQUIRED, 0, MAX_AMOUNT, NULL, NULL, NULL },
	{ "maxAmount", VK_INT, VF_REQUIRED, 0, MAX_AMOUNT, NULL, NULL, NULL },
	{ "enabledTransactionTypes", VK_ENUM_ARRAY, VF_REQUIRED, 0, 0, tx_types, NULL, NULL },
	{ "requiredCounterpartyFields", VK_OBJECT_ARRAY, VF_REQUIRED, 0, 16, NULL, NULL,
	  counterparty_fields },
	{ NULL, 0, 0, 0, 0, NULL, NULL, NULL }
};

static const struct vfield fee_fields[] = {
	{ "senderServiceFeeBps", VK_INT, VF_REQUIRED, 0, 10000, NULL, NULL, NULL },
	{ "receiverServiceFeeBps", VK_INT, VF_REQUIRED, 0, 10000, NULL, NULL, NULL },
	{ NULL, 0, 0, 0, 0, NULL, NULL, NULL }
};

static const struct vfield patch_fields[] = {
	{ "webhookEndpoint", VK_STRING, VF_NULLABLE, 1, 2048, NULL, valid_http_url, NULL },
	{ "supportedCurrencies", VK_OBJECT_ARRAY, 0, 0, MAX_CURRENCIES, NULL, NULL,
	  currency_fields },
	{ "quoteFeePolicy", VK_OBJECT, 0, 0, 0, NULL, NULL, fee_fields },
	{ NULL, 0, 0, 0, 0, NULL, NULL, NULL }
};

static json_object *
config_json(const struct platform_config *c)
{
	json_object *o = json_object_new_object(), *fees = json_object_new_object();
	json_object *list = json_object_new_array();

	json_object_object_add(o, "id", json_prefixed("PlatformConfig", c->id));
	json_object_object_add(o, "umaDomain", json_object_new_string(c->uma_domain));
	json_object_object_add(o, "ppvDomain", json_object_new_string(c->ppv_domain));
	json_object_object_add(o, "webhookEndpoint", json_str_or_null(c->webhook));
	json_object_object_add(fees, "senderServiceFeeBps",
	    json_object_new_int64(c->sender_fee_bps));
	json_object_object_add(fees, "receiverServiceFeeBps",
	    json_object_new_int64(c->receiver_fee_bps));
	json_object_object_add(o, "quoteFeePolicy", fees);
	for (size_t i = 0; i < c->ncur; i++) {
		json_object *e = json_object_new_object();

		json_object_object_add(e, "currencyCode", json_object_new_string(c->cur[i].code));
		json_object_object_add(e, "minAmount", json_object_new_int64(c->cur[i].min_amount));
		json_object_object_add(e, "maxAmount", json_object_new_int64(c->cur[i].max_amount));
		json_object_object_add(e, "enabledTransactionTypes",
		    json_tokener_parse(c->cur[i].types_json));
		json_object_object_add(e, "requiredCounterpartyFields",
		    json_tokener_parse(c->cur[i].fields_json));
		json_object_array_add(list, e);
	}
	json_object_object_add(o, "supportedCurrencies", list);
	json_object_object_add(o, "createdAt", json_object_new_string(c->created_at));
	json_object_object_add(o, "updatedAt", json_object_new_string(c->updated_at));
	return o;
}

/*
 * The configurations this worker answered last, as JSON, by platform and
 * the version of the row they were made from (any change to a platform's
 * configuration increments it).  A GET /config whose token read that
 * version is answered with the same JSON, shared: a response is never
 * changed once made (json_object_get, and the request puts it).  It is
 * kept written (json_as_text): json-c would write the whole object again
 * for every answer, a quarter of the worker's work for GET /config.  256
 * platforms, 4 to a set (cache_ways.h), like the configurations
 * (db_platforms.c).
 */
#define ANSWERED_SETS 64
#define ANSWERED_WAYS 4

static struct {
	char		 platform[37];
	int64_t		 version;
	json_object	*json;
} answered[ANSWERED_SETS * ANSWERED_WAYS];
static uint64_t answered_used[ANSWERED_SETS * ANSWERED_WAYS];
static struct cache_ways answered_ways = CACHE_WAYS_INIT(answered_used, ANSWERED_SETS,
    ANSWERED_WAYS);

static int
answered_of(size_t i, const void *platform)
{
	return strcmp(answered[i].platform, platform) == 0;
}

/*
 * Answers with the caller's configuration: as of version (the one read
 * with the token, maybe from the worker's cache), or read afresh (0).
 */
static int
reply_config(struct req *req, struct db *db, int64_t version)
{
	size_t h = str_hash(req->platform_id), slot;
	long held = cache_ways_find(&answered_ways, h, answered_of, req->platform_id);
	struct platform_config c;
	json_object *o;
	int rc;

	if (version > 0 && held >= 0 && answered[held].json != NULL &&
	    answered[held].version == version) {
		cache_ways_use(&answered_ways, (size_t)held);
		stats_add(STAT_CONFIG_CACHE_HITS, 1);
		resp_json(req, 200, json_object_get(answered[held].json));
		return 0;
	}
	if ((rc = db_config_get(db, req->platform_id, version, &c)) != DB_OK)
		return req_db_fail(req, rc == DB_NOT_FOUND ? DB_ERR : rc);
	o = json_as_text(config_json(&c));
	if (c.version > 0) {
		slot = held >= 0 ? (size_t)held : cache_ways_place(&answered_ways, h);
		cache_ways_use(&answered_ways, slot);
		if (answered[slot].json != NULL)
			json_object_put(answered[slot].json);
		str_copy(answered[slot].platform, sizeof(answered[slot].platform),
		    req->platform_id);
		answered[slot].version = c.version;
		answered[slot].json = json_object_get(o);
	}
	resp_json(req, 200, o);
	platform_config_free(&c);
	return 0;
}

int
h_config_get(struct req *req)
{
	struct db *db = req_db_or_reply(req);

	return db == NULL ? -1 : reply_config(req, db, req->config_version);
}

/*
 * enabledTransactionTypes as stored: each type once, in the order given;
 * sets c->outgoing and c->incoming.  Caller frees.
 */
static char *
types_from_json(struct currency_cfg *c, json_object *types)
{
	json_object *tj = json_object_new_array();
	char *s;

	for (size_t j = 0; j < json_object_array_length(types); j++) {
		const char *t = json_object_get_string(json_object_array_get_idx(types, j));

		if (strcmp(t, "OUTGOING") == 0 && !c->outgoing) {
			c->outgoing = 1;
			json_object_array_add(tj, json_object_new_string(t));
		} else if (strcmp(t, "INCOMING") == 0 && !c->incoming) {
			c->incoming = 1;
			json_object_array_add(tj, json_object_new_string(t));
		}
	}
	s = xstrdup(json_object_to_json_string_ext(tj, JSON_C_TO_STRING_PLAIN));
	json_object_put(tj);
	return s;
}

/*
 * requiredCounterpartyFields of supportedCurrencies[i] as stored; a
 * repeated profile is added to details and counted in *bad.  Caller frees.
 */
static char *
fields_from_json(json_object *fields, size_t i, json_object *details, int *bad)
{
	json_object *fj = json_object_new_array();
	char key[128], *s;

	for (size_t j = 0; j < json_object_array_length(fields); j++) {
		json_object *f = json_object_array_get_idx(fields, j), *g;
		const char *p = json_object_get_string(json_object_object_get(f, "profile"));

		for (size_t k = 0; k < j; k++)
			if (strcmp(p, json_object_get_string(json_object_object_get(
			    json_object_array_get_idx(fields, k), "profile"))) == 0) {
				snprintf(key, sizeof(key),
				    "supportedCurrencies[%zu].requiredCounterpartyFields[%zu].profile",
				    i, j);
				json_object_object_add(details, key,
				    json_object_new_string("must not repeat a profile"));
				(*bad)++;
			}
		g = json_object_new_object();
		json_object_object_add(g, "profile", json_object_new_string(p));
		json_object_object_add(g, "mandatory", json_object_new_boolean(
		    json_object_get_boolean(json_object_object_get(f, "mandatory"))));
		json_object_array_add(fj, g);
	}
	s = xstrdup(json_object_to_json_string_ext(fj, JSON_C_TO_STRING_PLAIN));
	json_object_put(fj);
	return s;
}

/*
 * Turns the validated supportedCurrencies array into store rows, checking
 * what the field table cannot: min <= max and no repeated currency or
 * profile.  Adds to details and returns the number of problems.
 */
static int
currencies_from_json(json_object *arr, struct currency_cfg **out, size_t *nout,
    json_object *details)
{
	size_t n = json_object_array_length(arr);
	struct currency_cfg *cur = xcalloc(n, sizeof(*cur));
	char key[128];
	int bad = 0;

	for (size_t i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(arr, i);
		struct currency_cfg *c = &cur[i];

		snprintf(c->code, sizeof(c->code), "%s",
		    json_object_get_string(json_object_object_get(e, "currencyCode")));
		c->min_amount = json_object_get_int64(json_object_object_get(e, "minAmount"));
		c->max_amount = json_object_get_int64(json_object_object_get(e, "maxAmount"));
		for (size_t j = 0; j < i; j++)
			if (strcmp(cur[j].code, c->code) == 0) {
				snprintf(key, sizeof(key), "supportedCurrencies[%zu].currencyCode", i);
				json_object_object_add(details, key,
				    json_object_new_string("must not repeat a currency"));
				bad++;
			}
		if (c->min_amount > c->max_amount) {
			snprintf(key, sizeof(key), "supportedCurrencies[%zu].maxAmount", i);
			json_object_object_add(details, key,
			    json_object_new_string("must be at least minAmount"));
			bad++;
		}
		c->types_json = types_from_json(c,
		    json_object_object_get(e, "enabledTransactionTypes"));
		c->fields_json = fields_from_json(
		    json_object_object_get(e, "requiredCounterpartyFields"), i, details, &bad);
	}
	*out = cur;
	*nout = n;
	return bad;
}

int
h_config_patch(struct req *req)
{
	struct config_patch p;
	struct currency_cfg *cur = NULL;
	size_t ncur = 0;
	json_object *v, *details;
	struct db *db;
	int rc;

	if (body_valid_or_reply(req, patch_fields) < 0)
		return -1;
	memset(&p, 0, sizeof(p));
	if (json_object_object_get_ex(req->json, "webhookEndpoint", &v)) {
		p.set_webhook = 1;
		p.webhook = v != NULL ? json_object_get_string(v) : NULL;
	}
	if (json_object_object_get_ex(req->json, "quoteFeePolicy", &v)) {
		p.set_fees = 1;
		p.sender_fee_bps = json_object_get_int64(
		    json_object_object_get(v, "senderServiceFeeBps"));
		p.receiver_fee_bps = json_object_get_int64(
		    json_object_object_get(v, "receiverServiceFeeBps"));
	}
	if (json_object_object_get_ex(req->json, "supportedCurrencies", &v)) {
		details = json_object_new_object();
		if (currencies_from_json(v, &cur, &ncur, details) > 0) {
			currency_cfg_free(cur, ncur);
			return resp_error(req, 400, "INVALID_REQUEST",
			    "The request body is invalid; see details.", details);
		}
		json_object_put(details);
		p.set_currencies = 1;
		p.cur = cur;
		p.ncur = ncur;
	}
	if ((db = req_db_or_reply(req)) == NULL) {
		currency_cfg_free(cur, ncur);
		return -1;
	}
	if (p.set_webhook || p.set_fees || p.set_currencies)
		rc = db_config_update(db, req->platform_id, &p);
	else
		rc = DB_OK;
	currency_cfg_free(cur, ncur);
	if (rc != DB_OK)
		return req_db_fail(req, rc == DB_NOT_FOUND ? DB_ERR : rc);
	/* The change made a new version: not the one read with the token. */
	return reply_config(req, db, 0);
}
