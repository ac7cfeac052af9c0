/*
 * db_ledger.h: applying postings to balances, system accounts, and the
 * whole-database ledger check.
 */
#ifndef XBORDER_DB_LEDGER_H
#define XBORDER_DB_LEDGER_H

#include <stdint.h>

#include "xborder/ledger.h"

struct db;

/* Kinds of internal accounts. */
#define ACCT_CUSTOMER	"CUSTOMER"
#define ACCT_PLATFORM	"PLATFORM"	/* platform-owned (fee revenue) */
#define ACCT_SANDBOX	"SANDBOX"	/* the test environment's outside world */
#define ACCT_IN_TRANSIT	"IN_TRANSIT"	/* money on its way to a bank */

/* Which balance fell short, for INSUFFICIENT_FUNDS details. */
struct ledger_short {
	char	 account_id[37];
	char	 currency[4];
	int64_t	 available;
	int64_t	 requested;
};

/*
 * Applies a balanced posting set inside the caller's transaction: locks
 * every account row (FOR UPDATE, in ledger_lock_order), checks currencies,
 * that no balance but a SANDBOX one goes below zero and that no balance
 * leaves -LEDGER_BALANCE_MAX..LEDGER_BALANCE_MAX (ledger_balance_after),
 * and only then updates the balances and writes one ledger entry per
 * posting.  Returns DB_OK; DB_LIMIT when a balance would pass the limit
 * (before DB_INSUFFICIENT, as AMOUNT_OUT_OF_RANGE comes before
 * INSUFFICIENT_FUNDS); DB_INSUFFICIENT (with *shortfall filled);
 * DB_CONFLICT for an unbalanced set or a currency mismatch; or a failure.
 * On DB_LIMIT, DB_INSUFFICIENT and DB_CONFLICT nothing has been written.
 */
int db_ledger_apply(struct db *db, const char *memo, const struct posting_set *s,
    struct ledger_short *shortfall);

/*
 * As db_ledger_apply, for a set whose entries are written apart: the ne
 * entries e (at most LEDGER_MAX_ENTRIES) instead of one per posting, each
 * naming its own transaction.  They must make exactly the set's change to
 * each account (ledger_split_matches), else DB_CONFLICT and nothing is
 * written.  A settlement batch: balances change once per account, each
 * payout keeps entries of its own.
 */
int db_ledger_apply_split(struct db *db, const char *memo, const struct posting_set *s,
    const struct ledger_entry *e, size_t ne);

/*
 * The id of platform's system account of kind in currency, created when
 * first needed.  Returns DB_OK or a failure.
 */
int db_account_system(struct db *db, const char *platform, const char *kind,
    const char *currency, char id[37]);

/*
 * The id of in-transit account shard (0 .. LEDGER_TRANSIT_SHARDS - 1) of
 * platform in currency, created when first needed; shard 0 is the one
 * db_account_system() gives for ACCT_IN_TRANSIT.  See ledger.h.
 */
int db_account_transit(struct db *db, const char *platform, const char *currency, int shard,
    char id[37]);

#endif
