/*
 * money.h: the service's currency table and the exact FX pricing of a quote
 * (decisions.md section 9).  Amounts are always int64_t minor units; nothing
 * here uses floating point.
 */
#ifndef XBORDER_MONEY_H
#define XBORDER_MONEY_H

#include <stdint.h>

struct currency {
	const char	*code;		/* ISO 4217 */
	int		 exponent;	/* minor-unit digits */
};

/* The entry for an ISO 4217 code, or NULL when the service does not know it. */
const struct currency *money_currency(const char *code);

/* 1 when s is exactly three uppercase ASCII letters. */
int money_code_form(const char *s);

/* Inputs of one quote's pricing. */
struct money_quote_in {
	int64_t	 ps;		/* sending currency's BTC reference price, minor units per BTC, >= 1 */
	int64_t	 pr;		/* receiving currency's, >= 1 */
	int	 es, er;	/* minor-unit exponents of sending / receiving currency (0..4) */
	int	 spread_bps;	/* corridor spread sp = sum of both platforms' btcFiatSpreadBps, 0..20000 */
	int	 fee_s_bps;	/* Fs: sending platform's senderServiceFeeBps, 0..10000 */
	int	 fee_r_bps;	/* Fr: receiving platform's receiverServiceFeeBps, 0..10000 */
	int	 lock_sending;	/* 1: SENDING side locked at amount; 0: RECEIVING side locked */
	int64_t	 amount;	/* the locked amount, minor units of the locked side, >= 1 */
};

/* A priced quote: every amount in minor units. */
struct money_quote {
	int64_t	 send;		/* S, sending currency minor units */
	int64_t	 receive;	/* R, receiving currency minor units */
	int64_t	 principal;	/* P, sending currency */
	int64_t	 fees;		/* S - P, sending currency */
	int64_t	 fee_sender;	/* min(fees, ceil(P * Fs / 10000)) */
	int64_t	 fee_receiver;	/* fees - fee_sender */
	char	 rate[48];	/* exchangeRate, exactly 8 decimals, truncated, e.g. "0.00001523" or "17.12345678" */
};

/*
 * Prices one quote with the exact integer formulas of decisions.md section
 * 9, F = Fs + Fr and sp the spread:
 *   RECEIVING locked at R: P = ceil(R * ps * 10000 / (pr * (10000 - sp))),
 *     fees = ceil(P * F / 10000), S = P + fees;
 *   SENDING locked at S: P = the largest P with P + ceil(P * F / 10000) <= S,
 *     fees = S - P, R = floor(P * pr * (10000 - sp) / (ps * 10000));
 *   rate = floor(pr * 10^es * (10000 - sp) * 10^8 / (ps * 10^er * 10000))
 *     printed with exactly 8 decimals.
 * Every product is taken in 128 bits and no intermediate can wrap: a value
 * that would not fit is detected, not truncated.  in is borrowed; the
 * result is written to the caller's *out, which holds no pointers.
 * Returns 0 on success; -1 when the quote cannot be priced: R < 1,
 * sp >= 10000, any input out of its range (or in or out NULL), or any
 * result that does not fit in int64_t.  On -1, *out (when not NULL) is
 * zeroed.  The caller answers -1 with 400 INVALID_REQUEST.
 */
int money_quote_price(const struct money_quote_in *in, struct money_quote *out);

/*
 * One corridor as the store gives it: the two currencies, their reference
 * prices and the settings of the sending and the receiving platform
 * (decisions.md section 9).  A quote to a PPV address of another platform
 * takes each setting from its own platform; a payout and GET
 * /exchange-rates (section 14) take both sides from the one platform.
 */
struct money_corridor {
	const char	*send_currency;	/* ISO 4217 code of the sending currency */
	const char	*recv_currency;	/* ... of the receiving currency */
	int64_t		 ps, pr;	/* their BTC reference prices, minor units per BTC */
	int64_t		 spread_s_bps;	/* sending platform's btcFiatSpreadBps, 0..10000 */
	int64_t		 spread_r_bps;	/* receiving platform's btcFiatSpreadBps, 0..10000 */
	int64_t		 fee_s_bps;	/* sending platform's senderServiceFeeBps, 0..10000 */
	int64_t		 fee_r_bps;	/* receiving platform's receiverServiceFeeBps, 0..10000 */
};

/* What money_corridor_price() says of a corridor. */
enum money_price_rc {
	MONEY_PRICED = 0,
	MONEY_UNKNOWN_SEND,	/* the sending currency is not in the service's table */
	MONEY_UNKNOWN_RECV,	/* the receiving currency is not */
	MONEY_UNPRICEABLE	/* spread >= 10000, R < 1, a result past 64 bits, a setting out of range */
};

/*
 * Prices amount on corridor c: the one pricing of POST /quotes and GET
 * /exchange-rates.  It derives the inputs of money_quote_price() from the
 * corridor (exponents from the currency table, sp = spread_s_bps +
 * spread_r_bps, Fs = fee_s_bps, Fr = fee_r_bps) and prices the amount,
 * locked on the sending side when lock_sending is 1, on the receiving side
 * when it is 0.  With amount 0 it gives the rate alone: out->rate is set
 * (the same string a quote of any amount on the corridor carries) and
 * every amount of *out is 0.  c is borrowed; *in receives the inputs used
 * (as far as they could be derived) and *out the result; neither holds
 * pointers.  Returns MONEY_PRICED or why not (*out then zeroed).
 */
enum money_price_rc money_corridor_price(const struct money_corridor *c, int lock_sending,
    int64_t amount, struct money_quote_in *in, struct money_quote *out);

#endif
