/*
 * Unit tests of jtext.c: written JSON must be the bytes json-c writes with
 * JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE (every response
 * and event body is serialized so), held here to json-c itself: escaping
 * of every byte, commas of nested objects and arrays, a written value put
 * inside json-c objects, and the MoneyAmount.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "xborder/handlers.h"
#include "xborder/jtext.h"

#define FLAGS (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

/* json-c's text of the string s. */
static char *
jsonc_str(const char *s, size_t n)
{
	json_object *o = json_object_new_string_len(s, (int)n);
	char *t = strdup(json_object_to_json_string_ext(o, FLAGS));

	json_object_put(o);
	return t;
}

static char *
jt_of_str(const char *s)
{
	struct jtext j;

	jt_init(&j);
	jt_str(&j, s);
	return jt_take(&j, NULL);
}

Test(jtext, every_byte_escaped_as_json_c_does)
{
	for (int c = 1; c < 256; c++) {
		char s[4] = { 'a', (char)c, 'z', '\0' };
		char *want = jsonc_str(s, 3), *got = jt_of_str(s);

		cr_assert_str_eq(got, want, "byte 0x%02x", c);
		free(want);
		free(got);
	}
}

Test(jtext, mixed_strings_as_json_c)
{
	static const char *const v[] = { "", "plain", "a/b", "quote\"back\\slash",
	    "\x01\x1f\x7f", "tab\there\nnew\rline\b\f", "caf\xc3\xa9 \xe2\x82\xac",
	    "\"\"\"", "\\\\" };

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		char *want = jsonc_str(v[i], strlen(v[i])), *got = jt_of_str(v[i]);

		cr_assert_str_eq(got, want, "string %zu", i);
		free(want);
		free(got);
	}
}

Test(jtext, nesting_and_commas_as_json_c)
{
	json_object *o = json_object_new_object(), *a = json_object_new_array(), *in;
	struct jtext j;
	char *got;

	json_object_object_add(o, "s", json_object_new_string("x"));
	json_object_object_add(o, "n", NULL);
	json_object_object_add(o, "t", json_object_new_boolean(1));
	json_object_array_add(a, json_object_new_string("1"));
	json_object_array_add(a, NULL);
	in = json_object_new_object();
	json_object_object_add(in, "f", json_object_new_boolean(0));
	json_object_array_add(a, in);
	json_object_array_add(a, json_object_new_array());
	json_object_object_add(o, "a", a);
	json_object_object_add(o, "e", json_object_new_object());

	jt_init(&j);
	jt_open(&j, '{');
	jt_key(&j, "s");
	jt_str(&j, "x");
	jt_key(&j, "n");
	jt_null(&j);
	jt_key(&j, "t");
	jt_bool(&j, 1);
	jt_key(&j, "a");
	jt_open(&j, '[');
	jt_str(&j, "1");
	jt_null(&j);
	jt_open(&j, '{');
	jt_key(&j, "f");
	jt_bool(&j, 0);
	jt_close(&j, '}');
	jt_open(&j, '[');
	jt_close(&j, ']');
	jt_close(&j, ']');
	jt_key(&j, "e");
	jt_open(&j, '{');
	jt_close(&j, '}');
	jt_close(&j, '}');
	got = jt_take(&j, NULL);
	cr_assert_str_eq(got, json_object_to_json_string_ext(o, FLAGS));
	free(got);
	json_object_put(o);
}

Test(jtext, members_spliced_and_text_values_inside_json_c)
{
	struct jtext j;
	json_object *o = json_object_new_object(), *arr = json_object_new_array();
	char *text;

	jt_init(&j);
	jt_open(&j, '{');
	jt_key(&j, "a");
	jt_i64_str(&j, -42);
	jt_members(&j, "{\"b\":1,\"c\":[true]}");
	jt_members(&j, "{}");
	jt_close(&j, '}');
	text = jt_take(&j, NULL);
	cr_assert_str_eq(text, "{\"a\":\"-42\",\"b\":1,\"c\":[true]}");

	json_object_array_add(arr, json_text(text));	/* arr owns text now */
	json_object_array_add(arr, json_money("JPY", 0));
	json_object_object_add(o, "data", arr);
	json_object_object_add(o, "n", json_object_new_int64(2));
	cr_assert_str_eq(json_object_to_json_string_ext(o, FLAGS),
	    "{\"data\":[{\"a\":\"-42\",\"b\":1,\"c\":[true]},"
	    "{\"currencyCode\":\"JPY\",\"amountMinor\":\"0\"}],\"n\":2}");
	json_object_put(o);
}

Test(jtext, i64_digits_at_the_limits)
{
	const int64_t v[] = { 0, 7, -7, 10, INT64_MAX, INT64_MIN, INT64_MIN + 1 };
	char buf[24], want[24];

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		char *p = i64_digits(v[i], buf + sizeof(buf) - 1);

		buf[sizeof(buf) - 1] = '\0';
		snprintf(want, sizeof(want), "%" PRId64, v[i]);
		cr_assert_str_eq(p, want);
	}
}

Test(jtext, prefixed_cut_as_json_prefixed)
{
	char kind[100], id[200];
	struct jtext j;
	json_object *o;
	char *got;

	memset(kind, 'K', sizeof(kind) - 1);
	kind[sizeof(kind) - 1] = '\0';
	memset(id, 'i', sizeof(id) - 1);
	id[sizeof(id) - 1] = '\0';
	jt_init(&j);
	jt_prefixed(&j, kind, id);
	got = jt_take(&j, NULL);
	o = json_prefixed(kind, id);
	cr_assert_str_eq(got, json_object_to_json_string_ext(o, FLAGS));
	cr_assert_eq(strlen(got), 127 + 2, "cut to 127 characters, quoted");
	json_object_put(o);
	free(got);
}

Test(jtext, as_text_writes_what_json_c_writes_every_time)
{
	json_object *o = json_object_new_object(), *a = json_object_new_array(), *t;
	char *want;

	json_object_object_add(o, "name", json_object_new_string("a \"b\"\n/c"));
	json_object_object_add(o, "n", json_object_new_int64(-42));
	json_object_array_add(a, json_object_new_boolean(1));
	json_object_array_add(a, NULL);
	json_object_object_add(o, "list", a);
	want = strdup(json_object_to_json_string_ext(o, FLAGS));
	t = json_as_text(o);	/* o is put */
	cr_expect_str_eq(json_object_to_json_string_ext(t, FLAGS), want);
	/* Shared by answer after answer: the same bytes each time. */
	cr_expect_str_eq(json_object_to_json_string_ext(t, FLAGS), want);
	json_object_put(t);
	free(want);
}
