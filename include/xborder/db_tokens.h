/*
 * db_tokens.h: the store of API tokens.
 */
#ifndef XBORDER_DB_TOKENS_H
#define XBORDER_DB_TOKENS_H

#include <stddef.h>
#include <stdint.h>

/*
 * Failed authentications counted per token and client address
 * (auth_failures): after AUTH_MAX_FAILURES within AUTH_FAILURE_WINDOW
 * seconds the address is refused for that token.
 */
#define AUTH_MAX_FAILURES 10
#define AUTH_FAILURE_WINDOW 60	/* seconds */

struct db;

/* What authentication needs of a token row. */
struct token_auth {
	char		 platform_id[37];
	char		*secret_hash;	/* owned */
	int		 view, manage, revoked;
	/*
	 * Whether some address may be throttled for the token now (its
	 * failures_until): only then need a proven secret's request read its
	 * failures.  It is set in the same transaction as any count that
	 * reaches the throttle, so while it reads 0 no count does.
	 */
	int		 failures_open;
	int64_t		 failures;	/* failed attempts in the current window */
	int64_t		 pending;	/* checks of the window still running */
	int64_t		 retry_after;	/* seconds left in the window, 0 if none */
	int64_t		 config_version;	/* the platform configuration's version */
};

/* A token as the API shows it. */
struct token {
	char	 id[37];
	char	*name;			/* owned */
	int	 view, manage;
	int	 operator_issued;
	char	 created_at[25], updated_at[25];
	char	 revoked_at[25];	/* "" while active */
};

/*
 * Reads the authentication view of token id (any platform: this is how the
 * platform is found): its row and its platform's configuration version;
 * whether some address may be throttled for it (failures_open), not the
 * failures themselves (db_token_auth_failures).  DB_OK, DB_NOT_FOUND or a
 * failure.  Free with token_auth_free.
 */
int db_token_auth_get(struct db *db, const char *id, struct token_auth *out);

/*
 * The statement db_token_auth_get runs, in parts, for a store function
 * that reads something of the token's platform in the same round trip:
 * TOKEN_AUTH_COLS (the first TOKEN_AUTH_NCOLS columns, for
 * token_auth_from_row) and TOKEN_AUTH_FROM (tokens t alone: the token
 * carries its platform configuration's version, schema/022); the token's
 * row is WHERE t.id = ?.
 */
#define TOKEN_AUTH_COLS \
	"t.platform_id, t.secret_hash, t.perm_view, t.perm_manage," \
	" t.revoked_at IS NOT NULL, t.failures_until > UTC_TIMESTAMP(3), t.config_version"
#define TOKEN_AUTH_NCOLS 7
#define TOKEN_AUTH_FROM " FROM tokens t"

struct db_rows;
void token_auth_from_row(const struct db_rows *r, struct token_auth *out);

/*
 * The failures counted against token id from addr, the checks from addr
 * still running, and the seconds left in their window, into out
 * (failures, pending, retry_after).  DB_OK or a failure (out is then
 * freed).
 */
int db_token_auth_failures(struct db *db, const char *id, const char *addr,
    struct token_auth *out);

/*
 * Counts one authentication attempt of token id from client address addr
 * as a check in flight, and as failed, before it is checked, unless max
 * of that token from that address within the window are counted already,
 * failures and checks in flight together: *charged is 1 when it was
 * counted (the caller may run argon2 now), 0 when the count is full.  One
 * statement counts, so workers checking the same clientId in parallel can
 * never run more than max verifications for one address in a window.
 */
int db_token_auth_charge(struct db *db, const char *id, const char *addr, int max,
    int *charged);

/* Takes back the charge of an attempt from addr that succeeded. */
int db_token_auth_refund(struct db *db, const char *id, const char *addr);

/*
 * Ends the check of an attempt from addr that failed: its charge stays a
 * failure.  In the same transaction, failures at max set the token's
 * failures_until.
 */
int db_token_auth_failed(struct db *db, const char *id, const char *addr, int max);

/*
 * Deletes up to 1,000 failure counts whose window closed an hour ago or
 * more; adds how many to *n.  DB_OK or a failure.
 */
int db_auth_failures_purge(struct db *db, uint64_t *n);

void token_auth_free(struct token_auth *t);

/*
 * Inserts a token of platform with the given name, permissions, issuer
 * and secret hash; fills out (caller frees with token_free).
 */
int db_token_insert(struct db *db, const char *platform, const char *id,
    const char *name, int view, int manage, int operator_issued,
    const char *hash, struct token *out);

/* Reads token id of platform: DB_OK, DB_NOT_FOUND or a failure. */
int db_token_get(struct db *db, const char *platform, const char *id, struct token *out);

/*
 * Lists the tokens of platform, newest first, from offset; *out holds *n
 * tokens (caller frees with token_list_free), *total all of them.
 */
int db_token_list(struct db *db, const char *platform, int64_t limit,
    int64_t offset, struct token **out, size_t *n, int64_t *total);

/*
 * Revokes token id of platform unless already revoked, then reads it back
 * into out.  DB_OK, DB_NOT_FOUND or a failure.
 */
int db_token_revoke(struct db *db, const char *platform, const char *id, struct token *out);

/*
 * Gives the operator-issued (root) token of platform the secret hash
 * hash, in one committed statement, and sets id to the token's id (which
 * does not change).  From the commit on, the old secret fails on every
 * worker: the token row, with its hash, is read on every request and a
 * worker's remembered secret is bound to the hash it was checked against.
 * DB_OK, DB_NOT_FOUND (no such platform, or it has no root token) or a
 * failure.
 */
int db_token_rotate_root(struct db *db, const char *platform, const char *hash,
    char id[37]);

void token_free(struct token *t);
void token_list_free(struct token *t, size_t n);

#endif
