/*
 * h_status.c: GET /status, the operator's status document (status.h).
 * No credentials, for loopback clients only: the shipped nginx site
 * allows 127.0.0.1 and ::1 alone, and the handler checks REMOTE_ADDR
 * again, so that a site without that rule still keeps it private.
 */
#include "config.h"

#include "xborder/conf.h"
#include "xborder/db.h"
#include "xborder/handlers.h"
#include "xborder/netguard.h"
#include "xborder/request.h"
#include "xborder/resp.h"
#include "xborder/status.h"

int
h_status_get(struct req *req)
{
	if (!netguard_loopback_text(req->remote_addr))
		return resp_error(req, 403, "FORBIDDEN",
		    "The status page is served to loopback clients only.", NULL);
	resp_json(req, 200, status_render(req->conf, db_handle(req->conf)));
	return 0;
}
