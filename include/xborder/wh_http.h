/*
 * wh_http.h: one webhook HTTP call with libcurl (the connectivity check
 * and every delivery attempt): POST of a JSON body with its signature,
 * 10 s in all, no redirects, no proxy, TLS verified, and the SSRF guard
 * (netguard.h) applied to the very address connected to (an open-socket
 * callback), so a name that resolves differently later cannot slip past.
 */
#ifndef XBORDER_WH_HTTP_H
#define XBORDER_WH_HTTP_H

#include <stddef.h>

#define WH_TIMEOUT_MS 10000
#define WH_BODY_KEEP 4096	/* bytes of the response body kept */

struct wh_call {
	/* in */
	const char	*url;
	const char	*body;
	size_t		 body_len;
	const char	*signature;	/* X-Xborder-Signature value */
	int		 allow_private;	/* webhook_allow_private */
	void		*user;		/* the caller's */
	/* out (after wh_call_finish) */
	long		 status;	/* HTTP status; 0 when no response was had */
	char		*response;	/* first WH_BODY_KEEP bytes, valid UTF-8, NUL-terminated; owned */
	char		 reason[128];	/* when status is 0: "blocked address", "timeout", ... */
	/* private */
	void		*curl;		/* CURL * */
	void		*headers;	/* struct curl_slist * */
	char		*buf;
	size_t		 buf_len;
	int		 blocked;
};

/*
 * Why an attempt had no HTTP response, as the delivery log keeps it
 * (webhook_attempts.error): WH_ANSWERED when a response came, else one of
 * the reasons of the contract (decisions.md section 11).
 */
enum wh_reason {
	WH_ANSWERED = 0,
	WH_BLOCKED,		/* "blocked address" */
	WH_REFUSED,		/* "connection refused" */
	WH_TIMEOUT,		/* "timeout" */
	WH_NO_HOST,		/* "could not resolve host" */
	WH_TLS,			/* "TLS failure" */
	WH_NO_RESPONSE,		/* "no response" */
	WH_BAD_URL,		/* "invalid URL" */
	WH_REASONS
};

/* The reason's words, or NULL for WH_ANSWERED and codes out of range. */
const char *wh_reason_text(int code);

/*
 * The code of a call's reason (wh_call.reason); a reason that is not one
 * of the contract's (a failure curl names otherwise) is WH_NO_RESPONSE.
 */
int wh_reason_code(const char *reason);

/*
 * Creates and sets up c->curl for the call (c's "in" fields must stay
 * valid until wh_call_free).  0, or -1 with c->reason set.
 */
int wh_call_prepare(struct wh_call *c);

/* After the transfer ended with curl code: fills status and response, or reason. */
void wh_call_finish(struct wh_call *c, int curlcode);

/* Releases the handle, headers and buffers (c->response too). */
void wh_call_free(struct wh_call *c);

/* Prepare, perform and finish in one go: 0 when a response was had, else -1. */
int wh_call_perform(struct wh_call *c);

#endif
