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
 * Runs every check (db_checks.c lists them).  Returns the number of
 * problems (>= 0), or the database's failure (a DB_ code < 0).
 */
int db_checks_run(struct db *db, const struct check_sink *sink);

#endif
