/*
 * routes.c: the routing table.  One row per operation: method, path
 * pattern, handler, the permission it needs and whether it takes a body or
 * the X-Platform-Id header.  The dispatcher answers 404, 405, 401, 429 and
 * 403 from this table before any handler runs.
 */
#include "config.h"

#include <stddef.h>

#include "xborder/handlers.h"

const struct route_def routes[] = {
	{ M_GET,	"/healthz", h_health_get, PERM_PUBLIC, 0 },
	{ M_GET,	"/openapi.json", h_openapi_get, PERM_PUBLIC, 0 },
	{ M_POST,	"/tokens", h_tokens_create, PERM_MANAGE, RF_BODY },
	{ M_GET,	"/tokens", h_tokens_list, PERM_VIEW, 0 },
	{ M_GET,	"/tokens/{tokenId}", h_tokens_get, PERM_VIEW, 0 },
	{ M_DELETE,	"/tokens/{tokenId}", h_tokens_revoke, PERM_MANAGE, 0 },
	{ M_GET,	"/config", h_config_get, PERM_VIEW, 0 },
	{ M_PATCH,	"/config", h_config_patch, PERM_MANAGE, RF_BODY },
	{ M_GET,	"/sandbox/lightning-execution-profile", h_profile_get, PERM_VIEW,
	  RF_PLATFORM_HDR },
	{ M_PATCH,	"/sandbox/lightning-execution-profile", h_profile_patch, PERM_MANAGE,
	  RF_BODY | RF_PLATFORM_HDR },
	{ M_POST,	"/customers", h_customers_create, PERM_MANAGE, RF_BODY },
	{ M_GET,	"/customers", h_customers_list, PERM_VIEW, 0 },
	{ M_GET,	"/customers/{customerId}", h_customers_get, PERM_VIEW, 0 },
	{ M_PATCH,	"/customers/{customerId}", h_customers_patch, PERM_MANAGE, RF_BODY },
	{ M_DELETE,	"/customers/{customerId}", h_customers_delete, PERM_MANAGE, 0 },
	{ M_POST,	"/customers/{customerId}/ppv-address", h_customers_ppv, PERM_MANAGE,
	  RF_BODY },
	{ M_POST,	"/customers/external-accounts", h_external_create, PERM_MANAGE, RF_BODY },
	{ M_GET,	"/customers/external-accounts", h_external_list, PERM_VIEW, 0 },
	{ M_GET,	"/customers/external-accounts/{accountId}", h_external_get, PERM_VIEW, 0 },
	{ M_DELETE,	"/customers/external-accounts/{accountId}", h_external_delete,
	  PERM_MANAGE, 0 },
	{ M_GET,	"/customers/internal-accounts", h_internal_customer_list, PERM_VIEW, 0 },
	{ M_GET,	"/platform/internal-accounts", h_internal_platform_list, PERM_VIEW, 0 },
	{ M_POST,	"/sandbox/internal-accounts/{accountId}/fund", h_internal_fund,
	  PERM_MANAGE, RF_BODY | RF_PLATFORM_HDR },
	{ M_GET,	"/receiver/external-account/{accountId}", h_receiver_external,
	  PERM_VIEW, 0 },
	{ M_GET,	"/receiver/ppv/{ppvAddress}", h_receiver_ppv, PERM_VIEW, 0 },
	{ M_POST,	"/transfer-in", h_transfer_in, PERM_MANAGE, RF_BODY },
	{ M_POST,	"/transfer-out", h_transfer_out, PERM_MANAGE, RF_BODY },
	{ M_GET,	"/transactions", h_transactions_list, PERM_VIEW, 0 },
	{ M_GET,	"/transactions/{transactionId}", h_transactions_get, PERM_VIEW, 0 },
};

const size_t nroutes = sizeof(routes) / sizeof(routes[0]);
