/*
 * util.h: memory wrappers that abort on exhaustion, the logger (log.h) and small
 * string helpers shared by every program of xborder.
 */
#ifndef XBORDER_UTIL_H
#define XBORDER_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "xborder/log.h"

/* Allocation wrappers: out of memory aborts the process (one policy). */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* xstrdup(s), or NULL when s is NULL. */
char *dup_or_null(const char *s);

/* Milliseconds from a monotonic clock. */
int64_t now_ms(void);
/* Microseconds from the same clock. */
int64_t now_us(void);

/* A small non-cryptographic hash of a string (djb2), for a cache's slots. */
size_t str_hash(const char *s);

/*
 * Copies s (NULL as "") into dst of n bytes, cut to n - 1 bytes and always
 * terminated (nothing when n is 0).  Rows are copied field by field with it,
 * so it goes without printf.
 */
void str_copy(char *dst, size_t n, const char *s);

/* Constant-time comparison of two buffers of length n; 1 when equal. */
int ct_equal(const void *a, const void *b, size_t n);

/*
 * Parses a decimal integer made only of digits (no sign, no blanks) that
 * fits in int64_t.  Returns 0 or -1.
 */
int parse_i64_digits(const char *s, int64_t *out);

#endif
