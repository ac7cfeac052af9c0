/*
 * ledger.h: postings of the two-sided ledger.  A balance change is a set of postings
 * (account, currency, signed amount in minor units) that sums to zero per
 * currency.  This module is pure: it checks and orders postings; the store
 * (db_ledger.c) applies them under row locks.
 */
#ifndef XBORDER_LEDGER_H
#define XBORDER_LEDGER_H

#include <stddef.h>
#include <stdint.h>

/*
 * A platform holds money in flight in LEDGER_TRANSIT_SHARDS in-transit
 * accounts per currency instead of one, so that concurrent transfers do
 * not all wait on one account row's lock.  A transfer picks a shard when
 * it is made and records it (transactions.transit_shard); every later
 * posting of that transaction (settlement, failure, refund) uses the same
 * shard.  Each shard is an ordinary account: its balance is the sum of
 * its entries, never negative, and is exactly the money of the
 * transactions that are in flight on it, so the platform's money in
 * flight is the sum over its shards.
 */
#define LEDGER_TRANSIT_SHARDS 16

/*
 * The most postings in one set: enough for a settlement batch to move
 * money out of every in-transit shard of a platform and currency into one
 * account in a single set (settle.c).
 */
#define LEDGER_MAX_POSTINGS (LEDGER_TRANSIT_SHARDS + 2)

/*
 * The service-wide balance limit: no balance may leave
 * -LEDGER_BALANCE_MAX..LEDGER_BALANCE_MAX, the platform's SANDBOX account
 * (the only one that goes negative) included.  10^18 - 1 is the largest
 * amount an amountMinor of 18 digits can show, and far from the ends of
 * int64 (about 9.2 * 10^18).
 */
#define LEDGER_BALANCE_MAX	INT64_C(999999999999999999)

/*
 * The most a platform may configure as a currency's minAmount or
 * maxAmount: 10^15, a thousandth of the balance limit.
 */
#define LEDGER_AMOUNT_CFG_MAX	INT64_C(1000000000000000)

/* What ledger_balance_after() found. */
enum ledger_bound {
	LEDGER_OK = 0,
	LEDGER_BELOW_ZERO,	/* an account that may not go negative would */
	LEDGER_PAST_LIMIT	/* the balance would leave the balance limit */
};

struct posting {
	char	 account_id[37];
	char	 currency[4];
	int64_t	 amount;	/* credit > 0, debit < 0; never 0 */
};

/*
 * A set of postings, and the transaction whose move it is (txn: its id,
 * or "" for money that belongs to none, such as sandbox funding): every
 * ledger entry written for the set names it, so that each transaction's
 * entries can be checked against what its kind and status imply.
 */
struct posting_set {
	struct posting	p[LEDGER_MAX_POSTINGS];
	size_t		n;
	char		txn[37];
};

/*
 * The most ledger entries one write may hold: two per transaction of a
 * settlement batch (txn.h's TXN_BATCH_MAX, 64), each payout's own.
 */
#define LEDGER_MAX_ENTRIES 128

/*
 * One ledger entry as written: a settlement batch changes balances by one
 * aggregated set, but writes each transaction's entries apart
 * (db_ledger_apply_split).
 */
struct ledger_entry {
	char	 txn[37];	/* "" for none */
	char	 account_id[37];
	char	 currency[4];
	int64_t	 amount;
};

/*
 * 1 when the n entries e make exactly the set's change to each account:
 * the same accounts and currencies, per account the same sum (computed
 * in 128 bits), no entry of 0.  Else 0.
 */
int ledger_split_matches(const struct posting_set *s, const struct ledger_entry *e, size_t n);

/*
 * Appends a posting.  Returns 0, or -1 when the set is full, the amount is
 * 0 or INT64_MIN, or the id or currency is malformed.
 */
int ledger_add(struct posting_set *s, const char *account_id, const char *currency,
    int64_t amount);

/*
 * Appends the two postings of a transfer of amount (> 0) from one account
 * to another in one currency.  Returns 0 or -1.
 */
int ledger_move(struct posting_set *s, const char *from, const char *to,
    const char *currency, int64_t amount);

/*
 * Checks that the set is balanced: at least two postings, and for every
 * currency the amounts sum to exactly zero (computed in 128 bits, so no
 * overflow can hide an imbalance).  Returns 0 or -1.
 */
int ledger_balanced(const struct posting_set *s);

/*
 * Writes into order[] the indexes of the distinct accounts of the set,
 * sorted by account id: the order in which rows are locked, the same for
 * every transaction, so that two transfers cannot wait on each other in a
 * cycle.  Returns the number of distinct accounts.
 */
size_t ledger_lock_order(const struct posting_set *s, size_t order[LEDGER_MAX_POSTINGS]);

/*
 * The net change the set makes to one account (sum of its postings).
 * Sets *overflow when it does not fit in int64.
 */
int64_t ledger_net(const struct posting_set *s, const char *account_id, int *overflow);

/*
 * What the set takes from one account: the sum of its debits, as a
 * positive number (0 when it only credits it).  Sets *overflow when it
 * does not fit in int64.
 */
int64_t ledger_taken(const struct posting_set *s, const char *account_id, int *overflow);

/*
 * The funds rule (decisions.md section 8): 1 when an account holding
 * balance before the request can give taken, whatever the same request
 * credits to it; always 1 for an account that may go negative.
 */
int ledger_funds_cover(int64_t balance, int64_t taken, int may_go_negative);

/*
 * The balance an account would have after a net change, computed without
 * overflow.  Returns LEDGER_OK with *out set; LEDGER_BELOW_ZERO when the
 * result is negative and the account may not go negative (checked first:
 * such an account is short of money before anything else); or
 * LEDGER_PAST_LIMIT when the sum does not fit in int64 or the change moves
 * the balance further out than +-LEDGER_BALANCE_MAX.  A balance already
 * outside the limit (older data) may still move back toward zero.  *out
 * is left alone unless LEDGER_OK.
 */
enum ledger_bound ledger_balance_after(int64_t balance, int64_t net, int may_go_negative,
    int64_t *out);

#endif
