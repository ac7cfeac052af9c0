/* The body tables of src/h_review.c (see fuzz/tables.h). */
#include "../../src/h_review.c"
#include "../tables.h"

const struct fuzz_table fuzz_tables_review[] = {
	{ "POST /sandbox/incoming-payments/simulate", simulate_fields },
	{ "POST /transactions/{transactionId}/approve", approve_fields },
	{ "POST /transactions/{transactionId}/reject", reject_fields },
	{ NULL, NULL }
};
