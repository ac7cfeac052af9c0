/*
 * test_cache_ways.c: where keys go in a set-associative cache
 * (src/cache_ways.c).
 */
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>

#include "xborder/cache_ways.h"

#define SETS 4
#define WAYS 2

static char keys[SETS * WAYS][16];
static uint64_t used[SETS * WAYS];

static int
same(size_t i, const void *key)
{
	return strcmp(keys[i], key) == 0;
}

/* Puts key (of hash h) where the cache says; its entry. */
static size_t
put(struct cache_ways *c, size_t h, const char *key)
{
	long held = cache_ways_find(c, h, same, key);
	size_t i = held >= 0 ? (size_t)held : cache_ways_place(c, h);

	strcpy(keys[i], key);
	cache_ways_use(c, i);
	return i;
}

static void
reset(void)
{
	memset(keys, 0, sizeof(keys));
	memset(used, 0, sizeof(used));
}

TestSuite(cache_ways, .init = reset);

Test(cache_ways, a_key_is_found_only_in_its_own_set)
{
	struct cache_ways c = CACHE_WAYS_INIT(used, SETS, WAYS);
	size_t i = put(&c, 5, "a");

	cr_assert_eq(i / WAYS, 5 % SETS, "the key went to set %zu", i / WAYS);
	cr_assert_eq(cache_ways_find(&c, 5, same, "a"), (long)i);
	cr_assert_eq(cache_ways_find(&c, 5 + SETS, same, "a"), (long)i, "same set, same entry");
	cr_assert_eq(cache_ways_find(&c, 6, same, "a"), -1, "another set does not hold it");
	cr_assert_eq(cache_ways_find(&c, 5, same, "b"), -1);
}

Test(cache_ways, keys_of_one_set_live_together_up_to_its_ways)
{
	struct cache_ways c = CACHE_WAYS_INIT(used, SETS, WAYS);
	size_t a = put(&c, 1, "a"), b = put(&c, 1 + SETS, "b");

	cr_assert_neq(a, b, "two keys of one set, two entries");
	cr_assert_eq(cache_ways_find(&c, 1, same, "a"), (long)a);
	cr_assert_eq(cache_ways_find(&c, 1 + SETS, same, "b"), (long)b);
	/* Keys of other sets leave them alone. */
	for (size_t h = 0; h < 64; h++)
		if (h % SETS != 1) {
			char k[16];

			snprintf(k, sizeof(k), "k%zu", h);
			put(&c, h, k);
		}
	cr_assert_eq(cache_ways_find(&c, 1, same, "a"), (long)a);
	cr_assert_eq(cache_ways_find(&c, 1 + SETS, same, "b"), (long)b);
}

Test(cache_ways, a_full_set_gives_up_the_key_used_longest_ago)
{
	struct cache_ways c = CACHE_WAYS_INIT(used, SETS, WAYS);
	size_t a = put(&c, 2, "a"), b = put(&c, 2, "b"), n;

	/* a is used after b: b goes. */
	cache_ways_use(&c, a);
	n = put(&c, 2, "c");
	cr_assert_eq(n, b, "the new key took b's entry");
	cr_assert_eq(cache_ways_find(&c, 2, same, "a"), (long)a);
	cr_assert_eq(cache_ways_find(&c, 2, same, "b"), -1);
	/* Now a is the oldest. */
	n = put(&c, 2, "d");
	cr_assert_eq(n, a, "then a's");
	cr_assert_eq(cache_ways_find(&c, 2, same, "c"), (long)b);
}

Test(cache_ways, a_dropped_entry_is_empty_and_taken_first)
{
	struct cache_ways c = CACHE_WAYS_INIT(used, SETS, WAYS);
	size_t a = put(&c, 3, "a"), b = put(&c, 3, "b");

	cache_ways_drop(&c, b);
	cr_assert_eq(cache_ways_find(&c, 3, same, "b"), -1, "a dropped key is not found");
	cache_ways_use(&c, a);
	cr_assert_eq(cache_ways_place(&c, 3), b, "the empty entry before the oldest");
}
