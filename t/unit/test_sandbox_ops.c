/*
 * Unit tests of the sandbox state helpers' table (sandbox_ops.c) against
 * decisions.md section 14, written out again here: each helper moves
 * exactly the listed kinds from the listed status to the listed one,
 * every such move is one the lifecycle's table allows (txn_moves.c), and
 * allowedFrom lists exactly those statuses ([] for every other kind).
 */
#include <criterion/criterion.h>
#include <string.h>

#include "xborder/sandbox_ops.h"
#include "xborder/txn_moves.h"

static const char *const statuses[] = { "CREATED", "PENDING", "PROCESSING", "COMPLETED",
	"REJECTED", "FAILED", "REFUNDED", "EXPIRED" };
#define NSTATUS (sizeof(statuses) / sizeof(statuses[0]))

/* Section 14's table, one row per (helper, kind). */
static const struct {
	enum sandbox_helper	 h;
	enum txn_class		 c;
	const char		*from, *to;
} spec[] = {
	{ SBX_COMPLETE, TC_TRANSFER_IN, "PENDING", "COMPLETED" },
	{ SBX_COMPLETE, TC_TRANSFER_OUT, "PENDING", "COMPLETED" },
	{ SBX_COMPLETE, TC_QUOTE_PAYOUT, "PROCESSING", "COMPLETED" },
	{ SBX_FAIL, TC_TRANSFER_IN, "PENDING", "FAILED" },
	{ SBX_FAIL, TC_TRANSFER_OUT, "PENDING", "FAILED" },
	{ SBX_FAIL, TC_QUOTE_PAYOUT, "PROCESSING", "FAILED" },
	{ SBX_RETURN, TC_TRANSFER_OUT, "COMPLETED", "REFUNDED" },
	{ SBX_RETURN, TC_QUOTE_PAYOUT, "COMPLETED", "REFUNDED" },
	{ SBX_EXPIRE, TC_QUOTE_PAYOUT, "CREATED", "EXPIRED" },
	{ SBX_EXPIRE, TC_QUOTE_PPV, "CREATED", "EXPIRED" },
	{ SBX_EXPIRE, TC_REVIEW, "PENDING", "EXPIRED" },
};
#define NSPEC (sizeof(spec) / sizeof(spec[0]))

/* The row of spec for (h, c), or -1. */
static int
spec_row(enum sandbox_helper h, enum txn_class c)
{
	for (size_t i = 0; i < NSPEC; i++)
		if (spec[i].h == h && spec[i].c == c)
			return (int)i;
	return -1;
}

Test(sandbox_ops, every_helper_kind_and_status)
{
	for (int h = 0; h < SBX__MAX; h++)
		for (int c = 0; c < TC__MAX; c++) {
			int row = spec_row((enum sandbox_helper)h, (enum txn_class)c);

			for (size_t s = 0; s < NSTATUS; s++) {
				const char *to = sandbox_helper_to((enum sandbox_helper)h,
				    (enum txn_class)c, statuses[s]);

				if (row >= 0 && strcmp(spec[row].from, statuses[s]) == 0) {
					cr_assert_not_null(to, "helper %d, %s, from %s: moves",
					    h, txn_class_name((enum txn_class)c), statuses[s]);
					cr_assert_str_eq(to, spec[row].to);
					cr_assert(txn_move_allowed((enum txn_class)c, statuses[s], to),
					    "helper %d, %s: %s -> %s is a move of the lifecycle",
					    h, txn_class_name((enum txn_class)c), statuses[s], to);
				} else
					cr_assert_null(to, "helper %d, %s, from %s: refused",
					    h, txn_class_name((enum txn_class)c), statuses[s]);
			}
		}
}

Test(sandbox_ops, allowed_from)
{
	const char *from[SBX_FROM_MAX + 1];

	for (int h = 0; h < SBX__MAX; h++)
		for (int c = 0; c < TC__MAX; c++) {
			int row = spec_row((enum sandbox_helper)h, (enum txn_class)c);
			int n = sandbox_allowed_from((enum sandbox_helper)h, (enum txn_class)c, from);

			if (row < 0) {
				cr_assert_eq(n, 0, "helper %d, %s: allowedFrom []", h,
				    txn_class_name((enum txn_class)c));
				cr_assert_null(from[0]);
			} else {
				cr_assert_eq(n, 1);
				cr_assert_str_eq(from[0], spec[row].from);
				cr_assert_null(from[1]);
			}
		}
	/* The receiving side of a PPV quote: no helper moves it. */
	for (int h = 0; h < SBX__MAX; h++)
		cr_assert_eq(sandbox_allowed_from((enum sandbox_helper)h, TC_QUOTE_IN, from), 0);
}
