/*
 * h_quotes.c: cross-currency transfers through quotes (decisions.md
 * section 9).  POST /quotes prices a payment from a customer's internal
 * account to a PPV address of any platform hosted here, or to an external
 * account of the caller's platform, and snapshots every input; POST
 * /quotes/{id}/execute moves the money.  Checks of POST /quotes, in order:
 * the body's form, what it names (accounts, receiver), the currencies
 * enabled, the reference prices, the receiving platform's mandatory
 * counterparty fields, whether the amounts can be priced, then the
 * currencies' amount ranges.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xborder/bankacct.h"
#include "xborder/db.h"
#include "xborder/db_accounts.h"
#include "xborder/db_customers.h"
#include "xborder/db_platforms.h"
#include "xborder/db_quotes.h"
#include "xborder/db_transactions.h"
#include "xborder/handlers.h"
#include "xborder/ids.h"
#include "xborder/money.h"
#include "xborder/quote_ops.h"
#include "xborder/request.h"
#include "xborder/resp.h"
#include "xborder/util.h"
#include "xborder/valid.h"

static const char *const dest_types[] = { "PPV_ADDRESS", "EXTERNAL_ACCOUNT", NULL };
static const char *const sides[] = { "SENDING", "RECEIVING", NULL };
static const char *const list_statuses[] = { "QUOTE_READY", "BLOCKED", "EXPIRED", "PENDING",
	NULL };

/* Counterparty profiles, in the order missingCounterpartyFields lists them. */
static const char *const profiles[] = { "FULL_NAME", "BIRTH_DATE", "NATIONALITY", NULL };

static const struct vfield source_fields[] = {
	{ "accountId", VK_STRING, VF_REQUIRED, 1, 128, NULL, NULL, NULL },
	{ NULL, 0, 0, 0, 0, NULL, NULL, NULL }
};

/* Both destination kinds in one closed table; the kind's rules follow. */
static const struct vfield dest_fields[] = {
	{ "destinationType", VK_ENUM, VF_REQUIRED, 0, 0, dest_types, NULL, NULL },
	{ "ppvAddress", VK_STRING, 0, 1, 320, NULL, NULL, NULL },
	{ "currencyCode", VK_STRING, 0, 3, 3, NULL, valid_currency_form, NULL },
	{ "accountId", VK_STRING, 0, 1, 128, NULL, NULL, NULL },
	{ NULL, 0, 0, 0, 0, NULL, NULL, NULL }
};

static const struct vfield counterparty_fields[] = {
	{ "FULL_NAME", VK_STRING, 0, 1, 256, NULL, NULL, NULL },
	{ "BIRTH_DATE", VK_STRING, 0, 10, 10, NULL, valid_iso_date, NULL },
	{ "NATIONALITY", VK_STRING, 0, 2, 2, NULL, valid_country_code, NULL },
	{ NULL, 0, 0, 0, 0, NULL, NULL, NULL }
};

static const struct vfield quote_fields[] = {
	{ "source", VK_OBJECT, VF_REQUIRED, 0, 0, NULL, NULL, source_fields },
	{ "destination", VK_OBJECT, VF_REQUIRED, 0, 0, NULL, NULL, dest_fields },
	{ "lockedCurrencySide", VK_ENUM, VF_REQUIRED, 0, 0, sides, NULL, NULL },
	{ "lockedCurrencyAmount", VK_STRING, VF_REQUIRED, 1, 18, NULL, valid_amount_minor, NULL },
	{ "senderCounterpartyInfo", VK_OBJECT, 0, 0, 0, NULL, NULL, counterparty_fields },
	{ NULL, 0, 0, 0, 0, NULL, NULL, NULL }
};

/* Everything POST /quotes gathers before it prices and stores. */
struct draft {
	struct quote		 q;
	struct customer		 sender, receiver;
	struct platform_config	 scfg, rcfg;	/* sending and receiving platforms */
	int			 have_sender, have_receiver, have_scfg, have_rcfg;
	const char		*recv_field;	/* the field that names the receiving currency */
	char			 ext_id[37];	/* EXTERNAL_ACCOUNT: the account */
};

static const char *
member(json_object *o, const char *a, const char *b)
{
	json_object *v = json_object_object_get(o, a);

	if (b != NULL)
		v = json_object_object_get(v, b);
	return v != NULL ? json_object_get_string(v) : NULL;
}

static void
draft_free(struct draft *d)
{
	quote_free(&d->q);
	if (d->have_sender)
		customer_free(&d->sender);
	if (d->have_receiver)
		customer_free(&d->receiver);
	if (d->have_scfg)
		platform_config_free(&d->scfg);
	if (d->have_rcfg)
		platform_config_free(&d->rcfg);
}

/* The Quote object (full) or its summary row, as GET /quotes lists it. */
static json_object *
json_quote(const struct quote *q, int full)
{
	json_object *o = json_object_new_object();
	char buf[24];

	json_object_object_add(o, "quoteId", json_prefixed("Quote", q->id));
	json_object_object_add(o, "transactionId", json_prefixed("Transaction", q->transaction_id));
	json_object_object_add(o, "createdAt", json_object_new_string(q->created_at));
	json_object_object_add(o, "expiresAt", json_object_new_string(q->expires_at));
	json_object_object_add(o, "lockedCurrencySide", json_object_new_string(q->locked_side));
	snprintf(buf, sizeof(buf), "%" PRId64, q->locked_amount);
	json_object_object_add(o, "lockedCurrencyAmount", json_object_new_string(buf));
	json_object_object_add(o, "sendingAmount", json_money(q->send_currency, q->send_amount));
	json_object_object_add(o, "receivingAmount",
	    json_money(q->recv_currency, q->recv_amount));
	json_object_object_add(o, "feesTotal", json_money(q->send_currency, q->fees));
	json_object_object_add(o, "status", json_object_new_string(q->status));
	if (full) {
		json_object *src = json_object_new_object(), *dst = json_object_new_object();

		json_object_object_add(o, "customerId", json_prefixed("Customer", q->customer_id));
		json_object_object_add(src, "accountId",
		    json_prefixed("InternalAccount", q->source_account_id));
		json_object_object_add(src, "sourceType", json_object_new_string("INTERNAL_ACCOUNT"));
		json_object_object_add(o, "source", src);
		json_object_object_add(dst, "destinationType", json_object_new_string(q->dest_type));
		if (strcmp(q->dest_type, "EXTERNAL_ACCOUNT") == 0)
			json_object_object_add(dst, "accountId",
			    json_prefixed("ExternalAccount", q->dest_ref));
		else {
			json_object_object_add(dst, "ppvAddress", json_object_new_string(q->dest_ref));
			json_object_object_add(dst, "currencyCode",
			    json_object_new_string(q->recv_currency));
		}
		json_object_object_add(o, "destination", dst);
		json_object_object_add(o, "exchangeRate", json_object_new_string(q->exchange_rate));
		json_object_object_add(o, "executedAt", q->executed_at[0] ?
		    json_object_new_string(q->executed_at) : NULL);
	}
	return o;
}

/* The destination's kind rules: which fields each kind takes. */
static int
destination_form_or_reply(struct req *req, int ext)
{
	static const char *const ppv_only[] = { "ppvAddress", "currencyCode", NULL };
	json_object *d = json_object_object_get(req->json, "destination");
	char key[64];

	for (size_t i = 0; ppv_only[i] != NULL; i++) {
		int has = json_object_object_get_ex(d, ppv_only[i], NULL);

		snprintf(key, sizeof(key), "destination.%s", ppv_only[i]);
		if (ext && has)
			return resp_invalid(req, key, "is not taken by an EXTERNAL_ACCOUNT destination");
		if (!ext && !has)
			return resp_invalid(req, key, "is required for a PPV_ADDRESS destination");
	}
	if (ext && !json_object_object_get_ex(d, "accountId", NULL))
		return resp_invalid(req, "destination.accountId",
		    "is required for an EXTERNAL_ACCOUNT destination");
	if (!ext && json_object_object_get_ex(d, "accountId", NULL))
		return resp_invalid(req, "destination.accountId",
		    "is not taken by a PPV_ADDRESS destination");
	return 0;
}

static int
gone_reply(struct req *req, const char *what)
{
	return resp_error(req, 410, "GONE", what, NULL);
}

/* The source account and its customer, the sender. */
static int
sender_or_reply(struct req *req, struct db *db, struct draft *d)
{
	struct internal_account ia;
	int rc;

	rc = db_internal_get(db, req->platform_id, d->q.source_account_id, &ia);
	if (rc == DB_NOT_FOUND)
		return resp_error(req, 404, "ACCOUNT_NOT_FOUND", "No such internal account.", NULL);
	if (rc != DB_OK)
		return req_db_fail(req, rc);
	if (ia.customer_id[0] == '\0')
		return resp_invalid(req, "source.accountId", "must be a customer's internal account");
	if (ia.customer_deleted)
		return gone_reply(req, "The account's customer has been deleted.");
	snprintf(d->q.customer_id, sizeof(d->q.customer_id), "%s", ia.customer_id);
	snprintf(d->q.send_currency, sizeof(d->q.send_currency), "%s", ia.currency);
	rc = db_customer_get(db, req->platform_id, ia.customer_id, &d->sender);
	d->have_sender = rc == DB_OK || rc == DB_GONE;
	if (rc == DB_GONE)
		return gone_reply(req, "The account's customer has been deleted.");
	return rc == DB_OK ? 0 : req_db_fail(req, rc == DB_NOT_FOUND ? DB_ERR : rc);
}

/* The receiving customer, platform and currency. */
static int
receiver_or_reply(struct req *req, struct db *db, struct draft *d, int ext)
{
	char canonical[400];
	int rc;

	if (ext) {
		struct external_account ea;

		rc = db_external_get(db, req->platform_id, d->ext_id, &ea);
		if (rc == DB_GONE) {
			external_account_free(&ea);
			return gone_reply(req, "The owning customer has been deleted.");
		}
		if (rc == DB_NOT_FOUND)
			return resp_error(req, 404, "NOT_FOUND", "No such external account.", NULL);
		if (rc != DB_OK)
			return req_db_fail(req, rc);
		d->q.dest_ref = xstrdup(ea.id);
		snprintf(d->q.recv_platform_id, sizeof(d->q.recv_platform_id), "%s",
		    req->platform_id);
		snprintf(d->q.recv_currency, sizeof(d->q.recv_currency), "%s", ea.currency);
		snprintf(d->q.outcome, sizeof(d->q.outcome), "%s",
		    bankacct_outcome_name(ea.account_last4, 1));
		d->recv_field = "destination.accountId";
		rc = db_customer_get(db, req->platform_id, ea.customer_id, &d->receiver);
		external_account_free(&ea);
	} else {
		char name[65], domain[254];

		if (ppv_parse(member(req->json, "destination", "ppvAddress"), name, domain) < 0)
			return resp_invalid(req, "destination.ppvAddress",
			    "must be <name>@<domain>, optionally with a leading $");
		rc = db_customer_by_ppv(db, name, domain, &d->receiver);
		if (rc == DB_NOT_FOUND)
			return resp_error(req, 404, "RECEIVER_NOT_FOUND",
			    "No receiver has that address.", NULL);
		snprintf(d->q.recv_currency, sizeof(d->q.recv_currency), "%s",
		    member(req->json, "destination", "currencyCode"));
		snprintf(d->q.outcome, sizeof(d->q.outcome), "COMPLETES");
		d->recv_field = "destination.currencyCode";
	}
	d->have_receiver = rc == DB_OK || rc == DB_GONE;
	if (rc == DB_GONE)
		return gone_reply(req, "The receiving customer has been deleted.");
	if (rc != DB_OK)
		return req_db_fail(req, rc == DB_NOT_FOUND ? DB_ERR : rc);
	snprintf(d->q.recv_platform_id, sizeof(d->q.recv_platform_id), "%s",
	    d->receiver.platform_id);
	snprintf(d->q.recv_customer_id, sizeof(d->q.recv_customer_id), "%s", d->receiver.id);
	snprintf(canonical, sizeof(canonical), "%s@%s", d->receiver.ppv_name,
	    d->receiver.ppv_domain);
	d->q.recv_ppv_address = xstrdup(canonical);
	if (d->q.dest_ref == NULL)
		d->q.dest_ref = xstrdup(canonical);
	return 0;
}

/* A reference price, or 400 naming field. */
static int
price_or_reply(struct req *req, struct db *db, const char *currency, const char *field,
    int64_t *price)
{
	char rule[96];
	int rc = db_fx_get(db, currency, price);

	if (rc == DB_OK)
		return 0;
	if (rc != DB_NOT_FOUND)
		return req_db_fail(req, rc);
	snprintf(rule, sizeof(rule), "%s has no reference price in this environment", currency);
	return resp_invalid(req, field, rule);
}

/*
 * The receiving platform's mandatory counterparty profiles for the
 * receiving currency that senderCounterpartyInfo does not give (FULL_NAME
 * defaults to the sender's name); 400 with details.missingCounterpartyFields.
 * On success *info is the counterparty object to keep (caller puts).
 */
static int
counterparty_or_reply(struct req *req, const struct draft *d, const struct currency_cfg *e,
    json_object **info)
{
	json_object *given = json_object_object_get(req->json, "senderCounterpartyInfo");
	json_object *list = json_tokener_parse(e->fields_json), *missing, *det;
	const char *v;

	*info = json_object_new_object();
	for (size_t i = 0; profiles[i] != NULL; i++)
		if ((v = member(given, profiles[i], NULL)) != NULL)
			json_object_object_add(*info, profiles[i], json_object_new_string(v));
	if (!json_object_object_get_ex(*info, "FULL_NAME", NULL))
		json_object_object_add(*info, "FULL_NAME",
		    json_object_new_string(d->sender.full_name));
	missing = json_object_new_array();
	for (size_t i = 0; profiles[i] != NULL; i++) {
		int mandatory = 0;

		for (size_t j = 0; list != NULL && j < json_object_array_length(list); j++) {
			json_object *f = json_object_array_get_idx(list, j);

			if (strcmp(member(f, "profile", NULL), profiles[i]) == 0 &&
			    json_object_get_boolean(json_object_object_get(f, "mandatory")))
				mandatory = 1;
		}
		if (mandatory && !json_object_object_get_ex(*info, profiles[i], NULL))
			json_object_array_add(missing, json_object_new_string(profiles[i]));
	}
	json_object_put(list);
	if (json_object_array_length(missing) == 0) {
		json_object_put(missing);
		return 0;
	}
	json_object_put(*info);
	*info = NULL;
	det = json_object_new_object();
	json_object_object_add(det, "missingCounterpartyFields", missing);
	return resp_error(req, 400, "INVALID_REQUEST",
	    "The receiving platform requires counterparty information that is missing.", det);
}

/* Loads a platform's configuration into cfg (have set on success). */
static int
config_or_reply(struct req *req, struct db *db, const char *platform,
    struct platform_config *cfg, int *have)
{
	int rc = db_config_get(db, platform, req_config_version(req, platform), cfg);

	*have = rc == DB_OK;
	return rc == DB_OK ? 0 : req_db_fail(req, rc == DB_NOT_FOUND ? DB_ERR : rc);
}

/*
 * Prices the draft with money_corridor_price(), the pricing GET
 * /exchange-rates shares: both profiles, both fee policies, both prices.
 */
static int
price_draft_or_reply(struct req *req, struct db *db, struct draft *d)
{
	struct money_quote_in in;
	struct money_quote out;
	struct money_corridor c;
	struct profile ps, pr;
	int rc;

	if ((rc = db_profile_get(db, d->q.platform_id, &ps)) != DB_OK ||
	    (rc = db_profile_get(db, d->q.recv_platform_id, &pr)) != DB_OK)
		return req_db_fail(req, rc == DB_NOT_FOUND ? DB_ERR : rc);
	memset(&c, 0, sizeof(c));
	c.send_currency = d->q.send_currency;
	c.recv_currency = d->q.recv_currency;
	c.ps = d->q.price_send;
	c.pr = d->q.price_recv;
	c.spread_s_bps = ps.spread_bps;
	c.spread_r_bps = pr.spread_bps;
	c.fee_s_bps = d->scfg.sender_fee_bps;
	c.fee_r_bps = d->rcfg.receiver_fee_bps;
	rc = money_corridor_price(&c, strcmp(d->q.locked_side, "SENDING") == 0,
	    d->q.locked_amount, &in, &out);
	if (rc == MONEY_UNKNOWN_SEND || rc == MONEY_UNKNOWN_RECV)
		return resp_invalid(req, rc == MONEY_UNKNOWN_SEND ? "source.accountId" :
		    d->recv_field, "is in a currency the service does not know");
	if (rc != MONEY_PRICED)
		return resp_invalid(req, "lockedCurrencyAmount",
		    "cannot be priced: the other side would be under one minor unit or"
		    " past the service's limits");
	d->q.send_amount = out.send;
	d->q.recv_amount = out.receive;
	d->q.principal = out.principal;
	d->q.fees = out.fees;
	d->q.fee_sender = out.fee_sender;
	d->q.fee_receiver = out.fee_receiver;
	snprintf(d->q.exchange_rate, sizeof(d->q.exchange_rate), "%s", out.rate);
	d->q.spread_bps = in.spread_bps;
	d->q.fee_sender_bps = in.fee_s_bps;
	d->q.fee_receiver_bps = in.fee_r_bps;
	d->q.lock_seconds = ps.lock_seconds < pr.lock_seconds ? ps.lock_seconds : pr.lock_seconds;
	return 0;
}

/* Everything of POST /quotes between the parsed body and the store. */
static int
draft_or_reply(struct req *req, struct db *db, struct draft *d, int ext)
{
	const struct currency_cfg *se, *re;
	json_object *info = NULL;

	if (sender_or_reply(req, db, d) < 0 || receiver_or_reply(req, db, d, ext) < 0 ||
	    config_or_reply(req, db, d->q.platform_id, &d->scfg, &d->have_scfg) < 0 ||
	    config_or_reply(req, db, d->q.recv_platform_id, &d->rcfg, &d->have_rcfg) < 0)
		return -1;
	if ((se = currency_entry(&d->scfg, d->q.send_currency, "OUTGOING")) == NULL)
		return currency_not_enabled_reply(req, d->q.send_currency, "OUTGOING");
	/* A payout leaves the sending platform: its OUTGOING entry governs. */
	re = currency_entry(ext ? &d->scfg : &d->rcfg, d->q.recv_currency,
	    ext ? "OUTGOING" : "INCOMING");
	if (re == NULL)
		return currency_not_enabled_reply(req, d->q.recv_currency,
		    ext ? "OUTGOING" : "INCOMING");
	if (price_or_reply(req, db, d->q.send_currency, "source.accountId",
	    &d->q.price_send) < 0 ||
	    price_or_reply(req, db, d->q.recv_currency, d->recv_field, &d->q.price_recv) < 0)
		return -1;
	if (counterparty_or_reply(req, d, re, &info) < 0)
		return -1;
	d->q.counterparty = xstrdup(json_object_to_json_string_ext(info,
	    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(info);
	if (price_draft_or_reply(req, db, d) < 0 ||
	    amount_range_or_reply(req, "sendingAmount", d->q.send_amount, se->min_amount,
	    se->max_amount) < 0 ||
	    amount_range_or_reply(req, "receivingAmount", d->q.recv_amount, re->min_amount,
	    re->max_amount) < 0)
		return -1;
	snprintf(d->q.status, sizeof(d->q.status), "%s",
	    strcmp(d->sender.kyc, "APPROVED") != 0 || strcmp(d->receiver.kyc, "REJECTED") == 0 ?
	    "BLOCKED" : "QUOTE_READY");
	return 0;
}

int
h_quotes_create(struct req *req)
{
	struct draft d;
	struct quote stored;
	struct db *db;
	int ext, rc;

	if (body_valid_or_reply(req, quote_fields) < 0)
		return -1;
	ext = strcmp(member(req->json, "destination", "destinationType"),
	    "EXTERNAL_ACCOUNT") == 0;
	if (destination_form_or_reply(req, ext) < 0)
		return -1;
	memset(&d, 0, sizeof(d));
	if (ids_parse(member(req->json, "source", "accountId"), "InternalAccount", 0,
	    d.q.source_account_id) < 0)
		return resp_invalid(req, "source.accountId", "must be InternalAccount:<uuid>");
	if (ext && ids_parse(member(req->json, "destination", "accountId"), "ExternalAccount",
	    0, d.ext_id) < 0)
		return resp_invalid(req, "destination.accountId", "must be ExternalAccount:<uuid>");
	snprintf(d.q.platform_id, sizeof(d.q.platform_id), "%s", req->platform_id);
	snprintf(d.q.dest_type, sizeof(d.q.dest_type), "%s", ext ? "EXTERNAL_ACCOUNT" :
	    "PPV_ADDRESS");
	snprintf(d.q.locked_side, sizeof(d.q.locked_side), "%s",
	    member(req->json, "lockedCurrencySide", NULL));
	parse_i64_digits(member(req->json, "lockedCurrencyAmount", NULL), &d.q.locked_amount);
	if ((db = req_db_or_reply(req)) == NULL || draft_or_reply(req, db, &d, ext) < 0) {
		draft_free(&d);
		return -1;
	}
	rc = quote_create(db, &d.q, &stored);
	draft_free(&d);
	if (rc == DB_GONE)
		return gone_reply(req, "The account's customer has been deleted.");
	if (rc != DB_OK)
		return req_db_fail(req, rc);
	resp_json(req, 201, json_quote(&stored, 1));
	quote_free(&stored);
	return 0;
}

/* The quoteId path parameter as a raw uuid, or 400. */
static int
quote_id_or_reply(struct req *req, char id[37])
{
	if (ids_parse(req_param(req, 0), "Quote", 0, id) < 0)
		return resp_invalid(req, "quoteId", "must be Quote:<uuid>");
	return 0;
}

int
h_quotes_get(struct req *req)
{
	char id[37];
	struct quote q;
	struct db *db;
	int rc;

	if (quote_id_or_reply(req, id) < 0 || (db = db_fresh_or_reply(req)) == NULL)
		return -1;
	rc = db_quote_get(db, req->platform_id, id, &q);
	if (rc == DB_NOT_FOUND)
		return resp_error(req, 404, "QUOTE_NOT_FOUND", "No such quote.", NULL);
	if (rc != DB_OK)
		return req_db_fail(req, rc);
	resp_json(req, 200, json_quote(&q, 1));
	quote_free(&q);
	return 0;
}

int
h_quotes_list(struct req *req)
{
	static const struct list_filter filters[] = {
		{ "status", LF_ENUM, list_statuses, NULL },
		{ NULL, 0, NULL, NULL }
	};
	const char *vals[1];
	char ids[1][37];
	int64_t limit, cursor, total;
	struct quote *q;
	size_t n;
	json_object *data;
	struct db *db;
	int rc;

	/* Any limit >= 1 is taken; more than 100 is 100 (decisions.md section 3). */
	if (list_params_or_reply(req, 20, INT64_MAX, &limit, &cursor) < 0 ||
	    list_filters_or_reply(req, filters, vals, ids) < 0)
		return -1;
	if (limit > 100)
		limit = 100;
	if (vals[0] != NULL && strcmp(vals[0], "PENDING") == 0)
		vals[0] = "QUOTE_READY";
	if ((db = db_fresh_or_reply(req)) == NULL)
		return -1;
	if ((rc = db_quote_list(db, req->platform_id, vals[0], limit, cursor, &q, &n,
	    &total)) != DB_OK)
		return req_db_fail(req, rc);
	data = json_object_new_array();
	for (size_t i = 0; i < n; i++)
		json_object_array_add(data, json_quote(&q[i], 0));
	quote_list_free(q, n);
	resp_json(req, 200, list_envelope(data, cursor, total, LIST_END_NULL));
	return 0;
}

int
h_quotes_execute(struct req *req)
{
	char id[37];
	enum quote_refusal why;
	struct ledger_short shortfall;
	struct txn t;
	struct db *db;
	int rc;

	if (quote_id_or_reply(req, id) < 0 || (db = req_db_or_reply(req)) == NULL)
		return -1;
	rc = quote_execute(db, req->platform_id, id, &t, &why, &shortfall);
	switch (rc) {
	case DB_OK:
		resp_json(req, 200, json_transaction(&t));
		txn_free(&t);
		return 0;
	case DB_NOT_FOUND:
		return resp_error(req, 404, "QUOTE_NOT_FOUND", "No such quote.", NULL);
	case DB_GONE:
		if (why == QUOTE_ACCOUNT_GONE) {
			json_object *d = json_object_new_object();

			json_object_object_add(d, "destination.accountId",
			    json_object_new_string("the external account has been deleted"));
			return resp_error(req, 410, "GONE",
			    "The quote's external account has been deleted.", d);
		}
		return gone_reply(req, "A customer of this quote has been deleted.");
	case DB_INSUFFICIENT:
		return insufficient_reply(req, &shortfall);
	case DB_LIMIT:
		return balance_limit_reply(req, "receivingAmount");
	case DB_CONFLICT:
		if (why == QUOTE_ALREADY_EXECUTED)
			return resp_error(req, 409, "QUOTE_ALREADY_EXECUTED",
			    "The quote has already been executed.", NULL);
		if (why == QUOTE_EXPIRED)
			return resp_error(req, 409, "QUOTE_EXPIRED", "The quote has expired.", NULL);
		if (why == QUOTE_BLOCKED)
			return resp_error(req, 409, "QUOTE_BLOCKED",
			    "The quote is blocked and cannot be executed.", NULL);
		return req_db_fail(req, DB_ERR);
	default:
		return req_db_fail(req, rc);
	}
}
