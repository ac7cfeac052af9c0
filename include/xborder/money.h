/*
 * money.h: the service's currency table.  Amounts are always int64_t minor
 * units; nothing here uses floating point.
 */
#ifndef XBORDER_MONEY_H
#define XBORDER_MONEY_H

struct currency {
	const char	*code;		/* ISO 4217 */
	int		 exponent;	/* minor-unit digits */
};

/* The entry for an ISO 4217 code, or NULL when the service does not know it. */
const struct currency *money_currency(const char *code);

/* 1 when s is exactly three uppercase ASCII letters. */
int money_code_form(const char *s);

#endif
