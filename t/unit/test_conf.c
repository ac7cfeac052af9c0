/* Unit tests of the configuration parser. */
#include <criterion/criterion.h>
#include <string.h>
#include <unistd.h>

#include "xborder/conf.h"

static struct conf c;

static void setup(void) { conf_defaults(&c); }
static void teardown(void) { conf_free(&c); }

TestSuite(conf, .init = setup, .fini = teardown);

Test(conf, defaults)
{
	cr_assert_eq(c.workers, 4);
	cr_assert_eq(c.argon2_t, 2);
	cr_assert_eq(c.argon2_m, 19456);
	cr_assert_eq(c.argon2_p, 1);
	cr_assert_str_eq(c.base_path, "");
	cr_assert_str_eq(c.db_socket, "");
	cr_assert_eq(c.review_window, 604800);
	cr_assert_eq(c.webhook_allow_private, 0);
	cr_assert_str_eq(c.webhook_signing_key, "");
	cr_assert_eq(c.webhook_retry_base, 30);
	cr_assert_eq(c.webhook_retry_max, 3600);
	cr_assert_eq(c.webhook_retry_window, 259200);
	cr_assert_str_eq(c.stats_file, "");
	cr_assert_eq(c.db_sync_wait, 0);
	cr_assert_eq(c.idempotency_lease, 30);
	cr_assert_str_eq(c.db_admin_user, "");
	cr_assert_str_eq(c.db_admin_password, "");
	cr_assert_eq(c.db_nnodes, 0);
	cr_assert_eq(c.worker_shard, 0);
	cr_assert_eq(c.worker_shards, 1);
	cr_assert_eq(c.db_read_timeout, 30);
	cr_assert_eq(c.ctl_read_timeout, 86400);
}

/* ctl_read_timeout: xborderctl's wait for an answer, 1 s to a week. */
Test(conf, ctl_read_timeout)
{
	char err[256] = "";

	cr_assert_eq(conf_parse(&c, "ctl_read_timeout = 2\n", err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(c.ctl_read_timeout, 2);
	cr_assert_eq(c.db_read_timeout, 30, "the services' own stays");
	cr_assert_eq(conf_parse(&c, "ctl_read_timeout = 0\n", err, sizeof(err)), -1);
	cr_assert_eq(conf_parse(&c, "ctl_read_timeout = 604801\n", err, sizeof(err)), -1);
}

/* db_nodes: sockets, host, host:port and [IPv6]:port, in their order. */
Test(conf, db_nodes)
{
	char err[256] = "";

	cr_assert_eq(conf_parse(&c, "db_nodes = /run/n2.sock, db3.lan:3307 ,"
	    "db4.lan,[fd00::5]:3310, [fd00::6]\nworker_shard = 2/3\n", err, sizeof(err)), 0,
	    "%s", err);
	cr_assert_eq(c.db_nnodes, 5);
	cr_assert_str_eq(c.db_nodes[0].socket, "/run/n2.sock");
	cr_assert_null(c.db_nodes[0].host);
	cr_assert_str_eq(c.db_nodes[1].host, "db3.lan");
	cr_assert_eq(c.db_nodes[1].port, 3307);
	cr_assert_str_eq(c.db_nodes[2].host, "db4.lan");
	cr_assert_eq(c.db_nodes[2].port, 0, "no port: db_port's");
	cr_assert_str_eq(c.db_nodes[3].host, "fd00::5");
	cr_assert_eq(c.db_nodes[3].port, 3310);
	cr_assert_str_eq(c.db_nodes[4].host, "fd00::6");
	cr_assert_eq(c.worker_shard, 2);
	cr_assert_eq(c.worker_shards, 3);
	/* A later line replaces the list; an empty one clears it. */
	cr_assert_eq(conf_parse(&c, "db_nodes = h1\n", err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(c.db_nnodes, 1);
	cr_assert_str_eq(c.db_nodes[0].host, "h1");
	cr_assert_eq(conf_parse(&c, "db_nodes =\n", err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(c.db_nnodes, 0);
}

Test(conf, parses_every_kind)
{
	char err[256] = "";
	const char *text =
	    "# comment\n"
	    "\n"
	    "db_socket = /tmp/my.sock\n"
	    "  workers=8  \n"
	    "max_requests = 0\n"
	    "socket_mode = 0666\n"
	    "base_path = /api/v1\n"
	    "log_level = debug\n"
	    "webhook_allow_private = yes\n"
	    "db_password = \" spaced \"\n"
	    "review_window = 60\n"
	    "webhook_signing_key = /etc/xborder/webhook.pem\n"
	    "webhook_retry_base = 2\n"
	    "webhook_retry_max = 4\n"
	    "webhook_retry_window = 30\n"
	    "db_sync_wait = 1\n"
	    "idempotency_lease = 10\n";

	cr_assert_eq(conf_parse(&c, text, err, sizeof(err)), 0, "%s", err);
	cr_assert_str_eq(c.db_socket, "/tmp/my.sock");
	cr_assert_eq(c.workers, 8);
	cr_assert_eq(c.max_requests, 0);
	cr_assert_eq(c.socket_mode, 0666);
	cr_assert_str_eq(c.base_path, "/api/v1");
	cr_assert_eq(c.log_level, LOG_LVL_DEBUG);
	cr_assert_eq(c.webhook_allow_private, 1);
	cr_assert_str_eq(c.db_password, " spaced ");
	cr_assert_eq(c.review_window, 60);
	cr_assert_str_eq(c.webhook_signing_key, "/etc/xborder/webhook.pem");
	cr_assert_eq(c.webhook_retry_base, 2);
	cr_assert_eq(c.webhook_retry_max, 4);
	cr_assert_eq(c.webhook_retry_window, 30);
	cr_assert_eq(c.db_sync_wait, 1);
	cr_assert_eq(c.idempotency_lease, 10);
}

Test(conf, errors_name_the_line)
{
	struct { const char *text; const char *err; } cases[] = {
		{ "workers = 4\nbogus = 1\n", "2: bogus: unknown key" },
		{ "workers = 0\n", "1: workers: out of range or not a number" },
		{ "workers = 257\n", "1: workers: out of range or not a number" },
		{ "webhook_retry_base = 0\n", "1: webhook_retry_base: out of range or not a number" },
		{ "\n\nworkers = -1\n", "3: workers: out of range or not a number" },
		{ "workers = 4x\n", "1: workers: out of range or not a number" },
		{ "workers\n", "1: expected key = value" },
		{ "socket_mode = 0999\n", "1: socket_mode: must be an octal mode such as 0660" },
		{ "webhook_allow_private = true\n", "1: webhook_allow_private: must be yes or no" },
		{ "log_level = loud\n", "1: log_level: must be error, warn, info or debug" },
		{ "base_path = api\n", "1: base_path: must be empty or /path without a trailing slash" },
		{ "base_path = /api/\n", "1: base_path: must be empty or /path without a trailing slash" },
		{ "argon2_m = 10\n", "1: argon2_m: out of range or not a number" },
		{ "db_name =\n", "1: db_name: value must not be empty" },
		{ "db_sync_wait = 16\n", "1: db_sync_wait: out of range or not a number" },
		{ "idempotency_lease = 0\n", "1: idempotency_lease: out of range or not a number" },
		{ "db_nodes = a b\n", "1: db_nodes: an entry holds a blank" },
		{ "db_nodes = h:0\n", "1: db_nodes: a port must be 1 to 65535" },
		{ "db_nodes = h:65536\n", "1: db_nodes: a port must be 1 to 65535" },
		{ "db_nodes = h:\n", "1: db_nodes: a port must be 1 to 65535" },
		{ "db_nodes = :3306\n", "1: db_nodes: a host:port entry lacks its host" },
		{ "db_nodes = [::1\n", "1: db_nodes: an IPv6 address must be [address] or [address]:port" },
		{ "db_nodes = [::1]x\n", "1: db_nodes: an IPv6 address must be [address] or [address]:port" },
		{ "db_nodes = a,b,c,d,e,f,g,h,i\n", "1: db_nodes: names more than 8 nodes" },
		{ "worker_shard = 2/2\n", "1: worker_shard: must be K/N, 0 <= K < N <= 64" },
		{ "worker_shard = 0/65\n", "1: worker_shard: must be K/N, 0 <= K < N <= 64" },
		{ "worker_shard = 1\n", "1: worker_shard: must be K/N, 0 <= K < N <= 64" },
		{ "worker_shard = /2\n", "1: worker_shard: must be K/N, 0 <= K < N <= 64" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char err[256] = "";

		cr_assert_eq(conf_parse(&c, cases[i].text, err, sizeof(err)), -1, "case %zu", i);
		cr_assert_str_eq(err, cases[i].err, "case %zu", i);
	}
}

Test(conf, load_missing_file)
{
	struct conf d;
	char err[256];

	conf_free(&c);
	cr_assert_eq(conf_load(&d, "/nonexistent/xborder.conf", err, sizeof(err)), -1);
	cr_assert(strstr(err, "/nonexistent/xborder.conf") != NULL);
	conf_free(&d);
	conf_defaults(&c);
}

/* A later file (xborderctl -c A -c B) sets only what it names, over A. */
Test(conf, load_more_overrides)
{
	char a[] = "/tmp/xb-conf-a.XXXXXX", b[] = "/tmp/xb-conf-b.XXXXXX", err[256] = "";
	const char *ta = "db_user = xborder\ndb_password = runtime\nworkers = 3\n";
	const char *tb = "db_admin_user = xborder_admin\ndb_admin_password = admin\nworkers = 5\n";
	struct conf d;
	int fa = mkstemp(a), fb = mkstemp(b);

	cr_assert(fa >= 0 && fb >= 0);
	cr_assert_eq(write(fa, ta, strlen(ta)), (ssize_t)strlen(ta));
	cr_assert_eq(write(fb, tb, strlen(tb)), (ssize_t)strlen(tb));
	close(fa);
	close(fb);
	cr_assert_eq(conf_load(&d, a, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(conf_load_more(&d, b, err, sizeof(err)), 0, "%s", err);
	cr_assert_str_eq(d.db_user, "xborder");
	cr_assert_str_eq(d.db_password, "runtime");
	cr_assert_str_eq(d.db_admin_user, "xborder_admin");
	cr_assert_str_eq(d.db_admin_password, "admin");
	cr_assert_eq(d.workers, 5);
	cr_assert_eq(d.argon2_t, 2, "defaults stay where no file sets a key");
	conf_free(&d);
	unlink(a);
	unlink(b);
}
