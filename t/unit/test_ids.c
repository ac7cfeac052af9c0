/* Unit tests of identifiers, base64 and timestamps. */
#include <criterion/criterion.h>
#include <string.h>

#include "xborder/ids.h"

Test(ids, uuid4_form)
{
	char a[UUID_LEN + 1], b[UUID_LEN + 1];

	ids_uuid4(a);
	ids_uuid4(b);
	cr_assert(ids_is_uuid4(a));
	cr_assert(ids_is_uuid(a));
	cr_assert_neq(strcmp(a, b), 0);
	for (size_t i = 0; i < UUID_LEN; i++)
		cr_assert(a[i] == '-' || (a[i] >= '0' && a[i] <= '9') || (a[i] >= 'a' && a[i] <= 'f'));
}

Test(ids, uuid4_pattern)
{
	cr_assert(ids_is_uuid4("0f8fad5b-d9cb-469f-a165-70867728950e"));
	cr_assert(ids_is_uuid4("0F8FAD5B-D9CB-469F-A165-70867728950E"));
	cr_assert_not(ids_is_uuid4("0f8fad5b-d9cb-169f-a165-70867728950e"), "version 1");
	cr_assert_not(ids_is_uuid4("0f8fad5b-d9cb-469f-c165-70867728950e"), "bad variant");
	cr_assert_not(ids_is_uuid4("0f8fad5bd9cb469fa16570867728950e"));
	cr_assert_not(ids_is_uuid4("0f8fad5b-d9cb-469f-a165-70867728950"));
	cr_assert_not(ids_is_uuid4("0f8fad5b-d9cb-469f-a165-70867728950g"));
	cr_assert_not(ids_is_uuid4(""));
	cr_assert_not(ids_is_uuid4(NULL));
}

Test(ids, parse_prefixed)
{
	char out[UUID_LEN + 1];

	cr_assert_eq(ids_parse("Token:0F8FAD5B-D9CB-469F-A165-70867728950E", "Token", 0, out), 0);
	cr_assert_str_eq(out, "0f8fad5b-d9cb-469f-a165-70867728950e");
	cr_assert_eq(ids_parse("0f8fad5b-d9cb-469f-a165-70867728950e", "Token", 1, out), 0);
	cr_assert_eq(ids_parse("0f8fad5b-d9cb-469f-a165-70867728950e", "Token", 0, out), -1);
	cr_assert_eq(ids_parse("Customer:0f8fad5b-d9cb-469f-a165-70867728950e", "Token", 1, out), -1);
	cr_assert_eq(ids_parse("Token:", "Token", 1, out), -1);
	cr_assert_eq(ids_parse("Token:abc", "Token", 1, out), -1);
	cr_assert_eq(ids_parse("token:0f8fad5b-d9cb-469f-a165-70867728950e", "Token", 0, out), -1);
}

Test(ids, b64url_secret_length)
{
	unsigned char raw[32];
	char out[64];

	memset(raw, 0xfb, sizeof(raw));
	cr_assert_eq(ids_b64url(raw, 32, out), 43);
	cr_assert_eq(strcspn(out, "+/="), 43, "url-safe alphabet, no padding");
	cr_assert_eq(ids_b64url((const unsigned char *)"f", 1, out), 2);
	cr_assert_str_eq(out, "Zg");
	cr_assert_eq(ids_b64url((const unsigned char *)"fo", 2, out), 3);
	cr_assert_str_eq(out, "Zm8");
	cr_assert_eq(ids_b64url((const unsigned char *)"foo", 3, out), 4);
	cr_assert_str_eq(out, "Zm9v");
}

Test(ids, b64decode)
{
	unsigned char out[64];

	cr_assert_eq(ids_b64decode("Zm9vOmJhcg==", 12, out), 7);
	cr_assert_str_eq((char *)out, "foo:bar");
	cr_assert_eq(ids_b64decode("Zm9vOmJhcg", 10, out), 7);
	cr_assert_eq(ids_b64decode("Zm9v", 4, out), 3);
	cr_assert_eq(ids_b64decode("Zm9", 3, out), 2);
	cr_assert_eq(ids_b64decode("Z", 1, out), -1);
	cr_assert_eq(ids_b64decode("Zm9v!", 5, out), -1);
	cr_assert_eq(ids_b64decode("Zm=v", 4, out), -1);
}

Test(ids, timestamp)
{
	char out[25];

	cr_assert_eq(ids_timestamp("2026-11-21 18:19:00.123", out), 0);
	cr_assert_str_eq(out, "2026-11-21T18:19:00.123Z");
	cr_assert_eq(ids_timestamp("2026-11-21 18:19:00", out), 0);
	cr_assert_str_eq(out, "2026-11-21T18:19:00.000Z");
	cr_assert_eq(ids_timestamp("2026-11-21 18:19:00.123456", out), 0);
	cr_assert_str_eq(out, "2026-11-21T18:19:00.123Z");
	cr_assert_eq(ids_timestamp("2026-11-21", out), -1);
	cr_assert_eq(ids_timestamp(NULL, out), -1);
}
