/*
 * db_platforms.h: platforms, their configuration (PlatformConfig and its
 * supported currencies) and their sandbox execution profile.
 */
#ifndef XBORDER_DB_PLATFORMS_H
#define XBORDER_DB_PLATFORMS_H

#include <stddef.h>
#include <stdint.h>

struct db;
struct db_rows;

/* One supported-currency entry. */
struct currency_cfg {
	char	 code[4];
	int64_t	 min_amount, max_amount;
	int	 outgoing, incoming;
	char	*types_json;	/* enabledTransactionTypes as JSON text; owned */
	char	*fields_json;	/* requiredCounterpartyFields as JSON text; owned */
};

struct platform_config {
	char			 id[37];
	char			*uma_domain, *ppv_domain;
	char			*webhook;	/* NULL when not configured */
	int64_t			 sender_fee_bps, receiver_fee_bps;
	struct currency_cfg	*cur;
	size_t			 ncur;
	char			 created_at[25], updated_at[25];
	int64_t			 version;	/* of the row this was read from */
};

/* What PATCH /config changes; unset parts are kept. */
struct config_patch {
	int				 set_webhook;
	const char			*webhook;	/* NULL clears */
	int				 set_fees;
	int64_t				 sender_fee_bps, receiver_fee_bps;
	int				 set_currencies;
	const struct currency_cfg	*cur;
	size_t				 ncur;
};

struct profile {
	int64_t	 spread_bps;
	int64_t	 lock_seconds;
};

#define PROFILE_DEFAULT_SPREAD_BPS 50
#define PROFILE_DEFAULT_LOCK_SECONDS 300

/*
 * Creates a platform with its default configuration and execution profile
 * and its operator-issued root token (token_id with secret hash), in one
 * transaction.  platform_id[37] receives the new id.
 */
int db_platform_create(struct db *db, const char *name, const char *ppv_domain,
    const char *uma_domain, const char *token_id, const char *secret_hash,
    char platform_id[37]);

/* All platforms: id, name, ppv_domain, uma_domain, created_at. */
int db_platform_list(struct db *db, struct db_rows *out);

/*
 * Reads the configuration of platform (caller frees with
 * platform_config_free).  version is the configuration's version as the
 * caller read it in this request (the token lookup reads it), or 0: a
 * known version may be served from the worker's cache without a query.
 */
int db_config_get(struct db *db, const char *platform, int64_t version,
    struct platform_config *out);

/* Applies a patch in one transaction. */
int db_config_update(struct db *db, const char *platform, const struct config_patch *p);

void platform_config_free(struct platform_config *c);
void currency_cfg_free(struct currency_cfg *c, size_t n);

/* Reads the execution profile of platform. */
int db_profile_get(struct db *db, const char *platform, struct profile *out);

/* Updates the fields given (NULL keeps a field) and reads the profile back. */
int db_profile_update(struct db *db, const char *platform, const int64_t *spread_bps,
    const int64_t *lock_seconds, struct profile *out);

/* Sets a sandbox BTC reference price. */
int db_fx_set(struct db *db, const char *currency, int64_t price);

/*
 * Removes the sandbox BTC reference price of currency; *price receives the
 * price it had.  DB_OK, DB_NOT_FOUND (it had none) or a failure.
 */
int db_fx_unset(struct db *db, const char *currency, int64_t *price);

/* All reference prices, in order of currency: currency, price, updated_at. */
int db_fx_list(struct db *db, struct db_rows *out);

/*
 * Applies the migrations of dir not yet recorded, in name order; reports
 * each applied file through the callback.  Returns DB_OK or a failure,
 * with a message in err.
 */
int db_migrate(struct db *db, const char *dir, void (*applied)(const char *name),
    char *err, size_t errlen);

#endif
