/*
 * money.c: the currency table (ISO 4217 codes with their minor-unit
 * exponents).  Later issues add exact FX arithmetic here.
 */
#include "config.h"

#include <string.h>

#include "xborder/money.h"

static const struct currency currencies[] = {
	{ "AED", 2 }, { "ARS", 2 }, { "AUD", 2 }, { "BHD", 3 }, { "BRL", 2 },
	{ "CAD", 2 }, { "CHF", 2 }, { "CLP", 0 }, { "CNY", 2 }, { "COP", 2 },
	{ "CZK", 2 }, { "DKK", 2 }, { "EGP", 2 }, { "EUR", 2 }, { "GBP", 2 },
	{ "GHS", 2 }, { "HKD", 2 }, { "HUF", 2 }, { "IDR", 2 }, { "ILS", 2 },
	{ "INR", 2 }, { "ISK", 0 }, { "JOD", 3 }, { "JPY", 0 }, { "KES", 2 },
	{ "KRW", 0 }, { "KWD", 3 }, { "MAD", 2 }, { "MXN", 2 }, { "MYR", 2 },
	{ "NGN", 2 }, { "NOK", 2 }, { "NZD", 2 }, { "OMR", 3 }, { "PEN", 2 },
	{ "PHP", 2 }, { "PKR", 2 }, { "PLN", 2 }, { "RON", 2 }, { "SAR", 2 },
	{ "SEK", 2 }, { "SGD", 2 }, { "THB", 2 }, { "TND", 3 }, { "TRY", 2 },
	{ "TWD", 2 }, { "UGX", 0 }, { "USD", 2 }, { "VND", 0 }, { "XAF", 0 },
	{ "XOF", 0 }, { "ZAR", 2 },
};

int
money_code_form(const char *s)
{
	if (s == NULL || strlen(s) != 3)
		return 0;
	for (int i = 0; i < 3; i++)
		if (s[i] < 'A' || s[i] > 'Z')
			return 0;
	return 1;
}

const struct currency *
money_currency(const char *code)
{
	size_t lo = 0, hi = sizeof(currencies) / sizeof(currencies[0]);

	if (!money_code_form(code))
		return NULL;
	/* The table is sorted by code. */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(code, currencies[mid].code);

		if (c == 0)
			return &currencies[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}
