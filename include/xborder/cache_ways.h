/*
 * cache_ways.h: where a key goes in a worker's set-associative cache.
 *
 * A cache's entries are an array of nsets * ways, kept by its owner (the
 * credentials, the platform configurations, GET /config's answers, the
 * kept list pages).  A key of hash h may be held by the ways entries of
 * set h % nsets only; a new key takes an empty entry of its set, else the
 * one used longest ago.  Unlike one entry per hash, two keys in use
 * together only push each other out when more than `ways` of them share a
 * set, so one platform's keys do not evict another's.
 */
#ifndef XBORDER_CACHE_WAYS_H
#define XBORDER_CACHE_WAYS_H

#include <stddef.h>
#include <stdint.h>

struct cache_ways {
	size_t		 nsets, ways;
	uint64_t	*used;	/* nsets * ways: when entry i was last used, 0: empty */
	uint64_t	 clock;
};

/* A cache of nsets sets of ways entries, all empty, over used. */
#define CACHE_WAYS_INIT(used, nsets, ways) { (nsets), (ways), (used), 0 }

/*
 * The entry of h's set that holds key (same(i, key) != 0, asked of the
 * entries in use only), or -1.
 */
long cache_ways_find(const struct cache_ways *c, size_t h,
    int (*same)(size_t i, const void *key), const void *key);

/*
 * The entry for a key of hash h not held yet: an empty one of its set,
 * else the one of its set used longest ago (the caller replaces it).
 */
size_t cache_ways_place(const struct cache_ways *c, size_t h);

/* Entry i was used now (a hit, or a key put in it). */
void cache_ways_use(struct cache_ways *c, size_t i);

/* Entry i is empty again. */
void cache_ways_drop(struct cache_ways *c, size_t i);

#endif
