/*
 * handlers.h: the resource handlers (h_<resource>.c) and the helpers they
 * share.  A handler receives a request that is routed, authenticated,
 * permitted and whose body (if any) parsed to a JSON object; it sets the
 * response with resp_json() or resp_error() and returns 0 or -1.
 */
#ifndef XBORDER_HANDLERS_H
#define XBORDER_HANDLERS_H

#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "xborder/db_transactions.h"
#include "xborder/jtext.h"
#include "xborder/json_txn.h"
#include "xborder/router.h"

struct req;

/* Every operation of the service; routes[] (routes.c) has a row for each. */
enum route {
	ROUTE_GET_HEALTHZ,
	ROUTE_GET_STATUS,
	ROUTE_GET_OPENAPI_JSON,
	ROUTE_POST_TOKENS,
	ROUTE_GET_TOKENS,
	ROUTE_GET_TOKENS_ONE,
	ROUTE_DELETE_TOKENS_ONE,
	ROUTE_GET_CONFIG,
	ROUTE_PATCH_CONFIG,
	ROUTE_GET_SANDBOX_LIGHTNING_EXECUTION_PROFILE,
	ROUTE_PATCH_SANDBOX_LIGHTNING_EXECUTION_PROFILE,
	ROUTE_POST_CUSTOMERS,
	ROUTE_GET_CUSTOMERS,
	ROUTE_GET_CUSTOMERS_ONE,
	ROUTE_PATCH_CUSTOMERS_ONE,
	ROUTE_DELETE_CUSTOMERS_ONE,
	ROUTE_POST_CUSTOMERS_ONE_PPV_ADDRESS,
	ROUTE_POST_CUSTOMERS_EXTERNAL_ACCOUNTS,
	ROUTE_GET_CUSTOMERS_EXTERNAL_ACCOUNTS,
	ROUTE_GET_CUSTOMERS_EXTERNAL_ACCOUNTS_ONE,
	ROUTE_DELETE_CUSTOMERS_EXTERNAL_ACCOUNTS_ONE,
	ROUTE_GET_CUSTOMERS_INTERNAL_ACCOUNTS,
	ROUTE_GET_PLATFORM_INTERNAL_ACCOUNTS,
	ROUTE_POST_SANDBOX_INTERNAL_ACCOUNTS_ONE_FUND,
	ROUTE_GET_RECEIVER_EXTERNAL_ACCOUNT_ONE,
	ROUTE_GET_RECEIVER_PPV_ONE,
	ROUTE_POST_TRANSFER_IN,
	ROUTE_POST_TRANSFER_OUT,
	ROUTE_GET_TRANSACTIONS,
	ROUTE_GET_TRANSACTIONS_ONE,
	ROUTE_POST_SANDBOX_INCOMING_PAYMENTS_SIMULATE,
	ROUTE_POST_TRANSACTIONS_ONE_APPROVE,
	ROUTE_POST_TRANSACTIONS_ONE_REJECT,
	ROUTE_POST_SANDBOX_TRANSACTIONS_ONE_COMPLETE,
	ROUTE_POST_SANDBOX_TRANSACTIONS_ONE_FAIL,
	ROUTE_POST_SANDBOX_TRANSACTIONS_ONE_RETURN,
	ROUTE_POST_SANDBOX_TRANSACTIONS_ONE_EXPIRE,
	ROUTE_POST_QUOTES,
	ROUTE_GET_QUOTES,
	ROUTE_GET_QUOTES_ONE,
	ROUTE_POST_QUOTES_ONE_EXECUTE,
	ROUTE_GET_EXCHANGE_RATES,
	ROUTE_GET_WEBHOOKS_SIGNING_KEY,
	ROUTE_POST_WEBHOOKS_SIGNING_KEY_ROTATE,
	ROUTE_POST_WEBHOOKS_TEST,
	ROUTE_GET_WEBHOOKS_DELIVERIES,
	ROUTE_GET_WEBHOOKS_DELIVERIES_ONE,
	ROUTE_POST_WEBHOOKS_DELIVERIES_ONE_RETRY,
	ROUTE__MAX
};

/* The routing table (routes.c) and its size (ROUTE__MAX). */
extern const struct route_def routes[ROUTE__MAX];
extern const size_t nroutes;

int h_health_get(struct req *req);
int h_status_get(struct req *req);
int h_openapi_get(struct req *req);

int h_tokens_create(struct req *req);
int h_tokens_list(struct req *req);
int h_tokens_get(struct req *req);
int h_tokens_revoke(struct req *req);

int h_config_get(struct req *req);
int h_config_patch(struct req *req);

int h_profile_get(struct req *req);
int h_profile_patch(struct req *req);

int h_customers_create(struct req *req);
int h_customers_list(struct req *req);
int h_customers_get(struct req *req);
int h_customers_patch(struct req *req);
int h_customers_delete(struct req *req);
int h_customers_ppv(struct req *req);

int h_external_create(struct req *req);
int h_external_list(struct req *req);
int h_external_get(struct req *req);
int h_external_delete(struct req *req);

int h_internal_customer_list(struct req *req);
int h_internal_platform_list(struct req *req);
int h_internal_fund(struct req *req);

int h_receiver_external(struct req *req);
int h_receiver_ppv(struct req *req);

int h_transfer_in(struct req *req);
int h_transfer_out(struct req *req);

int h_transactions_get(struct req *req);

int h_review_simulate(struct req *req);
int h_review_approve(struct req *req);
int h_review_reject(struct req *req);

int h_sandbox_txn_complete(struct req *req);
int h_sandbox_txn_fail(struct req *req);
int h_sandbox_txn_return(struct req *req);
int h_sandbox_txn_expire(struct req *req);

int h_quotes_create(struct req *req);
int h_quotes_list(struct req *req);
int h_quotes_get(struct req *req);
int h_quotes_execute(struct req *req);

int h_rates_list(struct req *req);
int h_transactions_list(struct req *req);

int h_webhooks_signing_key(struct req *req);
int h_webhooks_rotate(struct req *req);
int h_webhooks_test(struct req *req);
int h_webhooks_deliveries(struct req *req);
int h_webhooks_delivery(struct req *req);
int h_webhooks_retry(struct req *req);

/* Shared helpers (h_common.c). */

/*
 * The worker's database connection (as req_db_or_reply), after the
 * platform's quotes past their expiry were marked EXPIRED, so that what
 * the request reads is never stale.  NULL when it answered 503/500.
 */
struct db *db_fresh_or_reply(struct req *req);

/*
 * Reads query parameter name: 0 when absent, 1 with *value (borrowed) when
 * given once; answers 400 naming it and returns -1 when it is repeated or
 * not validly percent-encoded.
 */
int query_or_reply(struct req *req, const char *name, const char **value);

/* Where a list ends: nextCursor is null, or "" for external accounts. */
enum list_end { LIST_END_NULL, LIST_END_EMPTY };

/*
 * Reads `limit` (default def, 1..max) and `cursor` (offset >= 0) from the
 * query.  Answers 400 naming the parameter and returns -1 when one is
 * malformed, out of range or repeated.
 */
int list_params_or_reply(struct req *req, int64_t def, int64_t max,
    int64_t *limit, int64_t *cursor);

/*
 * Builds the list envelope around data (ownership passes): hasMore,
 * nextCursor (decimal offset string, or the end marker) and totalCount.
 */
json_object *list_envelope(json_object *data, int64_t cursor, int64_t total,
    enum list_end end);

/*
 * Applies the X-Platform-Id rules of the sandbox operations: absent is the
 * caller's platform; not a UUIDv4 is 400; another platform is 403.
 */
int platform_scope_or_reply(struct req *req);

/*
 * Validates req->json against a field table; on failure answers 400 with
 * every offending field in details and returns -1.
 */
struct vfield;
int body_valid_or_reply(struct req *req, const struct vfield *fields);

/* Kinds of list filters. */
enum lf_kind {
	LF_STRING,	/* any value */
	LF_ENUM,	/* one of values */
	LF_CURRENCY,	/* ^[A-Z]{3}$ */
	LF_ID		/* "<id_kind>:<uuid>", handed on as the raw uuid */
};

struct list_filter {
	const char		*name;
	enum lf_kind		 kind;
	const char *const	*values;	/* LF_ENUM */
	const char		*id_kind;	/* LF_ID */
};

/*
 * Reads the filters of a list (table ends with name NULL).  vals[i] is
 * NULL when filter i is absent, else its value (for LF_ID the raw uuid,
 * kept in ids[i]).  Answers 400 naming the parameter and returns -1 for a
 * repeated or malformed filter.
 */
int list_filters_or_reply(struct req *req, const struct list_filter *f,
    const char **vals, char (*ids)[37]);

/*
 * Reads startDate and endDate (decisions.md section 10): a date
 * (YYYY-MM-DD) or a UTC date-time, inclusive bounds of createdAt, a bare
 * endDate meaning the last millisecond of its day.  *s and *e point to
 * start and end (the bound as DATETIME text) or are NULL when absent.
 * Answers 400 naming the parameter and returns -1 when one is malformed
 * or repeated.
 */
int date_filters_or_reply(struct req *req, char start[32], char end[32], const char **s,
    const char **e);


/*
 * Answers rc (not DB_OK) from reading or writing a customer: 404
 * CUSTOMER_NOT_FOUND, 410 GONE, or 503/500.  Returns -1.
 */
int customer_fail_reply(struct req *req, int rc);

/* Parses "Customer:<uuid>" into id; answers 400 naming field otherwise. */
int customer_id_or_reply(struct req *req, const char *value, const char *field,
    char id[37]);

/* The Customer resource (h_customers.c). */
struct customer;
json_object *json_customer(const struct customer *c);

/* The InternalAccount resource (h_internal.c). */
struct internal_account;
json_object *json_internal_account(const struct internal_account *a);

/* The ExternalAccount resource (h_external.c). */
struct external_account;
json_object *json_external_account(const struct external_account *a);

/*
 * The entry of currency in c enabled for direction ("OUTGOING",
 * "INCOMING" or NULL for either), or NULL.  Borrowed from c.
 */
struct platform_config;
struct currency_cfg;
const struct currency_cfg *currency_entry(const struct platform_config *c,
    const char *currency, const char *direction);

/* Answers 400 CURRENCY_NOT_ENABLED (details.currency); returns -1. */
int currency_not_enabled_reply(struct req *req, const char *currency, const char *direction);

/* The same, naming field (a query parameter, say) in details; returns -1. */
int currency_not_enabled_at_reply(struct req *req, const char *field, const char *currency,
    const char *direction);

/*
 * Answers 400 CURRENCY_NOT_ENABLED unless platform supports currency (with
 * direction "OUTGOING", "INCOMING" or NULL for either).  Reads the config;
 * cfg_min and cfg_max (may be NULL) receive the entry's amount range.
 */
struct db;
int currency_enabled_or_reply(struct req *req, struct db *db, const char *platform,
    const char *currency, const char *direction, int64_t *cfg_min, int64_t *cfg_max);

/*
 * Splits a PPV address ("name@domain", "$name@domain") into a valid PPV
 * name and a lowercased domain.  Returns 0 or -1.
 */
int ppv_parse(const char *address, char name[65], char domain[254]);

/*
 * The query of GET /transactions, parsed: f points into the struct (ids,
 * start, end) and into the request, so the struct is not copied.
 */
struct txn_list_query {
	struct txn_filter	 f;
	char			 ids[4][37], start[32], end[32];
	int64_t			 limit, cursor;
};

/*
 * The with_token functions of GET /transactions/{id} and GET /transactions
 * (router.h, route_with_token): the transaction, or the page (for the
 * platform this worker saw the token in), read with the token.
 */
struct db;
struct token_auth;
int transactions_get_with_token(struct req *req, struct db *db, const char *token_id,
    const char *platform, struct token_auth *ta);
int transactions_list_with_token(struct req *req, struct db *db, const char *token_id,
    const char *platform, struct token_auth *ta);

/* Answers 404 TRANSACTION_NOT_FOUND; returns -1. */
int transaction_not_found_reply(struct req *req);

/*
 * Reads the opaque transactionId path parameter: 400 when empty, longer
 * than 128 bytes or not printable ASCII.  id receives the raw uuid of a
 * "Transaction:<uuid>", or "" for anything else (which cannot exist).
 */
int transaction_id_or_reply(struct req *req, char id[37]);

/*
 * transaction_id_or_reply of the value v, wherever a transactionId is
 * given (the path, or the delivery log's filter of that name).
 */
int transaction_ref_or_reply(struct req *req, const char *v, char id[37]);

/* 400 AMOUNT_OUT_OF_RANGE naming field unless min <= amount <= max. */
int amount_range_or_reply(struct req *req, const char *field, int64_t amount,
    int64_t min, int64_t max);

/*
 * 400 AMOUNT_OUT_OF_RANGE naming field: the amount would take a balance
 * past the service's balance limit (LEDGER_BALANCE_MAX).
 */
int balance_limit_reply(struct req *req, const char *field);

/* 409 INSUFFICIENT_FUNDS with details.available and details.requested. */
struct ledger_short;
int insufficient_reply(struct req *req, const struct ledger_short *s);


#endif
