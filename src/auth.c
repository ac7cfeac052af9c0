/*
 * auth.c: Basic credentials against argon2id hashes.
 *
 * argon2id is deliberately slow (tens of milliseconds), so a worker
 * remembers a secret it has verified: it keeps HMAC-SHA-256(key, token id
 * || secret) and HMAC-SHA-256(key, stored hash) under a random key made by
 * this process.  A later request with the same credentials costs the token
 * row lookup (which must happen anyway, so a revocation or a new hash takes
 * effect at once) and two constant-time compares.  The cache holds no
 * secret and no hash in the clear, and its key never leaves the process.
 *
 * Failures against an existing clientId are counted per client address
 * in the database (auth_failures), so every worker sees the same count;
 * after AUTH_MAX_FAILURES within AUTH_FAILURE_WINDOW seconds from one
 * address the clientId gets 429 from that address without any hashing,
 * while its owner elsewhere is served.
 *
 * Nothing but the token is read before the secret is proven: a route's
 * data is read in the token's statement only for a secret this worker has
 * proven before (token_read).
 *
 * Every failure costs the same: a wrong secret costs an argon2id run, so an
 * unknown or revoked clientId is checked against a dummy hash made once per
 * process with the configured costs.  Otherwise the time of a 401 would tell
 * which clientIds exist.
 */
#include "config.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <argon2.h>
#include <openssl/evp.h>
#include <openssl/core_names.h>
#include <openssl/params.h>
#include <openssl/rand.h>

#include "xborder/auth.h"
#include "xborder/auth_secret.h"
#include "xborder/cache_ways.h"
#include "xborder/conf.h"
#include "xborder/db.h"
#include "xborder/db_tokens.h"
#include "xborder/ids.h"
#include "xborder/log.h"
#include "xborder/request.h"
#include "xborder/resp.h"
#include "xborder/stats.h"
#include "xborder/util.h"

/*
 * The tokens a worker remembers: CACHE_SETS sets of CACHE_WAYS
 * (cache_ways.h), the least recently proven one of a full set making
 * room.  Every platform's tokens share it, and a token that has lost its
 * place costs its next request an argon2id run (tens of milliseconds of a
 * worker): 4,096 places, 4 to a set, so that the tokens in use on one
 * server do not push each other out (with 64 places of one token each,
 * two of 40 tokens in use shared a place in all but one case in 8
 * million, and each request of either ran argon2id).
 */
#define CACHE_SETS 1024
#define CACHE_WAYS 4

struct cache_slot {
	char		id[UUID_LEN + 1];
	char		platform_id[UUID_LEN + 1];	/* the token's, when verified */
	unsigned char	secret_mac[32];
	unsigned char	hash_mac[32];
};

static struct cache_slot cache[CACHE_SETS * CACHE_WAYS];
static uint64_t cache_used[CACHE_SETS * CACHE_WAYS];
static struct cache_ways ways = CACHE_WAYS_INIT(cache_used, CACHE_SETS, CACHE_WAYS);
static int cache_key_ready;
static char *dummy_hash;	/* argon2id of a random secret; never freed */

/*
 * The cache key's HMAC-SHA-256, keyed once: each mac() starts it again
 * with the same key (EVP_MAC_init with no key).  A one-shot HMAC() looks
 * the algorithms up by name on every call, and a copy of the context
 * per call (EVP_MAC_CTX_dup) allocates and frees one: each cost more than
 * the rest of a cached request's credential check.
 */
static EVP_MAC_CTX *keyed;

static void
mac(const void *a, size_t alen, const void *b, size_t blen, unsigned char out[32])
{
	size_t olen = 0;

	if (alen + blen > 512)
		blen = 512 - alen;	/* as long as the cache ever hashed */
	if (EVP_MAC_init(keyed, NULL, 0, NULL) != 1 || EVP_MAC_update(keyed, a, alen) != 1 ||
	    EVP_MAC_update(keyed, b, blen) != 1 || EVP_MAC_final(keyed, out, &olen, 32) != 1 ||
	    olen != 32)
		abort();
}

/* Makes the process's cache key and the keyed HMAC; 0, or -1 when it cannot. */
static int
cache_key_make(void)
{
	OSSL_PARAM params[] = {
		OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *)"SHA256", 0),
		OSSL_PARAM_construct_end()
	};
	unsigned char cache_key[32];
	EVP_MAC *m;
	int rc = -1;

	if (RAND_bytes(cache_key, sizeof(cache_key)) != 1 ||
	    (m = EVP_MAC_fetch(NULL, "HMAC", NULL)) == NULL)
		goto out;
	keyed = EVP_MAC_CTX_new(m);
	EVP_MAC_free(m);
	if (keyed != NULL && EVP_MAC_init(keyed, cache_key, sizeof(cache_key), params) == 1)
		rc = 0;
	else {
		EVP_MAC_CTX_free(keyed);
		keyed = NULL;
	}
out:
	OPENSSL_cleanse(cache_key, sizeof(cache_key));	/* kept only inside keyed */
	return rc;
}

static int
same_id(size_t i, const void *id)
{
	return strcmp(cache[i].id, id) == 0;
}

/* The place of token id in the cache, or NULL: not remembered. */
static struct cache_slot *
cache_find(const char *id)
{
	long i = cache_ways_find(&ways, str_hash(id), same_id, id);

	return i < 0 ? NULL : &cache[i];
}

/*
 * 1 when this worker has proven secret for token id: the first half of a
 * cache hit, known before the token's row is read.  Only then may the
 * row be read together with the data it guards (decisions.md section 2).
 */
static int
cache_proven(const char *id, const char *secret)
{
	struct cache_slot *s = cache_find(id);
	unsigned char m[32];

	if (!cache_key_ready || s == NULL)
		return 0;
	mac(id, UUID_LEN, secret, strlen(secret), m);
	if (!ct_equal(m, s->secret_mac, 32))
		return 0;
	cache_ways_use(&ways, (size_t)(s - cache));
	return 1;
}

/* The second half: the proof was made against hash, the token's hash now. */
static int
cache_hash_holds(const char *id, const char *hash)
{
	const struct cache_slot *s = cache_find(id);
	unsigned char m[32];

	if (s == NULL)
		return 0;
	mac("h", 1, hash, strlen(hash), m);
	return ct_equal(m, s->hash_mac, 32);
}

/* Forgets what this worker proved for token id (revoked, or a new secret). */
static void
cache_drop(const char *id)
{
	struct cache_slot *s = cache_find(id);

	if (s != NULL) {
		OPENSSL_cleanse(s, sizeof(*s));
		cache_ways_drop(&ways, (size_t)(s - cache));
	}
}

static void
cache_put(const char *id, const char *secret, const char *hash, const char *platform)
{
	struct cache_slot *s = cache_find(id);
	size_t i = s != NULL ? (size_t)(s - cache) : cache_ways_place(&ways, str_hash(id));

	if (!cache_key_ready) {
		if (cache_key_make() < 0)
			return;
		cache_key_ready = 1;
	}
	s = &cache[i];
	cache_ways_use(&ways, i);
	memcpy(s->id, id, UUID_LEN + 1);
	snprintf(s->platform_id, sizeof(s->platform_id), "%s", platform);
	mac(id, UUID_LEN, secret, strlen(secret), s->secret_mac);
	mac("h", 1, hash, strlen(hash), s->hash_mac);
}

/*
 * Spends what a wrong secret for a live clientId costs: one argon2id
 * verification, against a hash of a random secret made on first use with
 * the configured costs and the salt and output lengths of
 * auth_new_secret(), so the run takes as long as a real one.  Making the
 * hash costs one more run, once per process.
 */
static void
burn_like_verify(const struct conf *c, const char *secret)
{
	char unused[AUTH_SECRET_LEN + 1];

	if (dummy_hash == NULL) {
		if (auth_new_secret(c, unused, &dummy_hash) < 0)
			return;
		OPENSSL_cleanse(unused, sizeof(unused));
	}
	/* Cannot match: nobody knows the random secret behind the hash. */
	stats_add(STAT_ARGON2, 1);
	(void)argon2id_verify(dummy_hash, secret, strlen(secret));
}

/* The client id is a field of its own: an id, never part of the message. */
static void
log_auth_failed(const struct req *req, const char *client_id)
{
	struct logline l;

	log_begin(&l, LOG_LVL_INFO, "authentication failed");
	log_str(&l, "request_id", req->id);
	log_str(&l, "client_id", client_id);
	log_end(&l);
}

static int
unauthorized(struct req *req)
{
	resp_header(req, "WWW-Authenticate", "Basic realm=\"xborder\"");
	return resp_error(req, 401, "UNAUTHORIZED",
	    "Missing or invalid credentials.", NULL);
}

/* 429 RATE_LIMITED with Retry-After: the client failed too often. */
static void
throttled(struct req *req, int64_t retry_after)
{
	char retry[32];

	snprintf(retry, sizeof(retry), "%lld", (long long)retry_after);
	resp_header(req, "Retry-After", retry);
	resp_error(req, 429, "RATE_LIMITED",
	    "Too many failed authentications for this client; retry later.", NULL);
}

/*
 * The platform token id was verified in by this worker, or NULL: where to
 * read a list before the token is read (a token's platform never changes;
 * the statement checks it anyway).
 */
static const char *
cache_platform(const char *id)
{
	const struct cache_slot *s = cache_find(id);

	return s != NULL && s->platform_id[0] ? s->platform_id : NULL;
}

/*
 * Reads the token.  For a secret this worker has proven for the token
 * (proven), a route that names a with_token function has it read what the
 * route shows in the same statement (routes.c), and the failures counted
 * against the token from addr are read too while some address may be
 * throttled for it (the count of a secret not proven is its charge).
 * Credentials not proven yet read the token alone: nothing that depends
 * on the request's data runs for them, so neither the time nor the
 * statements of a refused request say anything of the data.
 */
static int
token_read(struct req *req, struct db *db, const char *id, const char *addr, int proven,
    struct token_auth *ta)
{
	int rc;

	if (proven && req->route != NULL && req->route->with_token != NULL)
		rc = req->route->with_token(req, db, id, cache_platform(id), ta);
	else
		rc = db_token_auth_get(db, id, ta);
	if (rc == DB_OK && proven && ta->failures_open)
		rc = db_token_auth_failures(db, id, addr, ta);
	return rc;
}

/*
 * The client address failures are counted for: nginx's $remote_addr (at
 * most 64 bytes; "" when the FastCGI request has none).
 */
static const char *
client_addr(const struct req *req, char buf[65])
{
	str_copy(buf, 65, req->remote_addr != NULL ? req->remote_addr : "");
	return buf;
}

/*
 * How long a check that finds the count full waits for the checks in
 * flight to end (one argon2id run each, tens of milliseconds with the
 * default costs): as long as their number moves, CHARGE_STILL_MS at
 * most while it stays the same, and CHARGE_WAIT_MS in all; and how often
 * it looks.  Only checks still counted in flight after a worker died in
 * them keep the number still for the rest of their window.
 */
#define CHARGE_STILL_MS	1000
#define CHARGE_WAIT_MS	5000
#define CHARGE_POLL_MS	10

/*
 * Counts the check of a secret not proven (db_token_auth_charge).  A full
 * count that is not all failures holds checks still running, each of
 * which takes its count back if its secret is right: a burst of requests
 * with the right secret on many new workers must not be throttled by its
 * own checks, so wait for those to end and count again.  Failures at the
 * limit, or the wait's end, throttle (ta's failures and retry_after set).
 * DB_OK with *charged, or a failure.
 */
static int
charge(struct db *db, const char *id, const char *addr, struct token_auth *ta, int *charged)
{
	int64_t start = now_ms(), moved = start, seen = -1;
	int rc;

	for (;;) {
		if ((rc = db_token_auth_charge(db, id, addr, AUTH_MAX_FAILURES, charged)) != DB_OK ||
		    *charged)
			return rc;
		if ((rc = db_token_auth_failures(db, id, addr, ta)) != DB_OK)
			return rc;
		if (ta->pending == 0 || ta->failures >= AUTH_MAX_FAILURES)
			return DB_OK;
		if (ta->pending != seen) {
			seen = ta->pending;
			moved = now_ms();
		}
		if (now_ms() - moved >= CHARGE_STILL_MS || now_ms() - start >= CHARGE_WAIT_MS)
			return DB_OK;
		usleep(CHARGE_POLL_MS * 1000);
	}
}

/*
 * The full check of a secret this worker has not proven for token id:
 * counted as a failure before the verification, in one statement, so that
 * however many workers check this clientId at once, no more than
 * AUTH_MAX_FAILURES argon2 runs happen within the window for one address;
 * a good secret takes the count back and is remembered (cache_put), a
 * wrong one leaves it counted.  0, or -1 once answered (401, 429, 5xx).
 * ta is freed on -1.
 */
static int
verify_or_reply(struct req *req, struct db *db, const char *id, const char *secret,
    const char *addr, struct token_auth *ta)
{
	int rc, ok, charged;

	if ((rc = charge(db, id, addr, ta, &charged)) != DB_OK) {
		req_db_fail(req, rc);
		goto fail;
	}
	if (!charged) {
		/* The seconds left in the window, for Retry-After. */
		throttled(req, ta->retry_after > 0 ? ta->retry_after : AUTH_FAILURE_WINDOW);
		goto fail;
	}
	if (ta->revoked) {
		burn_like_verify(req->conf, secret);
		ok = 0;
	} else {
		stats_add(STAT_ARGON2, 1);
		ok = argon2id_verify(ta->secret_hash, secret, strlen(secret)) == ARGON2_OK;
	}
	if (!ok) {
		log_auth_failed(req, id);
		if ((rc = db_token_auth_failed(db, id, addr, AUTH_MAX_FAILURES)) != DB_OK) {
			req_db_fail(req, rc);
			goto fail;
		}
		unauthorized(req);
		goto fail;
	}
	if ((rc = db_token_auth_refund(db, id, addr)) != DB_OK) {
		req_db_fail(req, rc);
		goto fail;
	}
	cache_put(id, secret, ta->secret_hash, ta->platform_id);
	return 0;
fail:
	token_auth_free(ta);
	return -1;
}

/* The caller is token id of ta: what the rest of the request knows of it. */
static void
authenticated(struct req *req, const char *id, const struct token_auth *ta)
{
	memcpy(req->token_id, id, sizeof(req->token_id));
	memcpy(req->platform_id, ta->platform_id, sizeof(req->platform_id));
	req->can_view = ta->view;
	req->can_manage = ta->manage;
	req->config_version = ta->config_version;
}

int
auth_or_reply(struct req *req)
{
	char id[UUID_LEN + 1], secret[128], addrbuf[65];
	const char *addr = client_addr(req, addrbuf);
	struct token_auth ta;
	struct db *db;
	int rc, proven;

	if (auth_parse_basic(req->authorization, id, secret, sizeof(secret)) < 0)
		return unauthorized(req);
	if ((db = req_db_or_reply(req)) == NULL)
		goto fail;
	proven = cache_proven(id, secret);
	rc = token_read(req, db, id, addr, proven, &ta);
	if (rc == DB_NOT_FOUND) {
		/*
		 * Nothing to count an unknown clientId against: nginx's
		 * per-address rate limit is what bounds these attempts, and
		 * with them the argon2 runs they cost.
		 */
		burn_like_verify(req->conf, secret);
		unauthorized(req);
		goto fail;
	}
	if (rc != DB_OK) {
		req_db_fail(req, rc);
		goto fail;
	}
	/* A token revoked or given a new secret ends this worker's proof at once. */
	if (proven && (ta.revoked || !cache_hash_holds(id, ta.secret_hash))) {
		cache_drop(id);
		proven = 0;
	}
	if (ta.failures >= AUTH_MAX_FAILURES && ta.retry_after > 0) {
		throttled(req, ta.retry_after);
		token_auth_free(&ta);
		goto fail;
	}
	if (proven)
		stats_add(STAT_AUTH_CACHE_HITS, 1);
	else if (verify_or_reply(req, db, id, secret, addr, &ta) < 0)
		goto fail;
	authenticated(req, id, &ta);
	token_auth_free(&ta);
	OPENSSL_cleanse(secret, sizeof(secret));
	return 0;
fail:
	OPENSSL_cleanse(secret, sizeof(secret));
	return -1;
}
