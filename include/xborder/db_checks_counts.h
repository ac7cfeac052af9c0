/*
 * db_checks_counts.h: the recent checks' counts check (db_checks.c) kept
 * from checkpoints (schema/027), so that a run reads what changed since
 * the last one instead of every transaction of each platform that moved.
 */
#ifndef XBORDER_DB_CHECKS_COUNTS_H
#define XBORDER_DB_CHECKS_COUNTS_H

#include <stddef.h>
#include <stdint.h>

struct db;

/* A platform whose counts a run must check by counting its transactions. */
struct count_recount {
	char	 platform[37];
	int	 rebase;	/* then take its checkpoint anew (db_counts_rebase) */
};

/*
 * A recent run over webhook events (from, to]: moves each platform's
 * checkpoint standing at event `from` by what those events changed, to
 * event `to`; with compare, compares it, with what the events after `to`
 * changed, with txn_counts and txn_customer_counts.  Into *out (malloc'd,
 * *n entries, free()) the platforms with events after `from` whose
 * checkpoint did not agree or did not hold (none yet, or an old
 * transaction changed: its events may be purged); none without compare.
 * DB_OK or a failure.
 */
int db_counts_recent(struct db *db, int64_t from, int64_t to, int compare,
    struct count_recount **out, size_t *n);

/* Platform's checkpoint anew, standing at event `at`, from its transactions now. */
int db_counts_rebase(struct db *db, const char *platform, int64_t at);

#endif
