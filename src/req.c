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

#include "xborder/auth.h"
#include "xborder/conf.h"
#include "xborder/db.h"
#include "xborder/handlers.h"
#include "xborder/http.h"
#include "xborder/req.h"
#include "xborder/resp.h"
#include "xborder/util.h"

void
req_init(struct req *req, FCGX_Request *fcgi, const struct conf *conf)
{
	memset(req, 0, sizeof(*req));
	req->fcgi = fcgi;
	req->conf = conf;
	req->started_ms = now_ms();
	req->content_length = -1;
}

void
req_free(struct req *req)
{
	free(req->path);
	http_query_free(req->query, req->nquery);
	router_match_free(&req->match);
	free(req->body);
	if (req->json != NULL)
		json_object_put(req->json);
	if (req->out != NULL)
		json_object_put(req->out);
	memset(req, 0, sizeof(*req));
}

const char *
req_param(const struct req *req, size_t i)
{
	return i < req->match.nparams ? req->match.params[i] : "";
}

static int
unavailable(struct req *req)
{
	resp_header(req, "Retry-After", "5");
	return resp_error(req, 503, "SERVICE_UNAVAILABLE",
	    "The service is temporarily unavailable; retry later.", NULL);
}

struct db *
req_db_or_reply(struct req *req)
{
	struct db *db = db_handle(req->conf);

	if (db == NULL)
		unavailable(req);
	return db;
}

int
req_db_fail(struct req *req, int rc)
{
	if (rc == DB_UNAVAILABLE) {
		db_handle_reset();
		return unavailable(req);
	}
	log_msg(LOG_LVL_ERROR, req->id, "store failure %d", rc);
	return resp_error(req, 500, "INTERNAL_ERROR", "An internal error occurred.", NULL);
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
	if ((req->route->flags & (RF_BODY | RF_BODY_OPT)) && http_body_or_reply(req) < 0)
		return -1;
	return 0;
}

void
req_dispatch(struct req *req)
{
	if (pre_handler(req) == 0)
		req->route->handler(req);
	http_drain(req);
	resp_send(req);
	log_msg(req->status >= 500 ? LOG_LVL_WARN : LOG_LVL_INFO, req->id,
	    "%s %s %d %lldms", router_method_name(req->method),
	    req->path ? req->path : "-", req->status,
	    (long long)(now_ms() - req->started_ms));
}
