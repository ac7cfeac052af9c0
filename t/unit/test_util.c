/*
 * Unit tests of the string helpers of util.c: str_copy's cut, terminator
 * and NULL, and parse_i64_digits' limits.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "xborder/util.h"

Test(str_copy, copies_a_string_that_fits)
{
	char buf[8];

	memset(buf, 'z', sizeof(buf));
	str_copy(buf, sizeof(buf), "abc");
	cr_assert_str_eq(buf, "abc");
	str_copy(buf, sizeof(buf), "1234567");
	cr_assert_str_eq(buf, "1234567", "exactly n - 1 bytes fit");
}

Test(str_copy, cuts_what_does_not_fit_and_terminates)
{
	char buf[8];

	memset(buf, 'z', sizeof(buf));
	str_copy(buf, sizeof(buf), "12345678901");
	cr_assert_str_eq(buf, "1234567");
	str_copy(buf, 1, "abc");
	cr_assert_eq(buf[0], '\0', "one byte holds only the terminator");
}

Test(str_copy, null_is_empty_and_n_zero_writes_nothing)
{
	char buf[4] = "xyz";

	str_copy(buf, sizeof(buf), NULL);
	cr_assert_str_eq(buf, "");
	memcpy(buf, "xyz", 4);
	str_copy(buf, 0, "abc");
	cr_assert_str_eq(buf, "xyz");
}

Test(str_copy, reads_no_further_than_it_copies)
{
	/* Not terminated: only the first n - 1 bytes may be read. */
	const char src[4] = { 'a', 'b', 'c', 'd' };
	char buf[3];

	str_copy(buf, sizeof(buf), src);
	cr_assert_str_eq(buf, "ab");
}

Test(parse_i64_digits, limits)
{
	int64_t v = 0;

	cr_assert_eq(parse_i64_digits("9223372036854775807", &v), 0);
	cr_assert_eq(v, INT64_MAX);
	cr_assert_eq(parse_i64_digits("9223372036854775808", &v), -1);
	cr_assert_eq(parse_i64_digits("", &v), -1);
	cr_assert_eq(parse_i64_digits("-1", &v), -1);
	cr_assert_eq(parse_i64_digits("12a", &v), -1);
}
