/*
 * xborder-fcgi: the prefork FastCGI server.
 *
 * The master reads the configuration, opens the listening socket (or takes
 * it from systemd socket activation), forks `workers` children and then
 * only supervises: it respawns a child that dies (backing off when children
 * die young, so a broken database or binary does not make it spin),
 * replaces a child that exits after max_requests, stops gracefully on
 * SIGTERM/SIGINT (children finish their in-flight request) and on SIGHUP
 * re-reads the configuration and rolls the children.
 *
 * A worker is single-threaded: wait for a connection, FCGX_Accept_r,
 * req_dispatch, repeat.  Its signals (SIGTERM, SIGINT, SIGUSR1) are blocked
 * except while it waits for a connection (epoll_pwait on the listening
 * socket), so one told to stop is woken there and exits, and one with a
 * connection serves it first.  libfcgi's accept waits up to 2 s for a new
 * connection's first bytes and drops the connection when that wait is
 * interrupted; with the signals unblocked there, a worker rolled by SIGHUP
 * in that moment lost a request (nginx's 502).  Each worker watches the
 * listening socket in an epoll set of its own with EPOLLEXCLUSIVE, so a
 * new connection wakes one waiting worker, not all of them (as a blocking
 * accept would; a poll wakes every worker waiting): the first in line.  A
 * worker that finds no connection waiting goes to the end of the line
 * before it sleeps (join_line), so idle workers take connections in turn.
 * The socket is non-blocking: a worker that finds the connection already
 * taken by one that came back from a request waits again.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <fcgiapp.h>
#ifdef HAVE_LIBSYSTEMD
#include <systemd/sd-daemon.h>
#endif

#include "xborder/conf.h"
#include "xborder/gate.h"
#include "xborder/db.h"
#include "xborder/http.h"
#include "xborder/req.h"
#include "xborder/stats.h"
#include "xborder/util.h"

#define MAX_WORKERS 256
#define STOP_TIMEOUT_MS 30000

struct child {
	pid_t		pid;
	unsigned	generation;
	int64_t		started_ms;
};

static volatile sig_atomic_t got_stop, got_hup, got_chld, got_usr1;
static int listen_fd = -1;
static struct child children[MAX_WORKERS * 2];
static unsigned generation;

static void
notify(const char *state)
{
#ifdef HAVE_LIBSYSTEMD
	sd_notify(0, state);
#else
	(void)state;
#endif
}

/* ---- worker ---- */

static void
worker_on_term(int sig)
{
	(void)sig;
	got_stop = 1;
}

/* logrotate moved the log file: the next line goes to a fresh one. */
static void
worker_on_usr1(int sig)
{
	(void)sig;
	log_reopen_request();
}

/*
 * Puts this worker at the end of the line of workers waiting for a
 * connection: a connection wakes the first waiting worker in line
 * (EPOLLEXCLUSIVE), and the listening socket keeps its waiters in the
 * order they joined.  Exits when the socket cannot be watched: the master
 * starts another worker.
 */
static void
join_line(int ep, int first)
{
	struct epoll_event ready = { .events = EPOLLIN | EPOLLEXCLUSIVE };

	if ((!first && epoll_ctl(ep, EPOLL_CTL_DEL, listen_fd, NULL) < 0) ||
	    epoll_ctl(ep, EPOLL_CTL_ADD, listen_fd, &ready) < 0) {
		log_msg(LOG_LVL_ERROR, NULL, "epoll_ctl: %s", strerror(errno));
		exit(1);
	}
}

static void __attribute__((noreturn))
worker_main(const struct conf *conf, size_t slot)
{
	struct sigaction sa;
	FCGX_Request fr;
	uint64_t served = 0;
	sigset_t none, blocked;
	int ep;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = worker_on_term;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sa.sa_handler = worker_on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGPIPE, &sa, NULL);
	sa.sa_handler = SIG_DFL;
	sigaction(SIGCHLD, &sa, NULL);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	sigemptyset(&none);
	sigemptyset(&blocked);
	sigaddset(&blocked, SIGTERM);
	sigaddset(&blocked, SIGINT);
	sigaddset(&blocked, SIGUSR1);
	sigprocmask(SIG_SETMASK, &blocked, NULL);
	if (getppid() == 1)
		_exit(0);
	stats_use_slot(slot);
	db_set_count_shard((int)(slot % (DB_COUNT_SHARDS - 1)));

	if ((ep = epoll_create1(EPOLL_CLOEXEC)) < 0) {
		log_msg(LOG_LVL_ERROR, NULL, "epoll_create1: %s", strerror(errno));
		exit(1);
	}
	join_line(ep, 1);
	FCGX_InitRequest(&fr, listen_fd, FCGI_FAIL_ACCEPT_ON_INTR);
	while (!got_stop && (conf->max_requests == 0 || served < conf->max_requests)) {
		struct epoll_event ev;
		struct req req;
		int rc;

		/*
		 * The only place the worker's signals are delivered.  A
		 * connection waiting is taken at once; with none, the worker
		 * goes to the end of the line before it sleeps, so the idle
		 * workers take connections in turn and requests sent one after
		 * another reach every worker.
		 */
		if ((rc = epoll_pwait(ep, &ev, 1, 0, &none)) == 0) {
			join_line(ep, 0);
			rc = epoll_pwait(ep, &ev, 1, -1, &none);
		}
		if (rc < 0)
			continue;	/* EINTR: got_stop, or a log to reopen */
		if ((rc = FCGX_Accept_r(&fr)) == -EAGAIN || rc == -EWOULDBLOCK)
			continue;	/* another worker took the connection */
		if (rc < 0)
			break;
		req_init(&req, &fr, conf);
		db_work_begin();
		req_dispatch(&req);
		/*
		 * With the request's input read to its end, the connection is
		 * closed at once (FCGX_Detach): libfcgi would otherwise shut
		 * it down and wait for nginx to close its side (poll, read)
		 * before this worker can accept again, a guard against input
		 * left unread, which a close answers with a reset.
		 */
		http_drain(&req);
		FCGX_Detach(&fr);
		req_free(&req);
		FCGX_Finish_r(&fr);
		served++;
	}
	FCGX_Free(&fr, 1);
	db_handle_reset();
	log_msg(LOG_LVL_DEBUG, NULL, "worker exits after %llu requests",
	    (unsigned long long)served);
	exit(0);
}

/* ---- master ---- */

static void
master_on_signal(int sig)
{
	if (sig == SIGTERM || sig == SIGINT)
		got_stop = 1;
	else if (sig == SIGHUP)
		got_hup = 1;
	else if (sig == SIGCHLD)
		got_chld = 1;
	else if (sig == SIGUSR1)
		got_usr1 = 1;
}

static int
spawn(const struct conf *conf)
{
	size_t slot = sizeof(children) / sizeof(children[0]);
	pid_t pid;

	for (size_t i = 0; i < sizeof(children) / sizeof(children[0]); i++)
		if (children[i].pid == 0) {
			slot = i;
			break;
		}
	if (slot == sizeof(children) / sizeof(children[0]))
		return -1;	/* old workers still finishing: try later */
	if ((pid = fork()) < 0) {
		log_msg(LOG_LVL_ERROR, NULL, "fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0)
		worker_main(conf, slot);
	stats_add_to(slot, STAT_WORKER_STARTS, 1);
	children[slot].pid = pid;
	children[slot].generation = generation;
	children[slot].started_ms = now_ms();
	return 0;
}

static unsigned
current_children(void)
{
	unsigned n = 0;

	for (size_t i = 0; i < sizeof(children) / sizeof(children[0]); i++)
		if (children[i].pid != 0 && children[i].generation == generation)
			n++;
	return n;
}

static unsigned
live_children(void)
{
	unsigned n = 0;

	for (size_t i = 0; i < sizeof(children) / sizeof(children[0]); i++)
		n += children[i].pid != 0;
	return n;
}

static void
signal_children(int sig, int old_only)
{
	for (size_t i = 0; i < sizeof(children) / sizeof(children[0]); i++)
		if (children[i].pid != 0 &&
		    (!old_only || children[i].generation != generation))
			kill(children[i].pid, sig);
}

/*
 * Reaps exited children.  Returns how long to wait before spawning again:
 * 0, or a growing delay while children keep dying young or abnormally.
 */
static int64_t
reap(int64_t *backoff_ms)
{
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		for (size_t i = 0; i < sizeof(children) / sizeof(children[0]); i++) {
			if (children[i].pid != pid)
				continue;
			children[i].pid = 0;
			stats_slot_left(i);
			if (WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) != 0)) {
				stats_add_to(i, STAT_WORKER_DEATHS, 1);
				log_msg(LOG_LVL_WARN, NULL, "worker %d died (%s %d)", (int)pid,
				    WIFSIGNALED(status) ? "signal" : "status",
				    WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
				if (now_ms() - children[i].started_ms < 1000)
					*backoff_ms = *backoff_ms ? *backoff_ms * 2 : 100;
				if (*backoff_ms > 5000)
					*backoff_ms = 5000;
			} else if (now_ms() - children[i].started_ms > 1000)
				*backoff_ms = 0;
		}
	}
	return *backoff_ms;
}

static int
open_listener(const struct conf *conf)
{
	const char *lp = getenv("LISTEN_PID"), *lf = getenv("LISTEN_FDS");
	int fd;

	if (lp != NULL && lf != NULL && atoi(lp) == (int)getpid() && atoi(lf) >= 1) {
		unsetenv("LISTEN_PID");
		unsetenv("LISTEN_FDS");
		unsetenv("LISTEN_FDNAMES");
		return 3;
	}
	if (strncmp(conf->listen, "unix:", 5) == 0) {
		const char *path = conf->listen + 5;

		unlink(path);
		if ((fd = FCGX_OpenSocket(path, 128)) < 0)
			return -1;
		if (chmod(path, conf->socket_mode) < 0)
			log_msg(LOG_LVL_WARN, NULL, "chmod %s: %s", path, strerror(errno));
		return fd;
	}
	return FCGX_OpenSocket(conf->listen, 128);
}

static void
usage(void)
{
	fprintf(stderr, "usage: xborder-fcgi -c config [-t]\n");
	exit(2);
}

/* -c config and -t (check the configuration only); the configuration's path. */
static const char *
parse_options(int argc, char *argv[], int *test_only)
{
	const char *path = NULL;
	int ch;

	*test_only = 0;
	while ((ch = getopt(argc, argv, "c:t")) != -1) {
		switch (ch) {
		case 'c':
			path = optarg;
			break;
		case 't':
			*test_only = 1;
			break;
		default:
			usage();
		}
	}
	if (path == NULL || optind != argc)
		usage();
	return path;
}

/*
 * Reads the configuration and refuses one without a fingerprint key; -1
 * (after saying why on stderr) when the program must exit with 1.
 */
static int
load_conf(struct conf *conf, const char *path)
{
	char err[1024];

	if (conf_load(conf, path, err, sizeof(err)) < 0) {
		fprintf(stderr, "xborder-fcgi: %s\n", err);
		return -1;
	}
	if (!conf->has_fingerprint_key) {
		fprintf(stderr, "xborder-fcgi: %s: fingerprint_key must be set "
		    "(64 hexadecimal characters, e.g. from `openssl rand -hex 32`)\n", path);
		conf_free(conf);
		return -1;
	}
	return 0;
}

/*
 * The start-up steps whose failure ends the program: the log, libfcgi, the
 * listening socket (*from_systemd says whether systemd passed it), the gate
 * and the shared counters (which only warn).  -1 after saying why on stderr.
 */
static int
open_resources(const struct conf *conf, int *from_systemd)
{
	int fl;

	log_set_level(conf->log_level);
	if (log_open("xborder-fcgi", conf->log_file) < 0) {
		fprintf(stderr, "xborder-fcgi: log_file %s: %s\n", conf->log_file, strerror(errno));
		return -1;
	}
	if (FCGX_Init() != 0) {
		fprintf(stderr, "xborder-fcgi: FCGX_Init failed\n");
		return -1;
	}
	*from_systemd = getenv("LISTEN_FDS") != NULL;
	if ((listen_fd = open_listener(conf)) < 0 || (fl = fcntl(listen_fd, F_GETFL)) < 0 ||
	    fcntl(listen_fd, F_SETFL, fl | O_NONBLOCK) < 0) {
		fprintf(stderr, "xborder-fcgi: cannot listen on %s: %s\n", conf->listen,
		    strerror(errno));
		return -1;
	}

	/* Places for slow calls (POST /webhooks/test), shared by every worker. */
	if (gate_create(sizeof(children) / sizeof(children[0])) < 0) {
		fprintf(stderr, "xborder-fcgi: gate: %s\n", strerror(errno));
		return -1;
	}
	if (stats_create(conf->stats_file, sizeof(children) / sizeof(children[0])) < 0)
		log_msg(LOG_LVL_WARN, NULL, "stats_file %s: %s (no counters)", conf->stats_file,
		    strerror(errno));
	return 0;
}

/* Signals are blocked except inside ppoll() (supervise), so none is lost. */
static void
master_signals(void)
{
	struct sigaction sa;
	sigset_t block;

	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGCHLD);
	sigaddset(&block, SIGUSR1);
	sigprocmask(SIG_BLOCK, &block, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = master_on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGCHLD, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
}

/* Forks workers of the current generation until there are conf->workers. */
static void
spawn_missing(const struct conf *conf)
{
	while (current_children() < conf->workers && spawn(conf) == 0)
		;
}

/*
 * SIGHUP: re-reads the configuration (a bad one is refused and the old one
 * kept) and rolls the workers: new ones start now, old ones finish their
 * request and leave.
 */
static void
reload(struct conf *conf, const char *path)
{
	struct conf fresh;
	char err[1024];

	notify("RELOADING=1");
	if (conf_load(&fresh, path, err, sizeof(err)) < 0) {
		log_msg(LOG_LVL_ERROR, NULL, "reload refused: %s", err);
		conf_free(&fresh);
	} else {
		if (strcmp(fresh.listen, conf->listen) != 0 ||
		    strcmp(fresh.stats_file, conf->stats_file) != 0)
			log_msg(LOG_LVL_WARN, NULL, "listen and stats_file"
			    " changes take effect at the next start");
		conf_free(conf);
		*conf = fresh;
		log_set_level(conf->log_level);
		if (log_open("xborder-fcgi", conf->log_file) < 0)
			log_msg(LOG_LVL_ERROR, NULL, "log_file %s: %s (logging to stderr)",
			    conf->log_file, strerror(errno));
		generation++;
		log_msg(LOG_LVL_INFO, NULL, "reloading: rolling the workers");
	}
	/* New workers start now; old ones finish and leave. */
	spawn_missing(conf);
	signal_children(SIGTERM, 1);
	notify("READY=1");
}

/*
 * The master's loop: wakes on a signal or every 200 ms, reaps and respawns
 * workers, reloads on SIGHUP, and on SIGTERM/SIGINT waits for the workers
 * to finish (killing them after STOP_TIMEOUT_MS).  Returns when none is left.
 */
static void
supervise(struct conf *conf, const char *path)
{
	int64_t backoff = 0, next_spawn = 0, stop_deadline = 0;
	sigset_t none;

	sigemptyset(&none);
	for (;;) {
		struct timespec ts = { 0, 200 * 1000 * 1000 };
		int64_t now;

		ppoll(NULL, 0, &ts, &none);
		now = now_ms();
		if (got_usr1) {
			/* logrotate moved the file: reopen ours, then the workers'. */
			got_usr1 = 0;
			log_reopen_request();
			log_msg(LOG_LVL_INFO, NULL, "log file reopened");
			signal_children(SIGUSR1, 0);
		}
		if (got_chld) {
			got_chld = 0;
			if (reap(&backoff) > 0)
				next_spawn = now + backoff;
		}
		if (got_stop && stop_deadline == 0) {
			notify("STOPPING=1");
			log_msg(LOG_LVL_INFO, NULL, "stopping: waiting for in-flight requests");
			signal_children(SIGTERM, 0);
			stop_deadline = now + STOP_TIMEOUT_MS;
		}
		if (stop_deadline != 0) {
			if (live_children() == 0)
				break;
			if (now > stop_deadline) {
				log_msg(LOG_LVL_WARN, NULL, "workers did not stop in time; killing");
				signal_children(SIGKILL, 0);
				stop_deadline = now + 1000000;
			}
			continue;
		}
		if (got_hup) {
			got_hup = 0;
			reload(conf, path);
		}
		if (now >= next_spawn)
			spawn_missing(conf);
	}
}

int
main(int argc, char *argv[])
{
	struct conf conf;
	const char *path;
	int test_only, from_systemd;

	path = parse_options(argc, argv, &test_only);
	if (load_conf(&conf, path) < 0)
		return 1;
	if (test_only) {
		printf("%s: configuration ok\n", path);
		conf_free(&conf);
		return 0;
	}
	if (open_resources(&conf, &from_systemd) < 0)
		return 1;
	master_signals();

	log_msg(LOG_LVL_INFO, NULL, "xborder-fcgi %s listening on %s with %u workers",
	    PACKAGE_VERSION, from_systemd ? "systemd socket" : conf.listen, conf.workers);
	spawn_missing(&conf);
	notify("READY=1");
	supervise(&conf, path);

	if (!from_systemd && strncmp(conf.listen, "unix:", 5) == 0)
		unlink(conf.listen + 5);
	log_msg(LOG_LVL_INFO, NULL, "stopped");
	conf_free(&conf);
	return 0;
}
