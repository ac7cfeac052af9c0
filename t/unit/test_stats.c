/*
 * Unit tests of the workers' counters file: slots written by forked
 * workers add up in stats_read, a new master starts from zero, a file
 * that is not a counters file is refused.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "xborder/stats.h"

static char path[64];

static void
setup(void)
{
	int fd;

	snprintf(path, sizeof(path), "/tmp/xb-stats-XXXXXX");
	cr_assert_geq(fd = mkstemp(path), 0);
	close(fd);
}

static void teardown(void) { unlink(path); }

TestSuite(stats, .init = setup, .fini = teardown);

Test(stats, names)
{
	cr_assert_str_eq(stats_name(STAT_REQUESTS), "requests");
	cr_assert_str_eq(stats_name(STAT_ARGON2), "argon2_verifications");
	cr_assert_str_eq(stats_name(STAT_AUTH_CACHE_HITS), "auth_cache_hits");
	cr_assert_str_eq(stats_name(STAT_DB_STATEMENTS), "db_statements");
	cr_assert_str_eq(stats_name(STAT_CONFIG_CACHE_HITS), "config_cache_hits");
}

Test(stats, forked_workers_add_up)
{
	uint64_t sums[STAT__COUNT];

	cr_assert_eq(stats_create(path, 8), 0);
	for (int w = 0; w < 4; w++) {
		pid_t pid = fork();
		int status;

		cr_assert_geq(pid, 0);
		if (pid == 0) {
			stats_use_slot((size_t)w);
			for (int i = 0; i < 1000; i++) {
				stats_add(STAT_REQUESTS, 1);
				stats_add(STAT_DB_STATEMENTS, (uint64_t)w + 1);
			}
			_exit(0);
		}
		cr_assert_eq(waitpid(pid, &status, 0), pid);
		cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	/* The same slot again: a replaced worker goes on counting. */
	if (fork() == 0) {
		stats_use_slot(0);
		stats_add(STAT_ARGON2, 7);
		_exit(0);
	}
	wait(NULL);
	cr_assert_eq(stats_read(path, sums), 0);
	cr_assert_eq(sums[STAT_REQUESTS], 4000);
	cr_assert_eq(sums[STAT_DB_STATEMENTS], 1000 * (1 + 2 + 3 + 4));
	cr_assert_eq(sums[STAT_ARGON2], 7);
	cr_assert_eq(sums[STAT_AUTH_CACHE_HITS], 0);
	/* A new master empties the file. */
	cr_assert_eq(stats_create(path, 8), 0);
	cr_assert_eq(stats_read(path, sums), 0);
	cr_assert_eq(sums[STAT_REQUESTS], 0);
}

Test(stats, no_slot_no_count)
{
	uint64_t sums[STAT__COUNT];

	cr_assert_eq(stats_create(path, 2), 0);
	stats_use_slot(5);	/* past the last slot: ignored */
	stats_add(STAT_REQUESTS, 1);
	cr_assert_eq(stats_read(path, sums), 0);
	cr_assert_eq(sums[STAT_REQUESTS], 0);
}

Test(stats, refuses_other_files)
{
	uint64_t sums[STAT__COUNT];
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f);
	fputs("not a counters file, but long enough to hold a header......................", f);
	fclose(f);
	cr_assert_eq(stats_read(path, sums), -1);
	cr_assert_eq(errno, EINVAL);
	cr_assert_eq(stats_read("/nonexistent/xb-stats", sums), -1);
}

Test(stats, slots_one_by_one)
{
	struct stats_worker *w;
	size_t n;
	pid_t pid;
	int status;

	cr_assert_eq(stats_create(path, 4), 0);
	stats_add_to(2, STAT_WORKER_STARTS, 1);
	cr_assert_geq(pid = fork(), 0);
	if (pid == 0) {
		stats_use_slot(2);
		stats_add(STAT_STATUS_4XX, 3);
		_exit(0);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert_eq(stats_read_workers(path, &w, &n), 0);
	cr_assert_eq(n, 4);
	cr_expect_eq(w[2].pid, (uint64_t)pid, "the slot names its worker");
	cr_expect_eq(w[2].v[STAT_STATUS_4XX], 3);
	cr_expect_eq(w[2].v[STAT_WORKER_STARTS], 1);
	cr_expect_eq(w[1].pid, 0);
	cr_expect_eq(w[1].v[STAT_STATUS_4XX], 0);
	free(w);
	/* The master reaps it: the slot no longer names a worker. */
	stats_slot_left(2);
	stats_add_to(2, STAT_WORKER_DEATHS, 1);
	cr_assert_eq(stats_read_workers(path, &w, &n), 0);
	cr_expect_eq(w[2].pid, 0);
	cr_expect_eq(w[2].v[STAT_WORKER_DEATHS], 1);
	cr_expect_eq(w[2].v[STAT_STATUS_4XX], 3, "counters outlive the worker");
	free(w);
}
