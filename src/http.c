/*
 * http.c: the parse stage.  nginx hands us REQUEST_METHOD, REQUEST_URI,
 * CONTENT_TYPE, CONTENT_LENGTH, HTTP_* headers and REQUEST_ID through
 * FastCGI parameters.  The path is taken from REQUEST_URI (still percent-
 * encoded) so that the router decodes each segment on its own.
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fcgiapp.h>

#include "xborder/conf.h"
#include "xborder/fault.h"
#include "xborder/http.h"
#include "xborder/ids.h"
#include "xborder/resp.h"
#include "xborder/util.h"
#include "xborder/valid.h"

static const char *
param(struct req *req, const char *name)
{
	return req->fcgi != NULL ? FCGX_GetParam(name, req->fcgi->envp) : NULL;
}

int
http_parse(struct req *req)
{
	const char *uri = param(req, "REQUEST_URI"), *q, *rid, *cl;
	size_t plen, blen = strlen(req->conf->base_path);
	int64_t n;

	req->method = router_method(param(req, "REQUEST_METHOD"));
	req->content_type = param(req, "CONTENT_TYPE");
	req->authorization = param(req, "HTTP_AUTHORIZATION");
	req->platform_header = param(req, "HTTP_X_PLATFORM_ID");
	req->idempotency_key = param(req, "HTTP_IDEMPOTENCY_KEY");
	req->remote_addr = param(req, "REMOTE_ADDR");
#ifdef XB_FAULT_INJECTION
	fault_arm(param(req, "HTTP_X_XBORDER_FAULT"));
#endif
	req->content_length = -1;
	if ((cl = param(req, "CONTENT_LENGTH")) != NULL && *cl != '\0' &&
	    parse_i64_digits(cl, &n) == 0)
		req->content_length = n;

	/* The request id: nginx's $request_id when it is sane, else ours. */
	rid = param(req, "REQUEST_ID");
	if (rid != NULL && strlen(rid) > 0 && strlen(rid) < sizeof(req->id) &&
	    strspn(rid, "0123456789abcdefABCDEF-") == strlen(rid))
		snprintf(req->id, sizeof(req->id), "%s", rid);
	else {
		char u[UUID_LEN + 1];

		ids_uuid4(u);
		snprintf(req->id, sizeof(req->id), "%s", u);
	}

	if (uri == NULL || uri[0] != '/')
		uri = "/";
	q = strchr(uri, '?');
	plen = q ? (size_t)(q - uri) : strlen(uri);
	if (blen > 0) {
		if (plen < blen || strncmp(uri, req->conf->base_path, blen) != 0 ||
		    (plen > blen && uri[blen] != '/'))
			return -1;
		uri += blen;
		plen -= blen;
	}
	req->path = plen ? xstrndup(uri, plen) : xstrdup("/");
	if (q != NULL)
		http_query_parse(q + 1, &req->query, &req->nquery);
	return 0;
}

int
http_query_parse(const char *qs, struct query_param **out, size_t *np)
{
	struct query_param *q = NULL;
	size_t n = 0;

	*out = NULL;
	*np = 0;
	while (*qs != '\0') {
		size_t len = strcspn(qs, "&");
		const char *eq = memchr(qs, '=', len);
		char *name, *value;

		if (len == 0) {
			qs++;
			continue;
		}
		name = router_decode(qs, eq ? (size_t)(eq - qs) : len, 1);
		value = eq ? router_decode(eq + 1, len - (size_t)(eq - qs) - 1, 1) : xstrdup("");
		qs += len;
		if (*qs == '&')
			qs++;
		/*
		 * A parameter whose name cannot be decoded is not one we know
		 * (ignored); one whose value cannot be decoded is kept with a
		 * NULL value, so that the operation reading it answers 400.
		 */
		if (name == NULL) {
			free(value);
			continue;
		}
		q = xrealloc(q, (n + 1) * sizeof(*q));
		q[n].name = name;
		q[n++].value = value;
	}
	*out = q;
	*np = n;
	return 0;
}

int
http_query_get(const struct req *req, const char *name, const char **value)
{
	int found = 0;

	for (size_t i = 0; i < req->nquery; i++)
		if (strcmp(req->query[i].name, name) == 0) {
			if (found)
				return -1;
			if (req->query[i].value == NULL ||
			    !valid_text(req->query[i].value, strlen(req->query[i].value), 1))
				return -2;
			*value = req->query[i].value;
			found = 1;
		}
	return found;
}

int
http_is_json_type(const char *ct)
{
	size_t n;

	if (ct == NULL)
		return 0;
	while (*ct == ' ' || *ct == '\t')
		ct++;
	n = strlen("application/json");
	if (strncasecmp(ct, "application/json", n) != 0)
		return 0;
	ct += n;
	while (*ct == ' ' || *ct == '\t')
		ct++;
	return *ct == '\0' || *ct == ';';
}

/*
 * json-c's strict mode still takes a few liberties (single-quoted strings,
 * comments, bare words); a body must be JSON as RFC 8259 writes it, so this
 * scan rejects any byte outside a string that JSON cannot have there.
 */
static int
json_outside_strings_ok(const char *buf, size_t len)
{
	int in_str = 0;

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)buf[i];

		if (in_str) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_str = 0;
			else if (c < 0x20)
				return 0;
			continue;
		}
		if (c == '"')
			in_str = 1;
		else if (!strchr("{}[],:-+.eE0123456789truefalsn \t\r\n", c) || c == '\0')
			return 0;
	}
	return !in_str;
}

static int
hex4(const char *p, const char *end, unsigned *v)
{
	*v = 0;
	if (end - p < 4)
		return 0;
	for (int i = 0; i < 4; i++) {
		int c = (unsigned char)p[i];

		if (!isxdigit(c))
			return 0;
		*v = *v * 16 + (unsigned)(isdigit(c) ? c - '0' : (c | 0x20) - 'a' + 10);
	}
	return 1;
}

/*
 * Scans the escapes of the strings of a JSON text.  json-c turns an
 * unpaired UTF-16 surrogate escape (\ud800 alone) into U+FFFD, which would
 * hide it; rewritten as \u0000 (the same length) in a copy (*fixed, when
 * fixed is not NULL and there is one), it reaches the text check below as
 * the NUL it is refused for, attributed to its field.  json-c also cuts a
 * key at its first NUL, so a key holding one is found here: returns 1
 * then, else 0.
 */
static int
escapes_scan(const char *buf, size_t len, char **fixed)
{
	const char *end = buf + len;
	int in_str = 0, nul = 0, key_nul = 0;

	if (fixed != NULL)
		*fixed = NULL;
	for (const char *p = buf; p < end; p++) {
		unsigned v, w;

		if (*p == '"') {
			const char *q = p + 1;

			if ((in_str = !in_str) == 0 && nul) {
				while (q < end && isspace((unsigned char)*q))
					q++;
				key_nul |= q < end && *q == ':';
			}
			nul = 0;
			continue;
		}
		if (!in_str || *p != '\\' || p + 1 >= end)
			continue;
		p++;
		if (*p != 'u' || !hex4(p + 1, end, &v))
			continue;
		if (v < 0xd800 || v > 0xdfff) {
			nul |= v == 0;
			p += 4;
			continue;
		}
		if (v <= 0xdbff && end - p >= 11 && p[5] == '\\' && p[6] == 'u' &&
		    hex4(p + 7, end, &w) && w >= 0xdc00 && w <= 0xdfff) {
			p += 10;	/* a proper pair */
			continue;
		}
		nul = 1;
		if (fixed != NULL) {
			if (*fixed == NULL) {
				*fixed = xmalloc(len + 1);
				memcpy(*fixed, buf, len);
				(*fixed)[len] = '\0';
			}
			memcpy(*fixed + (p + 1 - buf), "0000", 4);
		}
		p += 4;
	}
	return key_nul;
}

/* Appends ".key" (or "key" at the top), or "[idx]" when key is NULL. */
static int
path_add(char *path, size_t cap, size_t at, const char *key, size_t idx)
{
	int n;

	if (key != NULL)
		n = snprintf(path + at, cap - at, "%s%s", at > 0 ? "." : "", key);
	else
		n = snprintf(path + at, cap - at, "[%zu]", idx);
	if (n < 0 || (size_t)n >= cap - at) {
		path[at] = '\0';	/* too deep to name: the parent names it */
		return 0;
	}
	return n;
}

/*
 * Walks every key and string of o: the first one that is not valid text
 * (valid_text) leaves its path (or "body") in path and the rule in *rule.
 */
static int
text_walk(json_object *o, char *path, size_t cap, size_t at, const char **rule)
{
	size_t n;

	switch (json_object_get_type(o)) {
	case json_type_string:
		if (valid_text(json_object_get_string(o),
		    (size_t)json_object_get_string_len(o), 0))
			return 0;
		*rule = "must be valid UTF-8 text without NUL or control characters"
		    " (tab, line feed and carriage return aside)";
		return -1;
	case json_type_array:
		n = json_object_array_length(o);
		for (size_t i = 0; i < n; i++) {
			size_t k = (size_t)path_add(path, cap, at, NULL, i);

			if (text_walk(json_object_array_get_idx(o, i), path, cap, at + k,
			    rule) < 0)
				return -1;
		}
		path[at] = '\0';
		return 0;
	case json_type_object: {
		json_object_object_foreach(o, key, val) {
			size_t k;

			if (!valid_text(key, strlen(key), 1)) {
				path[at] = '\0';
				*rule = "keys must be valid UTF-8 text without NUL or control"
				    " characters";
				return -1;
			}
			k = (size_t)path_add(path, cap, at, key, 0);
			if (text_walk(val, path, cap, at + k, rule) < 0)
				return -1;
		}
		path[at] = '\0';
		return 0;
	}
	default:
		return 0;
	}
}

int
http_json_text_check(json_object *o, char *path, size_t cap, const char **rule)
{
	path[0] = '\0';
	if (text_walk(o, path, cap, 0, rule) == 0)
		return 0;
	if (path[0] == '\0')
		snprintf(path, cap, "body");
	return -1;
}

json_object *
http_parse_json(const char *raw, size_t len)
{
	struct json_tokener *tok;
	json_object *o;
	char *fixed;
	const char *buf;

	if (len == 0 || len > INT32_MAX || !json_outside_strings_ok(raw, len))
		return NULL;
	escapes_scan(raw, len, &fixed);
	buf = fixed != NULL ? fixed : raw;
	tok = json_tokener_new_ex(64);
	if (tok == NULL)
		abort();
	/*
	 * Not JSON_TOKENER_VALIDATE_UTF8: it lets overlong forms and encoded
	 * surrogates through yet refuses other bad bytes without naming the
	 * field; http_json_text_check checks every string strictly instead.
	 */
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	o = json_tokener_parse_ex(tok, buf, (int)len);
	if (o != NULL) {
		size_t end = json_tokener_get_parse_end(tok);

		/* Only white space may follow the value. */
		for (; end < len; end++)
			if (!isspace((unsigned char)buf[end])) {
				json_object_put(o);
				o = NULL;
				break;
			}
	} else if (json_tokener_get_error(tok) == json_tokener_continue) {
		o = NULL;	/* truncated */
	}
	json_tokener_free(tok);
	free(fixed);
	return o;
}

void
http_drain(struct req *req)
{
	char buf[8192];

	if (req->fcgi == NULL)
		return;
	while (FCGX_GetStr(buf, sizeof(buf), req->fcgi->in) > 0)
		;
}

int
http_body_or_reply(struct req *req)
{
	size_t cap = 4096;
	int n;

	if (req->content_length > HTTP_MAX_BODY) {
		http_drain(req);
		return resp_error(req, 413, "PAYLOAD_TOO_LARGE",
		    "The request body is larger than 65536 bytes.", NULL);
	}
	req->body = xmalloc(cap + 1);
	while (req->fcgi != NULL &&
	    (n = FCGX_GetStr(req->body + req->body_len, (int)(cap - req->body_len),
	    req->fcgi->in)) > 0) {
		req->body_len += (size_t)n;
		if (req->body_len > HTTP_MAX_BODY) {
			http_drain(req);
			return resp_error(req, 413, "PAYLOAD_TOO_LARGE",
			    "The request body is larger than 65536 bytes.", NULL);
		}
		if (req->body_len == cap) {
			cap *= 2;
			req->body = xrealloc(req->body, cap + 1);
		}
	}
	req->body[req->body_len] = '\0';
	if (req->body_len == 0 && (req->route->flags & (RF_BODY_OPT | RF_BODY_NONE)))
		return 0;
	if (req->body_len > 0 || (req->content_type != NULL && *req->content_type)) {
		if (!http_is_json_type(req->content_type))
			return resp_error(req, 415, "UNSUPPORTED_MEDIA_TYPE",
			    "Request bodies must be application/json.", NULL);
	}
	if (req->body_len == 0)
		return resp_invalid(req, "body", "a JSON object is required");
	if ((req->json = http_parse_json(req->body, req->body_len)) == NULL)
		return resp_invalid(req, "body", "must be well-formed JSON");
	if (!json_object_is_type(req->json, json_type_object))
		return resp_invalid(req, "body", "must be a JSON object");
	/* An operation that takes no body: nothing but an empty object. */
	if ((req->route->flags & RF_BODY_NONE) && json_object_object_length(req->json) > 0)
		return resp_invalid(req, "body", "this operation takes no body: send none, or {}");
	{
		char path[256];
		const char *rule;

		/* Checked once here, so no handler ever sees text that is not. */
		if (escapes_scan(req->body, req->body_len, NULL))
			return resp_invalid(req, "body", "keys must be valid UTF-8 text"
			    " without NUL or control characters");
		if (http_json_text_check(req->json, path, sizeof(path), &rule) < 0)
			return resp_invalid(req, path, rule);
	}
	return 0;
}
