/*
 * query.c: query strings (http_query_parse, http_query_get) and the
 * parsers of the list parameters (valid_uint_param for limit and cursor,
 * valid_datetime_param for the date bounds).  The input is the query
 * string after '?', cut at its first NUL as a C string is.
 *
 * Invariants, besides ASan, UBSan and LeakSanitizer finding nothing:
 *  - the pairs are exactly what an independent splitter and
 *    percent-decoder make of the string (a name that cannot be decoded
 *    is dropped, a value that cannot be kept NULL);
 *  - http_query_get answers 1, -1 (given twice) or -2 (not text) as the
 *    pairs say, and hands out the pair's own value;
 *  - the pairs, percent-encoded again, parse to the same pairs;
 *  - a value valid_uint_param takes is digits whose number is in range;
 *  - a value valid_datetime_param takes gives "YYYY-MM-DD HH:MM:SS.mmm"
 *    holding the value's own date and time, and parses again the same.
 */
#include "config.h"

#include <inttypes.h>

#include "xborder/http.h"
#include "xborder/req.h"
#include "xborder/valid.h"

#include "fuzz.h"

static int
hexdig(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* The oracle's percent-decoder: NULL for a bad escape or an encoded NUL. */
static char *
ref_decode(const char *s, size_t n)
{
	char *out = malloc(n + 1), *o = out;

	FUZZ_ASSERT(out != NULL);
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '+') {
			*o++ = ' ';
		} else if (s[i] != '%') {
			*o++ = s[i];
		} else if (n - i >= 3 && hexdig(s[i + 1]) >= 0 && hexdig(s[i + 2]) >= 0 &&
		    (hexdig(s[i + 1]) | hexdig(s[i + 2])) != 0) {
			*o++ = (char)(hexdig(s[i + 1]) * 16 + hexdig(s[i + 2]));
			i += 2;
		} else {
			free(out);
			return NULL;
		}
	}
	*o = '\0';
	return out;
}

/* Appends s percent-encoded (all but unreserved characters) to buf at *at. */
static void
encode(char *buf, size_t *at, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || strchr("-._~", c) != NULL) {
			buf[(*at)++] = (char)c;
		} else {
			buf[(*at)++] = '%';
			buf[(*at)++] = hex[c >> 4];
			buf[(*at)++] = hex[c & 15];
		}
	}
}

static void
check_uint(const char *v)
{
	int64_t x = -1;
	size_t n = strlen(v), lead = 0;
	char back[32];
	int ok = valid_uint_param(v, 1, 100, &x);

	FUZZ_ASSERT(ok == 0 || ok == -1);
	if (ok == 0) {
		FUZZ_ASSERT(x >= 1 && x <= 100);
		FUZZ_ASSERT(n >= 1 && n <= 19 && strspn(v, "0123456789") == n);
		while (lead + 1 < n && v[lead] == '0')
			lead++;
		snprintf(back, sizeof(back), "%" PRId64, x);
		FUZZ_ASSERT(strcmp(back, v + lead) == 0);
	}
	if (valid_uint_param(v, 0, INT64_MAX, &x) == 0) {
		FUZZ_ASSERT(x >= 0);
		FUZZ_ASSERT(n >= 1 && n <= 19 && strspn(v, "0123456789") == n);
		while (lead + 1 < n && v[lead] == '0')
			lead++;
		snprintf(back, sizeof(back), "%" PRId64, x);
		FUZZ_ASSERT(strcmp(back, v + lead) == 0);
	} else if (n >= 1 && n <= 18 && strspn(v, "0123456789") == n) {
		FUZZ_ASSERT(0);	/* 18 digits always fit in int64 */
	}
}

static void
check_datetime(const char *v)
{
	char out[32], out_end[32], iso[40], again[32];
	size_t n = strlen(v);
	int a, b;

	memset(out, 'x', sizeof(out));
	a = valid_datetime_param(v, 0, out);
	b = valid_datetime_param(v, 1, out_end);
	FUZZ_ASSERT(a == b);
	if (a < 0)
		return;
	FUZZ_ASSERT(strlen(out) == 23 && strlen(out_end) == 23);
	FUZZ_ASSERT(memcmp(out, v, 10) == 0 && memcmp(out_end, v, 10) == 0);
	FUZZ_ASSERT(out[10] == ' ' && out[13] == ':' && out[16] == ':' && out[19] == '.');
	if (n == 10) {
		FUZZ_ASSERT(strcmp(out + 11, "00:00:00.000") == 0);
		FUZZ_ASSERT(strcmp(out_end + 11, "23:59:59.999") == 0);
	} else {
		FUZZ_ASSERT(strcmp(out, out_end) == 0);
		FUZZ_ASSERT(memcmp(out + 11, v + 11, 8) == 0);
		FUZZ_ASSERT(v[n - 1] == 'Z');
	}
	/* The normalized bound, written in the API's form, gives itself. */
	snprintf(iso, sizeof(iso), "%.10sT%.12sZ", out, out + 11);
	FUZZ_ASSERT(valid_datetime_param(iso, 0, again) == 0);
	FUZZ_ASSERT(strcmp(again, out) == 0);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *qs = fuzz_cstr(data, size), *qs2;
	struct req req, req2;
	size_t len = strlen(qs), k = 0, at = 0;
	const char *p = qs;

	memset(&req, 0, sizeof(req));
	memset(&req2, 0, sizeof(req2));
	FUZZ_ASSERT(http_query_parse(qs, &req.query, &req.nquery) == 0);
	FUZZ_ASSERT((req.nquery == 0) == (req.query == NULL));

	/* The oracle: split on '&', decode name and value. */
	while (*p != '\0') {
		size_t l = strcspn(p, "&");
		const char *eq = memchr(p, '=', l);
		char *name, *value;

		if (l == 0) {
			p++;
			continue;
		}
		name = ref_decode(p, eq ? (size_t)(eq - p) : l);
		value = eq ? ref_decode(eq + 1, l - (size_t)(eq - p) - 1) : strdup("");
		p += l;
		if (*p == '&')
			p++;
		if (name != NULL) {
			FUZZ_ASSERT(k < req.nquery);
			FUZZ_ASSERT(strcmp(req.query[k].name, name) == 0);
			FUZZ_ASSERT((value == NULL) == (req.query[k].value == NULL));
			FUZZ_ASSERT(value == NULL || strcmp(req.query[k].value, value) == 0);
			k++;
		}
		free(name);
		free(value);
	}
	FUZZ_ASSERT(k == req.nquery);

	/* Lookups, and the list parameters' parsers on every value. */
	for (size_t i = 0; i < req.nquery; i++) {
		const char *name = req.query[i].name, *v = NULL;
		size_t first = req.nquery, count = 0;
		int rc = http_query_get(&req, name, &v);

		for (size_t j = 0; j < req.nquery; j++)
			if (strcmp(req.query[j].name, name) == 0) {
				if (count++ == 0)
					first = j;
			}
		FUZZ_ASSERT(count >= 1 && first <= i);
		if (req.query[first].value == NULL ||
		    !fuzz_ref_text((const unsigned char *)req.query[first].value,
		    strlen(req.query[first].value), 1))
			FUZZ_ASSERT(rc == -2);
		else if (count > 1)
			FUZZ_ASSERT(rc == -1);
		else {
			FUZZ_ASSERT(rc == 1);
			FUZZ_ASSERT(v == req.query[i].value);
		}
		if (req.query[i].value != NULL) {
			check_uint(req.query[i].value);
			check_datetime(req.query[i].value);
		}
	}

	/* Encoded again, the pairs with a value parse to the same pairs. */
	qs2 = malloc(3 * len + 2);
	FUZZ_ASSERT(qs2 != NULL);
	for (size_t i = 0; i < req.nquery; i++) {
		if (req.query[i].value == NULL)
			continue;
		if (at > 0)
			qs2[at++] = '&';
		encode(qs2, &at, req.query[i].name);
		qs2[at++] = '=';
		encode(qs2, &at, req.query[i].value);
	}
	qs2[at] = '\0';
	FUZZ_ASSERT(http_query_parse(qs2, &req2.query, &req2.nquery) == 0);
	k = 0;
	for (size_t i = 0; i < req.nquery; i++) {
		if (req.query[i].value == NULL)
			continue;
		FUZZ_ASSERT(k < req2.nquery);
		FUZZ_ASSERT(strcmp(req2.query[k].name, req.query[i].name) == 0);
		FUZZ_ASSERT(req2.query[k].value != NULL);
		FUZZ_ASSERT(strcmp(req2.query[k].value, req.query[i].value) == 0);
		k++;
	}
	req_query_free(req.query, req.nquery);
	req_query_free(req2.query, req2.nquery);
	free(qs2);
	free(qs);
	return 0;
}
