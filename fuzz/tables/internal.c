/* The body tables of src/h_internal.c (see fuzz/tables.h). */
#include "../../src/h_internal.c"
#include "../tables.h"

const struct fuzz_table fuzz_tables_internal[] = {
	{ "POST /sandbox/internal-accounts/{accountId}/fund", fund_fields },
	{ NULL, NULL }
};
