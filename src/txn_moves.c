/*
 * txn_moves.c: the lifecycle's table.  One row per allowed move; what is
 * not in the table is refused.  The table is DESIGN.md's:
 *
 *   transfer-in     created PENDING:   PENDING -> COMPLETED, FAILED
 *   transfer-out    created PENDING:   PENDING -> COMPLETED, FAILED;
 *                                      COMPLETED -> REFUNDED
 *   quote, payout   created CREATED:   CREATED -> PROCESSING, EXPIRED;
 *                                      PROCESSING -> COMPLETED, FAILED;
 *                                      COMPLETED -> REFUNDED
 *   quote, PPV      created CREATED:   CREATED -> COMPLETED, EXPIRED
 *   quote, receiver created COMPLETED: none
 *   review case     created PENDING:   PENDING -> COMPLETED (approve),
 *                                      REJECTED, EXPIRED
 */
#include "config.h"

#include <string.h>

#include "xborder/txn.h"
#include "xborder/txn_moves.h"

static const struct {
	enum txn_class	 c;
	const char	*from, *to;
} moves[] = {
	{ TC_TRANSFER_IN, "PENDING", "COMPLETED" },
	{ TC_TRANSFER_IN, "PENDING", "FAILED" },
	{ TC_TRANSFER_OUT, "PENDING", "COMPLETED" },
	{ TC_TRANSFER_OUT, "PENDING", "FAILED" },
	{ TC_TRANSFER_OUT, "COMPLETED", "REFUNDED" },
	{ TC_QUOTE_PAYOUT, "CREATED", "PROCESSING" },
	{ TC_QUOTE_PAYOUT, "CREATED", "EXPIRED" },
	{ TC_QUOTE_PAYOUT, "PROCESSING", "COMPLETED" },
	{ TC_QUOTE_PAYOUT, "PROCESSING", "FAILED" },
	{ TC_QUOTE_PAYOUT, "COMPLETED", "REFUNDED" },
	{ TC_QUOTE_PPV, "CREATED", "COMPLETED" },
	{ TC_QUOTE_PPV, "CREATED", "EXPIRED" },
	{ TC_REVIEW, "PENDING", "COMPLETED" },
	{ TC_REVIEW, "PENDING", "REJECTED" },
	{ TC_REVIEW, "PENDING", "EXPIRED" },
};

static const struct {
	const char	*name, *initial;
} classes[TC__MAX] = {
	[TC_TRANSFER_IN] = { "transfer-in", "PENDING" },
	[TC_TRANSFER_OUT] = { "transfer-out", "PENDING" },
	[TC_QUOTE_PAYOUT] = { "quote payout", "CREATED" },
	[TC_QUOTE_PPV] = { "quote to a PPV address", "CREATED" },
	[TC_QUOTE_IN] = { "quote received", "COMPLETED" },
	[TC_REVIEW] = { "review case", "PENDING" },
};

enum txn_class
txn_class_of(const char *kind, const char *dest_type)
{
	if (strcmp(kind, "TRANSFER_IN") == 0)
		return TC_TRANSFER_IN;
	if (strcmp(kind, "TRANSFER_OUT") == 0)
		return TC_TRANSFER_OUT;
	if (strcmp(kind, "QUOTE") == 0)
		return strcmp(dest_type, "EXTERNAL_ACCOUNT") == 0 ? TC_QUOTE_PAYOUT : TC_QUOTE_PPV;
	if (strcmp(kind, "QUOTE_IN") == 0)
		return TC_QUOTE_IN;
	if (strcmp(kind, "SIMULATION") == 0)
		return TC_REVIEW;
	return TC_UNKNOWN;
}

enum txn_class
txn_class(const struct txn *t)
{
	return txn_class_of(t->kind, t->destination_type);
}

const char *
txn_initial_status(enum txn_class c)
{
	return c < TC__MAX ? classes[c].initial : NULL;
}

int
txn_move_allowed(enum txn_class c, const char *from, const char *to)
{
	for (size_t i = 0; i < sizeof(moves) / sizeof(moves[0]); i++)
		if (moves[i].c == c && strcmp(moves[i].from, from) == 0 &&
		    strcmp(moves[i].to, to) == 0)
			return 1;
	return 0;
}

int
txn_moves_into(enum txn_class c, const char *to, const char **out, int max)
{
	int n = 0;

	for (size_t i = 0; i < sizeof(moves) / sizeof(moves[0]) && n + 1 < max; i++)
		if (moves[i].c == c && strcmp(moves[i].to, to) == 0)
			out[n++] = moves[i].from;
	if (max > 0)
		out[n] = NULL;
	return n;
}

int
txn_move_settles(const char *to)
{
	return strcmp(to, "COMPLETED") == 0 || strcmp(to, "REFUNDED") == 0;
}

const char *
txn_class_name(enum txn_class c)
{
	return c < TC__MAX ? classes[c].name : "unknown";
}
