/*
 * handlers.h: the resource handlers (h_<resource>.c) and the helpers they
 * share.  A handler receives a request that is routed, authenticated,
 * permitted and whose body (if any) parsed to a JSON object; it sets the
 * response with resp_json() or resp_error() and returns 0 or -1.
 */
#ifndef XBORDER_HANDLERS_H
#define XBORDER_HANDLERS_H

#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "xborder/router.h"

struct req;

/* The routing table (routes.c) and its size. */
extern const struct route_def routes[];
extern const size_t nroutes;

int h_health_get(struct req *req);

int h_tokens_create(struct req *req);
int h_tokens_list(struct req *req);
int h_tokens_get(struct req *req);
int h_tokens_revoke(struct req *req);

int h_config_get(struct req *req);
int h_config_patch(struct req *req);

int h_profile_get(struct req *req);
int h_profile_patch(struct req *req);

/* Shared helpers (h_common.c). */

/* Where a list ends: nextCursor is null, or "" for external accounts. */
enum list_end { LIST_END_NULL, LIST_END_EMPTY };

/*
 * Reads `limit` (default def, 1..max) and `cursor` (offset >= 0) from the
 * query.  Answers 400 naming the parameter and returns -1 when one is
 * malformed, out of range or repeated.
 */
int list_params_or_reply(struct req *req, int64_t def, int64_t max,
    int64_t *limit, int64_t *cursor);

/*
 * Builds the list envelope around data (ownership passes): hasMore,
 * nextCursor (decimal offset string, or the end marker) and totalCount.
 */
json_object *list_envelope(json_object *data, int64_t cursor, int64_t total,
    enum list_end end);

/*
 * Applies the X-Platform-Id rules of the sandbox operations: absent is the
 * caller's platform; not a UUIDv4 is 400; another platform is 403.
 */
int platform_scope_or_reply(struct req *req);

/*
 * Validates req->json against a field table; on failure answers 400 with
 * every offending field in details and returns -1.
 */
struct vfield;
int body_valid_or_reply(struct req *req, const struct vfield *fields);

/* A string or JSON null when s is NULL. */
json_object *json_str_or_null(const char *s);

/* "Kind:<id>" as a new json string. */
json_object *json_prefixed(const char *kind, const char *id);

#endif
