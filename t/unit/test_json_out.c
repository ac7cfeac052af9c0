/* Unit tests of the JSON pieces responses are built from (h_common.c). */
#include <criterion/criterion.h>

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "xborder/handlers.h"

static void
money_is(const char *cur, int64_t amount, const char *want)
{
	json_object *o = json_money(cur, amount);

	cr_assert_str_eq(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN), want,
	    "%" PRId64, amount);
	json_object_put(o);
}

Test(json_out, money_amounts_in_decimal)
{
	char want[96];
	const int64_t v[] = { 0, 1, 9, 10, 99, 100, 123456789, -1, -10, -4500,
	    INT64_MAX, INT64_MIN, INT64_MIN + 1 };

	money_is("USD", 0, "{\"currencyCode\":\"USD\",\"amountMinor\":\"0\"}");
	money_is("JPY", -4500, "{\"currencyCode\":\"JPY\",\"amountMinor\":\"-4500\"}");
	money_is("EUR", INT64_MIN,
	    "{\"currencyCode\":\"EUR\",\"amountMinor\":\"-9223372036854775808\"}");
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		snprintf(want, sizeof(want), "{\"currencyCode\":\"KWD\",\"amountMinor\":\"%"
		    PRId64 "\"}", v[i]);
		money_is("KWD", v[i], want);
	}
}

Test(json_out, prefixed_ids)
{
	char longid[200];
	json_object *o = json_prefixed("Transaction", "5469b2a1-3163-4d81-bd8c-065ead9ccea0");

	cr_assert_str_eq(json_object_get_string(o),
	    "Transaction:5469b2a1-3163-4d81-bd8c-065ead9ccea0");
	cr_assert_eq(json_object_get_string_len(o), 48);
	json_object_put(o);
	o = json_prefixed("Quote", "");
	cr_assert_str_eq(json_object_get_string(o), "Quote:");
	json_object_put(o);
	/* Longer than any id: cut at 127 characters, as snprintf did. */
	memset(longid, 'a', sizeof(longid) - 1);
	longid[sizeof(longid) - 1] = '\0';
	o = json_prefixed("Customer", longid);
	cr_assert_eq(json_object_get_string_len(o), 127);
	cr_assert_eq(strncmp(json_object_get_string(o), "Customer:aaa", 12), 0);
	json_object_put(o);
}
