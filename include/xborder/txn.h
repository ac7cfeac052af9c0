/*
 * txn.h: a transaction as the service holds it in memory: the row of
 * `transactions` with its owned strings.  The store reads it, the
 * lifecycle changes it, the JSON view (json_txn.h) shows it.  No I/O.
 */
#ifndef XBORDER_TXN_H
#define XBORDER_TXN_H

#include <stddef.h>
#include <stdint.h>

/* The most transactions one change handles at once (a batch of jobs). */
#define TXN_BATCH_MAX 64

struct txn {
	char	 id[37];
	char	 platform_id[37];
	char	 kind[16];		/* TRANSFER_IN, TRANSFER_OUT, ... */
	char	 type[9];		/* OUTGOING, INCOMING */
	char	 status[16];
	char	 customer_id[37];	/* "" when none */
	char	*platform_customer_id;	/* NULL when none; owned */
	char	*quote_id;		/* NULL when none; owned */
	char	 internal_account_id[37];
	char	 external_account_id[37];
	char	 destination_type[17];
	char	*destination_ref;	/* external account id or PPV address; owned */
	char	 currency[4];
	int64_t	 amount;
	char	*exchange_rate;		/* NULL when none; owned */
	char	 fee_currency[4];	/* "" when none */
	int64_t	 fee_amount;
	char	 outcome[16];		/* COMPLETES, FAILS, RETURNS, HOLDS */
	char	 created_at[25], updated_at[25];
	char	 settled_at[25];	/* "" while not settled */
	char	 review_scenario[33];	/* review lane: the scenario, else "" */
	char	*review_detail;		/* its details as JSON text, or NULL; owned */
	int	 transit_shard;		/* which in-transit account holds its money */
	/*
	 * The server's UTC_TIMESTAMP(3) as DATETIME text when the row was read
	 * under its lock (db_txn_lock), else "": a status change that follows
	 * sets updated_at to it, so the row as changed is known without reading
	 * it again.
	 */
	char	 db_now[24];
};

/* Frees what t owns and zeroes it (t itself is the caller's). */
void txn_free(struct txn *t);

/* Frees the n transactions of t, not t itself. */
void txns_free(struct txn *t, size_t n);

/* Frees the n transactions of t and the array t. */
void txn_list_free(struct txn *t, size_t n);

/*
 * 1 when outcome (a transaction's or a quote's) is HOLDS: the sandbox bank
 * keeps it in flight until a sandbox helper moves it, nothing settles it.
 */
int txn_outcome_holds(const char *outcome);

/*
 * 1 when outcome is RETURNS: the bank returns the payout after completing
 * it, so its money stays in transit while it is COMPLETED.
 */
int txn_outcome_returns(const char *outcome);

/* A copy of t that owns its own strings (caller frees with txn_free). */
void txn_copy(const struct txn *t, struct txn *out);

#endif
