/*
 * auth.h: Basic authentication of API credentials, the per-worker cache of
 * verified secrets, throttling of repeated failures, and the making of new
 * secrets.
 */
#ifndef XBORDER_AUTH_H
#define XBORDER_AUTH_H

#include <stddef.h>

struct conf;
struct req;

#define AUTH_SECRET_LEN 43	/* 32 random bytes, base64url, no padding */
#define AUTH_MAX_FAILURES 10
#define AUTH_FAILURE_WINDOW 60	/* seconds */

/*
 * Decodes an Authorization header "Basic <base64(id:secret)>" into
 * client_id (a UUID, lowercased, 37 bytes) and secret (at most secretlen-1
 * bytes).  Returns 0, or -1 for anything malformed.
 */
int auth_parse_basic(const char *header, char client_id[37], char *secret,
    size_t secretlen);

/*
 * Authenticates the request and fills req->platform_id, token_id and the
 * permissions.  Answers 401 UNAUTHORIZED, 429 RATE_LIMITED or 503 itself
 * and returns -1; returns 0 on success.
 */
int auth_or_reply(struct req *req);

/*
 * Makes a new secret (AUTH_SECRET_LEN characters plus NUL into secret) and
 * its argon2id encoded hash with the configured costs (caller frees *hash).
 * Returns 0 or -1.
 */
int auth_new_secret(const struct conf *c, char secret[AUTH_SECRET_LEN + 1], char **hash);

#endif
