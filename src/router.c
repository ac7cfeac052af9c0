/*
 * router.c: matches a request line against the routing table.  Paths are
 * split into segments, each percent-decoded on its own so that an encoded
 * slash stays inside its segment.  Among the patterns that match a path,
 * the one with the most literal segments wins (so /customers/external-
 * accounts beats /customers/{customerId}); its methods decide between a
 * match and a 405.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "xborder/router.h"
#include "xborder/util.h"

static const char *const method_names[] = {
	"GET", "POST", "PATCH", "DELETE", "PUT", "HEAD", "OPTIONS", "OTHER"
};

enum http_method
router_method(const char *name)
{
	for (int m = M_GET; m < M_OTHER; m++)
		if (name != NULL && strcmp(name, method_names[m]) == 0)
			return (enum http_method)m;
	return M_OTHER;
}

const char *
router_method_name(enum http_method m)
{
	return method_names[m];
}

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

char *
router_decode(const char *s, size_t n, int plus_space)
{
	char *out = xmalloc(n + 1);
	size_t j = 0;

	for (size_t i = 0; i < n; i++) {
		if (s[i] == '%') {
			int hi, lo;

			if (i + 2 >= n)
				goto bad;
			hi = hexval((unsigned char)s[i + 1]);
			lo = hexval((unsigned char)s[i + 2]);
			if (hi < 0 || lo < 0 || (hi == 0 && lo == 0))
				goto bad;
			out[j++] = (char)(hi << 4 | lo);
			i += 2;
		} else if (s[i] == '+' && plus_space)
			out[j++] = ' ';
		else if (s[i] == '\0')
			goto bad;
		else
			out[j++] = s[i];
	}
	out[j] = '\0';
	return out;
bad:
	free(out);
	return NULL;
}

/* Splits "/a/b" into segments (pointers into path, with lengths). */
static int
split(const char *path, const char **seg, size_t *len, size_t max)
{
	size_t n = 0;

	if (path[0] != '/')
		return -1;
	if (path[1] == '\0')
		return 0;
	for (const char *p = path + 1;;) {
		const char *e = strchr(p, '/');
		size_t l = e ? (size_t)(e - p) : strlen(p);

		if (l == 0 || n == max)
			return -1;	/* empty segment or too deep */
		seg[n] = p;
		len[n++] = l;
		if (e == NULL)
			break;
		p = e + 1;
	}
	return (int)n;
}

/*
 * Counts the literal segments of pattern when it matches the decoded
 * segments dec[0..n) (of lengths dlen), or -1 when it does not match.
 * The pattern is walked as it is compared, not split first: most
 * patterns differ from the path at the first segment, and the whole
 * table is tried for every request.
 */
static int
pattern_score(const char *pattern, char *const *dec, const size_t *dlen, int n)
{
	const char *p = pattern;
	int score = 0;

	if (p[0] != '/')
		return -1;
	if (p[1] == '\0')
		return n == 0 ? 0 : -1;
	for (int i = 0; i < n; i++) {
		const char *e;

		if (*p++ != '/')
			return -1;	/* the pattern has fewer segments */
		if (p[0] == '{') {
			for (e = p; *e != '\0' && *e != '/'; e++)
				;
		} else {
			/* A literal segment: no '/' in it, so none in dec[i]. */
			e = p + dlen[i];
			if (dlen[i] == 0 || strncmp(p, dec[i], dlen[i]) != 0 ||
			    (*e != '\0' && *e != '/') || memchr(dec[i], '/', dlen[i]) != NULL)
				return -1;
			score++;
		}
		p = e;
	}
	return *p == '\0' ? score : -1;	/* or the pattern has more */
}

enum router_rc
router_match(const struct route_def *tab, size_t ntab,
    enum http_method method, const char *path, struct route_match *m)
{
	const char *seg[ROUTER_MAX_SEGMENTS];
	size_t len[ROUTER_MAX_SEGMENTS];
	char *dec[ROUTER_MAX_SEGMENTS] = { 0 };
	size_t dlen[ROUTER_MAX_SEGMENTS];
	const char *best = NULL;
	int n, best_score = -1;
	enum router_rc rc = ROUTER_NOT_FOUND;

	memset(m, 0, sizeof(*m));
	if (strlen(path) > 2048 || (n = split(path, seg, len, ROUTER_MAX_SEGMENTS)) < 0)
		return ROUTER_NOT_FOUND;
	/*
	 * A segment that cannot be decoded (bad escape, encoded NUL) matches
	 * no literal; as a parameter it arrives as "\x01", which every
	 * identifier check rejects, so the operation answers 400 naming it.
	 */
	for (int i = 0; i < n; i++)
		if ((dec[i] = router_decode(seg[i], len[i], 0)) == NULL)
			dec[i] = xstrdup("\x01");
	for (int i = 0; i < n; i++)
		dlen[i] = strlen(dec[i]);
	for (size_t i = 0; i < ntab; i++) {
		int s = pattern_score(tab[i].pattern, dec, dlen, n);

		if (s > best_score) {
			best_score = s;
			best = tab[i].pattern;
		}
	}
	if (best == NULL)
		goto out;
	rc = ROUTER_METHOD_NOT_ALLOWED;
	for (size_t i = 0; i < ntab; i++) {
		if (strcmp(tab[i].pattern, best) != 0)
			continue;
		if (tab[i].method == method) {
			const char *pseg[ROUTER_MAX_SEGMENTS];
			size_t plen[ROUTER_MAX_SEGMENTS];

			split(best, pseg, plen, ROUTER_MAX_SEGMENTS);
			m->index = i;
			for (int k = 0; k < n; k++)
				if (pseg[k][0] == '{' && m->nparams < ROUTER_MAX_PARAMS) {
					m->params[m->nparams++] = dec[k];
					dec[k] = NULL;
				}
			rc = ROUTER_OK;
			break;
		}
		if (m->allow[0] != '\0')
			strncat(m->allow, ", ", sizeof(m->allow) - strlen(m->allow) - 1);
		strncat(m->allow, method_names[tab[i].method],
		    sizeof(m->allow) - strlen(m->allow) - 1);
	}
out:
	for (int i = 0; i < n; i++)
		free(dec[i]);
	return rc;
}

void
router_match_free(struct route_match *m)
{
	for (size_t i = 0; i < m->nparams; i++)
		free(m->params[i]);
	m->nparams = 0;
}
