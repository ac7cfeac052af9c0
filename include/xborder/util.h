/*
 * util.h: memory wrappers that abort on exhaustion, logging and small
 * string helpers shared by every program of xborder.
 */
#ifndef XBORDER_UTIL_H
#define XBORDER_UTIL_H

#include <stddef.h>
#include <stdint.h>

enum log_level { LOG_LVL_ERROR, LOG_LVL_WARN, LOG_LVL_INFO, LOG_LVL_DEBUG };

/* Allocation wrappers: out of memory aborts the process (one policy). */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);

/* Sets the threshold below which log lines are dropped. */
void log_set_level(enum log_level lvl);
/* Parses "error", "warn", "info" or "debug"; returns 0 or -1. */
int log_parse_level(const char *s, enum log_level *out);
/*
 * Writes one line to stderr: level, pid, request id (or "-") and the
 * message.  Callers never pass secrets.
 */
void log_msg(enum log_level lvl, const char *reqid, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Milliseconds from a monotonic clock. */
int64_t now_ms(void);

/* A small non-cryptographic hash of a string (djb2), for a cache's slots. */
size_t str_hash(const char *s);

/* Constant-time comparison of two buffers of length n; 1 when equal. */
int ct_equal(const void *a, const void *b, size_t n);

/*
 * Parses a decimal integer made only of digits (no sign, no blanks) that
 * fits in int64_t.  Returns 0 or -1.
 */
int parse_i64_digits(const char *s, int64_t *out);

#endif
