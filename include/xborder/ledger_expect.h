/*
 * ledger_expect.h: the ledger entries a transaction's kind and current
 * status imply (txn_postings.c makes them move by move; this says where
 * the money of each status is, from the lifecycle's table and the
 * contract's formulas alone).  Pure: xborderctl ledger-check and the
 * worker's continuous check hold each transaction's entries to it.
 */
#ifndef XBORDER_LEDGER_EXPECT_H
#define XBORDER_LEDGER_EXPECT_H

#include <stddef.h>
#include <stdint.h>

#include "xborder/txn_moves.h"

/* What a transaction's money depends on. */
struct expect_txn {
	enum txn_class	 c;
	const char	*status;
	int		 returns;	/* its outcome is RETURNS (the bank returns it) */
	const char	*platform;
	const char	*currency;
	int64_t		 amount;
	int		 shard;		/* its in-transit shard (transfers) */
	const char	*customer;	/* its internal account's owner (transfers, review) */
	/* A quote's (TC_QUOTE_PAYOUT, TC_QUOTE_PPV). */
	const char	*recv_platform;
	const char	*send_currency, *recv_currency;
	const char	*sender;	/* the source account's owner */
	const char	*receiver;	/* the receiving customer (PPV) */
	int64_t		 send_amount, principal, fee_sender, fee_receiver, recv_amount;
};

/*
 * The net of one account: accounts are named as internal_accounts keeps
 * them unique, by platform, kind, owner (the customer id of a CUSTOMER
 * account, "-" or "-<shard>" for the platform's own) and currency.
 */
struct expect_row {
	char	 platform[37];
	char	 kind[12];
	char	 owner[37];
	char	 currency[4];
	int64_t	 amount;
};

#define EXPECT_MAX_ROWS 12

/*
 * Writes into out the net each account must hold from t's entries, one
 * row an account, none of 0.  Returns how many (at most EXPECT_MAX_ROWS),
 * or -1 for a class or status the table does not know, or a sum out of
 * range.
 */
int ledger_expect(const struct expect_txn *t, struct expect_row out[EXPECT_MAX_ROWS]);

/*
 * 1 when the n rows a and the m rows b name the same accounts with the same
 * nets (in any order; rows of 0 ignored).
 */
int ledger_expect_same(const struct expect_row *a, size_t n, const struct expect_row *b,
    size_t m);

#endif
