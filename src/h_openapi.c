/*
 * h_openapi.c: GET /openapi.json, the machine-readable description of the
 * API (openapi/xborder.yaml in the source tree, served as JSON).  No
 * credentials are needed.  A worker reads the file once and keeps it.
 */
#include "config.h"

#include <stddef.h>

#include <json-c/json_util.h>

#include "xborder/conf.h"
#include "xborder/handlers.h"
#include "xborder/request.h"
#include "xborder/resp.h"
#include "xborder/util.h"

static json_object *document;

int
h_openapi_get(struct req *req)
{
	if (document == NULL) {
		document = json_object_from_file(req->conf->openapi_file);
		if (document == NULL || !json_object_is_type(document, json_type_object)) {
			log_msg(LOG_LVL_ERROR, req->id, "cannot read %s", req->conf->openapi_file);
			if (document != NULL)
				json_object_put(document);
			document = NULL;
			return resp_error(req, 500, "INTERNAL_ERROR",
			    "The API description is not available.", NULL);
		}
	}
	/* The response takes a reference; the worker keeps its own. */
	resp_json(req, 200, json_object_get(document));
	return 0;
}
