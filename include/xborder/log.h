/*
 * log.h: the logger of every xborder program.  One line per event, in
 * logfmt (key=value pairs separated by spaces, values quoted when they hold
 * a space, a quote, '=' or a control character), written with one write(2)
 * so that lines of concurrent processes never interleave.
 *
 * Every line starts with ts (UTC, milliseconds), level, prog, pid and msg;
 * the caller adds its own fields (request lines: request_id, platform_id,
 * token_id, method, route, status, code, dur_us, db_us, db_statements).
 * Callers never pass secrets, Authorization headers, account numbers or
 * request bodies.
 *
 * Lines go to log_file when one is configured (SIGUSR1 reopens it, for
 * logrotate), else to stderr.  When stderr is systemd's journal stream
 * (JOURNAL_STREAM names it), each line is prefixed with its syslog
 * priority ("<6>") so that the journal files it at the right level.
 */
#ifndef XBORDER_LOG_H
#define XBORDER_LOG_H

#include <stddef.h>
#include <stdint.h>

enum log_level { LOG_LVL_ERROR, LOG_LVL_WARN, LOG_LVL_INFO, LOG_LVL_DEBUG };

#define LOG_LINE_MAX 2048

/* A line being built; fields that do not fit are dropped and counted. */
struct logline {
	char		buf[LOG_LINE_MAX];
	size_t		len;
	int		on;		/* 0: below the threshold, all calls no-ops */
	int		dropped;	/* fields that did not fit */
	enum log_level	lvl;
};

/*
 * Names the program (prog=) and opens path for appending ("" or NULL:
 * stderr).  0, or -1 with errno set (the logger then writes to stderr).
 */
int log_open(const char *prog, const char *path);
/* Asks for the log file to be reopened before the next line (signal-safe). */
void log_reopen_request(void);

/* Sets the threshold below which log lines are dropped. */
void log_set_level(enum log_level lvl);
/* Parses "error", "warn", "info" or "debug"; returns 0 or -1. */
int log_parse_level(const char *s, enum log_level *out);
/* 1 when a line of level lvl would be written. */
int log_enabled(enum log_level lvl);

/* Starts a line: ts, level, prog, pid and msg. */
void log_begin(struct logline *l, enum log_level lvl, const char *msg);
/* Adds key=value (NULL or "" value: key=-). */
void log_str(struct logline *l, const char *key, const char *val);
void log_int(struct logline *l, const char *key, int64_t v);
/* Writes the line. */
void log_end(struct logline *l);

/*
 * One free-text line: msg is the formatted text, with request_id when
 * reqid is not NULL.
 */
void log_msg(enum log_level lvl, const char *reqid, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* For tests: formats v as a logfmt value into out; the length written. */
size_t log_quote(char *out, size_t outlen, const char *v);

#endif
