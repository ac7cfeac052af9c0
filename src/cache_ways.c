/*
 * cache_ways.c: where a key goes in a set-associative cache (cache_ways.h).
 */
#include "config.h"

#include "xborder/cache_ways.h"

long
cache_ways_find(const struct cache_ways *c, size_t h,
    int (*same)(size_t i, const void *key), const void *key)
{
	size_t first = (h % c->nsets) * c->ways;

	for (size_t i = first; i < first + c->ways; i++)
		if (c->used[i] != 0 && same(i, key))
			return (long)i;
	return -1;
}

size_t
cache_ways_place(const struct cache_ways *c, size_t h)
{
	size_t first = (h % c->nsets) * c->ways, best = first;

	for (size_t i = first; i < first + c->ways; i++) {
		if (c->used[i] == 0)
			return i;
		if (c->used[i] < c->used[best])
			best = i;
	}
	return best;
}

void
cache_ways_use(struct cache_ways *c, size_t i)
{
	c->used[i] = ++c->clock;
}

void
cache_ways_drop(struct cache_ways *c, size_t i)
{
	c->used[i] = 0;
}
