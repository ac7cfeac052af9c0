/*
 * http.h: turning a FastCGI request into the fields of struct req, and the
 * pure parsers behind it (query strings, media types, JSON bodies).
 */
#ifndef XBORDER_HTTP_H
#define XBORDER_HTTP_H

#include <stddef.h>

#include <json-c/json.h>

#include "xborder/request.h"

#define HTTP_MAX_BODY 65536

/*
 * Fills req from its FastCGI parameters: method, path (base_path removed),
 * query, the headers the service reads and the request id.  Returns 0, or
 * -1 when the path is outside base_path (answer 404).
 */
int http_parse(struct req *req);

/*
 * Splits a query string into decoded name/value pairs (caller frees with
 * req_query_free).  A pair whose name has a malformed escape (or an
 * encoded NUL) is dropped; one whose value has one keeps a NULL value.
 * Returns 0.
 */
int http_query_parse(const char *qs, struct query_param **out, size_t *n);


/*
 * Looks a query parameter up: returns 0 when absent, 1 with *value set
 * (borrowed) when given once, -1 when given more than once, -2 when its
 * value is not validly percent-encoded, or not text (valid_text, as a key).
 */
int http_query_get(const struct req *req, const char *name, const char **value);

/* 1 when a Content-Type header value is application/json (params allowed). */
int http_is_json_type(const char *ct);

/*
 * Parses a complete JSON text strictly (UTF-8 checked, nothing after the
 * value).  Returns the object or NULL.
 */
json_object *http_parse_json(const char *buf, size_t len);

/*
 * Checks every key and string of a parsed body: valid UTF-8 (RFC 3629),
 * no NUL, no control characters (values may hold tab, line feed and
 * carriage return).  0, or -1 with the offending field's path ("a.b",
 * "list[2]"; "body" when it cannot be named) in path and the rule in *rule.
 */
int http_json_text_check(json_object *o, char *path, size_t cap, const char **rule);

/*
 * Reads the body according to the route: 413 over HTTP_MAX_BODY, 415 for a
 * non-JSON media type, 400 for malformed JSON or a non-object, and on a
 * route that takes no body (RF_BODY_NONE) for anything but none or {}.  The rest of
 * an oversized body is drained.  Returns 0 or -1 after answering.
 */
int http_body_or_reply(struct req *req);

/* Reads and discards whatever body the client sent. */
void http_drain(struct req *req);

#endif
