/*
 * Unit tests of the lifecycle's table (txn_moves.c) against DESIGN.md's
 * "Transactions: one lifecycle", written out again here: every move it
 * lists is allowed, every other pair of statuses is refused, for every
 * kind of transaction.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "xborder/txn.h"
#include "xborder/txn_moves.h"

static const char *const statuses[] = { "CREATED", "PENDING", "PROCESSING", "COMPLETED",
	"REJECTED", "FAILED", "REFUNDED", "EXPIRED" };
#define NSTATUS (sizeof(statuses) / sizeof(statuses[0]))

/* DESIGN.md's table, one row per allowed move. */
static const struct {
	enum txn_class	 c;
	const char	*from, *to;
} design[] = {
	{ TC_TRANSFER_IN, "PENDING", "COMPLETED" },
	{ TC_TRANSFER_IN, "PENDING", "FAILED" },
	{ TC_TRANSFER_OUT, "PENDING", "COMPLETED" },
	{ TC_TRANSFER_OUT, "PENDING", "FAILED" },
	{ TC_TRANSFER_OUT, "COMPLETED", "REFUNDED" },
	{ TC_QUOTE_PPV, "CREATED", "COMPLETED" },
	{ TC_QUOTE_PPV, "CREATED", "EXPIRED" },
	{ TC_QUOTE_PAYOUT, "CREATED", "PROCESSING" },
	{ TC_QUOTE_PAYOUT, "CREATED", "EXPIRED" },
	{ TC_QUOTE_PAYOUT, "PROCESSING", "COMPLETED" },
	{ TC_QUOTE_PAYOUT, "PROCESSING", "FAILED" },
	{ TC_QUOTE_PAYOUT, "COMPLETED", "REFUNDED" },
	{ TC_REVIEW, "PENDING", "COMPLETED" },
	{ TC_REVIEW, "PENDING", "REJECTED" },
	{ TC_REVIEW, "PENDING", "EXPIRED" },
};
#define NDESIGN (sizeof(design) / sizeof(design[0]))

static int
in_design(enum txn_class c, const char *from, const char *to)
{
	for (size_t i = 0; i < NDESIGN; i++)
		if (design[i].c == c && strcmp(design[i].from, from) == 0 &&
		    strcmp(design[i].to, to) == 0)
			return 1;
	return 0;
}

Test(txn_moves, every_move_of_the_design_is_allowed)
{
	for (size_t i = 0; i < NDESIGN; i++)
		cr_expect(txn_move_allowed(design[i].c, design[i].from, design[i].to),
		    "%s: %s -> %s refused", txn_class_name(design[i].c), design[i].from,
		    design[i].to);
}

Test(txn_moves, every_other_move_is_refused)
{
	int allowed = 0;

	for (int c = 0; c <= TC__MAX; c++)
		for (size_t f = 0; f < NSTATUS; f++)
			for (size_t t = 0; t < NSTATUS; t++) {
				int want = in_design((enum txn_class)c, statuses[f], statuses[t]);
				int got = txn_move_allowed((enum txn_class)c, statuses[f],
				    statuses[t]);

				cr_expect_eq(got, want, "%s: %s -> %s: %d, want %d",
				    txn_class_name((enum txn_class)c), statuses[f], statuses[t],
				    got, want);
				allowed += got;
			}
	cr_assert_eq(allowed, (int)NDESIGN);
	cr_assert_not(txn_move_allowed(TC_TRANSFER_OUT, "PENDING", "BOGUS"));
	cr_assert_not(txn_move_allowed(TC_TRANSFER_OUT, "", "COMPLETED"));
}

Test(txn_moves, nothing_moves_back_or_stays)
{
	for (int c = 0; c < TC__MAX; c++)
		for (size_t s = 0; s < NSTATUS; s++)
			cr_expect_not(txn_move_allowed((enum txn_class)c, statuses[s],
			    statuses[s]));
	/* No move leaves a final status but COMPLETED's refund. */
	for (int c = 0; c < TC__MAX; c++)
		for (size_t t = 0; t < NSTATUS; t++) {
			cr_expect_not(txn_move_allowed((enum txn_class)c, "FAILED", statuses[t]));
			cr_expect_not(txn_move_allowed((enum txn_class)c, "REFUNDED", statuses[t]));
			cr_expect_not(txn_move_allowed((enum txn_class)c, "EXPIRED", statuses[t]));
			cr_expect_not(txn_move_allowed((enum txn_class)c, "REJECTED", statuses[t]));
		}
}

Test(txn_moves, initial_statuses)
{
	cr_assert_str_eq(txn_initial_status(TC_TRANSFER_IN), "PENDING");
	cr_assert_str_eq(txn_initial_status(TC_TRANSFER_OUT), "PENDING");
	cr_assert_str_eq(txn_initial_status(TC_QUOTE_PAYOUT), "CREATED");
	cr_assert_str_eq(txn_initial_status(TC_QUOTE_PPV), "CREATED");
	cr_assert_str_eq(txn_initial_status(TC_QUOTE_IN), "COMPLETED");
	cr_assert_str_eq(txn_initial_status(TC_REVIEW), "PENDING");
	cr_assert_null(txn_initial_status(TC_UNKNOWN));
}

Test(txn_moves, classes)
{
	struct txn t;

	cr_assert_eq(txn_class_of("TRANSFER_IN", "PPV_ADDRESS"), TC_TRANSFER_IN);
	cr_assert_eq(txn_class_of("TRANSFER_OUT", "EXTERNAL_ACCOUNT"), TC_TRANSFER_OUT);
	cr_assert_eq(txn_class_of("QUOTE", "EXTERNAL_ACCOUNT"), TC_QUOTE_PAYOUT);
	cr_assert_eq(txn_class_of("QUOTE", "PPV_ADDRESS"), TC_QUOTE_PPV);
	cr_assert_eq(txn_class_of("QUOTE_IN", "PPV_ADDRESS"), TC_QUOTE_IN);
	cr_assert_eq(txn_class_of("SIMULATION", "PPV_ADDRESS"), TC_REVIEW);
	cr_assert_eq(txn_class_of("REFUND", "PPV_ADDRESS"), TC_UNKNOWN);
	memset(&t, 0, sizeof(t));
	strcpy(t.kind, "QUOTE");
	strcpy(t.destination_type, "EXTERNAL_ACCOUNT");
	cr_assert_eq(txn_class(&t), TC_QUOTE_PAYOUT);
	/* An unknown kind moves nowhere. */
	for (size_t f = 0; f < NSTATUS; f++)
		for (size_t s = 0; s < NSTATUS; s++)
			cr_expect_not(txn_move_allowed(TC_UNKNOWN, statuses[f], statuses[s]));
}

Test(txn_moves, settling_moves)
{
	cr_assert(txn_move_settles("COMPLETED"));
	cr_assert(txn_move_settles("REFUNDED"));
	cr_assert_not(txn_move_settles("FAILED"));
	cr_assert_not(txn_move_settles("PROCESSING"));
	cr_assert_not(txn_move_settles("EXPIRED"));
	cr_assert_not(txn_move_settles("REJECTED"));
}

Test(txn_moves, moves_into)
{
	const char *from[8];

	cr_assert_eq(txn_moves_into(TC_QUOTE_PAYOUT, "COMPLETED", from, 8), 1);
	cr_assert_str_eq(from[0], "PROCESSING");
	cr_assert_null(from[1]);
	cr_assert_eq(txn_moves_into(TC_TRANSFER_OUT, "REFUNDED", from, 8), 1);
	cr_assert_str_eq(from[0], "COMPLETED");
	cr_assert_eq(txn_moves_into(TC_QUOTE_IN, "COMPLETED", from, 8), 0);
	cr_assert_null(from[0]);
	cr_assert_eq(txn_moves_into(TC_REVIEW, "EXPIRED", from, 1), 0);
}
