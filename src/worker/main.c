/*
 * xborder-worker: the background worker.  It claims due jobs from the
 * jobs table (SELECT ... FOR UPDATE SKIP LOCKED, so any number of copies
 * can run side by side), runs each inside one database transaction and
 * marks it done in that same transaction.  A job that fails is retried
 * with backoff.  It delivers webhook events (deliver.c) between jobs,
 * several at a time.  SIGTERM or SIGINT: the current job and the
 * deliveries in flight finish, then the worker exits.  It also expires
 * quotes and purges expired idempotency records and old jobs.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef HAVE_LIBSYSTEMD
#include <systemd/sd-daemon.h>
#endif

#include "xborder/conf.h"
#include "xborder/db.h"
#include "xborder/db_checks.h"
#include "xborder/db_idem.h"
#include "xborder/db_jobs.h"
#include "xborder/db_quotes.h"
#include "xborder/db_tokens.h"
#include "xborder/db_transactions.h"
#include "xborder/db_txn_anchors.h"
#include "xborder/quote_ops.h"
#include "xborder/settle.h"
#include "xborder/util.h"
#include "xborder/wh_http.h"
#include "deliver.h"

#define IDLE_SLEEP_MS 100
#define SWEEP_EVERY_MS 1000	/* quote expiry */
#define BEAT_EVERY_MS 2000	/* the heartbeat of the worker's share (worker_beats) */
#define PURGE_EVERY_MS 60000
#define PURGE_AGAIN_MS 1000	/* when a purge left rows */
#define ANCHOR_EVERY_MS 2000	/* the anchors of deep pages (db_txn_anchors.h) */
#define ANCHOR_BUDGET 64	/* anchors placed at most a time: 64 walks of a step */
/*
 * Due jobs run in one transaction, so that one commit (fsync) covers them.
 * A batch holds every row its jobs locked (customers, in-transit accounts,
 * the platform's sandbox account) until it commits, and payouts wait on
 * them; smaller batches let more payouts through (bench/run --only
 * transfer-out: 311-365/s with 4 against 269-283/s with 16), but then
 * settlement falls behind (3,400 jobs due and not done after 15 s of
 * payouts with 4, at most 61 with 16), so 16.
 */
#define JOB_BATCH 16

static volatile sig_atomic_t stop;

static void
on_signal(int sig)
{
	if (sig == SIGUSR1)
		log_reopen_request();	/* logrotate moved the log file */
	else
		stop = 1;
}

/*
 * One line per job run: what, which attempt, how it ended; dur_us is the
 * batch's time shared out, batch how many jobs its transaction ran and
 * db_statements how many statements it sent to MariaDB (the whole batch's,
 * claim and commit included: the same on each of its lines).
 */
static void
log_job(const struct job *j, const char *err, int64_t t0, int batch, uint64_t statements)
{
	struct logline l;

	log_begin(&l, err[0] ? LOG_LVL_WARN : LOG_LVL_INFO, "job");
	log_str(&l, "job", j->kind);
	log_int(&l, "job_id", j->id);
	log_str(&l, "platform_id", j->platform_id);
	log_str(&l, "ref_id", j->ref_id);
	log_int(&l, "attempt", j->attempts + 1);
	log_str(&l, "outcome", err[0] ? "retry" : "done");
	if (err[0])
		log_str(&l, "error", err);
	log_int(&l, "batch", batch);
	log_int(&l, "dur_us", (now_us() - t0) / batch);
	log_int(&l, "db_statements", (int64_t)statements);
	log_end(&l);
}

static void
sleep_ms(int64_t ms)
{
	struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000L };

	/* A signal cuts the sleep short, which is what a stop wants. */
	nanosleep(&ts, NULL);
}

static void
usage(void)
{
	fprintf(stderr, "usage: xborder-worker -c config\n");
	exit(2);
}

/* -c config, the only option; the configuration's path. */
static const char *
parse_options(int argc, char *argv[])
{
	const char *path = NULL;
	int ch;

	while ((ch = getopt(argc, argv, "c:")) != -1) {
		if (ch == 'c')
			path = optarg;
		else
			usage();
	}
	if (path == NULL || optind != argc)
		usage();
	return path;
}

/* Reads the configuration and opens the log; -1 after saying why on stderr. */
static int
load_conf(struct conf *conf, const char *path)
{
	char err[1024];

	if (conf_load(conf, path, err, sizeof(err)) < 0) {
		fprintf(stderr, "xborder-worker: %s\n", err);
		return -1;
	}
	log_set_level(conf->log_level);
	if (log_open("xborder-worker", conf->log_file) < 0) {
		fprintf(stderr, "xborder-worker: log_file %s: %s\n", conf->log_file, strerror(errno));
		return -1;
	}
	return 0;
}

/* SIGTERM and SIGINT stop, SIGUSR1 reopens the log; SIGPIPE and SIGHUP do nothing. */
static void
set_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/*
 * Claims and runs one batch of due jobs in one transaction and logs a line
 * for each; returns how many ran, or a DB_ error (< 0).
 */
static int
run_batch(const struct conf *conf, struct db *db, const struct job_handler *handler)
{
	const struct db_shard shard = { conf->worker_shard, conf->worker_shards };
	struct job jobs[JOB_BATCH];
	char err[1024];
	uint64_t statements, db_us;
	int64_t t0;
	int rc;

	t0 = now_us();
	db_tally_take(&statements, &db_us);	/* the batch's own from here */
	rc = db_job_run(db, &shard, handler, jobs, JOB_BATCH, err, sizeof(err));
	db_tally_take(&statements, &db_us);
	for (int i = 0; i < rc; i++)
		log_job(&jobs[i], err, t0, rc, statements);
	return rc;
}

/* Expires the quotes past their time, at most every SWEEP_EVERY_MS. */
static void
sweep_quotes(struct db *db, int64_t *last_sweep)
{
	uint64_t n = 0;

	if (now_ms() - *last_sweep <= SWEEP_EVERY_MS)
		return;
	/* Readers expire quotes too; this covers nobody looking. */
	if (quotes_expire_due(db, NULL, &n) == DB_OK && n > 0)
		log_msg(LOG_LVL_INFO, NULL, "expired %llu quotes", (unsigned long long)n);
	*last_sweep = now_ms();
}

/*
 * Purges expired idempotency keys, old jobs and webhook events and closed
 * authentication failure counts, every PURGE_EVERY_MS, or PURGE_AGAIN_MS
 * while a purge leaves rows.
 */
static void
purge_old_rows(struct db *db, int64_t *last_purge)
{
	uint64_t n = 0;
	int more = 0;

	if (now_ms() - *last_purge <= PURGE_EVERY_MS)
		return;
	if (db_idem_purge(db, &n, &more) == DB_OK &&
	    db_auth_failures_purge(db, &n) == DB_OK && n > 0)
		log_msg(LOG_LVL_INFO, NULL, "purged %llu expired idempotency keys,"
		    " old jobs, old webhook events and closed authentication"
		    " failure counts%s", (unsigned long long)n,
		    more ? " (more to purge)" : "");
	/* Rows left: again in a second, not a minute. */
	*last_purge = now_ms() - (more ? PURGE_EVERY_MS - PURGE_AGAIN_MS : 0);
}

/*
 * Places the anchors of GET /transactions' deep pages (list_anchor_step),
 * every ANCHOR_EVERY_MS while idle, or again at once while it placed its
 * whole budget (a platform that grew by many steps catches up).
 */
static void
place_anchors(const struct conf *conf, struct db *db, int64_t *last_anchor)
{
	int placed = 0, rc;

	if (conf->list_anchor_step == 0 || now_ms() - *last_anchor <= ANCHOR_EVERY_MS)
		return;
	rc = db_txn_anchors_place(db, conf->list_anchor_step, conf->list_anchor_delay,
	    ANCHOR_BUDGET, &placed);
	if (rc != DB_OK)
		log_msg(LOG_LVL_WARN, NULL, "list anchors: database failure %d", rc);
	else if (placed > 0)
		log_msg(LOG_LVL_DEBUG, NULL, "list anchors: %d placed", placed);
	*last_anchor = rc == DB_OK && placed == ANCHOR_BUDGET ? 0 : now_ms();
}

static void
check_problem(void *arg, const char *check, const char *what, const char *id,
    const char *detail)
{
	struct logline l;

	(void)arg;
	log_begin(&l, LOG_LVL_ERROR, "invariant broken");
	log_str(&l, "check", check);
	log_str(&l, "what", what);
	log_str(&l, "id", id);
	log_str(&l, "detail", detail);
	log_end(&l);
}

static void
check_done(void *arg, const char *check, int problems, long examined)
{
	struct logline l;

	(void)arg;
	(void)examined;
	if (problems == 0)
		return;
	log_begin(&l, LOG_LVL_ERROR, "invariant check failed");
	log_str(&l, "check", check);
	log_int(&l, "problems", problems);
	log_end(&l);
}

/*
 * What one run of the invariant checks covers at most: a short run between
 * two batches of jobs.  A run that stopped there leaves the rest to the
 * next: the regular one, or, while the worker is idle, one a second later.
 */
#define CHECK_ENTRIES 5000
#define CHECK_EVENTS 2000
#define CHECK_AGAIN_MS 1000

/*
 * Checks the ledger's invariants over what changed since the last run,
 * every conf->invariant_interval seconds (0: never), busy or idle; and,
 * while the last run stopped at its bounds and the worker has nothing else
 * to do (idle), every CHECK_AGAIN_MS, in runs that leave the checks of
 * whole platforms to the regular one.  Under a sustained load the checks
 * fall behind at a bounded cost and catch up when it eases.
 */
static void
check_invariants(const struct conf *conf, struct db *db, int idle, int64_t *last_check)
{
	static const struct check_sink sink = { check_problem, check_done, NULL };
	static int behind;
	struct check_limits lim = { CHECK_ENTRIES, CHECK_EVENTS, conf->invariant_lag, 0 };
	struct check_summary sum;
	int64_t since = now_ms() - *last_check;
	int rc;

	if (conf->invariant_interval == 0)
		return;
	if (since <= conf->invariant_interval * 1000 &&
	    !(behind && idle && since >= CHECK_AGAIN_MS))
		return;
	lim.catching_up = since <= conf->invariant_interval * 1000;
	*last_check = now_ms();
	if ((rc = db_checks_recent(db, &lim, &sink, &sum)) != DB_OK)
		log_msg(LOG_LVL_WARN, NULL, "invariant checks: database failure %d", rc);
	else if (sum.problems == 0)
		log_msg(LOG_LVL_DEBUG, NULL, "invariant checks: ok, %lld entries and events",
		    (long long)sum.examined);
	behind = rc == DB_OK && sum.behind;
}

/*
 * The worker's loop until SIGTERM or SIGINT: webhook deliveries, then due
 * jobs batch after batch; when none is due, the sweeps and a short wait.
 * Returns how many jobs ran.
 */
static uint64_t
run_jobs(const struct conf *conf, struct deliveries *hooks, const struct job_handler *handler)
{
	const struct db_shard shard = { conf->worker_shard, conf->worker_shards };
	int64_t last_purge = 0, last_sweep = 0, last_check = 0, last_beat = 0, last_anchor = 0;
	int64_t backoff = IDLE_SLEEP_MS;
	uint64_t done = 0;

	while (!stop) {
		struct db *db;
		int rc;

		db_work_begin();
		db = db_handle(conf);
		if (db == NULL) {
			/* The database is away: wait, longer each time, up to 5 s. */
			sleep_ms(backoff);
			backoff = backoff < 5000 ? backoff * 2 : 5000;
			continue;
		}
		backoff = IDLE_SLEEP_MS;
		/* Alive: this worker's share is its own (db_worker_beat). */
		if (now_ms() - last_beat >= BEAT_EVERY_MS) {
			char node[300];

			db_node_name(conf, db, node, sizeof(node));
			if (db_worker_beat(db, &shard, node) == DB_OK)
				last_beat = now_ms();
			else
				log_msg(LOG_LVL_WARN, NULL, "worker heartbeat not recorded");
		}
		/* Busy or idle: its time comes once a minute. */
		check_invariants(conf, db, 0, &last_check);
		deliver_pump(hooks, db, 1);
		rc = run_batch(conf, db, handler);
		if (rc < 0) {
			log_msg(LOG_LVL_ERROR, NULL, "job loop: database failure %d", rc);
			db_handle_reset();
			sleep_ms(IDLE_SLEEP_MS);
			continue;
		}
		if (rc > 0) {
			done += (uint64_t)rc;
			continue;	/* more may be due: no sleep */
		}
		sweep_quotes(db, &last_sweep);
		purge_old_rows(db, &last_purge);
		place_anchors(conf, db, &last_anchor);
		check_invariants(conf, db, 1, &last_check);
		deliver_wait(hooks, IDLE_SLEEP_MS);
	}
	return done;
}

/* The deliveries in flight end within their timeout: record them. */
static void
finish_deliveries(const struct conf *conf, struct deliveries *hooks)
{
	int64_t t0 = now_ms();
	struct db *db;

	while (now_ms() - t0 < WH_TIMEOUT_MS + 1000 && (db = db_handle(conf)) != NULL &&
	    deliver_pump(hooks, db, 0) > 0)
		deliver_wait(hooks, 100);
}

int
main(int argc, char *argv[])
{
	struct conf conf;
	struct deliveries *hooks;
	struct job_handler handler;
	uint64_t done;

	if (load_conf(&conf, parse_options(argc, argv)) < 0)
		return 1;
	set_signals();
	log_msg(LOG_LVL_INFO, NULL, "xborder-worker %s started", PACKAGE_VERSION);
#ifdef HAVE_LIBSYSTEMD
	sd_notify(0, "READY=1");
#endif
	/* Its own txn_counts rows, which no xborder-fcgi worker's batch waits on. */
	db_set_count_shard(DB_COUNT_SHARDS - 1);
	hooks = deliver_new(&conf);
	settle_handler(&handler);
	done = run_jobs(&conf, hooks, &handler);
	finish_deliveries(&conf, hooks);
	deliver_free(hooks);
#ifdef HAVE_LIBSYSTEMD
	sd_notify(0, "STOPPING=1");
#endif
	log_msg(LOG_LVL_INFO, NULL, "xborder-worker stopped after %llu jobs (%llu retried transactions)",
	    (unsigned long long)done, (unsigned long long)db_retries());
	db_handle_reset();
	conf_free(&conf);
	return 0;
}
