/*
 * auth_secret.h: credentials without I/O (auth_secret.c): the Basic
 * header's form and new secrets with their argon2id hashes.
 */
#ifndef XBORDER_AUTH_SECRET_H
#define XBORDER_AUTH_SECRET_H

#include <stddef.h>

struct conf;

#define AUTH_SECRET_LEN 43	/* 32 random bytes, base64url, no padding */

/*
 * Decodes an Authorization header "Basic <base64(id:secret)>" into
 * client_id (a UUID, lowercased, 37 bytes) and secret (at most secretlen-1
 * bytes).  Returns 0, or -1 for anything malformed.
 */
int auth_parse_basic(const char *header, char client_id[37], char *secret,
    size_t secretlen);

/*
 * Makes a new secret (AUTH_SECRET_LEN characters plus NUL into secret) and
 * its argon2id encoded hash with the configured costs (caller frees *hash).
 * Returns 0 or -1.
 */
int auth_new_secret(const struct conf *c, char secret[AUTH_SECRET_LEN + 1], char **hash);

#endif
