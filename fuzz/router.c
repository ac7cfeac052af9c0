/*
 * router.c: path routing (router_match over the service's own table,
 * routes.c) and the percent-decoder behind it (router_decode).  The input
 * is "METHOD PATH" (a method name, a space, the path as it comes from the
 * request line, percent-encoded); without a space it is a GET of the
 * whole input.
 *
 * Invariants, besides ASan, UBSan and LeakSanitizer finding nothing:
 *  - router_decode agrees with an independent decoder, with and without
 *    '+' as a space;
 *  - router_match answers exactly what a model of the rules answers:
 *    among the patterns matching the decoded segments the one with the
 *    most literal segments, then its row for the method (200 with the
 *    decoded parameters, "\x01" for an undecodable one) or 405 with the
 *    pattern's methods in `allow`, else 404;
 *  - the answer depends only on the decoded segments: the path with every
 *    segment percent-encoded afresh routes the same.
 */
#include "config.h"

#include "xborder/handlers.h"
#include "xborder/router.h"

#include "fuzz.h"

#define MAX_PATH 2048

static int
hexdig(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* The model's decoder: NULL for a bad escape, an encoded NUL or a NUL. */
static char *
ref_decode(const char *s, size_t n, int plus)
{
	char *out = malloc(n + 1), *o = out;

	FUZZ_ASSERT(out != NULL);
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\0')
			goto bad;
		if (s[i] == '+' && plus) {
			*o++ = ' ';
		} else if (s[i] != '%') {
			*o++ = s[i];
		} else if (n - i >= 3 && hexdig(s[i + 1]) >= 0 && hexdig(s[i + 2]) >= 0 &&
		    (hexdig(s[i + 1]) | hexdig(s[i + 2])) != 0) {
			*o++ = (char)(hexdig(s[i + 1]) * 16 + hexdig(s[i + 2]));
			i += 2;
		} else {
			goto bad;
		}
	}
	*o = '\0';
	return out;
bad:
	free(out);
	return NULL;
}

struct segs {
	int	 n;			/* -1: the path does not split */
	char	*dec[ROUTER_MAX_SEGMENTS];
};

/* The model's splitter: "/" has no segment; empty ones or too many: -1. */
static void
ref_split(const char *path, struct segs *s)
{
	const char *p = path;

	s->n = 0;
	if (path[0] != '/' || strlen(path) > MAX_PATH) {
		s->n = -1;
		return;
	}
	if (path[1] == '\0')
		return;
	for (p = path + 1;;) {
		size_t l = strcspn(p, "/");

		if (l == 0 || s->n == ROUTER_MAX_SEGMENTS) {
			for (int i = 0; i < s->n; i++)
				free(s->dec[i]);
			s->n = -1;
			return;
		}
		s->dec[s->n] = ref_decode(p, l, 0);
		if (s->dec[s->n] == NULL)
			s->dec[s->n] = strdup("\x01");
		s->n++;
		if (p[l] == '\0')
			return;
		p += l + 1;
	}
}

static void
segs_free(struct segs *s)
{
	for (int i = 0; i < s->n; i++)
		free(s->dec[i]);
}

/* Literal segments of pattern when it matches s, else -1. */
static int
ref_score(const char *pattern, const struct segs *s)
{
	const char *p = pattern + 1;
	int k = 0, score = 0;

	if (strcmp(pattern, "/") == 0)
		return s->n == 0 ? 0 : -1;
	for (;;) {
		size_t l = strcspn(p, "/");

		if (k == s->n)
			return -1;
		if (p[0] != '{') {
			if (strlen(s->dec[k]) != l || memcmp(s->dec[k], p, l) != 0)
				return -1;
			score++;
		}
		k++;
		if (p[l] == '\0')
			break;
		p += l + 1;
	}
	return k == s->n ? score : -1;
}

struct outcome {
	enum router_rc	 rc;
	size_t		 index;
	char		 allow[64];
};

/* The model of router_match. */
static void
ref_match(enum http_method method, const struct segs *s, struct outcome *o)
{
	const char *best = NULL;
	int best_score = -1;

	memset(o, 0, sizeof(*o));
	o->rc = ROUTER_NOT_FOUND;
	if (s->n < 0)
		return;
	for (size_t i = 0; i < nroutes; i++) {
		int sc = ref_score(routes[i].pattern, s);

		if (sc > best_score) {
			best_score = sc;
			best = routes[i].pattern;
		}
	}
	if (best == NULL)
		return;
	o->rc = ROUTER_METHOD_NOT_ALLOWED;
	for (size_t i = 0; i < nroutes; i++) {
		if (strcmp(routes[i].pattern, best) != 0)
			continue;
		if (routes[i].method == method) {
			o->rc = ROUTER_OK;
			o->index = i;
			return;
		}
		snprintf(o->allow + strlen(o->allow), sizeof(o->allow) - strlen(o->allow),
		    "%s%s", o->allow[0] ? ", " : "", router_method_name(routes[i].method));
	}
}

/* router_match against the model; fills m (caller frees). */
static void
check_match(enum http_method method, const char *path, struct route_match *m)
{
	struct segs s;
	struct outcome want;
	enum router_rc rc;

	ref_split(path, &s);
	ref_match(method, &s, &want);
	memset(m, 0x5a, sizeof(*m));
	rc = router_match(routes, nroutes, method, path, m);
	FUZZ_ASSERT(rc == want.rc);
	FUZZ_ASSERT(memchr(m->allow, '\0', sizeof(m->allow)) != NULL);
	if (rc == ROUTER_OK) {
		const char *p = routes[want.index].pattern + 1;
		size_t np = 0;

		FUZZ_ASSERT(m->index == want.index);
		FUZZ_ASSERT(routes[m->index].method == method);
		for (int k = 0; k < s.n; k++) {
			size_t l = strcspn(p, "/");

			if (p[0] == '{') {
				FUZZ_ASSERT(np < m->nparams);
				FUZZ_ASSERT(strcmp(m->params[np], s.dec[k]) == 0);
				np++;
			}
			p += l + (p[l] != '\0');
		}
		FUZZ_ASSERT(np == m->nparams);
	} else {
		FUZZ_ASSERT(m->nparams == 0);
		if (rc == ROUTER_METHOD_NOT_ALLOWED)
			FUZZ_ASSERT(strcmp(m->allow, want.allow) == 0);
	}
	segs_free(&s);
}

/* The path with every segment percent-encoded afresh from its decoding. */
static char *
reencode(const char *path)
{
	static const char hex[] = "0123456789ABCDEF";
	struct segs s;
	char *out, *o;

	ref_split(path, &s);
	if (s.n < 0)
		return NULL;
	out = o = malloc(3 * strlen(path) + 2);
	FUZZ_ASSERT(out != NULL);
	if (s.n == 0)
		*o++ = '/';
	for (int k = 0; k < s.n; k++) {
		*o++ = '/';
		for (const unsigned char *c = (const unsigned char *)s.dec[k]; *c; c++) {
			/* Some bytes are sent as they are, the rest encoded. */
			if ((*c >= 'a' && *c <= 'z') || *c == '-' || (*c >= '0' && *c <= '9')) {
				*o++ = (char)*c;
			} else {
				*o++ = '%';
				*o++ = hex[*c >> 4];
				*o++ = hex[*c & 15];
			}
		}
	}
	*o = '\0';
	segs_free(&s);
	return out;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *in = fuzz_cstr(data, size), *path = in, *sp, *again;
	enum http_method method = M_GET;
	struct route_match m, m2;

	/* The decoder alone, on the raw bytes (NULs included). */
	for (int plus = 0; plus <= 1; plus++) {
		char *a = router_decode((const char *)data, size, plus);
		char *b = ref_decode((const char *)data, size, plus);

		FUZZ_ASSERT((a == NULL) == (b == NULL));
		FUZZ_ASSERT(a == NULL || strcmp(a, b) == 0);
		free(a);
		free(b);
	}

	if ((sp = strchr(in, ' ')) != NULL) {
		*sp = '\0';
		method = router_method(in);
		if (method != M_OTHER)
			FUZZ_ASSERT(strcmp(router_method_name(method), in) == 0);
		path = sp + 1;
	}
	check_match(method, path, &m);
	/*
	 * The same path encoded afresh routes the same way, unless encoding
	 * made it longer than a path may be (then it is not found, and
	 * check_match has judged that).
	 */
	if ((again = reencode(path)) != NULL && strlen(again) > MAX_PATH) {
		free(again);
		again = NULL;
	}
	if (again != NULL) {
		check_match(method, again, &m2);
		FUZZ_ASSERT(m.index == m2.index || m.nparams == 0);
		FUZZ_ASSERT(m.nparams == m2.nparams);
		for (size_t i = 0; i < m.nparams; i++)
			FUZZ_ASSERT(strcmp(m.params[i], m2.params[i]) == 0);
		router_match_free(&m2);
		free(again);
	}
	router_match_free(&m);
	free(in);
	return 0;
}
