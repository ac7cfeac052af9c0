/*
 * money.c: the currency table (ISO 4217 codes with their minor-unit
 * exponents) and the exact FX pricing of a quote (decisions.md section 9).
 * Pricing is integer arithmetic only: int64_t amounts, every product and
 * quotient in 128 bits, and a value that does not fit is refused, never
 * wrapped.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "xborder/money.h"

typedef __int128 i128;

#define BPS		10000	/* basis points in 1 */
#define RATE_DIGITS	8	/* decimals of exchangeRate */
#define RATE_SCALE	100000000LL	/* 10^RATE_DIGITS */

static int	 mul_div(int64_t, int64_t, int, int64_t, int, int, int64_t *);
static i128	 with_fees(i128, int);
static int	 largest_principal(int64_t, int, int64_t *);
static int	 i128_dec(i128, char *, size_t);
static int	 format_rate(const struct money_quote_in *, char *, size_t);
static int	 inputs_valid(const struct money_quote_in *);
static int	 rate_only(const struct money_quote_in *, struct money_quote *);

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

/*
 * floor (up == 0) or ceil (up == 1) of a * b * c / (d * e), exactly, for
 * a, b >= 0, d >= 1 and 1 <= c, e <= BPS.  The numerator can reach 2^140,
 * past 128 bits, so it is never formed: with a * b = q * d + r,
 *   a * b * c / d = q * c + r * c / d,
 * and floor(floor(x / d) / e) = floor(x / (d * e)) (likewise for ceil), so
 * the division by d * e is done in two steps on values below 2^91.
 * Returns 0 with the result in *res, or -1 when it does not fit in int64_t.
 */
static int
mul_div(int64_t a, int64_t b, int c, int64_t d, int e, int up, int64_t *res)
{
	i128 n, q, r, t;

	if (a < 0 || b < 0 || d < 1 || c < 1 || c > BPS || e < 1 || e > BPS)
		return -1;
	n = (i128)a * b;		/* < 2^126 */
	q = n / d;
	r = n % d;
	/*
	 * The result is at least floor(q * c / e) >= floor(q / e); once that
	 * is 2^63 or more it cannot fit.  Past this test q < 2^63 * e < 2^77.
	 */
	if (q >= ((i128)INT64_MAX + 1) * e)
		return -1;
	if (up)
		t = q * c + (r * c + d - 1) / d;
	else
		t = q * c + r * c / d;
	t = up ? (t + e - 1) / e : t / e;
	if (t > INT64_MAX)
		return -1;
	*res = (int64_t)t;
	return 0;
}

/* P + ceil(P * F / 10000) for P >= 0: what the sender pays for principal P. */
static i128
with_fees(i128 p, int f)
{
	return p + (p * f + BPS - 1) / BPS;
}

/*
 * The largest P >= 0 with P + ceil(P * F / 10000) <= S.  Since
 * P + ceil(P * F / 10000) = ceil(P * (10000 + F) / 10000) and S is an
 * integer, the estimate floor(S * 10000 / (10000 + F)) is already that P;
 * the one-step corrections and the final check only guard the argument.
 * Returns 0, or -1 if the check fails (it cannot).
 */
static int
largest_principal(int64_t s, int f, int64_t *res)
{
	i128 p;

	p = (i128)s * BPS / (BPS + f);
	if (p > 0 && with_fees(p, f) > s)
		p--;
	else if (with_fees(p + 1, f) <= s)
		p++;
	if (p < 0 || p > INT64_MAX || with_fees(p, f) > s ||
	    with_fees(p + 1, f) <= s)
		return -1;
	*res = (int64_t)p;
	return 0;
}

/*
 * Writes v (>= 0) in decimal into buf; snprintf has no conversion for
 * __int128.  Returns 0, or -1 when v is negative or buf is too small.
 */
static int
i128_dec(i128 v, char *buf, size_t sz)
{
	char tmp[40];		/* 2^127 has 39 digits */
	size_t n = 0;

	if (v < 0)
		return -1;
	do {
		tmp[n++] = '0' + (int)(v % 10);
		v /= 10;
	} while (v > 0);
	if (n + 1 > sz)
		return -1;
	for (size_t i = 0; i < n; i++)
		buf[i] = tmp[n - 1 - i];
	buf[n] = '\0';
	return 0;
}

/*
 * exchangeRate, major units of receiving per sending,
 * (pr / 10^er) / (ps / 10^es) * (10000 - sp) / 10000 truncated to 8
 * decimals: q = floor(pr * 10^es * (10000 - sp) * 10^8 /
 * (ps * 10^er * 10000)), printed as q / 10^8 "." q % 10^8 on 8 digits.
 * With inputs in range the numerator stays below 2^63 * 10^16 < 2^117 and
 * the denominator below 2^63 * 10^8, so neither can overflow.
 * Returns 0, or -1 when the string does not fit in buf.
 */
static int
format_rate(const struct money_quote_in *in, char *buf, size_t sz)
{
	static const int64_t pow10[] = { 1, 10, 100, 1000, 10000 };
	char ip[40];
	i128 num, den, q;
	int n;

	num = (i128)in->pr * pow10[in->es] * (BPS - in->spread_bps) * RATE_SCALE;
	den = (i128)in->ps * pow10[in->er] * BPS;
	q = num / den;
	if (i128_dec(q / RATE_SCALE, ip, sizeof(ip)) < 0)
		return -1;
	n = snprintf(buf, sz, "%s.%08" PRId64, ip, (int64_t)(q % RATE_SCALE));
	if (n < 0 || (size_t)n >= sz)
		return -1;
	return 0;
}

/* 1 when every input but the amount lies in its range (money.h). */
static int
inputs_valid(const struct money_quote_in *in)
{
	return in->ps >= 1 && in->pr >= 1 && in->es >= 0 && in->es <= 4 &&
	    in->er >= 0 && in->er <= 4 && in->spread_bps >= 0 &&
	    in->spread_bps <= 2 * BPS && in->fee_s_bps >= 0 &&
	    in->fee_s_bps <= BPS && in->fee_r_bps >= 0 && in->fee_r_bps <= BPS &&
	    (in->lock_sending == 0 || in->lock_sending == 1);
}

/*
 * The rate of a corridor without an amount: the inputs checked as
 * money_quote_price() checks them (the amount aside) and the rate it
 * would print.  Returns 0 with out->rate set and every amount 0, or -1.
 */
static int
rate_only(const struct money_quote_in *in, struct money_quote *out)
{
	memset(out, 0, sizeof(*out));
	if (!inputs_valid(in) || in->spread_bps >= BPS)
		return -1;
	if (format_rate(in, out->rate, sizeof(out->rate)) < 0) {
		memset(out, 0, sizeof(*out));
		return -1;
	}
	return 0;
}

/*
 * Prices one quote (decisions.md section 9).  in is borrowed; the result
 * goes to the caller's *out.  Returns 0, or -1 (and *out zeroed) when an
 * input is out of range, sp >= 10000, R < 1 or a result does not fit in
 * int64_t; the caller answers -1 with 400 INVALID_REQUEST.
 */
int
money_quote_price(const struct money_quote_in *in, struct money_quote *out)
{
	struct money_quote q;
	int64_t p, r, s, fs;
	i128 fees, sum;
	int f, k;

	if (out != NULL)
		memset(out, 0, sizeof(*out));
	if (in == NULL || out == NULL || !inputs_valid(in) || in->amount < 1)
		return -1;
	/* A spread of 100% or more leaves nothing to deliver. */
	if (in->spread_bps >= BPS)
		return -1;
	k = BPS - in->spread_bps;
	f = in->fee_s_bps + in->fee_r_bps;

	memset(&q, 0, sizeof(q));
	if (in->lock_sending) {
		s = in->amount;
		if (largest_principal(s, f, &p) < 0)
			return -1;
		if (mul_div(p, in->pr, k, in->ps, BPS, 0, &r) < 0)
			return -1;
		fees = (i128)s - p;
	} else {
		r = in->amount;
		if (mul_div(r, in->ps, BPS, in->pr, k, 1, &p) < 0)
			return -1;
		/* P < 2^63 and F <= 20000: P * F stays below 2^78. */
		fees = ((i128)p * f + BPS - 1) / BPS;
		sum = (i128)p + fees;
		if (sum > INT64_MAX)
			return -1;
		s = (int64_t)sum;
	}
	if (r < 1)
		return -1;

	/* Fees <= S fits; the sender's share is capped at the total. */
	fs = (int64_t)(((i128)p * in->fee_s_bps + BPS - 1) / BPS);
	q.send = s;
	q.receive = r;
	q.principal = p;
	q.fees = (int64_t)fees;
	q.fee_sender = fs < q.fees ? fs : q.fees;
	q.fee_receiver = q.fees - q.fee_sender;
	if (format_rate(in, q.rate, sizeof(q.rate)) < 0)
		return -1;
	*out = q;
	return 0;
}

/*
 * The one pricing of a corridor (money.h): the inputs of
 * money_quote_price() from the corridor, then the amount priced, or the
 * rate alone for amount 0.
 */
enum money_price_rc
money_corridor_price(const struct money_corridor *c, int lock_sending, int64_t amount,
    struct money_quote_in *in, struct money_quote *out)
{
	const struct currency *cs, *cr;
	int rc;

	memset(in, 0, sizeof(*in));
	memset(out, 0, sizeof(*out));
	if ((cs = money_currency(c->send_currency)) == NULL)
		return MONEY_UNKNOWN_SEND;
	if ((cr = money_currency(c->recv_currency)) == NULL)
		return MONEY_UNKNOWN_RECV;
	in->ps = c->ps;
	in->pr = c->pr;
	in->es = cs->exponent;
	in->er = cr->exponent;
	in->lock_sending = lock_sending;
	in->amount = amount;
	/* Each setting in its own range, so the int sums below cannot wrap. */
	if (c->spread_s_bps < 0 || c->spread_s_bps > BPS || c->spread_r_bps < 0 ||
	    c->spread_r_bps > BPS || c->fee_s_bps < 0 || c->fee_s_bps > BPS ||
	    c->fee_r_bps < 0 || c->fee_r_bps > BPS || amount < 0)
		return MONEY_UNPRICEABLE;
	in->spread_bps = (int)(c->spread_s_bps + c->spread_r_bps);
	in->fee_s_bps = (int)c->fee_s_bps;
	in->fee_r_bps = (int)c->fee_r_bps;
	rc = amount == 0 ? rate_only(in, out) : money_quote_price(in, out);
	return rc == 0 ? MONEY_PRICED : MONEY_UNPRICEABLE;
}
