/*
 * db_checks.h: the ledger's invariants, checked over the whole database
 * (xborderctl ledger-check).  Each check has a name and reports the rows
 * that break it; none may ever fail.
 */
#ifndef XBORDER_DB_CHECKS_H
#define XBORDER_DB_CHECKS_H

struct db;

/* Where the checks report. */
struct check_sink {
	/* A row that breaks check: what it is ("account", ...), its id, why. */
	void	(*problem)(void *arg, const char *check, const char *what, const char *id,
		    const char *detail);
	/* Check done: its problems, and the transactions it examined (-1: a query's). */
	void	(*done)(void *arg, const char *check, int problems, long examined);
	void	*arg;
};

/*
 * Runs every check over the whole database (db_checks.c lists them).
 * Returns the number of problems (>= 0), or the database's failure (a DB_
 * code < 0).
 */
int db_checks_run(struct db *db, const struct check_sink *sink);

/* What a run of the recent checks did (a row of invariant_runs). */
struct check_summary {
	char	 started_at[32], finished_at[32];
	int64_t	 entry_upto, event_upto;	/* the ledger entry and event seq reached */
	int64_t	 examined;			/* entries and events looked at */
	int	 problems;
	char	 failing[256];			/* the checks that failed, space-separated */
	int	 behind;			/* it stopped at its bounds: more to check */
};

/* What one run of the recent checks covers. */
struct check_limits {
	int64_t	 entries, events;	/* at most this many new ledger entries and events */
	int64_t	 lag;			/* seconds: what existed when a run this old started */
	int	 catching_up;		/* a run right after one that stopped at its bounds */
};

/*
 * The recent checks (xborder-worker): every check over what changed since
 * the last run, within lim (the next run goes on from there), in one
 * database transaction that records the run.  Fills *out; returns DB_OK
 * (problems or not; see out->problems) or a failure.
 */
int db_checks_recent(struct db *db, const struct check_limits *lim,
    const struct check_sink *sink, struct check_summary *out);

/* The last recent run, into *out: DB_OK, DB_NOT_FOUND (none yet) or a failure. */
int db_checks_last(struct db *db, struct check_summary *out);

#endif
