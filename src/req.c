/*
 * req.c: the life of one request, from accept to response.  The order of
 * checks follows decisions.md section 1: unknown path or method first,
 * then credentials, then permission, then the request's own form, then
 * whatever the handler decides.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "xborder/auth.h"
#include "xborder/conf.h"
#include "xborder/db.h"
#include "xborder/db_idem.h"
#include "xborder/db_jobs.h"
#include "xborder/db_transactions.h"
#include "xborder/fault.h"
#include "xborder/handlers.h"
#include "xborder/http.h"
#include "xborder/req.h"
#include "xborder/resp.h"
#include "xborder/stats.h"
#include "xborder/util.h"

/*
 * On a cluster (db_nodes), the request's work goes through the node where
 * its platform's worker writes (db_platform_node): writes of one platform
 * from two nodes at once would make one of them roll back (a Galera
 * certification conflict), where on one node they wait for each other's
 * locks.  No worker beating for it, or its node not serving: the pool's
 * own node, or the next that serves.  What the heartbeats say is kept for
 * NODE_KEEP_MS per platform (the last NODE_CACHE platforms): a worker that
 * moves is followed within a heartbeat and that.
 */
#define NODE_CACHE 8
#define NODE_KEEP_MS 1000

static void
to_platform_node(struct req *req)
{
	static struct {
		char	 platform[37];
		char	 node[300];
		int64_t	 at;
	} seen[NODE_CACHE];
	static size_t next;
	size_t i;
	struct db *db;

	if (req->conf->db_nnodes == 0 || req->platform_id[0] == '\0')
		return;
	for (i = 0; i < NODE_CACHE; i++)
		if (strcmp(seen[i].platform, req->platform_id) == 0)
			break;
	if (i == NODE_CACHE || now_ms() - seen[i].at >= NODE_KEEP_MS) {
		if (i == NODE_CACHE)
			i = next++ % NODE_CACHE;
		str_copy(seen[i].platform, sizeof(seen[i].platform), req->platform_id);
		seen[i].at = now_ms();
		if ((db = db_handle(req->conf)) == NULL ||
		    db_platform_node(db, req->platform_id, seen[i].node, sizeof(seen[i].node)) != DB_OK)
			seen[i].node[0] = '\0';
	}
	db_want_node(req->conf, seen[i].node[0] != '\0' ? seen[i].node : NULL);
}

/* Steps before the handler; returns 0 to run it, -1 when answered. */
static int
pre_handler(struct req *req)
{
	char allow[80];
	enum router_rc rc;

	if (http_parse(req) < 0)
		return resp_error(req, 404, "NOT_FOUND", "No such resource.", NULL);
	rc = router_match(routes, nroutes, req->method, req->path, &req->match);
	if (rc == ROUTER_NOT_FOUND)
		return resp_error(req, 404, "NOT_FOUND", "No such resource.", NULL);
	if (rc == ROUTER_METHOD_NOT_ALLOWED) {
		snprintf(allow, sizeof(allow), "%s", req->match.allow);
		resp_header(req, "Allow", allow);
		return resp_error(req, 405, "METHOD_NOT_ALLOWED",
		    "The method is not allowed on this resource.", NULL);
	}
	req->route = &routes[req->match.index];
	if (req->route->perm != PERM_PUBLIC) {
		if (auth_or_reply(req) < 0)
			return -1;
		if ((req->route->perm == PERM_MANAGE && !req->can_manage) ||
		    (req->route->perm == PERM_VIEW && !req->can_view && !req->can_manage)) {
			json_object *d = json_object_new_object();

			json_object_object_add(d, "requiredAccessLevel",
			    json_object_new_string(req->route->perm == PERM_MANAGE ?
			    "manage" : "view"));
			return resp_error(req, 403, "FORBIDDEN",
			    "The credentials lack the access this operation needs.", d);
		}
	}
	if ((req->route->flags & RF_PLATFORM_HDR) && platform_scope_or_reply(req) < 0)
		return -1;
	to_platform_node(req);
	if ((req->route->flags & (RF_BODY | RF_BODY_OPT | RF_BODY_NONE)) &&
	    http_body_or_reply(req) < 0)
		return -1;
	return 0;
}

/* 1..255 printable ASCII characters. */
static int
idem_key_ok(const char *k)
{
	size_t n = strlen(k);

	if (n < 1 || n > 255)
		return 0;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)k[i] < 0x20 || (unsigned char)k[i] > 0x7e)
			return 0;
	return 1;
}

/* SHA-256 of method, path and raw body, as hex: what "the same request" means. */
static void
request_hash(const struct req *req, char out[65])
{
	static const char hex[] = "0123456789abcdef";
	unsigned char md[32];
	unsigned int mdlen = sizeof(md);
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();

	if (ctx == NULL || EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1)
		abort();
	EVP_DigestUpdate(ctx, router_method_name(req->method), strlen(router_method_name(req->method)));
	EVP_DigestUpdate(ctx, "\n", 1);
	EVP_DigestUpdate(ctx, req->path, strlen(req->path));
	EVP_DigestUpdate(ctx, "\n", 1);
	if (req->body_len > 0)
		EVP_DigestUpdate(ctx, req->body, req->body_len);
	EVP_DigestFinal_ex(ctx, md, &mdlen);
	EVP_MD_CTX_free(ctx);
	for (size_t i = 0; i < 32; i++) {
		out[2 * i] = hex[md[i] >> 4];
		out[2 * i + 1] = hex[md[i] & 15];
	}
	out[64] = '\0';
}

/* The JSON text kept for a replay: the response, less any one-time secret. */
static char *
replay_text(const struct req *req)
{
	json_object *o = NULL;
	char *text;

	if ((req->route->flags & RF_SECRET_ONCE) &&
	    json_object_deep_copy(req->out, &o, NULL) == 0)
		json_object_object_del(o, "clientSecret");
	text = xstrdup(json_object_to_json_string_ext(o != NULL ? o : req->out,
	    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	if (o != NULL)
		json_object_put(o);
	return text;
}

static void
key_in_use(struct req *req)
{
	resp_error(req, 409, "IDEMPOTENCY_KEY_IN_USE",
	    "A request with this Idempotency-Key is still being processed.", NULL);
}

/*
 * The end of an attempt whose handler answered below 500: records the
 * answer under claim (db_idem_finish, which checks the claim is still
 * ours when it goes to the server, with the commit) and commits.  Returns
 * 1 when the attempt must run again (a deadlock or certification
 * conflict), else 0 with the request answered (409 when the claim was
 * taken over; *forget when nothing was kept).
 */
static int
record_and_commit(struct req *req, struct db *db, const char *claim, int *forget)
{
	char *text = replay_text(req);
	int rc;

	rc = db_idem_finish(db, req->platform_id, req->idempotency_key, claim, req->status,
	    text);
	free(text);
	if (rc != DB_OK) {
		if (db_outer_retry(db))
			return 1;
		db_outer_rollback(db);
		if (rc == DB_CONFLICT) {
			key_in_use(req);
			return 0;
		}
		*forget = 1;
		req_db_fail(req, rc);
		return 0;
	}
	fault_point("kill-before-commit");
	if ((rc = db_outer_commit(db)) == DB_RETRY)
		return 1;
	if (rc == DB_CONFLICT) {
		/* The claim was taken over: nothing was committed. */
		key_in_use(req);
		return 0;
	}
	if (rc != DB_OK) {
		/* Committed or not, nobody knows: the claim's lease decides. */
		req_db_fail(req, rc);
		return 0;
	}
	fault_point("kill-after-commit");
	if (fault_point("lose-commit")) {
		/* As if the connection dropped as the commit returned. */
		req_db_fail(req, DB_UNAVAILABLE);
	}
	return 0;
}

/*
 * Runs the handler once under its claim, inside one request-wide
 * transaction that also stores the response (decisions.md section 8): the
 * business change and the record commit together or not at all.  Returns
 * 1 when the whole request must run again (deadlock, lock wait timeout),
 * 0 when it is answered; *forget says the key may be forgotten (nothing
 * was committed and the answer is a 5xx).
 */
static int
idempotent_attempt(struct req *req, const char *claim, int attempt, int *forget)
{
	struct db *db;
	int rc;

	*forget = 0;
	if ((db = req_db_or_reply(req)) == NULL)
		return 0;
	if ((rc = db_outer_begin(db, attempt)) != DB_OK) {
		*forget = 1;
		req_db_fail(req, rc);
		return 0;
	}
	/*
	 * The claim is checked, and its row locked, by the last statement
	 * (db_idem_finish): an attempt whose claim was taken over meanwhile
	 * (its lease passed) rolls back everything it did and answers 409,
	 * and the new owner's attempt is the one that commits.
	 */
	fault_point("pause-before-handler");
	req->route->handler(req);
	/* A store failure may have dropped the connection: ask again. */
	if ((db = db_handle(req->conf)) == NULL) {
		*forget = 1;
		return 0;
	}
	if (db_outer_retry(db))
		goto again;
	if (req->status >= 500 || req->status == 0) {
		db_outer_rollback(db);
		*forget = 1;
		return 0;
	}
	if (record_and_commit(req, db, claim, forget) == 0)
		return 0;
again:
	db_outer_rollback(db);
	if (attempt + 1 >= db_attempts()) {
		*forget = 1;
		req_db_fail(req, DB_RETRY);
		return 0;
	}
	resp_reset(req);
	return 1;
}

/*
 * Runs the handler under the request's Idempotency-Key (decisions.md
 * section 8): the first request runs and its answer is kept (unless 5xx);
 * the same request again gets that answer replayed; a different request
 * with the key is 409 IDEMPOTENCY_KEY_REUSED, and one that arrives while
 * the first still runs 409 IDEMPOTENCY_KEY_IN_USE.  A one-time secret
 * (POST /tokens) is never kept: its replay omits it and says so in the
 * Secret-Omitted header.
 */
static void
run_idempotent(struct req *req)
{
	const char *key = req->idempotency_key;
	char hash[65], claim[37], *body = NULL;
	enum idem_state state;
	struct db *db;
	int status = 0, rc, attempt, forget = 0;

	if (!idem_key_ok(key)) {
		resp_invalid(req, "Idempotency-Key", "must be 1 to 255 printable ASCII characters");
		return;
	}
	if ((db = req_db_or_reply(req)) == NULL)
		return;
	request_hash(req, hash);
	if ((rc = db_idem_begin(db, req->platform_id, key, hash, req->conf->idempotency_lease,
	    claim, &state, &status, &body)) != DB_OK) {
		req_db_fail(req, rc);
		return;
	}
	switch (state) {
	case IDEM_REPLAY:
		resp_json(req, status, http_parse_json(body, strlen(body)));
		resp_header(req, "Idempotent-Replayed", "true");
		if (req->route->flags & RF_SECRET_ONCE)
			resp_header(req, "Secret-Omitted", "clientSecret");
		free(body);
		return;
	case IDEM_REUSED:
		resp_error(req, 409, "IDEMPOTENCY_KEY_REUSED",
		    "This Idempotency-Key was used for a different request.", NULL);
		return;
	case IDEM_IN_USE:
		key_in_use(req);
		return;
	case IDEM_NEW:
		break;
	}
	for (attempt = 0; idempotent_attempt(req, claim, attempt, &forget); attempt++)
		;
	if (!forget)
		return;
	rc = (db = db_handle(req->conf)) != NULL ?
	    db_idem_forget(db, req->platform_id, key, claim) : DB_UNAVAILABLE;
	if (rc != DB_OK)
		log_msg(LOG_LVL_ERROR, req->id, "idempotency claim not released (%d);"
		    " its lease frees it", rc);
}

/*
 * Runs the handler of a request without Idempotency-Key.  The fault points
 * after it mirror those of idempotent_attempt() for tests: the worker
 * dies after the handler committed (nginx answers 503), or the answer is
 * lost as if the connection dropped as the commit returned (503).
 */
static void
run_plain(struct req *req)
{
	req->route->handler(req);
	if (req->status >= 500)
		return;
	fault_point("kill-after-commit");
	if (fault_point("lose-commit")) {
		resp_reset(req);
		req_db_fail(req, DB_UNAVAILABLE);
	}
}

/*
 * Counts the answer before it is sent, so that whoever reads the counters
 * after receiving it finds it counted (no answer yet: resp_send makes a 500).
 */
static void
count_answer(const struct req *req)
{
	static const enum stat_id by_class[] = { STAT_STATUS_5XX, STAT_STATUS_2XX,
	    STAT_STATUS_2XX, STAT_STATUS_3XX, STAT_STATUS_4XX, STAT_STATUS_5XX };
	int cls = req->out != NULL ? req->status / 100 : 5;

	stats_add(STAT_REQUESTS, 1);
	stats_add(by_class[cls >= 1 && cls <= 5 ? cls : 5], 1);
}

/* The error code of the answer, when it is an error envelope. */
static const char *
answer_code(const struct req *req)
{
	json_object *c;

	if (req->status < 400 || req->out == NULL ||
	    !json_object_object_get_ex(req->out, "code", &c) ||
	    !json_object_is_type(c, json_type_string))
		return "-";
	return json_object_get_string(c);
}

/*
 * The request's log line and counters.  Never the raw path (it holds ids
 * and whatever a client typed), the query, a header value or the body:
 * the route's pattern, the caller's ids, the outcome and the costs.
 */
static void
log_request(struct req *req)
{
	enum log_level lvl = req->status >= 500 ? LOG_LVL_WARN : LOG_LVL_INFO;
	uint64_t statements, db_us;
	struct logline l;

	db_tally_take(&statements, &db_us);
	if (!log_enabled(lvl))
		return;
	log_begin(&l, lvl, "request");
	log_str(&l, "request_id", req->id);
	log_str(&l, "platform_id", req->platform_id);
	log_str(&l, "token_id", req->token_id);
	log_str(&l, "method", router_method_name(req->method));
	log_str(&l, "route", req->route != NULL ? req->route->pattern : "-");
	log_int(&l, "status", req->status);
	log_str(&l, "code", answer_code(req));
	log_int(&l, "dur_us", now_us() - req->started_us);
	log_int(&l, "db_us", (int64_t)db_us);
	log_int(&l, "db_statements", (int64_t)statements);
	log_end(&l);
}

void
req_dispatch(struct req *req)
{
	uint64_t ignore[2];

	db_tally_take(&ignore[0], &ignore[1]);	/* this request's costs from now */
	/*
	 * Its client gave up while it waited for a worker: the answer would go
	 * nowhere, and running it would only delay the requests behind it (a
	 * client that times out on a slow page and asks again would pile up
	 * work that nobody reads).  Nothing ran; logged with nginx's 499 and
	 * a code of its own, and never sent.
	 */
	if (req_client_gone(req)) {
		(void)http_parse(req);
		resp_error(req, 499, "CLIENT_CLOSED_REQUEST",
		    "The client closed the request before a worker took it.", NULL);
		stats_add(STAT_CLIENT_GONE, 1);
		log_request(req);
		return;
	}
	if (pre_handler(req) == 0) {
		/* From here a POST may act: resp_retry_advice() needs to know. */
		req->handler_started = 1;
		if (req->method == M_POST && req->idempotency_key != NULL)
			run_idempotent(req);
		else
			run_plain(req);
	}
	http_drain(req);
	count_answer(req);
	resp_send(req);
	log_request(req);
}
