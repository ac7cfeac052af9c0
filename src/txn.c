/*
 * txn.c: memory of a transaction (txn.h): copying and freeing its owned
 * strings, and what its sandbox outcome says.  Pure: the store fills a
 * struct txn, everyone else borrows it.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "xborder/txn.h"
#include "xborder/util.h"

void
txn_free(struct txn *t)
{
	free(t->platform_customer_id);
	free(t->quote_id);
	free(t->destination_ref);
	free(t->exchange_rate);
	free(t->review_detail);
	memset(t, 0, sizeof(*t));
}

void
txns_free(struct txn *t, size_t n)
{
	for (size_t i = 0; i < n; i++)
		txn_free(&t[i]);
}

void
txn_list_free(struct txn *t, size_t n)
{
	txns_free(t, n);
	free(t);
}

void
txn_copy(const struct txn *t, struct txn *out)
{
	*out = *t;
	out->platform_customer_id = dup_or_null(t->platform_customer_id);
	out->quote_id = dup_or_null(t->quote_id);
	out->destination_ref = dup_or_null(t->destination_ref);
	out->exchange_rate = dup_or_null(t->exchange_rate);
	out->review_detail = dup_or_null(t->review_detail);
}

int
txn_outcome_holds(const char *outcome)
{
	return strcmp(outcome, "HOLDS") == 0;
}

int
txn_outcome_returns(const char *outcome)
{
	return strcmp(outcome, "RETURNS") == 0;
}
