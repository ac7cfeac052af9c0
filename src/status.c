/*
 * status.c: the status document (see status.h).
 *
 *   {"time", "version", "database": "ok"|"unavailable",
 *    "counters": {"requests": n, ...} | null,	(sums over the slots)
 *    "workers": [{"slot", "pid", "alive", "requests", ...}],
 *    "jobs": {"queued", "due", "oldestDueAt", "oldestDueMs"} | null,
 *    "webhooks": {"pending", "platforms": [{"platformId", "pending",
 *                 "oldestCreatedAt"}]} | null,
 *    "invariants": {"lastRunAt", "finishedAt", "ok", "problems", "failing",
 *                   "examined", "entryReached", "eventReached"} | null}
 *                   (xborder-worker's last run of the recent checks)
 *
 * Counter names are the stats names in camelCase (argon2_verifications:
 * argon2Verifications).  A slot appears once a worker started in it.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "xborder/conf.h"
#include "xborder/db.h"
#include "xborder/db_checks.h"
#include "xborder/db_status.h"
#include "xborder/ids.h"
#include "xborder/stats.h"
#include "xborder/status.h"

/* "db_statements" -> "dbStatements" */
static void
camel(const char *name, char *out, size_t len)
{
	size_t n = 0;
	int up = 0;

	for (const char *p = name; *p && n + 1 < len; p++) {
		if (*p == '_') {
			up = 1;
			continue;
		}
		out[n++] = up ? (char)toupper((unsigned char)*p) : *p;
		up = 0;
	}
	out[n] = '\0';
}

static void
add_counters(json_object *o, const uint64_t v[STAT__COUNT])
{
	char key[64];

	for (int i = 0; i < STAT__COUNT; i++) {
		camel(stats_name((enum stat_id)i), key, sizeof(key));
		json_object_object_add(o, key, json_object_new_int64((int64_t)v[i]));
	}
}

static json_object *
time_or_null(const char *db)
{
	char t[25];

	return db != NULL && ids_timestamp(db, t) == 0 ? json_object_new_string(t) : NULL;
}

static void
workers(json_object *o, const struct conf *conf)
{
	json_object *list = json_object_new_array(), *sum = NULL;
	struct stats_worker *w = NULL;
	uint64_t tot[STAT__COUNT] = { 0 };
	size_t n = 0;

	if (conf->stats_file[0] != '\0' && stats_read_workers(conf->stats_file, &w, &n) == 0) {
		for (size_t i = 0; i < n; i++) {
			json_object *x;

			for (int k = 0; k < STAT__COUNT; k++)
				tot[k] += w[i].v[k];
			if (w[i].v[STAT_WORKER_STARTS] == 0)
				continue;
			x = json_object_new_object();
			json_object_object_add(x, "slot", json_object_new_int64((int64_t)i));
			json_object_object_add(x, "pid", json_object_new_int64((int64_t)w[i].pid));
			json_object_object_add(x, "alive", json_object_new_boolean(w[i].pid != 0 &&
			    (kill((pid_t)w[i].pid, 0) == 0 || errno == EPERM)));
			add_counters(x, w[i].v);
			json_object_array_add(list, x);
		}
		sum = json_object_new_object();
		add_counters(sum, tot);
		free(w);
	}
	json_object_object_add(o, "counters", sum);
	json_object_object_add(o, "workers", list);
}

static json_object *
jobs(struct db *db)
{
	struct job_queue q;
	json_object *o;

	if (db == NULL || db_status_jobs(db, &q) != DB_OK)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "queued", json_object_new_int64(q.queued));
	json_object_object_add(o, "due", json_object_new_int64(q.due));
	json_object_object_add(o, "oldestDueAt", time_or_null(q.oldest_due_at[0] ?
	    q.oldest_due_at : NULL));
	json_object_object_add(o, "oldestDueMs", q.oldest_due_at[0] ?
	    json_object_new_int64(q.oldest_due_ms) : NULL);
	return o;
}

static json_object *
webhooks(struct db *db)
{
	json_object *o, *list;
	struct db_rows r;
	int64_t pending = 0;

	if (db == NULL || db_status_webhooks(db, &pending, &r) != DB_OK)
		return NULL;
	o = json_object_new_object();
	list = json_object_new_array();
	for (size_t i = 0; i < r.nrows; i++) {
		json_object *x = json_object_new_object();

		json_object_object_add(x, "platformId", json_object_new_string(db_cell(&r, i, 0)));
		json_object_object_add(x, "pending", json_object_new_int64(db_cell_i64(&r, i, 1)));
		json_object_object_add(x, "oldestCreatedAt", time_or_null(db_cell(&r, i, 2)));
		json_object_array_add(list, x);
	}
	db_rows_free(&r);
	json_object_object_add(o, "pending", json_object_new_int64(pending));
	json_object_object_add(o, "platforms", list);
	return o;
}

/* xborder-worker's last run of the recent invariant checks, or NULL. */
static json_object *
invariants(struct db *db)
{
	struct check_summary s;
	json_object *o, *failing;
	char *save = NULL;

	if (db == NULL || db_checks_last(db, &s) != DB_OK)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "lastRunAt", time_or_null(s.started_at));
	json_object_object_add(o, "finishedAt", time_or_null(s.finished_at));
	json_object_object_add(o, "ok", json_object_new_boolean(s.problems == 0));
	json_object_object_add(o, "problems", json_object_new_int64(s.problems));
	failing = json_object_new_array();
	for (char *c = strtok_r(s.failing, " ", &save); c != NULL; c = strtok_r(NULL, " ", &save))
		json_object_array_add(failing, json_object_new_string(c));
	json_object_object_add(o, "failing", failing);
	json_object_object_add(o, "examined", json_object_new_int64(s.examined));
	json_object_object_add(o, "entryReached", json_object_new_int64(s.entry_upto));
	json_object_object_add(o, "eventReached", json_object_new_int64(s.event_upto));
	return o;
}

json_object *
status_render(const struct conf *conf, struct db *db)
{
	json_object *o = json_object_new_object(), *j, *w;
	char now[25];

	ids_now_timestamp(now);
	json_object_object_add(o, "time", json_object_new_string(now));
	json_object_object_add(o, "version", json_object_new_string(PACKAGE_VERSION));
	workers(o, conf);
	j = jobs(db);
	w = j != NULL ? webhooks(db) : NULL;
	json_object_object_add(o, "database", json_object_new_string(w != NULL ? "ok" :
	    "unavailable"));
	json_object_object_add(o, "jobs", w != NULL ? j : NULL);
	if (w == NULL && j != NULL)
		json_object_put(j);
	json_object_object_add(o, "webhooks", w);
	json_object_object_add(o, "invariants", w != NULL ? invariants(db) : NULL);
	return o;
}
