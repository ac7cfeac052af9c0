/*
 * request.h: the one struct that owns a request from accept to response,
 * and what the handlers ask of it.  Created by req_init() in the worker
 * loop and released by req_free(); the pipeline (req.h) fills it and every
 * handler takes it as its first argument.
 */
#ifndef XBORDER_REQUEST_H
#define XBORDER_REQUEST_H

#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "xborder/router.h"

struct conf;
struct db;
typedef struct FCGX_Request FCGX_Request;

struct query_param {
	char	*name;
	char	*value;
};

#define REQ_MAX_HEADERS 6

struct req {
	FCGX_Request		*fcgi;		/* NULL in unit tests */
	const struct conf	*conf;
	char			 id[65];	/* request id (nginx's, else ours) */
	int64_t			 started_us;	/* now_us() at accept */

	/* Request line and headers (header strings are borrowed). */
	enum http_method	 method;
	char			*path;		/* after base_path, no query */
	struct query_param	*query;
	size_t			 nquery;
	const char		*content_type;
	const char		*authorization;
	const char		*platform_header;	/* X-Platform-Id */
	const char		*idempotency_key;
	const char		*remote_addr;	/* the client as nginx saw it */
	int64_t			 content_length;	/* -1 when absent */

	/* Routing. */
	const struct route_def	*route;
	struct route_match	 match;
	int			 handler_started;	/* may have acted */

	/* The authenticated caller. */
	char			 platform_id[37];
	char			 token_id[37];
	int			 can_view;
	int			 can_manage;
	int64_t			 config_version;	/* read with the token */
	/*
	 * What the route's with_token function read with the token (routes.c),
	 * owned, released by prefetch_free; the handler uses it only once the
	 * request is authenticated.
	 */
	void			*prefetch;
	void			(*prefetch_free)(void *);

	/* Body. */
	char			*body;
	size_t			 body_len;
	json_object		*json;		/* parsed body, or NULL */

	/* Response. */
	int			 status;
	json_object		*out;
	struct {
		char	name[32];
		char	value[128];
	}			 hdr[REQ_MAX_HEADERS];
	size_t			 nhdr;
};

/* Prepares req for one FastCGI request (fcgi may be NULL in tests). */
void req_init(struct req *req, FCGX_Request *fcgi, const struct conf *conf);

/*
 * Whether nginx has closed the request's connection already: its client
 * went away (nginx then closes its side at once) while the request waited
 * for a worker.  One recv(MSG_PEEK), no wait; 0 in unit tests.
 */
int req_client_gone(const struct req *req);

/* Releases everything req owns (the one place a request is freed). */
void req_free(struct req *req);

/* Returns path parameter i (decoded), or "" when absent. */
const char *req_param(const struct req *req, size_t i);

/*
 * The version of platform's configuration that this request read with its
 * token, for db_config_get(): 0 unless platform is the caller's own.
 */
int64_t req_config_version(const struct req *req, const char *platform);

/* Frees n query pairs and the array q (http_query_parse's). */
void req_query_free(struct query_param *q, size_t n);

#endif
