/*
 * db_customers.h: the store of customers and their PPV names.
 */
#ifndef XBORDER_DB_CUSTOMERS_H
#define XBORDER_DB_CUSTOMERS_H

#include <stddef.h>
#include <stdint.h>

struct db;

struct customer {
	char	 id[37];
	char	 platform_id[37];
	char	*platform_customer_id;	/* owned */
	char	 type[16];		/* INDIVIDUAL, ENTITY */
	char	*full_name;		/* owned */
	char	 kyc[16];		/* PENDING, APPROVED, REJECTED */
	char	*ppv_name;		/* owned */
	char	*ppv_domain;		/* owned */
	char	 created_at[25], updated_at[25];
	int	 deleted;
};

/* Fields of a create or a patch; NULL leaves a field as it is. */
struct customer_fields {
	const char	*platform_customer_id;
	const char	*type;
	const char	*full_name;
	const char	*kyc;
	const char	*ppv_name;
};

/* Which unique rule a DB_DUPLICATE broke. */
enum customer_conflict { CONFLICT_NONE, CONFLICT_PCID, CONFLICT_PPV };

/* List filters; NULL means "any". */
struct customer_filter {
	const char	*type;
	const char	*kyc;
	const char	*platform_customer_id;
};

/*
 * Creates a customer of platform with an internal account for each of the
 * platform's supported currencies, in one transaction.  f must give
 * everything but may leave ppv_name NULL (a random name is issued).
 * DB_DUPLICATE sets *conflict.
 */
int db_customer_create(struct db *db, const char *platform, const struct customer_fields *f,
    struct customer *out, enum customer_conflict *conflict);

/* Reads a customer: DB_OK, DB_NOT_FOUND, DB_GONE (deleted; out is filled). */
int db_customer_get(struct db *db, const char *platform, const char *id, struct customer *out);

/*
 * Locks the customer row (FOR UPDATE) inside the caller's transaction.
 * The lock order of every transaction that moves a customer's money or
 * deletes the customer: the customer rows first (in id order when there
 * are two), then the quote and transaction rows, then the account rows
 * (in id order).  Returns DB_OK for a live customer (with *pcid, when
 * pcid is not NULL, its platformCustomerId: caller frees), DB_GONE for a
 * deleted one, DB_NOT_FOUND, or a failure.
 */
int db_customer_lock(struct db *db, const char *platform, const char *id, char **pcid);

/* Applies f (PATCH or a new ppv_name); same results plus DB_DUPLICATE. */
int db_customer_update(struct db *db, const char *platform, const char *id,
    const struct customer_fields *f, struct customer *out, enum customer_conflict *conflict);

/*
 * Soft-deletes a customer: DB_OK, DB_NOT_FOUND, DB_GONE (already deleted)
 * or DB_CONFLICT while one of its internal accounts holds money.
 */
int db_customer_delete(struct db *db, const char *platform, const char *id);

/* Lists live customers, newest first. */
int db_customer_list(struct db *db, const char *platform, const struct customer_filter *f,
    int64_t limit, int64_t offset, struct customer **out, size_t *n, int64_t *total);

/*
 * Finds the live customer whose PPV address is name@domain, where domain is
 * the PPV or UMA domain of any platform.  DB_OK or DB_NOT_FOUND.
 */
int db_customer_by_ppv(struct db *db, const char *name, const char *domain,
    struct customer *out);

void customer_free(struct customer *c);
void customer_list_free(struct customer *c, size_t n);

#endif
