/*
 * routes.c: the routing table, indexed by enum route (handlers.h).  One
 * row per operation: method, path pattern, handler, the permission it
 * needs and whether it takes a body or the X-Platform-Id header.  The dispatcher answers 404, 405, 401, 429 and
 * 403 from this table before any handler runs.
 */
#include "config.h"

#include <stddef.h>

#include "xborder/handlers.h"

const struct route_def routes[ROUTE__MAX] = {
	[ROUTE_GET_HEALTHZ] =
	    { M_GET, "/healthz", h_health_get, PERM_PUBLIC, 0, NULL },
	[ROUTE_GET_STATUS] =
	    { M_GET, "/status", h_status_get, PERM_PUBLIC, 0, NULL },
	[ROUTE_GET_OPENAPI_JSON] =
	    { M_GET, "/openapi.json", h_openapi_get, PERM_PUBLIC, 0, NULL },
	[ROUTE_POST_TOKENS] =
	    { M_POST, "/tokens", h_tokens_create, PERM_MANAGE,
	      RF_BODY | RF_SECRET_ONCE, NULL },
	[ROUTE_GET_TOKENS] =
	    { M_GET, "/tokens", h_tokens_list, PERM_VIEW, 0, NULL },
	[ROUTE_GET_TOKENS_ONE] =
	    { M_GET, "/tokens/{tokenId}", h_tokens_get, PERM_VIEW, 0, NULL },
	[ROUTE_DELETE_TOKENS_ONE] =
	    { M_DELETE, "/tokens/{tokenId}", h_tokens_revoke, PERM_MANAGE, 0, NULL },
	[ROUTE_GET_CONFIG] =
	    { M_GET, "/config", h_config_get, PERM_VIEW, 0, NULL },
	[ROUTE_PATCH_CONFIG] =
	    { M_PATCH, "/config", h_config_patch, PERM_MANAGE, RF_BODY, NULL },
	[ROUTE_GET_SANDBOX_LIGHTNING_EXECUTION_PROFILE] =
	    { M_GET, "/sandbox/lightning-execution-profile", h_profile_get,
	      PERM_VIEW, RF_PLATFORM_HDR, NULL },
	[ROUTE_PATCH_SANDBOX_LIGHTNING_EXECUTION_PROFILE] =
	    { M_PATCH, "/sandbox/lightning-execution-profile", h_profile_patch,
	      PERM_MANAGE, RF_BODY | RF_PLATFORM_HDR, NULL },
	[ROUTE_POST_CUSTOMERS] =
	    { M_POST, "/customers", h_customers_create, PERM_MANAGE, RF_BODY, NULL },
	[ROUTE_GET_CUSTOMERS] =
	    { M_GET, "/customers", h_customers_list, PERM_VIEW, 0, NULL },
	[ROUTE_GET_CUSTOMERS_ONE] =
	    { M_GET, "/customers/{customerId}", h_customers_get, PERM_VIEW, 0, NULL },
	[ROUTE_PATCH_CUSTOMERS_ONE] =
	    { M_PATCH, "/customers/{customerId}", h_customers_patch,
	      PERM_MANAGE, RF_BODY, NULL },
	[ROUTE_DELETE_CUSTOMERS_ONE] =
	    { M_DELETE, "/customers/{customerId}", h_customers_delete, PERM_MANAGE, 0, NULL },
	[ROUTE_POST_CUSTOMERS_ONE_PPV_ADDRESS] =
	    { M_POST, "/customers/{customerId}/ppv-address", h_customers_ppv,
	      PERM_MANAGE, RF_BODY, NULL },
	[ROUTE_POST_CUSTOMERS_EXTERNAL_ACCOUNTS] =
	    { M_POST, "/customers/external-accounts", h_external_create,
	      PERM_MANAGE, RF_BODY, NULL },
	[ROUTE_GET_CUSTOMERS_EXTERNAL_ACCOUNTS] =
	    { M_GET, "/customers/external-accounts", h_external_list, PERM_VIEW, 0, NULL },
	[ROUTE_GET_CUSTOMERS_EXTERNAL_ACCOUNTS_ONE] =
	    { M_GET, "/customers/external-accounts/{accountId}", h_external_get,
	      PERM_VIEW, 0, NULL },
	[ROUTE_DELETE_CUSTOMERS_EXTERNAL_ACCOUNTS_ONE] =
	    { M_DELETE, "/customers/external-accounts/{accountId}", h_external_delete,
	      PERM_MANAGE, 0, NULL },
	[ROUTE_GET_CUSTOMERS_INTERNAL_ACCOUNTS] =
	    { M_GET, "/customers/internal-accounts", h_internal_customer_list,
	      PERM_VIEW, 0, NULL },
	[ROUTE_GET_PLATFORM_INTERNAL_ACCOUNTS] =
	    { M_GET, "/platform/internal-accounts", h_internal_platform_list,
	      PERM_VIEW, 0, NULL },
	[ROUTE_POST_SANDBOX_INTERNAL_ACCOUNTS_ONE_FUND] =
	    { M_POST, "/sandbox/internal-accounts/{accountId}/fund", h_internal_fund,
	      PERM_MANAGE, RF_BODY | RF_PLATFORM_HDR, NULL },
	[ROUTE_GET_RECEIVER_EXTERNAL_ACCOUNT_ONE] =
	    { M_GET, "/receiver/external-account/{accountId}", h_receiver_external,
	      PERM_VIEW, 0, NULL },
	[ROUTE_GET_RECEIVER_PPV_ONE] =
	    { M_GET, "/receiver/ppv/{ppvAddress}", h_receiver_ppv, PERM_VIEW, 0, NULL },
	[ROUTE_POST_TRANSFER_IN] =
	    { M_POST, "/transfer-in", h_transfer_in, PERM_MANAGE, RF_BODY, NULL },
	[ROUTE_POST_TRANSFER_OUT] =
	    { M_POST, "/transfer-out", h_transfer_out, PERM_MANAGE, RF_BODY, NULL },
	[ROUTE_GET_TRANSACTIONS] =
	    { M_GET, "/transactions", h_transactions_list, PERM_VIEW, 0,
	      transactions_list_with_token },
	[ROUTE_GET_TRANSACTIONS_ONE] =
	    { M_GET, "/transactions/{transactionId}", h_transactions_get, PERM_VIEW, 0,
	      transactions_get_with_token },
	[ROUTE_POST_SANDBOX_INCOMING_PAYMENTS_SIMULATE] =
	    { M_POST, "/sandbox/incoming-payments/simulate", h_review_simulate,
	      PERM_MANAGE, RF_BODY | RF_PLATFORM_HDR, NULL },
	[ROUTE_POST_TRANSACTIONS_ONE_APPROVE] =
	    { M_POST, "/transactions/{transactionId}/approve", h_review_approve,
	      PERM_MANAGE, RF_BODY_OPT, NULL },
	[ROUTE_POST_TRANSACTIONS_ONE_REJECT] =
	    { M_POST, "/transactions/{transactionId}/reject", h_review_reject,
	      PERM_MANAGE, RF_BODY_OPT, NULL },
	[ROUTE_POST_SANDBOX_TRANSACTIONS_ONE_COMPLETE] =
	    { M_POST, "/sandbox/transactions/{transactionId}/complete",
	      h_sandbox_txn_complete, PERM_MANAGE, RF_BODY_NONE | RF_PLATFORM_HDR,
	      NULL },
	[ROUTE_POST_SANDBOX_TRANSACTIONS_ONE_FAIL] =
	    { M_POST, "/sandbox/transactions/{transactionId}/fail",
	      h_sandbox_txn_fail, PERM_MANAGE, RF_BODY_NONE | RF_PLATFORM_HDR,
	      NULL },
	[ROUTE_POST_SANDBOX_TRANSACTIONS_ONE_RETURN] =
	    { M_POST, "/sandbox/transactions/{transactionId}/return",
	      h_sandbox_txn_return, PERM_MANAGE, RF_BODY_NONE | RF_PLATFORM_HDR,
	      NULL },
	[ROUTE_POST_SANDBOX_TRANSACTIONS_ONE_EXPIRE] =
	    { M_POST, "/sandbox/transactions/{transactionId}/expire",
	      h_sandbox_txn_expire, PERM_MANAGE, RF_BODY_NONE | RF_PLATFORM_HDR,
	      NULL },
	[ROUTE_POST_QUOTES] =
	    { M_POST, "/quotes", h_quotes_create, PERM_MANAGE, RF_BODY, NULL },
	[ROUTE_GET_QUOTES] =
	    { M_GET, "/quotes", h_quotes_list, PERM_VIEW, 0, NULL },
	[ROUTE_GET_QUOTES_ONE] =
	    { M_GET, "/quotes/{quoteId}", h_quotes_get, PERM_VIEW, 0, NULL },
	[ROUTE_POST_QUOTES_ONE_EXECUTE] =
	    { M_POST, "/quotes/{quoteId}/execute", h_quotes_execute, PERM_MANAGE,
	      RF_BODY_NONE, NULL },
	[ROUTE_GET_EXCHANGE_RATES] =
	    { M_GET, "/exchange-rates", h_rates_list, PERM_VIEW, 0, NULL },
	[ROUTE_GET_WEBHOOKS_SIGNING_KEY] =
	    { M_GET, "/webhooks/signing-key", h_webhooks_signing_key, PERM_VIEW, 0, NULL },
	[ROUTE_POST_WEBHOOKS_SIGNING_KEY_ROTATE] =
	    { M_POST, "/webhooks/signing-key/rotate", h_webhooks_rotate, PERM_MANAGE,
	      RF_BODY_NONE, NULL },
	[ROUTE_POST_WEBHOOKS_TEST] =
	    { M_POST, "/webhooks/test", h_webhooks_test, PERM_MANAGE, RF_BODY_NONE, NULL },
	[ROUTE_GET_WEBHOOKS_DELIVERIES] =
	    { M_GET, "/webhooks/deliveries", h_webhooks_deliveries, PERM_VIEW, 0, NULL },
	[ROUTE_GET_WEBHOOKS_DELIVERIES_ONE] =
	    { M_GET, "/webhooks/deliveries/{webhookId}", h_webhooks_delivery, PERM_VIEW, 0,
	      NULL },
	[ROUTE_POST_WEBHOOKS_DELIVERIES_ONE_RETRY] =
	    { M_POST, "/webhooks/deliveries/{webhookId}/retry", h_webhooks_retry,
	      PERM_MANAGE, RF_BODY_NONE, NULL },
};

const size_t nroutes = ROUTE__MAX;

/* Every route has its row: a missing one would leave a NULL handler. */
_Static_assert(sizeof(routes) / sizeof(routes[0]) == ROUTE__MAX, "one row per route");
