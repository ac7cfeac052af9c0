/*
 * h_receiver.c: receiver lookups.  The same-currency lookup reads one of
 * the caller's external accounts with the limits of its currency; the
 * cross-currency lookup resolves a PPV address on any platform hosted here
 * (the caller's own included) and shows what that platform accepts.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "xborder/db.h"
#include "xborder/db_accounts.h"
#include "xborder/db_customers.h"
#include "xborder/db_platforms.h"
#include "xborder/handlers.h"
#include "xborder/ids.h"
#include "xborder/request.h"
#include "xborder/resp.h"
#include "xborder/valid.h"

int
h_receiver_external(struct req *req)
{
	char id[37];
	struct external_account a;
	int64_t min = 0, max = 0;
	json_object *o;
	struct db *db;
	int rc;

	if (ids_parse(req_param(req, 0), "ExternalAccount", 0, id) < 0)
		return resp_invalid(req, "accountId", "must be ExternalAccount:<uuid>");
	if ((db = req_db_or_reply(req)) == NULL)
		return -1;
	rc = db_external_get(db, req->platform_id, id, &a);
	if (rc == DB_GONE) {
		external_account_free(&a);
		return resp_error(req, 410, "GONE", "The owning customer has been deleted.", NULL);
	}
	if (rc == DB_NOT_FOUND)
		return resp_error(req, 404, "NOT_FOUND", "No such external account.", NULL);
	if (rc != DB_OK)
		return req_db_fail(req, rc);
	if (currency_enabled_or_reply(req, db, req->platform_id, a.currency, "OUTGOING",
	    &min, &max) < 0) {
		external_account_free(&a);
		return -1;
	}
	o = json_object_new_object();
	json_object_object_add(o, "accountId", json_prefixed("ExternalAccount", a.id));
	json_object_object_add(o, "customerId", json_prefixed("Customer", a.customer_id));
	json_object_object_add(o, "currency", json_object_new_string(a.currency));
	json_object_object_add(o, "status", json_object_new_string(a.status));
	json_object_object_add(o, "minAmount", json_object_new_int64(min));
	json_object_object_add(o, "maxAmount", json_object_new_int64(max));
	external_account_free(&a);
	resp_json(req, 200, o);
	return 0;
}

int
ppv_parse(const char *address, char name[65], char domain[254])
{
	const char *at;
	size_t nl;

	if (address[0] == '$')
		address++;
	if ((at = strrchr(address, '@')) == NULL)
		return -1;
	nl = (size_t)(at - address);
	if (nl == 0 || nl > 64 || strlen(at + 1) == 0 || strlen(at + 1) > 253)
		return -1;
	memcpy(name, address, nl);
	name[nl] = '\0';
	snprintf(domain, 254, "%s", at + 1);
	if (valid_ppv_name(name) != NULL || valid_domain(domain) != NULL)
		return -1;
	for (char *p = domain; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	return 0;
}

int
h_receiver_ppv(struct req *req)
{
	char name[65], domain[254], canonical[400];
	struct customer c;
	struct platform_config cfg;
	json_object *o, *cur, *fields;
	struct db *db;
	int rc;

	if (ppv_parse(req_param(req, 0), name, domain) < 0)
		return resp_invalid(req, "ppvAddress",
		    "must be <name>@<domain>, optionally with a leading $");
	if ((db = req_db_or_reply(req)) == NULL)
		return -1;
	rc = db_customer_by_ppv(db, name, domain, &c);
	if (rc == DB_NOT_FOUND)
		return resp_error(req, 404, "RECEIVER_NOT_FOUND", "No receiver has that address.",
		    NULL);
	if (rc != DB_OK)
		return req_db_fail(req, rc);
	rc = db_config_get(db, c.platform_id, req_config_version(req, c.platform_id), &cfg);
	if (rc != DB_OK) {
		customer_free(&c);
		return req_db_fail(req, rc == DB_NOT_FOUND ? DB_ERR : rc);
	}
	snprintf(canonical, sizeof(canonical), "%s@%s", c.ppv_name, c.ppv_domain);
	customer_free(&c);
	o = json_object_new_object();
	cur = json_object_new_array();
	fields = json_object_new_array();
	for (size_t i = 0; i < cfg.ncur; i++) {
		json_object *e, *list;

		if (!cfg.cur[i].incoming)
			continue;
		e = json_object_new_object();
		json_object_object_add(e, "currencyCode", json_object_new_string(cfg.cur[i].code));
		json_object_object_add(e, "minAmount", json_object_new_int64(cfg.cur[i].min_amount));
		json_object_object_add(e, "maxAmount", json_object_new_int64(cfg.cur[i].max_amount));
		json_object_array_add(cur, e);
		list = json_tokener_parse(cfg.cur[i].fields_json);
		for (size_t j = 0; list != NULL && j < json_object_array_length(list); j++) {
			json_object *f = json_object_array_get_idx(list, j), *g = json_object_new_object();

			json_object_object_add(g, "currencyCode",
			    json_object_new_string(cfg.cur[i].code));
			json_object_object_add(g, "profile",
			    json_object_get(json_object_object_get(f, "profile")));
			json_object_object_add(g, "mandatory",
			    json_object_get(json_object_object_get(f, "mandatory")));
			json_object_array_add(fields, g);
		}
		json_object_put(list);
	}
	platform_config_free(&cfg);
	json_object_object_add(o, "ppvAddress", json_object_new_string(canonical));
	json_object_object_add(o, "supportedCurrencies", cur);
	json_object_object_add(o, "requiredCounterpartyFields", fields);
	resp_json(req, 200, o);
	return 0;
}
