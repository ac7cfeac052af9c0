/*
 * db_platforms.c: SQL for platforms, their configuration, supported
 * currencies, execution profiles, FX reference prices and migrations.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xborder/cache_ways.h"
#include "xborder/db.h"
#include "xborder/db_accounts.h"
#include "xborder/db_platforms.h"
#include "xborder/db_tokens.h"
#include "xborder/ids.h"
#include "xborder/ledger.h"
#include "xborder/stats.h"
#include "xborder/util.h"

/* The configuration a new platform starts with. */
static const char *const default_codes[] = { "USD", "EUR", "MXN" };
#define DEFAULT_MIN 1
#define DEFAULT_MAX INT64_C(100000000000)
_Static_assert(DEFAULT_MIN <= DEFAULT_MAX && DEFAULT_MAX <= LEDGER_AMOUNT_CFG_MAX,
    "a new platform's currency limits must be ones PATCH /config accepts");
#define DEFAULT_TYPES "[\"OUTGOING\",\"INCOMING\"]"
#define DEFAULT_FIELDS "[{\"profile\":\"FULL_NAME\",\"mandatory\":true}]"

static const char insert_currency[] =
    "INSERT INTO supported_currencies (platform_id, currency_code, position,"
    " min_amount, max_amount, outgoing_enabled, incoming_enabled, enabled_types,"
    " required_fields) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)";

struct create_args {
	const char	*name, *ppv, *uma, *token_id, *hash;
	char		 id[37], config_id[37];
};

static int
create_tx(struct db *db, void *arg)
{
	static const char ins_platform[] =
	    "INSERT INTO platforms (id, name, created_at) VALUES (?, ?, UTC_TIMESTAMP(3))";
	static const char ins_config[] =
	    "INSERT INTO platform_configs (id, platform_id, uma_domain, ppv_domain,"
	    " webhook_endpoint, sender_fee_bps, receiver_fee_bps, created_at, updated_at)"
	    " VALUES (?, ?, ?, ?, NULL, 0, 0, UTC_TIMESTAMP(3), UTC_TIMESTAMP(3))";
	static const char ins_profile[] =
	    "INSERT INTO execution_profiles (platform_id, btc_fiat_spread_bps,"
	    " lock_price_seconds, created_at, updated_at)"
	    " VALUES (?, ?, ?, UTC_TIMESTAMP(3), UTC_TIMESTAMP(3))";
	struct create_args *c = arg;
	struct db_val p[] = { DBS(c->id), DBS(c->name) };
	struct db_val cf[] = { DBS(c->config_id), DBS(c->id), DBS(c->uma), DBS(c->ppv) };
	struct db_val pr[] = { DBS(c->id), DBI(PROFILE_DEFAULT_SPREAD_BPS),
	    DBI(PROFILE_DEFAULT_LOCK_SECONDS) };
	static const char taken[] =
	    "SELECT COUNT(*) FROM platform_configs WHERE ppv_domain IN (?, ?)"
	    " OR uma_domain IN (?, ?)";
	struct db_val d[] = { DBS(c->ppv), DBS(c->uma), DBS(c->ppv), DBS(c->uma) };
	struct db_rows r;
	struct token t;
	int rc;

	/* A domain names one platform, whichever of its two roles it plays. */
	if ((rc = db_query(db, taken, d, NARGS(d), &r)) != DB_OK)
		return rc;
	rc = db_cell_i64(&r, 0, 0) > 0 ? DB_DUPLICATE : DB_OK;
	db_rows_free(&r);
	if (rc != DB_OK)
		return rc;
	if ((rc = db_exec(db, ins_platform, p, NARGS(p), NULL)) != DB_OK ||
	    (rc = db_exec(db, ins_config, cf, NARGS(cf), NULL)) != DB_OK ||
	    (rc = db_exec(db, ins_profile, pr, NARGS(pr), NULL)) != DB_OK)
		return rc;
	for (size_t i = 0; i < sizeof(default_codes) / sizeof(default_codes[0]); i++) {
		struct db_val a[] = { DBS(c->id), DBS(default_codes[i]), DBI(i),
		    DBI(DEFAULT_MIN), DBI(DEFAULT_MAX), DBI(1), DBI(1),
		    DBS(DEFAULT_TYPES), DBS(DEFAULT_FIELDS) };

		if ((rc = db_exec(db, insert_currency, a, NARGS(a), NULL)) != DB_OK)
			return rc;
	}
	rc = db_token_insert(db, c->id, c->token_id, "root", 1, 1, 1, c->hash, &t);
	if (rc == DB_OK)
		token_free(&t);
	return rc;
}

int
db_platform_create(struct db *db, const char *name, const char *ppv_domain,
    const char *uma_domain, const char *token_id, const char *secret_hash,
    char platform_id[37])
{
	struct create_args c = { name, ppv_domain, uma_domain, token_id, secret_hash,
	    "", "" };
	int rc;

	ids_uuid4(c.id);
	ids_uuid4(c.config_id);
	if ((rc = db_transact(db, create_tx, &c)) == DB_OK)
		memcpy(platform_id, c.id, sizeof(c.id));
	return rc;
}

int
db_platform_list(struct db *db, struct db_rows *out)
{
	static const char sql[] =
	    "SELECT p.id, p.name, c.ppv_domain, c.uma_domain, p.created_at"
	    " FROM platforms p JOIN platform_configs c ON c.platform_id = p.id"
	    " ORDER BY p.created_at, p.id";

	return db_query(db, sql, NULL, 0, out);
}

/*
 * The worker's cache of configurations.  An entry is keyed by platform and
 * the row's version, which every change increments in the transaction that
 * makes it; a caller that read the current version in this request (the
 * authentication statement reads it with the token) is served from here
 * without a round trip.  A change made by any worker moves the version, so
 * a stale entry is never served to a request that started after the change
 * committed.  256 platforms, 4 to a set (cache_ways.h): with 16 places of
 * one platform each, 17 platforms in use always had two pushing each
 * other out, each of their requests a read more.
 */
#define CONFIG_CACHE_SETS 64
#define CONFIG_CACHE_WAYS 4

static struct {
	char			platform[37];
	int64_t			version;
	struct platform_config	c;
} config_cache[CONFIG_CACHE_SETS * CONFIG_CACHE_WAYS];
static uint64_t config_used[CONFIG_CACHE_SETS * CONFIG_CACHE_WAYS];
static struct cache_ways config_ways = CACHE_WAYS_INIT(config_used, CONFIG_CACHE_SETS,
    CONFIG_CACHE_WAYS);

static void
config_copy(struct platform_config *dst, const struct platform_config *src)
{
	*dst = *src;
	dst->uma_domain = xstrdup(src->uma_domain);
	dst->ppv_domain = xstrdup(src->ppv_domain);
	dst->webhook = src->webhook ? xstrdup(src->webhook) : NULL;
	dst->cur = xcalloc(src->ncur ? src->ncur : 1, sizeof(*dst->cur));
	for (size_t i = 0; i < src->ncur; i++) {
		dst->cur[i] = src->cur[i];
		dst->cur[i].types_json = xstrdup(src->cur[i].types_json);
		dst->cur[i].fields_json = xstrdup(src->cur[i].fields_json);
	}
}

static int
config_of(size_t i, const void *platform)
{
	return strcmp(config_cache[i].platform, platform) == 0;
}

int
db_config_get(struct db *db, const char *platform, int64_t version,
    struct platform_config *out)
{
	/* One statement, so the row and its currencies are one snapshot. */
	static const char sql[] =
	    "SELECT c.id, c.uma_domain, c.ppv_domain, c.webhook_endpoint, c.sender_fee_bps,"
	    " c.receiver_fee_bps, c.created_at, c.updated_at, c.version,"
	    " s.currency_code, s.min_amount, s.max_amount, s.outgoing_enabled,"
	    " s.incoming_enabled, s.enabled_types, s.required_fields"
	    " FROM platform_configs c LEFT JOIN supported_currencies s"
	    " ON s.platform_id = c.platform_id"
	    " WHERE c.platform_id = ? ORDER BY s.position";
	struct db_val a[] = { DBS(platform) };
	long held = cache_ways_find(&config_ways, str_hash(platform), config_of, platform);
	int known = version > 0;	/* the caller's own platform, read with its token */
	struct db_rows r;
	size_t slot;
	int rc;

	memset(out, 0, sizeof(*out));
	if (version > 0 && held >= 0 && config_cache[held].version == version) {
		config_copy(out, &config_cache[held].c);
		cache_ways_use(&config_ways, (size_t)held);
		stats_add(STAT_CONFIG_CACHE_HITS, 1);
		return DB_OK;
	}
	if ((rc = db_query_one(db, sql, a, NARGS(a), &r)) != DB_OK)
		return rc;
	snprintf(out->id, sizeof(out->id), "%s", db_cell(&r, 0, 0));
	out->uma_domain = xstrdup(db_cell(&r, 0, 1));
	out->ppv_domain = xstrdup(db_cell(&r, 0, 2));
	out->webhook = db_cell(&r, 0, 3) ? xstrdup(db_cell(&r, 0, 3)) : NULL;
	out->sender_fee_bps = db_cell_i64(&r, 0, 4);
	out->receiver_fee_bps = db_cell_i64(&r, 0, 5);
	ids_timestamp(db_cell(&r, 0, 6), out->created_at);
	ids_timestamp(db_cell(&r, 0, 7), out->updated_at);
	out->version = version = db_cell_i64(&r, 0, 8);
	out->ncur = db_cell(&r, 0, 9) != NULL ? r.nrows : 0;
	out->cur = xcalloc(out->ncur ? out->ncur : 1, sizeof(*out->cur));
	for (size_t i = 0; i < out->ncur; i++) {
		struct currency_cfg *c = &out->cur[i];

		snprintf(c->code, sizeof(c->code), "%s", db_cell(&r, i, 9));
		c->min_amount = db_cell_i64(&r, i, 10);
		c->max_amount = db_cell_i64(&r, i, 11);
		c->outgoing = db_cell_i64(&r, i, 12) != 0;
		c->incoming = db_cell_i64(&r, i, 13) != 0;
		c->types_json = xstrdup(db_cell(&r, i, 14));
		c->fields_json = xstrdup(db_cell(&r, i, 15));
	}
	db_rows_free(&r);
	/*
	 * Only a configuration read with its version known is kept: another
	 * platform's (a quote's receiving side, read with version 0) could
	 * never be served from here, and kept it would push out an entry of
	 * a platform in use.
	 */
	if (!known)
		return DB_OK;
	slot = held >= 0 ? (size_t)held : cache_ways_place(&config_ways, str_hash(platform));
	cache_ways_use(&config_ways, slot);
	platform_config_free(&config_cache[slot].c);
	snprintf(config_cache[slot].platform, sizeof(config_cache[slot].platform), "%s",
	    platform);
	config_cache[slot].version = version;
	config_copy(&config_cache[slot].c, out);
	return DB_OK;
}

struct update_args {
	const char			*platform;
	const struct config_patch	*p;
};

static int
update_tx(struct db *db, void *arg)
{
	static const char lock[] =
	    "SELECT id FROM platform_configs WHERE platform_id = ? FOR UPDATE";
	static const char touch[] =
	    "UPDATE platform_configs SET updated_at = UTC_TIMESTAMP(3), version = version + 1"
	    " WHERE platform_id = ?";
	/* Every token of the platform carries the version (schema/022). */
	static const char tokens[] =
	    "UPDATE tokens SET config_version ="
	    " (SELECT version FROM platform_configs WHERE platform_id = ?)"
	    " WHERE platform_id = ?";
	static const char webhook[] =
	    "UPDATE platform_configs SET webhook_endpoint = ? WHERE platform_id = ?";
	static const char fees[] =
	    "UPDATE platform_configs SET sender_fee_bps = ?, receiver_fee_bps = ?"
	    " WHERE platform_id = ?";
	static const char clear[] =
	    "DELETE FROM supported_currencies WHERE platform_id = ?";
	struct update_args *u = arg;
	const struct config_patch *p = u->p;
	struct db_val a[] = { DBS(u->platform) };
	struct db_val t2[] = { DBS(u->platform), DBS(u->platform) };
	struct db_rows r;
	int rc;

	if ((rc = db_query(db, lock, a, NARGS(a), &r)) != DB_OK)
		return rc;
	rc = r.nrows ? DB_OK : DB_NOT_FOUND;
	db_rows_free(&r);
	if (rc != DB_OK)
		return rc;
	if (p->set_webhook) {
		struct db_val w[] = { DBSN(p->webhook), DBS(u->platform) };

		if ((rc = db_exec(db, webhook, w, NARGS(w), NULL)) != DB_OK)
			return rc;
	}
	if (p->set_fees) {
		struct db_val f[] = { DBI(p->sender_fee_bps), DBI(p->receiver_fee_bps),
		    DBS(u->platform) };

		if ((rc = db_exec(db, fees, f, NARGS(f), NULL)) != DB_OK)
			return rc;
	}
	if (p->set_currencies) {
		if ((rc = db_exec(db, clear, a, NARGS(a), NULL)) != DB_OK)
			return rc;
		for (size_t i = 0; i < p->ncur; i++) {
			const struct currency_cfg *c = &p->cur[i];
			struct db_val v[] = { DBS(u->platform), DBS(c->code), DBI(i),
			    DBI(c->min_amount), DBI(c->max_amount), DBI(c->outgoing),
			    DBI(c->incoming), DBS(c->types_json), DBS(c->fields_json) };

			if ((rc = db_exec(db, insert_currency, v, NARGS(v), NULL)) != DB_OK)
				return rc;
			/* Existing customers get an account in a new currency. */
			if ((rc = db_internal_ensure_currency(db, u->platform, c->code)) != DB_OK)
				return rc;
		}
	}
	if ((rc = db_exec(db, touch, a, NARGS(a), NULL)) != DB_OK)
		return rc;
	return db_exec(db, tokens, t2, NARGS(t2), NULL);
}

int
db_config_update(struct db *db, const char *platform, const struct config_patch *p)
{
	struct update_args u = { platform, p };

	return db_transact(db, update_tx, &u);
}

void
currency_cfg_free(struct currency_cfg *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(c[i].types_json);
		free(c[i].fields_json);
	}
	free(c);
}

void
platform_config_free(struct platform_config *c)
{
	free(c->uma_domain);
	free(c->ppv_domain);
	free(c->webhook);
	currency_cfg_free(c->cur, c->ncur);
	memset(c, 0, sizeof(*c));
}

int
db_profile_get(struct db *db, const char *platform, struct profile *out)
{
	static const char sql[] =
	    "SELECT btc_fiat_spread_bps, lock_price_seconds FROM execution_profiles"
	    " WHERE platform_id = ?";
	struct db_val a[] = { DBS(platform) };
	struct db_rows r;
	int rc;

	if ((rc = db_query_one(db, sql, a, NARGS(a), &r)) != DB_OK)
		return rc;
	out->spread_bps = db_cell_i64(&r, 0, 0);
	out->lock_seconds = db_cell_i64(&r, 0, 1);
	db_rows_free(&r);
	return DB_OK;
}

int
db_profile_update(struct db *db, const char *platform, const int64_t *spread_bps,
    const int64_t *lock_seconds, struct profile *out)
{
	/* A NULL parameter keeps the column: one statement serves every patch. */
	static const char sql[] =
	    "UPDATE execution_profiles SET"
	    " btc_fiat_spread_bps = COALESCE(?, btc_fiat_spread_bps),"
	    " lock_price_seconds = COALESCE(?, lock_price_seconds),"
	    " updated_at = UTC_TIMESTAMP(3) WHERE platform_id = ?";
	struct db_val a[] = { spread_bps ? DBI(*spread_bps) : DBN,
	    lock_seconds ? DBI(*lock_seconds) : DBN, DBS(platform) };
	int rc;

	if ((spread_bps || lock_seconds) &&
	    (rc = db_exec(db, sql, a, NARGS(a), NULL)) != DB_OK)
		return rc;
	return db_profile_get(db, platform, out);
}

int
db_fx_set(struct db *db, const char *currency, int64_t price)
{
	static const char sql[] =
	    "INSERT INTO fx_reference_prices (currency_code, price_minor_per_btc, updated_at)"
	    " VALUES (?, ?, UTC_TIMESTAMP(3)) ON DUPLICATE KEY UPDATE"
	    " price_minor_per_btc = VALUES(price_minor_per_btc), updated_at = VALUES(updated_at)";
	struct db_val a[] = { DBS(currency), DBI(price) };

	return db_exec(db, sql, a, NARGS(a), NULL);
}

int
db_fx_unset(struct db *db, const char *currency, int64_t *price)
{
	static const char sql[] =
	    "DELETE FROM fx_reference_prices WHERE currency_code = ?"
	    " RETURNING price_minor_per_btc";
	struct db_val a[] = { DBS(currency) };

	return db_read_i64(db, sql, a, NARGS(a), price);
}

int
db_fx_list(struct db *db, struct db_rows *out)
{
	static const char sql[] =
	    "SELECT currency_code, price_minor_per_btc, updated_at FROM fx_reference_prices"
	    " ORDER BY currency_code";

	return db_query(db, sql, NULL, 0, out);
}

static int
name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A migration file name: three digits, '_', a name, ".sql". */
static int
is_migration(const char *n)
{
	size_t l = strlen(n);

	return l > 8 && n[0] >= '0' && n[0] <= '9' && n[1] >= '0' && n[1] <= '9' &&
	    n[2] >= '0' && n[2] <= '9' && n[3] == '_' && strcmp(n + l - 4, ".sql") == 0;
}

static char *
slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (f == NULL)
		return NULL;
	do {
		if (cap - len < 4096) {
			cap = cap ? cap * 2 : 16384;
			buf = xrealloc(buf, cap + 1);
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n > 0);
	fclose(f);
	buf[len] = '\0';
	return buf;
}

/*
 * Runs the statements of one file: "--" comment lines are dropped and a
 * statement ends with a ';' at the end of a line.
 */
static int
run_file(struct db *db, char *text, char *err, size_t errlen)
{
	char *stmt = xmalloc(strlen(text) + 1), *line, *next;
	size_t sl = 0;
	int rc = DB_OK;

	for (line = text; line != NULL && rc == DB_OK; line = next) {
		size_t l;

		next = strchr(line, '\n');
		if (next != NULL)
			*next++ = '\0';
		l = strlen(line);
		while (l > 0 && (line[l - 1] == ' ' || line[l - 1] == '\r' || line[l - 1] == '\t'))
			line[--l] = '\0';
		if (strncmp(line + strspn(line, " \t"), "--", 2) == 0 || l == 0)
			continue;
		memcpy(stmt + sl, line, l);
		sl += l;
		stmt[sl++] = '\n';
		if (line[l - 1] == ';') {
			stmt[sl - 2] = '\0';
			if ((rc = db_exec_once(db, stmt)) != DB_OK)
				snprintf(err, errlen, "%s", db_error(db));
			sl = 0;
		}
	}
	free(stmt);
	return rc;
}

/*
 * The names of the migration files in dir, sorted (the order they apply
 * in).  DB_OK with *names (n of them) for the caller to free, or DB_ERR
 * with the reason in err.
 */
static int
list_migrations(const char *dir, char ***names, size_t *n, char *err, size_t errlen)
{
	DIR *d;
	struct dirent *e;

	*names = NULL;
	*n = 0;
	if ((d = opendir(dir)) == NULL) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return DB_ERR;
	}
	while ((e = readdir(d)) != NULL)
		if (is_migration(e->d_name)) {
			*names = xrealloc(*names, (*n + 1) * sizeof(**names));
			(*names)[(*n)++] = xstrdup(e->d_name);
		}
	closedir(d);
	qsort(*names, *n, sizeof(**names), name_cmp);
	return DB_OK;
}

/*
 * Applies the migration file dir/name unless schema_migrations records it,
 * and records it; calls applied(name) when it ran.  On failure err says
 * why (prefixed with the name when its statements or its record failed).
 */
static int
migrate_one(struct db *db, const char *dir, const char *name,
    void (*applied)(const char *name), char *err, size_t errlen)
{
	static const char seen[] = "SELECT 1 FROM schema_migrations WHERE name = ?";
	static const char record[] =
	    "INSERT INTO schema_migrations (name, applied_at) VALUES (?, UTC_TIMESTAMP(3))";
	struct db_val a[] = { DBS(name) };
	struct db_rows r;
	char path[4096], *text;
	int rc;

	if ((rc = db_query(db, seen, a, NARGS(a), &r)) != DB_OK) {
		snprintf(err, errlen, "%s", db_error(db));
		return rc;
	}
	if (r.nrows > 0) {
		db_rows_free(&r);
		return DB_OK;
	}
	db_rows_free(&r);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((text = slurp(path)) == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return DB_ERR;
	}
	if ((rc = run_file(db, text, err, errlen)) == DB_OK &&
	    (rc = db_exec(db, record, a, NARGS(a), NULL)) != DB_OK)
		snprintf(err, errlen, "%s", db_error(db));
	free(text);
	if (rc == DB_OK)
		applied(name);
	else {
		char msg[512];

		snprintf(msg, sizeof(msg), "%s: %s", name, err);
		snprintf(err, errlen, "%s", msg);
	}
	return rc;
}

int
db_migrate(struct db *db, const char *dir, void (*applied)(const char *name),
    char *err, size_t errlen)
{
	static const char create[] =
	    "CREATE TABLE IF NOT EXISTS schema_migrations ("
	    " name VARCHAR(255) CHARACTER SET ascii NOT NULL PRIMARY KEY,"
	    " applied_at DATETIME(3) NOT NULL) ENGINE=InnoDB";
	char **names;
	size_t n;
	int rc;

	if ((rc = db_exec_once(db, create)) != DB_OK) {
		snprintf(err, errlen, "%s", db_error(db));
		return rc;
	}
	if ((rc = list_migrations(dir, &names, &n, err, errlen)) != DB_OK)
		return rc;
	for (size_t i = 0; i < n && rc == DB_OK; i++)
		rc = migrate_one(db, dir, names[i], applied, err, errlen);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}
