/* h_webhooks.c: being written (issue 12). */
#include "config.h"

#include "xborder/handlers.h"
#include "xborder/resp.h"

static int
not_yet(struct req *req)
{
	return resp_error(req, 404, "NOT_FOUND", "Not found.", NULL);
}

int h_webhooks_signing_key(struct req *req) { return not_yet(req); }
int h_webhooks_test(struct req *req) { return not_yet(req); }
int h_webhooks_deliveries(struct req *req) { return not_yet(req); }
int h_webhooks_retry(struct req *req) { return not_yet(req); }
