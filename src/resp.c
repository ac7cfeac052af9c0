/*
 * resp.c: the response writer and the error envelope.  Every response of
 * the service passes through resp_render(), so the common headers
 * (Content-Type, Cache-Control, X-Request-Id, X-Api-Version) and the
 * retry advice of every error (x-should-retry, with Retry-After when it
 * says true) are set in exactly one place.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <fcgiapp.h>

#include "xborder/db.h"
#include "xborder/fcgi_rec.h"
#include "xborder/jtext.h"
#include "xborder/log.h"
#include "xborder/request.h"
#include "xborder/resp.h"
#include "xborder/util.h"

#define API_VERSION "2026-04-08"

/*
 * Retry-After (seconds) of an answer that advises a retry and names no
 * time of its own: 503 as the database's unavailable() does, anything
 * else (409 IDEMPOTENCY_KEY_IN_USE, 500) a second.
 */
#define RETRY_AFTER_UNAVAILABLE	"5"
#define RETRY_AFTER_DEFAULT	"1"

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

/* The code of the error envelope in the response, or "". */
static const char *
error_code(const struct req *req)
{
	json_object *c;

	if (req->out == NULL || !json_object_object_get_ex(req->out, "code", &c) ||
	    !json_object_is_type(c, json_type_string))
		return "";
	return json_object_get_string(c);
}

enum resp_retry
resp_retry_advice(const struct req *req)
{
	if (req->status < 400)
		return RESP_RETRY_NONE;
	if (req->status == 408 || req->status == 429)
		return RESP_RETRY_YES;
	if (req->status == 409)
		return strcmp(error_code(req), "IDEMPOTENCY_KEY_IN_USE") == 0 ?
		    RESP_RETRY_YES : RESP_RETRY_NO;
	if (req->status < 500)
		return RESP_RETRY_NO;
	/*
	 * A POST without Idempotency-Key that reached its handler may have
	 * committed before it failed (the commit's answer lost with the
	 * connection): a repeat could do it twice.  With a key a repeat
	 * replays the committed answer or runs once; before the handler
	 * nothing was done; every PATCH and DELETE of the API sets a state,
	 * so a repeat leaves the same state.
	 */
	if (req->method == M_POST && req->idempotency_key == NULL &&
	    req->handler_started)
		return RESP_RETRY_NO;
	return RESP_RETRY_YES;
}

/* Appends n bytes of s to buf (of size cap) at *len, as many as fit. */
static void
head_put(char *buf, size_t cap, size_t *len, const char *s, size_t n)
{
	if (n > cap - *len)
		n = cap - *len;
	memcpy(buf + *len, s, n);
	*len += n;
}

/*
 * Appends the header line "name: value" to buf (of size cap) at *len;
 * capped.  Copied, not printed: snprintf's parsing of its format was a
 * tenth of a cached GET's work in the worker.
 */
static void
head_add(char *buf, size_t cap, size_t *len, const char *name, const char *value)
{
	head_put(buf, cap, len, name, strlen(name));
	head_put(buf, cap, len, ": ", 2);
	head_put(buf, cap, len, value, strlen(value));
	head_put(buf, cap, len, "\r\n", 2);
}

char *
resp_render(const struct req *req, size_t *lenp)
{
	const char *body;
	char *out, head[2048], status[64];
	enum resp_retry advice = resp_retry_advice(req);
	int has_retry_after = 0;
	size_t hl = 0, bl;

	body = req->out != NULL ? json_object_to_json_string_ext(req->out,
	    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE) : "{}";
	bl = strlen(body);
	snprintf(status, sizeof(status), "%d %s", req->status, resp_reason(req->status));
	head_add(head, sizeof(head), &hl, "Status", status);
	head_add(head, sizeof(head), &hl, "Content-Type", "application/json");
	head_add(head, sizeof(head), &hl, "Cache-Control", "no-store");
	head_add(head, sizeof(head), &hl, "X-Request-Id", req->id);
	head_add(head, sizeof(head), &hl, "X-Api-Version", API_VERSION);
	status[sizeof(status) - 1] = '\0';
	head_add(head, sizeof(head), &hl, "Content-Length",
	    i64_digits((int64_t)bl, status + sizeof(status) - 1));
	if (advice != RESP_RETRY_NONE)
		head_add(head, sizeof(head), &hl, "x-should-retry",
		    advice == RESP_RETRY_YES ? "true" : "false");
	for (size_t i = 0; i < req->nhdr; i++) {
		if (strcasecmp(req->hdr[i].name, "Retry-After") == 0) {
			/* Advice not to retry goes without a time to retry at. */
			if (advice == RESP_RETRY_NO)
				continue;
			has_retry_after = 1;
		}
		head_add(head, sizeof(head), &hl, req->hdr[i].name, req->hdr[i].value);
	}
	/* Advice to retry always says when: the handler's time, else ours. */
	if (advice == RESP_RETRY_YES && !has_retry_after)
		head_add(head, sizeof(head), &hl, "Retry-After",
		    req->status == 503 ? RETRY_AFTER_UNAVAILABLE : RETRY_AFTER_DEFAULT);
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

/*
 * Writes the whole answer, its FastCGI records included, to nginx with one
 * write (fcgi_rec.c): libfcgi's stream would flush every 8 KiB, and each
 * write wakes nginx.  libfcgi's streams are then marked closed, so that
 * FCGX_Finish_r writes nothing more (its end records are in ours).  A
 * failed write is nginx gone: nothing is left to tell.
 */
static void
send_records(FCGX_Request *fr, const char *text, size_t len)
{
	size_t n, off = 0;
	unsigned char *f = fcgi_rec_frame(fr->requestId, text, len, &n);
	ssize_t w;

	while (off < n) {
		if ((w = write(fr->ipcFd, f + off, n - off)) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		off += (size_t)w;
	}
	free(f);
	fr->out->isClosed = fr->out->wasFCloseCalled = 1;
	fr->err->isClosed = fr->err->wasFCloseCalled = 1;
}

void
resp_send(struct req *req)
{
	size_t len;
	char *text;

	if (req->status == 0)
		resp_error(req, 500, "INTERNAL_ERROR", "No response was produced.", NULL);
	text = resp_render(req, &len);
	if (req->fcgi != NULL && req->fcgi->ipcFd >= 0 && req->fcgi->out != NULL &&
	    req->fcgi->err != NULL)
		send_records(req->fcgi, text, len);
	free(text);
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
	/*
	 * Every attempt lost a deadlock or (on Galera) a certification
	 * conflict: nothing was written, and the same request later will
	 * most likely go through.  Each retry was logged already.
	 */
	if (rc == DB_RETRY)
		return unavailable(req);
	log_msg(LOG_LVL_ERROR, req->id, "store failure %d", rc);
	return resp_error(req, 500, "INTERNAL_ERROR", "An internal error occurred.", NULL);
}
