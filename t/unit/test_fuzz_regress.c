/*
 * Regression tests of what the fuzzers found (fuzz/regressions/<harness>/
 * holds the inputs themselves, run by `scripts/dev fuzz` every time).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xborder/handlers.h"
#include "xborder/http.h"
#include "xborder/router.h"
#include "xborder/valid.h"

static const char *const permission_values[] = { "view", "manage", NULL };

static const struct vfield inner[] = {
	{ "note", VK_STRING, 0, 1, 500, NULL, NULL, NULL },
	{ NULL, 0, 0, 0, 0, NULL, NULL, NULL }
};

/* The shape of POST /tokens, with a nested object as the review lane has. */
static const struct vfield fields[] = {
	{ "name", VK_STRING, VF_REQUIRED, 1, 128, NULL, NULL, NULL },
	{ "permissions", VK_ENUM_ARRAY, VF_REQUIRED, 1, 0, permission_values, NULL, NULL },
	{ "counterpartyInfo", VK_OBJECT, 0, 0, 0, NULL, NULL, inner },
	{ NULL, 0, 0, 0, 0, NULL, NULL, NULL }
};

/* "{\"<n times ch>\":1}" (wrapped in an object under `outer` when given). */
static char *
body_with_key(const char *outer, const char *ch, int n)
{
	size_t cl = strlen(ch), len = 64 + (outer ? strlen(outer) : 0) + cl * (size_t)n;
	char *b = malloc(len), *p = b;

	cr_assert_not_null(b);
	p += sprintf(p, outer ? "{\"%s\":{\"" : "{\"", outer ? outer : "");
	for (int i = 0; i < n; i++)
		p += sprintf(p, "%s", ch);
	sprintf(p, outer ? "\":1}}" : "\":1}");
	return b;
}

/*
 * Every key valid_object writes into details is returned to the client in
 * the 400 body, so it must be valid text.  body harness,
 * fuzz/regressions/body/details-key-cut-in-utf8*: an unknown property
 * named by 200 'é' (400 bytes) came back in details cut to 255 bytes, in
 * the middle of a 2-byte sequence (src/valid.c fail(), key[256]).
 */
static void
check_details_keys(const char *text)
{
	json_object *o = http_parse_json(text, strlen(text)), *d = json_object_new_object();
	char path[256];
	const char *rule;
	int bad;

	cr_assert_not_null(o);
	cr_assert_eq(http_json_text_check(o, path, sizeof(path), &rule), 0,
	    "the body's text is valid: %s", text);
	bad = valid_object(o, fields, "", d);
	cr_assert_gt(bad, 0);
	json_object_object_foreach(d, key, val) {
		(void)val;
		cr_assert(valid_text(key, strlen(key), 1),
		    "details key of %zu bytes is not valid UTF-8 text", strlen(key));
	}
	json_object_put(d);
	json_object_put(o);
}

Test(fuzz_regress, details_key_long_unknown_property)
{
	char *b = body_with_key(NULL, "\xc3\xa9", 200);

	check_details_keys(b);
	free(b);
}

Test(fuzz_regress, details_key_long_nested_unknown_property)
{
	char *b = body_with_key("counterpartyInfo", "\xe6\x97\xa5", 100);

	check_details_keys(b);
	free(b);
	/* Every cut point of a 4-byte sequence. */
	for (int n = 60; n < 64; n++) {
		b = body_with_key(NULL, "\xf0\x9f\x98\x80", n);
		check_details_keys(b);
		free(b);
	}
}

/*
 * fuzz/regressions/router/reencoded-past-max-path: a path of about 800
 * bytes routes to GET /tokens/{tokenId}; encoded afresh (every byte
 * %XX) it passes 2048 bytes and is not found.  That is the rule (paths
 * longer than 2048 bytes are 404), which the harness had not allowed for.
 */
Test(fuzz_regress, path_length_limit_decides_after_encoding)
{
	struct route_match m;
	char path[2200];
	size_t n;

	n = (size_t)snprintf(path, sizeof(path), "/tokens/");
	while (n < 2048)
		path[n++] = 'a';
	path[n] = '\0';
	cr_assert_eq(router_match(routes, ROUTE__MAX, M_GET, path, &m), ROUTER_OK,
	    "2048 bytes: routed");
	cr_expect_eq(m.index, ROUTE_GET_TOKENS_ONE);
	router_match_free(&m);
	path[n++] = 'a';
	path[n] = '\0';
	cr_expect_eq(router_match(routes, ROUTE__MAX, M_GET, path, &m), ROUTER_NOT_FOUND,
	    "2049 bytes: not found");
	router_match_free(&m);
}
