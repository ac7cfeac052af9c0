/*
 * Unit tests of db_want_node(): a node named as a worker's heartbeat names
 * it (socket, host:port) is found among the configured ones; anything
 * else, and every name without db_nodes, means the configured node.
 */
#include <criterion/criterion.h>

#include "xborder/conf.h"
#include "xborder/db.h"

static struct conf c;

static void setup(void) { conf_defaults(&c); }
static void teardown(void) { conf_free(&c); }

TestSuite(db_nodes, .init = setup, .fini = teardown);

Test(db_nodes, found_by_name)
{
	char err[256] = "";

	cr_assert_eq(conf_parse(&c, "db_socket = /run/n1.sock\n"
	    "db_nodes = /run/n2.sock, db3.lan:3307, db4.lan\ndb_port = 3310\n",
	    err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(db_want_node(&c, "/run/n1.sock"), 0);
	cr_assert_eq(db_want_node(&c, "/run/n2.sock"), 1);
	cr_assert_eq(db_want_node(&c, "db3.lan:3307"), 2);
	cr_assert_eq(db_want_node(&c, "db4.lan:3310"), 3, "no port in db_nodes: db_port's");
	cr_assert_eq(db_want_node(&c, "db4.lan:3306"), 0, "another port: not that node");
	cr_assert_eq(db_want_node(&c, "db3.lan"), 0, "spelled otherwise: not found");
	cr_assert_eq(db_want_node(&c, ""), 0);
	cr_assert_eq(db_want_node(&c, NULL), 0);
}

Test(db_nodes, without_db_nodes)
{
	char err[256] = "";

	cr_assert_eq(conf_parse(&c, "db_socket = /run/n1.sock\n", err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(db_want_node(&c, "/run/n1.sock"), 0);
	cr_assert_eq(db_want_node(&c, "/run/n2.sock"), 0);
}
