/*
 * log.c: the logfmt logger (see log.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "xborder/ids.h"
#include "xborder/log.h"

static enum log_level threshold = LOG_LVL_INFO;
static const char *const level_names[] = { "error", "warn", "info", "debug" };
/* syslog priorities: err, warning, info, debug */
static const char level_prio[] = { '3', '4', '6', '7' };

static char prog_name[32] = "xborder";
static char *file_path;			/* NULL: stderr */
static int out_fd = STDERR_FILENO;
static int journal;			/* stderr is the journal's stream */
static volatile sig_atomic_t reopen_wanted;

/* 1 when JOURNAL_STREAM names the file stderr is. */
static int
stderr_is_journal(void)
{
	const char *v = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	if (v == NULL || sscanf(v, "%llu:%llu", &dev, &ino) != 2 ||
	    fstat(STDERR_FILENO, &st) < 0)
		return 0;
	return (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

static int
open_file(const char *path)
{
	return open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY, 0640);
}

int
log_open(const char *prog, const char *path)
{
	int fd;

	if (prog != NULL)
		snprintf(prog_name, sizeof(prog_name), "%s", prog);
	free(file_path);
	file_path = NULL;
	if (out_fd != STDERR_FILENO)
		close(out_fd);
	out_fd = STDERR_FILENO;
	journal = 0;
	if (path == NULL || path[0] == '\0') {
		journal = stderr_is_journal();
		return 0;
	}
	if ((fd = open_file(path)) < 0)
		return -1;
	out_fd = fd;
	file_path = strdup(path);
	return 0;
}

void
log_reopen_request(void)
{
	reopen_wanted = 1;
}

/* Reopens the log file (after logrotate moved it); keeps the old on failure. */
static void
reopen(void)
{
	int fd;

	reopen_wanted = 0;
	if (file_path == NULL || (fd = open_file(file_path)) < 0)
		return;
	close(out_fd);
	out_fd = fd;
}

void
log_set_level(enum log_level lvl)
{
	threshold = lvl;
}

int
log_parse_level(const char *s, enum log_level *out)
{
	for (size_t i = 0; i < sizeof(level_names) / sizeof(level_names[0]); i++)
		if (strcmp(s, level_names[i]) == 0) {
			*out = (enum log_level)i;
			return 0;
		}
	return -1;
}

int
log_enabled(enum log_level lvl)
{
	return lvl <= threshold;
}

/* 1 when v can stand unquoted: printable ASCII without space, '"', '=' or '\'. */
static int
bare(const char *v)
{
	if (*v == '\0')
		return 0;
	for (const unsigned char *p = (const unsigned char *)v; *p; p++)
		if (*p <= ' ' || *p >= 0x7f || *p == '"' || *p == '=' || *p == '\\')
			return 0;
	return 1;
}

size_t
log_quote(char *out, size_t outlen, const char *v)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = 0;

#define PUT(c) do { if (n + 1 < outlen) out[n] = (c); n++; } while (0)
	if (outlen == 0)
		return 0;
	if (bare(v)) {
		for (const char *p = v; *p; p++)
			PUT(*p);
	} else {
		PUT('"');
		for (const unsigned char *p = (const unsigned char *)v; *p; p++) {
			if (*p == '"' || *p == '\\') {
				PUT('\\');
				PUT((char)*p);
			} else if (*p == '\n') {
				PUT('\\');
				PUT('n');
			} else if (*p == '\t') {
				PUT('\\');
				PUT('t');
			} else if (*p < ' ' || *p >= 0x7f) {
				/* Control characters and non-ASCII bytes, visibly. */
				PUT('\\');
				PUT('x');
				PUT(hex[*p >> 4]);
				PUT(hex[*p & 15]);
			} else
				PUT((char)*p);
		}
		PUT('"');
	}
#undef PUT
	if (n >= outlen) {
		out[0] = '\0';	/* did not fit: nothing rather than half a value */
		return 0;
	}
	out[n] = '\0';
	return n;
}

/* Appends " key=value" when it fits whole; counts it dropped if not. */
static void
append(struct logline *l, const char *key, const char *val)
{
	size_t sp = l->len > 0, k = strlen(key), room, n;

	/* room for the space, the key, '=' and the value with its NUL */
	room = sizeof(l->buf) - l->len;
	if (sp + k + 3 > room) {
		l->dropped++;
		return;
	}
	n = log_quote(l->buf + l->len + sp + k + 1, room - sp - k - 1, val[0] ? val : "-");
	if (n == 0) {
		l->buf[l->len] = '\0';
		l->dropped++;
		return;
	}
	if (sp)
		l->buf[l->len] = ' ';
	memcpy(l->buf + l->len + sp, key, k);
	l->buf[l->len + sp + k] = '=';
	l->len += sp + k + 1 + n;
}

void
log_begin(struct logline *l, enum log_level lvl, const char *msg)
{
	char t[25];

	l->len = 0;
	l->dropped = 0;
	l->lvl = lvl;
	if (!(l->on = log_enabled(lvl)))
		return;
	l->buf[0] = '\0';
	ids_now_timestamp(t);
	append(l, "ts", t);
	append(l, "level", level_names[lvl]);
	append(l, "prog", prog_name);
	log_int(l, "pid", (int64_t)getpid());
	append(l, "msg", msg);
}

void
log_str(struct logline *l, const char *key, const char *val)
{
	if (l->on)
		append(l, key, val != NULL ? val : "");
}

void
log_int(struct logline *l, const char *key, int64_t v)
{
	char n[24];

	if (!l->on)
		return;
	snprintf(n, sizeof(n), "%lld", (long long)v);
	append(l, key, n);
}

void
log_end(struct logline *l)
{
	char line[LOG_LINE_MAX + 4];
	size_t n = 0;

	if (!l->on)
		return;
	if (l->dropped > 0 && l->len + 16 < sizeof(l->buf))
		log_int(l, "dropped_fields", l->dropped);
	if (reopen_wanted)
		reopen();
	if (journal && out_fd == STDERR_FILENO) {
		line[n++] = '<';
		line[n++] = level_prio[l->lvl];
		line[n++] = '>';
	}
	memcpy(line + n, l->buf, l->len);
	n += l->len;
	line[n++] = '\n';
	/* One write per line keeps lines of concurrent processes whole. */
	(void)!write(out_fd, line, n);
	l->on = 0;
}

void
log_msg(enum log_level lvl, const char *reqid, const char *fmt, ...)
{
	struct logline l;
	char text[1024];
	va_list ap;

	if (!log_enabled(lvl))
		return;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	log_begin(&l, lvl, text);
	if (reqid != NULL)
		log_str(&l, "request_id", reqid);
	log_end(&l);
}
