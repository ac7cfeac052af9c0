/*
 * resp.c: the response writer and the error envelope.  Every response of
 * the service passes through resp_render(), so the common headers
 * (Content-Type, Cache-Control, X-Request-Id, X-Api-Version) are set in
 * exactly one place.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fcgiapp.h>

#include "xborder/req.h"
#include "xborder/resp.h"
#include "xborder/util.h"

#define API_VERSION "2026-04-08"

void
resp_json(struct req *req, int status, json_object *body)
{
	if (req->out != NULL)
		json_object_put(req->out);
	req->status = status;
	req->out = body;
}

int
resp_error(struct req *req, int status, const char *code,
    const char *message, json_object *details)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "status", json_object_new_int(status));
	json_object_object_add(o, "code", json_object_new_string(code));
	json_object_object_add(o, "message", json_object_new_string(message));
	json_object_object_add(o, "details",
	    details != NULL ? details : json_object_new_object());
	resp_json(req, status, o);
	return -1;
}

int
resp_invalid(struct req *req, const char *field, const char *rule)
{
	json_object *d = json_object_new_object();

	json_object_object_add(d, field, json_object_new_string(rule));
	return resp_error(req, 400, "INVALID_REQUEST",
	    "The request is invalid; see details.", d);
}

void
resp_reset(struct req *req)
{
	if (req->out != NULL)
		json_object_put(req->out);
	req->out = NULL;
	req->status = 0;
	req->nhdr = 0;
}

void
resp_header(struct req *req, const char *name, const char *value)
{
	if (req->nhdr == REQ_MAX_HEADERS)
		return;
	snprintf(req->hdr[req->nhdr].name, sizeof(req->hdr[0].name), "%s", name);
	snprintf(req->hdr[req->nhdr].value, sizeof(req->hdr[0].value), "%s", value);
	req->nhdr++;
}

const char *
resp_reason(int status)
{
	switch (status) {
	case 200: return "OK";
	case 201: return "Created";
	case 400: return "Bad Request";
	case 401: return "Unauthorized";
	case 403: return "Forbidden";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 409: return "Conflict";
	case 410: return "Gone";
	case 413: return "Payload Too Large";
	case 415: return "Unsupported Media Type";
	case 429: return "Too Many Requests";
	case 500: return "Internal Server Error";
	case 503: return "Service Unavailable";
	default: return "Unknown";
	}
}

char *
resp_render(const struct req *req, size_t *lenp)
{
	const char *body;
	char *out, head[2048];
	size_t hl, bl;
	int n;

	body = req->out != NULL ? json_object_to_json_string_ext(req->out,
	    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE) : "{}";
	bl = strlen(body);
	n = snprintf(head, sizeof(head),
	    "Status: %d %s\r\n"
	    "Content-Type: application/json\r\n"
	    "Cache-Control: no-store\r\n"
	    "X-Request-Id: %s\r\n"
	    "X-Api-Version: " API_VERSION "\r\n"
	    "Content-Length: %zu\r\n",
	    req->status, resp_reason(req->status), req->id, bl);
	hl = (size_t)n;
	for (size_t i = 0; i < req->nhdr && hl < sizeof(head); i++) {
		n = snprintf(head + hl, sizeof(head) - hl, "%s: %s\r\n",
		    req->hdr[i].name, req->hdr[i].value);
		hl += (size_t)n;
	}
	if (hl > sizeof(head) - 3)
		hl = sizeof(head) - 3;
	memcpy(head + hl, "\r\n", 3);
	hl += 2;
	out = xmalloc(hl + bl + 1);
	memcpy(out, head, hl);
	memcpy(out + hl, body, bl + 1);
	*lenp = hl + bl;
	return out;
}

void
resp_send(struct req *req)
{
	size_t len;
	char *text;

	if (req->status == 0)
		resp_error(req, 500, "INTERNAL_ERROR", "No response was produced.", NULL);
	text = resp_render(req, &len);
	if (req->fcgi != NULL)
		FCGX_PutStr(text, (int)len, req->fcgi->out);
	free(text);
}
