/* Unit tests of the router: literal-over-parameter matching, 404/405 and
 * the Allow list, percent-decoding of parameters. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "xborder/router.h"

static int dummy(struct req *r) { (void)r; return 0; }

static const struct route_def tab[] = {
	{ M_GET, "/customers", dummy, PERM_VIEW, 0, NULL },
	{ M_POST, "/customers", dummy, PERM_MANAGE, 0, NULL },
	{ M_GET, "/customers/{customerId}", dummy, PERM_VIEW, 0, NULL },
	{ M_PATCH, "/customers/{customerId}", dummy, PERM_MANAGE, 0, NULL },
	{ M_GET, "/customers/external-accounts", dummy, PERM_VIEW, 0, NULL },
	{ M_POST, "/customers/external-accounts", dummy, PERM_MANAGE, 0, NULL },
	{ M_GET, "/healthz", dummy, PERM_PUBLIC, 0, NULL },
};
#define N (sizeof(tab) / sizeof(tab[0]))

Test(router, exact_match)
{
	struct route_match m;

	cr_assert_eq(router_match(tab, N, M_GET, "/customers", &m), ROUTER_OK);
	cr_assert_eq(m.index, 0);
	cr_assert_eq(m.nparams, 0);
	router_match_free(&m);
	cr_assert_eq(router_match(tab, N, M_POST, "/customers", &m), ROUTER_OK);
	cr_assert_eq(m.index, 1);
	router_match_free(&m);
}

Test(router, parameter_is_decoded)
{
	struct route_match m;

	cr_assert_eq(router_match(tab, N, M_GET, "/customers/Customer%3Aabc", &m), ROUTER_OK);
	cr_assert_eq(m.index, 2);
	cr_assert_eq(m.nparams, 1);
	cr_assert_str_eq(m.params[0], "Customer:abc");
	router_match_free(&m);
}

Test(router, literal_beats_parameter)
{
	struct route_match m;

	cr_assert_eq(router_match(tab, N, M_GET, "/customers/external-accounts", &m), ROUTER_OK);
	cr_assert_eq(m.index, 4);
	router_match_free(&m);
	/* DELETE exists on neither pattern: the literal one decides the Allow list. */
	cr_assert_eq(router_match(tab, N, M_DELETE, "/customers/external-accounts", &m),
	    ROUTER_METHOD_NOT_ALLOWED);
	cr_assert_str_eq(m.allow, "GET, POST");
	router_match_free(&m);
}

Test(router, method_not_allowed_lists_methods)
{
	struct route_match m;

	cr_assert_eq(router_match(tab, N, M_PUT, "/customers/x", &m), ROUTER_METHOD_NOT_ALLOWED);
	cr_assert_str_eq(m.allow, "GET, PATCH");
	router_match_free(&m);
}

Test(router, not_found)
{
	struct route_match m;
	const char *bad[] = { "/", "/nope", "/customers/", "/customers//x", "//customers",
	    "/customers/a/b", "/healthz/", "/platforms", "/cust%zzomers", "/healthz%00",
	    "customers", "" };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_assert_eq(router_match(tab, N, M_GET, bad[i], &m), ROUTER_NOT_FOUND,
		    "path %s", bad[i]);
		router_match_free(&m);
	}
}

Test(router, malformed_parameter_is_marked)
{
	struct route_match m;

	cr_assert_eq(router_match(tab, N, M_GET, "/customers/%zz", &m), ROUTER_OK);
	cr_assert_str_eq(m.params[0], "\x01");
	router_match_free(&m);
	cr_assert_eq(router_match(tab, N, M_GET, "/customers/a%00b", &m), ROUTER_OK);
	cr_assert_str_eq(m.params[0], "\x01");
	router_match_free(&m);
}

Test(router, encoded_slash_stays_in_segment)
{
	struct route_match m;

	cr_assert_eq(router_match(tab, N, M_GET, "/customers/a%2Fb", &m), ROUTER_OK);
	cr_assert_str_eq(m.params[0], "a/b");
	router_match_free(&m);
	/* Nor does it join two literal segments of a pattern. */
	cr_assert_eq(router_match(tab, N, M_GET, "/customers%2Fexternal-accounts", &m),
	    ROUTER_NOT_FOUND);
	cr_assert_eq(router_match(tab, N, M_GET, "/healthz%2F", &m), ROUTER_NOT_FOUND);
}

Test(router, a_pattern_matches_its_own_number_of_segments)
{
	struct route_match m;

	/* A prefix of a pattern, a pattern's prefix of the path, a longer literal. */
	cr_assert_eq(router_match(tab, N, M_GET, "/customers/x/y", &m), ROUTER_NOT_FOUND);
	cr_assert_eq(router_match(tab, N, M_GET, "/healthz/x", &m), ROUTER_NOT_FOUND);
	cr_assert_eq(router_match(tab, N, M_GET, "/healthzz", &m), ROUTER_NOT_FOUND);
	cr_assert_eq(router_match(tab, N, M_GET, "/health", &m), ROUTER_NOT_FOUND);
	cr_assert_eq(router_match(tab, N, M_GET, "/", &m), ROUTER_NOT_FOUND);
	cr_assert_eq(router_match(tab, N, M_GET, "/customers/external-accounts", &m), ROUTER_OK);
	cr_assert_eq(m.index, 4);
	router_match_free(&m);
}

Test(router, methods)
{
	cr_assert_eq(router_method("GET"), M_GET);
	cr_assert_eq(router_method("PATCH"), M_PATCH);
	cr_assert_eq(router_method("get"), M_OTHER);
	cr_assert_eq(router_method(NULL), M_OTHER);
	cr_assert_str_eq(router_method_name(M_DELETE), "DELETE");
}

Test(router, decode)
{
	char *s = router_decode("a+b%20c", 7, 1);

	cr_assert_str_eq(s, "a b c");
	free(s);
	s = router_decode("a+b", 3, 0);
	cr_assert_str_eq(s, "a+b");
	free(s);
	cr_assert_null(router_decode("%4", 2, 0));
	cr_assert_null(router_decode("%", 1, 0));
	cr_assert_null(router_decode("%g0", 3, 0));
}
