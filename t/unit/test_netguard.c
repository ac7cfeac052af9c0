/*
 * Unit tests of the SSRF guard (netguard.c) and of one webhook call
 * (wh_http.c) against a one-shot HTTP server on loopback.
 */
#include <criterion/criterion.h>

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <netdb.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xborder/netguard.h"
#include "xborder/wh_http.h"

static const struct {
	const char	*addr;
	int		 blocked;
} cases[] = {
	/* IPv4 public */
	{ "8.8.8.8", 0 },
	{ "1.1.1.1", 0 },
	{ "93.184.216.34", 0 },
	{ "1.0.0.0", 0 },
	{ "9.255.255.255", 0 },
	{ "11.0.0.0", 0 },
	{ "126.255.255.255", 0 },
	{ "128.0.0.0", 0 },
	{ "169.253.255.255", 0 },
	{ "169.255.0.0", 0 },
	{ "172.15.255.255", 0 },
	{ "172.32.0.0", 0 },
	{ "192.0.1.0", 0 },
	{ "192.0.3.0", 0 },
	{ "192.88.98.255", 0 },
	{ "192.167.255.255", 0 },
	{ "192.169.0.0", 0 },
	{ "198.17.255.255", 0 },
	{ "198.20.0.0", 0 },
	{ "198.51.99.255", 0 },
	{ "203.0.112.255", 0 },
	{ "223.255.255.255", 0 },
	/* IPv4 blocked, with the edges of each range */
	{ "0.0.0.0", 1 },
	{ "0.255.255.255", 1 },
	{ "10.0.0.0", 1 },
	{ "10.255.255.255", 1 },
	{ "100.63.255.255", 0 },
	{ "100.64.0.0", 1 },
	{ "100.127.255.255", 1 },
	{ "100.128.0.0", 0 },
	{ "127.0.0.1", 1 },
	{ "127.255.255.255", 1 },
	{ "169.254.0.0", 1 },
	{ "169.254.169.254", 1 },
	{ "172.16.0.0", 1 },
	{ "172.31.255.255", 1 },
	{ "192.0.0.0", 1 },
	{ "192.0.0.255", 1 },
	{ "192.0.2.1", 1 },
	{ "192.88.99.1", 1 },
	{ "192.168.0.0", 1 },
	{ "192.168.255.255", 1 },
	{ "198.18.0.0", 1 },
	{ "198.19.255.255", 1 },
	{ "198.51.100.7", 1 },
	{ "203.0.113.255", 1 },
	{ "224.0.0.1", 1 },
	{ "239.255.255.255", 1 },
	{ "240.0.0.0", 1 },
	{ "255.255.255.255", 1 },
	/* IPv6 */
	{ "::", 1 },
	{ "::1", 1 },
	{ "::ffff:127.0.0.1", 1 },
	{ "::ffff:10.1.2.3", 1 },
	{ "::ffff:8.8.8.8", 0 },
	{ "::127.0.0.1", 1 },
	{ "::8.8.8.8", 0 },
	{ "64:ff9b::a00:1", 1 },
	{ "64:ff9b::7f00:1", 1 },
	{ "64:ff9b::808:808", 0 },
	{ "64:ff9b:1::808:808", 1 },
	{ "100::", 1 },
	{ "100::ffff:ffff:ffff:ffff", 1 },
	{ "2001:db8::1", 1 },
	{ "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff", 1 },
	{ "2002:7f00:1::", 1 },
	{ "2002:a9fe:a9fe::1", 1 },
	{ "2002:0808:0808::", 0 },
	{ "2001:0::1", 1 },
	{ "2001:0:4136:e378:8000:63bf:3fff:fdd2", 1 },
	{ "2001:2::1", 1 },
	{ "fc00::1", 1 },
	{ "fd12:3456:789a::1", 1 },
	{ "fe80::1", 1 },
	{ "febf:ffff::1", 1 },
	{ "fec0::1", 1 },
	{ "ff02::1", 1 },
	{ "ff00::", 1 },
	{ "3fff::1", 1 },
	{ "::ffff:0:8.8.8.8", 1 },
	{ "2606:4700::1111", 0 },
	{ "2a00:1450:4001:81c::200e", 0 },
	{ "2001:4860:4860::8888", 0 },
	{ "2c0f:fb50:4003::1", 0 },
};

Test(netguard, table)
{
	cr_assert_geq(sizeof(cases) / sizeof(cases[0]), 60);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_expect_eq(netguard_blocked_text(cases[i].addr), cases[i].blocked,
		    "%s: expected %s", cases[i].addr,
		    cases[i].blocked ? "blocked" : "public");
}

Test(netguard, not_addresses)
{
	static const char *const bad[] = {
		"", "localhost", "example.com", "127.0.0.1:80", "[::1]",
		"1.2.3", "256.1.1.1", "fe80::1%eth0", " 8.8.8.8", "::g",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_expect_eq(netguard_blocked_text(bad[i]), -1, "\"%s\"", bad[i]);
	cr_expect_eq(netguard_blocked_text(NULL), -1);
}

/* netguard_blocked on the sockaddr_in or sockaddr_in6 of a numeric address. */
static int
blocked_sockaddr(const char *text, int family)
{
	struct addrinfo hints, *ai;
	int blocked;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
	cr_assert_eq(getaddrinfo(text, "443", &hints, &ai), 0, "%s", text);
	cr_assert_eq(ai->ai_family, family, "%s", text);
	blocked = netguard_blocked(ai->ai_addr, ai->ai_addrlen);
	freeaddrinfo(ai);
	return blocked;
}

Test(netguard, sockaddr)
{
	struct sockaddr_un sun;
	struct sockaddr_in sin;

	cr_expect_eq(blocked_sockaddr("8.8.8.8", AF_INET), 0);
	cr_expect_eq(blocked_sockaddr("127.0.0.1", AF_INET), 1);
	cr_expect_eq(blocked_sockaddr("100.64.0.1", AF_INET), 1);
	cr_expect_eq(blocked_sockaddr("2606:4700::1111", AF_INET6), 0);
	cr_expect_eq(blocked_sockaddr("::1", AF_INET6), 1);
	cr_expect_eq(blocked_sockaddr("::ffff:192.168.1.1", AF_INET6), 1);

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "/run/mysqld/mysqld.sock");
	cr_expect_eq(netguard_blocked((struct sockaddr *)&sun, sizeof(sun)), 1);
	cr_expect_eq(netguard_blocked(NULL, 0), 1);

	/* A truncated sockaddr is not trusted. */
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(0x08080808);
	cr_expect_eq(netguard_blocked((struct sockaddr *)&sin, 4), 1);
}

/*
 * wh_http against a server on 127.0.0.1 that reads one request and sends
 * a canned answer.
 */
struct server {
	int		 fd;
	int		 port;
	const char	*answer;
	size_t		 answer_len;
	size_t		 body_extra;	/* bytes of 'x' sent after the answer */
	int		 at_once;	/* answer after the first read */
	char		 request[8192];
	char		 url[64];
	pthread_t	 thread;
};

static void *
serve(void *arg)
{
	struct server *s = arg;
	char pad[4096];
	size_t n = 0;
	ssize_t r;
	int c;

	if ((c = accept(s->fd, NULL, NULL)) < 0)
		return NULL;
	/* Never stuck on a client that stopped reading. */
	setsockopt(c, SOL_SOCKET, SO_SNDTIMEO, &(struct timeval){ 2, 0 }, sizeof(struct timeval));
	/* Read until the end of headers and a body of some length. */
	while (n < sizeof(s->request) - 1 &&
	    (r = read(c, s->request + n, sizeof(s->request) - 1 - n)) > 0) {
		n += (size_t)r;
		s->request[n] = '\0';
		if (s->at_once || (strstr(s->request, "\r\n\r\n") != NULL &&
		    strstr(s->request, "}") != NULL))
			break;
	}
	/* MSG_NOSIGNAL: the client hangs up early on purpose. */
	(void)!send(c, s->answer, s->answer_len, MSG_NOSIGNAL);
	memset(pad, 'x', sizeof(pad));
	for (size_t sent = 0; sent < s->body_extra; sent += sizeof(pad))
		if (send(c, pad, sizeof(pad), MSG_NOSIGNAL) < 0)
			break;
	close(c);
	return NULL;
}

static void
server_start(struct server *s, const char *answer, size_t len, size_t extra, int at_once)
{
	struct sockaddr_in sin;
	socklen_t sl = sizeof(sin);
	int one = 1;

	memset(s, 0, sizeof(*s));
	s->answer = answer;
	s->answer_len = len;
	s->body_extra = extra;
	s->at_once = at_once;
	cr_assert((s->fd = socket(AF_INET, SOCK_STREAM, 0)) >= 0);
	setsockopt(s->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	cr_assert_eq(bind(s->fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	cr_assert_eq(listen(s->fd, 1), 0);
	cr_assert_eq(getsockname(s->fd, (struct sockaddr *)&sin, &sl), 0);
	s->port = ntohs(sin.sin_port);
	cr_assert_eq(pthread_create(&s->thread, NULL, serve, s), 0);
}

static void
server_stop(struct server *s)
{
	shutdown(s->fd, SHUT_RDWR);
	pthread_join(s->thread, NULL);
	close(s->fd);
}

static void call_init(struct wh_call *, const char *, int);

/* One call of a private-allowed wh_call to the server; the server is then stopped. */
static int
call_server(struct server *s, struct wh_call *c, const char *scheme, const char *path)
{
	int rc;

	snprintf(s->url, sizeof(s->url), "%s://127.0.0.1:%d%s", scheme, s->port, path);
	call_init(c, s->url, 1);
	rc = wh_call_perform(c);
	server_stop(s);
	return rc;
}

static void
call_init(struct wh_call *c, const char *url, int allow_private)
{
	static const char body[] = "{\"id\":\"Webhook:x\",\"type\":\"TEST\"}";

	memset(c, 0, sizeof(*c));
	c->url = url;
	c->body = body;
	c->body_len = strlen(body);
	c->signature = "t=1,ed25519=AAAA";
	c->allow_private = allow_private;
}

Test(wh_http, blocked_before_connecting)
{
	static const char *const hosts[] = { "127.0.0.1", "localhost", "[::ffff:127.0.0.1]" };
	static const char answer[] = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";
	struct server s;
	struct wh_call c;
	char url[64];

	server_start(&s, answer, sizeof(answer) - 1, 0, 0);
	for (size_t i = 0; i < sizeof(hosts) / sizeof(hosts[0]); i++) {
		snprintf(url, sizeof(url), "http://%s:%d/", hosts[i], s.port);
		call_init(&c, url, 0);
		cr_expect_eq(wh_call_perform(&c), -1, "%s", url);
		cr_expect_eq(c.status, 0, "%s", url);
		cr_expect_str_eq(c.reason, "blocked address", "%s", url);
		wh_call_free(&c);
	}
	server_stop(&s);
	cr_expect_str_eq(s.request, "", "no connection was made");
}

Test(wh_http, invalid_url)
{
	struct wh_call c;

	call_init(&c, "ftp://127.0.0.1/", 1);
	cr_assert_eq(wh_call_perform(&c), -1);
	cr_expect_str_eq(c.reason, "invalid URL");
	wh_call_free(&c);
}

Test(wh_http, connection_refused)
{
	struct sockaddr_in sin;
	socklen_t sl = sizeof(sin);
	struct wh_call c;
	char url[64];
	int fd;

	/* A port that was just free: bound, not listening, then closed. */
	cr_assert((fd = socket(AF_INET, SOCK_STREAM, 0)) >= 0);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	cr_assert_eq(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	cr_assert_eq(getsockname(fd, (struct sockaddr *)&sin, &sl), 0);
	close(fd);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/", ntohs(sin.sin_port));
	call_init(&c, url, 1);
	cr_assert_eq(wh_call_perform(&c), -1);
	cr_expect_str_eq(c.reason, "connection refused");
	wh_call_free(&c);
}

Test(wh_http, response_made_valid_utf8)
{
	/* é, then an overlong '/', a surrogate, a NUL, a lone continuation, a cut 3-byte sequence. */
	static const char answer[] =
	    "HTTP/1.1 418 I'm a teapot\r\nContent-Length: 16\r\nConnection: close\r\n\r\n"
	    "\xc3\xa9" "\xc0\xaf" "\xed\xa0\x80" "\0" "\x80" "ok" "\xe2\x82" "!" "\xf0\x9f";
	struct server s;
	struct wh_call c;

	server_start(&s, answer, sizeof(answer) - 1, 0, 0);
	cr_assert_eq(call_server(&s, &c, "http", "/hook"), 0, "%s", c.reason);
	cr_expect_eq(c.status, 418);
	cr_expect_str_eq(c.response,
	    "\xc3\xa9"
	    "\xef\xbf\xbd\xef\xbf\xbd"		/* C0 AF: two bytes, two U+FFFD */
	    "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"	/* ED A0 80: three */
	    "\xef\xbf\xbd"			/* NUL */
	    "\xef\xbf\xbd"			/* 80 */
	    "ok"
	    "\xef\xbf\xbd"			/* E2 82: one maximal subpart */
	    "!"
	    "\xef\xbf\xbd");			/* F0 9F cut at the end */
	cr_expect(strstr(s.request, "POST /hook HTTP/1.1\r\n") == s.request);
	cr_expect(strstr(s.request, "\r\nContent-Type: application/json\r\n") != NULL);
	cr_expect(strstr(s.request, "\r\nX-Xborder-Signature: t=1,ed25519=AAAA\r\n") != NULL);
	cr_expect(strstr(s.request, "\r\nUser-Agent: xborder-webhooks/") != NULL);
	cr_expect(strstr(s.request, "Expect:") == NULL);
	cr_expect(strstr(s.request, "\r\n\r\n{\"id\":\"Webhook:x\",\"type\":\"TEST\"}") != NULL);
	wh_call_free(&c);
}

Test(wh_http, long_answer_kept_short_and_cut_off)
{
	static const char answer[] =
	    "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n";
	struct server s;
	struct wh_call c;

	/* No length: curl reads to EOF, and gives up past 1 MiB. */
	server_start(&s, answer, sizeof(answer) - 1, 3 * 1024 * 1024, 0);
	cr_assert_eq(call_server(&s, &c, "http", "/"), 0, "%s", c.reason);
	cr_expect_eq(c.status, 200);
	cr_expect_eq(strlen(c.response), WH_BODY_KEEP);
	cr_expect_eq(strspn(c.response, "x"), WH_BODY_KEEP);
	cr_expect_leq(c.buf_len, 1024 * 1024);
	wh_call_free(&c);
}

Test(wh_http, hang_up_without_answer)
{
	struct server s;
	struct wh_call c;

	server_start(&s, "", 0, 0, 0);
	cr_assert_eq(call_server(&s, &c, "http", "/"), -1);
	cr_expect_eq(c.status, 0);
	cr_expect_str_eq(c.reason, "no response");
	cr_expect_str_eq(c.response, "");
	wh_call_free(&c);
}

Test(wh_http, tls_failure)
{
	static const char answer[] = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";
	struct server s;
	struct wh_call c;

	/* A plain HTTP server behind an https URL: no TLS handshake. */
	server_start(&s, answer, sizeof(answer) - 1, 0, 1);
	cr_assert_eq(call_server(&s, &c, "https", "/"), -1);
	cr_expect_str_eq(c.reason, "TLS failure");
	wh_call_free(&c);
}

Test(netguard, loopback_text)
{
	static const char *const yes[] = { "127.0.0.1", "127.255.0.9", "::1",
	    "::ffff:127.0.0.1", "0:0:0:0:0:0:0:1" };
	static const char *const no[] = { "10.0.0.1", "128.0.0.1", "::2", "::ffff:10.0.0.1",
	    "::127.0.0.1", "fe80::1", "1.2.3.4", "", "localhost", "127.0.0.1 ", "127.1.2" };

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		cr_expect_eq(netguard_loopback_text(yes[i]), 1, "%s is loopback", yes[i]);
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		cr_expect_eq(netguard_loopback_text(no[i]), 0, "%s is not loopback", no[i]);
	cr_expect_eq(netguard_loopback_text(NULL), 0);
}
