/* Unit tests of masking, fingerprints, the sandbox outcome rule and the
 * PPV name and account-number validators. */
#include <criterion/criterion.h>
#include <string.h>

#include "xborder/bankacct.h"
#include "xborder/valid.h"

static const unsigned char key1[BANKACCT_KEY_LEN] = { 1, 2, 3 };
static const unsigned char key2[BANKACCT_KEY_LEN] = { 9, 9, 9 };

Test(bankacct, last4)
{
	char out[5];

	bankacct_last4("123456789", out);
	cr_assert_str_eq(out, "6789");
	bankacct_last4("ABCD", out);
	cr_assert_str_eq(out, "ABCD");
}

Test(bankacct, fingerprint_is_keyed_and_hides_the_number)
{
	char a[65], b[65], c[65], d[65];

	bankacct_fingerprint(key1, "123456789", "021000021", a);
	bankacct_fingerprint(key1, "123456789", "021000021", b);
	bankacct_fingerprint(key2, "123456789", "021000021", c);
	bankacct_fingerprint(key1, "123456780", "021000021", d);
	cr_assert_eq(strlen(a), 64);
	cr_assert_str_eq(a, b, "deterministic");
	cr_assert_str_neq(a, c, "depends on the key");
	cr_assert_str_neq(a, d, "depends on the number");
	cr_assert_null(strstr(a, "123456789"));
}

Test(bankacct, fingerprint_ignores_letter_case_but_not_routing)
{
	char a[65], b[65], c[65];

	bankacct_fingerprint(key1, "gb29nwbk", "1234", a);
	bankacct_fingerprint(key1, "GB29NWBK", "1234", b);
	bankacct_fingerprint(key1, "GB29NWBK", "1235", c);
	cr_assert_str_eq(a, b);
	cr_assert_str_neq(a, c);
}

Test(bankacct, fingerprint_separates_fields)
{
	char a[65], b[65];

	bankacct_fingerprint(key1, "12345", "6789", a);
	bankacct_fingerprint(key1, "1234", "56789", b);
	cr_assert_str_neq(a, b);
}

Test(bankacct, sandbox_outcomes)
{
	cr_assert_eq(bankacct_outcome_last4("9002"), BANK_FAILS);
	cr_assert_eq(bankacct_outcome_last4("1005"), BANK_RETURNS);
	cr_assert_eq(bankacct_outcome_last4("0020"), BANK_COMPLETES);
	cr_assert_eq(bankacct_outcome_last4("1234"), BANK_COMPLETES);
	cr_assert_eq(bankacct_outcome_last4("7003"), BANK_HOLDS);
	cr_assert_eq(bankacct_outcome_last4("0030"), BANK_COMPLETES);
	cr_assert_str_eq(bankacct_outcome_name("9002", 0), "FAILS");
	cr_assert_str_eq(bankacct_outcome_name("9002", 1), "FAILS");
	cr_assert_str_eq(bankacct_outcome_name("7003", 0), "HOLDS");
	cr_assert_str_eq(bankacct_outcome_name("7003", 1), "HOLDS");
	cr_assert_str_eq(bankacct_outcome_name("1005", 0), "COMPLETES");
	cr_assert_str_eq(bankacct_outcome_name("1005", 1), "RETURNS");
	cr_assert_str_eq(bankacct_outcome_name("1234", 1), "COMPLETES");
}

Test(valid, ppv_names)
{
	const char *good[] = { "a", "0", "ann.lee", "a_b-c.d", "x123456789012345678901234567890123456789012345678901234567890123" };
	const char *bad[] = { "", "A", ".a", "-a", "_a", "a b", "a@b", "ann$", "é",
	    "x1234567890123456789012345678901234567890123456789012345678901234" };

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		cr_assert_null(valid_ppv_name(good[i]), "%s", good[i]);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_not_null(valid_ppv_name(bad[i]), "%s", bad[i]);
}

Test(valid, account_and_routing_numbers)
{
	cr_assert_null(valid_account_number("1234"));
	cr_assert_null(valid_account_number("GB29NWBK60161331926819"));
	cr_assert_null(valid_account_number("1234567890123456789012345678901234"));
	cr_assert_not_null(valid_account_number("123"));
	cr_assert_not_null(valid_account_number("12345678901234567890123456789012345"));
	cr_assert_not_null(valid_account_number("1234-5678"));
	cr_assert_not_null(valid_account_number("1234 5678"));
	cr_assert_null(valid_routing_number("021000021"));
	cr_assert_null(valid_routing_number("NWBKGB2L"));
	cr_assert_not_null(valid_routing_number("123456789012"));
	cr_assert_not_null(valid_routing_number("12"));
}
