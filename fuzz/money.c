/*
 * money.c: the money formulas.  The input is read as a sequence of fields
 * (fuzz_money_in below): two currency codes, an amount string and the
 * pricing inputs of one quote, each field either raw (anything, out of
 * range included) or scaled into its range.
 *
 * Invariants, besides UBSan finding no overflow and ASan nothing else:
 *  - money_currency finds a code only in its 3-letter form, and that
 *    code's entry; money_code_form is exactly [A-Z]{3};
 *  - valid_amount_minor takes exactly 1 to 18 digits, not all zero; such
 *    a string parses (parse_i64_digits, as the handlers do) to 1..10^18-1
 *    and prints back as itself without leading zeros; parse_i64_digits
 *    takes exactly the digit strings whose value fits in int64;
 *  - money_quote_price fails for inputs out of range, and otherwise only
 *    when the exact result (computed here in 256 bits) has R < 1 or a
 *    value past int64; on failure *out is zeroed;
 *  - a priced quote is the exact formula of money.h: P, R, fees and the
 *    8-decimal rate checked against their defining inequalities in 256
 *    bits, S = P + fees, fee_sender + fee_receiver = fees, fee_sender =
 *    min(fees, ceil(P * Fs / 10000));
 *  - locking the other side at the quote's own amount is consistent: the
 *    quoted S, sent, buys the same principal and delivers at least R; R,
 *    asked for, never costs more than S; one more minor unit never gives
 *    less.
 */
#include "config.h"

#include <inttypes.h>

#include "xborder/money.h"
#include "xborder/util.h"
#include "xborder/valid.h"

#include "fuzz.h"

#define B 10000

typedef unsigned __int128 u128;
typedef __int128 i128;

/* --- 256-bit unsigned arithmetic, enough for products of a few int64s. */

struct u256 {
	uint64_t w[4];		/* little-endian limbs */
};

static struct u256
u256_of(u128 v)
{
	struct u256 r = { { (uint64_t)v, (uint64_t)(v >> 64), 0, 0 } };

	return r;
}

static struct u256
u256_mul(struct u256 a, uint64_t b)
{
	struct u256 r;
	u128 carry = 0;

	for (int i = 0; i < 4; i++) {
		u128 t = (u128)a.w[i] * b + carry;

		r.w[i] = (uint64_t)t;
		carry = t >> 64;
	}
	FUZZ_ASSERT(carry == 0);	/* the harness's own products fit */
	return r;
}

static int
u256_cmp(struct u256 a, struct u256 b)
{
	for (int i = 3; i >= 0; i--)
		if (a.w[i] != b.w[i])
			return a.w[i] < b.w[i] ? -1 : 1;
	return 0;
}

/* v * f1 * f2 * f3 (each factor >= 0). */
static struct u256
prod(u128 v, uint64_t f1, uint64_t f2, uint64_t f3)
{
	return u256_mul(u256_mul(u256_mul(u256_of(v), f1), f2), f3);
}

/* --- reading the input */

struct rd {
	const uint8_t	*p;
	size_t		 n;
};

static uint8_t
rd8(struct rd *r)
{
	if (r->n == 0)
		return 0;
	r->n--;
	return *r->p++;
}

static uint64_t
rd64(struct rd *r)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | rd8(r);
	return v;
}

/* An int64: raw (any value) or scaled to 0..2^63 >> k, k from the input. */
static int64_t
rd_i64(struct rd *r)
{
	uint8_t b = rd8(r);
	uint64_t v = rd64(r);

	if (b & 0x80)
		return (int64_t)v;
	return (int64_t)((v >> 1) >> (b % 64));
}

/* An int: raw, or 0..max, or -1. */
static int
rd_int(struct rd *r, int max)
{
	uint8_t b = rd8(r);
	uint64_t v = rd64(r);

	if (b & 0x80)
		return (int)(int32_t)v;
	if ((b & 0x7f) == 0x7f)
		return -1;
	if ((b & 0x7f) == 0x7e)
		return max;
	return (int)(v % (uint64_t)(max + 1));
}

/* --- currencies and amounts */

static int
code_form_model(const char *s)
{
	return strlen(s) == 3 && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") == 3;
}

/* A code from the input; *exp gets its exponent when the service knows it. */
static void
check_code(struct rd *r, int *exp)
{
	char code[5];
	const struct currency *c;
	uint8_t n = rd8(r) % 5;

	for (int i = 0; i < 4; i++)
		code[i] = (char)rd8(r);
	code[n] = '\0';
	FUZZ_ASSERT(money_code_form(code) == code_form_model(code));
	FUZZ_ASSERT(valid_currency_form(code) == NULL ? code_form_model(code) :
	    !code_form_model(code));
	c = money_currency(code);
	FUZZ_ASSERT((valid_currency(code) == NULL) == (c != NULL));
	if (c != NULL) {
		FUZZ_ASSERT(code_form_model(code) && strcmp(c->code, code) == 0);
		FUZZ_ASSERT(c->exponent >= 0 && c->exponent <= 4);
		*exp = c->exponent;
	}
}

/* An amount string from the input; *amount gets it when valid. */
static void
check_amount(struct rd *r, int64_t *amount)
{
	char s[24], back[24];
	size_t n = rd8(r) % 23, zeros, nsig;
	int64_t v = -1;
	u128 exact = 0;
	int valid, fits;

	for (size_t i = 0; i < n; i++) {
		uint8_t c = rd8(r);

		/* Mostly digits: that is where the rules are. */
		s[i] = (char)(c < 0xc0 ? '0' + c % 10 : c);
	}
	s[n] = '\0';
	n = strlen(s);
	zeros = strspn(s, "0");
	nsig = n - zeros;
	for (size_t i = zeros; i < n && i < zeros + 20; i++)
		exact = exact * 10 + (u128)(s[i] - '0');
	fits = n >= 1 && strspn(s, "0123456789") == n &&
	    (nsig <= 18 || (nsig == 19 && exact <= INT64_MAX));

	/* parse_i64_digits: digits only, and the value fits. */
	FUZZ_ASSERT((parse_i64_digits(s, &v) == 0) == fits);
	if (fits)
		FUZZ_ASSERT(exact == (u128)v);

	valid = n >= 1 && n <= 18 && strspn(s, "0123456789") == n && nsig > 0;
	FUZZ_ASSERT((valid_amount_minor(s) == NULL) == valid);
	if (!valid)
		return;
	FUZZ_ASSERT(v >= 1 && v <= INT64_C(999999999999999999));
	snprintf(back, sizeof(back), "%" PRId64, v);
	FUZZ_ASSERT(strcmp(back, s + zeros) == 0);
	*amount = v;
}

/* --- pricing */

static const uint64_t pow10[] = { 1, 10, 100, 1000, 10000 };

static int
in_range(const struct money_quote_in *in)
{
	return in->ps >= 1 && in->pr >= 1 && in->es >= 0 && in->es <= 4 &&
	    in->er >= 0 && in->er <= 4 && in->spread_bps >= 0 &&
	    in->spread_bps <= 2 * B && in->fee_s_bps >= 0 && in->fee_s_bps <= B &&
	    in->fee_r_bps >= 0 && in->fee_r_bps <= B &&
	    (in->lock_sending == 0 || in->lock_sending == 1) && in->amount >= 1;
}

/* P + ceil(P * F / 10000), exactly. */
static i128
with_fees(i128 p, int f)
{
	return p + (p * f + B - 1) / B;
}

/* The exact principal when RECEIVING is locked at r: the smallest x with
 * x * pr * k >= r * ps * B, or -1 when it is past INT64_MAX. */
static i128
exact_p_receiving(const struct money_quote_in *in, int k)
{
	struct u256 need = prod((u128)in->amount, (uint64_t)in->ps, B, 1);
	int64_t lo = 0, hi = INT64_MAX;

	if (u256_cmp(prod((u128)INT64_MAX, (uint64_t)in->pr, (uint64_t)k, 1), need) < 0)
		return -1;
	while (lo < hi) {
		int64_t mid = lo + (hi - lo) / 2;

		if (u256_cmp(prod((u128)mid, (uint64_t)in->pr, (uint64_t)k, 1), need) >= 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* The exact principal when SENDING is locked at s. */
static int64_t
exact_p_sending(int64_t s, int f)
{
	int64_t lo = 0, hi = s;

	while (lo < hi) {
		int64_t mid = hi - (hi - lo) / 2;

		if (with_fees(mid, f) <= s)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/* Checks a priced quote against the exact formulas. */
static void
check_quote(const struct money_quote_in *in, const struct money_quote *q)
{
	int k = B - in->spread_bps, f = in->fee_s_bps + in->fee_r_bps;
	struct u256 lhs, rhs;
	u128 ip = 0, qr;
	const char *dot;
	i128 fs;

	FUZZ_ASSERT(q->send >= 1 && q->receive >= 1 && q->principal >= 0 && q->fees >= 0);
	FUZZ_ASSERT((i128)q->principal + q->fees == q->send);
	FUZZ_ASSERT(q->fee_sender >= 0 && q->fee_receiver >= 0);
	FUZZ_ASSERT((i128)q->fee_sender + q->fee_receiver == q->fees);
	fs = ((i128)q->principal * in->fee_s_bps + B - 1) / B;
	FUZZ_ASSERT(q->fee_sender == (fs < q->fees ? fs : q->fees));
	if (in->lock_sending) {
		FUZZ_ASSERT(q->send == in->amount);
		FUZZ_ASSERT(with_fees(q->principal, f) <= q->send);
		FUZZ_ASSERT(with_fees((i128)q->principal + 1, f) > q->send);
		/* R = floor(P * pr * k / (ps * B)) */
		lhs = prod((u128)q->receive, (uint64_t)in->ps, B, 1);
		rhs = prod((u128)q->principal, (uint64_t)in->pr, (uint64_t)k, 1);
		FUZZ_ASSERT(u256_cmp(lhs, rhs) <= 0);
		lhs = prod((u128)q->receive + 1, (uint64_t)in->ps, B, 1);
		FUZZ_ASSERT(u256_cmp(rhs, lhs) < 0);
	} else {
		FUZZ_ASSERT(q->receive == in->amount);
		FUZZ_ASSERT(q->fees == ((i128)q->principal * f + B - 1) / B);
		/* P = ceil(R * ps * B / (pr * k)) */
		lhs = prod((u128)q->principal, (uint64_t)in->pr, (uint64_t)k, 1);
		rhs = prod((u128)q->receive, (uint64_t)in->ps, B, 1);
		FUZZ_ASSERT(u256_cmp(lhs, rhs) >= 0);
		FUZZ_ASSERT(q->principal >= 1);
		lhs = prod((u128)q->principal - 1, (uint64_t)in->pr, (uint64_t)k, 1);
		FUZZ_ASSERT(u256_cmp(lhs, rhs) < 0);
	}

	/* rate: digits, '.', exactly 8 digits; q = floor(pr 10^es k 10^8 / (ps 10^er B)) */
	FUZZ_ASSERT(memchr(q->rate, '\0', sizeof(q->rate)) != NULL);
	dot = strchr(q->rate, '.');
	FUZZ_ASSERT(dot != NULL && dot > q->rate);
	FUZZ_ASSERT(strspn(q->rate, "0123456789") == (size_t)(dot - q->rate));
	FUZZ_ASSERT(q->rate[0] != '0' || dot == q->rate + 1);
	FUZZ_ASSERT(strlen(dot + 1) == 8 && strspn(dot + 1, "0123456789") == 8);
	FUZZ_ASSERT(dot - q->rate <= 30);
	for (const char *c = q->rate; c < dot; c++)
		ip = ip * 10 + (u128)(*c - '0');
	qr = ip * 100000000u + (u128)strtoull(dot + 1, NULL, 10);
	rhs = prod((u128)in->pr, pow10[in->es], (uint64_t)k, 100000000u);
	lhs = prod(qr, (uint64_t)in->ps, pow10[in->er], B);
	FUZZ_ASSERT(u256_cmp(lhs, rhs) <= 0);
	lhs = prod(qr + 1, (uint64_t)in->ps, pow10[in->er], B);
	FUZZ_ASSERT(u256_cmp(rhs, lhs) < 0);
}

/* A failure is only allowed where the exact result cannot be answered. */
static void
check_refusal(const struct money_quote_in *in)
{
	int k, f;

	if (!in_range(in) || in->spread_bps >= B)
		return;
	k = B - in->spread_bps;
	f = in->fee_s_bps + in->fee_r_bps;
	if (in->lock_sending) {
		int64_t p = exact_p_sending(in->amount, f);
		struct u256 num = prod((u128)p, (uint64_t)in->pr, (uint64_t)k, 1);

		/* R < 1, or R >= 2^63 */
		FUZZ_ASSERT(u256_cmp(num, prod(1, (uint64_t)in->ps, B, 1)) < 0 ||
		    u256_cmp(prod((u128)1 << 63, (uint64_t)in->ps, B, 1), num) <= 0);
	} else {
		i128 p = exact_p_receiving(in, k);

		FUZZ_ASSERT(p < 0 || with_fees(p, f) > INT64_MAX);
	}
}

/* Prices in; checks the answer; returns money_quote_price's result. */
static int
price(const struct money_quote_in *in, struct money_quote *q)
{
	static const struct money_quote zero;
	int rc;

	memset(q, 0x5a, sizeof(*q));
	rc = money_quote_price(in, q);
	FUZZ_ASSERT(rc == 0 || rc == -1);
	if (rc < 0) {
		FUZZ_ASSERT(memcmp(q, &zero, sizeof(zero)) == 0);
		check_refusal(in);
	} else {
		FUZZ_ASSERT(in_range(in) && in->spread_bps < B);
		check_quote(in, q);
	}
	return rc;
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char code[4] = "AAA";
	int found = 0;

	(void)argc;
	(void)argv;
	/* Every code of the table is found, and nothing else. */
	for (code[0] = 'A'; code[0] <= 'Z'; code[0]++)
		for (code[1] = 'A'; code[1] <= 'Z'; code[1]++)
			for (code[2] = 'A'; code[2] <= 'Z'; code[2]++) {
				const struct currency *c = money_currency(code);

				if (c != NULL) {
					FUZZ_ASSERT(strcmp(c->code, code) == 0);
					found++;
				}
			}
	FUZZ_ASSERT(found > 0);
	FUZZ_ASSERT(money_quote_price(NULL, NULL) == -1);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rd r = { data, size };
	struct money_quote_in in, other;
	struct money_quote q, q2;
	int es = -1, er = -1;
	int64_t amount = -1;

	memset(&in, 0, sizeof(in));
	check_code(&r, &es);
	check_code(&r, &er);
	check_amount(&r, &amount);
	in.ps = rd_i64(&r);
	in.pr = rd_i64(&r);
	in.es = es >= 0 ? es : rd_int(&r, 4);
	in.er = er >= 0 ? er : rd_int(&r, 4);
	in.spread_bps = rd_int(&r, 2 * B);
	in.fee_s_bps = rd_int(&r, B);
	in.fee_r_bps = rd_int(&r, B);
	in.lock_sending = rd_int(&r, 1);
	in.amount = amount >= 1 ? amount : rd_i64(&r);
	if (rd8(&r) & 1) {
		/* As the handlers price: sane prices, spread below 100%. */
		in.ps = in.ps < 1 ? 1 : in.ps;
		in.pr = in.pr < 1 ? 1 : in.pr;
		in.spread_bps = in.spread_bps < 0 || in.spread_bps >= B ?
		    0 : in.spread_bps;
	}

	if (price(&in, &q) < 0)
		return 0;

	/* The other side locked at this quote's amount. */
	other = in;
	other.lock_sending = !in.lock_sending;
	other.amount = in.lock_sending ? q.receive : q.send;
	if (price(&other, &q2) == 0) {
		if (in.lock_sending) {
			FUZZ_ASSERT(q2.send <= q.send);
		} else {
			FUZZ_ASSERT(q2.principal == q.principal && q2.fees == q.fees);
			FUZZ_ASSERT(q2.receive >= q.receive);
		}
	} else {
		FUZZ_ASSERT(!in.lock_sending);	/* asking for R always prices */
	}

	/* One more minor unit never gives less. */
	if (in.amount < INT64_MAX) {
		other = in;
		other.amount++;
		if (price(&other, &q2) == 0) {
			FUZZ_ASSERT(q2.principal >= q.principal);
			FUZZ_ASSERT(q2.send >= q.send && q2.receive >= q.receive);
		}
	}
	return 0;
}
