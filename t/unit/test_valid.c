/* Unit tests of the field-table validator and the pure checks. */
#include <criterion/criterion.h>
#include <string.h>

#include "xborder/http.h"
#include "xborder/valid.h"

static const char *const colours[] = { "red", "green", NULL };

static const struct vfield inner[] = {
	{ "flag", VK_BOOL, VF_REQUIRED, 0, 0, NULL, NULL, NULL },
	{ NULL, 0, 0, 0, 0, NULL, NULL, NULL }
};

static const struct vfield fields[] = {
	{ "name", VK_STRING, VF_REQUIRED, 1, 5, NULL, NULL, NULL },
	{ "n", VK_INT, 0, 0, 10, NULL, NULL, NULL },
	{ "colour", VK_ENUM, 0, 0, 0, colours, NULL, NULL },
	{ "colours", VK_ENUM_ARRAY, 0, 1, 0, colours, NULL, NULL },
	{ "obj", VK_OBJECT, 0, 0, 0, NULL, NULL, inner },
	{ "list", VK_OBJECT_ARRAY, 0, 0, 2, NULL, NULL, inner },
	{ "url", VK_STRING, VF_NULLABLE, 1, 2048, NULL, valid_http_url, NULL },
	{ NULL, 0, 0, 0, 0, NULL, NULL, NULL }
};

/* Validates text; returns the details (caller puts) and the count. */
static json_object *
run(const char *text, int *bad)
{
	json_object *o = http_parse_json(text, strlen(text)), *d = json_object_new_object();

	cr_assert_not_null(o, "test JSON must parse: %s", text);
	*bad = valid_object(o, fields, "", d);
	json_object_put(o);
	return d;
}

static const char *
detail(json_object *d, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(d, key, &v) ? json_object_get_string(v) : NULL;
}

Test(valid, accepts_good_body)
{
	int bad;
	json_object *d = run("{\"name\":\"héllo\",\"n\":10,\"colour\":\"red\","
	    "\"colours\":[\"red\",\"red\"],\"obj\":{\"flag\":true},"
	    "\"list\":[{\"flag\":false}],\"url\":null}", &bad);

	cr_assert_eq(bad, 0, "%s", json_object_to_json_string(d));
	json_object_put(d);
}

Test(valid, names_each_offending_field)
{
	int bad;
	json_object *d = run("{\"n\":11,\"colour\":\"blue\",\"extra\":1,"
	    "\"colours\":[],\"obj\":{},\"list\":[{\"flag\":1},5],\"url\":\"ftp://x\"}", &bad);

	cr_assert_eq(bad, 9, "%s", json_object_to_json_string(d));
	cr_assert_str_eq(detail(d, "name"), "is required");
	cr_assert_str_eq(detail(d, "n"), "must be an integer from 0 to 10");
	cr_assert_str_eq(detail(d, "colour"), "must be one of: red, green");
	cr_assert_str_eq(detail(d, "extra"), "is not an allowed property");
	cr_assert_str_eq(detail(d, "colours"), "must have at least 1 item");
	cr_assert_str_eq(detail(d, "obj.flag"), "is required");
	cr_assert_str_eq(detail(d, "list[0].flag"), "must be a boolean");
	cr_assert_str_eq(detail(d, "list[1]"), "must be an object");
	cr_assert_str_eq(detail(d, "url"), "must be an absolute http or https URL");
	json_object_put(d);
}

Test(valid, types_are_strict)
{
	int bad;
	json_object *d;

	d = run("{\"name\":5,\"n\":1.5}", &bad);
	cr_assert_eq(bad, 2);
	cr_assert_str_eq(detail(d, "name"), "must be a string");
	cr_assert_str_eq(detail(d, "n"), "must be an integer from 0 to 10");
	json_object_put(d);
	d = run("{\"name\":null,\"n\":\"3\"}", &bad);
	cr_assert_eq(bad, 2);
	cr_assert_str_eq(detail(d, "name"), "must not be null");
	json_object_put(d);
	d = run("{\"name\":\"abc\",\"n\":true}", &bad);
	cr_assert_eq(bad, 1);
	json_object_put(d);
}

Test(valid, length_counts_characters)
{
	int bad;
	json_object *d;

	d = run("{\"name\":\"ééééé\"}", &bad);
	cr_assert_eq(bad, 0, "five two-byte characters fit in 5");
	json_object_put(d);
	d = run("{\"name\":\"abcdef\"}", &bad);
	cr_assert_eq(bad, 1);
	cr_assert_str_eq(detail(d, "name"), "must be 1 to 5 characters");
	json_object_put(d);
	d = run("{\"name\":\"\"}", &bad);
	cr_assert_eq(bad, 1);
	json_object_put(d);
	d = run("{\"name\":\"a\\u0000b\"}", &bad);
	cr_assert_eq(bad, 1, "NUL inside a string");
	json_object_put(d);
}

Test(valid, enum_array_items)
{
	int bad;
	json_object *d = run("{\"name\":\"a\",\"colours\":[\"red\",\"blue\"]}", &bad);

	cr_assert_eq(bad, 1);
	cr_assert_str_eq(detail(d, "colours"), "items must be one of: red, green");
	json_object_put(d);
}

Test(valid, uint_param)
{
	int64_t v;

	cr_assert_eq(valid_uint_param("0", 0, 100, &v), 0);
	cr_assert_eq(v, 0);
	cr_assert_eq(valid_uint_param("100", 1, 100, &v), 0);
	cr_assert_eq(valid_uint_param("101", 1, 100, &v), -1);
	cr_assert_eq(valid_uint_param("0", 1, 100, &v), -1);
	cr_assert_eq(valid_uint_param("", 0, 100, &v), -1);
	cr_assert_eq(valid_uint_param("-1", 0, 100, &v), -1);
	cr_assert_eq(valid_uint_param("+1", 0, 100, &v), -1);
	cr_assert_eq(valid_uint_param("1.0", 0, 100, &v), -1);
	cr_assert_eq(valid_uint_param(" 1", 0, 100, &v), -1);
	cr_assert_eq(valid_uint_param("99999999999999999999", 0, INT64_MAX, &v), -1);
	cr_assert_eq(valid_uint_param("9223372036854775807", 0, INT64_MAX, &v), 0);
	cr_assert_eq(valid_uint_param("9223372036854775808", 0, INT64_MAX, &v), -1);
}

Test(valid, http_url)
{
	const char *good[] = { "https://example.com", "http://example.com/hook?x=1",
	    "https://127.0.0.1:8080/a", "https://[::1]:9000/x", "HTTPS://EXAMPLE.COM" };
	const char *bad[] = { "ftp://example.com", "example.com", "/relative", "https://",
	    "https://user:pw@example.com/", "https://exa mple.com", "https://x:0/",
	    "https://x:65536/", "https://x:/", "http:///path", "https://ex\x01.com" };

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		cr_assert_null(valid_http_url(good[i]), "%s", good[i]);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_not_null(valid_http_url(bad[i]), "%s", bad[i]);
}

Test(valid, domain)
{
	cr_assert_null(valid_domain("sandbox.xborder.test"));
	cr_assert_null(valid_domain("a-b.example"));
	cr_assert_not_null(valid_domain(""));
	cr_assert_not_null(valid_domain("-a.example"));
	cr_assert_not_null(valid_domain("a-.example"));
	cr_assert_not_null(valid_domain("a..b"));
	cr_assert_not_null(valid_domain("a_b.example"));
	cr_assert_not_null(valid_domain("a.example."));
}

Test(valid, amount_minor)
{
	cr_assert_null(valid_amount_minor("1"));
	cr_assert_null(valid_amount_minor("000000000000000001"));
	cr_assert_null(valid_amount_minor("999999999999999999"));
	cr_assert_not_null(valid_amount_minor("0"));
	cr_assert_not_null(valid_amount_minor("000"));
	cr_assert_not_null(valid_amount_minor(""));
	cr_assert_not_null(valid_amount_minor("1000000000000000000"), "19 digits");
	cr_assert_not_null(valid_amount_minor("-1"));
	cr_assert_not_null(valid_amount_minor("1.5"));
	cr_assert_not_null(valid_amount_minor(" 1"));
	cr_assert_not_null(valid_amount_minor("1e3"));
}

Test(valid, datetime_param)
{
	char out[32];

	cr_assert_eq(valid_datetime_param("2026-11-21", 0, out), 0);
	cr_assert_str_eq(out, "2026-11-21 00:00:00.000");
	cr_assert_eq(valid_datetime_param("2026-11-21", 1, out), 0);
	cr_assert_str_eq(out, "2026-11-21 23:59:59.999");
	cr_assert_eq(valid_datetime_param("2026-11-21T18:19:00Z", 0, out), 0);
	cr_assert_str_eq(out, "2026-11-21 18:19:00.000");
	cr_assert_eq(valid_datetime_param("2026-11-21T18:19:00.5Z", 0, out), 0);
	cr_assert_str_eq(out, "2026-11-21 18:19:00.500");
	cr_assert_eq(valid_datetime_param("2026-11-21T18:19:00.123Z", 1, out), 0);
	cr_assert_str_eq(out, "2026-11-21 18:19:00.123");
	cr_assert_eq(valid_datetime_param("2024-02-29", 0, out), 0, "leap day");

	const char *bad[] = { "", "2026-11-2", "2026-13-01", "2026-00-10", "2026-11-31",
	    "2025-02-29", "2026-11-21T24:00:00Z", "2026-11-21T18:60:00Z",
	    "2026-11-21T18:19:00", "2026-11-21T18:19:00+01:00", "2026-11-21 18:19:00Z",
	    "2026-11-21T18:19:00.Z", "2026-11-21T18:19:00.1234567890Z", "20261121",
	    "2026-11-21x" };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_eq(valid_datetime_param(bad[i], 0, out), -1, "%s", bad[i]);
}

Test(valid, iso_dates_and_country_codes)
{
	cr_assert_null(valid_iso_date("1990-02-28"));
	cr_assert_null(valid_iso_date("2000-02-29"));
	cr_assert_not_null(valid_iso_date("1900-02-29"));
	cr_assert_not_null(valid_iso_date("1990-13-01"));
	cr_assert_not_null(valid_iso_date("1990-1-01"));
	cr_assert_not_null(valid_iso_date("1990-01-01T00:00:00Z"));
	cr_assert_not_null(valid_iso_date(""));
	cr_assert_null(valid_country_code("NG"));
	cr_assert_not_null(valid_country_code("ng"));
	cr_assert_not_null(valid_country_code("NGA"));
	cr_assert_not_null(valid_country_code("N1"));
}

Test(valid, utf8_strict)
{
	struct { const char *s; size_t n; int ok; } cases[] = {
		{ "plain ascii", 11, 1 },
		{ "\xc3\xa9", 2, 1 },			/* é */
		{ "\xe2\x82\xac", 3, 1 },		/* € */
		{ "\xf0\x9f\x98\x80", 4, 1 },		/* U+1F600 */
		{ "\xf4\x8f\xbf\xbf", 4, 1 },		/* U+10FFFF */
		{ "\xef\xbf\xbd", 3, 1 },		/* U+FFFD itself */
		{ "\xc0\xaf", 2, 0 },			/* overlong '/' */
		{ "\xc1\xbf", 2, 0 },			/* overlong */
		{ "\xe0\x80\xaf", 3, 0 },		/* overlong, 3 bytes */
		{ "\xe0\x9f\xbf", 3, 0 },		/* overlong U+07FF */
		{ "\xf0\x80\x80\xaf", 4, 0 },		/* overlong, 4 bytes */
		{ "\xf0\x8f\xbf\xbf", 4, 0 },		/* overlong U+FFFF */
		{ "\xed\xa0\x80", 3, 0 },		/* U+D800 */
		{ "\xed\xbf\xbf", 3, 0 },		/* U+DFFF */
		{ "\xed\x9f\xbf", 3, 1 },		/* U+D7FF */
		{ "\xf4\x90\x80\x80", 4, 0 },		/* U+110000 */
		{ "\xf5\x80\x80\x80", 4, 0 },
		{ "\xff", 1, 0 },
		{ "\x80", 1, 0 },			/* lone continuation */
		{ "\xc3", 1, 0 },			/* truncated */
		{ "\xe2\x82", 2, 0 },			/* truncated */
		{ "\xf0\x9f\x98", 3, 0 },		/* truncated */
		{ "\xc3\x28", 2, 0 },			/* bad continuation */
		{ "a\0b", 3, 1 },			/* NUL is UTF-8; valid_text refuses it */
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_assert_eq(valid_utf8(cases[i].s, cases[i].n), cases[i].ok, "case %zu", i);
}

Test(valid, text_controls)
{
	cr_assert(valid_text("line\tone\r\ntwo", 13, 0));
	cr_assert_not(valid_text("line\tone", 8, 1), "no tab in a key");
	cr_assert_not(valid_text("a\0b", 3, 0));
	cr_assert_not(valid_text("a\x01" "b", 3, 0));
	cr_assert_not(valid_text("a\x1f", 2, 0));
	cr_assert_not(valid_text("a\x7f", 2, 0));
	cr_assert_not(valid_text("\xc0\xaf", 2, 0));
	cr_assert(valid_text("\xc2\x85", 2, 0), "C1 controls are left to the fields");
}
