/*
 * request.c: the request struct's life (init, free) and what handlers ask
 * of it (path parameters, the configuration version read with the token).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <fcgiapp.h>

#include "xborder/conf.h"
#include "xborder/fault.h"
#include "xborder/request.h"
#include "xborder/util.h"

void
req_init(struct req *req, FCGX_Request *fcgi, const struct conf *conf)
{
	memset(req, 0, sizeof(*req));
	req->fcgi = fcgi;
	req->conf = conf;
	req->started_us = now_us();
	req->content_length = -1;
}

int
req_client_gone(const struct req *req)
{
	char c;

	/* 0 bytes: nginx closed its end; data or EAGAIN: it still waits. */
	return req->fcgi != NULL && req->fcgi->ipcFd >= 0 &&
	    recv(req->fcgi->ipcFd, &c, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
}

void
req_free(struct req *req)
{
	free(req->path);
	req_query_free(req->query, req->nquery);
	router_match_free(&req->match);
	free(req->body);
	if (req->prefetch != NULL)
		req->prefetch_free(req->prefetch);
	if (req->json != NULL)
		json_object_put(req->json);
	if (req->out != NULL)
		json_object_put(req->out);
	memset(req, 0, sizeof(*req));
	fault_arm(NULL);
}

void
req_query_free(struct query_param *q, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(q[i].name);
		free(q[i].value);
	}
	free(q);
}

const char *
req_param(const struct req *req, size_t i)
{
	return i < req->match.nparams ? req->match.params[i] : "";
}

int64_t
req_config_version(const struct req *req, const char *platform)
{
	return strcmp(platform, req->platform_id) == 0 ? req->config_version : 0;
}

