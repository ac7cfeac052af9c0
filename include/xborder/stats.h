/*
 * stats.h: counters of the xborder-fcgi workers, in a file every worker
 * maps.  The master creates the file (stats_file in xborder.conf) before
 * it forks; each worker adds to its own slot only, so the request path
 * takes no lock; `xborderctl stats` sums the slots, `xborderctl status`
 * and GET /status show them one by one.  A replaced worker's
 * successor goes on in the same slot, so the sums only grow while the
 * master runs.
 */
#ifndef XBORDER_STATS_H
#define XBORDER_STATS_H

#include <stddef.h>
#include <stdint.h>

enum stat_id {
	STAT_REQUESTS,		/* requests answered */
	STAT_ARGON2,		/* argon2id verifications run */
	STAT_AUTH_CACHE_HITS,	/* credentials proven by the worker's cache */
	STAT_DB_STATEMENTS,	/* statements sent to MariaDB */
	STAT_CONFIG_CACHE_HITS,	/* platform configurations served from the cache */
	STAT_STATUS_2XX,	/* answers by status class */
	STAT_STATUS_3XX,
	STAT_STATUS_4XX,
	STAT_STATUS_5XX,
	STAT_DB_CONNECTS,	/* MariaDB connections opened (first and reconnects) */
	STAT_WORKER_STARTS,	/* workers the master started in this slot */
	STAT_WORKER_DEATHS,	/* of those, how many died (signal or failure status) */
	STAT_LIST_CACHE_HITS,	/* pages of GET /transactions served from the cache */
	STAT_CLIENT_GONE,	/* requests not run: nginx had closed them (499) */
	STAT__COUNT
};

/* The counter's name as `xborderctl stats` prints it. */
const char *stats_name(enum stat_id id);

/*
 * Master: creates (or empties) path with nslots slots and maps it.  0, or
 * -1 with errno set.  An empty path turns the counters off.
 */
int stats_create(const char *path, size_t nslots);
/*
 * Worker: adds to slot from now on (after fork, before the first request)
 * and records its pid there.
 */
void stats_use_slot(size_t slot);
/* Adds n to this worker's counter; nothing when there is no slot. */
void stats_add(enum stat_id id, uint64_t n);
/* Master: adds n to the counter of slot (a worker started or died there). */
void stats_add_to(size_t slot, enum stat_id id, uint64_t n);

/* Master: the worker of slot has exited (its pid reads 0 until the next). */
void stats_slot_left(size_t slot);

/* One slot as read: the pid of its current worker (0: none yet). */
struct stats_worker {
	uint64_t	pid;
	uint64_t	v[STAT__COUNT];
};

/*
 * Reads every slot of the file at path: *out (caller frees) gets *n
 * entries.  0, or -1 with errno set.
 */
int stats_read_workers(const char *path, struct stats_worker **out, size_t *n);

/* Sums every slot of the file at path into sums.  0, or -1 with errno set. */
int stats_read(const char *path, uint64_t sums[STAT__COUNT]);

#endif
