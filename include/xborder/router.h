/*
 * router.h: the routing table types and the matcher.  The table itself
 * lives in routes.c; the matcher is pure so that it can be tested alone.
 */
#ifndef XBORDER_ROUTER_H
#define XBORDER_ROUTER_H

#include <stddef.h>

struct req;

enum http_method { M_GET, M_POST, M_PATCH, M_DELETE, M_PUT, M_HEAD, M_OPTIONS, M_OTHER };

/* What a route requires of the caller's credentials. */
enum perm {
	PERM_PUBLIC,	/* no credentials at all */
	PERM_VIEW,	/* view or manage */
	PERM_MANAGE	/* manage */
};

/* Route flags. */
#define RF_BODY		0x01	/* a JSON object body is required */
#define RF_BODY_OPT	0x02	/* a JSON object body may be sent */
#define RF_PLATFORM_HDR	0x04	/* honours the X-Platform-Id header */
#define RF_SECRET_ONCE	0x08	/* answers a clientSecret that is never kept */
#define RF_BODY_NONE	0x40	/* takes no body: empty, or exactly {} */

typedef int (*route_handler)(struct req *);

/*
 * A route that shows data read in the same statement as the caller's
 * token (one round trip) names a function of its handler's module that
 * does it: it reads token token_id as db_token_auth_get() does, into ta,
 * and what the route shows into
 * req->prefetch (with req->prefetch_free), which the handler uses only
 * once the request is authenticated.  platform is the token's platform
 * as this worker last saw it, or NULL.  Authentication calls it only for
 * a secret this worker has already proven (decisions.md section 2), so
 * nothing that depends on the request's data runs for one it has not.
 * Returns what db_token_auth_get() returns.
 */
struct db;
struct token_auth;
typedef int (*route_with_token)(struct req *req, struct db *db, const char *token_id,
    const char *platform, struct token_auth *ta);

struct route_def {
	enum http_method method;
	const char	*pattern;	/* "/tokens/{tokenId}" */
	route_handler	 handler;
	enum perm	 perm;
	unsigned	 flags;
	route_with_token with_token;	/* NULL: the token is read alone */
};

#define ROUTER_MAX_PARAMS 4
#define ROUTER_MAX_SEGMENTS 8

enum router_rc { ROUTER_OK, ROUTER_NOT_FOUND, ROUTER_METHOD_NOT_ALLOWED };

struct route_match {
	size_t	 index;				/* into the table */
	size_t	 nparams;
	char	*params[ROUTER_MAX_PARAMS];	/* decoded; owned */
	char	 allow[64];			/* for 405: "GET, PATCH" */
};

/* Maps a method name to the enum (unknown names give M_OTHER). */
enum http_method router_method(const char *name);

/* The name of a method, "GET" etc. */
const char *router_method_name(enum http_method m);

/*
 * Matches method and path (without query string, percent-encoded) against
 * the table.  Literal segments win over parameters.  A parameter whose
 * escapes are malformed (or encode NUL) is handed on as "\x01".  On ROUTER_OK the
 * match holds the route index and the decoded path parameters (free them
 * with router_match_free); on ROUTER_METHOD_NOT_ALLOWED, `allow` lists the
 * methods of the path.
 */
enum router_rc router_match(const struct route_def *tab, size_t n,
    enum http_method method, const char *path, struct route_match *m);

/* Frees the parameters of a match. */
void router_match_free(struct route_match *m);

/*
 * Percent-decodes n bytes of s into a new string (caller frees).  Returns
 * NULL for a malformed escape or an encoded NUL.  With plus_space, '+' is
 * a space (query strings).
 */
char *router_decode(const char *s, size_t n, int plus_space);

#endif
