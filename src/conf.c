/*
 * conf.c: parser of xborder.conf.  The format is deliberately small:
 * "key = value" lines, '#' comments and blank lines.  Every key is known in
 * advance; an unknown key or a bad value stops the program at start with
 * the line number, so a typo never silently falls back to a default.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xborder/conf.h"

#ifndef XB_SCHEMA_DIR
#define XB_SCHEMA_DIR "/usr/local/share/xborder/schema"
#endif
#ifndef XB_OPENAPI_FILE
#define XB_OPENAPI_FILE "/usr/local/share/xborder/openapi.json"
#endif

enum ctype { C_HEXKEY, C_NODES, C_SHARD, C_STR, C_STR_OPT, C_UINT, C_U64, C_U32, C_OCTAL, C_BOOL, C_LEVEL, C_BASE, C_I64 };

struct ckey {
	const char	*name;
	enum ctype	 type;
	size_t		 off;
	uint64_t	 min, max;
};

#define OFF(f) offsetof(struct conf, f)

static const struct ckey keys[] = {
	{ "db_socket",		C_STR_OPT, OFF(db_socket), 0, 0 },
	{ "db_host",		C_STR, OFF(db_host), 0, 0 },
	{ "db_port",		C_UINT, OFF(db_port), 1, 65535 },
	{ "db_user",		C_STR, OFF(db_user), 0, 0 },
	{ "db_password",	C_STR_OPT, OFF(db_password), 0, 0 },
	{ "db_admin_user",	C_STR_OPT, OFF(db_admin_user), 0, 0 },
	{ "db_admin_password",	C_STR_OPT, OFF(db_admin_password), 0, 0 },
	{ "db_name",		C_STR, OFF(db_name), 0, 0 },
	{ "db_sync_wait",	C_UINT, OFF(db_sync_wait), 0, 15 },
	{ "db_nodes",		C_NODES, OFF(db_nodes), 0, 0 },
	{ "ctl_read_timeout",	C_UINT, OFF(ctl_read_timeout), 1, 604800 },
	{ "listen",		C_STR, OFF(listen), 0, 0 },
	{ "socket_mode",	C_OCTAL, OFF(socket_mode), 0, 0777 },
	{ "workers",		C_UINT, OFF(workers), 1, 256 },
	{ "max_requests",	C_U64, OFF(max_requests), 0, UINT64_C(1000000000000) },
	{ "argon2_t",		C_U32, OFF(argon2_t), 1, 16 },
	{ "argon2_m",		C_U32, OFF(argon2_m), 1024, 4194304 },
	{ "argon2_p",		C_U32, OFF(argon2_p), 1, 16 },
	{ "base_path",		C_BASE, OFF(base_path), 0, 0 },
	{ "log_level",		C_LEVEL, OFF(log_level), 0, 0 },
	{ "log_file",		C_STR_OPT, OFF(log_file), 0, 0 },
	{ "webhook_allow_private", C_BOOL, OFF(webhook_allow_private), 0, 0 },
	{ "review_window",	C_I64, OFF(review_window), 1, UINT64_C(315360000) },
	{ "idempotency_lease",	C_I64, OFF(idempotency_lease), 1, 3600 },
	{ "webhook_signing_key", C_STR_OPT, OFF(webhook_signing_key), 0, 0 },
	{ "webhook_retry_base",	C_I64, OFF(webhook_retry_base), 1, 3600 },
	{ "webhook_retry_max",	C_I64, OFF(webhook_retry_max), 1, 86400 },
	{ "webhook_retry_window", C_I64, OFF(webhook_retry_window), 1, UINT64_C(31536000) },
	{ "invariant_interval",	C_I64, OFF(invariant_interval), 0, 86400 },
	{ "invariant_lag",	C_I64, OFF(invariant_lag), 1, 86400 },
	{ "list_anchor_step",	C_I64, OFF(list_anchor_step), 0, 100000000 },
	{ "list_anchor_delay",	C_I64, OFF(list_anchor_delay), 1, 86400 },
	{ "worker_shard",	C_SHARD, OFF(worker_shard), 0, 0 },
	{ "schema_dir",		C_STR, OFF(schema_dir), 0, 0 },
	{ "openapi_file",	C_STR, OFF(openapi_file), 0, 0 },
	{ "stats_file",		C_STR_OPT, OFF(stats_file), 0, 0 },
	{ "fingerprint_key",	C_HEXKEY, OFF(fingerprint_key), 0, 0 },
};

void
conf_defaults(struct conf *c)
{
	memset(c, 0, sizeof(*c));
	c->db_socket = xstrdup("");
	c->db_host = xstrdup("127.0.0.1");
	c->db_port = 3306;
	c->db_user = xstrdup("xborder");
	c->db_password = xstrdup("");
	c->db_admin_user = xstrdup("");
	c->db_admin_password = xstrdup("");
	c->db_name = xstrdup("xborder");
	c->db_read_timeout = 30;
	c->ctl_read_timeout = 86400;
	c->listen = xstrdup("unix:/run/xborder/fcgi.sock");
	c->socket_mode = 0660;
	c->workers = 4;
	c->max_requests = 10000;
	c->argon2_t = 2;
	c->argon2_m = 19456;
	c->argon2_p = 1;
	c->base_path = xstrdup("");
	c->log_level = LOG_LVL_INFO;
	c->webhook_allow_private = 0;
	c->review_window = 604800;
	c->idempotency_lease = 30;
	c->webhook_signing_key = xstrdup("");
	c->webhook_retry_base = 30;
	c->webhook_retry_max = 3600;
	c->webhook_retry_window = 259200;
	c->invariant_interval = 60;
	c->invariant_lag = 60;
	c->list_anchor_step = 1000;
	c->list_anchor_delay = 600;
	c->worker_shard = 0;
	c->worker_shards = 1;
	c->schema_dir = xstrdup(XB_SCHEMA_DIR);
	c->openapi_file = xstrdup(XB_OPENAPI_FILE);
	c->stats_file = xstrdup("");
	c->log_file = xstrdup("");
}

static void
nodes_free(struct conf *c)
{
	for (size_t i = 0; i < c->db_nnodes; i++) {
		free(c->db_nodes[i].socket);
		free(c->db_nodes[i].host);
	}
	c->db_nnodes = 0;
}

void
conf_free(struct conf *c)
{
	nodes_free(c);
	free(c->db_socket);
	free(c->db_host);
	free(c->db_user);
	free(c->db_password);
	free(c->db_admin_user);
	free(c->db_admin_password);
	free(c->db_name);
	free(c->listen);
	free(c->base_path);
	free(c->schema_dir);
	free(c->openapi_file);
	free(c->stats_file);
	free(c->log_file);
	free(c->webhook_signing_key);
	memset(c, 0, sizeof(*c));
}

/* Parses an unsigned decimal (or octal when base is 8) within [min, max]. */
static int
parse_uint(const char *v, int base, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long n;

	if (*v == '\0' || *v == '-' || *v == '+' || isspace((unsigned char)*v))
		return -1;
	errno = 0;
	n = strtoull(v, &end, base);
	if (errno != 0 || *end != '\0' || n < min || n > max)
		return -1;
	*out = n;
	return 0;
}

static int
valid_base_path(const char *v)
{
	size_t n = strlen(v);

	if (n == 0)
		return 1;
	if (v[0] != '/' || v[n - 1] == '/' || n > 256)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)v[i]) && strchr("/-_.~", v[i]) == NULL)
			return 0;
	return strstr(v, "//") == NULL;
}

/* fingerprint_key: 64 hexadecimal characters, kept as the 32 bytes they spell. */
static const char *
apply_hexkey(struct conf *c, const char *val)
{
	if (strlen(val) != 64 || strspn(val, "0123456789abcdefABCDEF") != 64)
		return "must be 64 hexadecimal characters (32 bytes)";
	for (size_t i = 0; i < 32; i++) {
		char pair[3] = { val[2 * i], val[2 * i + 1], '\0' };

		c->fingerprint_key[i] = (unsigned char)strtoul(pair, NULL, 16);
	}
	c->has_fingerprint_key = 1;
	return NULL;
}

/*
 * One node of db_nodes, len bytes at v: an absolute socket path, or host,
 * host:port or [IPv6]:port.
 */
static const char *
parse_node(struct conf_node *n, const char *v, size_t len)
{
	const char *colon = NULL, *host = v;
	size_t hlen = len;
	uint64_t port = 0;
	char num[8];

	memset(n, 0, sizeof(*n));
	if (len == 0)
		return "an empty entry";
	for (size_t i = 0; i < len; i++)
		if (isspace((unsigned char)v[i]) || iscntrl((unsigned char)v[i]))
			return "an entry holds a blank";
	if (v[0] == '/') {
		n->socket = xstrndup(v, len);
		return NULL;
	}
	if (v[0] == '[') {
		const char *end = memchr(v, ']', len);

		if (end == NULL || end == v + 1)
			return "an IPv6 address must be [address] or [address]:port";
		host = v + 1;
		hlen = (size_t)(end - host);
		if (end + 1 < v + len) {
			if (end[1] != ':')
				return "an IPv6 address must be [address] or [address]:port";
			colon = end + 1;
		}
	} else if ((colon = memchr(v, ':', len)) != NULL) {
		hlen = (size_t)(colon - v);
		if (hlen == 0)
			return "a host:port entry lacks its host";
	}
	if (colon != NULL) {
		size_t plen = len - (size_t)(colon + 1 - v);

		if (plen == 0 || plen >= sizeof(num))
			return "a port must be 1 to 65535";
		memcpy(num, colon + 1, plen);
		num[plen] = '\0';
		if (parse_uint(num, 10, 1, 65535, &port) < 0)
			return "a port must be 1 to 65535";
	}
	n->host = xstrndup(host, hlen);
	n->port = (unsigned)port;
	return NULL;
}

/*
 * db_nodes: the other nodes of a Galera cluster, separated by commas (and
 * blanks), at most CONF_DB_NODES_MAX; empty: none.
 */
static const char *
apply_nodes(struct conf *c, const char *val)
{
	struct conf_node got[CONF_DB_NODES_MAX];
	size_t n = 0;
	const char *p = val, *msg;

	while (*p != '\0') {
		size_t len;

		while (*p == ',' || isspace((unsigned char)*p))
			p++;
		if (*p == '\0')
			break;
		len = strcspn(p, ",");
		while (len > 0 && isspace((unsigned char)p[len - 1]))
			len--;
		if (n == CONF_DB_NODES_MAX)
			msg = "names more than 8 nodes";
		else
			msg = parse_node(&got[n], p, len);
		if (msg != NULL) {
			for (size_t i = 0; i < n; i++) {
				free(got[i].socket);
				free(got[i].host);
			}
			return msg;
		}
		n++;
		p += strcspn(p, ",");
	}
	nodes_free(c);
	memcpy(c->db_nodes, got, n * sizeof(got[0]));
	c->db_nnodes = n;
	return NULL;
}

/* worker_shard: K/N, 0 <= K < N <= 64. */
static const char *
apply_shard(struct conf *c, const char *val)
{
	const char *slash = strchr(val, '/');
	uint64_t k, n;
	char num[8];
	size_t len;

	if (slash == NULL || (len = (size_t)(slash - val)) == 0 || len >= sizeof(num))
		return "must be K/N, 0 <= K < N <= 64";
	memcpy(num, val, len);
	num[len] = '\0';
	if (parse_uint(num, 10, 0, 63, &k) < 0 || parse_uint(slash + 1, 10, 1, 64, &n) < 0 ||
	    k >= n)
		return "must be K/N, 0 <= K < N <= 64";
	c->worker_shard = (unsigned)k;
	c->worker_shards = (unsigned)n;
	return NULL;
}

/*
 * The numeric types: the value parsed within the key's range (in octal for
 * C_OCTAL) and stored in the field at its width.
 */
static const char *
apply_number(struct conf *c, const struct ckey *k, const char *val)
{
	char *field = (char *)c + k->off;
	uint64_t n;

	if (parse_uint(val, k->type == C_OCTAL ? 8 : 10, k->min, k->max, &n) < 0)
		return k->type == C_OCTAL ? "must be an octal mode such as 0660" :
		    "out of range or not a number";
	switch (k->type) {
	case C_U32:
		*(uint32_t *)field = (uint32_t)n;
		break;
	case C_U64:
		*(uint64_t *)field = n;
		break;
	case C_I64:
		*(int64_t *)field = (int64_t)n;
		break;
	default:	/* C_UINT, C_OCTAL */
		*(unsigned *)field = (unsigned)n;
	}
	return NULL;
}

/* Applies one key/value pair; returns NULL or the message for the error. */
static const char *
apply(struct conf *c, const char *key, const char *val)
{
	const struct ckey *k = NULL;
	char *base = (char *)c;

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strcmp(keys[i].name, key) == 0)
			k = &keys[i];
	if (k == NULL)
		return "unknown key";
	switch (k->type) {
	case C_HEXKEY:
		return apply_hexkey(c, val);
	case C_NODES:
		return apply_nodes(c, val);
	case C_SHARD:
		return apply_shard(c, val);
	case C_STR:
		if (*val == '\0')
			return "value must not be empty";
		/* FALLTHROUGH */
	case C_STR_OPT: {
		char **slot = (char **)(base + k->off);

		free(*slot);
		*slot = xstrdup(val);
		return NULL;
	}
	case C_BASE:
		if (!valid_base_path(val))
			return "must be empty or /path without a trailing slash";
		free(c->base_path);
		c->base_path = xstrdup(val);
		return NULL;
	case C_UINT:
	case C_U32:
	case C_U64:
	case C_I64:
	case C_OCTAL:
		return apply_number(c, k, val);
	case C_BOOL:
		if (strcmp(val, "yes") == 0)
			*(int *)(base + k->off) = 1;
		else if (strcmp(val, "no") == 0)
			*(int *)(base + k->off) = 0;
		else
			return "must be yes or no";
		return NULL;
	case C_LEVEL:
		if (log_parse_level(val, (enum log_level *)(base + k->off)) < 0)
			return "must be error, warn, info or debug";
		return NULL;
	}
	return "unknown key";
}

static char *
trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

int
conf_parse(struct conf *c, const char *text, char *err, size_t errlen)
{
	char *copy = xstrdup(text), *line, *next;
	unsigned lineno = 0;
	int rc = 0;

	for (line = copy; line != NULL && rc == 0; line = next) {
		char *eq, *key, *val;
		const char *msg;

		next = strchr(line, '\n');
		if (next != NULL)
			*next++ = '\0';
		lineno++;
		key = trim(line);
		if (*key == '\0' || *key == '#')
			continue;
		if ((eq = strchr(key, '=')) == NULL) {
			snprintf(err, errlen, "%u: expected key = value", lineno);
			rc = -1;
			break;
		}
		*eq = '\0';
		val = trim(eq + 1);
		key = trim(key);
		/* A value may be quoted to keep leading or trailing blanks. */
		if (strlen(val) >= 2 && val[0] == '"' && val[strlen(val) - 1] == '"') {
			val[strlen(val) - 1] = '\0';
			val++;
		}
		if ((msg = apply(c, key, val)) != NULL) {
			snprintf(err, errlen, "%u: %s: %s", lineno, key, msg);
			rc = -1;
		}
	}
	free(copy);
	return rc;
}

int
conf_load(struct conf *c, const char *path, char *err, size_t errlen)
{
	conf_defaults(c);
	return conf_load_more(c, path, err, errlen);
}

int
conf_load_more(struct conf *c, const char *path, char *err, size_t errlen)
{
	FILE *f;
	char *text = NULL, inner[512];
	size_t len = 0, cap = 0, n;
	int rc;

	if ((f = fopen(path, "r")) == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	do {
		if (cap - len < 4096) {
			cap = cap ? cap * 2 : 8192;
			text = xrealloc(text, cap + 1);
		}
		n = fread(text + len, 1, cap - len, f);
		len += n;
	} while (n > 0);
	fclose(f);
	text[len] = '\0';
	if (strlen(text) != len) {
		snprintf(err, errlen, "%s: contains a NUL byte", path);
		free(text);
		return -1;
	}
	rc = conf_parse(c, text, inner, sizeof(inner));
	if (rc < 0)
		snprintf(err, errlen, "%s:%s", path, inner);
	free(text);
	return rc;
}
