/*
 * h_rates.c: GET /exchange-rates (decisions.md section 14), the indicative
 * rates of the caller's platform: one row per corridor from
 * sourceCurrency, priced as a SENDING-locked quote to one of the
 * platform's own external accounts would be priced now.  Such a quote has
 * the platform on both sides, so the corridor takes both sides' settings
 * from it (spread twice its btcFiatSpreadBps, fees its sender plus
 * receiver bps), and it is priced by money_corridor_price(), the function
 * POST /quotes calls (h_quotes.c); nothing is locked or stored.  Checks,
 * in order: the query's form, the currencies enabled for OUTGOING, their
 * reference prices, sendingAmount within the source currency's range,
 * then whether every corridor of the answer can be priced.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xborder/db.h"
#include "xborder/db_platforms.h"
#include "xborder/handlers.h"
#include "xborder/jtext.h"
#include "xborder/money.h"
#include "xborder/request.h"
#include "xborder/resp.h"
#include "xborder/util.h"
#include "xborder/valid.h"

/* The query of GET /exchange-rates, parsed; the strings are the request's. */
struct rates_query {
	const char	*src;		/* sourceCurrency */
	const char	*dst;		/* destinationCurrency, NULL: every other currency */
	int64_t		 amount;	/* sendingAmount, 0 when absent */
	int64_t		 limit, cursor;
};

/* One corridor of the answer, priced. */
struct rate_row {
	char			 dst[4];
	int64_t			 pr;	/* the destination's reference price */
	struct money_quote_in	 in;	/* the inputs the pricing used */
	struct money_quote	 out;
};

/* Everything the rows are priced from, read from the store. */
struct rates_env {
	struct platform_config	 cfg;
	struct profile		 prof;
	struct db_rows		 fx;	/* currency, price, updated_at */
	int			 have_cfg, have_fx;
	int64_t			 ps;	/* the source currency's reference price */
};

static int
cmp_code(const void *a, const void *b)
{
	return strcmp(((const struct rate_row *)a)->dst, ((const struct rate_row *)b)->dst);
}

/* A currency parameter: ^[A-Z]{3}$, required or not; *v NULL when absent. */
static int
currency_param_or_reply(struct req *req, const char *name, int required, const char **v)
{
	int n;

	*v = NULL;
	if ((n = query_or_reply(req, name, v)) < 0)
		return -1;
	if (n == 0 && required)
		return resp_invalid(req, name, "is required");
	if (n == 1 && !money_code_form(*v))
		return resp_invalid(req, name, "must be 3 uppercase letters (ISO 4217)");
	return 0;
}

/* The query's form: 400 naming the first parameter that is wrong. */
static int
rates_query_or_reply(struct req *req, struct rates_query *q)
{
	const char *v = NULL, *rule;
	int n = 0;

	memset(q, 0, sizeof(*q));
	if (currency_param_or_reply(req, "sourceCurrency", 1, &q->src) < 0 ||
	    currency_param_or_reply(req, "destinationCurrency", 0, &q->dst) < 0 ||
	    (n = query_or_reply(req, "sendingAmount", &v)) < 0)
		return -1;
	if (n == 1) {
		if ((rule = valid_amount_minor(v)) != NULL)
			return resp_invalid(req, "sendingAmount", rule);
		if (parse_i64_digits(v, &q->amount) < 0)
			return resp_invalid(req, "sendingAmount", "must be a string of 1 to 18 digits");
	}
	return list_params_or_reply(req, 20, 100, &q->limit, &q->cursor);
}

/* The reference price of code among the rows of db_fx_list; 0 or -1. */
static int
fx_price(const struct db_rows *fx, const char *code, int64_t *price)
{
	for (size_t i = 0; i < fx->nrows; i++)
		if (strcmp(db_cell(fx, i, 0), code) == 0)
			return parse_i64_digits(db_cell(fx, i, 1), price) == 0 && *price >= 1 ?
			    0 : -1;
	return -1;
}

/* 400 INVALID_REQUEST naming field: code has no reference price. */
static int
no_price_reply(struct req *req, const char *field, const char *code)
{
	char rule[96];

	snprintf(rule, sizeof(rule), "%s has no reference price in this environment", code);
	return resp_invalid(req, field, rule);
}

/*
 * Reads the platform's configuration, profile and reference prices into
 * env and applies the currency rules to q: OUTGOING enabled, a reference
 * price, sendingAmount within the source currency's range.
 */
static int
rates_env_or_reply(struct req *req, struct db *db, const struct rates_query *q,
    struct rates_env *env)
{
	const struct currency_cfg *se;
	int64_t pr;
	int rc;

	rc = db_config_get(db, req->platform_id, req_config_version(req, req->platform_id),
	    &env->cfg);
	env->have_cfg = rc == DB_OK;
	if (rc == DB_OK && (rc = db_profile_get(db, req->platform_id, &env->prof)) == DB_OK)
		rc = db_fx_list(db, &env->fx);
	env->have_fx = rc == DB_OK;
	if (rc != DB_OK)
		return req_db_fail(req, rc == DB_NOT_FOUND ? DB_ERR : rc);
	if ((se = currency_entry(&env->cfg, q->src, "OUTGOING")) == NULL)
		return currency_not_enabled_at_reply(req, "sourceCurrency", q->src, "OUTGOING");
	if (q->dst != NULL && currency_entry(&env->cfg, q->dst, "OUTGOING") == NULL)
		return currency_not_enabled_at_reply(req, "destinationCurrency", q->dst,
		    "OUTGOING");
	if (fx_price(&env->fx, q->src, &env->ps) < 0)
		return no_price_reply(req, "sourceCurrency", q->src);
	if (q->dst != NULL && fx_price(&env->fx, q->dst, &pr) < 0)
		return no_price_reply(req, "destinationCurrency", q->dst);
	if (q->amount > 0)
		return amount_range_or_reply(req, "sendingAmount", q->amount, se->min_amount,
		    se->max_amount);
	return 0;
}

/*
 * The corridors of the answer, in order of destinationCurrency: the one
 * asked for, or every other currency of the platform with OUTGOING
 * enabled and a reference price.  *rows (caller frees) and *n.
 */
static void
rate_corridors(const struct rates_query *q, const struct rates_env *env,
    struct rate_row **rows, size_t *n)
{
	*n = 0;
	*rows = xcalloc(env->cfg.ncur + 1, sizeof(**rows));
	for (size_t i = 0; i < env->cfg.ncur; i++) {
		const struct currency_cfg *e = &env->cfg.cur[i];
		struct rate_row *r = &(*rows)[*n];

		if (!e->outgoing || (q->dst != NULL ? strcmp(e->code, q->dst) != 0 :
		    strcmp(e->code, q->src) == 0) || fx_price(&env->fx, e->code, &r->pr) < 0)
			continue;
		snprintf(r->dst, sizeof(r->dst), "%s", e->code);
		(*n)++;
	}
	qsort(*rows, *n, sizeof(**rows), cmp_code);
}

/*
 * Prices every row with the corridor a quote to one of the platform's own
 * external accounts has; 400 INVALID_REQUEST when one cannot be priced,
 * naming sendingAmount when given, else the currency parameter.
 */
static int
price_rows_or_reply(struct req *req, const struct rates_query *q,
    const struct rates_env *env, struct rate_row *rows, size_t n)
{
	struct money_corridor c;

	memset(&c, 0, sizeof(c));
	c.send_currency = q->src;
	c.ps = env->ps;
	c.spread_s_bps = c.spread_r_bps = env->prof.spread_bps;
	c.fee_s_bps = env->cfg.sender_fee_bps;
	c.fee_r_bps = env->cfg.receiver_fee_bps;
	for (size_t i = 0; i < n; i++) {
		c.recv_currency = rows[i].dst;
		c.pr = rows[i].pr;
		if (money_corridor_price(&c, 1, q->amount, &rows[i].in, &rows[i].out) ==
		    MONEY_PRICED)
			continue;
		if (q->amount > 0)
			return resp_invalid(req, "sendingAmount", "cannot be priced: the receiving"
			    " amount would be under one minor unit or past the service's limits");
		return resp_invalid(req, q->dst != NULL ? "destinationCurrency" :
		    "sourceCurrency", "cannot be priced: the corridor's spread is 10000 bps"
		    " or more");
	}
	return 0;
}

/* One row of the answer. */
static json_object *
json_rate(const struct rates_query *q, const struct rate_row *r)
{
	json_object *o = json_object_new_object();

	json_put(o, "sourceCurrency", json_object_new_string(q->src));
	json_put(o, "destinationCurrency", json_object_new_string(r->dst));
	json_put(o, "exchangeRate", json_object_new_string(r->out.rate));
	json_put(o, "spreadBps", json_object_new_int(r->in.spread_bps));
	json_put(o, "feeBps", json_object_new_int(r->in.fee_s_bps + r->in.fee_r_bps));
	if (q->amount > 0) {
		json_put(o, "sendingAmount", json_money(q->src, r->out.send));
		json_put(o, "receivingAmount", json_money(r->dst, r->out.receive));
		json_put(o, "feesTotal", json_money(q->src, r->out.fees));
	}
	return o;
}

int
h_rates_list(struct req *req)
{
	struct rates_query q;
	struct rates_env env;
	struct rate_row *rows = NULL;
	json_object *data;
	struct db *db = NULL;
	size_t n = 0;
	int rc = -1;

	memset(&env, 0, sizeof(env));
	if (rates_query_or_reply(req, &q) < 0 || (db = req_db_or_reply(req)) == NULL ||
	    rates_env_or_reply(req, db, &q, &env) < 0)
		goto out;
	rate_corridors(&q, &env, &rows, &n);
	if (price_rows_or_reply(req, &q, &env, rows, n) < 0)
		goto out;
	data = json_object_new_array();
	for (size_t i = 0; i < n; i++)
		if ((int64_t)i >= q.cursor && (int64_t)i - q.cursor < q.limit)
			json_object_array_add(data, json_rate(&q, &rows[i]));
	resp_json(req, 200, list_envelope(data, q.cursor, (int64_t)n, LIST_END_NULL));
	rc = 0;
out:
	free(rows);
	if (env.have_fx)
		db_rows_free(&env.fx);
	if (env.have_cfg)
		platform_config_free(&env.cfg);
	return rc;
}
