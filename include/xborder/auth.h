/*
 * auth.h: Basic authentication of API credentials, the per-worker cache of
 * verified secrets and throttling of repeated failures.  The credentials
 * themselves (header form, new secrets) are auth_secret.h's.
 */
#ifndef XBORDER_AUTH_H
#define XBORDER_AUTH_H

#include <stddef.h>

struct conf;
struct req;

#include "xborder/auth_secret.h"

/*
 * Authenticates the request and fills req->platform_id, token_id and the
 * permissions.  Answers 401 UNAUTHORIZED, 429 RATE_LIMITED or 503 itself
 * and returns -1; returns 0 on success.
 */
int auth_or_reply(struct req *req);

#endif
