/*
 * db_accounts.h: internal accounts (balances) and external bank accounts.
 */
#ifndef XBORDER_DB_ACCOUNTS_H
#define XBORDER_DB_ACCOUNTS_H

#include <stddef.h>
#include <stdint.h>

#include "xborder/db_ledger.h"

struct db;

struct internal_account {
	char	 id[37];
	char	 platform_id[37];
	char	 customer_id[37];	/* "" for platform-owned */
	char	 kind[16];
	char	 currency[4];
	int64_t	 balance;
	char	 created_at[25], updated_at[25];
	int	 customer_deleted;
};

struct external_account {
	char	 id[37];
	char	 customer_id[37];
	char	 currency[4];
	char	*platform_account_id;	/* owned */
	char	 account_type[16], account_category[16];
	char	*bank_name;		/* owned */
	char	 account_last4[5], routing_last4[5];
	char	 status[16];
	char	 created_at[25], updated_at[25];
	int	 deleted, customer_deleted;
};

/* What a new external account is made of (numbers already reduced). */
struct external_new {
	const char	*customer_id, *currency, *platform_account_id;
	const char	*account_type, *account_category, *bank_name;
	const char	*account_last4, *routing_last4, *fingerprint;
};

/*
 * Lists internal accounts of platform of one kind (ACCT_CUSTOMER or
 * ACCT_PLATFORM), live customers only; customer and currency may be NULL.
 */
int db_internal_list(struct db *db, const char *platform, const char *kind,
    const char *customer, const char *currency, int64_t limit, int64_t offset,
    struct internal_account **out, size_t *n, int64_t *total);

/* Reads one CUSTOMER or PLATFORM account of platform: DB_OK or DB_NOT_FOUND. */
int db_internal_get(struct db *db, const char *platform, const char *id,
    struct internal_account *out);

/*
 * Funds an account of platform from its SANDBOX account in one
 * transaction; out receives the account afterwards.  DB_OK, DB_NOT_FOUND,
 * DB_GONE (its customer is deleted), DB_LIMIT (the account or the SANDBOX
 * one would pass the balance limit; nothing written) or a failure.
 */
int db_internal_fund(struct db *db, const char *platform, const char *id, int64_t amount,
    struct internal_account *out);

/*
 * Creates the CUSTOMER accounts that are missing for currency (every live
 * customer of platform).  Runs inside the caller's transaction.
 */
int db_internal_ensure_currency(struct db *db, const char *platform, const char *currency);

/*
 * Creates an external account.  DB_OK, DB_NOT_FOUND (no such customer),
 * DB_GONE (customer deleted), DB_DUPLICATE (same account already there).
 */
int db_external_create(struct db *db, const char *platform, const struct external_new *n,
    struct external_account *out);

/* Reads one: DB_OK, DB_NOT_FOUND (unknown or deleted). */
int db_external_get(struct db *db, const char *platform, const char *id,
    struct external_account *out);

/*
 * The two accounts of a transfer in one round trip: returns what
 * db_external_get() returns for ext_id (ea filled when DB_OK or DB_GONE),
 * and *int_rc what db_internal_get() returns for int_id (DB_OK with ia
 * filled, or DB_NOT_FOUND).
 */
int db_transfer_accounts(struct db *db, const char *platform, const char *ext_id,
    const char *int_id, struct external_account *ea, struct internal_account *ia,
    int *int_rc);

/* Lists live accounts of live customers; customer and currency may be NULL. */
int db_external_list(struct db *db, const char *platform, const char *customer,
    const char *currency, int64_t limit, int64_t offset,
    struct external_account **out, size_t *n, int64_t *total);

/*
 * Inside the caller's transaction: locks external account id of platform.
 * DB_OK (live), DB_GONE (deleted), DB_NOT_FOUND or a failure.
 */
int db_external_lock(struct db *db, const char *platform, const char *id);

/*
 * Deletes account id of customer: DB_OK, DB_NOT_FOUND (not that customer's
 * live account, or no such customer), DB_GONE (customer deleted).
 */
int db_external_delete(struct db *db, const char *platform, const char *id,
    const char *customer);

/*
 * The id of customer's CUSTOMER account in currency (every customer has
 * one per currency its platform supports or supported).  DB_OK, or DB_ERR
 * when it has none.
 */
int db_customer_account(struct db *db, const char *platform, const char *customer,
    const char *currency, char id[37]);

void external_account_free(struct external_account *a);
void external_account_list_free(struct external_account *a, size_t n);

#endif
