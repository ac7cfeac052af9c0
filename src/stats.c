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
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xborder/stats.h"

#define STATS_MAGIC	UINT32_C(0x78627331)	/* "xbs1" */
#define STATS_VERSION	2

struct stats_header {
	uint32_t	magic, version, nslots, ncounters;
	uint8_t		pad[48];
};

struct stats_slot {
	uint64_t	pid;
	uint64_t	v[STAT__COUNT];
} __attribute__((aligned(64)));

static const char *const names[STAT__COUNT] = {
	[STAT_REQUESTS] = "requests",
	[STAT_ARGON2] = "argon2_verifications",
	[STAT_AUTH_CACHE_HITS] = "auth_cache_hits",
	[STAT_DB_STATEMENTS] = "db_statements",
	[STAT_CONFIG_CACHE_HITS] = "config_cache_hits",
	[STAT_STATUS_2XX] = "status_2xx",
	[STAT_STATUS_3XX] = "status_3xx",
	[STAT_STATUS_4XX] = "status_4xx",
	[STAT_STATUS_5XX] = "status_5xx",
	[STAT_DB_CONNECTS] = "db_connects",
	[STAT_WORKER_STARTS] = "worker_starts",
	[STAT_WORKER_DEATHS] = "worker_deaths",
	[STAT_LIST_CACHE_HITS] = "list_cache_hits",
	[STAT_CLIENT_GONE] = "client_gone",
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
	if (map != NULL && slot < map->nslots) {
		mine = (struct stats_slot *)(map + 1) + slot;
		__atomic_store_n(&mine->pid, (uint64_t)getpid(), __ATOMIC_RELAXED);
	}
}

void
stats_add_to(size_t slot, enum stat_id id, uint64_t n)
{
	if (map != NULL && slot < map->nslots && id < STAT__COUNT)
		__atomic_fetch_add(&((struct stats_slot *)(map + 1))[slot].v[id], n,
		    __ATOMIC_RELAXED);
}

void
stats_add(enum stat_id id, uint64_t n)
{
	if (mine != NULL && id < STAT__COUNT)
		__atomic_fetch_add(&mine->v[id], n, __ATOMIC_RELAXED);
}

/*
 * Maps the file at path read-only and checks its header: the slots and
 * their count, or NULL with errno set.  *len is what to munmap.
 */
static const struct stats_slot *
map_file(const char *path, size_t *nslots, size_t *len)
{
	const struct stats_header *h;
	struct stat st;
	void *p;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || (size_t)st.st_size < sizeof(*h)) {
		close(fd);
		errno = EINVAL;
		return NULL;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return NULL;
	h = p;
	*nslots = h->nslots;
	*len = (size_t)st.st_size;
	if (__atomic_load_n(&h->magic, __ATOMIC_ACQUIRE) != STATS_MAGIC ||
	    h->version != STATS_VERSION || h->ncounters != STAT__COUNT ||
	    file_size(*nslots) > (size_t)st.st_size) {
		munmap(p, (size_t)st.st_size);
		errno = EINVAL;
		return NULL;
	}
	return (const struct stats_slot *)(h + 1);
}

void
stats_slot_left(size_t slot)
{
	if (map != NULL && slot < map->nslots)
		__atomic_store_n(&((struct stats_slot *)(map + 1))[slot].pid, 0,
		    __ATOMIC_RELAXED);
}

int
stats_read_workers(const char *path, struct stats_worker **out, size_t *n)
{
	const struct stats_slot *s;
	size_t nslots, len;

	*out = NULL;
	*n = 0;
	if ((s = map_file(path, &nslots, &len)) == NULL)
		return -1;
	*out = calloc(nslots ? nslots : 1, sizeof(**out));
	if (*out == NULL) {
		munmap((void *)((const struct stats_header *)s - 1), len);
		return -1;
	}
	for (size_t i = 0; i < nslots; i++) {
		(*out)[i].pid = __atomic_load_n(&s[i].pid, __ATOMIC_RELAXED);
		for (size_t k = 0; k < STAT__COUNT; k++)
			(*out)[i].v[k] = __atomic_load_n(&s[i].v[k], __ATOMIC_RELAXED);
	}
	*n = nslots;
	munmap((void *)((const struct stats_header *)s - 1), len);
	return 0;
}

int
stats_read(const char *path, uint64_t sums[STAT__COUNT])
{
	struct stats_worker *w;
	size_t n;

	memset(sums, 0, sizeof(uint64_t) * STAT__COUNT);
	if (stats_read_workers(path, &w, &n) < 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < STAT__COUNT; k++)
			sums[k] += w[i].v[k];
	free(w);
	return 0;
}
