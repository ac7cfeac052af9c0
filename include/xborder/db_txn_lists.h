/*
 * db_txn_lists.h: pages of GET /transactions and their counts
 * (db_txn_lists.c), alone or read in the statement that reads the
 * caller's token.
 */
#ifndef XBORDER_DB_TXN_LISTS_H
#define XBORDER_DB_TXN_LISTS_H

#include <stddef.h>
#include <stdint.h>

#include "xborder/db_transactions.h"

struct db;
struct db_rows;
struct token_auth;

/*
 * Lists transactions, newest first.  *due (when due is not NULL) is 1 when
 * the platform may have quotes past their expiry (the page's rows say so;
 * an empty page cannot tell): the caller expires them (quotes_expire_due)
 * and, when it expired any, frees the page and lists again.
 */
int db_txn_list(struct db *db, const char *platform, const struct txn_filter *f,
    int64_t limit, int64_t offset, struct txn **out, size_t *n, int64_t *total, int *due);

/*
 * 1 when db_txn_list() reads the page of f at offset from an anchor when
 * one serves (db_txn_anchors.h): a deep page of the unfiltered list or of
 * a list filtered by type only, which is then not read with the token.
 */
int db_txn_list_anchored(const struct txn_filter *f, int64_t offset);

/*
 * The text of db_txn_list()'s statement for the filter combination mask
 * (0 .. db_txn_list_combinations() - 1): its page (page 1), its page read
 * with the token (page 2, db_token_auth_get_list), its first page read
 * with the token (page 3, the same), the same when page 3 found no row
 * (page 4: page 2 with the version and until when the page holds) or its
 * count (page 0); NULL past the last.  For xborderctl explain-lists.
 */
const char *db_txn_list_sql(unsigned mask, int page);
unsigned db_txn_list_combinations(void);

/*
 * EXPLAIN of that statement for platform, with sample values of the
 * filters: out has EXPLAIN's rows (id, select_type, table, type,
 * possible_keys, key, key_len, ref, rows, Extra).  page 2 is the page
 * read with token token_id (db_token_auth_get_list), which must exist for
 * the plan to show the page; so are pages 3 and 4.
 */
int db_txn_list_explain(struct db *db, const char *platform, const char *token_id,
    unsigned mask, int page, struct db_rows *out);

/*
 * A page of GET /transactions read in the statement that reads the
 * caller's token (one round trip), for a platform the worker already saw
 * the token authenticate in.  usable: the token's platform is that one and
 * no quote is past its expiry that the page depends on, so list, n (0 for
 * an empty page) and total are the answer once the token is authenticated;
 * otherwise the handler reads the page itself (db_txn_list).  list is
 * newest first (txn_list_free).
 */
struct txn_list_prefetch {
	char		 platform_id[37];
	int64_t		 limit, offset;
	int		 usable;
	struct txn	*list;
	size_t		 n;
	int64_t		 total;
	/*
	 * The version of the platform's transactions read with the page
	 * (LIST_VERSION_OF; of the customer's, LIST_VERSION_OF_CUSTOMER, for a
	 * page filtered by customerId), and the earliest expiry of a quote open on it
	 * ("" when none): the page stays the answer while both hold.
	 */
	int64_t		 version;
	char		 expires[24];
	/*
	 * checked: only the token, the version of its platform's
	 * transactions and the server's time (db_now) were read, for a page
	 * the worker keeps (db_token_auth_get_version).
	 */
	int		 checked;
	char		 db_now[24];
};

/*
 * The version of the transactions of the platform in column pcol: it moves
 * with every insert and status change of one of them, and only grows
 * (schema/011_list_version.sql).
 */
#define LIST_VERSION_OF(pcol) \
	"(SELECT COALESCE(SUM(changes), 0) FROM txn_counts WHERE platform_id = " pcol ")"

/*
 * The version of the transactions of one customer (a placeholder, its
 * id) of the platform in column pcol: it moves with every insert and
 * status change of one of them, and only grows (schema/029).  A page
 * filtered by customerId is kept with it, so a change to another
 * customer's transactions leaves the page kept.
 */
#define LIST_VERSION_OF_CUSTOMER(pcol) \
	"(SELECT COALESCE(SUM(changes), 0) FROM txn_customer_counts WHERE platform_id = " \
	pcol " AND customer_id = ?)"

/*
 * db_token_auth_get() of token_id and, in the same statement, the page of
 * f, limit and offset in platform (a guess: used only when it is the
 * token's) into p.  Returns what db_token_auth_get returns.
 */
struct token_auth;
int db_token_auth_get_list(struct db *db, const char *token_id,
    const char *platform,
    const struct txn_filter *f, int64_t limit, int64_t offset, struct token_auth *ta,
    struct txn_list_prefetch *p);
void txn_list_prefetch_free(struct txn_list_prefetch *p);

/*
 * db_token_auth_get() of token_id and, in the same statement, the version
 * of its platform's transactions (of its customer customer_id's when not
 * NULL: a page filtered by customerId) and the server's time, into p
 * (checked): for a page of GET /transactions the worker keeps.
 */
int db_token_auth_get_version(struct db *db, const char *token_id,
    const char *customer_id, struct token_auth *ta,
    struct txn_list_prefetch *p);

#endif
