/* Unit tests of Basic-auth decoding. */
#include <criterion/criterion.h>
#include <string.h>

#include "xborder/auth.h"

#define ID "0f8fad5b-d9cb-469f-a165-70867728950e"

/* base64 of ID ":" "s3cr3t" */
static const char good[] = "Basic MGY4ZmFkNWItZDljYi00NjlmLWExNjUtNzA4Njc3Mjg5NTBlOnMzY3IzdA==";

Test(auth, parses_basic)
{
	char id[37], secret[64];

	cr_assert_eq(auth_parse_basic(good, id, secret, sizeof(secret)), 0);
	cr_assert_str_eq(id, ID);
	cr_assert_str_eq(secret, "s3cr3t");
}

Test(auth, scheme_is_case_insensitive)
{
	char id[37], secret[64];

	cr_assert_eq(auth_parse_basic(
	    "basic   MGY4ZmFkNWItZDljYi00NjlmLWExNjUtNzA4Njc3Mjg5NTBlOnMzY3IzdA==",
	    id, secret, sizeof(secret)), 0);
}

Test(auth, secret_may_contain_colon)
{
	char id[37], secret[64];

	/* ID ":" "a:b" */
	cr_assert_eq(auth_parse_basic(
	    "Basic MGY4ZmFkNWItZDljYi00NjlmLWExNjUtNzA4Njc3Mjg5NTBlOmE6Yg==",
	    id, secret, sizeof(secret)), 0);
	cr_assert_str_eq(secret, "a:b");
}

Test(auth, rejects_malformed)
{
	char id[37], secret[64];
	const char *bad[] = {
		NULL, "", "Basic", "Basic ", "Bearer abc", "BasicMGY4",
		"Basic !!!!",
		"Basic Zm9vOmJhcg==",			/* foo:bar: id not a uuid */
		"Basic MGY4ZmFkNWItZDljYi00NjlmLWExNjUtNzA4Njc3Mjg5NTBl",	/* no colon */
		"Basic MGY4ZmFkNWItZDljYi00NjlmLWExNjUtNzA4Njc3Mjg5NTBlOg==",	/* empty secret */
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_eq(auth_parse_basic(bad[i], id, secret, sizeof(secret)), -1,
		    "case %zu", i);
}

Test(auth, secret_too_long_is_rejected)
{
	char id[37], secret[4];

	cr_assert_eq(auth_parse_basic(good, id, secret, sizeof(secret)), -1);
}
