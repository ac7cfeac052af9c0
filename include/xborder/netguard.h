/*
 * netguard.h: which network addresses a webhook may not reach (the SSRF
 * guard).  Pure functions, no I/O.
 */
#ifndef XBORDER_NETGUARD_H
#define XBORDER_NETGUARD_H

#include <sys/socket.h>

/*
 * 1 when a webhook must not connect to the address: loopback, RFC 1918,
 * CGNAT (100.64.0.0/10), link-local, multicast, unspecified, broadcast,
 * documentation, benchmarking and other reserved ranges, and their IPv6
 * forms (IPv4-mapped, IPv4-compatible, NAT64 and 6to4 addresses judged by
 * the IPv4 address inside; Teredo and the rest of 2001::/23, unique-local,
 * site-local, link-local, multicast, documentation, discard, and anything
 * outside global unicast 2000::/3 blocked).  0 for a public unicast
 * address.  Anything that is not AF_INET or AF_INET6 is blocked.
 */
int netguard_blocked(const struct sockaddr *sa, socklen_t len);

/* The same for an address in text form; -1 when text is not an address. */
int netguard_blocked_text(const char *text);

/*
 * 1 when the address in text form is loopback: 127.0.0.0/8, ::1 or an
 * IPv4-mapped 127.x; 0 for any other address and for what is not one.
 */
int netguard_loopback_text(const char *text);

#endif
