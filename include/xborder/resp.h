/*
 * resp.h: building responses.  Handlers set a status and a json-c body
 * through these functions; resp_send() alone writes to the FastCGI stream.
 */
#ifndef XBORDER_RESP_H
#define XBORDER_RESP_H

#include <json-c/json.h>

struct req;
struct db;

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

/* The retry advice of a response: what its x-should-retry header says. */
enum resp_retry { RESP_RETRY_NONE, RESP_RETRY_NO, RESP_RETRY_YES };

/*
 * Decides the retry advice of the response built so far, for clients
 * (generated SDKs among them) that retry 408, 409, 429 and 5xx unless
 * x-should-retry says otherwise (xborder-api(7), Retries):
 *   NONE  below 400: no advice;
 *   YES   408, 429, 409 IDEMPOTENCY_KEY_IN_USE, and 5xx unless NO below:
 *         the same request may succeed later and repeating it is safe;
 *   NO    every other 4xx (a repeat gets the same answer), and a 5xx to a
 *         POST without Idempotency-Key once its handler started (it may
 *         have committed; a repeat could act twice).
 * resp_render() writes it: x-should-retry true with Retry-After (the
 * handler's, else a default), false without Retry-After, nothing on NONE.
 */
enum resp_retry resp_retry_advice(const struct req *req);

/* The reason phrase of an HTTP status. */
const char *resp_reason(int status);

/*
 * Serialises the response (status line, the common headers, the retry
 * advice, the extra headers and the JSON body) into a new string; caller
 * frees.
 */
char *resp_render(const struct req *req, size_t *len);

/* Writes the response to the request's FastCGI stream. */
void resp_send(struct req *req);

/*
 * The worker's database connection, opened on first use.  When the server
 * cannot be reached it answers 503 itself and returns NULL.
 */
struct db *req_db_or_reply(struct req *req);

/*
 * Answers a failed store call: 503 SERVICE_UNAVAILABLE for DB_UNAVAILABLE,
 * 500 INTERNAL_ERROR for anything else.  Returns -1.
 */
int req_db_fail(struct req *req, int rc);

#endif
