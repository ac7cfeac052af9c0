/* Unit tests of the currency table. */
#include <criterion/criterion.h>

#include "xborder/money.h"

Test(money, known_currencies_and_exponents)
{
	struct { const char *code; int exp; } want[] = {
		{ "USD", 2 }, { "EUR", 2 }, { "GBP", 2 }, { "MXN", 2 }, { "BRL", 2 },
		{ "INR", 2 }, { "NGN", 2 }, { "PHP", 2 }, { "CAD", 2 }, { "JPY", 0 },
		{ "KRW", 0 }, { "KWD", 3 }, { "BHD", 3 },
	};

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct currency *c = money_currency(want[i].code);

		cr_assert_not_null(c, "%s", want[i].code);
		cr_assert_eq(c->exponent, want[i].exp, "%s", want[i].code);
	}
}

Test(money, unknown_and_malformed)
{
	cr_assert_null(money_currency("XXQ"));
	cr_assert_null(money_currency("usd"));
	cr_assert_null(money_currency("US"));
	cr_assert_null(money_currency("USDD"));
	cr_assert_null(money_currency(""));
	cr_assert_null(money_currency(NULL));
	cr_assert(money_code_form("XXQ"));
	cr_assert_not(money_code_form("Usd"));
}
