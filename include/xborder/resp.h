/*
 * resp.h: building responses.  Handlers set a status and a json-c body
 * through these functions; resp_send() alone writes to the FastCGI stream.
 */
#ifndef XBORDER_RESP_H
#define XBORDER_RESP_H

#include <json-c/json.h>

struct req;

/* Sets the response: status and body (ownership of body passes to req). */
void resp_json(struct req *req, int status, json_object *body);

/*
 * Sets an error response in the envelope {status, code, message, details}.
 * details may be NULL (an empty object); ownership passes to req.
 * Returns -1 so that callers can `return resp_error(...)`.
 */
int resp_error(struct req *req, int status, const char *code,
    const char *message, json_object *details);

/* Same, with details holding the single entry field: rule. */
int resp_invalid(struct req *req, const char *field, const char *rule);

/* Forgets the response built so far (body, status, headers): a retry. */
void resp_reset(struct req *req);

/* Adds a response header (name and value are copied; silently capped). */
void resp_header(struct req *req, const char *name, const char *value);

/* The reason phrase of an HTTP status. */
const char *resp_reason(int status);

/*
 * Serialises the response (status line, the common headers, the extra
 * headers and the JSON body) into a new string; caller frees.
 */
char *resp_render(const struct req *req, size_t *len);

/* Writes the response to the request's FastCGI stream. */
void resp_send(struct req *req);

#endif
