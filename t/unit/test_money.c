/* Unit tests of the currency table and of the exact FX pricing. */
#include <criterion/criterion.h>

#include <inttypes.h>
#include <stdint.h>
#include <string.h>

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

/*
 * FX pricing (decisions.md section 9).  Reference prices used below, minor
 * units per BTC:
 *   USD 10000000   ($100,000.00)	JPY 15000000 (15,000,000 yen)
 *   KWD 30000000   (30,000.000 KWD)
 * F = Fs + Fr, k = 10000 - sp.
 */

#define M64	INT64_MAX

typedef __int128 i128;
typedef unsigned __int128 u128;

struct fx_case {
	const char		*name;
	struct money_quote_in	 in;
	int			 rc;
	int64_t			 send, receive, principal, fees;
	int64_t			 fee_sender, fee_receiver;
	const char		*rate;
};

/* in: ps, pr, es, er, spread, Fs, Fr, lock_sending, amount */
static const struct fx_case fx_cases[] = {
	/*
	 * USD -> JPY, RECEIVING 1500 yen, no spread, no fees.
	 * P = ceil(1500 * 10^7 * 10000 / (1.5*10^7 * 10000)) = 1000 cents;
	 * fees = 0; S = 1000.  rate = (15000000 / 1) / (10000000 / 100) = 150.
	 */
	{ "usd_jpy_recv_plain",
	  { 10000000, 15000000, 2, 0, 0, 0, 0, 0, 1500 },
	  0, 1000, 1500, 1000, 0, 0, 0, "150.00000000" },
	/*
	 * USD -> JPY, SENDING $100.00, sp 200, Fs 100, Fr 50 (F 150).
	 * P = floor(10000 * 10000 / 10150) = floor(9852.21) = 9852;
	 *   9852 + ceil(147.78) = 10000 <= 10000, 9853 + ceil(147.795) = 10001 > S.
	 * fees = 148; R = floor(9852 * 1.5e7 * 9800 / (1e7 * 10000))
	 *   = floor(9852 * 1.47) = floor(14482.44) = 14482 yen.
	 * fee_sender = ceil(9852 * 100 / 10000) = ceil(98.52) = 99, receiver 49.
	 * rate = 150 * 0.98 = 147.
	 */
	{ "usd_jpy_send_fees_spread",
	  { 10000000, 15000000, 2, 0, 200, 100, 50, 1, 10000 },
	  0, 10000, 14482, 9852, 148, 99, 49, "147.00000000" },
	/*
	 * JPY -> KWD, RECEIVING 1.000 KWD, sp 9999 (k = 1), F = 20000.
	 * P = ceil(1000 * 1.5e7 * 10000 / (3e7 * 1)) = 5000000 yen;
	 * fees = ceil(5e6 * 20000 / 10000) = 1e7; S = 1.5e7.
	 * fee_sender = ceil(5e6 * 10000 / 10000) = 5e6, receiver 5e6.
	 * rate = floor(3e7 * 1 * 1 * 1e8 / (1.5e7 * 1000 * 10000)) = 20
	 *   -> 0.00000020 (30000 KWD / 15e6 JPY / 10000).
	 */
	{ "jpy_kwd_recv_max_fees_spread_9999",
	  { 15000000, 30000000, 0, 3, 9999, 10000, 10000, 0, 1000 },
	  0, 15000000, 1000, 5000000, 10000000, 5000000, 5000000,
	  "0.00000020" },
	/*
	 * KWD (30,000.000/BTC) -> USD ($50,000.00/BTC), SENDING 12.345 KWD.
	 * P = 12345 (F = 0); R = floor(12345 * 5e6 * 10000 / (3e7 * 10000))
	 *   = floor(12345 / 6) = floor(2057.5) = 2057 cents.
	 * rate = floor(5e6 * 1000 * 10000 * 1e8 / (3e7 * 100 * 10000))
	 *   = floor(166666666.67) = 166666666 -> 1.66666666 (1.666666666...:
	 *   the 9th decimal is 6, truncated, not rounded to ...67).
	 */
	{ "kwd_usd_send_truncated_rate_above_1",
	  { 30000000, 5000000, 3, 2, 0, 0, 0, 1, 12345 },
	  0, 12345, 2057, 12345, 0, 0, 0, "1.66666666" },
	/*
	 * USD ($150,000.00/BTC) -> KWD (100,000.000/BTC), SENDING $100.00.
	 * R = floor(10000 * 1e8 / 1.5e7) = floor(66666.67) = 66666 fils.
	 * rate = floor(1e8 * 100 * 10000 * 1e8 / (1.5e7 * 1000 * 10000))
	 *   = floor(66666666.67) -> 0.66666666 (2/3, 9th decimal 6).
	 */
	{ "usd_kwd_send_truncated_rate_below_1",
	  { 15000000, 100000000, 2, 3, 0, 0, 0, 1, 10000 },
	  0, 10000, 66666, 10000, 0, 0, 0, "0.66666666" },
	/*
	 * JPY -> USD, RECEIVING $100.00, sp 150 (k 9850), Fs 200, Fr 100.
	 * P = ceil(10000 * 1.5e7 * 10000 / (1e7 * 9850)) = ceil(15228.43)
	 *   = 15229 yen (15229 * 9850 / 15000 = 10000.38 >= 10000 cents,
	 *   15228 * 9850 / 15000 = 9999.72 < 10000).
	 * fees = ceil(15229 * 300 / 10000) = ceil(456.87) = 457; S = 15686.
	 * fee_sender = ceil(15229 * 200 / 10000) = ceil(304.58) = 305, rest 152.
	 * rate = floor(1e7 * 1 * 9850 * 1e8 / (1.5e7 * 100 * 10000))
	 *   = floor(656666.67) -> 0.00656666.
	 */
	{ "jpy_usd_recv_spread_fees",
	  { 15000000, 10000000, 0, 2, 150, 200, 100, 0, 10000 },
	  0, 15686, 10000, 15229, 457, 305, 152, "0.00656666" },
	/*
	 * USD -> JPY, SENDING $1000.00, sp 9999.
	 * R = floor(100000 * 1.5e7 * 1 / (1e7 * 10000)) = floor(15) = 15 yen.
	 * rate = 150 / 10000 = 0.015.
	 */
	{ "usd_jpy_send_spread_9999",
	  { 10000000, 15000000, 2, 0, 9999, 0, 0, 1, 100000 },
	  0, 100000, 15, 100000, 0, 0, 0, "0.01500000" },
	/*
	 * USD -> JPY, SENDING 3 cents, F = 20000.
	 * P = floor(3 * 10000 / 30000) = 1: 1 + ceil(2) = 3 <= 3, 2 + 4 > 3.
	 * fees = 2; R = floor(1 * 1.5e7 / 1e7) = 1 yen.
	 * fee_sender = ceil(1 * 10000 / 10000) = 1, receiver 1.
	 */
	{ "usd_jpy_send_max_fees_tiny",
	  { 10000000, 15000000, 2, 0, 0, 10000, 10000, 1, 3 },
	  0, 3, 1, 1, 2, 1, 1, "150.00000000" },
	/*
	 * USD -> JPY, SENDING 4 cents, Fs 5000, Fr 0.
	 * P = floor(4 * 10000 / 15000) = 2: 2 + ceil(1) = 3 <= 4,
	 * 3 + ceil(1.5) = 5 > 4.  fees = S - P = 2 (one more than
	 * ceil(P * F / 10000) = 1: the leftover of S).  R = floor(2 * 1.5) = 3.
	 * fee_sender = ceil(2 * 5000 / 10000) = 1; the receiving platform gets
	 * the rest, 1, although its Fr is 0.
	 */
	{ "usd_jpy_send_leftover_to_receiver",
	  { 10000000, 15000000, 2, 0, 0, 5000, 0, 1, 4 },
	  0, 4, 3, 2, 2, 1, 1, "150.00000000" },
	/* USD -> JPY, SENDING 1 cent, sp 9999: R = floor(1.5e7 / 1e11) = 0. */
	{ "r_below_1_spread",
	  { 10000000, 15000000, 2, 0, 9999, 0, 0, 1, 1 },
	  -1, 0, 0, 0, 0, 0, 0, NULL },
	/* SENDING 1 cent, F = 20000: P = floor(10000 / 30000) = 0, R = 0. */
	{ "r_below_1_fees",
	  { 10000000, 15000000, 2, 0, 0, 10000, 10000, 1, 1 },
	  -1, 0, 0, 0, 0, 0, 0, NULL },
	/* JPY -> USD, SENDING 1 yen: R = floor(1e7 / 1.5e7) = 0 cents. */
	{ "r_below_1_conversion",
	  { 15000000, 10000000, 0, 2, 0, 0, 0, 1, 1 },
	  -1, 0, 0, 0, 0, 0, 0, NULL },
	/* sp = 10000 and 20000 are in range but leave nothing: -1. */
	{ "spread_10000",
	  { 10000000, 15000000, 2, 0, 10000, 0, 0, 1, 100000 },
	  -1, 0, 0, 0, 0, 0, 0, NULL },
	{ "spread_20000",
	  { 10000000, 15000000, 2, 0, 20000, 0, 0, 0, 100 },
	  -1, 0, 0, 0, 0, 0, 0, NULL },
	/* RECEIVING R = ps = 2^63-1, pr = 1: P = (2^63-1)^2, past 64 bits. */
	{ "overflow_principal",
	  { M64, 1, 2, 2, 0, 0, 0, 0, M64 },
	  -1, 0, 0, 0, 0, 0, 0, NULL },
	/* SENDING S = pr = 2^63-1, ps = 1: R = (2^63-1)^2, past 64 bits. */
	{ "overflow_receive",
	  { 1, M64, 2, 2, 0, 0, 0, 1, M64 },
	  -1, 0, 0, 0, 0, 0, 0, NULL },
	/*
	 * RECEIVING R = 2^63-11, ps = pr, Fs = 1: P = R fits, but
	 * fees = ceil(P / 10000) = 922337203685478 and S = P + fees does not.
	 */
	{ "overflow_send_by_fees",
	  { 10000000, 10000000, 2, 2, 0, 1, 0, 0, M64 - 10 },
	  -1, 0, 0, 0, 0, 0, 0, NULL },
	/* The same with F = 0: S = P = R = 2^63-11 fits. */
	{ "no_overflow_without_fees",
	  { 10000000, 10000000, 2, 2, 0, 0, 0, 0, M64 - 10 },
	  0, M64 - 10, M64 - 10, M64 - 10, 0, 0, 0, "1.00000000" },
	/*
	 * RECEIVING R = 1e18, ps = pr = 9e18, sp 5000: R * ps * 10000 = 9e40
	 * does not fit even in 128 bits, yet P = ceil(9e40 / (9e18 * 5000))
	 * = 2e18 does, and is what the staged division must give.
	 */
	{ "past_128_bit_numerator_recv",
	  { 9000000000000000000LL, 9000000000000000000LL, 2, 2, 5000, 0, 0, 0,
	    1000000000000000000LL },
	  0, 2000000000000000000LL, 1000000000000000000LL,
	  2000000000000000000LL, 0, 0, 0, "0.50000000" },
	/* R = 2^63-1 at parity: P = 2^63-1 exactly, the largest that fits. */
	{ "largest_principal_recv",
	  { 9000000000000000000LL, 9000000000000000000LL, 2, 2, 0, 0, 0, 0, M64 },
	  0, M64, M64, M64, 0, 0, 0, "1.00000000" },
	/* sp 1: P = ceil((2^63-1) * 10000 / 9999) > 2^63-1: -1. */
	{ "largest_principal_recv_plus_spread",
	  { 9000000000000000000LL, 9000000000000000000LL, 2, 2, 1, 0, 0, 0, M64 },
	  -1, 0, 0, 0, 0, 0, 0, NULL },
	/*
	 * SENDING S = 2^63-1, ps = pr = 2^63-1, F = 20000:
	 * P = floor((2^63-1) / 3) = 3074457345618258602 (3P = 2^63-2 <= S,
	 * 3P + 3 > S); fees = S - P = 6148914691236517205;
	 * R = floor(P * pr * 10000 / (ps * 10000)) = P (numerator ~2.8e41,
	 * past 128 bits); fee_sender = ceil(P * 10000 / 10000) = P, receiver
	 * fees - P = 3074457345618258603.
	 */
	{ "past_128_bit_numerator_send",
	  { M64, M64, 2, 2, 0, 10000, 10000, 1, M64 },
	  0, M64, 3074457345618258602LL, 3074457345618258602LL,
	  6148914691236517205LL, 3074457345618258602LL, 3074457345618258603LL,
	  "1.00000000" },
	/*
	 * ps = 1 (es 4), pr = 2^63-1 (er 0), SENDING S = 1: R = 2^63-1 and
	 * rate = (2^63-1) / 10^-4 = 92233720368547758070000, an integer part
	 * that needs the 128-bit formatting.
	 */
	{ "rate_integer_part_past_64_bits",
	  { 1, M64, 4, 0, 0, 0, 0, 1, 1 },
	  0, 1, M64, 1, 0, 0, 0, "92233720368547758070000.00000000" },
};

Test(money_fx, hand_worked_cases)
{
	for (size_t i = 0; i < sizeof(fx_cases) / sizeof(fx_cases[0]); i++) {
		const struct fx_case *c = &fx_cases[i];
		struct money_quote q;
		int rc;

		memset(&q, 0x5a, sizeof(q));
		rc = money_quote_price(&c->in, &q);
		cr_assert_eq(rc, c->rc, "%s: rc %d", c->name, rc);
		if (rc != 0) {
			/* A refused quote leaves nothing half-written. */
			cr_assert_eq(q.send, 0, "%s", c->name);
			cr_assert_eq(q.receive, 0, "%s", c->name);
			cr_assert_eq(q.rate[0], '\0', "%s", c->name);
			continue;
		}
		cr_assert_eq(q.send, c->send, "%s: S %" PRId64, c->name, q.send);
		cr_assert_eq(q.receive, c->receive, "%s: R %" PRId64, c->name,
		    q.receive);
		cr_assert_eq(q.principal, c->principal, "%s: P %" PRId64, c->name,
		    q.principal);
		cr_assert_eq(q.fees, c->fees, "%s: fees %" PRId64, c->name, q.fees);
		cr_assert_eq(q.fee_sender, c->fee_sender, "%s: fee_sender %" PRId64,
		    c->name, q.fee_sender);
		cr_assert_eq(q.fee_receiver, c->fee_receiver,
		    "%s: fee_receiver %" PRId64, c->name, q.fee_receiver);
		cr_assert_str_eq(q.rate, c->rate, "%s: rate %s", c->name, q.rate);
	}
}

Test(money_fx, out_of_range_inputs)
{
	const struct money_quote_in ok = {
		10000000, 15000000, 2, 0, 200, 100, 50, 1, 10000
	};
	struct money_quote_in in;
	struct money_quote q;

	cr_assert_eq(money_quote_price(&ok, &q), 0);
	cr_assert_eq(money_quote_price(NULL, &q), -1);
	cr_assert_eq(money_quote_price(&ok, NULL), -1);
#define BAD(field, value) do {						\
	in = ok;							\
	in.field = (value);						\
	cr_assert_eq(money_quote_price(&in, &q), -1, #field " = " #value);\
	in.lock_sending = !in.lock_sending;				\
	cr_assert_eq(money_quote_price(&in, &q), -1, #field " = " #value \
	    " (other side)");						\
} while (0)
	BAD(ps, 0);
	BAD(ps, -1);
	BAD(ps, INT64_MIN);
	BAD(pr, 0);
	BAD(pr, -15000000);
	BAD(amount, 0);
	BAD(amount, -1);
	BAD(amount, INT64_MIN);
	BAD(es, -1);
	BAD(es, 5);
	BAD(er, -1);
	BAD(er, 5);
	BAD(spread_bps, -1);
	BAD(spread_bps, 10000);
	BAD(spread_bps, 20000);
	BAD(spread_bps, 20001);
	BAD(spread_bps, INT32_MIN);
	BAD(fee_s_bps, -1);
	BAD(fee_s_bps, 10001);
	BAD(fee_r_bps, -1);
	BAD(fee_r_bps, 10001);
	BAD(fee_r_bps, INT32_MAX);
#undef BAD
	in = ok;
	in.lock_sending = 2;
	cr_assert_eq(money_quote_price(&in, &q), -1);
	in.lock_sending = -1;
	cr_assert_eq(money_quote_price(&in, &q), -1);
	/* The edges of every range are accepted. */
	in = ok;
	in.es = 4;
	in.er = 4;
	in.fee_s_bps = 10000;
	in.fee_r_bps = 10000;
	in.spread_bps = 9999;
	in.amount = 1000000000;
	cr_assert_eq(money_quote_price(&in, &q), 0);
	in.es = in.er = in.fee_s_bps = in.fee_r_bps = in.spread_bps = 0;
	in.ps = in.pr = 1;
	in.amount = 1;
	cr_assert_eq(money_quote_price(&in, &q), 0);
	cr_assert_str_eq(q.rate, "1.00000000");
}

/*
 * Exhaustive over a small domain: SENDING at parity (ps = pr, es = er,
 * sp = 0, so R = P) for every S in 1..3000 and many F, against a
 * largest-P found by walking P up one by one.
 */
Test(money_fx, exhaustive_sending_principal)
{
	for (int f = 0; f <= 20000; f += (f < 300 ? 1 : 97)) {
		int64_t best = 0;

		for (int64_t s = 1; s <= 3000; s++) {
			struct money_quote_in in = {
				1000, 1000, 2, 2, 0, f / 2, f - f / 2, 1, s
			};
			struct money_quote q;
			int rc;

			/* Largest P with P + ceil(P * F / 10000) <= S. */
			while ((best + 1) + ((best + 1) * f + 9999) / 10000 <= s)
				best++;
			rc = money_quote_price(&in, &q);
			if (best == 0) {
				cr_assert_eq(rc, -1, "F %d S %" PRId64, f, s);
				continue;
			}
			cr_assert_eq(rc, 0, "F %d S %" PRId64, f, s);
			cr_assert_eq(q.principal, best, "F %d S %" PRId64, f, s);
			cr_assert_eq(q.receive, best, "F %d S %" PRId64, f, s);
			cr_assert_eq(q.fees, s - best, "F %d S %" PRId64, f, s);
		}
	}
}

/*
 * 256-bit unsigned products, so that the properties below are checked
 * exactly even where a product of three 63-bit values and a bps factor
 * is past 128 bits.
 */
struct u256 {
	uint64_t	w[4];	/* little-endian limbs */
};

static struct u256
u256_of(u128 v)
{
	struct u256 x = { { (uint64_t)v, (uint64_t)(v >> 64), 0, 0 } };

	return x;
}

static struct u256
u256_mul(struct u256 x, uint64_t m)
{
	u128 carry = 0;

	for (int i = 0; i < 4; i++) {
		u128 t = (u128)x.w[i] * m + carry;

		x.w[i] = (uint64_t)t;
		carry = t >> 64;
	}
	cr_assert_eq(carry, 0, "u256 overflow");
	return x;
}

/* a * b * c * d */
static struct u256
prod(u128 a, uint64_t b, uint64_t c, uint64_t d)
{
	return u256_mul(u256_mul(u256_mul(u256_of(a), b), c), d);
}

static int
u256_cmp(struct u256 a, struct u256 b)
{
	for (int i = 3; i >= 0; i--)
		if (a.w[i] != b.w[i])
			return a.w[i] < b.w[i] ? -1 : 1;
	return 0;
}

/* P + ceil(P * F / 10000), what the sender pays for principal P. */
static i128
gross(i128 p, int f)
{
	return p + (p * f + 9999) / 10000;
}

/* Fixed-seed xorshift64*: the same inputs on every run. */
static uint64_t
xs_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

/* Uniform in lo..hi (hi - lo < 2^63; the modulo bias does not matter). */
static int64_t
xs_range(uint64_t *s, int64_t lo, int64_t hi)
{
	return lo + (int64_t)(xs_next(s) % (uint64_t)(hi - lo + 1));
}

/* 1..max with every order of magnitude about as likely. */
static int64_t
xs_mag(uint64_t *s, int64_t max)
{
	int bits = (int)xs_range(s, 1, 63);
	int64_t top = bits == 63 ? INT64_MAX : ((int64_t)1 << bits) - 1;

	if (top > max)
		top = max;
	return xs_range(s, 1, top);
}

static int
xs_bps(uint64_t *s, int max)
{
	switch (xs_range(s, 0, 9)) {
	case 0:
		return 0;
	case 1:
		return max;
	case 2:
		return (int)xs_range(s, 0, 10);
	default:
		return (int)xs_range(s, 0, max);
	}
}

static int
xs_spread(uint64_t *s)
{
	switch (xs_range(s, 0, 19)) {
	case 0:
		return 0;
	case 1:
		return 9999;
	case 2:
		return (int)xs_range(s, 10000, 20000);	/* refused */
	case 3:
		return (int)xs_range(s, 9900, 9999);
	default:
		return (int)xs_range(s, 0, 9999);
	}
}

/*
 * The smallest P >= 0 with P * pr * k >= R * ps * 10000, by bisection
 * over 256-bit products (independent of the division in money.c); -1
 * when it is past 2^63 - 1.
 */
static int64_t
oracle_min_principal(int64_t r, int64_t ps, int64_t pr, int k)
{
	struct u256 need = prod((u128)r, (uint64_t)ps, 10000, 1);
	int64_t lo = 0, hi = INT64_MAX;

	if (u256_cmp(prod((u128)INT64_MAX, (uint64_t)pr, (uint64_t)k, 1),
	    need) < 0)
		return -1;
	while (lo < hi) {
		int64_t mid = lo + (hi - lo) / 2;

		if (u256_cmp(prod((u128)mid, (uint64_t)pr, (uint64_t)k, 1),
		    need) >= 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/*
 * The largest R >= 0 with R * ps * 10000 <= P * pr * k, by bisection;
 * -1 when it is past 2^63 - 1.
 */
static int64_t
oracle_max_receive(int64_t p, int64_t ps, int64_t pr, int k)
{
	struct u256 have = prod((u128)p, (uint64_t)pr, (uint64_t)k, 1);
	int64_t lo = 0, hi = INT64_MAX;

	if (u256_cmp(prod((u128)1 << 63, (uint64_t)ps, 10000, 1), have) <= 0)
		return -1;
	while (lo < hi) {
		int64_t mid = hi - (hi - lo) / 2;

		if (u256_cmp(prod((u128)mid, (uint64_t)ps, 10000, 1), have) <= 0)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/* The largest P >= 0 with P + ceil(P * F / 10000) <= S, by bisection. */
static int64_t
oracle_max_principal(int64_t s, int f)
{
	int64_t lo = 0, hi = s;

	while (lo < hi) {
		int64_t mid = hi - (hi - lo) / 2;

		if (gross(mid, f) <= s)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/*
 * Parses a rate string: digits, '.', exactly 8 digits, no leading zero
 * in a longer integer part.  Returns the rate times 10^8, or -1.
 */
static i128
parse_rate(const char *s)
{
	const char *dot = strchr(s, '.');
	i128 v = 0;

	if (dot == NULL || dot == s || strlen(dot + 1) != 8 ||
	    (s[0] == '0' && dot - s > 1))
		return -1;
	for (const char *p = s; *p != '\0'; p++) {
		if (p == dot)
			continue;
		if (*p < '0' || *p > '9')
			return -1;
		v = v * 10 + (*p - '0');
	}
	return v;
}

static const int64_t pow10s[] = { 1, 10, 100, 1000, 10000 };

/*
 * Prices one pseudo-random input and checks it against the properties of
 * section 9 and the bisection oracles: either the same numbers exactly,
 * or -1 exactly when the oracle finds R < 1 or a value past 64 bits.
 * Returns 1 when it priced.
 */
static int
check_one(const struct money_quote_in *in, long iter)
{
	struct money_quote q;
	int64_t p, r, s, fees, fsd;
	int rc, ok, k, f;
	i128 rate;

	rc = money_quote_price(in, &q);
	if (in->spread_bps >= 10000) {
		cr_assert_eq(rc, -1, "#%ld: sp %d priced", iter, in->spread_bps);
		return 0;
	}
	k = 10000 - in->spread_bps;
	f = in->fee_s_bps + in->fee_r_bps;

	/* What the quote should be, or ok = 0 when it cannot be priced. */
	ok = 1;
	if (in->lock_sending) {
		s = in->amount;
		p = oracle_max_principal(s, f);
		fees = s - p;
		r = oracle_max_receive(p, in->ps, in->pr, k);
		if (r < 1)	/* R < 1, or R past 64 bits (-1) */
			ok = 0;
	} else {
		r = in->amount;
		p = oracle_min_principal(r, in->ps, in->pr, k);
		if (p < 0) {
			ok = 0;
			fees = s = 0;
		} else {
			i128 gs = gross(p, f);

			fees = (int64_t)(gs - p);
			if (gs > INT64_MAX) {
				ok = 0;
				s = 0;
			} else
				s = (int64_t)gs;
		}
	}
	if (!ok) {
		cr_assert_eq(rc, -1, "#%ld: priced what cannot be priced", iter);
		return 0;
	}
	cr_assert_eq(rc, 0, "#%ld: refused ps %" PRId64 " pr %" PRId64
	    " sp %d F %d side %d amount %" PRId64, iter, in->ps, in->pr,
	    in->spread_bps, f, in->lock_sending, in->amount);
	cr_assert_eq(q.send, s, "#%ld: S", iter);
	cr_assert_eq(q.principal, p, "#%ld: P", iter);
	cr_assert_eq(q.receive, r, "#%ld: R", iter);
	cr_assert_eq(q.fees, fees, "#%ld: fees", iter);

	/* The properties, stated on what was returned. */
	cr_assert_eq((i128)q.send, (i128)q.principal + q.fees, "#%ld", iter);
	cr_assert_geq(q.principal, 1, "#%ld", iter);
	cr_assert_geq(q.receive, 1, "#%ld", iter);
	cr_assert_geq((i128)q.fees, ((i128)q.principal * f + 9999) / 10000,
	    "#%ld: fees below ceil(P * F / 10000)", iter);
	cr_assert_geq(q.fee_sender, 0, "#%ld", iter);
	cr_assert_geq(q.fee_receiver, 0, "#%ld", iter);
	cr_assert_eq((i128)q.fee_sender + q.fee_receiver, (i128)q.fees,
	    "#%ld: split", iter);
	fsd = (int64_t)(((i128)q.principal * in->fee_s_bps + 9999) / 10000);
	cr_assert_eq(q.fee_sender, fsd < q.fees ? fsd : q.fees, "#%ld: Fs share",
	    iter);
	/* No money created: R in sending units never exceeds P. */
	cr_assert_leq(u256_cmp(prod((u128)q.receive, (uint64_t)in->ps, 10000, 1),
	    prod((u128)q.principal, (uint64_t)in->pr, (uint64_t)k, 1)), 0,
	    "#%ld: money created", iter);
	if (in->lock_sending) {
		cr_assert_eq(q.send, in->amount, "#%ld", iter);
		/* P is the largest that S pays for. */
		cr_assert_leq(gross(q.principal, f), (i128)q.send, "#%ld", iter);
		cr_assert_gt(gross((i128)q.principal + 1, f), (i128)q.send,
		    "#%ld: P not the largest", iter);
		/* R = floor(P * pr * k / (ps * 10000)): R + 1 is not covered. */
		cr_assert_gt(u256_cmp(prod((u128)q.receive + 1, (uint64_t)in->ps,
		    10000, 1), prod((u128)q.principal, (uint64_t)in->pr,
		    (uint64_t)k, 1)), 0, "#%ld: R not the floor", iter);
	} else {
		cr_assert_eq(q.receive, in->amount, "#%ld", iter);
		cr_assert_eq(q.fees, (int64_t)(((i128)q.principal * f + 9999) /
		    10000), "#%ld: fees", iter);
		/* P delivers R (checked above) and P - 1 does not. */
		cr_assert_lt(u256_cmp(prod((u128)(q.principal - 1),
		    (uint64_t)in->pr, (uint64_t)k, 1), prod((u128)q.receive,
		    (uint64_t)in->ps, 10000, 1)), 0, "#%ld: P not the smallest",
		    iter);
	}
	/*
	 * rate * 10^8 = q with q * den <= num < (q + 1) * den, where
	 * num = pr * 10^es * k * 10^8 and den = ps * 10^er * 10000.
	 */
	rate = parse_rate(q.rate);
	cr_assert_geq(rate, 0, "#%ld: rate \"%s\"", iter, q.rate);
	cr_assert_leq(u256_cmp(u256_mul(prod((u128)rate, (uint64_t)in->ps,
	    (uint64_t)pow10s[in->er], 10000), 1), u256_mul(prod((u128)in->pr,
	    (uint64_t)pow10s[in->es], (uint64_t)k, 100000000), 1)), 0,
	    "#%ld: rate %s too high", iter, q.rate);
	cr_assert_gt(u256_cmp(prod((u128)rate + 1, (uint64_t)in->ps,
	    (uint64_t)pow10s[in->er], 10000), prod((u128)in->pr,
	    (uint64_t)pow10s[in->es], (uint64_t)k, 100000000)), 0,
	    "#%ld: rate %s not truncated at 8 decimals", iter, q.rate);
	return 1;
}

#define FX_ITERATIONS	150000

/* Prices 1..10^13, amounts 1..10^12, every bps range, both sides. */
Test(money_fx, properties_realistic, .timeout = 120)
{
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	long priced = 0, refused = 0;

	for (long i = 0; i < FX_ITERATIONS; i++) {
		struct money_quote_in in;

		in.ps = xs_mag(&seed, 10000000000000LL);
		in.pr = xs_mag(&seed, 10000000000000LL);
		in.es = (int)xs_range(&seed, 0, 4);
		in.er = (int)xs_range(&seed, 0, 4);
		in.spread_bps = xs_spread(&seed);
		in.fee_s_bps = xs_bps(&seed, 10000);
		in.fee_r_bps = xs_bps(&seed, 10000);
		in.lock_sending = (int)xs_range(&seed, 0, 1);
		in.amount = xs_mag(&seed, 1000000000000LL);
		if (check_one(&in, i))
			priced++;
		else
			refused++;
	}
	cr_log_info("%d iterations: %ld priced, %ld refused", FX_ITERATIONS,
	    priced, refused);
	/* Both outcomes must be exercised, or the generator is broken. */
	cr_assert_gt(priced, FX_ITERATIONS / 4, "priced %ld", priced);
	cr_assert_gt(refused, FX_ITERATIONS / 20, "refused %ld", refused);
}

/* Prices and amounts over the whole int64 range: the 128-bit edges. */
Test(money_fx, properties_full_range, .timeout = 120)
{
	uint64_t seed = 0x2545f4914f6cdd1dULL;
	long priced = 0, refused = 0;

	for (long i = 0; i < FX_ITERATIONS; i++) {
		struct money_quote_in in;

		in.ps = xs_mag(&seed, INT64_MAX);
		in.pr = xs_mag(&seed, INT64_MAX);
		in.es = (int)xs_range(&seed, 0, 4);
		in.er = (int)xs_range(&seed, 0, 4);
		in.spread_bps = xs_spread(&seed);
		in.fee_s_bps = xs_bps(&seed, 10000);
		in.fee_r_bps = xs_bps(&seed, 10000);
		in.lock_sending = (int)xs_range(&seed, 0, 1);
		in.amount = xs_mag(&seed, INT64_MAX);
		if (check_one(&in, i))
			priced++;
		else
			refused++;
	}
	cr_log_info("%d iterations: %ld priced, %ld refused", FX_ITERATIONS,
	    priced, refused);
	cr_assert_gt(priced, FX_ITERATIONS / 10, "priced %ld", priced);
	cr_assert_gt(refused, FX_ITERATIONS / 20, "refused %ld", refused);
}

/*
 * money_corridor_price(): the one pricing of POST /quotes and GET
 * /exchange-rates.  Prices as above: USD 10000000, JPY 15000000 (0
 * decimals), KWD 30000000 (3 decimals) minor units per BTC.
 */

/* c priced at amount must give exactly want (and rc MONEY_PRICED). */
static void
corridor_is(const struct money_corridor *c, int lock_sending, int64_t amount,
    const struct money_quote *want, const char *name)
{
	struct money_quote_in in;
	struct money_quote q;

	memset(&q, 0x5a, sizeof(q));
	cr_assert_eq(money_corridor_price(c, lock_sending, amount, &in, &q), MONEY_PRICED,
	    "%s", name);
	cr_assert_eq(q.send, want->send, "%s: S %" PRId64, name, q.send);
	cr_assert_eq(q.receive, want->receive, "%s: R %" PRId64, name, q.receive);
	cr_assert_eq(q.principal, want->principal, "%s: P %" PRId64, name, q.principal);
	cr_assert_eq(q.fees, want->fees, "%s: fees %" PRId64, name, q.fees);
	cr_assert_eq(q.fee_sender, want->fee_sender, "%s: fee_sender", name);
	cr_assert_eq(q.fee_receiver, want->fee_receiver, "%s: fee_receiver", name);
	cr_assert_str_eq(q.rate, want->rate, "%s: rate %s", name, q.rate);
}

Test(money_corridor, hand_worked)
{
	/* usd_jpy_send_fees_spread above, as a corridor: sp = 100 + 100. */
	struct money_corridor c = { "USD", "JPY", 10000000, 15000000, 100, 100, 100, 50 };
	const struct money_quote usd_jpy = { 10000, 14482, 9852, 148, 99, 49, "147.00000000" };
	const struct money_quote usd_jpy_rate = { 0, 0, 0, 0, 0, 0, "147.00000000" };
	struct money_quote_in in;
	struct money_quote q;

	corridor_is(&c, 1, 10000, &usd_jpy, "USD->JPY SENDING 10000");
	/* The inputs it used, as POST /quotes stores them. */
	cr_assert_eq(money_corridor_price(&c, 1, 10000, &in, &q), MONEY_PRICED);
	cr_assert_eq(in.spread_bps, 200);
	cr_assert_eq(in.fee_s_bps, 100);
	cr_assert_eq(in.fee_r_bps, 50);
	cr_assert_eq(in.es, 2);
	cr_assert_eq(in.er, 0);
	cr_assert_eq(in.ps, 10000000);
	cr_assert_eq(in.pr, 15000000);
	/* Amount 0: the rate alone, the same string. */
	corridor_is(&c, 1, 0, &usd_jpy_rate, "USD->JPY rate");
	corridor_is(&c, 0, 0, &usd_jpy_rate, "USD->JPY rate, RECEIVING");

	/* USD -> KWD at 0.3, no spread, no fees: $100.00 is 30.000 KWD. */
	c = (struct money_corridor){ "USD", "KWD", 10000000, 30000000, 0, 0, 0, 0 };
	corridor_is(&c, 1, 10000, &(struct money_quote){ 10000, 30000, 10000, 0, 0, 0,
	    "0.30000000" }, "USD->KWD SENDING 10000");
	/* JPY -> KWD: 1 yen is 0.002 KWD, 2 fils. */
	c = (struct money_corridor){ "JPY", "KWD", 15000000, 30000000, 0, 0, 0, 0 };
	corridor_is(&c, 1, 1, &(struct money_quote){ 1, 2, 1, 0, 0, 0, "0.00200000" },
	    "JPY->KWD SENDING 1");
	/* KWD -> JPY: 1 KWD (1000 fils) is 500 yen. */
	c = (struct money_corridor){ "KWD", "JPY", 30000000, 15000000, 0, 0, 0, 0 };
	corridor_is(&c, 1, 1000, &(struct money_quote){ 1000, 500, 1000, 0, 0, 0,
	    "500.00000000" }, "KWD->JPY SENDING 1000");
	/* A currency to itself is a corridor like any other: the spread and fees apply. */
	c = (struct money_corridor){ "USD", "USD", 10000000, 10000000, 25, 25, 60, 15 };
	corridor_is(&c, 1, 0, &(struct money_quote){ 0, 0, 0, 0, 0, 0, "0.99500000" },
	    "USD->USD rate");
}

Test(money_corridor, refusals)
{
	const struct money_corridor ok = { "USD", "JPY", 10000000, 15000000, 100, 100, 100, 50 };
	struct money_corridor c;
	struct money_quote_in in;
	struct money_quote q;

#define REFUSED(want, amount) do {						\
	memset(&q, 0x5a, sizeof(q));						\
	cr_assert_eq(money_corridor_price(&c, 1, (amount), &in, &q), (want));	\
	cr_assert_eq(q.send, 0);						\
	cr_assert_eq(q.receive, 0);						\
	cr_assert_eq(q.rate[0], '\0');						\
} while (0)
	c = ok;
	c.send_currency = "XXQ";
	REFUSED(MONEY_UNKNOWN_SEND, 0);
	c.send_currency = NULL;
	REFUSED(MONEY_UNKNOWN_SEND, 100);
	c = ok;
	c.recv_currency = "usd";
	REFUSED(MONEY_UNKNOWN_RECV, 0);
	/* A spread of 10000 or more: no rate, no amount. */
	c = ok;
	c.spread_s_bps = c.spread_r_bps = 5000;
	REFUSED(MONEY_UNPRICEABLE, 0);
	REFUSED(MONEY_UNPRICEABLE, 10000);
	c.spread_s_bps = 10000;
	c.spread_r_bps = 0;
	REFUSED(MONEY_UNPRICEABLE, 0);
	c.spread_s_bps = 4999;
	c.spread_r_bps = 5000;
	cr_assert_eq(money_corridor_price(&c, 1, 0, &in, &q), MONEY_PRICED);
	cr_assert_str_eq(q.rate, "0.01500000");
	/* R < 1: fees of 200% leave no principal from one cent; the rate stands. */
	c = ok;
	c.fee_s_bps = c.fee_r_bps = 10000;
	REFUSED(MONEY_UNPRICEABLE, 1);
	cr_assert_eq(money_corridor_price(&c, 1, 0, &in, &q), MONEY_PRICED);
	/* Past 64 bits. */
	c = ok;
	c.pr = INT64_MAX;
	REFUSED(MONEY_UNPRICEABLE, INT64_MAX);
	/* Every setting out of its range. */
	c = ok; c.spread_s_bps = -1; REFUSED(MONEY_UNPRICEABLE, 0);
	c = ok; c.spread_r_bps = 10001; REFUSED(MONEY_UNPRICEABLE, 0);
	c = ok; c.spread_s_bps = INT64_MAX; REFUSED(MONEY_UNPRICEABLE, 0);
	c = ok; c.fee_s_bps = 10001; REFUSED(MONEY_UNPRICEABLE, 0);
	c = ok; c.fee_r_bps = -1; REFUSED(MONEY_UNPRICEABLE, 0);
	c = ok; c.fee_r_bps = INT64_MIN; REFUSED(MONEY_UNPRICEABLE, 100);
	c = ok; c.ps = 0; REFUSED(MONEY_UNPRICEABLE, 0);
	c = ok; c.pr = -1; REFUSED(MONEY_UNPRICEABLE, 100);
	c = ok; REFUSED(MONEY_UNPRICEABLE, -1);
	cr_assert_eq(money_corridor_price(&c, 2, 100, &in, &q), MONEY_UNPRICEABLE);
#undef REFUSED
}

/*
 * Random corridors over the currency table: the corridor gives exactly
 * what money_quote_price() gives for the inputs it derives, and the rate
 * alone (amount 0) is the rate of every priced amount.
 */
Test(money_corridor, same_as_quote_price, .timeout = 120)
{
	static const char *const codes[] = { "USD", "JPY", "KWD", "EUR", "BHD", "CLP",
	    "MXN", "VND" };
	const size_t ncodes = sizeof(codes) / sizeof(codes[0]);
	uint64_t seed = 0x6a09e667f3bcc909ULL;
	long priced = 0;

	for (long i = 0; i < 50000; i++) {
		struct money_corridor c;
		struct money_quote_in in, in2;
		struct money_quote q, q2, r;
		enum money_price_rc rc;
		int lock = (int)xs_range(&seed, 0, 1), rrc;

		c.send_currency = codes[xs_range(&seed, 0, (int64_t)ncodes - 1)];
		c.recv_currency = codes[xs_range(&seed, 0, (int64_t)ncodes - 1)];
		c.ps = xs_mag(&seed, 10000000000000LL);
		c.pr = xs_mag(&seed, 10000000000000LL);
		c.spread_s_bps = xs_bps(&seed, 10000);
		c.spread_r_bps = xs_bps(&seed, 10000);
		c.fee_s_bps = xs_bps(&seed, 10000);
		c.fee_r_bps = xs_bps(&seed, 10000);
		rc = money_corridor_price(&c, lock, xs_mag(&seed, 1000000000000LL), &in, &q);
		in2 = (struct money_quote_in){ c.ps, c.pr,
		    money_currency(c.send_currency)->exponent,
		    money_currency(c.recv_currency)->exponent,
		    (int)(c.spread_s_bps + c.spread_r_bps), (int)c.fee_s_bps,
		    (int)c.fee_r_bps, lock, in.amount };
		cr_assert_eq(memcmp(&in, &in2, sizeof(in)), 0, "#%ld: inputs", i);
		rrc = money_quote_price(&in2, &q2);
		cr_assert_eq(rc == MONEY_PRICED, rrc == 0, "#%ld: rc %d vs %d", i, rc, rrc);
		cr_assert_eq(memcmp(&q, &q2, sizeof(q)), 0, "#%ld: result", i);
		rc = money_corridor_price(&c, lock, 0, &in, &r);
		cr_assert_eq(rc == MONEY_PRICED, in2.spread_bps < 10000, "#%ld: rate alone", i);
		if (rrc == 0) {
			cr_assert_str_eq(r.rate, q2.rate, "#%ld: rate", i);
			priced++;
		}
	}
	cr_assert_gt(priced, 10000, "priced %ld", priced);
}
