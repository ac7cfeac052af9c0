/*
 * h_common.c: what several handlers need: list parameters, filters
 * (dates among them) and envelopes, the sandbox platform-scope header, and
 * body validation that answers.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "xborder/db.h"
#include "xborder/db_platforms.h"
#include "xborder/db_quotes.h"
#include "xborder/quote_ops.h"
#include "xborder/handlers.h"
#include "xborder/http.h"
#include "xborder/ids.h"
#include "xborder/jtext.h"
#include "xborder/money.h"
#include "xborder/request.h"
#include "xborder/resp.h"
#include "xborder/valid.h"

int
query_or_reply(struct req *req, const char *name, const char **value)
{
	int n = http_query_get(req, name, value);

	if (n == -1)
		return resp_invalid(req, name, "must be given at most once");
	if (n == -2)
		return resp_invalid(req, name, "must be validly percent-encoded UTF-8 text, without NUL or"
		    " control characters");
	return n;
}

int
list_params_or_reply(struct req *req, int64_t def, int64_t max,
    int64_t *limit, int64_t *cursor)
{
	const char *v = NULL;
	char rule[96];
	int n;

	*limit = def;
	*cursor = 0;
	if ((n = query_or_reply(req, "limit", &v)) < 0)
		return -1;
	if (n == 1 && valid_uint_param(v, 1, max, limit) < 0) {
		if (max == INT64_MAX)
			snprintf(rule, sizeof(rule), "must be an integer >= 1");
		else
			snprintf(rule, sizeof(rule), "must be an integer from 1 to %" PRId64, max);
		return resp_invalid(req, "limit", rule);
	}
	if ((n = query_or_reply(req, "cursor", &v)) < 0)
		return -1;
	if (n == 1 && valid_uint_param(v, 0, INT64_MAX, cursor) < 0)
		return resp_invalid(req, "cursor", "must be a non-negative integer offset");
	return 0;
}

json_object *
list_envelope(json_object *data, int64_t cursor, int64_t total, enum list_end end)
{
	json_object *o = json_object_new_object();
	int64_t next = cursor + (int64_t)json_object_array_length(data);
	int more = next < total && json_object_array_length(data) > 0;
	char buf[24];

	json_put(o, "data", data);
	json_put(o, "hasMore", json_object_new_boolean(more));
	if (more) {
		snprintf(buf, sizeof(buf), "%" PRId64, next);
		json_put(o, "nextCursor", json_object_new_string(buf));
	} else
		json_put(o, "nextCursor",
		    end == LIST_END_EMPTY ? json_object_new_string("") : NULL);
	json_put(o, "totalCount", json_object_new_int64(total));
	return o;
}

int
platform_scope_or_reply(struct req *req)
{
	const char *h = req->platform_header;
	char lower[UUID_LEN + 1];

	if (h == NULL)
		return 0;
	if (!ids_is_uuid4(h))
		return resp_invalid(req, "X-Platform-Id", "must be a UUIDv4");
	for (size_t i = 0; i <= UUID_LEN; i++)
		lower[i] = (char)((h[i] >= 'A' && h[i] <= 'F') ? h[i] - 'A' + 'a' : h[i]);
	if (strcmp(lower, req->platform_id) != 0) {
		json_object *d = json_object_new_object();

		json_object_object_add(d, "X-Platform-Id",
		    json_object_new_string("must be the platform of the credentials"));
		return resp_error(req, 403, "FORBIDDEN",
		    "The credentials do not reach that platform.", d);
	}
	return 0;
}

int
body_valid_or_reply(struct req *req, const struct vfield *fields)
{
	json_object *d = json_object_new_object();

	if (valid_object(req->json, fields, "", d) > 0)
		return resp_error(req, 400, "INVALID_REQUEST",
		    "The request body is invalid; see details.", d);
	json_object_put(d);
	return 0;
}

int
list_filters_or_reply(struct req *req, const struct list_filter *f,
    const char **vals, char (*ids)[37])
{
	char rule[640];

	for (size_t i = 0; f[i].name != NULL; i++) {
		const char *v = NULL;
		int n = query_or_reply(req, f[i].name, &v);

		vals[i] = NULL;
		if (n < 0)
			return -1;
		if (n == 0)
			continue;
		switch (f[i].kind) {
		case LF_STRING:
			break;
		case LF_ENUM: {
			size_t k, len = (size_t)snprintf(rule, sizeof(rule), "must be one of: ");

			for (k = 0; f[i].values[k] != NULL; k++)
				if (strcmp(f[i].values[k], v) == 0)
					break;
			if (f[i].values[k] != NULL)
				break;
			for (k = 0; f[i].values[k] != NULL && len < sizeof(rule); k++)
				len += (size_t)snprintf(rule + len, sizeof(rule) - len, "%s%s",
				    k ? ", " : "", f[i].values[k]);
			return resp_invalid(req, f[i].name, rule);
		}
		case LF_CURRENCY:
			if (!money_code_form(v))
				return resp_invalid(req, f[i].name,
				    "must be 3 uppercase letters (ISO 4217)");
			break;
		case LF_ID:
			if (ids_parse(v, f[i].id_kind, 0, ids[i]) < 0) {
				snprintf(rule, sizeof(rule), "must be %s:<uuid>", f[i].id_kind);
				return resp_invalid(req, f[i].name, rule);
			}
			v = ids[i];
			break;
		}
		vals[i] = v;
	}
	return 0;
}

int
date_filters_or_reply(struct req *req, char start[32], char end[32], const char **s,
    const char **e)
{
	static const char rule[] =
	    "must be a date (YYYY-MM-DD) or a UTC date-time (YYYY-MM-DDTHH:MM:SS[.sss]Z)";
	const char *v;
	int k;

	*s = *e = NULL;
	if ((k = query_or_reply(req, "startDate", &v)) < 0)
		return -1;
	if (k == 1) {
		if (valid_datetime_param(v, 0, start) < 0)
			return resp_invalid(req, "startDate", rule);
		*s = start;
	}
	if ((k = query_or_reply(req, "endDate", &v)) < 0)
		return -1;
	if (k == 1) {
		if (valid_datetime_param(v, 1, end) < 0)
			return resp_invalid(req, "endDate", rule);
		*e = end;
	}
	return 0;
}

const struct currency_cfg *
currency_entry(const struct platform_config *c, const char *currency, const char *direction)
{
	for (size_t i = 0; i < c->ncur; i++) {
		const struct currency_cfg *e = &c->cur[i];

		if (strcmp(e->code, currency) != 0)
			continue;
		if (direction == NULL || (strcmp(direction, "OUTGOING") == 0 && e->outgoing) ||
		    (strcmp(direction, "INCOMING") == 0 && e->incoming))
			return e;
	}
	return NULL;
}

int
currency_not_enabled_reply(struct req *req, const char *currency, const char *direction)
{
	return currency_not_enabled_at_reply(req, "currency", currency, direction);
}

int
currency_not_enabled_at_reply(struct req *req, const char *field, const char *currency,
    const char *direction)
{
	json_object *d = json_object_new_object();
	char rule[128];

	snprintf(rule, sizeof(rule), "%s is not enabled%s%s on this platform", currency,
	    direction ? " for " : "", direction ? direction : "");
	json_object_object_add(d, field, json_object_new_string(rule));
	return resp_error(req, 400, "CURRENCY_NOT_ENABLED",
	    "The currency is not enabled for this operation.", d);
}

int
currency_enabled_or_reply(struct req *req, struct db *db, const char *platform,
    const char *currency, const char *direction, int64_t *cfg_min, int64_t *cfg_max)
{
	const struct currency_cfg *e;
	struct platform_config c;
	int rc = db_config_get(db, platform, req_config_version(req, platform), &c);

	if (rc != DB_OK)
		return req_db_fail(req, rc == DB_NOT_FOUND ? DB_ERR : rc);
	if ((e = currency_entry(&c, currency, direction)) != NULL) {
		if (cfg_min != NULL)
			*cfg_min = e->min_amount;
		if (cfg_max != NULL)
			*cfg_max = e->max_amount;
	}
	platform_config_free(&c);
	return e != NULL ? 0 : currency_not_enabled_reply(req, currency, direction);
}

struct db *
db_fresh_or_reply(struct req *req)
{
	struct db *db = req_db_or_reply(req);
	int rc;

	/* Expiry is written by whoever looks first: a reader never sees it stale. */
	if (db != NULL && (rc = quotes_expire_due(db, req->platform_id, NULL)) != DB_OK) {
		req_db_fail(req, rc);
		return NULL;
	}
	return db;
}
