/*
 * h_webhooks.c: the webhook operations.  GET /webhooks/signing-key serves
 * the public key that verifies the platform's deliveries (each platform
 * has its own, wh_keys.c) and POST /webhooks/signing-key/rotate replaces
 * it; POST /webhooks/test makes one signed call to the platform's endpoint
 * and reports what it answered;
 * GET /webhooks/deliveries is the platform's delivery log, GET
 * /webhooks/deliveries/{webhookId} one of its events with the body every
 * attempt sends and its last attempts, and POST
 * /webhooks/deliveries/{webhookId}/retry queues one of its events again.
 * Delivery itself is xborder-worker's (src/worker/deliver.c).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "xborder/conf.h"
#include "xborder/db.h"
#include "xborder/db_platforms.h"
#include "xborder/db_webhooks.h"
#include "xborder/db_wh_keys.h"
#include "xborder/events.h"
#include "xborder/gate.h"
#include "xborder/handlers.h"
#include "xborder/ids.h"
#include "xborder/jtext.h"
#include "xborder/log.h"
#include "xborder/request.h"
#include "xborder/resp.h"
#include "xborder/util.h"
#include "xborder/wh_http.h"
#include "xborder/wh_keys.h"
#include "xborder/wh_sign.h"

static const char *const statuses[] = { "PENDING", "DELIVERED", "FAILED", NULL };
static const char *const types[] = {
	"OUTGOING_PAYMENT.CREATED", "OUTGOING_PAYMENT.PENDING",
	"OUTGOING_PAYMENT.PROCESSING", "OUTGOING_PAYMENT.COMPLETED",
	"OUTGOING_PAYMENT.REJECTED", "OUTGOING_PAYMENT.FAILED",
	"OUTGOING_PAYMENT.REFUNDED", "OUTGOING_PAYMENT.EXPIRED",
	"INCOMING_PAYMENT.CREATED", "INCOMING_PAYMENT.PENDING",
	"INCOMING_PAYMENT.PROCESSING", "INCOMING_PAYMENT.COMPLETED",
	"INCOMING_PAYMENT.REJECTED", "INCOMING_PAYMENT.FAILED",
	"INCOMING_PAYMENT.REFUNDED", "INCOMING_PAYMENT.EXPIRED", NULL
};

/* The operator has not made a signing key (or it cannot be read). */
static int
no_key_reply(struct req *req, const char *why)
{
	log_msg(LOG_LVL_ERROR, req->id, "webhook signing key: %s", why);
	resp_header(req, "Retry-After", "60");
	return resp_error(req, 503, "SERVICE_UNAVAILABLE",
	    "No webhook signing key is configured; retry later.", NULL);
}

static int
not_configured_reply(struct req *req)
{
	return resp_error(req, 400, "WEBHOOK_ENDPOINT_NOT_CONFIGURED",
	    "No webhook endpoint is configured; set webhookEndpoint with PATCH /config.", NULL);
}

static json_object *
json_key(const char *key_id, const char *pem)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "keyId", json_object_new_string(key_id));
	json_object_object_add(o, "algorithm", json_object_new_string("ed25519"));
	json_object_object_add(o, "publicKeyPem", json_object_new_string(pem));
	return o;
}

/* The answer to a failure of wh_keys_*: 503 without a master, else the store's. */
static int
keys_fail(struct req *req, int rc, const char *err)
{
	if (rc == WH_KEYS_NO_MASTER)
		return no_key_reply(req, err);
	return req_db_fail(req, rc);
}

/*
 * GET /webhooks/signing-key[?keyId=]: the platform's current key, or one
 * of its kept keys by id.  200; 400 (malformed keyId), 404 (not one of the
 * platform's kept keys), 503 (no master secret).
 */
int
h_webhooks_signing_key(struct req *req)
{
	struct wh_key_row k;
	char err[256] = "";
	const char *want = NULL;
	struct db *db;
	int n, rc;

	if ((n = query_or_reply(req, "keyId", &want)) < 0)
		return -1;
	if (n == 1 && !wh_key_id_valid(want))
		return resp_invalid(req, "keyId", "must be 16 lowercase hexadecimal characters");
	if ((db = req_db_or_reply(req)) == NULL)
		return -1;
	if (n == 1) {
		/* The current key or the previous one before its expiry: no master needed. */
		if ((rc = db_wh_key_get(db, req->platform_id, want, &k)) == DB_NOT_FOUND)
			return resp_error(req, 404, "NOT_FOUND", "No such signing key.", NULL);
		if (rc != DB_OK)
			return req_db_fail(req, rc);
	} else if ((rc = wh_keys_current(db, req->conf->webhook_signing_key, req->platform_id,
	    &k, err, sizeof(err))) != DB_OK)
		return keys_fail(req, rc, err);
	resp_json(req, 200, json_key(k.key_id, k.pub_pem));
	wh_key_row_free(&k);
	return 0;
}

/*
 * POST /webhooks/signing-key/rotate: a new current key for the platform;
 * the one it replaces stays readable by keyId for 72 hours, an older one
 * not at all.  Takes no body (empty or {}).  200 with the new key and
 * previousKeyId, previousKeyExpiresAt; 400 (a body), 503 (no master).
 */
int
h_webhooks_rotate(struct req *req)
{
	struct wh_key_row k;
	char err[256] = "", prev[WH_KEY_ID_LEN + 1], expires[32], stamp[25];
	struct db *db;
	json_object *o;
	int rc;

	if ((db = req_db_or_reply(req)) == NULL)
		return -1;
	if ((rc = wh_keys_rotate(db, req->conf->webhook_signing_key, req->platform_id, &k,
	    prev, expires, err, sizeof(err))) != DB_OK)
		return keys_fail(req, rc, err);
	if (ids_timestamp(expires, stamp) < 0) {
		wh_key_row_free(&k);
		log_msg(LOG_LVL_ERROR, req->id, "rotate: bad expiry '%s'", expires);
		return req_db_fail(req, DB_ERR);
	}
	o = json_key(k.key_id, k.pub_pem);
	json_object_object_add(o, "previousKeyId", json_object_new_string(prev));
	json_object_object_add(o, "previousKeyExpiresAt", json_object_new_string(stamp));
	resp_json(req, 200, o);
	wh_key_row_free(&k);
	return 0;
}

/*
 * 429 RATE_LIMITED, Retry-After 10: a test of this platform is running, or
 * as many tests as the pool allows at once.
 */
static int
test_busy_reply(struct req *req)
{
	resp_header(req, "Retry-After", "10");
	return resp_error(req, 429, "RATE_LIMITED", "A webhook test of this platform is"
	    " running, or the service runs as many as it allows at once; retry later.", NULL);
}

/*
 * Calls the endpoint url with the signed test event and answers: 200 with
 * what the endpoint replied, or 400 WEBHOOK_DELIVERY_FAILED with the reason
 * it could not be reached.  The caller frees call (wh_call_free).
 */
static void
test_call_reply(struct req *req, struct wh_call *call, const char *url, const char *body,
    const char *sig)
{
	json_object *o;

	memset(call, 0, sizeof(*call));
	call->url = url;
	call->body = body;
	call->body_len = strlen(body);
	call->signature = sig;
	call->allow_private = req->conf->webhook_allow_private;
	if (wh_call_perform(call) < 0) {
		o = json_object_new_object();
		json_object_object_add(o, "reason", json_object_new_string(call->reason));
		resp_error(req, 400, "WEBHOOK_DELIVERY_FAILED",
		    "The webhook endpoint could not be reached.", o);
	} else {
		o = json_object_new_object();
		json_object_object_add(o, "url", json_object_new_string(url));
		json_object_object_add(o, "responseStatus", json_object_new_int64(call->status));
		json_object_object_add(o, "responseBody",
		    json_object_new_string(call->response != NULL ? call->response : ""));
		resp_json(req, 200, o);
	}
}

/*
 * The endpoint is called from this worker, for up to the delivery
 * timeout: a platform runs one test at a time (a lease in the database,
 * which every pool sees), and a pool gives tests at most a quarter of its
 * workers, rounded up (gate.h), so no tenant's slow endpoint can hold the
 * workers everyone else needs.
 */
int
h_webhooks_test(struct req *req)
{
	struct wh_call call;
	struct platform_config cfg;
	char id[UUID_LEN + 1], holder[UUID_LEN + 1], sig[WH_SIG_HEADER_MAX], err[256], *body;
	struct db *db;
	int rc, place, got;

	if ((db = req_db_or_reply(req)) == NULL)
		return -1;
	if ((rc = db_config_get(db, req->platform_id, req->config_version, &cfg)) != DB_OK)
		return req_db_fail(req, rc);
	if (cfg.webhook == NULL) {
		platform_config_free(&cfg);
		return not_configured_reply(req);
	}
	ids_uuid4(id);
	body = event_test_body(id);
	if ((rc = wh_keys_sign(db, req->conf->webhook_signing_key, req->platform_id,
	    (int64_t)time(NULL), body, strlen(body), sig, sizeof(sig), err,
	    sizeof(err))) != DB_OK) {
		free(body);
		platform_config_free(&cfg);
		return keys_fail(req, rc, err);
	}
	if ((place = gate_enter((req->conf->workers + 3) / 4)) == -1) {
		free(body);
		platform_config_free(&cfg);
		return test_busy_reply(req);
	}
	ids_uuid4(holder);
	if ((rc = db_wh_test_lease(db, req->platform_id, holder, &got)) != DB_OK || !got) {
		gate_leave(place);
		free(body);
		platform_config_free(&cfg);
		return rc != DB_OK ? req_db_fail(req, rc) : test_busy_reply(req);
	}
	test_call_reply(req, &call, cfg.webhook, body, sig);
	gate_leave(place);
	/* Not given back (the database failed meanwhile): it runs out in 30 s. */
	(void)db_wh_test_release(db, req->platform_id, holder);
	wh_call_free(&call);
	free(body);
	platform_config_free(&cfg);
	return 0;
}

static json_object *
json_stamp_or_null(const char *ts)
{
	return ts[0] != '\0' ? json_object_new_string(ts) : NULL;
}

static json_object *
json_delivery(const struct wh_event *e)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "id", json_prefixed("Webhook", e->id));
	json_object_object_add(o, "type", json_object_new_string(e->type));
	json_object_object_add(o, "transactionId", json_prefixed("Transaction", e->transaction_id));
	json_object_object_add(o, "status", json_object_new_string(e->status));
	json_object_object_add(o, "attempts", json_object_new_int64(e->attempts));
	json_object_object_add(o, "lastResponseStatus",
	    e->last_status >= 0 ? json_object_new_int64(e->last_status) : NULL);
	json_object_object_add(o, "lastAttemptAt", json_stamp_or_null(e->last_attempt_at));
	json_object_object_add(o, "nextAttemptAt", strcmp(e->status, "PENDING") == 0 ?
	    json_stamp_or_null(e->next_attempt_at) : NULL);
	json_object_object_add(o, "createdAt", json_object_new_string(e->created_at));
	return o;
}

/*
 * The delivery log's own filters beyond status and type: transactionId
 * (opaque, as the path parameter: 400 only when empty, over 128 bytes or
 * not printable ASCII; *none when it names no transaction of ours) and
 * startDate/endDate as GET /transactions reads them.  0, or -1 answered.
 */
static int
deliveries_query(struct req *req, struct wh_filter *f, char txn[37], char start[32],
    char end[32], int *none)
{
	const char *v = NULL;
	int k;

	*none = 0;
	if ((k = query_or_reply(req, "transactionId", &v)) < 0)
		return -1;
	if (k == 1) {
		if (transaction_ref_or_reply(req, v, txn) < 0)
			return -1;
		f->transaction_id = txn;
		*none = txn[0] == '\0';
	}
	return date_filters_or_reply(req, start, end, &f->start, &f->end);
}

/*
 * GET /webhooks/deliveries: the platform's delivery log, newest first,
 * filtered by status, type, transactionId, startDate and endDate.  200;
 * 400 naming a malformed or repeated parameter.
 */
int
h_webhooks_deliveries(struct req *req)
{
	static const struct list_filter filters[] = {
		{ "status", LF_ENUM, statuses, NULL },
		{ "type", LF_ENUM, types, NULL },
		{ NULL, 0, NULL, NULL }
	};
	const char *vals[2];
	char ids[2][37], txn[37], start[32], end[32];
	struct wh_filter f = { NULL, NULL, NULL, NULL, NULL };
	int64_t limit, cursor, total = 0;
	struct wh_event *list = NULL;
	size_t n = 0;
	json_object *data;
	struct db *db;
	int rc, none;

	if (list_params_or_reply(req, 20, 100, &limit, &cursor) < 0 ||
	    list_filters_or_reply(req, filters, vals, ids) < 0 ||
	    deliveries_query(req, &f, txn, start, end, &none) < 0)
		return -1;
	f.status = vals[0];
	f.type = vals[1];
	/* A transactionId that is not one of ours matches nothing: no query. */
	if (!none) {
		if ((db = req_db_or_reply(req)) == NULL)
			return -1;
		if ((rc = db_wh_list(db, req->platform_id, &f, limit, cursor, &list, &n,
		    &total)) != DB_OK)
			return req_db_fail(req, rc);
	}
	data = json_object_new_array_ext((int)n);
	for (size_t i = 0; i < n; i++)
		json_object_array_add(data, json_delivery(&list[i]));
	free(list);
	resp_json(req, 200, list_envelope(data, cursor, total, LIST_END_NULL));
	return 0;
}

/* The webhookId path parameter into id; 400 naming it when malformed. */
static int
webhook_id_or_reply(struct req *req, char id[UUID_LEN + 1])
{
	if (ids_parse(req_param(req, 0), "Webhook", 0, id) < 0 || !ids_is_uuid4(id))
		return resp_invalid(req, "webhookId", "must be Webhook:<uuid>");
	return 0;
}

static int
event_not_found_reply(struct req *req)
{
	return resp_error(req, 404, "NOT_FOUND", "No such webhook event.", NULL);
}

/* One entry of an event's attemptLog. */
static json_object *
json_attempt(const struct wh_attempt *a)
{
	json_object *o = json_object_new_object();
	const char *why = wh_reason_text(a->error);

	json_put(o, "at", json_object_new_string(a->at));
	json_put(o, "responseStatus",
	    a->response_status >= 0 ? json_object_new_int64(a->response_status) : NULL);
	json_put(o, "error", a->response_status >= 0 ? NULL :
	    json_object_new_string(why != NULL ? why : wh_reason_text(WH_NO_RESPONSE)));
	json_put(o, "durationMs", json_object_new_int64(a->duration_ms));
	json_put(o, "manual", json_object_new_boolean(a->manual));
	return o;
}

/*
 * The item with `event`, the body every attempt sends (the stored text
 * itself, so it is the very bytes; payload passes to the answer), and
 * `attemptLog`.  NULL when the stored body is not a JSON object.
 */
static json_object *
json_delivery_view(const struct wh_event *e, char *payload, const struct wh_attempt *a,
    size_t n)
{
	json_object *o, *list, *parsed = json_tokener_parse(payload);
	int object = parsed != NULL && json_object_is_type(parsed, json_type_object);

	json_object_put(parsed);
	if (!object) {
		free(payload);
		return NULL;
	}
	o = json_delivery(e);
	json_put(o, "event", json_text(payload));
	list = json_object_new_array_ext((int)n);
	for (size_t i = 0; i < n; i++)
		json_object_array_add(list, json_attempt(&a[i]));
	json_put(o, "attemptLog", list);
	return o;
}

/*
 * GET /webhooks/deliveries/{webhookId}: one event of the delivery log
 * with what it carries and its last 20 attempts, newest first.  200; 400
 * (malformed webhookId), 404 NOT_FOUND (not one of the platform's logged
 * events: another platform's, a TEST event's or an unknown id).
 */
int
h_webhooks_delivery(struct req *req)
{
	char id[UUID_LEN + 1], *payload;
	struct wh_attempt *attempts;
	struct wh_event e;
	struct db *db;
	json_object *o;
	size_t n;
	int rc;

	if (webhook_id_or_reply(req, id) < 0 || (db = req_db_or_reply(req)) == NULL)
		return -1;
	rc = db_wh_view(db, req->platform_id, id, &e, &payload, &attempts, &n);
	if (rc == DB_NOT_FOUND)
		return event_not_found_reply(req);
	if (rc != DB_OK)
		return req_db_fail(req, rc);
	o = json_delivery_view(&e, payload, attempts, n);
	free(attempts);
	if (o == NULL) {
		log_msg(LOG_LVL_ERROR, req->id, "webhook event %s: stored body is not a JSON object",
		    id);
		return req_db_fail(req, DB_ERR);
	}
	resp_json(req, 200, o);
	return 0;
}

int
h_webhooks_retry(struct req *req)
{
	char id[UUID_LEN + 1];
	struct wh_event e;
	struct db *db;
	int rc;

	if (webhook_id_or_reply(req, id) < 0)
		return -1;
	if ((db = req_db_or_reply(req)) == NULL)
		return -1;
	rc = db_wh_retry(db, req->platform_id, id, &e);
	if (rc == DB_NOT_FOUND)
		return event_not_found_reply(req);
	if (rc == DB_CONFLICT)
		return not_configured_reply(req);
	if (rc != DB_OK)
		return req_db_fail(req, rc);
	resp_json(req, 200, json_delivery(&e));
	return 0;
}
