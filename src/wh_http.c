/*
 * wh_http.c: one webhook POST with a libcurl easy handle.  The connectivity
 * check (POST /webhooks/test) performs it on the spot; the worker adds the
 * prepared handle to a multi handle and calls wh_call_finish itself.
 *
 * The endpoint belongs to the platform, so everything about the call is
 * defensive: only http and https, no redirects (a 3xx is just a status), no
 * proxy from the environment, TLS verified, 10 s in all, and the SSRF guard
 * applied in the open-socket callback to each address curl is about to
 * connect to.  At most WH_BODY_KEEP bytes of the answer are kept, and an
 * endpoint that streams more than RECV_MAX is cut off.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "xborder/netguard.h"
#include "xborder/util.h"
#include "xborder/wh_http.h"
#include "xborder/wh_sign.h"

#define RECV_MAX (1024 * 1024)	/* bytes of an answer read before giving up */
#define USER_AGENT "xborder-webhooks/" PACKAGE_VERSION

static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static CURLcode global_rc = CURLE_FAILED_INIT;

/* curl_global_init is not thread-safe in every libcurl: run it once. */
static void
global_init(void)
{
	global_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

/*
 * curl's open-socket callback: refuses a blocked address before any packet
 * leaves (curl then tries the name's next address, if any).
 */
static curl_socket_t
open_socket(void *clientp, curlsocktype purpose, struct curl_sockaddr *a)
{
	struct wh_call *c = clientp;

	(void)purpose;
	if (!c->allow_private && netguard_blocked(&a->addr, a->addrlen)) {
		c->blocked = 1;
		return CURL_SOCKET_BAD;
	}
	return socket(a->family, a->socktype | SOCK_CLOEXEC, a->protocol);
}

/*
 * curl's write callback: keeps the first WH_BODY_KEEP bytes in c->buf.
 * c->buf_len counts every byte received, so past RECV_MAX it stops the
 * transfer (returning less than it was given); the status is had by then.
 */
static size_t
on_body(char *data, size_t size, size_t nmemb, void *userp)
{
	struct wh_call *c = userp;
	size_t n = size * nmemb, keep;

	if (n > RECV_MAX - c->buf_len)
		return 0;
	if (c->buf_len < WH_BODY_KEEP) {
		keep = WH_BODY_KEEP - c->buf_len < n ? WH_BODY_KEEP - c->buf_len : n;
		memcpy(c->buf + c->buf_len, data, keep);
	}
	c->buf_len += n;
	return n;
}

/* Appends one header line; 0 or -1. */
static int
add_header(struct wh_call *c, const char *line)
{
	struct curl_slist *l = curl_slist_append(c->headers, line);

	if (l == NULL)
		return -1;
	c->headers = l;
	return 0;
}

static int
set_headers(struct wh_call *c)
{
	char sig[WH_SIG_HEADER_MAX + 32];

	snprintf(sig, sizeof(sig), "X-Xborder-Signature: %s",
	    c->signature != NULL ? c->signature : "");
	/* "Expect:" drops curl's 100-continue wait on a large body. */
	if (add_header(c, "Content-Type: application/json") < 0 ||
	    add_header(c, sig) < 0 || add_header(c, "Expect:") < 0)
		return -1;
	return 0;
}

/* Every option of the call; the first failure's code, or CURLE_OK. */
static CURLcode
set_options(struct wh_call *c)
{
	CURL *h = c->curl;
	CURLcode rc = CURLE_OK;

#define SET(opt, val) do { \
	if (rc == CURLE_OK) \
		rc = curl_easy_setopt(h, opt, val); \
} while (0)
	SET(CURLOPT_URL, c->url);
	SET(CURLOPT_PROTOCOLS_STR, "http,https");
	SET(CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
	SET(CURLOPT_FOLLOWLOCATION, 0L);
	SET(CURLOPT_PROXY, "");	/* not http_proxy and friends */
	SET(CURLOPT_NOSIGNAL, 1L);	/* threads: no SIGALRM for DNS */
	SET(CURLOPT_TIMEOUT_MS, (long)WH_TIMEOUT_MS);
	SET(CURLOPT_SSL_VERIFYPEER, 1L);
	SET(CURLOPT_SSL_VERIFYHOST, 2L);
	SET(CURLOPT_OPENSOCKETFUNCTION, open_socket);
	SET(CURLOPT_OPENSOCKETDATA, c);
	SET(CURLOPT_WRITEFUNCTION, on_body);
	SET(CURLOPT_WRITEDATA, c);
	SET(CURLOPT_PRIVATE, c);
	SET(CURLOPT_USERAGENT, USER_AGENT);
	SET(CURLOPT_HTTPHEADER, (struct curl_slist *)c->headers);
	SET(CURLOPT_POSTFIELDS, c->body);
	SET(CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)c->body_len);
#undef SET
	return rc;
}

int
wh_call_prepare(struct wh_call *c)
{
	CURLcode rc;

	c->status = 0;
	c->reason[0] = '\0';
	c->blocked = 0;
	c->buf_len = 0;
	pthread_once(&global_once, global_init);
	if (global_rc != CURLE_OK) {
		snprintf(c->reason, sizeof(c->reason), "%s", curl_easy_strerror(global_rc));
		return -1;
	}
	if (c->buf == NULL)
		c->buf = xmalloc(WH_BODY_KEEP);
	if ((c->curl = curl_easy_init()) == NULL || set_headers(c) < 0) {
		snprintf(c->reason, sizeof(c->reason), "cannot set up the request");
		return -1;
	}
	if ((rc = set_options(c)) != CURLE_OK) {
		snprintf(c->reason, sizeof(c->reason), "%s", curl_easy_strerror(rc));
		return -1;
	}
	return 0;
}

/* The contract's reasons for an attempt without a response, by code. */
static const char *const reasons[WH_REASONS] = {
	[WH_BLOCKED] = "blocked address",
	[WH_REFUSED] = "connection refused",
	[WH_TIMEOUT] = "timeout",
	[WH_NO_HOST] = "could not resolve host",
	[WH_TLS] = "TLS failure",
	[WH_NO_RESPONSE] = "no response",
	[WH_BAD_URL] = "invalid URL",
};

const char *
wh_reason_text(int code)
{
	return code > WH_ANSWERED && code < WH_REASONS ? reasons[code] : NULL;
}

int
wh_reason_code(const char *reason)
{
	for (int i = WH_ANSWERED + 1; i < WH_REASONS; i++)
		if (strcmp(reasons[i], reason) == 0)
			return i;
	return WH_NO_RESPONSE;
}

/* The short reason of the contract for a transfer that had no response. */
static const char *
reason_text(const struct wh_call *c, CURLcode code)
{
	if (c->blocked)
		return reasons[WH_BLOCKED];
	switch (code) {
	case CURLE_COULDNT_CONNECT:
		return reasons[WH_REFUSED];
	case CURLE_OPERATION_TIMEDOUT:
		return reasons[WH_TIMEOUT];
	case CURLE_COULDNT_RESOLVE_HOST:
		return reasons[WH_NO_HOST];
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_SSL_ENGINE_NOTFOUND:
	case CURLE_SSL_ENGINE_SETFAILED:
	case CURLE_SSL_CERTPROBLEM:
	case CURLE_SSL_CIPHER:
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_ENGINE_INITFAILED:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_SHUTDOWN_FAILED:
	case CURLE_SSL_CRL_BADFILE:
	case CURLE_SSL_ISSUER_ERROR:
	case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
	case CURLE_SSL_INVALIDCERTSTATUS:
	case CURLE_SSL_CLIENTCERT:
		return reasons[WH_TLS];
	case CURLE_GOT_NOTHING:
	case CURLE_RECV_ERROR:
	case CURLE_SEND_ERROR:
		return reasons[WH_NO_RESPONSE];
	case CURLE_URL_MALFORMAT:
	case CURLE_UNSUPPORTED_PROTOCOL:
		return reasons[WH_BAD_URL];
	default:
		return curl_easy_strerror(code);
	}
}

/*
 * How many bytes at s (n > 0 of them) form one character or one stand-in:
 * a valid sequence (*ok = 1), or what one U+FFFD replaces (*ok = 0): a byte
 * that cannot start a character, or a lead byte with the continuation
 * bytes that could still have completed it (Unicode's "maximal subpart").
 * NUL counts as invalid, so the result is a C string.
 */
static size_t
utf8_take(const unsigned char *s, size_t n, int *ok)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len, i;

	*ok = 0;
	if (s[0] >= 0x01 && s[0] <= 0x7f) {
		*ok = 1;
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4;
	else
		return 1;	/* NUL, a continuation byte, C0, C1, F5..FF */
	/* The second byte's range rules out overlongs, surrogates, > U+10FFFF. */
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	for (i = 1; i < len && i < n; i++) {
		if (s[i] < lo || s[i] > hi)
			break;
		lo = 0x80;
		hi = 0xbf;
	}
	*ok = i == len;
	return i;
}

/* n bytes made valid UTF-8 without NUL, as a new string (caller frees). */
static char *
utf8_clean(const unsigned char *s, size_t n)
{
	static const char fffd[] = "\xef\xbf\xbd";
	char *out = xmalloc(3 * n + 1);
	size_t i = 0, o = 0, k;
	int ok;

	while (i < n) {
		k = utf8_take(s + i, n - i, &ok);
		if (ok) {
			memcpy(out + o, s + i, k);
			o += k;
		} else {
			memcpy(out + o, fffd, 3);
			o += 3;
		}
		i += k;
	}
	out[o] = '\0';
	return out;
}

void
wh_call_finish(struct wh_call *c, int curlcode)
{
	long status = 0;

	free(c->response);
	c->response = NULL;
	c->reason[0] = '\0';
	if (c->curl != NULL &&
	    curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &status) != CURLE_OK)
		status = 0;
	/* A status line was had: a body cut short still makes a response. */
	c->status = status > 0 ? status : 0;
	c->response = utf8_clean((const unsigned char *)c->buf,
	    c->status > 0 && c->buf != NULL ?
	    (c->buf_len < WH_BODY_KEEP ? c->buf_len : WH_BODY_KEEP) : 0);
	if (c->status == 0)
		snprintf(c->reason, sizeof(c->reason), "%s",
		    reason_text(c, (CURLcode)curlcode));
}

void
wh_call_free(struct wh_call *c)
{
	if (c->curl != NULL)
		curl_easy_cleanup(c->curl);
	curl_slist_free_all(c->headers);
	free(c->buf);
	free(c->response);
	c->curl = NULL;
	c->headers = NULL;
	c->buf = NULL;
	c->buf_len = 0;
	c->response = NULL;
}

int
wh_call_perform(struct wh_call *c)
{
	if (wh_call_prepare(c) < 0) {
		free(c->response);
		c->response = xstrdup("");
		return -1;
	}
	wh_call_finish(c, curl_easy_perform(c->curl));
	return c->status > 0 ? 0 : -1;
}
