/* Unit tests of the parse stage: query strings, media types, JSON bodies. */
#include <criterion/criterion.h>
#include <string.h>

#include "xborder/http.h"
#include "xborder/req.h"

Test(http, query_parse_and_get)
{
	struct req req;

	memset(&req, 0, sizeof(req));
	cr_assert_eq(http_query_parse("limit=5&cursor=10&name=a%20b+c&flag&&x=", &req.query,
	    &req.nquery), 0);
	cr_assert_eq(req.nquery, 5);
	const char *v = NULL;
	cr_assert_eq(http_query_get(&req, "limit", &v), 1);
	cr_assert_str_eq(v, "5");
	cr_assert_eq(http_query_get(&req, "name", &v), 1);
	cr_assert_str_eq(v, "a b c");
	cr_assert_eq(http_query_get(&req, "flag", &v), 1);
	cr_assert_str_eq(v, "");
	cr_assert_eq(http_query_get(&req, "x", &v), 1);
	cr_assert_str_eq(v, "");
	cr_assert_eq(http_query_get(&req, "missing", &v), 0);
	http_query_free(req.query, req.nquery);
}

Test(http, query_duplicate)
{
	struct req req;
	const char *v;

	memset(&req, 0, sizeof(req));
	cr_assert_eq(http_query_parse("limit=5&limit=6", &req.query, &req.nquery), 0);
	cr_assert_eq(http_query_get(&req, "limit", &v), -1);
	http_query_free(req.query, req.nquery);
}

Test(http, query_malformed_escape)
{
	struct req req;
	const char *v = NULL;

	memset(&req, 0, sizeof(req));
	/* A bad value is kept as malformed; a bad name is dropped; others survive. */
	cr_assert_eq(http_query_parse("a=%zz&b=%00&c%zz=1&limit=1", &req.query, &req.nquery), 0);
	cr_assert_eq(req.nquery, 3);
	cr_assert_eq(http_query_get(&req, "a", &v), -2);
	cr_assert_eq(http_query_get(&req, "b", &v), -2);
	cr_assert_eq(http_query_get(&req, "limit", &v), 1);
	cr_assert_str_eq(v, "1");
	http_query_free(req.query, req.nquery);
}

Test(http, json_media_type)
{
	cr_assert(http_is_json_type("application/json"));
	cr_assert(http_is_json_type("application/json; charset=utf-8"));
	cr_assert(http_is_json_type("Application/JSON;charset=UTF-8"));
	cr_assert_not(http_is_json_type("application/jsonx"));
	cr_assert_not(http_is_json_type("text/plain"));
	cr_assert_not(http_is_json_type("application/x-www-form-urlencoded"));
	cr_assert_not(http_is_json_type(""));
	cr_assert_not(http_is_json_type(NULL));
}

Test(http, json_parse_strict)
{
	json_object *o;

	o = http_parse_json("{\"a\":1}", 7);
	cr_assert_not_null(o);
	json_object_put(o);
	o = http_parse_json(" {\"a\":1}\n ", 10);
	cr_assert_not_null(o);
	json_object_put(o);
	cr_assert_null(http_parse_json("{\"a\":1}x", 8), "trailing garbage");
	cr_assert_null(http_parse_json("{\"a\":1", 6), "truncated");
	cr_assert_null(http_parse_json("{'a':1}", 7), "single quotes");
	cr_assert_null(http_parse_json("{\"a\":1,}", 8), "trailing comma");
	cr_assert_null(http_parse_json("", 0), "empty");
	o = http_parse_json("[1]", 3);
	cr_assert_not_null(o, "arrays parse; the caller rejects non-objects");
	json_object_put(o);
}

/* The text check of a parsed body: 0, or -1 with the field named. */
static int
text_check(const char *body, char *path, size_t cap)
{
	json_object *o = http_parse_json(body, strlen(body));
	const char *rule = NULL;
	int rc;

	cr_assert_not_null(o, "did not parse: %s", body);
	rc = http_json_text_check(o, path, cap, &rule);
	if (rc < 0)
		cr_assert_not_null(rule);
	json_object_put(o);
	return rc;
}

Test(http, json_text_is_checked)
{
	struct { const char *body, *path; } bad[] = {
		{ "{\"fullName\":\"a\xc0\xaf" "b\"}", "fullName" },
		{ "{\"name\":\"\xed\xa0\x80\"}", "name" },
		{ "{\"name\":\"\xf4\x90\x80\x80\"}", "name" },
		{ "{\"name\":\"\\ud800\"}", "name" },
		{ "{\"name\":\"x\\udc00y\"}", "name" },
		{ "{\"name\":\"\\ud800\\u0041\"}", "name" },
		{ "{\"name\":\"nul\\u0000byte\"}", "name" },
		{ "{\"name\":\"bell\\u0007\"}", "name" },
		{ "{\"name\":\"del\\u007f\"}", "name" },
		{ "{\"accountInfo\":{\"bankName\":\"\xc3\"}}", "accountInfo.bankName" },
		{ "{\"permissions\":[\"view\",\"\xff\"]}", "permissions[1]" },
		{ "{\"a\":{\"b\\u0001\":1}}", "a" },
		{ "{\"\xc0\xaf\":1}", "body" },
	};
	const char *good[] = {
		"{\"name\":\"caf\xc3\xa9 \\u00e9 \\ud83d\\ude00 \xf0\x9f\x98\x80\"}",
		"{\"note\":\"two\\nlines\\tand\\r\\n\"}",
		"{\"list\":[1,true,null,{\"k\":\"\\ufffd\"}]}",
	};
	char path[256];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_assert_eq(text_check(bad[i].body, path, sizeof(path)), -1, "accepted %s",
		    bad[i].body);
		cr_assert_str_eq(path, bad[i].path, "case %zu", i);
	}
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		cr_assert_eq(text_check(good[i], path, sizeof(path)), 0, "refused %s", good[i]);
}

Test(http, json_rejects_extensions)
{
	const char *bad[] = { "{\"a\":1 /* c */}", "{\"a\":NaN}", "{\"a\":Infinity}",
	    "// c\n{}", "{\"a\":'x'}", "{a:1}", "{\"a\":\"x\ny\"}", "{\"a\":01}",
	    "{\"a\":0x10}", "{\"a\":1}{}", "{\"a\":nan}", "{\"a\":tru}", "{\"a\":- 1}" };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		json_object *o = http_parse_json(bad[i], strlen(bad[i]));

		cr_assert_null(o, "accepted %s", bad[i]);
	}
}

Test(http, json_accepts_standard)
{
	const char *good[] = { "{}", "{\"a\":[1,-2.5e3,true,false,null,\"x\\\"y\\\\\"]}",
	    "{\"a\":{\"b\":\"\\u00e9\"}}", "\t{ \"a\" : 1 }\r\n" };

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		json_object *o = http_parse_json(good[i], strlen(good[i]));

		cr_assert_not_null(o, "rejected %s", good[i]);
		json_object_put(o);
	}
}
