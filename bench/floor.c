/*
 * bench/floor.c: the floor of the benchmark (bench/run).
 *
 * The least a FastCGI responder in C can do per request and still talk to
 * the database: a prefork master with N single-threaded workers, each with
 * one MariaDB connection and one prepared primary-key select
 *
 *	SELECT id, name, created_at FROM platforms WHERE id = ?
 *
 * whose row it prints as JSON.  bench/run builds it, starts it on a unix
 * socket of the bench stack, and nginx serves it at /floor next to
 * xborder-fcgi, so every run measures the service against this floor on
 * the same machine in the same minute.  It is compared, never shipped: no
 * authentication, no routing, no logging beyond startup errors.
 *
 * usage: floor -c XBORDER_CONF -s SOCKET -n WORKERS -p PLATFORM_ID
 * The database socket, user, password and name come from xborder.conf.
 * SIGTERM to the master stops the workers and the master.
 */

#include <err.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcgiapp.h>
#include <mysql.h>

#define MAX_WORKERS	256

/* The database settings read from xborder.conf. */
struct dbconf {
	char	socket[512];
	char	user[128];
	char	password[256];
	char	name[128];
};

/* One worker's connection and statement (NULL until connected). */
struct conn {
	MYSQL		*my;
	MYSQL_STMT	*stmt;
};

static const char SQL[] =
    "SELECT id, name, created_at FROM platforms WHERE id = ?";

static volatile sig_atomic_t stop;

static void
on_term(int sig)
{
	(void)sig;
	stop = 1;
}

/* trim: strips leading and trailing blanks of s in place; returns it. */
static char *
trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' ||
	    e[-1] == '\r'))
		*--e = '\0';
	return s;
}

/*
 * read_conf: the db_* keys of xborder.conf (key = value lines, # comments).
 * Exits on a missing file or key: a startup error.
 */
static void
read_conf(const char *path, struct dbconf *c)
{
	char line[1024], *k, *v, *eq;
	FILE *f;

	memset(c, 0, sizeof(*c));
	if ((f = fopen(path, "r")) == NULL)
		err(1, "%s", path);
	while (fgets(line, sizeof(line), f) != NULL) {
		k = trim(line);
		if (*k == '#' || (eq = strchr(k, '=')) == NULL)
			continue;
		*eq = '\0';
		k = trim(k);
		v = trim(eq + 1);
		if (strcmp(k, "db_socket") == 0)
			snprintf(c->socket, sizeof(c->socket), "%s", v);
		else if (strcmp(k, "db_user") == 0)
			snprintf(c->user, sizeof(c->user), "%s", v);
		else if (strcmp(k, "db_password") == 0)
			snprintf(c->password, sizeof(c->password), "%s", v);
		else if (strcmp(k, "db_name") == 0)
			snprintf(c->name, sizeof(c->name), "%s", v);
	}
	fclose(f);
	if (c->socket[0] == '\0' || c->user[0] == '\0' || c->name[0] == '\0')
		errx(1, "%s: needs db_socket, db_user and db_name", path);
}

/* conn_close: drops the statement and the connection (either may be NULL). */
static void
conn_close(struct conn *cn)
{
	if (cn->stmt != NULL)
		mysql_stmt_close(cn->stmt);
	if (cn->my != NULL)
		mysql_close(cn->my);
	cn->stmt = NULL;
	cn->my = NULL;
}

/*
 * conn_open: connects and prepares the select.  Returns 0, or -1 with
 * nothing open (the request is answered 503 and the next one retries).
 */
static int
conn_open(struct conn *cn, const struct dbconf *c)
{
	if ((cn->my = mysql_init(NULL)) == NULL)
		return -1;
	if (mysql_real_connect(cn->my, NULL, c->user, c->password, c->name, 0,
	    c->socket, 0) == NULL ||
	    (cn->stmt = mysql_stmt_init(cn->my)) == NULL ||
	    mysql_stmt_prepare(cn->stmt, SQL, sizeof(SQL) - 1) != 0) {
		warnx("database: %s", mysql_error(cn->my));
		conn_close(cn);
		return -1;
	}
	return 0;
}

/*
 * json_str: writes s as a JSON string to the stream (quotes, backslashes
 * and control characters escaped).
 */
static void
json_str(FCGX_Stream *out, const char *s)
{
	FCGX_PutChar('"', out);
	for (; *s != '\0'; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			FCGX_FPrintF(out, "\\%c", ch);
		else if (ch < 0x20)
			FCGX_FPrintF(out, "\\u%04x", ch);
		else
			FCGX_PutChar(ch, out);
	}
	FCGX_PutChar('"', out);
}

/*
 * lookup: runs the prepared select for id and writes the row as the
 * response (200, or 404 when there is none).  Returns -1 on a database
 * error, having written nothing.
 */
static int
lookup(struct conn *cn, const char *id, FCGX_Stream *out)
{
	char rid[40], name[512], created[32];
	unsigned long idlen = strlen(id), lens[3];
	MYSQL_BIND param, res[3];
	int rc;

	memset(&param, 0, sizeof(param));
	param.buffer_type = MYSQL_TYPE_STRING;
	param.buffer = (void *)id;
	param.buffer_length = idlen;
	param.length = &idlen;

	/* Every column as a string: the JSON wants text anyway. */
	memset(res, 0, sizeof(res));
	res[0].buffer_type = res[1].buffer_type = res[2].buffer_type = MYSQL_TYPE_STRING;
	res[0].buffer = rid;
	res[0].buffer_length = sizeof(rid);
	res[1].buffer = name;
	res[1].buffer_length = sizeof(name);
	res[2].buffer = created;
	res[2].buffer_length = sizeof(created);
	res[0].length = &lens[0];
	res[1].length = &lens[1];
	res[2].length = &lens[2];

	if (mysql_stmt_bind_param(cn->stmt, &param) != 0 ||
	    mysql_stmt_execute(cn->stmt) != 0 ||
	    mysql_stmt_bind_result(cn->stmt, res) != 0)
		return -1;
	rc = mysql_stmt_fetch(cn->stmt);
	/* A name longer than the buffer is cut (MYSQL_DATA_TRUNCATED): fine here. */
	if (rc == 0 || rc == MYSQL_DATA_TRUNCATED) {
		rid[sizeof(rid) - 1] = name[sizeof(name) - 1] = '\0';
		created[sizeof(created) - 1] = '\0';
		FCGX_FPrintF(out, "Status: 200 OK\r\nContent-Type: application/json\r\n"
		    "Cache-Control: no-store\r\n\r\n{\"id\":");
		json_str(out, rid);
		FCGX_FPrintF(out, ",\"name\":");
		json_str(out, name);
		FCGX_FPrintF(out, ",\"createdAt\":");
		json_str(out, created);
		FCGX_FPrintF(out, "}\n");
	} else if (rc == MYSQL_NO_DATA) {
		FCGX_FPrintF(out, "Status: 404 Not Found\r\nContent-Type: application/json\r\n"
		    "\r\n{\"status\":404,\"code\":\"NOT_FOUND\"}\n");
	} else {
		mysql_stmt_free_result(cn->stmt);
		return -1;
	}
	/* Drain the rest (none: a primary key) so the statement can run again. */
	while (rc == 0 || rc == MYSQL_DATA_TRUNCATED)
		rc = mysql_stmt_fetch(cn->stmt);
	mysql_stmt_free_result(cn->stmt);
	return 0;
}

/* worker: accepts requests on the listening socket until it is killed. */
static void
worker(int fd, const struct dbconf *c, const char *platform)
{
	struct conn cn = { NULL, NULL };
	FCGX_Request r;
	char drain[4096];

	/*
	 * SIGTERM ends a worker at once (nothing to finish), and a master
	 * that dies, even by SIGKILL, takes its workers along.
	 */
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() == 1)
		_exit(0);
	if (FCGX_InitRequest(&r, fd, 0) != 0)
		errx(1, "FCGX_InitRequest failed");
	while (FCGX_Accept_r(&r) >= 0) {
		if (cn.my == NULL)
			(void)conn_open(&cn, c);
		if (cn.my == NULL || lookup(&cn, platform, r.out) < 0) {
			/* Reconnect on the next request. */
			conn_close(&cn);
			FCGX_FPrintF(r.out, "Status: 503 Service Unavailable\r\n"
			    "Content-Type: application/json\r\n\r\n"
			    "{\"status\":503,\"code\":\"SERVICE_UNAVAILABLE\"}\n");
		}
		/*
		 * As xborder-fcgi does: the input read to its end, the
		 * connection is closed at once, not shut down and waited on.
		 */
		while (FCGX_GetStr(drain, sizeof(drain), r.in) > 0)
			;
		FCGX_Detach(&r);
		FCGX_Finish_r(&r);
	}
	conn_close(&cn);
	_exit(0);
}

int
main(int argc, char **argv)
{
	const char *confpath = NULL, *sock = NULL, *platform = NULL;
	pid_t pids[MAX_WORKERS];
	struct sigaction sa;
	struct dbconf c;
	int ch, n = 0, i, fd;

	while ((ch = getopt(argc, argv, "c:s:n:p:")) != -1) {
		switch (ch) {
		case 'c': confpath = optarg; break;
		case 's': sock = optarg; break;
		case 'n': n = atoi(optarg); break;
		case 'p': platform = optarg; break;
		default: goto usage;
		}
	}
	if (confpath == NULL || sock == NULL || platform == NULL ||
	    n < 1 || n > MAX_WORKERS)
		goto usage;
	read_conf(confpath, &c);
	if (mysql_library_init(0, NULL, NULL) != 0)
		errx(1, "mysql_library_init failed");
	if (FCGX_Init() != 0)
		errx(1, "FCGX_Init failed");

	/* The socket is opened once; every worker accepts on it. */
	unlink(sock);
	if ((fd = FCGX_OpenSocket(sock, 128)) < 0)
		errx(1, "cannot listen on %s", sock);
	if (chmod(sock, 0666) < 0)
		err(1, "chmod %s", sock);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_term;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	for (i = 0; i < n; i++) {
		if ((pids[i] = fork()) < 0)
			err(1, "fork");
		if (pids[i] == 0)
			worker(fd, &c, platform);
	}
	/* No restarts: a worker that dies is a failed benchmark, seen as errors. */
	while (!stop && wait(NULL) > 0)
		;
	for (i = 0; i < n; i++)
		kill(pids[i], SIGTERM);
	while (wait(NULL) > 0)
		;
	unlink(sock);
	return 0;
usage:
	fprintf(stderr, "usage: floor -c XBORDER_CONF -s SOCKET -n WORKERS -p PLATFORM_ID\n");
	return 2;
}
