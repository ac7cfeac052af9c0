/*
 * stats.c: the workers' counters file (see stats.h).
 *
 * Layout: a header (magic, layout version, slot count, counter count), then
 * one cache-line-aligned slot of uint64_t counters per worker.  A slot has
 * one writer, which adds with relaxed atomics so that a reader never sees
 * a torn value; readers sum whatever is there at that moment.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xborder/stats.h"

#define STATS_MAGIC	UINT32_C(0x78627331)	/* "xbs1" */
#define STATS_VERSION	1

struct stats_header {
	uint32_t	magic, version, nslots, ncounters;
	uint8_t		pad[48];
};

struct stats_slot {
	uint64_t	v[STAT__COUNT];
} __attribute__((aligned(64)));

static const char *const names[STAT__COUNT] = {
	[STAT_REQUESTS] = "requests",
	[STAT_ARGON2] = "argon2_verifications",
	[STAT_AUTH_CACHE_HITS] = "auth_cache_hits",
	[STAT_DB_STATEMENTS] = "db_statements",
	[STAT_CONFIG_CACHE_HITS] = "config_cache_hits",
};

static struct stats_header *map;
static size_t map_len;
static struct stats_slot *mine;

const char *
stats_name(enum stat_id id)
{
	return id < STAT__COUNT ? names[id] : "?";
}

static size_t
file_size(size_t nslots)
{
	return sizeof(struct stats_header) + nslots * sizeof(struct stats_slot);
}

int
stats_create(const char *path, size_t nslots)
{
	size_t len = file_size(nslots);
	void *p;
	int fd;

	if (path == NULL || path[0] == '\0')
		return 0;
	if ((fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644)) < 0)
		return -1;
	/* Emptied, then grown: a new master starts from zero. */
	if (ftruncate(fd, 0) < 0 || ftruncate(fd, (off_t)len) < 0) {
		close(fd);
		return -1;
	}
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return -1;
	if (map != NULL)
		munmap(map, map_len);
	map = p;
	map_len = len;
	map->nslots = (uint32_t)nslots;
	map->ncounters = STAT__COUNT;
	map->version = STATS_VERSION;
	__atomic_store_n(&map->magic, STATS_MAGIC, __ATOMIC_RELEASE);
	return 0;
}

void
stats_use_slot(size_t slot)
{
	if (map != NULL && slot < map->nslots)
		mine = (struct stats_slot *)(map + 1) + slot;
}

void
stats_add(enum stat_id id, uint64_t n)
{
	if (mine != NULL && id < STAT__COUNT)
		__atomic_fetch_add(&mine->v[id], n, __ATOMIC_RELAXED);
}

int
stats_read(const char *path, uint64_t sums[STAT__COUNT])
{
	const struct stats_header *h;
	const struct stats_slot *s;
	struct stat st;
	size_t nslots, ncounters;
	void *p;
	int fd, rc = -1;

	memset(sums, 0, sizeof(uint64_t) * STAT__COUNT);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	if (fstat(fd, &st) < 0 || (size_t)st.st_size < sizeof(*h)) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return -1;
	h = p;
	nslots = h->nslots;
	ncounters = h->ncounters < STAT__COUNT ? h->ncounters : STAT__COUNT;
	if (__atomic_load_n(&h->magic, __ATOMIC_ACQUIRE) != STATS_MAGIC ||
	    h->version != STATS_VERSION ||
	    file_size(nslots) > (size_t)st.st_size) {
		errno = EINVAL;
		goto out;
	}
	s = (const struct stats_slot *)(h + 1);
	for (size_t i = 0; i < nslots; i++)
		for (size_t k = 0; k < ncounters; k++)
			sums[k] += __atomic_load_n(&s[i].v[k], __ATOMIC_RELAXED);
	rc = 0;
out:
	munmap(p, (size_t)st.st_size);
	return rc;
}
