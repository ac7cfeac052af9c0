/*
 * Unit tests of the parse stage (query strings, media types, JSON bodies)
 * and of what the response writer adds to every answer (the retry advice).
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "xborder/http.h"
#include "xborder/req.h"
#include "xborder/resp.h"

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
	req_query_free(req.query, req.nquery);
}

Test(http, query_duplicate)
{
	struct req req;
	const char *v;

	memset(&req, 0, sizeof(req));
	cr_assert_eq(http_query_parse("limit=5&limit=6", &req.query, &req.nquery), 0);
	cr_assert_eq(http_query_get(&req, "limit", &v), -1);
	req_query_free(req.query, req.nquery);
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
	req_query_free(req.query, req.nquery);
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

/* ---- the retry advice of resp_render() ---- */

/*
 * Renders an answer of status with error code (NULL: a plain body) to a
 * request of method, with or without Idempotency-Key, whose handler did
 * or did not start, after the extra header hname: hvalue (NULL: none).
 * Returns the rendered text; caller frees.
 */
static char *
render(enum http_method method, const char *key, int started, int status,
    const char *code, const char *hname, const char *hvalue)
{
	struct req req;
	size_t len;
	char *text;

	memset(&req, 0, sizeof(req));
	req.method = method;
	req.idempotency_key = key;
	req.handler_started = started;
	if (hname != NULL)
		resp_header(&req, hname, hvalue);
	if (code != NULL)
		resp_error(&req, status, code, "m", NULL);
	else
		resp_json(&req, status, json_object_new_object());
	text = resp_render(&req, &len);
	cr_assert_eq(strlen(text), len);
	if (req.out != NULL)
		json_object_put(req.out);
	return text;
}

/* The head of a rendered answer holds line (with its CRLF), or not. */
static void
head_has(const char *text, const char *line, int want)
{
	const char *end = strstr(text, "\r\n\r\n");
	const char *at = strstr(text, line);

	cr_assert_not_null(end);
	cr_assert_eq(at != NULL && at < end, want, "%s %s in:\n%s", line,
	    want ? "missing" : "present", text);
}

Test(resp, retry_advice_none_below_400)
{
	char *t = render(M_POST, NULL, 1, 201, NULL, NULL, NULL);

	head_has(t, "x-should-retry:", 0);
	head_has(t, "Retry-After:", 0);
	free(t);
}

Test(resp, retry_advice_false_on_final_4xx)
{
	static const struct { int status; const char *code; } c[] = {
		{ 400, "INVALID_REQUEST" }, { 401, "UNAUTHORIZED" }, { 403, "FORBIDDEN" },
		{ 404, "NOT_FOUND" }, { 405, "METHOD_NOT_ALLOWED" },
		{ 409, "IDEMPOTENCY_KEY_REUSED" }, { 409, "INSUFFICIENT_FUNDS" },
		{ 410, "GONE" }, { 413, "PAYLOAD_TOO_LARGE" },
		{ 415, "UNSUPPORTED_MEDIA_TYPE" },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char *t = render(M_GET, NULL, 1, c[i].status, c[i].code, NULL, NULL);

		head_has(t, "\r\nx-should-retry: false\r\n", 1);
		head_has(t, "Retry-After:", 0);
		free(t);
	}
}

Test(resp, retry_advice_true_with_retry_after)
{
	char *t;

	/* 409 IDEMPOTENCY_KEY_IN_USE: a default Retry-After of 1 s. */
	t = render(M_POST, "k", 1, 409, "IDEMPOTENCY_KEY_IN_USE", NULL, NULL);
	head_has(t, "\r\nx-should-retry: true\r\n", 1);
	head_has(t, "\r\nRetry-After: 1\r\n", 1);
	free(t);
	/* 429: the handler's Retry-After, once. */
	t = render(M_GET, NULL, 0, 429, "RATE_LIMITED", "Retry-After", "42");
	head_has(t, "\r\nx-should-retry: true\r\n", 1);
	head_has(t, "\r\nRetry-After: 42\r\n", 1);
	cr_assert_null(strstr(strstr(t, "Retry-After: 42") + 1, "Retry-After"));
	free(t);
	/* 503 without a time of its own: 5 s. */
	t = render(M_GET, NULL, 1, 503, "SERVICE_UNAVAILABLE", NULL, NULL);
	head_has(t, "\r\nx-should-retry: true\r\n", 1);
	head_has(t, "\r\nRetry-After: 5\r\n", 1);
	free(t);
	/* 500 to a GET: 1 s. */
	t = render(M_GET, NULL, 1, 500, "INTERNAL_ERROR", NULL, NULL);
	head_has(t, "\r\nx-should-retry: true\r\n", 1);
	head_has(t, "\r\nRetry-After: 1\r\n", 1);
	free(t);
}

Test(resp, retry_advice_5xx_to_post)
{
	char *t;

	/* Without a key, after the handler started: it may have acted. */
	t = render(M_POST, NULL, 1, 503, "SERVICE_UNAVAILABLE", "Retry-After", "5");
	head_has(t, "\r\nx-should-retry: false\r\n", 1);
	head_has(t, "Retry-After:", 0);
	free(t);
	t = render(M_POST, NULL, 1, 500, "INTERNAL_ERROR", NULL, NULL);
	head_has(t, "\r\nx-should-retry: false\r\n", 1);
	head_has(t, "Retry-After:", 0);
	free(t);
	/* Without a key, before the handler (credentials, database down). */
	t = render(M_POST, NULL, 0, 503, "SERVICE_UNAVAILABLE", "Retry-After", "5");
	head_has(t, "\r\nx-should-retry: true\r\n", 1);
	head_has(t, "\r\nRetry-After: 5\r\n", 1);
	free(t);
	/* With a key: a repeat replays or runs once. */
	t = render(M_POST, "k", 1, 503, "SERVICE_UNAVAILABLE", "Retry-After", "5");
	head_has(t, "\r\nx-should-retry: true\r\n", 1);
	head_has(t, "\r\nRetry-After: 5\r\n", 1);
	free(t);
	/* PATCH and DELETE set a state: a repeat is safe. */
	t = render(M_PATCH, NULL, 1, 500, "INTERNAL_ERROR", NULL, NULL);
	head_has(t, "\r\nx-should-retry: true\r\n", 1);
	free(t);
	t = render(M_DELETE, NULL, 1, 503, "SERVICE_UNAVAILABLE", NULL, NULL);
	head_has(t, "\r\nx-should-retry: true\r\n", 1);
	free(t);
}
