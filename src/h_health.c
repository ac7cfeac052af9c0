/*
 * h_health.c: GET /healthz, for load balancers and operators.  No
 * credentials; the shipped nginx config serves it to loopback only.
 */
#include "config.h"

#include <stddef.h>

#include "xborder/conf.h"
#include "xborder/db.h"
#include "xborder/handlers.h"
#include "xborder/request.h"
#include "xborder/resp.h"

int
h_health_get(struct req *req)
{
	struct db *db = db_handle(req->conf);
	int up = db != NULL && db_ping(db) == DB_OK;
	json_object *o = json_object_new_object();

	json_object_object_add(o, "status", json_object_new_string(up ? "ok" : "unavailable"));
	json_object_object_add(o, "database", json_object_new_string(up ? "ok" : "unavailable"));
	json_object_object_add(o, "version", json_object_new_string(PACKAGE_VERSION));
	if (!up)
		resp_header(req, "Retry-After", "5");
	resp_json(req, up ? 200 : 503, o);
	return 0;
}
