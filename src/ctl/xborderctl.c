/*
 * xborderctl: the operator's tool.  Every command takes the same
 * configuration file as the server (-c) and talks to the same database.
 * More -c files may follow, each over the ones before it: the way to give
 * migrate the credentials of an administrative database user
 * (db_admin_user, db_admin_password) from a file the service never reads.
 * Output is meant for scripts: platform-create prints one JSON object, the
 * list commands print tab-separated lines.  Exit status: 0 success, 1
 * failure (message on stderr), 2 usage (on stderr).  --help, -h or help
 * prints every command with what it does on stdout.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>
#include <openssl/crypto.h>

#include "xborder/auth.h"
#include "xborder/conf.h"
#include "xborder/db.h"
#include "xborder/db_checks.h"
#include "xborder/db_ledger.h"
#include "xborder/db_platforms.h"
#include "xborder/db_txn_anchors.h"
#include "xborder/db_txn_lists.h"
#include "xborder/ids.h"
#include "xborder/db_review.h"
#include "xborder/db_tokens.h"
#include "xborder/db_transactions.h"
#include "xborder/db_webhooks.h"
#include "xborder/db_wh_keys.h"
#include "xborder/fault.h"
#include "xborder/money.h"
#include "xborder/stats.h"
#include "xborder/status.h"
#include "xborder/util.h"
#include "xborder/valid.h"
#include "xborder/wh_sign.h"

static void __attribute__((noreturn)) usage(void);

static void __attribute__((noreturn, format(printf, 1, 2)))
die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "xborderctl: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static int applied_count;

static void
print_applied(const char *name)
{
	printf("applied %s\n", name);
	applied_count++;
}

static int
cmd_migrate(struct db *db, const struct conf *conf, int argc, char **argv)
{
	char err[1024];

	(void)argv;
	if (argc != 1)
		usage();
	applied_count = 0;
	if (db_migrate(db, conf->schema_dir, print_applied, err, sizeof(err)) != DB_OK)
		die("migrate: %s%s", err, strstr(err, "denied") == NULL ? "" :
		    " (migrate changes the schema: give it a database user allowed to,"
		    " with db_admin_user and db_admin_password; see xborderctl(8))");
	if (applied_count == 0)
		printf("up to date\n");
	return 0;
}

/*
 * Prints a platform's root credentials, the one time they are shown: one
 * JSON object {platformId, clientId, clientSecret} (platform-create and
 * token-rotate), then wipes the secret.
 */
static void
print_root_credentials(const char *platform, const char *token, char *secret)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "platformId", json_object_new_string(platform));
	json_object_object_add(o, "clientId", json_object_new_string(token));
	json_object_object_add(o, "clientSecret", json_object_new_string(secret));
	printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
	OPENSSL_cleanse(secret, strlen(secret));
}

/*
 * migrate changes the schema, which the service's own database user need
 * not be allowed to do: it connects as db_admin_user when one is set.
 * Swapping the strings keeps conf_free freeing each once.
 */
static void
use_admin_user(struct conf *conf)
{
	char *u = conf->db_user, *p = conf->db_password;

	if (conf->db_admin_user[0] == '\0')
		return;
	conf->db_user = conf->db_admin_user;
	conf->db_password = conf->db_admin_password;
	conf->db_admin_user = u;
	conf->db_admin_password = p;
}

static int
cmd_platform_create(struct db *db, const struct conf *conf, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "name", required_argument, NULL, 'n' },
		{ "ppv-domain", required_argument, NULL, 'p' },
		{ "uma-domain", required_argument, NULL, 'u' },
		{ NULL, 0, NULL, 0 }
	};
	const char *name = NULL, *ppv = NULL, *uma = NULL, *why;
	char token[UUID_LEN + 1], platform[UUID_LEN + 1], secret[AUTH_SECRET_LEN + 1];
	char *hash = NULL;
	int ch, rc;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (ch) {
		case 'n': name = optarg; break;
		case 'p': ppv = optarg; break;
		case 'u': uma = optarg; break;
		default: usage();
		}
	}
	if (name == NULL || ppv == NULL || optind != argc)
		usage();
	if (uma == NULL)
		uma = ppv;
	if (*name == '\0' || valid_utf8_len(name, strlen(name)) > 128)
		die("--name must be 1 to 128 characters");
	if ((why = valid_domain(ppv)) != NULL)
		die("--ppv-domain %s", why);
	if ((why = valid_domain(uma)) != NULL)
		die("--uma-domain %s", why);
	if (auth_new_secret(conf, secret, &hash) < 0)
		die("cannot make a secret");
	ids_uuid4(token);
	rc = db_platform_create(db, name, ppv, uma, token, hash, platform);
	free(hash);
	if (rc == DB_DUPLICATE)
		die("domain %s or %s is already used by another platform", ppv, uma);
	if (rc != DB_OK)
		die("platform-create: %s", db_error(db));
	print_root_credentials(platform, token, secret);
	return 0;
}

/*
 * token-rotate PLATFORM_ID: gives the platform's root (operator-issued)
 * token a new secret and prints it once, as platform-create does: one JSON
 * object with platformId, clientId (the token's, unchanged) and
 * clientSecret.  The old secret fails on every worker from the commit on.
 * PLATFORM_ID is the raw UUID (Platform:<uuid> is accepted too).
 */
static int
cmd_token_rotate(struct db *db, const struct conf *conf, int argc, char **argv)
{
	char platform[UUID_LEN + 1], token[UUID_LEN + 1], secret[AUTH_SECRET_LEN + 1];
	char *hash = NULL;
	int rc;

	if (argc != 2)
		usage();
	if (ids_parse(argv[1], "Platform", 1, platform) < 0)
		die("token-rotate: %s is not a platform id (a UUID)", argv[1]);
	if (auth_new_secret(conf, secret, &hash) < 0)
		die("cannot make a secret");
	rc = db_token_rotate_root(db, platform, hash, token);
	free(hash);
	if (rc == DB_NOT_FOUND) {
		OPENSSL_cleanse(secret, sizeof(secret));
		die("token-rotate: no platform %s (or it has no root token)", platform);
	}
	if (rc != DB_OK) {
		OPENSSL_cleanse(secret, sizeof(secret));
		die("token-rotate: %s", db_error(db));
	}
	print_root_credentials(platform, token, secret);
	/* The secret exists nowhere else: say so when it did not get out. */
	if (fflush(stdout) != 0)
		die("token-rotate: the new secret could not be written out: %s;"
		    " the old one no longer works, rotate again", strerror(errno));
	return 0;
}

/*
 * Prints every row on one line, tab-separated, with tabs, newlines and CRs
 * inside values shown as \t \n \r; timestamps in the API's form.
 */
static void
print_rows(const struct db_rows *r, size_t ts_col)
{
	for (size_t i = 0; i < r->nrows; i++) {
		for (size_t j = 0; j < r->ncols; j++) {
			const char *v = db_cell(r, i, j);
			char ts[25];

			if (j == ts_col && v != NULL && ids_timestamp(v, ts) == 0)
				v = ts;
			if (j > 0)
				putchar('\t');
			/* One line per row: tabs and line breaks shown escaped. */
			for (; v != NULL && *v != '\0'; v++) {
				if (*v == '\t' || *v == '\n' || *v == '\r') {
					putchar('\\');
					putchar(*v == '\t' ? 't' : *v == '\n' ? 'n' : 'r');
				} else
					putchar(*v);
			}
		}
		putchar('\n');
	}
}

static int
cmd_platform_list(struct db *db, const struct conf *conf, int argc, char **argv)
{
	(void)conf;
	(void)argv;
	struct db_rows r;

	if (argc != 1)
		usage();
	if (db_platform_list(db, &r) != DB_OK)
		die("platform-list: %s", db_error(db));
	print_rows(&r, 4);
	db_rows_free(&r);
	return 0;
}

static int
cmd_fx_set(struct db *db, const struct conf *conf, int argc, char **argv)
{
	(void)conf;
	int64_t price;

	if (argc != 3)
		usage();
	if (money_currency(argv[1]) == NULL)
		die("unknown currency %s", argv[1]);
	if (parse_i64_digits(argv[2], &price) < 0 || price < 1)
		die("price must be an integer >= 1 (minor units per BTC), not %s", argv[2]);
	if (db_fx_set(db, argv[1], price) != DB_OK)
		die("fx-set: %s", db_error(db));
	printf("%s\t%s\n", argv[1], argv[2]);
	return 0;
}

/*
 * fx-unset CURRENCY: removes a reference price, so that quotes and rates in
 * that currency need one again; prints the currency and the price it had.
 * A currency that has none is refused (exit 1).
 */
static int
cmd_fx_unset(struct db *db, const struct conf *conf, int argc, char **argv)
{
	(void)conf;
	int64_t price;
	int rc;

	if (argc != 2)
		usage();
	if (money_currency(argv[1]) == NULL)
		die("unknown currency %s", argv[1]);
	if ((rc = db_fx_unset(db, argv[1], &price)) == DB_NOT_FOUND)
		die("fx-unset: %s has no reference price", argv[1]);
	if (rc != DB_OK)
		die("fx-unset: %s", db_error(db));
	printf("%s\t%" PRId64 "\n", argv[1], price);
	return 0;
}

static int
cmd_fx_list(struct db *db, const struct conf *conf, int argc, char **argv)
{
	(void)conf;
	(void)argv;
	struct db_rows r;

	if (argc != 1)
		usage();
	if (db_fx_list(db, &r) != DB_OK)
		die("fx-list: %s", db_error(db));
	print_rows(&r, 2);
	db_rows_free(&r);
	return 0;
}

/* ledger-check's output: each problem's row, then each check's line. */
static void
report_problem(void *arg, const char *check, const char *what, const char *id,
    const char *detail)
{
	(void)arg;
	(void)check;
	printf("%s\t%s\t%s\n", what, id, detail);
}

static void
report_check(void *arg, const char *check, int problems, long examined)
{
	(void)arg;
	if (problems == 0 && examined >= 0)
		printf("check %s: ok (%ld transactions)\n", check, examined);
	else if (problems == 0)
		printf("check %s: ok\n", check);
	else
		printf("check %s: %d problem%s\n", check, problems, problems == 1 ? "" : "s");
}

static int
cmd_ledger_check(struct db *db, const struct conf *conf, int argc, char **argv)
{
	static const struct check_sink sink = { report_problem, report_check, NULL };
	int problems;

	(void)conf;
	(void)argv;
	if (argc != 1)
		usage();
	problems = db_checks_run(db, &sink);
	if (problems < 0)
		die("ledger-check: %s", db_error(db));
	if (problems > 0) {
		fprintf(stderr, "xborderctl: ledger-check: %d problem%s\n", problems,
		    problems == 1 ? "" : "s");
		return 1;
	}
	printf("ledger ok\n");
	return 0;
}

static int
cmd_review_audit(struct db *db, const struct conf *conf, int argc, char **argv)
{
	struct db_rows r;
	char id[37];
	size_t n;

	(void)conf;
	if (argc != 2)
		usage();
	if (ids_parse(argv[1], "Transaction", 1, id) < 0)
		die("review-audit: %s is not a transaction id", argv[1]);
	if (db_review_audit(db, id, &r) != DB_OK)
		die("review-audit: %s", db_error(db));
	n = r.nrows;
	print_rows(&r, 0);
	db_rows_free(&r);
	return n > 0 ? 0 : 1;
}

/*
 * webhook-keygen [--force]: makes the operator's master secret, from which
 * every platform's signing key is derived (wh_sign.c), and installs it at
 * webhook_signing_key (mode 0600, renamed into place).  An existing master
 * is replaced only with --force: every platform's current key then
 * changes on its next use (the replaced one stays readable by keyId for
 * 72 hours, as after a rotation), which its receivers must follow.  Needs
 * no database.  Prints the new master's id.
 */
static int
cmd_webhook_keygen(struct db *db, const struct conf *conf, int argc, char **argv)
{
	const char *path = conf->webhook_signing_key;
	char old_id[WH_KEY_ID_LEN + 1] = "", new_id[WH_KEY_ID_LEN + 1], err[512];
	char *new_pub = NULL, *priv = NULL;
	struct stat st;
	int force = 0;

	(void)db;
	if (argc == 2 && strcmp(argv[1], "--force") == 0)
		force = 1;
	else if (argc != 1)
		usage();
	if (*path == '\0')
		die("webhook-keygen: webhook_signing_key is not set in the configuration");
	/* A file that is there but is no key of ours is not overwritten. */
	if (stat(path, &st) == 0 || errno != ENOENT) {
		if (wh_master_current(path, old_id, NULL, err, sizeof(err)) < 0)
			die("webhook-keygen: %s (move it away to start afresh)", err);
		if (!force)
			die("webhook-keygen: %s already holds the master secret %s; --force "
			    "replaces it, and with it every platform's signing key", path, old_id);
	}
	if (wh_key_generate(&priv, &new_pub, new_id, err, sizeof(err)) < 0)
		die("webhook-keygen: %s", err);
	if (wh_key_write(path, priv, err, sizeof(err)) < 0)
		die("webhook-keygen: %s", err);
	printf("%s\n", new_id);
	OPENSSL_cleanse(priv, strlen(priv));
	free(priv);
	free(new_pub);
	return 0;
}

/*
 * webhook-key-list [PLATFORM_ID]: the platforms' signing keys, one line
 * each: platform id, keyId, created, "current" or when it was retired,
 * until when it is readable ("-" for the current key; a time past means
 * it is no longer served) and the id of the master it was derived from.
 */
static int
cmd_webhook_key_list(struct db *db, const struct conf *conf, int argc, char **argv)
{
	struct db_rows r;
	char created[25], retired[25], expires[25];

	(void)conf;
	if (argc > 2)
		usage();
	if (argc == 2 && !ids_is_uuid4(argv[1]))
		die("webhook-key-list: %s is not a platform id", argv[1]);
	if (db_wh_key_list(db, argc == 2 ? argv[1] : NULL, &r) != DB_OK)
		die("webhook-key-list: %s", db_error(db));
	for (size_t i = 0; i < r.nrows; i++) {
		if (ids_timestamp(db_cell(&r, i, 3), created) < 0)
			created[0] = '\0';
		if (ids_timestamp(db_cell(&r, i, 4), retired) < 0)
			snprintf(retired, sizeof(retired), "current");
		if (ids_timestamp(db_cell(&r, i, 5), expires) < 0)
			snprintf(expires, sizeof(expires), "-");
		printf("%s\t%s\t%s\t%s\t%s\t%s\n", db_cell(&r, i, 0), db_cell(&r, i, 1), created,
		    retired, expires, db_cell(&r, i, 2));
	}
	db_rows_free(&r);
	return 0;
}

/*
 * webhook-key-drop PLATFORM_ID KEYID: stops serving one of the platform's
 * previous keys at once, before its 72 hours are over.  The current key
 * is refused (rotate it first).
 */
static int
cmd_webhook_key_drop(struct db *db, const struct conf *conf, int argc, char **argv)
{
	int rc;

	(void)conf;
	if (argc != 3)
		usage();
	if (!ids_is_uuid4(argv[1]))
		die("webhook-key-drop: %s is not a platform id", argv[1]);
	if (!wh_key_id_valid(argv[2]))
		die("webhook-key-drop: %s is not a key id (16 lowercase hex digits)", argv[2]);
	rc = db_wh_key_drop(db, argv[1], argv[2]);
	if (rc == DB_NOT_FOUND)
		die("webhook-key-drop: platform %s has no key %s", argv[1], argv[2]);
	if (rc == DB_CONFLICT)
		die("webhook-key-drop: %s is the platform's current key; rotate it first", argv[2]);
	if (rc != DB_OK)
		die("webhook-key-drop: %s", db_error(db));
	printf("dropped %s\n", argv[2]);
	return 0;
}

/*
 * stats: the sums of the xborder-fcgi workers' counters (stats_file), one
 * "name value" line each.  Needs no database.
 */
static int
cmd_stats(struct db *db, const struct conf *conf, int argc, char **argv)
{
	uint64_t sums[STAT__COUNT];

	(void)db;
	(void)argv;
	if (argc != 1)
		usage();
	if (conf->stats_file[0] == '\0')
		die("stats: no stats_file in the configuration");
	if (stats_read(conf->stats_file, sums) < 0)
		die("stats: %s: %s", conf->stats_file, strerror(errno));
	for (int i = 0; i < STAT__COUNT; i++)
		printf("%s %llu\n", stats_name((enum stat_id)i), (unsigned long long)sums[i]);
	return 0;
}

/* One line of "key=value" pairs from the members of o (null: "-"). */
static void
print_pairs(const char *indent, json_object *o, const char *skip)
{
	const char *sep = indent;

	json_object_object_foreach(o, k, v) {
		if (skip != NULL && strcmp(k, skip) == 0)
			continue;
		printf("%s%s=%s", sep, k, v != NULL ? json_object_get_string(v) : "-");
		sep = " ";
	}
	putchar('\n');
}

/*
 * status [--json]: the status document of status.c (the same as GET
 * /status): the workers' counters one by one and summed, the job queue,
 * the webhook backlog, xborder-worker's last invariant checks.  Lines of key=value, or the JSON document.  Exits
 * 3 when the database cannot be read (the counters still print).
 */
static int
cmd_status(struct db *db, const struct conf *conf, int argc, char **argv)
{
	json_object *o, *x;
	int json = argc == 2 && strcmp(argv[1], "--json") == 0, rc;

	if (argc > 2 || (argc == 2 && !json))
		usage();
	o = status_render(conf, db);
	rc = strcmp(json_object_get_string(json_object_object_get(o, "database")), "ok") ? 3 : 0;
	if (json) {
		puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
		    JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(o);
		return rc;
	}
	printf("time=%s version=%s database=%s\n",
	    json_object_get_string(json_object_object_get(o, "time")),
	    json_object_get_string(json_object_object_get(o, "version")),
	    json_object_get_string(json_object_object_get(o, "database")));
	if ((x = json_object_object_get(o, "counters")) != NULL) {
		fputs("counters:", stdout);
		print_pairs(" ", x, NULL);
	} else
		puts("counters: - (no stats_file)");
	x = json_object_object_get(o, "workers");
	for (size_t i = 0; i < json_object_array_length(x); i++) {
		fputs("worker:", stdout);
		print_pairs(" ", json_object_array_get_idx(x, i), NULL);
	}
	if ((x = json_object_object_get(o, "jobs")) != NULL) {
		fputs("jobs:", stdout);
		print_pairs(" ", x, NULL);
	}
	if ((x = json_object_object_get(o, "webhooks")) != NULL) {
		json_object *list = json_object_object_get(x, "platforms");

		fputs("webhooks:", stdout);
		print_pairs(" ", x, "platforms");
		for (size_t i = 0; i < json_object_array_length(list); i++) {
			fputs("webhooks-platform:", stdout);
			print_pairs(" ", json_object_array_get_idx(list, i), NULL);
		}
	}
	if ((x = json_object_object_get(o, "invariants")) != NULL) {
		json_object *failing = json_object_object_get(x, "failing");

		fputs("invariants: failing=", stdout);
		for (size_t i = 0; i < json_object_array_length(failing); i++)
			printf("%s%s", i ? "," : "", json_object_get_string(
			    json_object_array_get_idx(failing, i)));
		if (json_object_array_length(failing) == 0)
			putchar('-');
		print_pairs(" ", x, "failing");
	}
	json_object_put(o);
	return rc;
}

/*
 * Prints one line per table of the plan r, labelled what (two
 * tab-separated fields), "BAD" first when it is bad: it sorts rows
 * (filesort) or reads a whole table (type ALL, on anything but a derived
 * table of a page's ids), or, when by_key, does not find its rows by the
 * primary key (an index walked whole, type index, included).  Returns
 * whether it was bad.
 */
static int
explain_rows(const struct db_rows *r, const char *what, int by_key)
{
	int bad = 0;

	for (size_t i = 0; i < r->nrows; i++) {
		const char *table = db_cell(r, i, 2), *type = db_cell(r, i, 3);
		const char *key = db_cell(r, i, 5), *extra = db_cell(r, i, 9);
		int sorts = extra != NULL && strstr(extra, "filesort") != NULL;
		int scans = type != NULL && strcmp(type, "ALL") == 0 &&
		    (table == NULL || strncmp(table, "<derived", 8) != 0);
		/* No row with a made-up id: nothing was read to find that out. */
		int none = extra != NULL && (strstr(extra, "Impossible WHERE") != NULL ||
		    strstr(extra, "no matching row") != NULL);
		int off_key = by_key && !none && (key == NULL || strcmp(key, "PRIMARY") != 0 ||
		    (type != NULL && strcmp(type, "index") == 0));

		printf("%s\t%s\t%s\t%s\t%s\t%s\n", sorts || scans || off_key ? "BAD" : "ok", what,
		    table ? table : "-", type ? type : "-", key ? key : "-", extra ? extra : "-");
		bad |= sorts || scans || off_key;
	}
	return bad;
}

/*
 * EXPLAIN of every statement of GET /webhooks/deliveries for platform
 * (each combination of its filters: page and count); whether one is bad.
 */
static int
explain_deliveries(struct db *db, const char *platform)
{
	char label[64];
	int bad = 0;

	for (unsigned mask = 0; mask < db_wh_list_combinations(); mask++)
		for (int count = 1; count >= 0; count--) {
			struct db_rows r;

			if (db_wh_list_explain(db, platform, mask, count, &r) != DB_OK)
				die("explain-lists: %s", db_error(db));
			snprintf(label, sizeof(label), "deliveries=%02x\t%s", mask,
			    count ? "count" : "page");
			bad |= explain_rows(&r, label, 0);
			db_rows_free(&r);
		}
	return bad;
}

/*
 * explain-lists PLATFORM_ID: EXPLAIN of every statement GET /transactions
 * can run (each combination of filters: its page, its page read with a
 * token of the platform, and its count; a deep page's look for its anchor
 * and walk from it), and of the statements that lock
 * and change the status of a batch of transactions (1, 2 and 16 of them,
 * the first the platform's newest), and of every statement GET
 * /webhooks/deliveries can run, one line per table of each plan.
 * Exits 1 when a plan sorts rows (filesort) or reads a whole table (type
 * ALL on anything but a derived table of the page's ids): a list must
 * walk an index in its order, however many transactions the platform has;
 * or when a batch's statement does not find its rows by the primary key.
 */
static int
cmd_explain_lists(struct db *db, const struct conf *conf, int argc, char **argv)
{
	static const char *const what[] = { "count", "page", "token+page", "token+first",
	    "token+first-empty" };
	static const size_t sizes[] = { 1, 2, 16 };
	static const struct txn_filter all;
	struct token *tokens;
	struct txn *newest;
	char token_id[37], txn_id[37], label[64];
	size_t ntokens, ntxn;
	int64_t total;
	int bad = 0;

	(void)conf;
	if (argc != 2 || !ids_is_uuid(argv[1]))
		usage();
	/* The page read with a token shows its plan only for a token that exists. */
	if (db_token_list(db, argv[1], 1, 0, &tokens, &ntokens, &total) != DB_OK)
		die("explain-lists: %s", db_error(db));
	if (ntokens == 0)
		die("explain-lists: platform %s has no token", argv[1]);
	snprintf(token_id, sizeof(token_id), "%s", tokens[0].id);
	token_list_free(tokens, ntokens);
	for (unsigned mask = 0; mask < db_txn_list_combinations(); mask++)
		for (int page = 4; page >= 0; page--) {
			struct db_rows r;

			if (db_txn_list_explain(db, argv[1], token_id, mask, page, &r) != DB_OK)
				die("explain-lists: %s", db_error(db));
			snprintf(label, sizeof(label), "filters=%02x\t%s", mask, what[page]);
			bad |= explain_rows(&r, label, 0);
			db_rows_free(&r);
		}
	/*
	 * A deep page of the whole list, of a type's and of a customer's: the
	 * anchor at or above it and the walk down from it, the anchor below
	 * it (the page above the newest) and the walk up from it.
	 */
	for (int page = 0; page < 12; page++) {
		static const struct txn_anchor_list lists[3] = { { NULL, NULL },
		    { "OUTGOING", NULL }, { NULL, "00000000-0000-4000-8000-000000000000" } };
		static const char *const names[3] = { "", "+type", "+customer" };
		static const char *const steps[4] = { "find", "page", "below", "up" };
		struct db_rows r;

		if (db_txn_anchor_explain(db, argv[1], &lists[page / 4], page % 4, &r) != DB_OK)
			die("explain-lists: %s", db_error(db));
		snprintf(label, sizeof(label), "anchor%s\t%s", names[page / 4], steps[page % 4]);
		bad |= explain_rows(&r, label, 0);
		db_rows_free(&r);
	}
	if (db_txn_list(db, argv[1], &all, 1, 0, &newest, &ntxn, &total, NULL) != DB_OK)
		die("explain-lists: %s", db_error(db));
	snprintf(txn_id, sizeof(txn_id), "%s",
	    ntxn > 0 ? newest[0].id : "00000000-0000-4000-8000-00000000ffff");
	txn_list_free(newest, ntxn);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		for (int lock = 1; lock >= 0; lock--) {
			struct db_rows r;

			if (db_txn_change_explain(db, argv[1], txn_id, sizes[i], lock, &r) != DB_OK)
				die("explain-lists: %s", db_error(db));
			snprintf(label, sizeof(label), "batch=%zu\t%s", sizes[i],
			    lock ? "lock" : "status");
			bad |= explain_rows(&r, label, 1);
			db_rows_free(&r);
		}
	return bad | explain_deliveries(db, argv[1]);
}

/*
 * The commands: the function that runs each, whether it needs the
 * database, and whether as the administrative user; their arguments and
 * what each does, one line, for the usage message.
 */
static const struct command {
	const char	*name;
	int		(*run)(struct db *, const struct conf *, int, char **);
	int		 needs_db;	/* 2: when it can be reached */
	int		 admin;		/* connects as db_admin_user, when set */
	const char	*args;
	const char	*what;
} commands[] = {
	{ "migrate", cmd_migrate, 1, 1, "",
	    "apply the schema migrations not yet applied" },
	{ "platform-create", cmd_platform_create, 1, 0,
	    " --name NAME --ppv-domain DOMAIN [--uma-domain DOMAIN]",
	    "create a platform; print its root credentials once" },
	{ "platform-list", cmd_platform_list, 1, 0, "",
	    "list the platforms" },
	{ "token-rotate", cmd_token_rotate, 1, 0, " PLATFORM_ID",
	    "give a platform's root token a new secret, printed once" },
	{ "fx-set", cmd_fx_set, 1, 0, " CURRENCY PRICE_MINOR_PER_BTC",
	    "set a sandbox FX reference price" },
	{ "fx-unset", cmd_fx_unset, 1, 0, " CURRENCY",
	    "remove a sandbox FX reference price" },
	{ "fx-list", cmd_fx_list, 1, 0, "",
	    "list the sandbox FX reference prices" },
	{ "ledger-check", cmd_ledger_check, 1, 0, "",
	    "check the ledger and the counts; non-zero on any problem" },
	{ "review-audit", cmd_review_audit, 1, 0, " TRANSACTION_ID",
	    "print the decisions taken on a review case" },
	{ "webhook-keygen", cmd_webhook_keygen, 0, 0, " [--force]",
	    "make the master secret of the webhook signing keys" },
	{ "webhook-key-list", cmd_webhook_key_list, 1, 0, " [PLATFORM_ID]",
	    "list the platforms' webhook signing keys" },
	{ "webhook-key-drop", cmd_webhook_key_drop, 1, 0, " PLATFORM_ID KEYID",
	    "stop serving a platform's previous signing key" },
	{ "stats", cmd_stats, 0, 0, "",
	    "print the workers' counters" },
	{ "status", cmd_status, 2, 0, " [--json]",
	    "print the counters, the job queue and the webhook backlog" },
	{ "explain-lists", cmd_explain_lists, 1, 0, " PLATFORM_ID",
	    "EXPLAIN every statement of GET /transactions and GET /webhooks/deliveries;"
	    " non-zero on a bad plan" },
};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

/* help: the usage and every command with what it does, on FP. */
static void
help(FILE *fp)
{
	fprintf(fp, "usage: xborderctl -c config [-c config ...] command [args]\n"
	    "       xborderctl --help\n"
	    "commands:\n");
	for (size_t i = 0; i < NCOMMANDS; i++) {
		char head[96];

		snprintf(head, sizeof(head), "%s%s", commands[i].name, commands[i].args);
		if (strlen(head) > 30)
			fprintf(fp, "  %s\n  %-30s  %s\n", head, "", commands[i].what);
		else
			fprintf(fp, "  %-30s  %s\n", head, commands[i].what);
	}
	fprintf(fp, "see xborderctl(8)\n");
}

/* usage: a wrong command line; the usage on stderr, exit 2. */
static void
usage(void)
{
	help(stderr);
	exit(2);
}

/* is_help: --help, -h or help. */
static int
is_help(const char *arg)
{
	return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0 ||
	    strcmp(arg, "help") == 0;
}

int
main(int argc, char *argv[])
{
	struct conf conf;
	struct db *db;
	const struct command *c;
	const char *paths[8];
	size_t npaths = 0;
	char err[1024];
	int rc;

	argc--;
	argv++;
	/* --help anywhere a command may stand: before or after the -c files. */
	for (int i = 0; i < argc; i += 2) {
		if (is_help(argv[i])) {
			help(stdout);
			return fflush(stdout) == 0 ? 0 : 1;
		}
		if (strcmp(argv[i], "-c") != 0)
			break;
	}
	while (argc >= 2 && strcmp(argv[0], "-c") == 0) {
		if (npaths == sizeof(paths) / sizeof(paths[0]))
			usage();
		paths[npaths++] = argv[1];
		argc -= 2;
		argv += 2;
	}
	if (npaths == 0 || argc < 1)
		usage();
	for (c = commands; c < commands + NCOMMANDS; c++)
		if (strcmp(argv[0], c->name) == 0)
			break;
	if (c == commands + NCOMMANDS)
		usage();
	/* Test builds only (fault.h): a pause where a test wants one. */
	fault_arm(getenv("XB_FAULT"));
	if (conf_load(&conf, paths[0], err, sizeof(err)) < 0)
		die("%s", err);
	for (size_t i = 1; i < npaths; i++)
		if (conf_load_more(&conf, paths[i], err, sizeof(err)) < 0)
			die("%s", err);
	if (c->admin)
		use_admin_user(&conf);
	/* ledger-check and migrate read or rebuild whole tables: minutes, not 30 s. */
	conf.db_read_timeout = conf.ctl_read_timeout;
	log_set_level(LOG_LVL_WARN);
	log_open("xborderctl", NULL);
	db = NULL;
	if (c->needs_db && (db = db_open(&conf, err, sizeof(err))) == NULL && c->needs_db == 1)
		die("cannot connect to the database: %s", err);
	rc = c->run(db, &conf, argc, argv);
	db_close(db);
	conf_free(&conf);
	return rc;
}
