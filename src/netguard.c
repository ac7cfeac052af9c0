/*
 * netguard.c: the SSRF guard.  A webhook endpoint is a URL the platform
 * chooses, so without a guard any platform could make the worker POST to
 * the operator's own services (a database admin page on 127.0.0.1, a cloud
 * metadata service on 169.254.169.254, a neighbour on 10/8).  The check is
 * made on the address curl is about to connect to (wh_http.c), never on
 * the host name, so DNS cannot answer differently between check and use.
 *
 * IPv4 is a table of blocked prefixes.  IPv6 is a table too, but some of
 * its prefixes carry an IPv4 address (mapped, compatible, NAT64, 6to4) and
 * are judged by that address, since the packets end up there; and every
 * address outside 2000::/3, the only space IANA hands out for global
 * unicast, is blocked, which covers unique-local, site-local, link-local,
 * multicast and whatever gets reserved next.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <stdint.h>
#include <string.h>

#include "xborder/netguard.h"

struct v4_prefix {
	uint32_t	net;	/* host byte order */
	int		bits;
};

#define V4(a, b, c, d) (((uint32_t)(a) << 24) | ((b) << 16) | ((c) << 8) | (d))

/* IANA's special-purpose IPv4 registry, less what is globally reachable. */
static const struct v4_prefix v4_blocked[] = {
	{ V4(0, 0, 0, 0), 8 },		/* "this network", unspecified */
	{ V4(10, 0, 0, 0), 8 },		/* RFC 1918 */
	{ V4(100, 64, 0, 0), 10 },	/* CGNAT shared space */
	{ V4(127, 0, 0, 0), 8 },	/* loopback */
	{ V4(169, 254, 0, 0), 16 },	/* link-local, cloud metadata */
	{ V4(172, 16, 0, 0), 12 },	/* RFC 1918 */
	{ V4(192, 0, 0, 0), 24 },	/* IETF protocol assignments */
	{ V4(192, 0, 2, 0), 24 },	/* TEST-NET-1 */
	{ V4(192, 88, 99, 0), 24 },	/* 6to4 relay anycast (deprecated) */
	{ V4(192, 168, 0, 0), 16 },	/* RFC 1918 */
	{ V4(198, 18, 0, 0), 15 },	/* benchmarking */
	{ V4(198, 51, 100, 0), 24 },	/* TEST-NET-2 */
	{ V4(203, 0, 113, 0), 24 },	/* TEST-NET-3 */
	{ V4(224, 0, 0, 0), 4 },	/* multicast */
	{ V4(240, 0, 0, 0), 4 },	/* reserved, broadcast */
};

/* What a matching IPv6 prefix means. */
enum v6_rule {
	V6_BLOCK,	/* blocked outright */
	V6_INNER_12,	/* judged by the IPv4 address in bytes 12..15 */
	V6_INNER_2	/* judged by the IPv4 address in bytes 2..5 (6to4) */
};

struct v6_prefix {
	uint8_t		net[16];
	int		bits;
	enum v6_rule	rule;
};

/* First match wins; an address matching none is judged by 2000::/3. */
static const struct v6_prefix v6_rules[] = {
	/* IPv4-compatible (::a.b.c.d); :: and ::1 land in 0.0.0.0/8. */
	{ { 0 }, 96, V6_INNER_12 },
	/* IPv4-mapped: what a dual-stack socket shows for an IPv4 peer. */
	{ { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff }, 96, V6_INNER_12 },
	/* NAT64 well-known prefix: the gateway forwards to the IPv4 inside. */
	{ { 0, 0x64, 0xff, 0x9b }, 96, V6_INNER_12 },
	/* NAT64 local-use prefix: a site's own translator. */
	{ { 0, 0x64, 0xff, 0x9b, 0, 1 }, 48, V6_BLOCK },
	/* Discard-only. */
	{ { 1 }, 64, V6_BLOCK },
	/*
	 * IETF protocol assignments: Teredo (2001::/32, whose client address
	 * is obfuscated, so it cannot be judged), benchmarking, ORCHID.
	 */
	{ { 0x20, 0x01 }, 23, V6_BLOCK },
	/* Documentation. */
	{ { 0x20, 0x01, 0x0d, 0xb8 }, 32, V6_BLOCK },
	{ { 0x3f, 0xff }, 20, V6_BLOCK },
	/* 6to4: relayed to the IPv4 address after the prefix. */
	{ { 0x20, 0x02 }, 16, V6_INNER_2 },
};

static int
v4_blocked_addr(uint32_t a)
{
	for (size_t i = 0; i < sizeof(v4_blocked) / sizeof(v4_blocked[0]); i++) {
		uint32_t mask = UINT32_MAX << (32 - v4_blocked[i].bits);

		if ((a & mask) == v4_blocked[i].net)
			return 1;
	}
	return 0;
}

/* 1 when the first bits of a equal those of net. */
static int
v6_match(const uint8_t a[16], const uint8_t net[16], int bits)
{
	int whole = bits / 8, rest = bits % 8;

	if (memcmp(a, net, whole) != 0)
		return 0;
	if (rest == 0)
		return 1;
	return ((a[whole] ^ net[whole]) & (0xff << (8 - rest))) == 0;
}

static uint32_t
v4_at(const uint8_t *p)
{
	return V4(p[0], p[1], p[2], p[3]);
}

static int
v6_blocked_addr(const uint8_t a[16])
{
	for (size_t i = 0; i < sizeof(v6_rules) / sizeof(v6_rules[0]); i++) {
		const struct v6_prefix *r = &v6_rules[i];

		if (!v6_match(a, r->net, r->bits))
			continue;
		switch (r->rule) {
		case V6_INNER_12:
			return v4_blocked_addr(v4_at(a + 12));
		case V6_INNER_2:
			return v4_blocked_addr(v4_at(a + 2));
		default:
			return 1;
		}
	}
	/* Global unicast is 2000::/3; the rest is special or unassigned. */
	return (a[0] & 0xe0) != 0x20;
}

int
netguard_blocked(const struct sockaddr *sa, socklen_t len)
{
	const struct sockaddr_in *in4;
	const struct sockaddr_in6 *in6;

	if (sa == NULL)
		return 1;
	if (sa->sa_family == AF_INET && len >= (socklen_t)sizeof(*in4)) {
		in4 = (const struct sockaddr_in *)sa;
		return v4_blocked_addr(ntohl(in4->sin_addr.s_addr));
	}
	if (sa->sa_family == AF_INET6 && len >= (socklen_t)sizeof(*in6)) {
		in6 = (const struct sockaddr_in6 *)sa;
		return v6_blocked_addr(in6->sin6_addr.s6_addr);
	}
	/* Unix sockets and anything else: a webhook has no business there. */
	return 1;
}

int
netguard_loopback_text(const char *text)
{
	static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	struct in_addr a4;
	struct in6_addr a6;

	if (text == NULL)
		return 0;
	if (inet_pton(AF_INET, text, &a4) == 1)
		return (ntohl(a4.s_addr) >> 24) == 127;
	if (inet_pton(AF_INET6, text, &a6) != 1)
		return 0;
	if (IN6_IS_ADDR_LOOPBACK(&a6))
		return 1;
	return memcmp(a6.s6_addr, mapped, sizeof(mapped)) == 0 && a6.s6_addr[12] == 127;
}

int
netguard_blocked_text(const char *text)
{
	struct in_addr a4;
	struct in6_addr a6;

	if (text == NULL)
		return -1;
	if (inet_pton(AF_INET, text, &a4) == 1)
		return v4_blocked_addr(ntohl(a4.s_addr));
	if (inet_pton(AF_INET6, text, &a6) == 1)
		return v6_blocked_addr(a6.s6_addr);
	return -1;
}
